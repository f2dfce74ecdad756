"""The window's indexing: it submits to the engine's queue and follows the typed events."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine
from PySide6.QtCore import QTimer

from docent.core.api import (
    DocumentChanged,
    DocumentProgressed,
    FilesFound,
    IndexReport,
    Job,
    JobKind,
    JobStarted,
)
from docent.gui.indexing import IndexController
from docent.gui.messages import Message, bridge


def folder(tmp_path: Path, names: list[str]) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in names:
        (lib / name).write_text(f"Some text in {name}.\n")
    return lib


@pytest.fixture
def make(fake: FakeEngine) -> Iterator[Callable[[], IndexController]]:
    made: list[IndexController] = []

    def controller() -> IndexController:
        made.append(IndexController(fake))
        return made[-1]

    yield controller
    for c in made:
        c.detach()


def listen() -> list[Message]:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    return posted


def test_a_run_reports_files_progress_documents_and_its_end(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    lib = folder(tmp_path, ["a.txt", "b.txt", "notes.pages"])
    posted = listen()
    c = make()
    started: list[str] = []
    found: list[FilesFound] = []
    changed: list[DocumentChanged] = []
    overall: list[float] = []
    c.run_started.connect(started.append)
    c.files_found.connect(found.append)
    c.document_changed.connect(changed.append)
    c.overall_progressed.connect(lambda f, label: overall.append(f))

    with qtbot.waitSignal(c.run_finished, timeout=10_000) as end:
        c.add([str(lib)])
        assert c.busy and started == ["lib"]

    report = end.args[0]
    assert isinstance(report, IndexReport) and sorted(map(Path, report.indexed)) == [
        lib / "a.txt",
        lib / "b.txt",
    ]
    assert not c.busy
    assert [Path(f).name for f in found[0].files] == ["a.txt", "b.txt"]
    assert [c.record.state.value for c in changed if c.record] == ["ready", "ready"]
    assert 0 < overall[1] < 1 and overall[-1] == 1.0
    assert any("notes.pages" in m.text and m.level == "warning" for m in posted)
    [job] = fake.submitted
    assert job.kind is JobKind.INDEX and job.paths == [str(lib)] and not job.force


def test_the_gui_walks_no_folder_itself(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path
) -> None:
    lib = folder(tmp_path, ["a.txt"])
    fake.hold_jobs.set()  # the job stays inside the engine
    c = make()
    c.add([str(lib)], recursive=False, force=True)
    assert [(j.paths, j.recursive, j.force) for j in fake.submitted] == [([str(lib)], False, True)]
    with qtbot.waitSignal(c.document_progressed, timeout=10_000):
        pass  # what the engine found came back as events
    fake.release_jobs.set()


def test_a_failed_file_is_reported_once_the_run_ends(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    lib = folder(tmp_path, ["good.txt", "bad.txt"])
    fake.failing[str(lib / "bad.txt")] = "bad.txt is damaged and cannot be read."
    posted = listen()
    c = make()
    with qtbot.waitSignal(c.run_finished, timeout=10_000) as end:
        c.add([str(lib)])
    assert [f.path for f in end.args[0].failed] == [str(lib / "bad.txt")]
    assert any("1 file could not be indexed" in m.text for m in posted)


def test_a_folder_with_nothing_to_index_says_so(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    """Add folder… on an empty folder showed nothing at all."""
    empty = tmp_path / "empty"
    empty.mkdir()
    full = folder(tmp_path, ["a.txt"])
    posted = listen()
    c = make()
    with qtbot.waitSignal(c.run_finished, timeout=10_000):
        c.add([str(empty)])
    assert [m.text for m in posted if "Nothing to index" in m.text] == [
        "Nothing to index in empty: it holds no file Docent reads."
    ]
    with qtbot.waitSignal(c.run_finished, timeout=10_000):
        c.add([str(full)])
    with qtbot.waitSignal(c.run_finished, timeout=10_000):  # a Re-index of a file gone
        c.add([str(tmp_path / "gone.txt")], force=True)
    assert sum("Nothing to index" in m.text for m in posted) == 1


def test_cancel_ends_the_running_and_the_queued_jobs(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    lib = folder(tmp_path, ["a.txt", "b.txt"])
    other = tmp_path / "other.txt"
    other.write_text("Another text.\n")
    fake.hold_jobs.set()
    posted = listen()
    c = make()
    c.add([str(lib)])
    c.add([str(other)])
    assert c.pending == 2
    assert fake.job_paused.wait(10)
    with qtbot.waitSignal(c.run_finished, timeout=10_000) as end:
        c.cancel()
        fake.release_jobs.set()
    assert end.args[0].cancelled and not c.busy
    assert all(j.cancel.is_set() for j in fake.submitted)
    assert any("cancelled" in m.text for m in posted)


def test_the_watchers_jobs_update_documents_but_start_no_run(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    c = make()
    started: list[str] = []
    c.run_started.connect(started.append)
    path = tmp_path / "w.txt"
    rec = fake.add_document(str(path))
    job = Job(JobKind.INDEX, [str(path)], "watch", id=99)
    from docent.core.api import JobFinished, Progress

    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        fake.emit(JobStarted(job))
        fake.emit(DocumentChanged(job, Progress("ready", 1, 1, str(path), rec.doc_id), rec))
        fake.emit(JobFinished(job, IndexReport(indexed=[str(path)])))
    assert started == [] and not c.busy
    # one that reads a file is shown as a run, with its Cancel (QA, session 29: a watched
    # folder's 7 MB file indexed for minutes with only its row's percentage)
    edited = Job(JobKind.INDEX, [str(path)], "watch", id=100)
    with qtbot.waitSignal(c.run_started, timeout=10_000):
        fake.emit(JobStarted(edited))
        fake.emit(DocumentProgressed(edited, Progress("extracting", 1, 1, str(path))))
    assert started == ["w.txt"] and c.busy
    with qtbot.waitSignal(c.run_finished, timeout=10_000):
        fake.emit(JobFinished(edited, IndexReport(indexed=[str(path)])))
    assert not c.busy


def test_removal_says_what_left_the_library(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    fake.add_document(str(tmp_path / "gone.pdf"))
    posted = listen()
    c = make()
    with qtbot.waitSignal(c.documents_changed, timeout=10_000) as refreshed:
        c.remove([str(tmp_path / "gone.pdf")])
    assert refreshed.args[0].records == []
    assert Message("info", "Removed gone.pdf from the library.") in posted


def test_a_watched_folders_rename_and_removal_are_said(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    """QA-78: a rename, a move and a delete in a watched folder changed the rows only."""
    from docent.core.api import JobFinished

    posted = listen()
    c = make()
    old, new = str(tmp_path / "beta.txt"), str(tmp_path / "beta-notes.txt")
    job = Job(JobKind.INDEX, [new], "watch", id=101)
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        fake.emit(JobStarted(job))
        fake.emit(JobFinished(job, IndexReport(renamed=[(old, new)])))
    assert Message("info", "Followed a rename: beta.txt → beta-notes.txt.") in posted
    gone = Job(JobKind.INDEX, [old], "watch", id=102)
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        fake.emit(JobStarted(gone))
        fake.emit(JobFinished(gone, IndexReport(removed=[str(tmp_path / "alpha.md")])))
    assert (
        Message(
            "info",
            "Removed alpha.md from the library: deleted or moved out of a watched folder.",
        )
        in posted
    )
    # documents dropped with a folder no longer watched: no "deleted or moved out"
    before = len(posted)
    drop = Job(JobKind.DROP, [str(tmp_path)], "user", id=104)
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        fake.emit(JobStarted(drop))
        fake.emit(JobFinished(drop, IndexReport(removed=[new])))
    assert len(posted) == before
    # a watched change that found nothing to say says nothing
    quiet = Job(JobKind.INDEX, [new], "watch", id=103)
    before = len(posted)
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        fake.emit(JobStarted(quiet))
        fake.emit(JobFinished(quiet, IndexReport(unchanged=[new])))
    assert len(posted) == before


def test_a_document_read_in_part_is_said_once_the_run_ends(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    """Pages left unread (core/gaps.py) were only logged; now said, whichever job read
    the file (a run the window started, or a watched folder's)."""
    from docent.core.api import JobFinished

    posted = listen()
    c = make()
    log = str(tmp_path / "log.pdf")
    for source, job_id in (("user", 201), ("watch", 202)):
        job = Job(JobKind.INDEX, [log], source, id=job_id)
        with qtbot.waitSignal(c.documents_changed, timeout=10_000):
            fake.emit(JobStarted(job))
            fake.emit(
                JobFinished(
                    job, IndexReport(indexed=[log], gaps=[(log, "page 4 could not be read")])
                )
            )
        said = "log.pdf: Page 4 could not be read; what was read is searchable."
        assert posted.count(Message("warning", said)) == 1, (source, posted)
        posted.clear()


def test_a_ready_documents_file_gone_mid_run_is_said_apart_from_failures(
    qtbot: Any, make: Any, drain: None
) -> None:
    """Review 81: a ready document whose file went while the run went on keeps its
    version (skipped, not failed): still said, and not counted among the failures."""
    from docent.core.api import FailedFile

    posted = listen()
    c = make()
    gone = "c.txt disappeared before it was read. The version indexed stays searchable."
    report = IndexReport(
        skipped=[FailedFile("/d/c.txt", "missing", gone)],
        failed=[FailedFile("/d/x.pdf", "damaged", "x.pdf is damaged.")],
    )
    c._say_how_it_ended(report, "d", False, Job(JobKind.INDEX, ["/d"], "user"))
    assert Message("warning", gone) in posted
    assert any(m.text.startswith("1 file could not be indexed") for m in posted), posted


def test_a_collections_removal_says_what_left_the_library(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    """QA-79: a collection removed, its documents left the library with nothing said."""
    from docent.core.api import JobFinished

    posted = listen()
    c = make()
    for collection, removed, said in (
        ("c1", ["/d/a.pdf", "/d/b.pdf"], "Removed the collection: 2 documents left the library"),
        ("c1", [], "Removed the collection: no document left the library"),
        ("default", ["/d/a.pdf"], "Emptied the default collection: 1 document left the library"),
    ):
        job = Job(JobKind.REMOVE_COLLECTION, [], "user", id=301, collection=collection)
        with qtbot.waitSignal(c.documents_changed, timeout=10_000):
            fake.emit(JobStarted(job))
            fake.emit(JobFinished(job, IndexReport(removed=removed)))
        assert Message("info", f"{said} (no file was deleted).") in posted, posted
        posted.clear()


def test_adding_documents_to_a_collection_says_what_it_did(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, drain: None
) -> None:
    """QA-79: "Add to collection" said nothing, whether the documents joined it or were
    in it already."""
    from docent.gui import indexing

    lib = folder(tmp_path, ["a.txt"])
    posted = listen()
    c = make()
    work = fake.create_collection("Retro").id
    with qtbot.waitSignal(c.run_finished, timeout=10_000):
        c.add([str(lib / "a.txt")], collection=work, joining="Retro")
    assert Message("info", "Added a.txt to 'Retro'.") in posted, posted
    posted.clear()
    a, b = str(lib / "a.txt"), str(lib / "b.txt")
    indexing._say_joined(IndexReport(regrouped=[(a, [work])], unchanged=[b]), "Retro")
    indexing._say_joined(IndexReport(unchanged=[a, b]), "Retro")
    assert [m.text for m in posted] == [
        "Added a.txt to 'Retro' (nothing re-embedded); b.txt was in it already.",
        "a.txt, b.txt were in 'Retro' already.",
    ]


def test_resume_tracks_the_documents_left_queued(
    qtbot: Any, fake: FakeEngine, make: Any, drain: None
) -> None:
    c = make()
    started: list[str] = []
    c.run_started.connect(started.append)
    with qtbot.waitSignal(c.run_finished, timeout=10_000):
        c.resume()
    assert started == ["documents unfinished or changed since last time"]
    assert fake.submitted[0].kind is JobKind.RESUME


def test_refreshes_are_coalesced(qtbot: Any, fake: FakeEngine, make: Any, drain: None) -> None:
    c = make()
    reads: list[int] = []
    c.documents_changed.connect(lambda read: reads.append(len(read.records)))
    for _ in range(5):
        c.refresh()
    qtbot.waitUntil(lambda: len(reads) == 2 and not c._refresh_pending, timeout=10_000)
    assert reads == [0, 0], "five refreshes while one was in flight: one more read, not five"


def test_jobs_ending_back_to_back_read_the_catalog_once_then_once_more(
    qtbot: Any, fake: FakeEngine, make: Any, tmp_path: Path, monkeypatch: Any, drain: None
) -> None:
    """A watched folder's burst ends a job per file: the first end reads the catalog at
    once, the next ones within REREAD_MS share one read after it, not one read each."""
    import docent.gui.indexing as indexing
    from docent.core.api import JobFinished, Progress

    monkeypatch.setattr(indexing, "REREAD_MS", 600_000)  # no second read by itself here
    c = make()
    reads: list[int] = []
    c.documents_changed.connect(lambda read: reads.append(len(read.records)))
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        for i in range(20):
            path = str(tmp_path / f"w{i}.txt")
            rec = fake.add_document(path)
            job = Job(JobKind.INDEX, [path], "watch", id=100 + i)
            fake.emit(DocumentChanged(job, Progress("ready", 1, 1, path, rec.doc_id), rec))
            fake.emit(JobFinished(job, IndexReport(indexed=[path])))
    qtbot.waitUntil(lambda: not c._refresh_pending, timeout=10_000)
    assert len(reads) == 1 and c._reread.isActive(), "one read at once, the next one waits"
    with qtbot.waitSignal(c.documents_changed, timeout=10_000):
        c._reread.start(0)  # REREAD_MS is over
    assert reads[-1] == 20 and len(reads) == 2


def test_detach_stops_listening(qtbot: Any, fake: FakeEngine, make: Any) -> None:
    c = make()
    assert len(fake._listeners) == 1
    c.detach()
    assert fake._listeners == []


def test_a_runs_progress_keeps_its_totals_as_files_move_on() -> None:
    """The overall bar's sums are kept as each file moves (not summed per event): they
    match a sum over every file after each step, and a finished run is exactly whole."""
    import random

    from docent.gui.indexing import RunProgress

    run, truth = RunProgress(), {}
    rng = random.Random(18)
    paths = [f"/lib/f{i}.txt" for i in range(50)]
    for path in paths:
        run.set(path, 0.0)
        truth[path] = 0.0
    for _ in range(2_000):
        path = rng.choice(paths)
        share = rng.choice([0.05, 0.1 + 0.9 * rng.random(), 1.0])
        run.advance(path, share)
        truth[path] = max(truth[path], share)
        assert run.done == sum(f >= 1.0 for f in truth.values())
        assert run.total == pytest.approx(sum(truth.values()))
    for path in paths:
        run.advance(path, 1.0)
    assert run.total == 50.0 and run.done == 50 and len(run) == 50
    run.set(paths[0], 0.0)  # found again by a second walk
    assert run.done == 49
    run.clear()
    assert (run.total, run.done, len(run)) == (0.0, 0, 0)


def test_a_flood_of_events_is_handed_on_in_order_a_slice_per_turn(
    qtbot: Any, fake: FakeEngine
) -> None:
    """A sweep of 10,000 unchanged files sends an event per file; queued one signal each,
    Qt delivered every waiting one in one turn of the event loop (100-120 ms of the GUI
    thread at once). The bridge hands them on in order, none lost, and lets the loop run
    between slices: here a zero-interval timer fires before the last event is handed on."""
    from docent.gui.indexing import SLICE_MS, EventBridge

    events = EventBridge(fake)
    got: list[object] = []

    def slow(event: object) -> None:  # a slot with ~1 ms of work per event
        clock = time.perf_counter()
        while time.perf_counter() - clock < 0.001:
            pass
        got.append(event)

    events.event_received.connect(slow)
    sent = [JobStarted(Job(JobKind.INDEX, [f"/lib/{i}.txt"], id=i)) for i in range(20 * SLICE_MS)]
    for event in sent:  # all waiting before the loop runs again, as from a busy queue
        fake.emit(event)
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(len(got)))
    timer.start(0)
    qtbot.waitUntil(lambda: len(got) == len(sent), timeout=10_000)
    timer.stop()
    assert got == sent
    assert any(0 < n < len(sent) for n in ticks), "the loop never ran between slices"
    events.detach()
