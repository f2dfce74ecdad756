"""Text from documents, answers and file names shown as text, never as markup.

Qt decides by itself that a label, a tooltip or a message box holds rich text when the
string looks like HTML (``Qt::mightBeRichText``): a file named ``<img src=x.png>.pdf``
would then load ``x.png``. Labels get ``PlainText``; tooltips and questions go through
here.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QWidget


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` as written (escaped rich text: Qt cannot take it
    for markup of its own)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>" if text else ""


def banner_html(text: str) -> str:
    """Docent's words as rich text: the message escaped (a host or model name may hold
    "<"), and the commands it names in backticks set in code type: "`ollama serve`" was
    shown with its backticks (QA, session 26: the chat's banner; QA-77: Settings' Test)."""
    parts = html.escape(text, quote=False).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: the text as it is
        return html.escape(text, quote=False)
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def as_written(name: str) -> str:
    """A name in the text of a menu item or a button, where "&" marks the key that
    triggers it: "R&D" showed as "RD" (and read so), and D triggered it (review)."""
    return name.replace("&", "&&")


def middle(text: str, most: int = 40) -> str:
    """``text`` cut in the middle to ``most`` characters ("Debian-project-h…edition-2024.pdf"):
    a file's name keeps its start and the end that tells it from its siblings."""
    if len(text) <= most:
        return text
    head = (most - 1) // 2
    return f"{text[:head]}…{text[len(text) - (most - 1 - head) :]}"


def plain_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ElidedLabel(QLabel):
    """One line that gives way: elided in the middle to the width it is given (a file
    name keeps its end), never asking for more; the whole text is in its tooltip. A label
    that neither wraps nor elides makes a long name the pane's minimum width, and the
    window grows past the screen. Shorter forms of the text, when given, are tried in turn
    before the last is elided ("page 3 of 27 · 59%", then "3/27 · 59%", then "3/27")."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._forms: tuple[str, ...] = ("",)
        self.set_full_text(text)

    def full_text(self) -> str:
        return self._forms[0]

    def set_full_text(self, text: str, *shorter: str) -> None:
        self._forms = (text, *shorter)
        self.setToolTip(plain_tip(text))
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width() - 2 * self.margin()
        metrics = self.fontMetrics()
        fits = (f for f in self._forms if metrics.horizontalAdvance(f) <= room)
        text = next(fits, None)
        if text is None:
            text = metrics.elidedText(self._forms[-1], Qt.TextElideMode.ElideMiddle, room)
        if text != self.text():
            self.setText(text)


class NameHeading(QLabel):
    """A heading "file name — where" for a narrow pane. It stays on one line when it
    fits; else the name gets a line of its own, elided in the middle (its end tells files
    apart: "…final-v2.pdf"), and the place the next; the whole is in the tooltip. A long
    name is never cut at the edge, broken mid-word, or let widen the pane."""

    def __init__(self, hint: str) -> None:
        super().__init__(hint)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)  # the hint wraps; the heading's lines are made to fit
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._parts: tuple[str, str] | None = None

    def set_hint(self, text: str) -> None:
        self._parts = None
        self.setToolTip("")
        self.setText(text)

    def set_heading(self, name: str, where: str) -> None:
        self._parts = (name, where)
        self.setToolTip(plain_tip(f"{name} — {where}"))
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if self._parts is None:
            return
        name, where = self._parts
        whole = f"{name} — {where}"
        metrics = self.fontMetrics()
        room = self.contentsRect().width() - 2 * self.margin() - 2
        if metrics.horizontalAdvance(whole) <= room:
            text = whole
        else:
            text = "\n".join(
                (
                    metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, room),
                    metrics.elidedText(where, Qt.TextElideMode.ElideRight, room),
                )
            )
        if text != self.text():
            self.setText(text)


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
