"""The window's side of indexing: it submits to the engine's one queue and follows its events.

The GUI keeps no queue and walks no folder: ``add`` / ``remove`` / ``resume`` hand paths to
the engine (a quick call) and the queue's typed events come back as Qt signals on the GUI
thread. The controller remembers which jobs the user started, to show one progress bar
for them and say how they ended; every job's documents update the table.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QObject, Qt, QTimer, Signal

from docent.core.api import (
    DocumentChanged,
    DocumentProgressed,
    EngineAPI,
    FilesFound,
    IndexEvent,
    IndexReport,
    Job,
    JobFailed,
    JobFinished,
    JobKind,
    JobStarted,
    Progress,
    describe_unsupported,
    files_gone,
    gap_sentence,
)
from docent.core.models import DEFAULT_COLLECTION, DocumentRecord
from docent.gui.messages import bridge
from docent.gui.workers import call_in_worker


@dataclass(frozen=True, slots=True)
class LibraryRead:
    """A read of the catalog: its records, and the paths of the ready ones whose file is
    gone (moved or deleted outside a watched folder; stated in the worker)."""

    records: list[DocumentRecord]
    gone: set[str] = field(default_factory=set)


#: How much of a file's share of the overall bar extraction is worth (embedding is the rest).
EXTRACT_SHARE = 0.1
#: While jobs keep ending (a watched folder's burst), the catalog is read again at most
#: this often: each read of a 10,000-document library is 10,000 records to compare.
REREAD_MS = 1000
#: The GUI thread hands on index events for this long per turn of the event loop.
SLICE_MS = 8


def _label(paths: list[str]) -> str:
    return Path(paths[0]).name + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")


class EventBridge(QObject):
    """The engine's index events as a signal on the GUI thread, a few milliseconds of
    them per turn of the event loop.

    The queue calls ``_on_event`` on its own thread; the events wait in a queue here and
    the GUI thread is woken once for them, not once per event. A queued signal per event
    let a sweep of 10,000 unchanged files post 10,000 calls that Qt delivered in one turn
    (100-120 ms of the GUI thread's CPU at once, quiet); now the GUI thread hands on
    events until ``SLICE_MS`` have passed and takes the rest in the next turn.
    """

    #: an event of the indexing queue (IndexEvent), in the order the queue sent them
    event_received = Signal(object)
    #: (queue thread -> GUI thread) events wait
    _wake = Signal()

    def __init__(self, engine: EngineAPI, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: deque[IndexEvent] = deque()
        self._lock = threading.Lock()
        self._rest = QTimer(self)
        self._rest.setSingleShot(True)
        self._rest.timeout.connect(self._drain)
        self._wake.connect(self._drain, Qt.ConnectionType.QueuedConnection)
        unsubscribe = self._unsubscribe = engine.subscribe(self._on_event)
        self.destroyed.connect(lambda: unsubscribe())

    def _on_event(self, event: IndexEvent) -> None:  # the queue's (or watcher's) thread
        with self._lock:
            self._pending.append(event)
            first = len(self._pending) == 1
        if not first:
            return  # a wake-up is on its way, or the GUI thread is draining
        try:
            self._wake.emit()
        except RuntimeError:  # deleted meanwhile (the window closed): nobody to tell
            self._unsubscribe()

    def _drain(self) -> None:  # the GUI thread
        clock = QElapsedTimer()
        clock.start()
        while True:
            with self._lock:
                if not self._pending:
                    return
                event = self._pending.popleft()
            self.event_received.emit(event)
            if clock.elapsed() >= SLICE_MS:
                self._rest.start(0)  # the rest after what else waits (input, paints)
                return

    def detach(self) -> None:
        self._unsubscribe()


class RunProgress:
    """Each file's share of the user's run (0..1) and their running totals: a dropped
    folder of 10,000 files sends ~40,000 events, and summing every file's share per event
    was 10,000 additions each."""

    def __init__(self) -> None:
        self._fractions: dict[str, float] = {}
        self.done = 0  # files at 1.0
        self._partial = 0.0  # the sum of the others' shares
        self._open = 0  # how many others have a share above 0

    def __len__(self) -> int:
        return len(self._fractions)

    @property
    def total(self) -> float:
        """The sum of every file's share (whole files counted exactly)."""
        return self.done + (self._partial if self._open else 0.0)

    def clear(self) -> None:
        self._fractions.clear()
        self.done, self._partial, self._open = 0, 0.0, 0

    def set(self, path: str, fraction: float) -> None:
        self._count(self._fractions.get(path, 0.0), -1)
        self._fractions[path] = fraction
        self._count(fraction, 1)

    def advance(self, path: str, fraction: float) -> None:
        """A file's share only grows (events of one file may come from two phases)."""
        self.set(path, max(fraction, self._fractions.get(path, 0.0)))

    def _count(self, fraction: float, sign: int) -> None:
        if fraction >= 1.0:
            self.done += sign
        elif fraction > 0.0:
            self._partial += sign * fraction
            self._open += sign


class IndexController(QObject):
    #: a job walked its paths: the files it will index (FilesFound)
    files_found = Signal(object)
    #: a document moved on (Progress)
    document_progressed = Signal(object)
    #: a document reached a state the catalog keeps (DocumentChanged)
    document_changed = Signal(object)
    #: overall progress of the user's jobs: fraction 0..1, label
    overall_progressed = Signal(float, str)
    #: the user's first job was queued: a label for it
    run_started = Signal(str)
    #: the user's last queued job ended: its report, or None when it failed
    run_finished = Signal(object)
    #: a job the window does not show as a run (a watched folder's) ended: the files it
    #: had told (set[str]), that no later event may name again
    told_ended = Signal(object)
    #: the catalog's records, after a refresh (LibraryRead)
    documents_changed = Signal(object)
    #: a refresh began reading the catalog (what the events say after it is newer)
    refresh_started = Signal()

    def __init__(self, engine: EngineAPI, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        #: the user's jobs not yet ended: id -> label
        self._runs: dict[int, str] = {}
        self._removals: set[int] = set()
        #: Files told by jobs not shown as runs (a watched folder's, maybe still waiting
        #: behind another job), by job id, until each job ends.
        self._told: dict[int, set[str]] = {}
        #: Runs whose walk found no file at all (said when they end).
        self._found_nothing: set[int] = set()
        #: Runs that add indexed documents to a collection: id -> the collection's name
        #: (what they did is said when they end: nothing was, QA-79).
        self._joins: dict[int, str] = {}
        self._fractions = RunProgress()
        self._refresh_pending = False
        self._refresh_again = False
        #: the collection (id) whose documents ``refresh`` reads and ``add`` adds to;
        #: None: all documents (new ones join their folder's collection or the default)
        self.collection_id: str | None = None
        self._reading_for: str | None = None
        self._last_read = QElapsedTimer()
        self._reread = QTimer(self)
        self._reread.setSingleShot(True)
        self._reread.timeout.connect(self.refresh)
        self.events = EventBridge(engine, self)
        self.events.event_received.connect(self._on_event)

    @property
    def busy(self) -> bool:
        """Jobs the user started are queued or running."""
        return bool(self._runs)

    def told(self) -> set[str]:
        """Files of jobs not shown as runs that have not ended: a catalog read does not
        know them yet (listed "queued" while the job ahead of theirs ran, review s30)."""
        return set().union(*self._told.values())

    def shows_run(self, job: Job) -> bool:
        """``job`` is a run the window shows: the user's, or a watched folder's that reads
        a file."""
        return job.id in self._runs

    @property
    def removing(self) -> bool:
        """Removals the user asked for are queued or running."""
        return bool(self._removals)

    @property
    def pending(self) -> int:
        """The user's jobs not yet ended."""
        return len(self._runs)

    # Requests (quick calls: the engine only queues) ---------------------------

    def add(
        self,
        paths: list[str],
        *,
        recursive: bool = True,
        force: bool = False,
        collection: str | None = None,
        joining: str = "",
    ) -> None:
        """Index ``paths`` into ``collection`` (an id; None: the one shown, if any);
        ``joining``: its name, when the paths are documents added to it ("Add to
        collection"), said once they are."""
        if paths:
            job = self.engine.submit_index(
                paths,
                recursive=recursive,
                force=force,
                collection=collection or self.collection_id,
            )
            self._track(job, paths)
            if job is not None and joining:
                self._joins[job.id] = joining

    def resume(self) -> None:
        """Index what is queued from an earlier session (crash or cancel)."""
        job = self.engine.submit_resume()
        if job is not None:
            self._track(job, ["documents unfinished or changed since last time"])

    def remove(self, paths: list[str]) -> None:
        self._removals.update(j.id for j in self.engine.submit_removal(paths))

    def leave(self, paths: list[str], collection_id: str) -> None:
        """Take documents out of a collection (out of the library if in no other)."""
        self._removals.update(j.id for j in self.engine.submit_leave(paths, collection_id))

    def cancel(self) -> None:
        self.engine.cancel_indexing()

    def _track(self, job: Job | None, paths: list[str]) -> None:
        if job is None or job.id in self._runs:
            return
        first = not self._runs
        self._runs[job.id] = _label(paths)
        if first:
            self._fractions.clear()
            self.run_started.emit(self._runs[job.id])

    def refresh(self) -> None:
        """Re-read the catalog (coalesced: one read in flight, one more after it)."""
        if self._refresh_pending:
            self._refresh_again = True  # the read in flight may predate this change
            return
        self._refresh_pending, self._refresh_again = True, False
        self._reread.stop()
        self._last_read.start()
        self.refresh_started.emit()
        engine, collection = self.engine, self.collection_id
        self._reading_for = collection

        def read() -> LibraryRead:
            records = engine.documents(collection)
            return LibraryRead(records, files_gone(records))

        call_in_worker(
            read,
            name="documents",
            on_result=self._on_documents,
            on_finished=self._on_refreshed,
            error_text="Could not read the library",
        )

    def _refresh_soon(self) -> None:
        """``refresh`` after a job ended: at once, or REREAD_MS after the last read began."""
        if self._reread.isActive():
            return
        elapsed = self._last_read.elapsed() if self._last_read.isValid() else REREAD_MS
        if elapsed >= REREAD_MS:
            self.refresh()
        else:
            self._reread.start(REREAD_MS - elapsed)

    def _on_documents(self, read: LibraryRead) -> None:
        if self._reading_for != self.collection_id:  # read for the collection shown before
            self._refresh_again = True
            return
        self.documents_changed.emit(read)

    def _on_refreshed(self) -> None:
        self._refresh_pending = False
        if self._refresh_again:
            self.refresh()

    def detach(self) -> None:
        """Before the engine closes: stop listening to its queue, stop the user's jobs."""
        self._reread.stop()
        self.events.detach()
        if self._runs:
            self.cancel()

    # Events (GUI thread) ------------------------------------------------------

    def _on_event(self, event: IndexEvent) -> None:
        if isinstance(event, JobStarted):
            if event.job.id in self._runs:
                self._fractions.clear()
        elif isinstance(event, FilesFound):
            self._on_found(event)
        elif isinstance(event, DocumentProgressed):
            self._progress(event.job, event.progress)
            self.document_progressed.emit(event.progress)
        elif isinstance(event, DocumentChanged):
            self._progress(event.job, event.progress)
            self.document_changed.emit(event)
        elif isinstance(event, JobFinished | JobFailed):
            self._on_ended(event)

    def _on_found(self, found: FilesFound) -> None:
        mine = found.job.id in self._runs
        if mine and not (found.files or found.unsupported or found.missing or found.skipped):
            self._found_nothing.add(found.job.id)  # said when the run ends
        if mine and found.unsupported:
            bridge().warning(describe_unsupported(found.unsupported))
        if mine and found.skipped:
            more = f" (and {len(found.skipped) - 3} more)" if len(found.skipped) > 3 else ""
            bridge().warning("Not read: " + " ".join(found.skipped[:3]) + more)
        if mine and found.files:
            for path in found.files:
                self._fractions.set(path, 0.0)
            self.overall_progressed.emit(0.0, f"Indexing 0/{len(self._fractions)}")
        elif found.files:
            self._told.setdefault(found.job.id, set()).update(found.files)
        self.files_found.emit(found)

    def _progress(self, job: Job, p: Progress) -> None:
        if job.id not in self._runs:
            if p.phase != "extracting":
                return
            # a job the window did not start (a watched folder's change or sweep) that
            # reads a file: shown as a run, with its Cancel (it had only the row's
            # percentage: QA, session 29); a sweep of unchanged files reads none
            self._track(job, [p.path])
        if p.phase in ("ready", "unchanged", "renamed", "failed", "removed"):
            frac = 1.0
        elif p.phase == "embedding" and p.chunks_total:
            frac = EXTRACT_SHARE + (1 - EXTRACT_SHARE) * p.chunks_done / p.chunks_total
        else:
            frac = EXTRACT_SHARE / 2
        run = self._fractions
        run.advance(p.path, frac)
        total = max(p.file_count, len(run), 1)
        done = run.done
        overall = run.total / total
        if p.phase == "optimizing":  # searches wait meanwhile: say why
            what = "building the search index (searches wait)"
        else:
            what = Path(p.path).name
        self.overall_progressed.emit(min(overall, 1.0), f"Indexing {done}/{total}: {what}")

    def _on_ended(self, end: JobFinished | JobFailed) -> None:
        job = end.job
        if isinstance(end, JobFailed):
            bridge().warning(end.error)
        elif job.id in self._removals and end.report.removed:
            bridge().info(f"Removed {_names(end.report.removed)} from the library.")
        elif job.id in self._runs:
            self._say_how_it_ended(
                end.report, self._runs[job.id], job.id in self._found_nothing, job
            )
            if (name := self._joins.pop(job.id, None)) and isinstance(end, JobFinished):
                _say_joined(end.report, name)
        elif job.kind is JobKind.REMOVE_COLLECTION:
            _say_collection_removed(end.report, job.collection == DEFAULT_COLLECTION)
        elif job.source in ("watch", "sweep"):  # a watched folder's change (not a drop)
            _say_what_was_followed(end.report)
        if isinstance(end, JobFinished):
            _say_what_was_not_read(end.report)
        self._found_nothing.discard(job.id)
        self._removals.discard(job.id)
        told = self._told.pop(job.id, None)
        if told:
            self.told_ended.emit(told)
        if self._runs.pop(job.id, None) is not None and not self._runs:
            self.run_finished.emit(end.report if isinstance(end, JobFinished) else None)
        self._refresh_soon()

    def _say_how_it_ended(
        self, report: IndexReport, what: str, found_nothing: bool, job: Job
    ) -> None:
        """``found_nothing``: the run's walk found no file at all (an empty folder); a run
        whose report is empty for another reason (a removal made it moot) says nothing."""
        if found_nothing and not report.cancelled and not report.removed:
            bridge().info(f"Nothing to index in {what}: it holds no file Docent reads.")
        elif report.cancelled and job.stopped_because:  # not the user's Cancel (review 83)
            bridge().info(f"Stopped adding {what}: {job.stopped_because}.")
        elif report.cancelled:
            bridge().info("Indexing cancelled; the documents that finished are kept.")
        elif report.failed or report.skipped:
            # a ready document's file gone, or saved at every read, is skipped, its version
            # kept (review 81); no row says why (reviews)
            kept = [f for f in report.failed + report.skipped if f.reason in _SAID_APART]
            if kept:
                more = f" ({len(kept) - 1} more like it)" if len(kept) > 1 else ""
                bridge().warning(kept[0].message + more)
            rest = sum(1 for f in report.failed if f.reason not in _SAID_APART)
            if rest:
                bridge().warning(
                    f"{rest} file{'s' if rest > 1 else ''} could not be indexed; "
                    # a narrow column cuts the reason short: its tooltip is whole (QA-77)
                    "see the State column for why (point at a row for the whole reason)."
                )


def _names(paths: list[str], *, counted: bool = False) -> str:
    """The first three files' names: "a.pdf, b.txt, c.md…", or ``counted``, "… and 4
    more"."""
    listed = ", ".join(Path(p).name for p in paths[:3])
    if len(paths) <= 3:
        return listed
    return f"{listed} and {len(paths) - 3} more" if counted else f"{listed}…"


#: Reasons a file was not indexed that its row does not show (a ready document keeps its
#: version; a file gone has no row to show it): said by their own message.
_SAID_APART = ("missing", "changing")


def _say_joined(report: IndexReport, name: str) -> None:
    """What "Add to collection" did: documents that joined it, those already in it."""
    if report.cancelled:
        return
    joined = [p for p, _ in report.regrouped] + report.indexed
    already = [p for p in report.unchanged if p not in joined]

    def names(paths: list[str]) -> str:
        return _names(paths, counted=True)

    def were(paths: list[str]) -> str:
        return "was" if len(paths) == 1 else "were"

    if joined:
        how = "" if report.indexed else " (nothing re-embedded)"
        also = f"; {names(already)} {were(already)} in it already" if already else ""
        bridge().info(f"Added {names(joined)} to '{name}'{how}{also}.")
    elif already:
        bridge().info(f"{names(already)} {were(already)} in '{name}' already.")


def _say_collection_removed(report: IndexReport, default: bool) -> None:
    """QA-79: a collection's removal ended and its documents left with nothing said."""
    if report.cancelled:  # Docent closing
        what = "Emptying the default collection" if default else "Removing the collection"
        bridge().info(f"{what} stopped; the documents it took out stay out.")
        return
    done = "Emptied the default collection" if default else "Removed the collection"
    n = len(report.removed)
    docs = f"{n} document{'s' if n > 1 else ''} left" if n else "no document left"
    bridge().info(f"{done}: {docs} the library (no file was deleted).")


def _say_what_was_not_read(report: IndexReport) -> None:
    """A document indexed with pages it could not read (gaps.py), said once: its row says
    "ready · part unread" and its tooltip why, but a row is easily passed over."""
    if report.gaps:
        (path, gaps), more = report.gaps[0], len(report.gaps) - 1
        also = f" ({more} more read in part: see their rows)" if more else ""
        bridge().warning(f"{Path(path).name}: {gap_sentence(gaps)}{also}")


def _say_what_was_followed(report: IndexReport) -> None:
    """A rename or a removal a watched folder's change brought, said once (QA-78: only
    the rows changed; a file renamed away looked like one lost). New and changed files
    are runs of their own, with their progress and Cancel."""
    if report.renamed:
        (old, new), more = report.renamed[0], len(report.renamed) - 1
        also = f" ({more} more renamed or moved)" if more else ""
        bridge().info(f"Followed a rename: {Path(old).name} → {Path(new).name}{also}.")
    if report.removed:
        bridge().info(
            f"Removed {_names(report.removed)} from the library: deleted or moved out of a "
            "watched folder."
        )
