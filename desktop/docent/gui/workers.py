"""The one worker pattern: a QRunnable on the global QThreadPool that reports by signals.

``run_in_worker(job, on_result=...)`` runs ``job(task)`` on a pool thread and calls
``on_result(value)`` on the GUI thread with the job's return value, typed: a
``Worker[P, R]`` carries the job's progress type ``P`` and result type ``R`` through (like
superqt's ``FunctionWorker[_R]``). ``task.report(p)`` sends progress; ``task.cancel`` is a
``threading.Event`` the job hands to the core call.

Errors go to one place, ``_on_errored``: a ``Cancelled`` is the user's own doing and is
not reported; anything else goes to the message bridge as "<error text>: <what it says>",
unless the caller passes ``on_error`` to show it in place (a dialog's own label). Workers
never touch widgets: they only emit signals, which Qt delivers on the GUI thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from docent.core.errors import Cancelled, SettingsError
from docent.gui.messages import bridge

log = logging.getLogger(__name__)

P = TypeVar("P")
R = TypeVar("R")

#: Workers mostly wait (on Ollama, on the store's lock, on the catalog), so the pool needs
#: more threads than the machine has cores, or a slow answer would starve a refresh.
MIN_POOL_THREADS = 8

# Workers alive right now: PySide would otherwise collect a running worker's signals object.
_active: set[Worker[Any, Any]] = set()


class WorkerSignals(QObject):
    #: the job began on a pool thread
    started = Signal()
    #: a value the job reported (its progress type P)
    progressed = Signal(object)
    #: the job's return value (type R; not emitted when it raised)
    returned = Signal(object)
    #: the exception the job raised
    errored = Signal(object)
    #: always last, after returned or errored
    finished = Signal()


class Task(Generic[P]):
    """What a job gets: a way to report progress and the cancel flag to honour."""

    def __init__(self, signals: WorkerSignals, cancel: threading.Event) -> None:
        self._signals = signals
        self.cancel = cancel

    def report(self, value: P) -> None:
        _emit(self._signals, "progressed", value)

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()


class Worker(QRunnable, Generic[P, R]):
    """Runs ``job(task)`` once on a pool thread."""

    def __init__(self, job: Callable[[Task[P]], R], name: str) -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python owns it; _active keeps it alive while it runs
        self.job = job
        self.name = name
        self.signals = WorkerSignals()
        self.cancel_event = threading.Event()
        self.done = False

    def cancel(self) -> None:
        """Ask the job to stop; the core call notices the Event at its next check."""
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def run(self) -> None:
        _emit(self.signals, "started")
        try:
            value = self.job(Task(self.signals, self.cancel_event))
        except Cancelled as exc:  # the user's own doing: not a failure, no traceback
            log.info("worker %s stopped: %s", self.name, exc)
            _emit(self.signals, "errored", exc)
        except Exception as exc:  # every failure reaches the GUI as a signal
            # a bad setting says what is wrong to the person: no traceback in the log (QA,
            # session 26); other errors may wrap a bug's exception, whose traceback is kept
            expected = isinstance(exc, SettingsError)
            log.info("worker %s failed: %s", self.name, exc, exc_info=not expected)
            _emit(self.signals, "errored", exc)
        else:
            _emit(self.signals, "returned", value)
        finally:
            _emit(self.signals, "finished")


def _emit(signals: WorkerSignals, name: str, *args: object) -> None:
    """Emit ``signals.<name>``, unless the app is gone: a job still running when Docent
    quit (past the wait on quit) ends with nobody to tell, and says so in the log only,
    not as a traceback on the terminal ("Signal source has been deleted")."""
    if not shiboken6.isValid(signals):
        log.info("a worker's %s came after the app closed; dropped", name)
        return
    try:
        getattr(signals, name).emit(*args)
    except RuntimeError as exc:  # deleted between the check and the emit
        log.info("a worker's %s came after the app closed; dropped (%s)", name, exc)


def pool() -> QThreadPool:
    p = QThreadPool.globalInstance()
    if p.maxThreadCount() < MIN_POOL_THREADS:
        p.setMaxThreadCount(MIN_POOL_THREADS)
    return p


def run_in_worker(
    job: Callable[[Task[P]], R],
    *,
    name: str,
    on_result: Callable[[R], None] | None = None,
    on_progress: Callable[[P], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    error_text: str = "",
    on_error: Callable[[Exception], None] | None = None,
    owner: QObject | None = None,
) -> Worker[P, R]:
    """Start ``job`` on the pool; the callbacks run on the GUI thread.

    A failure is posted to the message bridge as ``error_text`` (default: what failed)
    plus the error's sentence, or handed to ``on_error`` when the caller shows it itself.
    ``owner``: the widget the callbacks touch; once it is deleted (a dialog closed while
    the job ran) they are dropped instead of reaching a dead C++ object.
    """
    on_result, on_progress = _while_alive(owner, on_result), _while_alive(owner, on_progress)
    on_finished, on_error = _while_alive(owner, on_finished), _while_alive(owner, on_error)
    worker: Worker[P, R] = Worker(job, name)
    sig = worker.signals
    if on_progress is not None:
        sig.progressed.connect(on_progress)
    if on_result is not None:
        sig.returned.connect(on_result)
    text = error_text or f"Docent could not {name}"
    sig.errored.connect(lambda exc: _on_errored(exc, text, on_error))
    if on_finished is not None:
        sig.finished.connect(on_finished)
    sig.finished.connect(lambda: _retire(worker))
    _active.add(worker)
    pool().start(worker)
    return worker


def call_in_worker(
    fn: Callable[[], R],
    *,
    name: str,
    on_result: Callable[[R], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    error_text: str = "",
    on_error: Callable[[Exception], None] | None = None,
    owner: QObject | None = None,
) -> Worker[None, R]:
    """``run_in_worker`` for a call that reports no progress and cannot be cancelled."""

    def job(task: Task[None]) -> R:
        return fn()

    return run_in_worker(
        job,
        name=name,
        on_result=on_result,
        on_finished=on_finished,
        error_text=error_text,
        on_error=on_error,
        owner=owner,
    )


C = TypeVar("C", bound=Callable[..., None])


def _while_alive(owner: QObject | None, fn: C | None) -> C | None:
    """``fn``, called only while ``owner`` (if any) still exists."""
    if owner is None or fn is None:
        return fn
    call = fn

    def guarded(*args: Any) -> None:
        if shiboken6.isValid(owner):
            call(*args)

    return guarded  # type: ignore[return-value]


def _on_errored(exc: Exception, text: str, on_error: Callable[[Exception], None] | None) -> None:
    """Every worker's failure passes here, on the GUI thread."""
    if on_error is not None:
        on_error(exc)
    elif not isinstance(exc, Cancelled):
        bridge().error(f"{text}: {exc}" if str(exc) else text)


def _retire(worker: Worker[Any, Any]) -> None:
    worker.done = True
    _active.discard(worker)


def cancel_all() -> None:
    """Ask every running worker to stop (on quit)."""
    for worker in list(_active):
        worker.cancel()


def wait_for_all(msecs: int = 5000) -> bool:
    """Block until the pool is idle (used on quit, after cancel_all)."""
    return bool(QThreadPool.globalInstance().waitForDone(msecs))
