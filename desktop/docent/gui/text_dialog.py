"""A read-only dialog for long text (extracted text, summaries): plain text, never HTML."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from docent.gui.text_passage import SHOWN_CHARS


class TextDialog(QDialog):
    """``text`` past ``SHOWN_CHARS`` is cut there, said at its end; Copy copies it whole
    (10 MB of a log's extracted text held the window's thread 0.5 s: review 82)."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(760, 640)
        self.text = text
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setAccessibleName(title)
        shown = text
        if len(text) > SHOWN_CHARS:
            shown = (
                f"{text[:SHOWN_CHARS]}\n\n[… the first {SHOWN_CHARS:,} of {len(text):,} "
                "characters are shown; Copy copies all of it]"
            )
        self.view.setPlainText(shown)  # document text is data, never markup
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.view.setFont(font)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton("Copy")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)


def show_text(parent: QWidget, title: str, text: str) -> TextDialog:
    """Open a non-modal text dialog (deleted when closed)."""
    dlg = TextDialog(title, text, parent)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.show()
    return dlg
