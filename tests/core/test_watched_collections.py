"""A review's findings: collections and watched folders. Real folders, real watchdog, a
real engine with the hashing embedder."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.catalog import Catalog
from docent.core.engine import Engine
from docent.core.index_events import DocumentProgressed, IndexEvent
from docent.core.models import DEFAULT_COLLECTION
from watch_helpers import TIMEOUT, note, open_engine, queue_held, wait_for


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_engine()
    yield eng
    eng.close()


def test_removing_a_collection_whose_folder_sweep_is_still_queued_leaves_nothing_behind(
    engine: Engine, tmp_path: Path
) -> None:
    """A user watches a folder into a new collection, then removes the collection before
    the folder's first sweep has run (a big library is still indexing): the sweep runs
    after the folder was unbound, so its files join the *default* collection, and the
    removal (which looks at the collection's members when it runs) never sees them."""
    work_dir = tmp_path / "work"
    for i in range(3):
        note(work_dir, f"w{i}.txt", f"workword{i}")
    engine.start_watching()
    work = engine.create_collection("Work")
    with queue_held(engine):
        engine.watch(work_dir, work.id)  # its sweep waits behind the held job
        engine.submit_collection_removal(work.id)
    assert engine.wait_idle(TIMEOUT)
    left = [(d.file_name, d.collections) for d in engine.documents()]
    assert left == [], f"files of the removed collection stayed in the library: {left}"


def test_removing_a_collection_while_its_folder_is_being_swept_leaves_nothing_behind(
    engine: Engine, tmp_path: Path
) -> None:
    """Same, with the sweep already running (the first file indexed) when the user
    removes the collection: the rest of the folder is indexed into the default one."""
    work_dir = tmp_path / "work"
    for i in range(4):
        note(work_dir, f"w{i}.txt", f"workword{i}")
    engine.start_watching()
    work = engine.create_collection("Work")
    gate, held = threading.Event(), threading.Event()

    def hold(event: IndexEvent) -> None:
        if (
            isinstance(event, DocumentProgressed)
            and event.job.kind.value == "sweep"
            and not held.is_set()
        ):
            held.set()
            gate.wait(TIMEOUT)

    unsubscribe = engine.subscribe(hold)
    try:
        engine.watch(work_dir, work.id)
        assert held.wait(TIMEOUT)
        engine.submit_collection_removal(work.id)
    finally:
        gate.set()
        unsubscribe()
    assert engine.wait_idle(TIMEOUT)
    left = [(d.file_name, d.collections) for d in engine.documents()]
    assert left == [], f"files of the removed collection stayed in the library: {left}"
    assert engine.documents(DEFAULT_COLLECTION) == []


def test_a_document_taken_out_of_its_watched_folders_collection_stays_out(
    engine: Engine, tmp_path: Path
) -> None:
    """ "Remove from collection" (submit_leave) on a file of a watched folder whose only
    collection is the folder's: it leaves the index, and the folder's next sweep (every
    10 minutes, and at each start) adds it straight back. "Remove from library"
    (submit_removal) keeps it out (catalog.leave_out); leaving does not."""
    work_dir = tmp_path / "work"
    a = note(work_dir, "a.txt", "alpha")
    note(work_dir, "b.txt", "beta")
    work = engine.create_collection("Work")
    engine.watch(work_dir, work.id)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    assert {d.file_name for d in engine.documents(work.id)} == {"a.txt", "b.txt"}
    engine.submit_leave([str(a)], work.id)
    assert engine.wait_idle(TIMEOUT)
    assert {d.file_name for d in engine.documents()} == {"b.txt"}
    assert engine.watcher is not None
    engine.watcher.sweep_now()  # what the periodic sweep does
    assert engine.wait_idle(TIMEOUT)
    assert {d.file_name for d in engine.documents()} == {"b.txt"}, "a.txt came back"


def test_a_document_taken_out_of_its_folders_collection_but_kept_in_another_stays_out(
    engine: Engine, tmp_path: Path
) -> None:
    """In its watched folder's collection (Work) and in one the user added it to
    (Project), the user takes it out of Work: it stays in the library (Project holds it),
    and neither the next save of the file nor the folder's sweep puts it back in Work;
    adding it to Work again by hand does."""
    work_dir = tmp_path / "work"
    a = note(work_dir, "a.txt", "alpha")
    work = engine.create_collection("Work")
    proj = engine.create_collection("Project")
    engine.watch(work_dir, work.id)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    engine.submit_index([str(a)], collection=proj.id)
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == sorted([work.id, proj.id])
    engine.submit_leave([str(a)], work.id)
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == [proj.id]
    a.write_text(a.read_text() + "An edit.\n")  # the watcher re-indexes it
    wait_for(lambda: "An edit" in engine.dump(str(a)), "the edit indexed")
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == [proj.id], "the edit put it back into the collection it left"
    assert engine.watcher is not None
    engine.watcher.sweep_now()
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == [proj.id], "the sweep put it back into the collection it left"
    engine.submit_index([str(a)], collection=work.id)  # the user adds it back
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == sorted([work.id, proj.id])
    a.write_text(a.read_text() + "Another edit.\n")
    wait_for(lambda: "Another edit" in engine.dump(str(a)), "the second edit indexed")
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == sorted([work.id, proj.id]), "added back, it left Work again"


@pytest.mark.parametrize("then", ["leave", "remove collection"])
def test_a_document_out_of_its_folders_collection_then_out_of_the_last_one_stays_out(
    engine: Engine, tmp_path: Path, then: str
) -> None:
    """As above, then the user takes it out of Project too (or removes Project): it
    leaves the library, and the folder's next sweep indexed it again into Work, as new
    (review s21)."""
    work_dir = tmp_path / "work"
    a = note(work_dir, "a.txt", "alpha")
    note(work_dir, "b.txt", "beta")
    work = engine.create_collection("Work")
    proj = engine.create_collection("Project")
    engine.watch(work_dir, work.id)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    engine.submit_index([str(a)], collection=proj.id)
    assert engine.wait_idle(TIMEOUT)
    engine.submit_leave([str(a)], work.id)
    assert engine.wait_idle(TIMEOUT)
    if then == "leave":
        engine.submit_leave([str(a)], proj.id)
    else:
        engine.remove_collection(proj.id)
    assert engine.wait_idle(TIMEOUT)
    assert {d.file_name for d in engine.documents()} == {"b.txt"}
    assert engine.watcher is not None
    engine.watcher.sweep_now()
    assert engine.wait_idle(TIMEOUT)
    assert {d.file_name for d in engine.documents()} == {"b.txt"}, "a.txt came back"


def test_watching_a_watched_folder_into_another_collection_moves_its_files(
    engine: Engine, tmp_path: Path
) -> None:
    """The window watches a folder "into" the collection shown. Adding a folder already
    watched for Work while Home is shown rebinds it to Home (its status says Home), but
    its documents stay in Work only; the next edit of a file puts it in both."""
    folder = tmp_path / "docs"
    a = note(folder, "a.txt", "alpha")
    note(folder, "b.txt", "beta")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    engine.start_watching()
    engine.watch(folder, work.id)
    assert engine.wait_idle(TIMEOUT)
    assert len(engine.documents(work.id)) == 2
    status = engine.watch(folder, home.id)
    assert status is not None and status.collection == "Home"
    assert engine.wait_idle(TIMEOUT)
    a.write_text(a.read_text() + "An edit.\n")
    wait_for(lambda: "An edit" in engine.dump(str(a)), "the edit indexed")
    assert engine.wait_idle(TIMEOUT)
    where = {d.file_name: sorted(d.collections) for d in engine.documents()}
    assert where == {"a.txt": [home.id], "b.txt": [home.id]}, {
        n: ["Work" if c == work.id else "Home" for c in cs] for n, cs in where.items()
    }


def test_a_collection_name_typed_in_another_unicode_form_is_the_same_collection(
    engine: Engine,
) -> None:
    """ "Café" typed on a keyboard is NFC; the same name pasted from a macOS file name (or
    typed with a dead key by some input methods) is NFD. Names are compared by casefold()
    only, so the second create makes a second "Café" (two identical rows in the
    collection bar), and `--collection Café` typed the other way is "unknown"."""
    nfc, nfd = "Caf\u00e9", "Cafe\u0301"
    first = engine.create_collection(nfc)
    assert engine.collection(nfd).id == first.id  # UnknownCollection today
    with pytest.raises(Exception, match="already exists"):
        engine.create_collection(nfd)


def test_stopping_watching_a_folder_before_its_first_sweep_ran_stops_the_sweep(
    engine: Engine, tmp_path: Path
) -> None:
    """Watch a big folder by mistake, then Stop watching ("Keep its documents": there
    are none yet) while its first sweep waits behind other indexing: the sweep still
    runs afterwards and indexes the whole folder that is no longer watched."""
    folder = tmp_path / "big"
    for i in range(3):
        note(folder, f"f{i}.txt", f"bigword{i}")
    engine.start_watching()
    with queue_held(engine):
        engine.watch(folder)
        engine.unwatch(folder)  # drop_documents=False
    assert engine.wait_idle(TIMEOUT)
    assert engine.settings.watched_folders == []
    assert [d.file_name for d in engine.documents()] == []


def test_emptying_the_default_collection_stops_watching_its_unbound_folders(
    tmp_path: Path,
) -> None:
    """A watched folder saved by an older Docent (before collections), or written into
    settings.toml by hand, has no folder_collections row: its files join the default
    collection (start_watching and _named treat it so). Removing the default collection
    releases only the folders *bound* to it, so this one stays watched, and its next
    sweep (or the next start) puts every file straight back."""
    from docent.core.config import update_settings_file

    lib = tmp_path / "lib"
    note(lib, "a.txt", "alpha")
    update_settings_file({"watched_folders": [str(lib)]})  # as an older Docent saved it
    with open_engine() as eng:
        [status] = eng.start_watching()
        assert status.collection == "default"
        assert eng.wait_idle(TIMEOUT)
        assert [d.file_name for d in eng.documents()] == ["a.txt"]
        eng.remove_collection(DEFAULT_COLLECTION)
        assert eng.documents() == []
        assert eng.watcher is not None
        eng.watcher.sweep_now()  # the periodic sweep
        assert eng.wait_idle(TIMEOUT)
        assert eng.settings.watched_folders == [] and eng.documents() == [], (
            eng.settings.watched_folders,
            [d.file_name for d in eng.documents()],
        )


def test_an_editors_backup_save_keeps_the_document_and_its_collections(
    engine: Engine, tmp_path: Path
) -> None:
    """Emacs, and vim with 'backup', save by renaming the original to a backup name
    (``a.txt~``) and writing the new text under the old name. The rename is a "moved out
    to a temp name", which queues the document's removal at once (a plain deletion waits
    GONE_SECONDS for the file to come back); if the removal runs before the editor has
    created the new file (a big file, a slow disk), the document is dropped
    and the new text indexed as a new document: it leaves every collection the user
    had added it to, and loses its summary."""
    work_dir = tmp_path / "work"
    a = note(work_dir, "a.txt", "alpha")
    work, proj = engine.create_collection("Work"), engine.create_collection("Project")
    engine.watch(work_dir, work.id)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    engine.submit_index([str(a)], collection=proj.id)
    assert engine.wait_idle(TIMEOUT)
    [before] = engine.documents()
    assert before.collections == sorted([work.id, proj.id])
    text = a.read_text() + "Saved by the editor.\n"
    backup = work_dir / "a.txt~"
    os.rename(a, backup)
    watcher = engine.watcher
    assert watcher is not None
    # the editor still writing a big file when the rename has been handled: a removal
    # queued (the old way) has run, or the path waits for its file to come back
    wait_for(
        lambda: (
            str(a) in watcher.pending_paths() or (engine.wait_idle(0.1) and not engine.documents())
        ),
        "the rename handled",
    )
    a.write_text(text)
    backup.unlink()

    def saved() -> bool:
        return bool(engine.grep("Saved by the editor"))

    wait_for(saved, "the save indexed")
    assert engine.wait_idle(TIMEOUT)
    [after] = engine.documents()
    assert after.collections == before.collections, "it left Project"
    assert after.doc_id == before.doc_id


def test_a_left_collection_is_forgotten_when_the_document_joins_it_again_or_goes(
    tmp_path: Path,
) -> None:
    """What ``leave_collection`` remembers lasts while the document stays out of that
    collection: joining it again (by any way in), its removal, or the collection's
    removal forgets it, so a later move into that folder is not refused."""
    cat = Catalog(tmp_path / "catalog.db")
    work = cat.create_collection("Work").id
    proj = cat.create_collection("Project").id
    cat.set_collections("d1", [proj])
    cat.leave_collection("d1", work)
    cat.leave_collection("d2", work)
    cat.leave_collection("d3", work)
    assert cat.has_left("d1", work)
    cat.set_collections("d1", [proj, work])
    assert not cat.has_left("d1", work)
    cat.delete("d2")
    assert not cat.has_left("d2", work)
    assert cat.has_left("d3", work)
    cat.delete_collection(work)
    assert not cat.has_left("d3", work)
    cat.close()
