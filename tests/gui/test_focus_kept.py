"""Ask and Stop hand the focus on: hidden while it had the focus, the button pressed threw
it to the Sources list, where it stayed after the answer, and a keyboard user had to find
the question box again (review)."""

from __future__ import annotations

from typing import Any

from fakes import answer
from gui_helpers import started
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def test_ask_hands_the_focus_to_stop_and_the_answer_to_the_question_box(
    qtbot: Any, fake: Any, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    chat = window.chat
    fake.hold_answer.set()
    fake.answers = [answer("One two three."), answer("Four five six.")]
    chat.focus_question()
    QTest.keyClicks(chat.input, "What is it?")
    QTest.keyClick(chat.input, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is chat.send_button
    with qtbot.waitSignal(chat.answer_started):
        QTest.keyClick(chat.send_button, Qt.Key.Key_Space)
    assert QApplication.focusWidget() is chat.stop_button  # the same key stops
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert QApplication.focusWidget() is chat.input  # ready for the next question

    fake.release_answer.clear()
    QTest.keyClicks(chat.input, "And then?")
    with qtbot.waitSignal(chat.answer_started):
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(fake.answer_paused.is_set, timeout=10_000)
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
    assert QApplication.focusWidget() is chat.input
    window.close()
