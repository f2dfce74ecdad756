"""Indexing runs for the GUI: one at a time, queued, cancellable, reported by signals.

The controller owns the only indexing worker. Requests (drops, Add files…, Re-index)
queue up; each run walks the paths (reporting unsupported files), then calls
``Engine.index`` with a progress callback that, on the worker thread, also fetches the
finished document's record, so the GUI thread never reads the catalog.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from docent.core import files as filemod
from docent.core.engine import Engine
from docent.core.errors import AmbiguousFile, UnknownFile
from docent.core.indexer import IndexReport, Progress
from docent.core.models import DocumentRecord
from docent.gui.messages import bridge
from docent.gui.workers import Job, Report, Worker, run_in_worker

#: Progress phases after which a document's catalog record is final for this run.
FINAL_PHASES = frozenset({"ready", "unchanged", "renamed", "failed"})
#: How much of a file's share of the overall bar extraction is worth (embedding is the rest).
EXTRACT_SHARE = 0.1


@dataclass(slots=True)
class Collected:
    """What a run is about to index, and what it skipped."""

    files: list[str]
    unsupported: list[str]
    missing: list[str]


@dataclass(slots=True)
class DocProgress:
    progress: Progress
    record: DocumentRecord | None = None


@dataclass(slots=True)
class Request:
    paths: list[str]
    recursive: bool = True
    #: remove first, so the document is rebuilt even if its file did not change
    force: bool = False
    label: str = ""
    files: list[str] = field(default_factory=list)


def describe_unsupported(paths: list[str]) -> str:
    names = [Path(p).name for p in paths]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"Not added: {shown} — Docent reads PDFs and plain-text files "
        "(text, Markdown, CSV, JSON, source code), not this type."
    )


class QueueBridge(QObject):
    """The engine's indexing queue (watched folders) reported as signals.

    The queue calls its listeners on its own thread; this only emits, and Qt queues the
    signals to the GUI thread. ``detach()`` before the engine closes.
    """

    #: a document moved on in a queued job (DocProgress)
    document_progressed = Signal(object)
    #: a queued job ended (its JobResult)
    job_finished = Signal(object)

    def __init__(self, engine: Engine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self._attached = False
        queue = getattr(engine, "queue", None)
        if queue is not None and hasattr(queue, "add_progress_listener"):
            queue.add_progress_listener(self._on_progress)
            queue.add_result_listener(self._on_result)
            self._attached = True

    def detach(self) -> None:
        if self._attached:
            queue = self.engine.queue
            queue.remove_progress_listener(self._on_progress)
            queue.remove_result_listener(self._on_result)
            self._attached = False

    def _on_progress(self, p: Progress) -> None:  # the queue's thread
        rec = self.engine.document(p.doc_id) if p.phase in FINAL_PHASES and p.doc_id else None
        self.document_progressed.emit(DocProgress(p, rec))

    def _on_result(self, result: object) -> None:  # the queue's thread
        self.job_finished.emit(result)


class IndexController(QObject):
    #: files a run is about to index (Collected)
    collected = Signal(object)
    #: one document moved on (DocProgress)
    document_progressed = Signal(object)
    #: overall progress of the run: fraction 0..1, label
    overall_progressed = Signal(float, str)
    #: a run began (its Request)
    run_started = Signal(object)
    #: a run ended: its IndexReport, or None when it failed
    run_finished = Signal(object)
    #: the catalog's records, after a refresh (list[DocumentRecord])
    documents_changed = Signal(object)

    def __init__(self, engine: Engine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self._queue: deque[Request] = deque()
        self._worker: Worker[IndexReport] | None = None
        self._fractions: dict[str, float] = {}
        self._refresh_pending = False
        self._refresh_again = False
        self.queue_bridge = QueueBridge(engine, self)
        self.queue_bridge.document_progressed.connect(self.document_progressed.emit)
        self.queue_bridge.job_finished.connect(self._on_job_finished)

    @property
    def busy(self) -> bool:
        return self._worker is not None

    @property
    def pending(self) -> int:
        """Requests waiting for the current run to end."""
        return len(self._queue)

    # Requests -----------------------------------------------------------------

    def add(self, paths: list[str], *, recursive: bool = True, force: bool = False) -> None:
        if not paths:
            return
        label = Path(paths[0]).name + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
        self._queue.append(Request(list(paths), recursive, force, label))
        self._next()

    def resume(self) -> None:
        """Index what is queued from an earlier session (crash or cancel)."""
        self._queue.append(Request([], label="documents left queued last time"))
        self._next()

    def cancel(self) -> None:
        self._queue.clear()
        if self._worker is not None:
            self._worker.cancel()

    def remove(self, path: str) -> None:
        engine = self.engine

        def job(report: Report, cancel: threading.Event) -> str:
            return engine.remove(path).file_name

        run_in_worker(
            job,
            name="remove",
            on_result=lambda name: bridge().info(f"Removed {name} from the library."),
            on_error=lambda exc: bridge().error(str(exc)),
            on_finished=self.refresh,
        )

    def refresh(self) -> None:
        """Re-read the catalog (coalesced: one read in flight, one more after it)."""
        if self._refresh_pending:
            self._refresh_again = True  # the read in flight may predate this change
            return
        self._refresh_pending, self._refresh_again = True, False
        engine = self.engine

        def job(report: Report, cancel: threading.Event) -> list[DocumentRecord]:
            return engine.documents()

        def done() -> None:
            self._refresh_pending = False
            if self._refresh_again:
                self.refresh()

        run_in_worker(
            job,
            name="documents",
            on_result=self.documents_changed.emit,
            on_error=lambda exc: bridge().error(f"Could not read the library: {exc}"),
            on_finished=done,
        )

    # Runs ---------------------------------------------------------------------

    def _next(self) -> None:
        if self._worker is not None or not self._queue:
            return
        req = self._queue.popleft()
        self._fractions = {}
        self.run_started.emit(req)
        self._worker = run_in_worker(
            self._job(req),
            name="index",
            on_progress=self._on_progress,
            on_result=self._on_result,
            on_error=self._on_error,
            on_finished=self._on_finished,
        )

    def _job(self, req: Request) -> Job[IndexReport]:
        engine = self.engine

        def job(report: Report, cancel: threading.Event) -> IndexReport:
            def on_progress(p: Progress) -> None:
                rec = engine.document(p.doc_id) if p.phase in FINAL_PHASES and p.doc_id else None
                report(DocProgress(p, rec))

            if not req.paths:
                return engine.resume(on_progress, cancel)
            found = filemod.collect(list(req.paths), req.recursive)
            report(
                Collected(
                    [str(f) for f in found.files],
                    [str(f) for f in found.unsupported],
                    [str(f) for f in found.missing],
                )
            )
            if req.force:
                for f in found.files:
                    with contextlib.suppress(UnknownFile, AmbiguousFile):
                        if engine.resolve(str(f)).path == str(f):  # not a namesake
                            engine.remove(str(f))
            return engine.index(req.paths, req.recursive, progress=on_progress, cancel=cancel)

        return job

    def _on_job_finished(self, result: object) -> None:
        error = str(getattr(result, "error", "") or "")
        if error:
            bridge().warning(error)
        self.refresh()

    def detach(self) -> None:
        """Before the engine closes: stop listening to its queue, stop the run."""
        self.queue_bridge.detach()
        self.cancel()

    def _on_progress(self, item: object) -> None:
        if isinstance(item, Collected):
            if item.unsupported:
                bridge().warning(describe_unsupported(item.unsupported))
            if item.files:
                self._fractions = dict.fromkeys(item.files, 0.0)
                self.overall_progressed.emit(0.0, f"Indexing 0/{len(item.files)}")
            self.collected.emit(item)
        elif isinstance(item, DocProgress):
            self._track(item.progress)
            self.document_progressed.emit(item)

    def _track(self, p: Progress) -> None:
        if p.phase in FINAL_PHASES or p.phase == "removed":
            frac = 1.0
        elif p.phase == "embedding" and p.chunks_total:
            frac = EXTRACT_SHARE + (1 - EXTRACT_SHARE) * p.chunks_done / p.chunks_total
        else:
            frac = EXTRACT_SHARE / 2
        self._fractions[p.path] = max(frac, self._fractions.get(p.path, 0.0))
        total = max(p.file_count, len(self._fractions), 1)
        done = sum(1 for f in self._fractions.values() if f >= 1.0)
        overall = sum(self._fractions.values()) / total
        name = Path(p.path).name
        self.overall_progressed.emit(min(overall, 1.0), f"Indexing {done}/{total}: {name}")

    def _on_result(self, report: IndexReport) -> None:
        if report.cancelled:
            bridge().info("Indexing cancelled; the documents that finished are kept.")
        elif report.failed:
            n = len(report.failed)
            bridge().warning(
                f"{n} file{'s' if n > 1 else ''} could not be indexed; "
                "see the State column for why."
            )
        self.run_finished.emit(report)

    def _on_error(self, exc: Exception) -> None:
        bridge().error(f"Indexing stopped: {exc}")
        self.run_finished.emit(None)

    def _on_finished(self) -> None:
        self._worker = None
        self.refresh()
        # Let the refresh's signals settle before the next run starts reporting.
        QTimer.singleShot(0, self, self._next)
