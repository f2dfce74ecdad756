"""Regression (c27aa6f, MainWindow._on_answer_finished): the collection selected while an
answer streamed is now given to the chat as soon as the answer finishes. set_collection
switches the chat to that collection's own conversation and redraws it, so the answer the
user has just watched being written disappears from the chat the moment it is complete
(it stays filed under the conversation it was asked in), and the Sources shown beside it
are those of a turn no longer on screen. Before the commit the finished answer stayed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def test_the_answer_just_finished_stays_on_screen_when_the_collection_changed_meanwhile(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    work = fake.create_collection("Work").id
    (tmp_path / "budget.pdf").write_text("The budget.\n")
    fake.add_document(str(tmp_path / "budget.pdf"), collection=work)
    fake.settings.data_path.mkdir(parents=True, exist_ok=True)
    ini = QSettings(str(fake.settings.data_path / "gui.ini"), QSettings.Format.IniFormat)
    ini.setValue("collection/current", work)
    ini.sync()
    gate = threading.Event()
    read = fake.collections

    def slow_collections() -> Any:
        gate.wait(120)  # held until the question is asked (a busy machine: long)
        return read()

    fake.collections = slow_collections  # type: ignore[method-assign]
    window = make_window(fake)
    chat, bar = window.chat, window.library.collection_bar
    with qtbot.waitSignal(window.health_changed, timeout=30_000):
        pass
    fake.answers = [answer("The travel budget is 4200 euros.")]
    fake.hold_answer.set()
    try:
        assert bar.current_id != work  # the collections are not read yet
        chat.ask("What is the travel budget?")
        assert fake.answer_paused.wait(10)
        gate.set()
        qtbot.waitUntil(lambda: bar.current_id == work, timeout=30_000)
        # ... and the chat has been told, while the answer streams
        qtbot.waitUntil(
            lambda: chat.scope_label.text() == "The next question asks: collection Work",
            timeout=30_000,
        )
        with qtbot.waitSignal(chat.answer_finished, timeout=30_000):
            fake.release_answer.set()
    finally:
        gate.set()
        fake.release_answer.set()
    fake.hold_answer.clear()
    QApplication.processEvents()  # what the answer's end posted
    shown = chat.view.toPlainText()
    assert "What is the travel budget?" in shown, shown
    assert "4200 euros" in shown, shown
