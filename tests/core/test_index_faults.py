"""A run stopped midway: one file's own fault fails that file and the run goes on; a
fault of the store stops the run, and nothing is left half-written or unlisted; a
cancelled Re-index leaves what it did not reach as it was.

A hashing embedder stands in for the model (``tests/fake_embedder.py``); the faults are
raised from the real indexer's calls into the embedder and the store."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.embedding import ChunkVectors
from docent.core.engine import Engine
from docent.core.errors import StoreUnavailable
from docent.core.index_events import (
    DocumentChanged,
    DocumentProgressed,
    IndexEvent,
    Job,
    JobFailed,
    JobFinished,
    JobKind,
)
from docent.core.model_files import EmbeddingError
from docent.core.models import DocState
from docent.core.store import ChunkPoint
from fake_embedder import CountingEmbedder, FakeEmbedder

#: Long enough for several embedding batches (EMBED_BATCH chunks each).
LONG = 600
NAMES = ["a.txt", "b.txt", "c.txt", "d.txt"]
TIMEOUT = 30.0


def write_library(folder: Path) -> list[Path]:
    folder.mkdir()
    files = []
    for name in NAMES:
        stem = name.split(".")[0]
        paragraphs = LONG if stem == "b" else 3
        text = "\n\n".join(
            f"Ledger {stem}{i}: the harbour master counted {i} crates of lamp oil "
            f"in storehouse {stem}, sealed and weighed before the winter convoy left."
            for i in range(paragraphs)
        )
        (folder / name).write_text(text)
        files.append(folder / name)
    return files


class FailsOnB(FakeEmbedder):
    """Raises on b.txt's second batch of chunks, after its first batch was written."""

    def __init__(self) -> None:
        super().__init__()
        self.batches_of_b = 0
        self.broken = True

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        if self.broken and any("storehouse b" in t for t in texts):
            self.batches_of_b += 1
            if self.batches_of_b == 2:
                raise RuntimeError("onnxruntime: failed to allocate memory")
        return super().embed_chunks(texts, bodies)


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    return write_library(tmp_path / "library")


@pytest.fixture
def flaky() -> Iterator[tuple[Engine, FailsOnB]]:
    embedder = FailsOnB()
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=embedder).open()
    yield eng, embedder
    eng.close()


def sweep(eng: Engine, folder: Path) -> None:
    """A watched folder's sweep, run to its end."""
    eng.queue.sweep(str(folder))
    assert eng.wait_idle(TIMEOUT)


def states(eng: Engine) -> dict[str, DocState]:
    return {Path(d.path).name: d.state for d in eng.documents()}


def test_a_fault_on_one_file_fails_it_and_the_run_goes_on(
    flaky: tuple[Engine, FailsOnB], files: list[Path]
) -> None:
    eng, embedder = flaky
    report = eng.index(files)
    assert sorted(Path(p).name for p in report.indexed) == ["a.txt", "c.txt", "d.txt"]
    [failed] = report.failed
    assert Path(failed.path).name == "b.txt" and failed.reason == "fault"
    assert "failed to allocate memory" in failed.message
    assert states(eng) == {
        "a.txt": DocState.READY,
        "b.txt": DocState.FAILED,
        "c.txt": DocState.READY,
        "d.txt": DocState.READY,
    }
    b = eng.resolve("b.txt")
    assert eng.store is not None
    assert eng.store.count_chunks(b.doc_id) == 0  # its first batch was written, then dropped
    assert b.chunks == 0 and "tries this one again when it next starts" in b.error
    # A fault is not the file's: a run asked for tries it again, though it is unchanged.
    embedder.broken = False
    again = eng.index(files)
    assert [Path(p).name for p in again.indexed] == ["b.txt"]
    assert eng.store.count_chunks(b.doc_id) == eng.resolve("b.txt").chunks > 2 * 32


def test_a_watched_folders_sweeps_leave_a_file_that_faulted_until_it_changes(
    flaky: tuple[Engine, FailsOnB], files: list[Path]
) -> None:
    # each retry reads the whole file again (minutes for a big one, or a reader crash):
    # the sweeps every 10 minutes (every minute for a folder the OS cannot watch) do not
    eng, embedder = flaky
    folder = files[0].parent
    sweep(eng, folder)
    assert states(eng)["b.txt"] is DocState.FAILED
    tried = embedder.batches_of_b
    sweep(eng, folder)
    assert embedder.batches_of_b == tried, "the sweep read the unchanged file again"
    assert states(eng)["b.txt"] is DocState.FAILED
    # changed, it is read again by the next sweep (and fails again: still broken)
    files[1].write_text(files[1].read_text() + "\n\nOne more ledger line.")
    sweep(eng, folder)
    assert embedder.batches_of_b > tried
    # a run the user asks for tries it again, changed or not
    embedder.broken = False
    eng.submit_index([str(files[1])])
    assert eng.wait_idle(TIMEOUT)
    assert states(eng)["b.txt"] is DocState.READY


def test_a_store_fault_queues_what_the_run_did_not_finish(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    try:
        assert eng.store is not None
        store = eng.store
        real_upsert = store.upsert_chunks
        written: list[int] = []

        def upsert(points: Sequence[ChunkPoint]) -> None:
            # b.txt's first batch lands, its second finds the server gone.
            if any("storehouse b" in str(p.payload.get("text", "")) for p in points):
                written.append(len(points))
                if len(written) == 2:
                    raise StoreUnavailable("The Qdrant server did not answer.")
            real_upsert(points)

        monkeypatch.setattr(store, "upsert_chunks", upsert)
        with pytest.raises(StoreUnavailable):
            eng.index(files)
        # Nothing stays "indexing" (never searched, never finished), nothing is unlisted.
        assert states(eng) == {
            "a.txt": DocState.READY,
            "b.txt": DocState.QUEUED,
            "c.txt": DocState.QUEUED,
            "d.txt": DocState.QUEUED,
        }
        b = eng.resolve("b.txt")
        assert store.count_chunks(b.doc_id) == 0  # what it wrote was dropped
        assert "did not answer" in b.error
        monkeypatch.setattr(store, "upsert_chunks", real_upsert)
        report = eng.index(files)
        assert sorted(Path(p).name for p in report.indexed) == ["b.txt", "c.txt", "d.txt"]
        assert set(states(eng).values()) == {DocState.READY}
    finally:
        eng.close()


def test_a_model_that_does_not_load_stops_the_run_and_fails_no_file(
    files: list[Path], caplog: pytest.LogCaptureFixture
) -> None:
    """Not one file's fault: every file would be marked failed for it. Said in its
    sentence, logged as a warning: `docent index` printed a 40-line "ERROR ... could not
    index ... Traceback" before it (any DocentError of a job did: a full disk, a server
    gone); a traceback is for Docent's own bugs."""

    class NoModel(FakeEmbedder):
        def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
            raise EmbeddingError("Could not load the embedding model: its folder is gone.")

    eng = Engine(load_settings(extract_in_subprocess=False), embedder=NoModel()).open()
    try:
        with pytest.raises(EmbeddingError):
            eng.index(files)
        (logged,) = [r for r in caplog.records if r.name == "docent.core.jobs"]
        assert logged.levelname == "WARNING" and logged.exc_info is None
        assert "folder is gone" in logged.getMessage()
        assert set(states(eng).values()) == {DocState.QUEUED}
        assert all("folder is gone" in d.error for d in eng.documents())
    finally:
        eng.close()


def test_a_cancelled_re_index_keeps_every_document_searchable(files: list[Path]) -> None:
    """Re-index rebuilds each document in place: cancelled after the first, the others
    stay as they were (they were all removed first, and lost to a cancel), their text
    too."""
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    try:
        folder = str(files[0].parent)
        eng.index(files)
        before = {d.file_name: d for d in eng.documents()}
        job = Job(JobKind.INDEX, [folder], "user", recursive=True, force=True)
        finished = threading.Event()

        def on_event(event: IndexEvent) -> None:
            if isinstance(event, DocumentChanged) and event.job is job:
                if event.progress.phase == "ready":
                    job.cancel.set()  # the user's Cancel, once the first is rebuilt
            elif isinstance(event, JobFinished) and event.job is job:
                finished.set()

        eng.subscribe(on_event)
        eng.queue.submit(job)
        assert finished.wait(TIMEOUT) and eng.queue.wait_idle(TIMEOUT)
        after = {d.file_name: d for d in eng.documents()}
        assert {name: d.state for name, d in after.items()} == dict.fromkeys(NAMES, DocState.READY)
        rebuilt = [n for n in NAMES if after[n].indexed_at != before[n].indexed_at]
        assert rebuilt == ["a.txt"]  # the one it finished; the others untouched
        for name in NAMES:  # searchable, each of them, and its text there to show
            hits = eng.search("harbour master crates lamp oil", files=[name]).hits
            assert hits and {h.file_name for h in hits} == {name}
            assert f"storehouse {name[0]}" in eng.dump(name)
    finally:
        eng.close()


def test_a_re_index_cancelled_inside_a_document_leaves_it_ready(files: list[Path]) -> None:
    """Cancelled between two batches of one document's chunks, a Re-index dropped all of
    its passages (review). Its content and chunking as indexed, it is rewritten in place:
    it stays ready, every passage there."""
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index(files)
        b = eng.resolve("b.txt")
        assert b.chunks > 2 * 32  # several batches
        _cancel_inside_b(eng, force=True)
        after = eng.resolve("b.txt")
        assert after.state is DocState.READY and after.chunks == b.chunks
        assert eng.store is not None and eng.store.count_chunks(b.doc_id) == b.chunks
        assert eng.grep("Ledger b599:")


def _cancel_inside_b(
    eng: Engine, force: bool = False, search_while_staged: list[tuple[int, int]] | None = None
) -> None:
    """Index b.txt again (``force``: a Re-index), cancelled between two batches of its
    chunks; ``search_while_staged``: meanwhile, how many passages grep finds for the old
    text and for the new."""
    b = eng.resolve("b.txt")
    job = Job(JobKind.INDEX, [b.path], "user", recursive=True, force=force)
    finished = threading.Event()

    def on_event(event: IndexEvent) -> None:
        if isinstance(event, DocumentProgressed) and event.job is job:
            p = event.progress
            if p.phase == "embedding" and 0 < p.chunks_done < p.chunks_total:
                if search_while_staged is not None:
                    found = (len(eng.grep("Ledger b5")), len(eng.grep("Tally b5")))
                    search_while_staged.append(found)
                eng.cancel_indexing()
        elif isinstance(event, JobFinished) and event.job is job:
            finished.set()

    eng.subscribe(on_event)
    eng.queue.submit(job)
    assert finished.wait(TIMEOUT) and eng.queue.wait_idle(TIMEOUT)


def test_a_changed_document_cancelled_midway_keeps_its_old_version_searchable(
    files: list[Path],
) -> None:
    """QA, session 27: cancelling the update of an edited file dropped every passage of
    it ("0 chunks, queued: Indexing was cancelled"), old and new: searchable neither way
    until indexed again. Its new version is now staged beside the old one, which stays
    ready and searchable; the staged passages are never searched, and a cancel drops
    them. The next run, seeing the file changed, indexes the new version whole."""
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index(files)
        b = eng.resolve("b.txt")
        assert eng.store is not None and b.chunks > 2 * 32  # several batches
        path = Path(b.path)
        path.write_text(path.read_text().replace("Ledger b", "Tally b"))  # as many words
        seen: list[tuple[int, int]] = []
        _cancel_inside_b(eng, search_while_staged=seen)
        (old_hits, new_hits), *_ = seen
        assert old_hits > 0 and new_hits == 0, seen  # staged: the old text, not the new
        after = eng.resolve("b.txt")
        assert after.state is DocState.READY and after.chunks == b.chunks
        assert after.sha256 == b.sha256  # the record as it was: the change is still due
        assert eng.store.count_chunks(b.doc_id) == b.chunks
        assert eng.store.count_chunks(b.doc_id + ".staged") == 0
        assert eng.grep("Ledger b599:") and not eng.grep("Tally b599:")
        assert eng.search("harbour master crates", files=["b.txt"]).hits
    # the update is still due: the next start finds the file changed since it was
    # indexed, and its resume indexes the new version, whole (it was listed "ready" and
    # left until something indexed the file again: session 27's left item)
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert [r.file_name for r in eng.changed] == ["b.txt"] and not eng.outdated
        report = eng.resume()
        assert report.indexed == [str(path)] and not eng.changed
        assert eng.store is not None
        done = eng.resolve("b.txt")
        assert done.state is DocState.READY and done.sha256 != b.sha256
        assert eng.grep("Tally b599:") and not eng.grep("Ledger b599:")
        assert eng.store.count_chunks(b.doc_id) == done.chunks
        assert eng.store.count_chunks(b.doc_id + ".staged") == 0


def test_a_changed_document_is_embedded_once_and_searched_whole(files: list[Path]) -> None:
    """The copy of the staged version under the document's own id embeds nothing: only
    the changed chunks are embedded, once; and no search, unscoped or in a collection,
    ever finds a staged passage, nor does one stay behind (review, session 27)."""
    embedder = CountingEmbedder()
    with Engine(load_settings(extract_in_subprocess=False), embedder=embedder) as eng:
        eng.index(files)
        b = eng.resolve("b.txt")
        path = Path(b.path)
        text = path.read_text()
        path.write_text(text.replace("Ledger b7:", "Tally b7:"))  # one chunk's words
        embedder.embedded = 0
        seen: list[list[str]] = []
        job = Job(JobKind.INDEX, [b.path], "user", recursive=True)
        finished = threading.Event()

        def on_event(event: IndexEvent) -> None:
            if isinstance(event, DocumentProgressed) and event.job is job:
                if event.progress.phase == "embedding" and event.progress.chunks_done:
                    hits = eng.search("harbour master crates lamp oil storehouse b").hits
                    scoped = eng.search("Ledger b5", collection=b.collections[0]).hits
                    seen.append([h.doc_id for h in hits + scoped])
            elif isinstance(event, JobFinished) and event.job is job:
                finished.set()

        eng.subscribe(on_event)
        eng.queue.submit(job)
        assert finished.wait(TIMEOUT) and eng.queue.wait_idle(TIMEOUT)
        assert seen and not any(d.endswith(".staged") for ids in seen for d in ids), seen
        assert 0 < embedder.embedded < 5  # the changed chunk (and its neighbour), once
        done = eng.resolve("b.txt")
        assert done.chunks == b.chunks and eng.grep("Tally b7:")
        assert eng.store is not None and eng.store.count_chunks(b.doc_id + ".staged") == 0


def test_staged_passages_a_store_failed_to_delete_are_never_searched(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staged id left the excluded set before its passages were deleted: when the
    delete failed, they were searched for the rest of the session (review, session 27)."""
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index(files)
        b = eng.resolve("b.txt")
        path = Path(b.path)
        path.write_text(path.read_text().replace("Ledger b", "Tally b"))
        assert eng.store is not None
        store = eng.store
        real_delete = type(store).delete_chunks

        def delete(self: object, doc_id: str, *args: object, **kwargs: object) -> None:
            if doc_id.endswith(".staged"):
                raise StoreUnavailable("the store went away")
            real_delete(self, doc_id, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(type(store), "delete_chunks", delete)
        eng.index([path])
        assert store.count_chunks(b.doc_id + ".staged") > 0  # left behind
        hits = eng.search("harbour master crates lamp oil storehouse b").hits
        assert hits and not any(h.doc_id.endswith(".staged") for h in hits)
        assert len(eng.grep("Tally b599:")) == 1  # the document's own, not a staged one too


_DIES_WHILE_STAGED = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.indexer import Indexer
from fake_embedder import FakeEmbedder

def die(self, rec, *args, **kwargs):  # the new version staged whole: killed before the copy
    print(self.store.count_chunks(rec.doc_id + ".staged"), flush=True)
    os._exit(9)

Indexer._index_in_place = die
eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
eng.index([Path(sys.argv[2])])
"""


def test_a_staged_version_left_by_a_crash_is_dropped_at_the_next_open(files: list[Path]) -> None:
    """A process killed while a changed document's new version is staged leaves passages
    of no document in the store; the next open deletes them, and the old version is
    whole and ready (the next run indexes the change)."""
    import subprocess
    import sys

    settings = load_settings(extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()) as eng:
        eng.index(files)
        b = eng.resolve("b.txt")
    path = Path(b.path)
    path.write_text(path.read_text().replace("Ledger b", "Tally b"))
    tests = str(Path(__file__).resolve().parents[1])
    died = subprocess.run(
        [sys.executable, "-c", _DIES_WHILE_STAGED, tests, str(path)],
        timeout=120,
        check=False,
        capture_output=True,
        text=True,
    )
    assert died.returncode == 9, died.stderr
    assert int(died.stdout.split()[-1]) > 2 * 32  # staged, every passage of the new version
    with Engine(settings, embedder=FakeEmbedder()) as eng:
        assert eng.store is not None
        assert eng.store.count_chunks(b.doc_id + ".staged") == 0
        again = eng.resolve("b.txt")
        assert again.state is DocState.READY and again.chunks == b.chunks
        assert eng.grep("Ledger b599:") and not eng.grep("Tally b599:")
        # said as what it was, not as passages of a document whose file is gone (review)
        assert any("unfinished new version was dropped" in n for n in eng.notes), eng.notes
        # marked: resume indexes the change, as it did when a crash left it "indexing"
        assert [r.file_name for r in eng.outdated] == ["b.txt"]
        eng.resume()
        assert eng.grep("Tally b599:") and not eng.grep("Ledger b599:")
        assert eng.resolve("b.txt").reason == "" and eng.outdated == []


def test_re_index_reads_the_file_again_and_reuses_unchanged_vectors(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read from the file, not the text cache; the cached text is not dropped first (the
    files read ahead of a cancelled Re-index lost theirs, and the window its pages)."""
    from docent.core import preparing
    from docent.core.textcache import TextCache

    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    try:
        eng.index(files)
        reads: list[str] = []
        real_extract = preparing.extract

        def extract(path: str, *args: object, **kwargs: object) -> object:
            reads.append(Path(path).name)
            return real_extract(path, *args, **kwargs)  # type: ignore[arg-type]

        def discard(self: TextCache, sha256: str) -> None:
            raise AssertionError("the cached text was dropped before the new one was read")

        monkeypatch.setattr(preparing, "extract", extract)
        monkeypatch.setattr(TextCache, "discard", discard)
        a = eng.resolve("a.txt")
        embedded = eng.embedder.texts_embedded
        reports: list[JobFinished] = []
        finished = threading.Event()

        def on_event(event: IndexEvent) -> None:
            if isinstance(event, JobFinished):
                reports.append(event)
                finished.set()

        eng.subscribe(on_event)
        eng.submit_index([str(files[0])], force=True)
        assert finished.wait(TIMEOUT) and eng.queue.wait_idle(TIMEOUT)
        report = reports[0].report
        assert report.indexed == [str(files[0])]  # rebuilt though unchanged ...
        assert report.chunks_embedded == 0 and report.chunks_reused == a.chunks  # ... cheaply
        assert eng.embedder.texts_embedded == embedded
        rebuilt = eng.resolve("a.txt")
        assert rebuilt.doc_id == a.doc_id and rebuilt.indexed_at > a.indexed_at
        assert reads == ["a.txt"]  # read again, though its text was cached
    finally:
        eng.close()


def test_close_lets_a_run_that_missed_its_cancel_end_before_the_store_goes(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step that checks no cancel (a long folder walk) outlived the queue's wait: the
    store and catalog were closed under the run, which then wrote into them."""
    from docent.core import job_runners
    from docent.core.indexer import Indexer
    from docent.core.jobs import IndexQueue

    walking, released = threading.Event(), threading.Event()
    real_collect, real_close, real_stop = (
        job_runners.filemod.collect,
        Indexer.close,
        IndexQueue.stop,
    )

    def stuck_walk(paths: list[Path], recursive: bool = True, avoid: object = None) -> object:
        walking.set()
        released.wait(TIMEOUT)  # checks no cancel until its files are no longer read
        return real_collect(paths, recursive, avoid)

    def close(self: Indexer) -> None:
        released.set()
        real_close(self)

    stops: list[float] = []

    def stop(self: IndexQueue, timeout: float = 30.0) -> bool:
        stops.append(timeout)
        return real_stop(self, 0.2 if len(stops) == 1 else timeout)  # the first wait is short

    monkeypatch.setattr(job_runners.filemod, "collect", stuck_walk)
    monkeypatch.setattr(Indexer, "close", close)
    monkeypatch.setattr(IndexQueue, "stop", stop)
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    ended: list[IndexEvent] = []
    eng.subscribe(lambda e: ended.append(e) if isinstance(e, JobFinished | JobFailed) else None)
    eng.submit_index([str(files[0].parent)])
    assert walking.wait(TIMEOUT)
    eng.close()
    assert len(stops) == 2 and released.is_set()
    assert [type(e) for e in ended] == [JobFinished]  # it ended cancelled, not on a closed store
    again = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    try:
        assert again.catalog is not None
        assert all(d.state is not DocState.INDEXING for d in again.documents())
    finally:
        again.close()


def test_a_file_that_faulted_renamed_unchanged_in_a_watched_folder_is_not_read_again(
    flaky: tuple[Engine, FailsOnB], files: list[Path]
) -> None:
    # renaming it changes nothing in it: its failure follows it, as a ready one's chunks do
    eng, embedder = flaky
    folder = files[0].parent
    sweep(eng, folder)
    tried = embedder.batches_of_b
    renamed = folder / "b-renamed.txt"
    files[1].rename(renamed)
    eng.queue.move(str(files[1]), str(renamed), source="watch")
    assert eng.wait_idle(TIMEOUT)
    assert embedder.batches_of_b == tried, "the renamed file was read again"
    assert states(eng) == {
        "a.txt": DocState.READY,
        "b-renamed.txt": DocState.FAILED,
        "c.txt": DocState.READY,
        "d.txt": DocState.READY,
    }
    error = eng.resolve("b-renamed.txt").error
    assert "failed to allocate memory" in error
    assert error.startswith("b-renamed.txt could not be indexed"), error  # its name now
    sweep(eng, folder)  # nor by the sweep after
    assert embedder.batches_of_b == tried
    # a run the user asks for tries it again
    embedder.broken = False
    eng.submit_index([str(renamed)])
    assert eng.wait_idle(TIMEOUT)
    assert states(eng)["b-renamed.txt"] is DocState.READY


def test_a_version_that_failed_unread_then_the_good_one_restored_is_indexed(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure that did not read the content (a reader's fault, a timeout) kept the last
    good version's sha256: restoring that version was taken as "unchanged", and the
    document stayed failed until a forced Re-index (review)."""
    from docent.core import preparing

    a = files[0]
    good = a.read_text()
    real = preparing.extract

    def flaky(path: str, *args: object, **kw: object) -> object:
        if Path(path).read_text().startswith("BROKEN"):
            raise RuntimeError("the reader blew up")
        return real(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(preparing, "extract", flaky)
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index([a])
        a.write_text("BROKEN " + good)
        assert eng.index([a]).failed and eng.resolve(str(a)).state is DocState.FAILED
        a.write_text(good)  # restored, a new mtime
        assert [Path(p).name for p in eng.index([a]).indexed] == ["a.txt"]
        assert eng.resolve(str(a)).state is DocState.READY and eng.grep("harbour master")


def test_a_cancelled_file_is_called_cancelled_in_every_list(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`docent list` said "queued: Indexing was cancelled." where `docent status` and the
    window say "cancelled" (QA, session 27): one label, from the record."""
    from docent.cli import main

    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index(files[:1])
        from docent.core.models import CANCELLED, DocumentRecord

        cancelled = DocumentRecord(doc_id="b1", path=str(files[1]), file_name="b.txt")
        cancelled.reason = CANCELLED
        cancelled.error = "Indexing was cancelled before it reached this file."
        eng.catalog.put(cancelled)  # as Indexer.note_cancelled lists it
        (rec,) = [d for d in eng.documents() if d.file_name == "b.txt"]
        assert rec.state is DocState.QUEUED and rec.state_label == "cancelled"
        assert eng.resolve("a.txt").state_label == "ready"
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "cancelled: Indexing was cancelled before it reached this file." in out, out
    assert "queued" not in out


def test_docent_index_alone_resumes_what_was_cancelled_as_status_says(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`docent status` said "1 cancelled (`docent index` resumes them)", and `docent index`
    alone answered "give files or folders to index" (QA, session 30)."""
    from docent.cli import main
    from docent.core.models import CANCELLED, DocumentRecord

    assert main(["index", "-q", str(files[0])]) == 0  # the model the command line uses
    with Engine(load_settings()) as eng:
        cancelled = DocumentRecord(doc_id="b1", path=str(files[1]), file_name="b.txt")
        cancelled.reason = CANCELLED
        eng.catalog.put(cancelled)  # as Indexer.note_cancelled lists it
    capsys.readouterr()
    assert main(["status"]) == 0
    status = capsys.readouterr().out
    assert "1 cancelled (`docent index` resumes them)" in status
    # where the settings are read from (QA, session 31: learnt only from an error)
    from docent.core.config import settings_file

    assert f"Settings:  {settings_file()}" in status
    assert main(["index", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["indexed"] == [str(files[1])]
    with Engine(load_settings()) as eng:
        assert eng.resolve("b.txt").state is DocState.READY
        gone = DocumentRecord("c1", str(files[1].parent / "gone.txt"), "gone.txt")
        gone.reason = CANCELLED
        eng.catalog.put(gone)  # cancelled, then deleted (review s30: failed every run)
    assert main(["index"]) == 2  # nothing left to resume: the usage error, as before
    err = capsys.readouterr().err
    assert "nothing is left to resume" in err and "their files are gone: gone.txt" in err
    assert "`docent remove NAME`" in err
    # with a collection named, only its documents, and no collection made (review s30)
    assert main(["index", "--collection", "Typo"]) == 2
    assert "Typo" in capsys.readouterr().err
    with Engine(load_settings()) as eng:
        assert [c.name for c in eng.collections() if c.name == "Typo"] == []


def test_files_saved_again_while_docent_was_closed_are_indexed_again_at_the_next_start(
    files: list[Path],
) -> None:
    """A file outside any watched folder, edited while Docent was closed, stayed "ready"
    with its old text until the user thought to Re-index it. Now the next start lists it
    (``Engine.changed``), and its resume indexes it again; a file that did not change, or
    that is gone, is not listed."""
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index(files)
        assert not eng.changed
    a, b, *rest = files
    a.write_text(a.read_text() + "\nThe night watchman counted forty barrels of tar.\n")
    rest[0].unlink()
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert [r.path for r in eng.changed] == [str(a)]
        assert not eng.grep("forty barrels of tar")  # still the old version, searchable
        report = eng.resume()
        assert report.indexed == [str(a)] and str(b) not in report.indexed
        assert eng.grep("forty barrels of tar") and not eng.changed
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert not eng.changed  # indexed: nothing left


class DeletesB(FakeEmbedder):
    """Deletes b.txt while its chunks are embedded (a person's `rm` mid-run)."""

    def __init__(self, victim: Path) -> None:
        super().__init__()
        self.victim = victim

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        if any("storehouse b" in t for t in texts):
            self.victim.unlink(missing_ok=True)
        return super().embed_chunks(texts, bodies)


def test_a_file_deleted_while_docent_index_reads_it_is_said(
    files: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was reported indexed and nothing said it was gone (QA, session 31). Its document
    stays until the next run of its folder, which finds it gone or moved: removing it
    at once lost a renamed file's document, collections and vectors (review)."""
    from docent import cli

    b = next(f for f in files if f.name.startswith("b."))
    opened = Engine(load_settings(extract_in_subprocess=False), embedder=DeletesB(b))
    monkeypatch.setattr(cli, "_open_engine", lambda rebuild=False: opened.open())
    assert cli.main(["index", "-q", str(files[0].parent)]) == 0
    out = capsys.readouterr().out
    assert f"gone since it was read: {b}" in out and out.count("gone since") == 1
    with Engine(load_settings(extract_in_subprocess=False)) as eng:
        assert states(eng)["b.txt"] is DocState.READY  # until the next run
        report = eng.index([files[0].parent])
        assert str(b) in report.removed and "b.txt" not in states(eng)
