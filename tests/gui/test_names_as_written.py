"""Names that look like HTML (``<b>draft.pdf``, a folder ``<b>Projects``, a collection
``<b>Q3 reports``) are shown as written wherever the window quotes them: Qt draws a label,
a message box or a tooltip that "might be rich text" as HTML, so ``<b>`` would be bold
and ``<img src=x.png>`` would load a file (found by a review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine, answer, citation
from gui_helpers import shown_tip
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMessageBox

from docent.gui.chat_pane import ChatPane
from docent.gui.library_pane import LibraryPane
from docent.gui.messages import Notification
from docent.gui.watched_folders import WatchedFoldersBox


def shown(text: str, fmt: Qt.TextFormat) -> str:
    """What a QLabel or QMessageBox with ``text`` in ``fmt`` shows."""
    rich = fmt == Qt.TextFormat.RichText or (
        fmt == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)
    )
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def test_a_chips_tooltip_names_the_file_as_written(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    chat = ChatPane(fake)
    qtbot.addWidget(chat)
    fake.answers = [answer("The budget was approved [1].", [citation(1, "/d/<b>draft.pdf")])]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("Was the budget approved?")
    tip = chat.view.document().find("[1]").charFormat().toolTip()
    assert shown_tip(tip) == "[1] <b>draft.pdf, p.1"


def test_stop_watching_names_the_folder_as_written(
    qtbot: Any, fake: FakeEngine, drain: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "<b>Projects"
    folder.mkdir()
    fake.watch(folder)
    box = WatchedFoldersBox(fake)
    qtbot.addWidget(box)
    qtbot.waitUntil(
        lambda: box.list.count() == 1 and box.list.item(0).flags() != Qt.ItemFlag.NoItemFlags,
        timeout=10_000,
    )
    box.list.item(0).setSelected(True)
    asked: list[str] = []

    def read_then_cancel(self: QMessageBox) -> int:  # the modal question, not shown
        asked.append(shown(self.text(), self.textFormat()))
        return 0

    monkeypatch.setattr(QMessageBox, "exec", read_then_cancel)
    box.remove_button.click()
    assert asked == [f"Stop watching {folder}?"]


def test_an_empty_collections_hint_names_it_as_written(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    made = fake.create_collection("<b>Q3 reports")
    pane = LibraryPane(fake)
    qtbot.addWidget(pane)
    pane.refresh()
    qtbot.waitUntil(lambda: len(pane.collection_bar.collections) == 2, timeout=10_000)
    pane.collection_bar.select(made.id)
    hint = pane.empty_hint
    qtbot.waitUntil(lambda: "Q3 reports" in hint.text(), timeout=10_000)
    assert "The collection '<b>Q3 reports' is empty" in shown(hint.text(), hint.textFormat())


def test_a_notifications_tooltip_quotes_as_written(qtbot: Any) -> None:
    from docent.gui.messages import Message

    note = Notification(Message("warning", "Could not read <b>draft.pdf: it is damaged."))
    qtbot.addWidget(note)
    assert shown_tip(note.label.toolTip()) == "Could not read <b>draft.pdf: it is damaged."
