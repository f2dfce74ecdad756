"""Memberships: joining, leaving, moving between watched folders of two collections,
duplicates, removing a collection, older libraries and crashes. A hashing embedder stands
in for the model (``texts_embedded`` counts what would have been embedded)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import qdrant_edge as qe

from docent.core.engine import Engine
from docent.core.errors import CollectionError, UnknownCollection
from docent.core.index_events import IndexEvent, JobFinished
from docent.core.models import DEFAULT_COLLECTION, DocState
from docent.core.store import COLLECTIONS
from docent.core.store_edge import EdgeStore
from watch_helpers import TIMEOUT, note, open_engine


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_engine()
    yield eng
    eng.close()


def store_collections(eng: Engine, doc_id: str) -> set[tuple[str, ...]]:
    """The ``collections`` payload of every chunk of a document, and of its point."""
    assert eng.store is not None
    seen = {tuple(sorted(pl.get(COLLECTIONS, []))) for pl, _ in eng.store.iter_chunks(doc_id)}
    point = eng.store.get_document(doc_id) or {}
    seen.add(tuple(sorted(point.get(COLLECTIONS, []))))
    return seen


def record(eng: Engine, path: Path) -> object:
    [rec] = [d for d in eng.documents() if d.path == str(path)]
    return rec


def test_no_collection_means_the_default_one(engine: Engine, tmp_path: Path) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    engine.index([a])
    [rec] = engine.documents()
    assert rec.collections == [DEFAULT_COLLECTION]
    assert store_collections(engine, rec.doc_id) == {(DEFAULT_COLLECTION,)}
    # the payload the searches filter on is keyword-indexed, on chunks and documents
    store = engine.store
    assert isinstance(store, EdgeStore)
    for shard in (store._chunks, store._docs):
        index = shard.info().payload_schema[COLLECTIONS]
        assert index.data_type == qe.PayloadSchemaType.Keyword and index.points >= 1
    [default] = engine.collections()
    assert (default.name, default.documents, default.ready, default.exclusive) == (
        "default",
        1,
        1,
        1,
    )


def test_the_same_file_in_two_collections_is_embedded_once(engine: Engine, tmp_path: Path) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    engine.index([a], collection=work.id)
    embedded = engine.embedder.texts_embedded
    report = engine.index([a], collection=home.id)
    assert report.unchanged == [str(a)] and report.chunks_embedded == 0
    assert report.regrouped == [(str(a), sorted([work.id, home.id]))]
    assert engine.embedder.texts_embedded == embedded
    assert engine.index([a], collection=home.id).regrouped == []  # already in it
    [rec] = engine.documents()
    assert sorted(rec.collections) == sorted([work.id, home.id])
    assert store_collections(engine, rec.doc_id) == {tuple(sorted([work.id, home.id]))}


def test_the_same_content_at_two_paths_in_two_collections_is_embedded_once(
    engine: Engine, tmp_path: Path
) -> None:
    a = note(tmp_path / "work", "report.txt", "quarterly figures")
    b = tmp_path / "home" / "copy-of-report.txt"
    b.parent.mkdir()
    b.write_bytes(a.read_bytes())
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    engine.index([a], collection=work.id)
    embedded = engine.embedder.texts_embedded
    report = engine.index([b], collection=home.id)
    assert report.indexed == [str(b)] and report.chunks_embedded == 0 and report.chunks_reused
    assert engine.embedder.texts_embedded == embedded
    assert [d.file_name for d in engine.documents(home.id)] == ["copy-of-report.txt"]
    assert [d.file_name for d in engine.documents(work.id)] == ["report.txt"]


def test_a_forced_rebuild_keeps_the_document_in_its_collections(
    engine: Engine, tmp_path: Path
) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    engine.index([a], collection=work.id)
    engine.index([a], collection=home.id)
    done = threading.Event()
    engine.subscribe(lambda e: done.set() if isinstance(e, JobFinished) else None)
    engine.submit_index([str(a)], force=True, collection=work.id)
    assert done.wait(TIMEOUT) and engine.queue.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert sorted(rec.collections) == sorted([work.id, home.id])
    assert store_collections(engine, rec.doc_id) == {tuple(sorted([work.id, home.id]))}


def test_names_are_unique_whatever_their_case_and_rename_touches_no_vector(
    engine: Engine, tmp_path: Path
) -> None:
    work = engine.create_collection("Work")
    with pytest.raises(CollectionError, match="already exists"):
        engine.create_collection("  work ")
    with pytest.raises(CollectionError, match="needs a name"):
        engine.create_collection("   ")
    a = note(tmp_path / "lib", "a.txt", "alpha")
    engine.index([a], collection=work.id)
    renamed = engine.rename_collection(work.id, "Office")
    assert renamed.id == work.id and renamed.name == "Office" and renamed.documents == 1
    assert engine.collection("OFFICE").id == work.id
    with pytest.raises(UnknownCollection, match="'Work'.*Collections: default, Office"):
        engine.collection("Work")
    with pytest.raises(CollectionError):
        engine.rename_collection(work.id, "default")
    # whatever the case beyond ASCII too: "über" named "Über", and removed it (review)
    uber = engine.create_collection("Über")
    for taken in ("über", "ÜBER"):
        with pytest.raises(CollectionError, match="'Über' already exists"):
            engine.create_collection(taken)
    strasse = engine.create_collection("Straße")
    with pytest.raises(CollectionError, match="'Straße' already exists"):
        engine.create_collection("STRASSE")
    with pytest.raises(CollectionError, match="'Über' already exists"):
        engine.rename_collection(strasse.id, "über")
    assert engine.rename_collection(uber.id, "über").name == "über"  # its own name's case
    with pytest.raises(CollectionError, match="not valid UTF-8"):
        engine.create_collection(os.fsdecode(b"bad\xffname"))
    assert engine.search("alpha", collection=work.id).hits


def test_removing_a_collection_drops_only_what_is_in_no_other(
    engine: Engine, tmp_path: Path
) -> None:
    only = note(tmp_path / "lib", "only.txt", "solitary")
    both = note(tmp_path / "lib", "both.txt", "shared")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    engine.index([only, both], collection=work.id)
    engine.index([both], collection=home.id)
    assert engine.collection("Work").exclusive == 1
    report = engine.remove_collection(work.id)
    assert report.removed == [str(only)]
    assert only.exists() and both.exists(), "a file was deleted"
    assert [c.name for c in engine.collections()] == ["default", "Home"]
    [rec] = engine.documents()
    assert rec.file_name == "both.txt" and rec.collections == [home.id]
    assert store_collections(engine, rec.doc_id) == {(home.id,)}
    assert engine.grep("solitary") == []
    assert engine.store is not None and engine.store.count_chunks() == rec.chunks


def test_removing_the_default_collection_empties_it_and_keeps_it(
    engine: Engine, tmp_path: Path
) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    engine.index([a])
    report = engine.remove_collection(DEFAULT_COLLECTION)
    assert report.removed == [str(a)] and engine.documents() == []
    assert [(c.id, c.documents) for c in engine.collections()] == [(DEFAULT_COLLECTION, 0)]


def test_leaving_a_collection_keeps_the_document_while_another_holds_it(
    engine: Engine, tmp_path: Path
) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    work = engine.create_collection("Work")
    engine.index([a])
    engine.index([a], collection=work.id)
    done = threading.Event()
    engine.subscribe(lambda e: done.set() if isinstance(e, JobFinished) else None)
    [job] = engine.submit_leave([str(a)], DEFAULT_COLLECTION)
    assert done.wait(TIMEOUT) and engine.queue.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert rec.collections == [work.id]
    done.clear()
    engine.submit_leave([str(tmp_path / "lib")], work.id)  # a folder: its documents
    assert done.wait(TIMEOUT) and engine.queue.wait_idle(TIMEOUT)
    assert engine.documents() == [] and a.exists()


def test_many_documents_leave_a_collection_in_one_job(engine: Engine, tmp_path: Path) -> None:
    """Review 82: a job each, taking 3,000 selected rows out of a collection held the
    window's thread 2 s (10,000: 23 s), each submit scanning all those queued."""
    names = [note(tmp_path / "lib", f"n{i}.txt", f"note {i} about lamps") for i in range(4)]
    work = engine.create_collection("Work")
    engine.index(names[:1])  # the first is in the default collection too
    engine.index(names, collection=work.id)
    jobs = engine.submit_leave([str(p) for p in names], work.id)
    assert len(jobs) == 1 and engine.queue.wait_idle(TIMEOUT)
    assert [(r.file_name, r.collections) for r in engine.documents()] == [
        ("n0.txt", [DEFAULT_COLLECTION])
    ]


def test_the_same_path_queued_for_two_collections_joins_both(
    engine: Engine, tmp_path: Path
) -> None:
    a = note(tmp_path / "lib", "a.txt", "alpha")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    gate = threading.Event()
    engine.subscribe(lambda e: gate.wait(TIMEOUT) if isinstance(e, JobFinished) else None)
    first = engine.submit_index([str(tmp_path / "nothing-yet")])  # holds the queue
    one = engine.submit_index([str(a)], collection=work.id)
    two = engine.submit_index([str(a)], collection=home.id)
    assert first is not None and one is not None and two is not None and one is not two
    gate.set()
    assert engine.queue.wait_idle(TIMEOUT)
    [rec] = engine.documents()
    assert sorted(rec.collections) == sorted([work.id, home.id])


# Watched folders ---------------------------------------------------------------------


class Ended:
    """Wakes on every finished job."""

    def __init__(self, eng: Engine) -> None:
        self.cond = threading.Condition()
        eng.subscribe(self._on)

    def _on(self, event: IndexEvent) -> None:
        with self.cond:
            self.cond.notify_all()

    def wait_until(self, pred: object, what: str) -> None:
        assert callable(pred)
        with self.cond:
            if not self.cond.wait_for(pred, TIMEOUT):
                raise AssertionError(f"timed out waiting for {what}")


def test_a_move_between_watched_folders_changes_collection_without_embedding(
    engine: Engine, tmp_path: Path
) -> None:
    work_dir, home_dir = tmp_path / "work", tmp_path / "home"
    a = note(work_dir, "a.txt", "alpha")
    note(home_dir, "h.txt", "hearth")
    work, home = engine.create_collection("Work"), engine.create_collection("Home")
    ended = Ended(engine)
    finished: list[JobFinished] = []
    engine.subscribe(lambda e: finished.append(e) if isinstance(e, JobFinished) else None)
    engine.watch(work_dir, work.id)
    engine.watch(home_dir, home.id)
    statuses = {st.path: st.collection for st in engine.start_watching()}
    assert statuses == {str(work_dir): "Work", str(home_dir): "Home"}
    assert engine.wait_idle(TIMEOUT)
    [rec] = engine.documents(work.id)
    assert rec.collections == [work.id]
    embedded = engine.embedder.texts_embedded

    os.rename(a, home_dir / "a.txt")

    def moved() -> bool:
        docs = engine.documents(home.id)
        return str(home_dir / "a.txt") in {d.path for d in docs}

    ended.wait_until(moved, "the move into the home folder")
    assert engine.wait_idle(TIMEOUT)
    [after] = [d for d in engine.documents() if d.file_name == "a.txt"]
    assert after.doc_id == rec.doc_id and after.collections == [home.id]
    assert store_collections(engine, after.doc_id) == {(home.id,)}
    assert engine.embedder.texts_embedded == embedded, "the move re-embedded"
    # what `docent watch` prints: the rename, and the collection it is in now
    names = {c.id: c.name for c in engine.collections()}
    entries = [e for f in finished for e in f.changes(names) if e["event"] != "indexed"]
    assert entries == [
        {
            "event": "renamed",
            "path": str(home_dir / "a.txt"),
            "from": str(a),
            "collections": "Home",
        }
    ]
    assert engine.documents(work.id) == []
    assert [h.file_name for h in engine.search("alpha note", collection=home.id).hits][0] == (
        "a.txt"
    )
    assert engine.search("alpha note", collection=work.id).hits == []


def test_a_move_found_by_a_sweep_changes_collection_too(tmp_path: Path) -> None:
    """Moved while Docent was closed: the next sweep finds it by its content."""
    work_dir, home_dir = tmp_path / "work", tmp_path / "home"
    a = note(work_dir, "a.txt", "alpha")
    home_dir.mkdir()
    with open_engine() as eng:
        work, home = eng.create_collection("Work"), eng.create_collection("Home")
        eng.watch(work_dir, work.id)
        eng.watch(home_dir, home.id)
        eng.start_watching()
        assert eng.wait_idle(TIMEOUT)
        assert [d.collections for d in eng.documents()] == [[work.id]]
    os.rename(a, home_dir / "a.txt")
    with open_engine() as eng:
        eng.start_watching()
        assert eng.wait_idle(TIMEOUT)
        [rec] = eng.documents()
        assert rec.path == str(home_dir / "a.txt") and rec.collections == [home.id]
        assert eng.embedder.texts_embedded == 0


def test_removing_a_collection_stops_watching_its_folders(engine: Engine, tmp_path: Path) -> None:
    work_dir = tmp_path / "work"
    note(work_dir, "a.txt", "alpha")
    work = engine.create_collection("Work")
    engine.watch(work_dir, work.id)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    assert len(engine.documents(work.id)) == 1
    engine.remove_collection(work.id)
    assert engine.settings.watched_folders == [] and engine.watched() == []
    assert engine.documents() == []
    note(work_dir, "b.txt", "beta")  # nobody indexes it any more
    assert engine.wait_idle(TIMEOUT) and engine.documents() == []


# Older libraries and crashes ---------------------------------------------------------


def test_a_library_from_before_collections_opens_in_the_default_one_without_embedding(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "lib"
    note(lib, "a.txt", "alpha")
    note(lib, "b.txt", "beta")
    with open_engine() as eng:
        eng.index([lib])
        catalog, store_path = eng.settings.catalog_path, eng.settings.store_path
    # Make it what an older Docent left: no collection tables, no payload field.
    db = sqlite3.connect(catalog)
    for table in ("collections", "memberships", "folder_collections", "payload_stale"):
        db.execute(f"DROP TABLE {table}")
    db.commit()
    db.close()
    for shard in ("chunks", "documents"):
        s = qe.EdgeShard.load(str(store_path / shard))
        s.update(qe.UpdateOperation.delete_payload_by_filter(qe.Filter(must=[]), [COLLECTIONS]))
        s.close()

    with open_engine() as eng:
        assert eng.embedder.texts_embedded == 0
        docs = eng.documents()
        assert [d.collections for d in docs] == [[DEFAULT_COLLECTION]] * 2
        for d in docs:
            assert store_collections(eng, d.doc_id) == {(DEFAULT_COLLECTION,)}
        hits = eng.search("alpha note", collection=DEFAULT_COLLECTION).hits
        assert hits and hits[0].file_name == "a.txt"
        assert eng.embedder.texts_embedded == 0


def test_a_membership_change_cut_short_is_finished_on_open(tmp_path: Path) -> None:
    """The catalog changed, the store did not (a crash in between): open writes it."""
    a = note(tmp_path / "lib", "a.txt", "alpha")
    with open_engine() as eng:
        work = eng.create_collection("Work")
        eng.index([a])
        [rec] = eng.documents()
        assert eng.catalog is not None
        eng.catalog.set_collections(rec.doc_id, [work.id])  # ... and the crash
        assert store_collections(eng, rec.doc_id) == {(DEFAULT_COLLECTION,)}
    with open_engine() as eng:
        assert store_collections(eng, rec.doc_id) == {(work.id,)}
        assert eng.catalog is not None and eng.catalog.stale_payloads() == []
        assert eng.search("alpha note", collection=work.id).hits


def test_a_failed_file_belongs_to_its_collection(engine: Engine, tmp_path: Path) -> None:
    bad = tmp_path / "lib" / "empty.txt"
    bad.parent.mkdir()
    bad.write_text("")
    work = engine.create_collection("Work")
    engine.index([bad], collection=work.id)
    [rec] = engine.documents(work.id)
    assert rec.state is DocState.FAILED
    assert engine.collection("Work").documents == 1


def test_removing_a_collection_stops_indexing_into_it(engine: Engine, tmp_path: Path) -> None:
    """QA-79: a collection removed while its files were being added waited for the run
    (a big PDF embedding for minutes), then took them out. The run into it stops; what it
    had not finished is taken out with the collection."""
    from docent.core.index_events import DocumentProgressed, JobKind

    lib = tmp_path / "lib"
    for i in range(3):
        note(lib, f"long{i}.txt", " ".join(f"Paragraph {j} on lamp {i}." for j in range(3000)))
    tmp = engine.create_collection("Tmp")
    embedding = threading.Event()
    ended: list[JobFinished] = []

    def heard(e: IndexEvent) -> None:
        if isinstance(e, DocumentProgressed) and e.progress.phase == "embedding":
            embedding.set()
        if isinstance(e, JobFinished):
            ended.append(e)

    engine.subscribe(heard)
    run = engine.queue.index([str(lib)], collection=tmp.id)
    assert run is not None and embedding.wait(TIMEOUT)
    engine.submit_collection_removal(tmp.id)
    assert engine.queue.wait_idle(TIMEOUT)
    by_kind = {e.job.kind: e.report for e in ended}
    assert by_kind[JobKind.INDEX].cancelled, "the run into the collection went on"
    assert len(by_kind[JobKind.REMOVE_COLLECTION].removed) == 3
    assert engine.documents() == [] and "Tmp" not in [c.name for c in engine.collections()]
