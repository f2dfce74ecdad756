"""Constants and helpers shared by the GUI tests (fixtures are in conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

#: The small PDFs shipped in resources/samples (they index in seconds), and the name of
#: a password-protected one that the tests write (pdf_files.encrypted_text_pdf).
SMALL_PDFS = (
    "forensics-samples-files__a-text.pdf",
    "simh__ctss_hardware.pdf",
    "simh__vax780_doc.pdf",
)
ENCRYPTED_PDF = "board-minutes-locked.pdf"
INDEX_TIMEOUT_MS = 180_000
ANSWER_TIMEOUT_MS = 60_000


def drop(widget: Any, paths: list[Path]) -> None:
    """What the desktop sends when files are dragged onto the window."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    action = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(pos.toPoint(), action, mime, buttons, mods)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted(), "the window refused a drag of local files"
    QApplication.sendEvent(widget, QDropEvent(pos, action, mime, buttons, mods))


def shown_tip(tip: str) -> str:
    """What a tooltip shows: Qt draws one that might be rich text as HTML (an escaped
    ``plain_tip`` shows the text as written)."""
    from PySide6.QtGui import Qt as GuiQt
    from PySide6.QtGui import QTextDocumentFragment

    rich = GuiQt.mightBeRichText(tip)
    return QTextDocumentFragment.fromHtml(tip).toPlainText() if rich else tip


def click_chip(view: Any, turn: int, n: int) -> str:
    """Click the chip [n] of ``turn`` in the chat view with the mouse, as a user does;
    returns the chip's tooltip, as shown."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    from docent.gui.markdown_view import cite_url

    doc, href = view.document(), cite_url(turn, n)
    cur = doc.find(f"[{n}]")
    while not cur.isNull() and cur.charFormat().anchorHref() != href:
        cur = doc.find(f"[{n}]", cur.selectionEnd())
    assert not cur.isNull(), f"no chip [{n}] of turn {turn} in the chat"
    view.setTextCursor(cur)
    view.ensureCursorVisible()
    end = view.cursorRect(cur)  # the selection's end: step back into the chip
    at = QPoint(end.left() - 4, end.center().y())
    assert view.anchorAt(at) == href, (view.anchorAt(at), href)
    tip = shown_tip(str(cur.charFormat().toolTip()))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    return tip


def started(qtbot: Any, engine: Any, make_window: Any) -> Any:
    """A window on ``engine`` once it has checked Ollama and read the library."""
    window = make_window(engine)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: "document" in window.docs_label.text(), timeout=10_000)
    return window


def ask_and_wait(qtbot: Any, chat: Any, question: str) -> Any:
    """Ask on the chat pane and wait for its answer: the finished Turn."""
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.ask(question)
    return done.args[0]
