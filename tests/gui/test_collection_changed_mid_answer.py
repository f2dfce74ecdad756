"""The collection selector can change while an answer is written (it is greyed out for
the user, but the window sets it itself: the collection Docent was closed in, selected
once the collections are read; a collection just made, selected when the engine has made
it). The chat refused the change (``set_collection`` while streaming) and nothing gave it
to the chat afterwards: the library and the status bar showed "Work", while the chat went
on asking every collection, question after question. Switching at the answer's end took
the answer off the screen: the next question asks it, the label says so."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def test_a_collection_selected_while_an_answer_streams_is_the_one_the_next_question_asks(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    work = fake.create_collection("Work").id
    (tmp_path / "budget.pdf").write_text("The budget.\n")
    fake.add_document(str(tmp_path / "budget.pdf"), collection=work)
    # Docent was closed showing Work
    fake.settings.data_path.mkdir(parents=True, exist_ok=True)
    ini = QSettings(str(fake.settings.data_path / "gui.ini"), QSettings.Format.IniFormat)
    ini.setValue("collection/current", work)
    ini.sync()
    # the first read of the collections is slow (a busy start: the model loading, ...)
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
    fake.answers = [answer("The travel budget is 4200 euros."), answer("Second.")]
    fake.hold_answer.set()
    try:
        assert bar.current_id != work  # the collections are not read yet
        chat.ask("What is the travel budget?")  # asked before the collections came
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
    assert bar.current_id == work  # the library and the status bar show Work ...
    # ... and so must the chat: it says the next question asks Work (the answer just
    # written stays on screen), and asks it
    assert chat.scope_label.text() == "The next question asks: collection Work"
    QApplication.processEvents()  # what the answer's end posted
    shown = chat.view.toPlainText()  # switching at the answer's end took it off (review)
    assert "What is the travel budget?" in shown and "4200 euros" in shown, shown
    with qtbot.waitSignal(chat.answer_finished, timeout=30_000):
        chat.ask("And by train?")
    assert fake.asked_collections[-1] == work
    assert chat.collection is not None and chat.collection.id == work, chat.scope_label.text()
