"""The one worker pattern: a QRunnable on the global QThreadPool that reports by signals.

``run_in_worker(job, on_result=..., on_progress=...)`` runs ``job(report, cancel)`` on a
pool thread. ``report(value)`` emits ``progress`` (queued to the GUI thread); ``cancel`` is
a ``threading.Event`` the job passes to the core call. Every exception becomes ``error``;
``finished`` always comes last. Workers never touch widgets: they only emit signals, and
Qt delivers those to slots on the GUI thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)

T = TypeVar("T")
Report = Callable[[object], None]
Job = Callable[[Report, threading.Event], T]

#: Workers mostly wait (on Ollama, on the indexer's lock, on the store's lock), so the pool
#: needs more threads than the machine has cores, or a long indexing run would starve a
#: question.
MIN_POOL_THREADS = 8

# Workers alive right now: PySide would otherwise collect a running worker's signals object.
_active: set[Worker[Any]] = set()


class WorkerSignals(QObject):
    #: the job began on a pool thread
    started = Signal()
    #: a value the job reported (its own progress type)
    progress = Signal(object)
    #: the job's return value (not emitted when it raised or was cancelled)
    result = Signal(object)
    #: the exception the job raised
    error = Signal(object)
    #: always last, after result or error
    finished = Signal()


class Worker(QRunnable, Generic[T]):
    """Runs ``job(report, cancel)`` once on a pool thread."""

    def __init__(self, job: Job[T], name: str = "") -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python owns it; _active keeps it alive while it runs
        self.job = job
        self.name = name or getattr(job, "__name__", "worker")
        self.signals = WorkerSignals()
        self.cancel_event = threading.Event()
        self.done = False

    def cancel(self) -> None:
        """Ask the job to stop; the core call notices the Event at its next check."""
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def _report(self, value: object) -> None:
        self.signals.progress.emit(value)

    def run(self) -> None:
        self.signals.started.emit()
        try:
            value = self.job(self._report, self.cancel_event)
        except Exception as exc:  # every failure reaches the GUI as a signal
            log.info("worker %s failed: %s", self.name, exc, exc_info=True)
            self.signals.error.emit(exc)
        else:
            self.signals.result.emit(value)
        finally:
            self.signals.finished.emit()


def pool() -> QThreadPool:
    p = QThreadPool.globalInstance()
    if p.maxThreadCount() < MIN_POOL_THREADS:
        p.setMaxThreadCount(MIN_POOL_THREADS)
    return p


def run_in_worker(
    job: Job[T],
    *,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[Exception], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    name: str = "",
) -> Worker[T]:
    """Start ``job`` on the pool and connect the callbacks (called on the GUI thread)."""
    worker: Worker[T] = Worker(job, name)
    sig = worker.signals
    if on_progress is not None:
        sig.progress.connect(on_progress)
    if on_result is not None:
        sig.result.connect(on_result)
    if on_error is not None:
        sig.error.connect(on_error)
    if on_finished is not None:
        sig.finished.connect(on_finished)
    sig.finished.connect(lambda: _retire(worker))
    _active.add(worker)
    pool().start(worker)
    return worker


def _retire(worker: Worker[Any]) -> None:
    worker.done = True
    _active.discard(worker)


def active_workers() -> int:
    return len(_active)


def cancel_all() -> None:
    """Ask every running worker to stop (on quit)."""
    for worker in list(_active):
        worker.cancel()


def wait_for_all(msecs: int = 5000) -> bool:
    """Block until the pool is idle (used on quit, after cancel_all)."""
    return bool(QThreadPool.globalInstance().waitForDone(msecs))
