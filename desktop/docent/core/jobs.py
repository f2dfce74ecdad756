"""The indexer's single queue: one daemon thread runs every indexing job, in order.

The window, drops, watched folders and the command line only *submit* jobs (index these
paths / remove this path / move old -> new / sweep this folder / forget this path / resume
what was left queued); the queue's thread walks folders and runs the jobs one at a time
through the Indexer. Pending jobs for the same path are coalesced, so a burst of events
costs one run. Listeners follow each job through typed events (``index_events``).

Jobs are decided when they *run*, not when they are queued: a file that vanished, came
back or moved again meanwhile is handled as it is on disk at that moment.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from docent.core import files as filemod
from docent.core.catalog import Catalog
from docent.core.errors import Cancelled, DocentError
from docent.core.index_events import (
    DocumentChanged,
    DocumentProgressed,
    FilesFound,
    IndexEvent,
    Job,
    JobFailed,
    JobFinished,
    JobKind,
    JobStarted,
)
from docent.core.indexer import FailedFile, Indexer, IndexReport, Progress, ProgressCallback
from docent.core.job_runners import ASKED, RUNNERS, WATCHER
from docent.core.models import DocumentRecord
from docent.core.userfiles import folder_set, inside, inside_any

log = logging.getLogger(__name__)

__all__ = ["IndexQueue", "Job", "JobKind", "Listener", "RunStopped"]

Listener = Callable[[IndexEvent], None]
#: Progress phases after which the catalog's record of the document is final for the job.
FINAL_PHASES = frozenset({"ready", "unchanged", "renamed", "failed", "removed"})
#: Sources whose pending jobs a user's Cancel drops (the watcher's come back by themselves).
USER_SOURCES = frozenset({"user", "command", "resume"})
#: The jobs a Cancel of indexing stops: not removals, which the user confirmed.
INDEXING_KINDS = frozenset({JobKind.INDEX, JobKind.RESUME, JobKind.SWEEP})
#: With no job for this long, the extraction worker is stopped (its memory freed); the
#: next job starts another (a second or two).
READER_IDLE_SECONDS = 120.0
#: Seconds ``run`` gives its job, cancelled by Ctrl-C, to end and report what it did;
#: one stuck in a step that checks no cancel is left to ``Engine.close``.
STOP_WAIT = 10.0


class RunStopped(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, as the command line takes it) stopped ``IndexQueue.run``: its
    job was cancelled and ended; ``report`` is what it finished (``cancelled`` set)."""

    def __init__(self, report: IndexReport) -> None:
        super().__init__("indexing was stopped")
        self.report = report


class IndexQueue:
    """A FIFO of jobs drained by one daemon thread (started on the first submit)."""

    def __init__(self, indexer: Indexer, catalog: Catalog, data_path: Path | None = None) -> None:
        self.indexer = indexer
        self.catalog = catalog
        #: Docent's own data folder: never indexed, wherever a job meets it.
        self.data_path = data_path
        self._pending: deque[Job] = deque()
        self._running: Job | None = None
        #: The running job once it has ended, while its end is told (``_loop``).
        self._ending: Job | None = None
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._listeners: list[Listener] = []
        #: A watched folder's files queued behind the running job, to tell listeners
        #: (IndexQueue._tell_queued); held while they are told, so that the job that
        #: will index them starts only after.
        self._queued_files: list[tuple[Job, list[str]]] = []
        #: Files a removal took out of a watched folder's queued job: told as removed at
        #: once (listed "queued" early, they stayed so until that job's turn; s30).
        self._dropped_files: list[tuple[Job, list[str]]] = []
        self._telling = threading.RLock()
        #: After this long with no job, the extraction worker is stopped.
        self.reader_idle_seconds = READER_IDLE_SECONDS

    # Listeners -------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every event, on the queue's thread, or for a
        watched file's early ``FilesFound`` (and the ``DocumentChanged`` "removed" of one
        taken out before its turn) on the thread that queued it or took it out (never
        wait on the queue from it); returns the function that unsubscribes it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # Submitting ------------------------------------------------------------

    def index(
        self,
        paths: list[str],
        source: str = "user",
        *,
        recursive: bool = True,
        force: bool = False,
        collection: str = "",
    ) -> Job | None:
        job = Job(JobKind.INDEX, list(paths), source, recursive, force, collection=collection)
        return self.submit(job)

    def remove(self, path: str, source: str = "user") -> Job | None:
        return self.submit(Job(JobKind.REMOVE, [path], source))

    def move(self, old: str, new: str, source: str = "watch") -> Job | None:
        return self.submit(Job(JobKind.MOVE, [old, new], source))

    def sweep(self, folder: str, source: str = "sweep") -> Job | None:
        return self.submit(Job(JobKind.SWEEP, [folder], source))

    def drop(self, *paths: str, source: str = "user") -> Job | None:
        """Forget the documents at ``paths`` (files or folders), in one job: a job each
        made removing 5,000 selected documents take seconds on the window's thread,
        each submit scanning all those queued (review)."""
        return self.submit(Job(JobKind.DROP, list(paths), source))

    def resume(self) -> Job | None:
        return self.submit(Job(JobKind.RESUME, [], "resume"))

    def leave(self, *paths: str, collection: str, source: str = "user") -> Job | None:
        """Take the documents at ``paths`` out of ``collection``, in one job (as ``drop``:
        a job each made 3,000 selected rows take seconds on the window's thread, 10,000
        over 20 s: review 82)."""
        return self.submit(Job(JobKind.LEAVE, list(paths), source, collection=collection))

    def remove_collection(self, collection: str, source: str = "user") -> Job | None:
        """Indexing into the collection, queued or running, stops first: it would only add
        files to a collection about to go (QA-79: a big PDF went on embedding for minutes,
        then left the library with the collection). What it did not finish stays listed
        in the collection, for the removal to take out."""
        with self._cond:
            running = self._running if self._running is not self._ending else None
            for j in [*self._pending, *([running] if running else [])]:
                if j.kind is JobKind.INDEX and j.collection == collection:
                    j.stopped_because = "the collection it was adding to is being removed"
                    j.cancel.set()
        return self.submit(Job(JobKind.REMOVE_COLLECTION, [], source, collection=collection))

    def submit(self, job: Job, *, coalesce: bool = True) -> Job | None:
        """Queue ``job``; returns the job that will do the work (maybe an earlier one),
        or None when nothing is left to do after coalescing or the queue is stopping."""
        with self._cond:
            if self._stopping:
                return None
            queued = self._coalesce(job) if coalesce else job
            if queued is job:
                job.id = next(self._ids)
                self._pending.append(job)
            if (
                queued is not None
                and self._running is not None
                and job.kind is JobKind.INDEX
                and job.source == "watch"
                and job.paths
            ):
                # files the watcher found (its events are a file each): listed now, not
                # when their turn comes (a second file dropped into a watched folder was
                # missing from the library for as long as the first took: QA, session 29)
                self._queued_files.append((queued, list(job.paths)))
            self._cond.notify_all()
            self._ensure_thread()
        self._tell_queued()
        return queued

    def run(self, job: Job, progress: ProgressCallback | None = None) -> IndexReport:
        """Submit ``job`` and wait for it (the command line); its progress goes to
        ``progress`` on the queue's thread. Set ``job.cancel`` to stop it.

        Ctrl-C while waiting cancels the job and waits up to STOP_WAIT for its end: then
        RunStopped carries its report (`docent index --json` printed nothing); a job that
        does not end by then lets the KeyboardInterrupt go on as it came."""
        done = threading.Event()
        ended: list[JobFinished | JobFailed] = []

        def listen(event: IndexEvent) -> None:
            if event.job is not job:
                return
            if isinstance(event, DocumentProgressed | DocumentChanged) and progress is not None:
                progress(event.progress)
            elif isinstance(event, JobFinished | JobFailed):
                ended.append(event)
                done.set()

        unsubscribe = self.subscribe(listen)
        try:
            if self.submit(job, coalesce=False) is None:
                raise DocentError("Indexing is stopping; nothing more is queued.")
            try:
                while not done.wait(0.5):  # short waits: Ctrl-C is handled between them
                    if self._stopping and not (self._thread and self._thread.is_alive()):
                        raise Cancelled("Indexing stopped: Docent is closing.")
            except KeyboardInterrupt:
                job.cancel.set()
                if not done.wait(STOP_WAIT):
                    raise
                stopped = ended[0]
                if isinstance(stopped, JobFailed):
                    raise
                stopped.report.cancelled = True
                raise RunStopped(stopped.report) from None
        finally:
            unsubscribe()
        end = ended[0]
        if isinstance(end, JobFailed):
            raise end.exception
        return end.report

    def _coalesce(self, job: Job) -> Job | None:
        pending = [j for j in self._pending if not j.cancel.is_set()]
        if job.kind in (JobKind.REMOVE, JobKind.MOVE, JobKind.DROP):
            # Before looking for the same job queued: "remove, add, remove" must not keep
            # the add queued after the first removal.
            paths = job.paths[:1] if job.kind is JobKind.MOVE else job.paths
            self._settle_removal(job, paths, pending)
        # A person's job is not folded into a watcher's or a sweep's: it does more (what
        # the user removed from a watched folder comes back only when they add it). Nor a
        # watcher's into a person's: their Cancel drops it, and the edit it was for was
        # never indexed (review).
        if job.source in ASKED:
            covers: Callable[[Job], bool] = lambda j: j.source in ASKED  # noqa: E731
        else:
            covers = lambda j: j.source not in USER_SOURCES  # noqa: E731
        same = [
            j
            for j in pending
            if (j.kind, j.paths, j.recursive, j.force, j.collection)
            == (job.kind, job.paths, job.recursive, job.force, job.collection)
            and covers(j)
        ]
        if same:
            return same[0]
        tail = pending[-1] if pending else None
        if (
            job.kind is JobKind.REMOVE
            and tail is not None
            and tail.kind is JobKind.REMOVE
            and tail.source == job.source
        ):
            # One job for a run of deletions (a folder's files moved to the Trash one
            # event each): thousands of jobs made every submit scan thousands (review).
            tail.paths.append(job.paths[0])  # (twice is harmless: the second finds none)
            return tail
        if job.kind is JobKind.INDEX:
            # A path queued for another collection is not a duplicate: it joins that one
            # too; nor is one queued to do less (a Re-index, or sub-folders as well, after
            # a plain index of the same path).
            queued = {
                p
                for j in pending
                if j.kind is JobKind.INDEX
                and j.collection == job.collection
                and (j.force or not job.force)
                and (j.recursive or not job.recursive)
                and covers(j)
                for p in j.paths
            }
            job.paths = [p for p in dict.fromkeys(job.paths) if p not in queued]
            if not job.paths:
                return None
            if (
                tail is not None
                and tail.kind is JobKind.INDEX
                and (tail.source, tail.recursive, tail.force, tail.collection)
                == (job.source, job.recursive, job.force, job.collection)
            ):
                tail.paths.extend(job.paths)  # one run: the indexer extracts ahead
                return tail
        return job

    def _settle_removal(self, job: Job, paths: Sequence[str], pending: list[Job]) -> None:
        """The files (or folders) are gone from ``paths``, or forgotten: pending indexing
        of them is moot, and a running one stops (a sweep too, for a forgotten folder).
        All paths at once, each pending path looked up by its folders: a pass per removed
        path made removing 3,000 of 6,000 queued files take 3.5 s (review 82)."""
        gone = folder_set(paths)
        self._drop_pending_index(gone)
        if job.kind is not JobKind.MOVE:
            self._cancel_running_index(gone, sweep=job.kind is JobKind.DROP)
        if job.kind is JobKind.DROP:  # forgetting the folder: no point sweeping it
            for j in pending:
                if j.kind is JobKind.SWEEP and inside_any(j.paths[0], gone):
                    j.cancel.set()
        if job.kind is not JobKind.MOVE:
            # moved here, then deleted (a watcher's REMOVE too: a rename then a delete
            # while the queue was busy left the source's document behind; review): drop
            # the source instead
            for j in pending:
                if j.kind is JobKind.MOVE and inside_any(j.paths[1], gone):
                    j.kind, j.paths = JobKind.REMOVE, [j.paths[0]]

    def _drop_pending_index(self, gone: frozenset[str]) -> None:
        # An emptied job stays queued and runs as a no-op: every job submitted ends with
        # JobFinished or JobFailed, so whoever waits for it is told.
        for j in self._pending:
            if j.kind is JobKind.INDEX:
                dropped = [p for p in j.paths if inside_any(p, gone)]
                if not dropped:
                    continue
                if j.source == "watch":
                    self._dropped_files.append((j, dropped))
                out = set(dropped)
                j.paths = [p for p in j.paths if p not in out]

    def _cancel_running_index(self, gone: frozenset[str], *, sweep: bool = False) -> None:
        """Cancel the running index job (``sweep``: or sweep) if all it reads is under
        ``gone`` (``folder_set``)."""
        run = self._running
        kinds = (JobKind.INDEX, JobKind.SWEEP) if sweep else (JobKind.INDEX,)
        if (
            run not in (None, self._ending)
            and run.kind in kinds
            and all(inside_any(p, gone) for p in run.paths)
        ):
            run.cancel.set()

    def stop_sweeps(self, folder: str) -> None:
        """The folder is no longer watched: its sweeps, queued or running, stop (what they
        indexed stays). Unwatching a big folder by mistake indexed it all the same."""
        with self._cond:
            for j in self._pending:
                if j.kind is JobKind.SWEEP and inside(j.paths[0], folder):
                    j.cancel.set()
            run = self._running
            if run is not None and run.kind is JobKind.SWEEP and inside(run.paths[0], folder):
                run.cancel.set()
            self._cond.notify_all()

    def discard(self, path: str) -> None:
        """Forget pending indexing of ``path`` (a file or a folder)."""
        with self._cond:
            self._drop_pending_index(folder_set([path]))
            self._cond.notify_all()
        self._tell_queued()  # a watched file taken out: said removed now

    # State -----------------------------------------------------------------

    def pending(self) -> list[Job]:
        with self._cond:
            return list(self._pending)

    def is_idle(self) -> bool:
        with self._cond:
            return not self._pending and self._running is None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job is pending or running; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and self._running is None, timeout)

    def cancel(self) -> None:
        """A user's Cancel of indexing: stop the running indexing job (what finished is
        kept) and the pending ones users asked for (each still ends with a cancelled
        JobFinished, its files listed for Resume). Removals go on: the user confirmed
        them, and Cancel undid a document's or a collection's removal (review)."""
        with self._cond:
            for j in self._pending:
                if j.source in USER_SOURCES and j.kind in INDEXING_KINDS:
                    j.cancel.set()
            if self._running not in (None, self._ending) and self._running.kind in INDEXING_KINDS:
                self._running.cancel.set()
            self._cond.notify_all()

    def stop(self, timeout: float = 30.0) -> bool:
        """Drop pending jobs, cancel the running one and end the thread; False when it
        is still running after ``timeout`` (a step that checks no cancel meanwhile)."""
        with self._cond:
            self._stopping = True
            for j in self._pending:  # the thread lists what users asked for (_loop)
                j.cancel.set()
            if self._running not in (None, self._ending):
                self._running.cancel.set()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("the indexing queue did not stop within %.0f s", timeout)
                return False
        return True

    # The worker ------------------------------------------------------------

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="docent-index-queue", daemon=True
            )
            self._thread.start()

    def _loop(self) -> None:
        def work() -> bool:
            return bool(self._pending) or self._stopping

        while True:
            with self._cond:
                busy = self._cond.wait_for(work, self.reader_idle_seconds)
            if not busy:
                # idle: the extraction worker's memory goes back (QA-79: ~1 GB kept after
                # OCR, for good); the next job starts a new one. Outside the lock: a
                # submit from the window never waits for the worker to stop.
                self.indexer.close()
            with self._cond:
                self._cond.wait_for(work)
                if self._stopping:
                    left, self._pending = list(self._pending), deque()
                    self._running = None
                    self._cond.notify_all()
                    break
                job = self._running = self._pending.popleft()
            # Listeners hear the end before the queue counts as idle, so whoever waits
            # in wait_idle() sees every event of the jobs it waited for.
            end = self._run(job)
            with self._cond:
                # ended: a stop or Cancel now (the command line closing the library as
                # soon as it hears the end) must not set its cancel, which the command
                # shares: `docent index` said "Cancelled" of a run that had finished
                # (QA, session 31: a test's setup, now and then on a busy machine)
                self._ending = job
            self._emit(end)
            with self._cond:
                self._running = self._ending = None
                self._cond.notify_all()
        for job in left:  # Docent is closing: what users asked for waits for Resume
            self._keep_listed(job)

    def _run(self, job: Job) -> JobFinished | JobFailed:
        started = time.perf_counter()
        report = IndexReport()
        self._tell_queued()  # told before this job says anything of its own
        if job.cancel.is_set():  # cancelled while it waited
            self._keep_listed(job)
            report.cancelled = True
            return JobFinished(job, report)
        self._emit(JobStarted(job))
        try:
            RUNNERS[job.kind](self, job, report)
        except Exception as exc:  # noqa: BLE001 - one bad job never stops the queue
            more = f" (all paths: {job.paths})" if len(job.paths) > 1 else ""
            if isinstance(exc, DocentError):  # said in its sentence: no traceback
                log.warning("could not %s%s: %s", job.describe(), more, exc)
            else:  # a bug in Docent: its traceback is what fixes it
                log.exception("could not %s%s", job.describe(), more)
            return JobFailed(job, report, f"Could not {job.describe()}: {exc}", exc)
        with self._cond:
            # ended: from here a stop or Cancel leaves it be (see _loop), so what the
            # report says of its cancel stays true
            report.cancelled = report.cancelled or job.cancel.is_set()
            self._ending = job
        report.seconds = time.perf_counter() - started
        return JobFinished(job, report)

    def _keep_listed(self, job: Job) -> None:
        """A user's indexing job cancelled before it ran: its files listed, cancelled."""
        if job.kind is not JobKind.INDEX or job.source not in ASKED:
            return
        try:
            found = filemod.collect(list(job.paths), job.recursive, self.data_path)
            self.indexer.note_cancelled(found.files, job.collection)
        except Exception:  # noqa: BLE001 - closing goes on; the files are added again later
            log.exception("could not list the files of a cancelled job")

    def _emit(self, event: IndexEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # noqa: BLE001 - a listener's bug must not stop indexing
                log.exception("index event listener failed")

    # What runners call (on the queue's thread) -----------------------------

    def progressed(self, job: Job, p: Progress) -> None:
        """One document moved on; at a final phase, its record goes with it."""
        if p.phase not in FINAL_PHASES:
            self._emit(DocumentProgressed(job, p))
            return
        record = p.record
        if record is None and p.doc_id and p.phase != "removed":
            record = self.catalog.get(p.doc_id)
        self._emit(DocumentChanged(job, p, record))

    def _tell_queued(self) -> None:
        """Tell listeners of the watched files queued behind the running job (and of those
        a removal took out of such a job, never indexed: removed): at once, on
        the thread that queued them (told at the running job's next event, they waited
        out a long extraction unlisted: QA, session 30). The queue's thread calls this
        before each job starts, so a job that will index them starts only once they are
        told: told after it, a file could go back to "queued" after it was ready."""
        with self._telling:
            with self._cond:
                told, self._queued_files = self._queued_files, []
                # only those still in their job: a removal since may have taken one out
                # (a file deleted before its turn would stay listed "queued"; review s30)
                told = [(job, _still_in(job, files)) for job, files in told]
                dropped, self._dropped_files = self._dropped_files, []
                # nor a file queued again since it was taken out: it is not gone (review)
                queued = {p for j in self._pending if j.kind is JobKind.INDEX for p in j.paths}
                dropped = [(job, [f for f in files if f not in queued]) for job, files in dropped]
            # what was taken out first: a file queued again after is told after it
            for job, files in dropped:
                # never indexed, so no removal will name them: said here, not at the
                # turn of the job they were taken out of (minutes behind a big file)
                known = self.catalog.by_paths(files) if files else {}
                for path in files:
                    if path not in known:
                        self._emit(DocumentChanged(job, Progress("removed", 1, 1, path), None))
            for job, files in told:
                if files:
                    self._emit(FilesFound(job, files, [], []))

    def found(self, job: Job, found: filemod.Collected) -> None:
        self._emit(
            FilesFound(
                job,
                [str(f) for f in found.files],
                [str(f) for f in found.unsupported],
                [str(f) for f in found.missing],
                [s.message for s in found.skipped if s.reason != "unsupported"],
            )
        )

    def index_files(
        self, paths: list[str], job: Job, report: IndexReport, collection: str | None = None
    ) -> None:
        """``collection``: the id the files join (None: the job's)."""
        # A path that vanished since it was queued is not a failure: its `deleted` event
        # (or the next sweep) removes it. Only files present now are indexed.
        present = [Path(p) for p in paths if os.path.isfile(p)]
        if job.source not in ASKED and (out := self.catalog.left_out()):
            # What the user removed from a watched folder stays out of its sweeps and
            # events; a file in the library there (added again, or moved in) is kept up.
            known = self.catalog.by_paths([str(p) for p in present])
            present = [
                p for p in present if str(p) in known or not any(inside(str(p), o) for o in out)
            ]
        into = job.collection if collection is None else collection
        if present:
            report.merge(
                self.indexer.index_files(
                    present,
                    lambda p: self.progressed(job, p),
                    job.cancel,
                    into,
                    job.force,
                    retry_costly=job.source not in WATCHER,
                )
            )

    def remove_record(self, rec: DocumentRecord, job: Job, report: IndexReport) -> None:
        self.indexer.remove(rec)
        report.removed.append(rec.path)
        self.progressed(job, Progress("removed", 1, 1, rec.path, rec.doc_id))

    def remove_gone(self, rec: DocumentRecord, job: Job, report: IndexReport) -> None:
        if not os.path.isfile(rec.path):  # a folder of the same name is no document
            self.remove_record(rec, job, report)

    def unreadable_folder(self, folder: Path) -> FailedFile:
        return FailedFile(
            str(folder),
            "unreadable",
            f"The folder {folder} cannot be read; its files are skipped. Check its permissions.",
        )


def _still_in(job: Job, files: list[str]) -> list[str]:
    """``files`` that ``job`` still holds."""
    held = set(job.paths)
    return [f for f in files if f in held]
