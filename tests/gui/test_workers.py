"""The one worker pattern: typed results, progress, cancel, and errors routed to one place."""

from __future__ import annotations

import logging
import threading
from typing import Any

import shiboken6
from PySide6.QtWidgets import QLabel

from docent.core.errors import Cancelled, SettingsError
from docent.gui.messages import Message, bridge
from docent.gui.workers import Task, call_in_worker, run_in_worker


def test_worker_reports_progress_then_its_result_in_order(qtbot: Any, drain: None) -> None:
    def job(task: Task[int]) -> str:
        task.report(1)
        task.report(2)
        return "done"

    progress: list[int] = []
    results: list[str] = []
    worker = run_in_worker(job, name="count", on_progress=progress.append, on_result=results.append)
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)  # set by `finished`, connected first
    assert progress == [1, 2] and results == ["done"]


def test_an_error_goes_to_the_message_bridge_with_its_context(qtbot: Any, drain: None) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()

    def broken() -> int:
        raise ValueError("the file is damaged")

    results: list[int] = []
    worker = call_in_worker(
        broken, name="read", on_result=results.append, error_text="Could not read x.pdf"
    )
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)
    assert results == []
    assert Message("error", "Could not read x.pdf: the file is damaged") in posted


def test_a_cancelled_job_is_not_reported_as_an_error(qtbot: Any, drain: None, caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="docent")
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()

    def job(task: Task[None]) -> int:
        assert task.cancel.wait(10), "never cancelled"
        raise Cancelled("stopped")

    worker = run_in_worker(job, name="wait")
    worker.cancel()
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)
    assert worker.cancelled
    assert not [m for m in posted if m.level == "error"]
    # the log says the user stopped it, once, without a traceback of a "failure"
    mine = [r for r in caplog.records if "worker wait" in r.getMessage()]
    assert [r.getMessage() for r in mine] == ["worker wait stopped: stopped"]
    assert mine[0].exc_info is None


def test_docents_own_errors_are_logged_without_a_traceback(
    qtbot: Any, drain: None, caplog: Any
) -> None:
    """A bad setting wrote two whole tracebacks into docent.log (QA, session 26); a bug
    still writes its own."""
    caplog.set_level(logging.INFO, logger="docent")

    def bad_setting(task: Task[None]) -> int:
        raise SettingsError("Bad settings: setting 'ollama_model': must not be empty")

    def bug(task: Task[None]) -> int:
        raise ZeroDivisionError("division by zero")

    for job, name in ((bad_setting, "save"), (bug, "divide")):
        worker = run_in_worker(job, name=name, on_error=lambda exc: None)
        qtbot.waitUntil(lambda worker=worker: worker.done, timeout=10_000)
    logged = {
        r.getMessage().split(":")[0]: r.exc_info
        for r in caplog.records
        if r.getMessage().startswith("worker ")
    }
    assert not logged["worker save failed"]
    assert logged["worker divide failed"]


def test_on_error_shows_the_error_in_place_instead(qtbot: Any, drain: None) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    shown: list[Exception] = []

    def broken() -> None:
        raise OSError("disk full")

    worker = call_in_worker(broken, name="save", on_error=shown.append)
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)
    assert [str(e) for e in shown] == ["disk full"]
    assert not [m for m in posted if "disk full" in m.text]


def test_callbacks_are_dropped_once_their_owner_is_deleted(qtbot: Any, drain: None) -> None:
    # A dialog closed while its save runs: its callbacks must not reach the dead widget.
    owner = QLabel("settings")
    release = threading.Event()
    touched: list[str] = []

    def job() -> int:
        assert release.wait(10), "never released"
        return 1

    worker = call_in_worker(
        job,
        name="save",
        on_result=lambda _: touched.append(owner.text()),
        on_finished=lambda: owner.setEnabled(True),  # raised RuntimeError before owner=
        owner=owner,
    )
    shiboken6.delete(owner)
    release.set()
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)
    assert touched == []
    kept = QLabel("kept")
    qtbot.addWidget(kept)
    worker = call_in_worker(
        lambda: 2, name="save", on_result=lambda _: touched.append(kept.text()), owner=kept
    )
    qtbot.waitUntil(lambda: worker.done, timeout=10_000)
    assert touched == ["kept"]


def test_a_job_that_ends_after_the_app_closed_is_dropped_quietly(caplog: Any) -> None:
    # quit waits for the pool a while; a job still running past that finds its signals
    # object deleted at exit: its report and its end go to the log, not to the terminal
    from docent.gui.workers import Worker

    def job(task: Task[int]) -> str:
        shiboken6.delete(worker.signals)  # what the app's exit does meanwhile
        task.report(1)
        return "late"

    worker: Worker[int, str] = Worker(job, "late-job")
    with caplog.at_level(logging.INFO, logger="docent.gui.workers"):
        worker.run()  # raised RuntimeError("Signal source has been deleted") before
    dropped = [r.getMessage() for r in caplog.records if "after the app closed" in r.getMessage()]
    assert [m.split("'s ")[1].split(" ")[0] for m in dropped] == [
        "progressed",
        "returned",
        "finished",
    ]
