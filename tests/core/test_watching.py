"""Watched folders on real folders, real watchdog (inotify), a real engine and model.

No sleep synchronises anything: tests wait for conditions (a job result, a folder state)
with ``Recorder.wait_until``, and for "nothing else is going to happen" with
``Engine.wait_idle`` (no event timer armed, no job queued or running). Every file here
is one chunk, so "indexed exactly once" is also "embedded exactly one text".
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docent.core import watching
from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.index_events import (
    DocumentChanged,
    DocumentProgressed,
    FilesFound,
    IndexEvent,
    JobFailed,
    JobFinished,
    JobStarted,
)
from docent.core.jobs import IndexQueue, Job, JobKind
from docent.core.models import DocState
from docent.core.textcache import sha256_file
from docent.core.watching import FolderState, FolderStatus, WatchError
from fake_embedder import FakeEmbedder
from watch_helpers import queue_held

TIMEOUT = 30.0
WORDS = [
    "lantern",
    "harbour",
    "ledger",
    "crate",
    "seal",
    "tin",
    "oil",
    "inspector",
    "season",
    "north",
]


def text_for(tag: str) -> str:
    """A short, unique text (one chunk): unique so no chunk vector is shared."""
    words = " ".join(WORDS[(i * 7 + len(tag)) % len(WORDS)] for i in range(30))
    return f"Note {tag}. The {tag} record says: {words}. End of {tag}.\n"


class Recorder:
    """Listens to an engine's queue (and watcher) and waits for conditions."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.results: list[JobFinished | JobFailed] = []
        self._cond = threading.Condition()
        eng.subscribe(self._on_event)

    def _on_event(self, event: IndexEvent) -> None:
        if not isinstance(event, JobFinished | JobFailed):
            return
        with self._cond:
            self.results.append(event)
            self._cond.notify_all()

    def on_state(self, status: FolderStatus) -> None:
        with self._cond:
            self._cond.notify_all()

    def follow_watcher(self) -> None:
        assert self.eng.watcher is not None
        self.eng.watcher.on_state = self.on_state

    def wait_until(self, pred: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
        """Wake on every job result / state change (and every 0.1 s) until ``pred()``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self._cond.wait(min(left, 0.1))

    def count(self, field: str, path: Path | str) -> int:
        with self._cond:
            return sum(1 for r in self.results for p in getattr(r.report, field) if p == str(path))

    def renames(self) -> list[tuple[str, str]]:
        with self._cond:
            return [pair for r in self.results for pair in r.report.renamed]

    def clear(self) -> None:
        with self._cond:
            self.results.clear()


def open_engine() -> Engine:
    """What is embedded matters here, not how well: a hashing embedder stands in."""
    return Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_engine()
    yield eng
    eng.close()


def start(eng: Engine, lib: Path) -> Recorder:
    rec = Recorder(eng)
    eng.watch(lib)
    eng.start_watching()
    rec.follow_watcher()
    assert eng.wait_idle(TIMEOUT)
    return rec


def catalog_paths(eng: Engine) -> set[str]:
    return {d.path for d in eng.documents()}


def assert_catalog_matches(eng: Engine, folder: Path) -> None:
    on_disk = {str(p) for p in folder.rglob("*") if p.is_file() and p.suffix in (".txt", ".md")}
    assert catalog_paths(eng) == on_disk
    for doc in eng.documents():
        assert doc.state is DocState.READY, doc
        assert doc.sha256 == sha256_file(doc.path)
        assert doc.chunks == 1


def write_slowly(path: Path, text: str, pieces: int = 20, pause: float = 0.1) -> None:
    """A writer in ~20 flushed writes spread over ~2 s (longer than the 0.5 s quiet
    period, shorter than the 3 s fallback). The pause simulates a slow copy; it does
    not synchronise the test with anything."""
    step = max(1, len(text) // pieces)
    with open(path, "w", encoding="utf-8") as fh:
        for at in range(0, len(text), step):
            fh.write(text[at : at + step])
            fh.flush()
            os.fsync(fh.fileno())
            time.sleep(pause)


# Events ---------------------------------------------------------------------------


def test_create_modify_delete(engine: Engine, lib: Path) -> None:
    rec = start(engine, lib)
    a = lib / "a.txt"
    before = engine.embedder.texts_embedded
    a.write_text(text_for("alpha"))
    rec.wait_until(lambda: rec.count("indexed", a) == 1, "a.txt indexed")
    assert engine.wait_idle(TIMEOUT)
    assert engine.embedder.texts_embedded - before == 1
    assert_catalog_matches(engine, lib)

    a.write_text(text_for("alpha-2"))
    rec.wait_until(lambda: rec.count("indexed", a) == 2, "a.txt re-indexed")
    assert engine.wait_idle(TIMEOUT)
    assert engine.embedder.texts_embedded - before == 2
    assert engine.grep("alpha-2 record")
    assert_catalog_matches(engine, lib)

    a.unlink()
    rec.wait_until(lambda: rec.count("removed", a) == 1, "a.txt removed")
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set()
    assert rec.count("indexed", a) == 2


def test_editors_saves_are_seen(engine: Engine, lib: Path) -> None:
    """How editors save: a hidden temporary file renamed over the original (an atomic
    save: inotify says "moved", never "modified"), and vim's dance (the original renamed
    to a backup, the new text written, the backup deleted). Each edit is indexed; no
    backup or temporary file is, and the old text is gone from the library."""
    a, b = lib / "a.txt", lib / "b.md"
    a.write_text(text_for("alpha"))
    b.write_text(text_for("beta"))
    rec = start(engine, lib)
    tmp = lib / ".a.txt.swp123"
    tmp.write_text(text_for("alpha-2"))
    os.replace(tmp, a)
    rec.wait_until(lambda: bool(engine.grep("alpha-2 record")), "the atomic save indexed")
    os.rename(b, lib / "b.md~")
    b.write_text(text_for("beta-2"))
    (lib / "b.md~").unlink()
    rec.wait_until(lambda: bool(engine.grep("beta-2 record")), "vim's save indexed")
    assert engine.wait_idle(TIMEOUT)
    assert_catalog_matches(engine, lib)
    assert not engine.grep("alpha record") and not engine.grep("beta record")


def test_rename_and_moves_inside_cost_no_embedding(engine: Engine, lib: Path) -> None:
    (lib / "sub").mkdir()
    (lib / "a.txt").write_text(text_for("a"))
    (lib / "sub" / "b.md").write_text(text_for("b"))
    rec = start(engine, lib)
    assert len(catalog_paths(engine)) == 2
    ids = {d.file_name: d.doc_id for d in engine.documents()}
    before = engine.embedder.texts_embedded

    os.rename(lib / "a.txt", lib / "renamed.txt")
    rec.wait_until(lambda: str(lib / "renamed.txt") in catalog_paths(engine), "rename")
    os.rename(lib / "renamed.txt", lib / "sub" / "renamed.txt")
    rec.wait_until(lambda: str(lib / "sub" / "renamed.txt") in catalog_paths(engine), "move")
    os.rename(lib / "sub", lib / "moved-sub")
    rec.wait_until(
        lambda: (
            catalog_paths(engine)
            == {str(lib / "moved-sub" / "renamed.txt"), str(lib / "moved-sub" / "b.md")}
        ),
        "folder move",
    )
    assert engine.wait_idle(TIMEOUT)
    assert engine.embedder.texts_embedded == before
    assert {d.file_name: d.doc_id for d in engine.documents()} == {
        "renamed.txt": ids["a.txt"],
        "b.md": ids["b.md"],
    }
    matches = engine.grep("record says")  # chunk payloads follow the move too
    assert len(matches) == 2
    assert all(m.path.startswith(str(lib / "moved-sub")) for m in matches)
    assert_catalog_matches(engine, lib)


def test_a_folder_moved_before_all_its_files_were_indexed(engine: Engine, lib: Path) -> None:
    """The move drops the pending indexing of its old path: the files not indexed yet
    are indexed under the new one (they waited for the next sweep), the others follow."""
    src, dst = lib / "src", lib / "dst"
    src.mkdir()
    (src / "a.txt").write_text(text_for("a"))
    engine.index([src / "a.txt"])
    (src / "b.txt").write_text(text_for("b"))
    a_id = engine.resolve("a.txt").doc_id
    embedded = engine.embedder.texts_embedded
    os.rename(src, dst)
    engine.queue.move(str(src), str(dst), source="watch")
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(dst / "a.txt"), str(dst / "b.txt")}
    assert engine.resolve("a.txt").doc_id == a_id
    assert engine.embedder.texts_embedded == embedded + 1  # b's one chunk only


def test_a_file_removed_from_a_watched_folder_stays_out_until_added_again(
    engine: Engine, lib: Path
) -> None:
    """Removed by the user, it came back with the folder's next sweep (and with its next
    edit); now it stays out until the user adds it again. The watcher runs throughout."""
    (lib / "sub").mkdir()
    for tag in ("a", "b", "c"):
        (lib / f"{tag}.txt").write_text(text_for(tag))
    (lib / "sub" / "d.txt").write_text(text_for("d"))
    start(engine, lib)
    engine.submit_removal([str(lib / "a.txt"), str(lib / "sub")])
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "b.txt"), str(lib / "c.txt")}
    (lib / "a.txt").write_text(text_for("a") + " An edit.")  # an event for it
    (lib / "sub" / "e.txt").write_text(text_for("e"))  # a new file in the folder left out
    engine.queue.sweep(str(lib))
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "b.txt"), str(lib / "c.txt")}
    engine.submit_index([str(lib / "a.txt")])  # the user adds it back
    assert engine.wait_idle(TIMEOUT)
    engine.queue.sweep(str(lib))
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / n) for n in ("a.txt", "b.txt", "c.txt")}
    engine.remove(str(lib / "c.txt"))  # `docent remove` leaves it out too
    engine.queue.sweep(str(lib))
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "a.txt"), str(lib / "b.txt")}
    engine.unwatch(lib)  # a folder no longer watched: removing leaves nothing out
    engine.submit_removal([str(lib / "b.txt")])
    assert engine.wait_idle(TIMEOUT)
    engine.index([lib])
    assert str(lib / "b.txt") in catalog_paths(engine)


def test_what_the_user_adds_back_comes_back_and_is_kept_up(engine: Engine, lib: Path) -> None:
    """An add while the watcher's own indexing of the same file waits is not folded into
    it (the file stayed out); a file added back inside a folder left out is updated by
    the sweeps like any other (its edits were left out)."""
    (lib / "sub").mkdir()
    (lib / "a.txt").write_text(text_for("a"))
    (lib / "sub" / "d.txt").write_text(text_for("d"))
    queue: IndexQueue = engine.queue
    engine.watch(lib)
    engine.index([lib])
    engine.submit_removal([str(lib / "a.txt"), str(lib / "sub")])
    assert engine.wait_idle(TIMEOUT) and catalog_paths(engine) == set()
    (lib / "z.txt").write_text(text_for("z"))
    gate, held = hold_first_job(queue)
    queue.index([str(lib / "z.txt")])
    assert held.wait(TIMEOUT)  # running, held: the two below wait behind it
    watched = queue.index([str(lib / "a.txt")], source="watch")  # an edit's event
    added = queue.index([str(lib / "a.txt")])  # the user adds it back meanwhile
    assert added is not None and added is not watched
    gate.set()
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "a.txt"), str(lib / "z.txt")}
    engine.submit_index([str(lib / "sub" / "d.txt")])
    assert engine.wait_idle(TIMEOUT)
    (lib / "sub" / "d.txt").write_text(text_for("d") + " Edited after.")
    queue.sweep(str(lib))
    assert engine.wait_idle(TIMEOUT)
    assert "Edited after" in engine.dump(str(lib / "sub" / "d.txt"))


def test_move_in_and_out(engine: Engine, lib: Path, outside: Path) -> None:
    rec = start(engine, lib)
    src = outside / "in.md"
    src.write_text(text_for("moved-in"))
    (outside / "folder").mkdir()
    (outside / "folder" / "deep.txt").write_text(text_for("deep"))
    before = engine.embedder.texts_embedded

    os.rename(src, lib / "in.md")  # inotify: only `created` -> the 3 s fallback
    os.rename(outside / "folder", lib / "folder")
    rec.wait_until(
        lambda: (
            rec.count("indexed", lib / "in.md") == 1
            and rec.count("indexed", lib / "folder" / "deep.txt") == 1
        ),
        "moved-in files indexed",
    )
    assert engine.wait_idle(TIMEOUT)
    assert engine.embedder.texts_embedded - before == 2
    assert_catalog_matches(engine, lib)

    os.rename(lib / "in.md", outside / "in.md")
    os.rename(lib / "folder", outside / "folder")
    rec.wait_until(lambda: not catalog_paths(engine), "moved-out files removed")
    assert engine.wait_idle(TIMEOUT)
    assert rec.count("indexed", lib / "in.md") == 1
    assert engine.embedder.texts_embedded - before == 2


def test_slow_copy_and_download_are_indexed_once_at_final_size(engine: Engine, lib: Path) -> None:
    rec = start(engine, lib)
    before = engine.embedder.texts_embedded
    copy_text = text_for("slow-copy") + "FINAL-COPY-MARK\n"
    write_slowly(lib / "copy.txt", copy_text)
    part = lib / "report.md.part"
    write_slowly(part, text_for("download") + "FINAL-DOWNLOAD-MARK\n")
    os.rename(part, lib / "report.md")
    rec.wait_until(
        lambda: (
            rec.count("indexed", lib / "copy.txt") == 1
            and rec.count("indexed", lib / "report.md") == 1
        ),
        "slow copy and download indexed",
    )
    assert engine.wait_idle(TIMEOUT)
    assert rec.count("indexed", lib / "copy.txt") == 1
    assert rec.count("indexed", lib / "report.md") == 1
    assert engine.embedder.texts_embedded - before == 2
    assert engine.grep("FINAL-COPY-MARK") and engine.grep("FINAL-DOWNLOAD-MARK")
    assert_catalog_matches(engine, lib)  # no .part document, every sha at final content


def test_temp_hidden_and_unsupported_files_are_ignored(engine: Engine, lib: Path) -> None:
    rec = start(engine, lib)
    (lib / ".hidden").mkdir()
    for name in ("~$draft.txt", ".#notes.txt", "x.txt.swp", "film.crdownload", "pic.png"):
        (lib / name).write_text("ignored")
    (lib / ".hidden" / "secret.txt").write_text(text_for("secret"))
    (lib / "real.txt").write_text(text_for("real"))  # the one to wait for
    rec.wait_until(lambda: rec.count("indexed", lib / "real.txt") == 1, "real.txt indexed")
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "real.txt")}


# Startup sweep ---------------------------------------------------------------------


def test_startup_sweep_catches_up_with_changes_made_while_closed(lib: Path) -> None:
    for tag in ("keep", "edit", "gone", "old-name"):
        (lib / f"{tag}.txt").write_text(text_for(tag))
    eng = open_engine()
    try:
        start(eng, lib)
        assert eng.embedder.texts_embedded == 4
        ids = {d.file_name: d.doc_id for d in eng.documents()}
    finally:
        eng.close()

    (lib / "edit.txt").write_text(text_for("edited"))
    (lib / "gone.txt").unlink()
    os.rename(lib / "old-name.txt", lib / "new-name.txt")
    (lib / "added.md").write_text(text_for("added"))

    eng = open_engine()  # the watched folder comes from the saved settings
    try:
        assert eng.settings.watched_folders == [str(lib)]
        rec = Recorder(eng)
        eng.start_watching()
        assert eng.wait_idle(TIMEOUT)
        assert rec.count("indexed", lib / "edit.txt") == 1
        assert rec.count("indexed", lib / "added.md") == 1
        assert rec.count("unchanged", lib / "keep.txt") == 1
        assert rec.renames() == [(str(lib / "old-name.txt"), str(lib / "new-name.txt"))]
        assert rec.count("removed", lib / "gone.txt") == 1
        assert eng.embedder.texts_embedded == 2  # edit.txt and added.md, nothing else
        docs = {d.file_name: d.doc_id for d in eng.documents()}
        assert docs["new-name.txt"] == ids["old-name.txt"]
        assert docs["keep.txt"] == ids["keep.txt"] and docs["edit.txt"] == ids["edit.txt"]
        assert_catalog_matches(eng, lib)
    finally:
        eng.close()


# Folder states ---------------------------------------------------------------------


def state_of(eng: Engine, folder: Path) -> str:
    return next(w.state.value for w in eng.status().watched if w.path == str(folder))


def test_folder_removed_then_recreated_pauses_then_resumes(
    engine: Engine, lib: Path, outside: Path
) -> None:
    (lib / "a.txt").write_text(text_for("a"))
    rec = start(engine, lib)
    assert state_of(engine, lib) == "watching"

    # Unplugged drive: the folder vanishes without per-file deletions. Documents stay.
    os.rename(lib, outside / "unplugged")
    rec.wait_until(lambda: state_of(engine, lib) == "paused", "paused")
    watched = engine.status().watched[0]
    assert "missing" in watched.message and "paused" in watched.message.lower()
    assert catalog_paths(engine) == {str(lib / "a.txt")}
    before = engine.embedder.texts_embedded
    os.rename(outside / "unplugged", lib)
    rec.wait_until(lambda: state_of(engine, lib) == "watching", "resumed")
    assert engine.wait_idle(TIMEOUT)
    assert engine.embedder.texts_embedded == before  # back unchanged: nothing re-embedded
    assert_catalog_matches(engine, lib)

    # Deleted and recreated with other content: the sweep on return brings it in line.
    shutil.rmtree(lib)
    rec.wait_until(lambda: state_of(engine, lib) == "paused", "paused after rmtree")
    lib.mkdir()
    (lib / "b.txt").write_text(text_for("b"))
    rec.wait_until(lambda: state_of(engine, lib) == "watching", "resumed after mkdir")
    rec.wait_until(lambda: catalog_paths(engine) == {str(lib / "b.txt")}, "b indexed")
    (lib / "c.txt").write_text(text_for("c"))  # and it is watched live again
    rec.wait_until(lambda: rec.count("indexed", lib / "c.txt") == 1, "c indexed")
    assert engine.wait_idle(TIMEOUT)
    assert_catalog_matches(engine, lib)


def test_inotify_limit_falls_back_to_sweeps(
    engine: Engine, lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_watches(self: object) -> None:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(watching.Observer, "start", no_watches)
    (lib / "a.txt").write_text(text_for("a"))
    start(engine, lib)
    watched = engine.status().watched[0]
    assert watched.state == "sweep-only" and "limit" in watched.message
    assert catalog_paths(engine) == {str(lib / "a.txt")}  # the startup sweep still ran
    (lib / "b.txt").write_text(text_for("b"))
    assert engine.watcher is not None
    engine.watcher.sweep_now()
    assert engine.wait_idle(TIMEOUT)
    assert_catalog_matches(engine, lib)


def test_a_file_replaced_by_a_folder_of_its_name_leaves_the_library(
    engine: Engine, lib: Path
) -> None:
    """A path counted as gone only when nothing was there: a folder put in a file's place
    kept the file's passages searchable through every run and sweep (review)."""
    notes = lib / "notes.txt"
    notes.write_text(text_for("zebraword"))
    engine.index([lib])
    assert engine.grep("zebraword record")
    notes.unlink()
    notes.mkdir()
    (notes / "inner.md").write_text(text_for("inner"))
    engine.index([lib])
    assert not engine.grep("zebraword record")
    assert catalog_paths(engine) == {str(notes / "inner.md")}
    rec = start(engine, lib)  # and the watcher, on a file's timer
    (notes / "inner.md").unlink()
    (notes / "inner.md").mkdir()
    rec.wait_until(lambda: catalog_paths(engine) == set(), "inner.md, now a folder, removed")


def test_renamed_then_deleted_while_the_queue_is_busy_leaves_no_ghost(
    engine: Engine, lib: Path
) -> None:
    """The watcher's "moved a -> b" then "deleted b", both waiting behind a long job: the
    move found b gone, the removal of b found no document, and a stayed (review)."""
    a, b = lib / "a.txt", lib / "b.txt"
    a.write_text(text_for("okapi"))
    engine.index([lib])
    with queue_held(engine) as q:
        a.rename(b)
        q.move(str(a), str(b), source="watch")
        b.unlink()
        q.remove(str(b), source="watch")
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set() and not engine.grep("okapi record")


def test_an_edit_the_watcher_queued_survives_the_users_cancel(engine: Engine, lib: Path) -> None:
    """The watcher's job for an edit was folded into the same job the user had queued,
    and the user's Cancel dropped both: the edit was never indexed (review)."""
    x = lib / "x.txt"
    x.write_text(text_for("first"))
    engine.index([x])
    with queue_held(engine) as q:
        q.index([str(x)], source="user")
        x.write_text(text_for("secondversion"))
        q.index([str(x)], source="watch")
        q.cancel()
    assert engine.wait_idle(TIMEOUT)
    assert engine.grep("secondversion record")


def test_symlink_loop_and_vanished_files(engine: Engine, lib: Path) -> None:
    (lib / "sub").mkdir()
    (lib / "sub" / "a.txt").write_text(text_for("a"))
    (lib / "sub" / "loop").symlink_to(lib, target_is_directory=True)
    rec = start(engine, lib)
    assert catalog_paths(engine) == {str(lib / "sub" / "a.txt")}
    # A file gone before its job runs is neither indexed nor a failed document.
    engine.queue.index([str(lib / "vanished.txt")])
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == {str(lib / "sub" / "a.txt")}
    assert not rec.results[-1].report.failed


def test_file_deleted_while_it_is_being_indexed(engine: Engine, lib: Path) -> None:
    rec = start(engine, lib)
    doomed = lib / "doomed.txt"
    gate, extracting = threading.Event(), threading.Event()

    def hold(event: IndexEvent) -> None:  # the job is running: stop it at "extracting"
        if not isinstance(event, DocumentProgressed):
            return
        p = event.progress
        if p.path == str(doomed) and p.phase == "extracting":
            extracting.set()
            gate.wait(TIMEOUT)

    engine.subscribe(hold)
    doomed.write_text(text_for("doomed"))
    assert extracting.wait(TIMEOUT)
    doomed.unlink()  # `deleted` -> a removal queued behind the running job (and its cancel)
    rec.wait_until(lambda: any(j.kind is JobKind.REMOVE for j in engine.queue.pending()), "rm")
    gate.set()
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set()  # no "failed: missing" document left behind


# Watch / unwatch -----------------------------------------------------------------


def test_a_run_of_deletions_while_the_queue_is_busy_is_one_job(engine: Engine, lib: Path) -> None:
    """Each deletion was a job of its own, and each new one scanned all those queued: a
    folder's 8,000 files moved to the Trash held the queue's lock for 17 s (review)."""
    for i in range(30):
        (lib / f"n{i}.txt").write_text(text_for(f"n{i}"))
    engine.index([lib])
    with queue_held(engine) as q:
        jobs = {id(q.remove(str(lib / f"n{i}.txt"), source="watch")) for i in range(30)}
        q.remove(str(lib / "n3.txt"), source="watch")  # the same file twice: harmless
        assert len(jobs) == 1 and len(q.pending()) == 1
        for i in range(30):
            (lib / f"n{i}.txt").unlink()
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set()


def test_removing_many_selected_documents_is_one_job(engine: Engine, lib: Path) -> None:
    """A job each made removing 5,000 selected documents block the window's thread for
    seconds, each submit scanning every job queued (review)."""
    for i in range(40):
        (lib / f"d{i}.txt").write_text(text_for(f"d{i}"))
    engine.index([lib])
    paths = sorted(catalog_paths(engine))
    with queue_held(engine) as q:
        jobs = engine.submit_removal(paths)
        assert len(jobs) == 1 and len(q.pending()) == 1 and jobs[0].paths == paths
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set() and sorted(p.name for p in lib.iterdir())[:1] == [
        "d0.txt"
    ]


def test_folders_watched_by_the_environment_are_not_saved_with_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DOCENT_WATCHED_FOLDERS is in force while set, and never saved: a watch or unwatch
    under it saved its folders too, still watched once it was gone (review)."""
    from docent.core.config import saved_value

    env_a, own_b, own_c = (tmp_path / n for n in ("envA", "ownB", "ownC"))
    for f in (env_a, own_b, own_c):
        f.mkdir()
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", str(env_a))
    with open_engine() as eng:
        assert eng.settings.watched_folders == [str(env_a)]
        eng.watch(own_b)
        assert eng.settings.watched_folders == [str(env_a), str(own_b)]
        assert saved_value("watched_folders") == [str(own_b)]
        eng.apply_settings({"watched_folders": [str(env_a), str(own_b), str(own_c)]})
        assert saved_value("watched_folders") == [str(own_b), str(own_c)]
        eng.unwatch(env_a)
        eng.unwatch(own_b)
        assert saved_value("watched_folders") == [str(own_c)]
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", "")  # set, but empty: no folder, not ""
    assert load_settings().watched_folders == []
    monkeypatch.delenv("DOCENT_WATCHED_FOLDERS")
    assert load_settings().watched_folders == [str(own_c)]


def test_a_folder_holding_the_data_folder_is_indexed_without_it(engine: Engine, lib: Path) -> None:
    """Its text cache, store and settings files were indexed, more of them each run, and
    the run after found "missing passages" (review)."""
    home = engine.settings.data_path
    assert home.parent == lib.parent
    (lib / "a.txt").write_text(text_for("a"))
    (home / "notes.txt").write_text(text_for("in the data folder"))
    link = lib / "to-home"
    link.symlink_to(home.parent, target_is_directory=True)  # the walk follows it inside
    for _ in range(2):
        report = engine.index([lib.parent])
        assert catalog_paths(engine) == {str(lib / "a.txt")}
        assert any(
            f.reason == "docent_data" and "Docent's own data" in f.message for f in report.skipped
        )
    named = engine.index([home / "notes.txt", home / "settings.toml"])
    assert not named.indexed and [f.reason for f in named.skipped] == ["docent_data"] * 2
    assert catalog_paths(engine) == {str(lib / "a.txt")}


# Watch / unwatch -----------------------------------------------------------------


def test_watch_persists_and_unwatch_keeps_or_drops(engine: Engine, lib: Path) -> None:
    (lib / "a.txt").write_text(text_for("a"))
    start(engine, lib)
    assert load_settings().watched_folders == [str(lib)]
    engine.watch(lib / ".." / "lib")  # the same folder again: nothing changes
    assert engine.settings.watched_folders == [str(lib)]
    with pytest.raises(WatchError, match="not a folder"):
        engine.watch(lib / "missing")
    (lib / "inner").mkdir()
    with pytest.raises(WatchError, match="already watched as part of"):
        engine.watch(lib / "inner")
    with pytest.raises(WatchError, match="Docent's own data"):
        engine.watch(engine.settings.data_path.parent)
    alias = lib.parent.parent / f"{lib.parent.name}-alias"  # reached through a link (review)
    alias.symlink_to(engine.settings.data_path.parent, target_is_directory=True)
    with pytest.raises(WatchError, match="Docent's own data"):
        engine.watch(alias)
    # a name that is not UTF-8 cannot be saved: refused before the settings are written
    # (they were, and no longer loaded: Docent would not start; review)
    odd = os.fsdecode(os.fsencode(lib.parent) + b"/dir\xfd")
    os.mkdir(odd)
    with pytest.raises(WatchError, match="not valid UTF-8"):
        engine.watch(odd)
    assert load_settings().watched_folders == [str(lib)]

    assert engine.unwatch(lib) is None
    assert load_settings().watched_folders == [] and engine.status().watched == []
    assert catalog_paths(engine) == {str(lib / "a.txt")}  # kept
    engine.watch(lib)
    assert engine.wait_idle(TIMEOUT)
    job = engine.unwatch(lib, drop_documents=True)
    assert job is not None and job.kind is JobKind.DROP
    assert engine.wait_idle(TIMEOUT)
    assert catalog_paths(engine) == set()
    with pytest.raises(WatchError, match="not a watched folder"):
        engine.unwatch(lib)


def test_plain_engine_spawns_no_observer(engine: Engine, lib: Path) -> None:
    engine.watch(lib)
    assert engine.watcher is None
    assert engine.status().watched == [
        FolderStatus(
            str(lib),
            FolderState.OFF,
            "Watched while the Docent window or `docent watch` runs.",
            collection="default",
        )
    ]
    report = engine.index([lib])  # the synchronous path still works beside the queue
    assert not report.failed


# The queue itself ------------------------------------------------------------------


def test_queue_coalesces_pending_jobs_and_runs_them_in_order(engine: Engine, lib: Path) -> None:
    files = []
    for tag in ("a", "b", "c"):
        files.append(lib / f"{tag}.txt")
        files[-1].write_text(text_for(tag))
    queue: IndexQueue = engine.queue
    gate = threading.Event()
    started = threading.Event()

    def hold(event: IndexEvent) -> None:  # keeps the first job running until released
        if isinstance(event, DocumentProgressed):
            started.set()
            gate.wait(TIMEOUT)

    stop_holding = queue.subscribe(hold)
    rec = Recorder(engine)
    queue.index([str(files[0])])
    assert started.wait(TIMEOUT)
    stop_holding()
    queue.index([str(files[1])])
    queue.index([str(files[1]), str(files[2])])  # b already pending: only c is added
    queue.sweep(str(lib))
    queue.sweep(str(lib))  # a duplicate pending sweep
    # (the watcher's is not folded into the user's: their Cancel would drop it)
    queue.index([str(files[2])], source="watch")
    queue.remove(str(files[2]), source="watch")  # c gone: pending indexing of c dropped
    pending = queue.pending()
    assert [(j.kind, j.paths) for j in pending] == [
        (JobKind.INDEX, [str(files[1])]),
        (JobKind.SWEEP, [str(lib)]),
        (JobKind.INDEX, []),  # emptied: it still ends, as a no-op
        (JobKind.REMOVE, [str(files[2])]),
    ]
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    kinds = [r.job.kind for r in rec.results]
    assert kinds == [JobKind.INDEX, JobKind.INDEX, JobKind.SWEEP, JobKind.INDEX, JobKind.REMOVE]
    # c exists, so the removal is a no-op and the sweep indexed it
    assert catalog_paths(engine) == {str(f) for f in files}
    assert engine.embedder.texts_embedded == 3


def hold_first_job(queue: IndexQueue) -> tuple[threading.Event, threading.Event]:
    """Holds the next job at its first progress until the returned gate is set; the
    other event is set once it is held."""
    gate, started = threading.Event(), threading.Event()

    def hold(event: IndexEvent) -> None:
        if isinstance(event, DocumentProgressed) and not started.is_set():
            started.set()
            gate.wait(TIMEOUT)

    queue.subscribe(hold)
    return gate, started


def held_watch_run(
    engine: Engine, lib: Path, tags: str
) -> tuple[list[Path], IndexQueue, list[IndexEvent], threading.Event]:
    """A file of each tag in ``lib``, every queue event recorded (``list.append``: safe
    from the two threads that tell), and a watched-folder job for the first file held at
    its first event until the returned gate is set."""
    files = [lib / f"{t}.txt" for t in tags]
    for path in files:
        path.write_text(text_for(path.stem))
    queue: IndexQueue = engine.queue
    events: list[IndexEvent] = []
    queue.subscribe(events.append)
    gate, held = hold_first_job(queue)
    assert queue.index([str(files[0])], source="watch") is not None and held.wait(TIMEOUT)
    return files, queue, events, gate


def test_watched_files_queued_behind_a_run_are_listed_while_it_runs(
    engine: Engine, lib: Path
) -> None:
    """A second file dropped into a watched folder was told only when its turn came:
    missing from the library for as long as the first took (QA, session 29); then at the
    running job's next event, which a long extraction put off for a minute (QA, s30)."""
    (first, second, third), queue, events, gate = held_watch_run(engine, lib, "abc")
    waiting = queue.index([str(second)], source="watch")
    assert queue.index([str(second), str(third)], source="watch") is waiting  # one run
    told = [e for e in events if isinstance(e, FilesFound) and e.job is waiting]
    # told at once, while the running job is held at its first event
    assert [e.files for e in told] == [[str(second)], [str(third)]]
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    walked = [e for e in events if isinstance(e, FilesFound) and e.job is waiting][2:]
    assert [e.files for e in walked] == [[str(second), str(third)]]  # its walk, on its turn
    start = next(i for i, e in enumerate(events) if isinstance(e, JobStarted) and e.job is waiting)
    assert events.index(walked[0]) > start
    assert catalog_paths(engine) == {str(first), str(second), str(third)}


def test_a_watched_file_taken_out_of_its_job_is_named_by_no_later_event(
    engine: Engine, lib: Path
) -> None:
    """Review s30: a file told and then deleted before its turn (its removal empties the
    job) must not be told again; it is told removed at once, while the job ahead still
    runs (it stayed listed "queued" until its job's turn: minutes behind a big file)."""
    (_, second), queue, events, gate = held_watch_run(engine, lib, "ab")
    waiting = queue.index([str(second)], source="watch")
    second.unlink()
    queue.remove(str(second), source="watch")
    gone = [e for e in events if isinstance(e, DocumentChanged) and e.progress.path == str(second)]
    assert [(e.job, e.progress.phase, e.record) for e in gone] == [(waiting, "removed", None)]
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    assert waiting is not None and waiting.paths == []
    named = [e for e in events if isinstance(e, FilesFound) and str(second) in e.files]
    assert [e.job for e in named] == [waiting]  # told once, as it was queued
    ended = next(i for i, e in enumerate(events) if isinstance(e, JobFinished) and e.job is waiting)
    assert events.index(named[0]) < ended


def test_a_watched_file_taken_out_and_queued_again_is_listed_last(
    engine: Engine, lib: Path
) -> None:
    """Taken out (``discard``), it is told removed then; queued again, it is told after
    that, so the window's last word on it is "queued" (review, session 31: a "removed"
    could come after the file was told again)."""
    (_, second), queue, events, gate = held_watch_run(engine, lib, "ab")
    waiting = queue.index([str(second)], source="watch")
    queue.discard(str(second))
    assert queue.index([str(second)], source="watch") is waiting

    def about(e: IndexEvent) -> str:
        if isinstance(e, DocumentChanged) and e.progress.path == str(second):
            return e.progress.phase
        return "told" if isinstance(e, FilesFound) and str(second) in e.files else ""

    assert [a for e in events if (a := about(e))] == ["told", "removed", "told"]
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    assert str(second) in catalog_paths(engine)


def test_an_indexed_file_deleted_before_its_turn_is_removed_on_its_removals_turn(
    engine: Engine, lib: Path
) -> None:
    """Its record is still in the catalog until the removal runs: told removed early, its
    row would come back "ready" at the window's next catalog read."""
    kept = lib / "kept.txt"
    kept.write_text(text_for("kept"))
    queue: IndexQueue = engine.queue
    assert queue.run(Job(JobKind.INDEX, [str(kept)])).indexed
    (_, _), queue, events, gate = held_watch_run(engine, lib, "ab")
    kept.write_text(text_for("kept") + " An edit.")
    queue.index([str(kept)], source="watch")
    kept.unlink()
    queue.remove(str(kept), source="watch")
    assert not [
        e for e in events if isinstance(e, DocumentChanged) and e.progress.path == str(kept)
    ]
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    gone = [e for e in events if isinstance(e, DocumentChanged) and e.progress.path == str(kept)]
    assert [(e.progress.phase, e.record) for e in gone] == [("removed", None)]
    assert str(kept) not in catalog_paths(engine)


def test_a_job_that_ended_is_not_cancelled_by_a_stop_while_its_end_is_told(
    engine: Engine, lib: Path
) -> None:
    """`docent index` closes the library as soon as it hears its run end; the stop
    cancelled the job still counted as running, and the command, which shares its cancel,
    said "Cancelled" of a finished run (QA, session 31)."""
    (lib / "a.txt").write_text(text_for("a"))
    queue: IndexQueue = engine.queue
    job = Job(JobKind.INDEX, [str(lib / "a.txt")])

    def close_at_the_end(event: IndexEvent) -> None:
        if isinstance(event, JobFinished) and event.job is job:
            queue.stop()  # (on the queue's thread: it does not wait for itself)

    queue.subscribe(close_at_the_end)
    report = queue.run(job)
    assert report.indexed and not report.cancelled and not job.cancel.is_set()


def test_files_queued_by_a_person_or_a_sweep_are_told_on_their_turn(
    engine: Engine, lib: Path
) -> None:
    """Only the watcher's events name files; a person's paths and a sweep's folder are
    walked on their turn (the walk says what is a file and what is skipped)."""
    (_, second), queue, events, gate = held_watch_run(engine, lib, "ab")
    asked = queue.index([str(second)])
    swept = queue.sweep(str(lib))
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    for job in (asked, swept):
        found = [i for i, e in enumerate(events) if isinstance(e, FilesFound) and e.job is job]
        start = next(i for i, e in enumerate(events) if isinstance(e, JobStarted) and e.job is job)
        assert len(found) == 1 and found[0] > start


def test_queue_keeps_a_job_that_does_more_than_the_one_pending(engine: Engine, lib: Path) -> None:
    """A Re-index, or sub-folders too, after a plain index of the same path is queued
    (it was dropped as a duplicate, silently); "remove, add, remove" ends removed."""
    (lib / "a.txt").write_text(text_for("a"))
    (lib / "sub").mkdir()
    queue: IndexQueue = engine.queue
    gate, held = hold_first_job(queue)
    a, folder = str(lib / "a.txt"), str(lib / "sub")
    queue.index([a])
    assert held.wait(TIMEOUT)  # running, held: what follows is queued behind it
    watched = queue.index([a], source="watch")
    assert queue.index([a], force=True) not in (None, watched)  # the user's Re-index
    assert queue.index([a]) is None  # a plain index: the pending Re-index does it
    queue.index([folder], recursive=False)
    queue.index([folder], recursive=True)
    gone = str(lib / "gone")
    queue.drop(gone)
    queue.index([gone])
    queue.drop(gone)
    pending = [(j.kind, j.paths, j.recursive, j.force) for j in queue.pending()]
    assert pending == [
        (JobKind.INDEX, [a], True, False),
        (JobKind.INDEX, [a], True, True),
        (JobKind.INDEX, [folder], False, False),
        (JobKind.INDEX, [folder], True, False),
        (JobKind.DROP, [gone], True, False),
        (JobKind.INDEX, [], True, False),  # emptied: the later removal made it moot
    ]
    gate.set()
    assert queue.wait_idle(TIMEOUT)


def test_forgetting_a_folder_stops_its_running_sweep(engine: Engine, lib: Path) -> None:
    files = 8
    for n in range(files):
        (lib / f"n{n}.txt").write_text(text_for(f"n{n}"))
    queue: IndexQueue = engine.queue
    rec = Recorder(engine)
    gate, held = hold_first_job(queue)
    queue.sweep(str(lib))
    assert held.wait(TIMEOUT)
    queue.drop(str(lib))  # unwatch, dropping its documents, while the sweep reads
    gate.set()
    assert queue.wait_idle(TIMEOUT)
    sweep, drop = rec.results
    assert sweep.job.kind is JobKind.SWEEP and isinstance(sweep, JobFinished)
    assert sweep.report.cancelled  # it stopped: before, it embedded all 8, then all went
    assert engine.embedder.texts_embedded < files
    assert drop.job.kind is JobKind.DROP and engine.documents() == []


# `docent watch` / `docent unwatch` --------------------------------------------------


def test_cli_watch_logs_until_ctrl_c_then_unwatch_drops(lib: Path) -> None:
    import json
    import queue
    import signal
    import subprocess
    import sys

    env = {**os.environ, "DOCENT_EXTRACT_IN_SUBPROCESS": "false"}
    cmd = [sys.executable, "-m", "docent.cli", "watch", str(lib), "--json"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    lines: queue.Queue[dict[str, str]] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout

    def read() -> None:
        for line in stdout:
            lines.put(json.loads(line))

    threading.Thread(target=read, daemon=True).start()

    def next_event(event: str) -> dict[str, str]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            entry = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if entry["event"] == event:
                return entry

    try:
        assert next_event("watching")["path"] == str(lib)
        (lib / "a.txt").write_text(text_for("cli"))
        entry = next_event("indexed")
        assert entry["path"] == str(lib / "a.txt") and "time" in entry
        proc.send_signal(signal.SIGINT)
        assert proc.wait(TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    out = subprocess.run(
        [sys.executable, "-m", "docent.cli", "unwatch", str(lib), "--drop", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    assert json.loads(out.stdout) == {"unwatched": str(lib), "removed": 1}
    assert load_settings().watched_folders == []
