"""Text from documents, answers and file names shown as text, never as markup.

Qt decides by itself that a label, a tooltip or a message box holds rich text when the
string looks like HTML (``Qt::mightBeRichText``): a file named ``<img src=x.png>.pdf``
would then load ``x.png``. Labels get ``PlainText``; tooltips and questions go through
here.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` as written (escaped rich text: Qt cannot take it
    for markup of its own)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>" if text else ""


def plain_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def ask(parent: QWidget | None, title: str, text: str, yes: str) -> bool:
    """A question with ``text`` as plain text; True when the user clicks ``yes``."""
    box = QMessageBox(
        QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    accept = box.addButton(yes, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is accept


def tell(parent: QWidget | None, title: str, text: str) -> None:
    """An error with ``text`` as plain text."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()
