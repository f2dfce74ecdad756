"""The indexer's single queue: one daemon thread runs indexing jobs in order.

Watched folders, the GUI and headless ``docent watch`` only *enqueue* jobs (index these
files / remove this path / move old -> new / sweep this folder); the queue's thread runs
them one at a time through the Indexer. Pending jobs for the same path are coalesced, so a
burst of events costs one run. Listeners get the indexer's ``Progress`` and one
``JobResult`` per finished job (on the queue's thread: a GUI turns them into signals).

Jobs are decided when they *run*, not when they are queued: a file that vanished, came
back or moved again meanwhile is handled as it is on disk at that moment.
"""

from __future__ import annotations

import enum
import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from docent.core import files as filemod
from docent.core.catalog import Catalog
from docent.core.indexer import FailedFile, Indexer, IndexReport, Progress, ProgressCallback
from docent.core.models import DocState, DocumentRecord

log = logging.getLogger(__name__)


class JobKind(enum.StrEnum):
    INDEX = "index"  # paths: the files
    REMOVE = "remove"  # paths: [file or folder]; drops documents whose file is gone
    MOVE = "move"  # paths: [old, new] (a file or a folder)
    SWEEP = "sweep"  # paths: [folder]; index what changed, drop what is gone
    DROP = "drop"  # paths: [folder]; drop every document under it (unwatch and forget)


@dataclass(slots=True)
class Job:
    kind: JobKind
    paths: list[str]
    #: Who asked: "watch" | "sweep" | "user"; for logs and UIs.
    source: str = "user"
    id: int = 0
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)


@dataclass(slots=True)
class JobResult:
    job: Job
    report: IndexReport
    #: A sentence when the job itself failed (not a file in it: those are in report.failed).
    error: str = ""

    def events(self) -> list[dict[str, str]]:
        """What changed, one entry per file: event (indexed / renamed / removed / failed /
        error), path, and ``from`` (renames) or ``message`` (failures). Unchanged files
        are left out: a sweep of an unchanged folder says nothing."""
        r = self.report
        out = [{"event": "indexed", "path": p} for p in r.indexed]
        out += [{"event": "renamed", "path": new, "from": old} for old, new in r.renamed]
        out += [{"event": "removed", "path": p} for p in r.removed]
        out += [{"event": "failed", "path": f.path, "message": f.message} for f in r.failed]
        if self.error:
            out.append({"event": "error", "path": self.job.paths[0], "message": self.error})
        return out


ResultCallback = Callable[[JobResult], None]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/\\") + os.sep)


class IndexQueue:
    """A FIFO of jobs drained by one daemon thread (started on the first submit)."""

    def __init__(self, indexer: Indexer, catalog: Catalog) -> None:
        self.indexer = indexer
        self.catalog = catalog
        self._pending: deque[Job] = deque()
        self._running: Job | None = None
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._progress: list[ProgressCallback] = []
        self._results: list[ResultCallback] = []

    # Listeners -------------------------------------------------------------

    def add_progress_listener(self, cb: ProgressCallback) -> None:
        self._progress.append(cb)

    def remove_progress_listener(self, cb: ProgressCallback) -> None:
        if cb in self._progress:
            self._progress.remove(cb)

    def add_result_listener(self, cb: ResultCallback) -> None:
        """``cb(result)`` after each job, on the queue's thread (never wait on the queue
        from it). Results are delivered before ``wait_idle`` returns."""
        self._results.append(cb)

    def remove_result_listener(self, cb: ResultCallback) -> None:
        if cb in self._results:
            self._results.remove(cb)

    # Submitting ------------------------------------------------------------

    def index(self, paths: list[str], source: str = "user") -> Job | None:
        return self.submit(Job(JobKind.INDEX, list(paths), source))

    def remove(self, path: str, source: str = "user") -> Job | None:
        return self.submit(Job(JobKind.REMOVE, [path], source))

    def move(self, old: str, new: str, source: str = "watch") -> Job | None:
        return self.submit(Job(JobKind.MOVE, [old, new], source))

    def sweep(self, folder: str, source: str = "sweep") -> Job | None:
        return self.submit(Job(JobKind.SWEEP, [folder], source))

    def drop(self, folder: str, source: str = "user") -> Job | None:
        return self.submit(Job(JobKind.DROP, [folder], source))

    def submit(self, job: Job) -> Job | None:
        """Queue ``job``; returns the job that will do the work (maybe an earlier one),
        or None when nothing is left to do after coalescing or the queue is stopping."""
        with self._cond:
            if self._stopping:
                return None
            queued = self._coalesce(job)
            if queued is job:
                job.id = next(self._ids)
                self._pending.append(job)
            self._cond.notify_all()
            self._ensure_thread()
            return queued

    def _coalesce(self, job: Job) -> Job | None:
        pending = self._pending
        same = [j for j in pending if j.kind is job.kind and j.paths == job.paths]
        if same:
            return same[0]
        if job.kind is JobKind.INDEX:
            queued = {p for j in pending if j.kind is JobKind.INDEX for p in j.paths}
            job.paths = [p for p in dict.fromkeys(job.paths) if p not in queued]
            if not job.paths:
                return None
            tail = pending[-1] if pending else None
            if tail is not None and tail.kind is JobKind.INDEX and tail.source == job.source:
                tail.paths.extend(job.paths)  # one run: the indexer extracts ahead
                return tail
        elif job.kind in (JobKind.REMOVE, JobKind.MOVE, JobKind.DROP):
            # The file is gone from this path: pending indexing of it is moot.
            self._drop_pending_index(job.paths[0])
            if job.kind is not JobKind.MOVE:
                self._cancel_running_index(job.paths[0])
            if job.kind is JobKind.DROP:  # forgetting the folder: no point sweeping it
                for j in list(pending):
                    if j.kind is JobKind.SWEEP and _inside(j.paths[0], job.paths[0]):
                        pending.remove(j)
                for j in self._pending:  # moved here, then deleted: drop the source instead
                    if j.kind is JobKind.MOVE and _inside(j.paths[1], job.paths[0]):
                        j.kind, j.paths = JobKind.REMOVE, [j.paths[0]]
        return job

    def _drop_pending_index(self, path: str) -> None:
        for j in list(self._pending):
            if j.kind is JobKind.INDEX:
                j.paths = [p for p in j.paths if not _inside(p, path)]
                if not j.paths:
                    self._pending.remove(j)

    def _cancel_running_index(self, path: str) -> None:
        run = self._running
        if (
            run is not None
            and run.kind is JobKind.INDEX
            and all(_inside(p, path) for p in run.paths)
        ):
            run.cancel.set()

    def discard(self, path: str) -> None:
        """Forget pending indexing of ``path`` (a file or a folder)."""
        with self._cond:
            self._drop_pending_index(path)
            self._cond.notify_all()

    # State -----------------------------------------------------------------

    def pending(self) -> list[Job]:
        with self._cond:
            return list(self._pending)

    @property
    def running(self) -> Job | None:
        return self._running

    def is_idle(self) -> bool:
        with self._cond:
            return not self._pending and self._running is None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job is pending or running; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and self._running is None, timeout)

    def cancel(self) -> None:
        """Cancel the running job (what finished is kept)."""
        with self._cond:
            if self._running is not None:
                self._running.cancel.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Drop pending jobs, cancel the running one and end the thread."""
        with self._cond:
            self._stopping = True
            self._pending.clear()
            if self._running is not None:
                self._running.cancel.set()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("the indexing queue did not stop within %.0f s", timeout)

    # The worker ------------------------------------------------------------

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="docent-index-queue", daemon=True
            )
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._stopping)
                if self._stopping:
                    self._running = None
                    self._cond.notify_all()
                    return
                job = self._running = self._pending.popleft()
            # Listeners hear the result before the queue counts as idle, so whoever
            # waits in wait_idle() sees every result of the jobs it waited for.
            self._emit_result(self._run(job))
            with self._cond:
                self._running = None
                self._cond.notify_all()

    def _run(self, job: Job) -> JobResult:
        started = time.perf_counter()
        report = IndexReport()
        try:
            runner = _RUNNERS[job.kind]
            runner(self, job, report)
        except Exception as exc:  # noqa: BLE001 - one bad job never stops the queue
            log.exception("%s job failed: %s", job.kind.value, job.paths)
            return JobResult(job, report, f"Could not {job.kind.value} {job.paths[0]}: {exc}")
        report.cancelled = report.cancelled or job.cancel.is_set()
        report.seconds = time.perf_counter() - started
        return JobResult(job, report)

    def _emit_progress(self, p: Progress) -> None:
        for cb in list(self._progress):
            try:
                cb(p)
            except Exception:  # noqa: BLE001 - a listener's bug must not stop indexing
                log.exception("progress listener failed")

    def _emit_result(self, result: JobResult) -> None:
        for cb in list(self._results):
            try:
                cb(result)
            except Exception:  # noqa: BLE001
                log.exception("result listener failed")

    # Runners (on the queue's thread) ---------------------------------------

    def _index_files(self, paths: list[str], job: Job, report: IndexReport) -> None:
        # A path that vanished since it was queued is not a failure: its `deleted` event
        # (or the next sweep) removes it. Only files present now are indexed.
        present = [Path(p) for p in paths if os.path.isfile(p)]
        if present:
            report.merge(self.indexer.index_files(present, self._emit_progress, job.cancel))

    def _remove_gone(self, rec: DocumentRecord, report: IndexReport) -> None:
        if not os.path.exists(rec.path):
            self.indexer.remove(rec)
            report.removed.append(rec.path)
            self._emit_progress(Progress("removed", 1, 1, rec.path, rec.doc_id))

    def _run_index(self, job: Job, report: IndexReport) -> None:
        self._index_files(job.paths, job, report)

    def _run_remove(self, job: Job, report: IndexReport) -> None:
        path = job.paths[0]
        rec = self.catalog.by_path(path)
        for r in [rec] if rec else self.catalog.under(path):
            self._remove_gone(r, report)

    def _run_move(self, job: Job, report: IndexReport) -> None:
        old, new = job.paths
        if not os.path.exists(new):
            return  # moved again or deleted: a later event or sweep settles it
        rec = self.catalog.by_path(old)
        if rec is not None:
            self._move_one(rec, new, job, report)
            return
        moved = self.catalog.under(old)
        if not moved:  # never indexed (new, or still being written when it moved)
            self._index_files([new], job, report)
        for r in moved:  # a folder moved: every document under it follows
            target = new + r.path[len(old) :]
            if os.path.isfile(target):
                self._move_one(r, target, job, report)

    def _move_one(self, rec: DocumentRecord, new: str, job: Job, report: IndexReport) -> None:
        old = rec.path
        if os.path.exists(old):  # copied, not moved
            self._index_files([new], job, report)
            return
        other = self.catalog.by_path(new)
        if other is not None and other.doc_id != rec.doc_id:
            self.indexer.remove(other)  # the move replaced a file that was indexed
        if rec.state is not DocState.READY:
            self.indexer.remove(rec)
            self._index_files([new], job, report)
            return
        st = os.stat(new)
        if (st.st_size, st.st_mtime) == (rec.size, rec.mtime):
            self.indexer.move(rec, new, st)
        else:  # changed before it moved: follow the move, then re-index what changed
            self.indexer.move(rec, new)
            self._index_files([new], job, report)
            if new not in report.unchanged:
                return  # re-indexed (or failed): reported by the indexer
            report.unchanged.remove(new)  # only its mtime changed: still just a rename
        report.renamed.append((old, new))
        self._emit_progress(Progress("renamed", 1, 1, new, rec.doc_id, rec.chunks, rec.chunks))

    def _run_drop(self, job: Job, report: IndexReport) -> None:
        for rec in self.catalog.under(job.paths[0]):
            self.indexer.remove(rec)
            report.removed.append(rec.path)
            self._emit_progress(Progress("removed", 1, 1, rec.path, rec.doc_id))

    def _run_sweep(self, job: Job, report: IndexReport) -> None:
        folder = job.paths[0]
        if not os.path.isdir(folder):
            return  # missing (unplugged?): the watcher pauses it; its documents stay
        found = filemod.collect([folder])
        for bad in found.unreadable:
            report.failed.append(
                FailedFile(
                    str(bad),
                    "unreadable",
                    f"The folder {bad} cannot be read; its files are "
                    "skipped. Check its permissions.",
                )
            )
        self._index_files([str(p) for p in found.files], job, report)
        if job.cancel.is_set():
            return
        # After indexing, so a file that was renamed while Docent was closed is found by
        # its sha256 first (a rename, nothing re-embedded) and only then the old path goes.
        unreadable = [str(u) for u in found.unreadable]
        for rec in self.catalog.under(folder):
            if not any(_inside(rec.path, u) for u in unreadable):
                self._remove_gone(rec, report)


_RUNNERS: dict[JobKind, Callable[[IndexQueue, Job, IndexReport], None]] = {
    JobKind.INDEX: IndexQueue._run_index,
    JobKind.REMOVE: IndexQueue._run_remove,
    JobKind.MOVE: IndexQueue._run_move,
    JobKind.SWEEP: IndexQueue._run_sweep,
    JobKind.DROP: IndexQueue._run_drop,
}
