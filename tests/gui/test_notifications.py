"""Notifications: they never cover the question box and its buttons, their text wraps
whole, warnings time out, errors close, a few at most, the same one counted, and old
errors go once the settings are saved."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeEngine, answer, citation
from gui_helpers import shown_tip, started
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QDialogButtonBox, QWidget

from docent.gui import messages
from docent.gui.messages import MAX_SHOWN, Notification, bridge

#: The tester's message (screenshot 31): its last sentence is the one the user needs.
LONG = (
    "Loading the embedding model failed: Could not load the embedding model '-5': Model -5 "
    "is not supported in TextEmbedding. Please check the supported models using "
    "`TextEmbedding.list_supported_models()`. The bundled model "
    "'sentence-transformers/all-MiniLM-L6-v2' works offline."
)


def rect_in(window: Any, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def shown_notes(window: Any) -> list[Notification]:
    return [n for n in window.notifications.notifications() if n.isVisibleTo(window)]


def assert_clear_of_the_question(window: Any) -> None:
    chat = window.chat
    guarded = [chat.input, chat.send_button, chat.scope_label]
    guarded += [w for w in (chat.answer_bar.retry_button, chat.status) if w.isVisibleTo(window)]
    notes = shown_notes(window)
    assert notes, "no notification shown"
    for note in notes:
        where = rect_in(window, note)
        for w in guarded:
            assert not where.intersects(rect_in(window, w)), (
                f"{note.message.text[:30]!r} covers {w.objectName() or type(w).__name__}"
            )


@pytest.mark.parametrize("size", [(1600, 1000), (1024, 700), (800, 550)])
def test_notifications_never_cover_the_question_box_ask_or_retry(
    qtbot: Any, fake: FakeEngine, make_window: Any, size: tuple[int, int]
) -> None:
    fake.add_document("/docs/a.pdf")
    window = started(qtbot, fake, make_window)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=10_000)
    fake.answers = [answer("Yes [1].", [citation(1, "/docs/a.pdf")])]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("Is it?")
    qtbot.waitUntil(window.chat.answer_bar.retry_button.isVisible, timeout=10_000)
    bridge().warning("Could not resume the queued documents: " + LONG)
    bridge().error(LONG)
    bridge().error("The question could not be answered: " + LONG)
    qtbot.waitUntil(window.notifications.isVisible, timeout=10_000)
    assert_clear_of_the_question(window)
    # each note shown is whole: as tall as its wrapped text needs
    for note in shown_notes(window):
        assert note.height() >= note.heightForWidth(note.width())
        assert window.notifications.rect().contains(note.geometry())
    # the newest is always shown
    assert window.notifications.notifications()[-1] in shown_notes(window)
    window.resize(size[0] + 120, size[1] + 40)  # and again after a resize
    qtbot.waitUntil(lambda: window.width() == size[0] + 120, timeout=10_000)
    assert_clear_of_the_question(window)


def test_a_long_message_wraps_whole(qtbot: Any, fake: FakeEngine, make_window: Any) -> None:
    window = started(qtbot, fake, make_window)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    bridge().error(LONG)
    qtbot.waitUntil(window.notifications.isVisible, timeout=10_000)
    (note,) = window.notifications.notifications()
    label = note.label
    assert label.wordWrap()
    assert label.text() == LONG, "the text was cut"
    assert "works offline." in label.text()
    assert label.height() >= label.heightForWidth(label.width()), "the last line is clipped"
    assert note.close_button.isVisible()


def test_a_very_long_message_keeps_its_start_and_end_and_the_whole_in_the_tip(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    middle = " ".join(f"/docs/file-{i}.pdf" for i in range(80))
    text = f"Not added: {middle}. Docent reads PDFs, Word, PowerPoint, Excel and e-books."
    bridge().warning(text)
    qtbot.waitUntil(window.notifications.isVisible, timeout=10_000)
    (note,) = window.notifications.notifications()
    shown = note.label.text()
    assert len(shown) < len(text) and " … " in shown
    assert shown.startswith("Not added: ")
    assert shown.endswith("Docent reads PDFs, Word, PowerPoint, Excel and e-books.")
    assert shown_tip(note.label.toolTip()) == text
    assert note.label.height() >= note.label.heightForWidth(note.label.width())


def test_warnings_time_out_and_errors_stay_until_closed(
    qtbot: Any, fake: FakeEngine, make_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(messages.TIMEOUTS_MS, "warning", 200)
    window = started(qtbot, fake, make_window)
    bridge().error("Could not read x.pdf: it is damaged.")
    bridge().warning("Ollama is slow to answer.")
    qtbot.waitUntil(lambda: len(window.notifications.notifications()) == 2, timeout=10_000)
    qtbot.waitUntil(
        lambda: window.notifications.texts() == ["Could not read x.pdf: it is damaged."],
        timeout=10_000,
    )
    (error,) = window.notifications.notifications()
    assert not error.timer.isActive(), "an error times out"
    qtbot.mouseClick(error.close_button, Qt.MouseButton.LeftButton)
    assert window.notifications.notifications() == []
    assert not window.notifications.isVisible()


def test_at_most_a_few_notes_the_oldest_dropped_and_repeats_counted(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    for i in range(MAX_SHOWN + 2):
        bridge().error(f"Could not read file-{i}.pdf.")
    texts = window.notifications.texts()
    assert texts == [f"Could not read file-{i}.pdf." for i in range(2, MAX_SHOWN + 2)]
    for _ in range(2):
        bridge().error("Could not read file-2.pdf.")
    assert len(window.notifications.notifications()) == MAX_SHOWN, "a repeat was stacked"
    newest = window.notifications.notifications()[-1]
    assert newest.message.text == "Could not read file-2.pdf.", "a repeat is the newest"
    assert newest.label.text() == "Could not read file-2.pdf. (×3)"


def test_saving_the_settings_clears_the_old_errors(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    bridge().error("Ollama is not running at http://127.0.0.1:11434.")
    bridge().warning("Could not resume the queued documents.")
    assert len(window.notifications.notifications()) == 2
    dialog = window.open_settings()
    dialog.host_edit.setText("http://127.0.0.1:11500")  # the fix
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    (note,) = window.notifications.notifications()
    assert note.message.level == "info" and note.message.text.startswith("Settings saved")
