"""Review 85 (GUI): the session's changes. Each test fails on the code as reviewed.
The fake engine of tests/gui/fakes.py (its probe_store and conversation file are the
real store_server.probe and conversation_store), the Qdrant stand-in."""

from __future__ import annotations

import threading
from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait
from PySide6.QtCore import QCoreApplication

from docent.core.config import Settings
from docent.gui.settings_dialog import SettingsDialog


def _drained() -> None:
    """Every worker finished, and the signals they queued delivered."""
    from docent.gui.workers import wait_for_all

    assert wait_for_all(30_000)
    QCoreApplication.processEvents()
    QCoreApplication.processEvents()


# 1. Qdrant Test: an earlier, slower test's verdict overwrites the later one's ---------


def test_a_qdrant_test_of_an_edited_url_is_not_overwritten_by_the_earlier_tests_verdict(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    """The Test button is disabled while it runs, but ``qdrant_edit.textChanged``
    enables it again: a person who tests a wrong URL (unreachable: it waits up to
    qdrant_timeout), corrects it and tests again gets "✓ Qdrant answers at <right>",
    then, when the first test ends, "✗ ... <wrong> cannot be reached" in its place,
    under the corrected URL. (The Ollama Test keeps its button disabled until done.)"""
    from qdrant_standin import closed_port, qdrant_standin

    wrong = f"http://127.0.0.1:{closed_port()}"
    gate, started = threading.Event(), threading.Event()
    real = fake.probe_store

    def probe(settings: Settings) -> Any:
        if settings.qdrant_url == wrong:  # the slow one: a server that does not answer
            started.set()
            gate.wait(30)
        return real(settings)

    fake.probe_store = probe  # type: ignore[method-assign]
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    with qdrant_standin() as server:
        dialog.qdrant_edit.setText(wrong)
        dialog.qdrant_test_button.click()
        qtbot.waitUntil(started.is_set)
        dialog.qdrant_edit.setText(server.url)  # corrected while the first test runs
        if dialog.qdrant_test_button.isEnabled():
            dialog.qdrant_test_button.click()
            qtbot.waitUntil(lambda: dialog.qdrant_test_label.text().startswith("✓"))
        gate.set()
        _drained()
    said = dialog.qdrant_test_label.text()
    assert wrong not in said, f"the field holds {server.url}; the label says: {said}"


# 2. Closing before the kept conversations are read writes them over ------------------


def test_closing_docent_before_its_kept_conversations_are_read_does_not_lose_them(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """MainWindow reads conversations/open.json in a worker at start and saves the
    window's conversations on close. Closed before the read's result is in (a quick
    quit after start, or a large file), ``closeEvent`` saves a window with no turns:
    open.json becomes ``{"conversations": []}`` and the conversation kept last time is
    gone (the one read lands in a closed window). The same holds when the read fails:
    the first answer's save writes over the file."""
    fake.answers = [answer("Ingrid owns the beta [1].", [citation(1, "/d/plan.md", 1)])]
    first = make_window(fake)
    ask_and_wait(qtbot, first.chat, "Who is the beta owner?")
    first.close()
    _drained()

    second_engine = FakeEngine(fake.settings)  # a new run of Docent
    gate, started = threading.Event(), threading.Event()
    real = second_engine.saved_conversations

    def slow_read() -> Any:
        started.set()
        gate.wait(30)
        return real()

    second_engine.saved_conversations = slow_read  # type: ignore[method-assign]
    try:
        second = make_window(second_engine)
        qtbot.waitUntil(started.is_set)
        second.close()  # before the read's result is in
        gate.set()
        _drained()
    finally:
        gate.set()
        second_engine.release_jobs.set()
        second_engine.release_answer.set()
        second_engine.release_health.set()
        second_engine.wait_jobs()

    third = FakeEngine(fake.settings)  # the run after
    kept = [t.question for c in third.saved_conversations() for t in c.turns]
    assert kept == ["Who is the beta owner?"], kept
