"""One channel for messages to the user: ``bridge().error / warning / info``.

Any code on the GUI thread (usually a worker's error slot) calls the bridge; the bridge
emits a signal the main window's notification area listens to. Messages sent before the
window exists are held and shown when it connects. Notifications never block: info fades
after a few seconds and warnings a little later, errors stay until dismissed (each has a
close button); the same message again is counted on the note shown, not stacked.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QEnterEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from docent.gui.plain import plain_tip

log = logging.getLogger(__name__)

INFO_TIMEOUT_MS = 6000
WARNING_TIMEOUT_MS = 12_000
#: How long a note of each level stays (None: until the user closes it).
TIMEOUTS_MS: dict[str, int | None] = {
    "info": INFO_TIMEOUT_MS,
    "warning": WARNING_TIMEOUT_MS,
    "error": None,
}
_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
#: At most this many notes at once: a new one drops the oldest.
MAX_SHOWN = 3
#: A longer text is shortened in its middle (whole in the tooltip): its start says what
#: failed and its end what to do, so both stay.
MAX_CHARS = 600
HEAD_CHARS = 300
#: Width of the floating stack, and its distance from the window's edges (px).
WIDTH = 460
MARGIN = 12


@dataclass(frozen=True, slots=True)
class Message:
    level: str  # "error" | "warning" | "info"
    text: str


class MessageBridge(QObject):
    #: a message for the user (Message)
    message_posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._held: list[Message] = []
        self._connected = False

    def _post(self, level: str, text: str) -> None:
        log.log(_LEVELS[level], "%s", text)
        msg = Message(level, text)
        if self._connected:
            self.message_posted.emit(msg)
        else:
            self._held.append(msg)

    def error(self, text: str) -> None:
        self._post("error", text)

    def warning(self, text: str) -> None:
        self._post("warning", text)

    def info(self, text: str) -> None:
        self._post("info", text)

    def attach(self) -> list[Message]:
        """The window is listening now: hand over what was held."""
        self._connected = True
        held, self._held = self._held, []
        return held


_bridge: MessageBridge | None = None


def bridge() -> MessageBridge:
    global _bridge
    if _bridge is None:
        _bridge = MessageBridge()
    return _bridge


def open_file(path: str) -> None:
    """Open ``path`` with the desktop's default application; say so when none did, and
    what to do (it said only "No application opened x.pdf": QA, session 31)."""
    from pathlib import Path

    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    if not QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
        bridge().warning(
            f"No application opened {Path(path).name}: install one for this kind of file, "
            "or set one as its default in your desktop's settings. Docent shows its "
            "passages meanwhile."
        )


def shown_text(text: str) -> str:
    """``text`` as a note shows it: whole, or its start and end around "…" when longer
    than MAX_CHARS."""
    if len(text) <= MAX_CHARS:
        return text
    tail = MAX_CHARS - HEAD_CHARS
    return text[:HEAD_CHARS].rstrip() + " … " + text[-tail:].lstrip()


class Notification(QFrame):
    """One message with a close button; info and warnings close themselves after a while
    (not while the pointer is over them)."""

    #: the user closed it, or it timed out
    dismissed = Signal()

    def __init__(self, msg: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = msg
        self.count = 1
        self.setObjectName(f"notification-{msg.level}")
        self.setProperty("level", msg.level)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # messages quote file names
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setToolTip(plain_tip(msg.text))
        self.label.setAccessibleName(msg.level.capitalize())
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss the message")
        close.clicked.connect(self.dismissed.emit)
        self.close_button = close
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.dismissed.emit)
        self.timeout_ms = TIMEOUTS_MS[msg.level]
        self._show_text()
        self._restart()

    def _show_text(self) -> None:
        text = shown_text(self.message.text)
        self.label.setText(text if self.count == 1 else f"{text} (×{self.count})")

    def _restart(self) -> None:
        if self.timeout_ms is not None:
            self.timer.start(self.timeout_ms)

    def repeat(self) -> None:
        """The same message came again: count it, and give it its full time again."""
        self.count += 1
        self._show_text()
        self._restart()

    def enterEvent(self, event: QEnterEvent) -> None:
        self.timer.stop()  # not gone while being read
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._restart()
        super().leaveEvent(event)


class NotificationArea(QWidget):
    """A stack of notifications floating over the window (not in the layout: a message
    does not push the panes down), in the room the window gives it (``place``: above the
    chat's question box and its buttons, which it never covers); the newest at the bottom.
    """

    #: the notes shown changed (the window places the stack again)
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(4)
        self.setVisible(False)
        self._notes: list[Notification] = []
        b = bridge()
        b.message_posted.connect(self.show_message)
        for msg in b.attach():
            self.show_message(msg)

    def notifications(self) -> list[Notification]:
        return list(self._notes)

    def texts(self) -> list[str]:
        return [n.message.text for n in self.notifications()]

    def show_message(self, msg: Message) -> None:
        same = [n for n in self._notes if n.message == msg]
        if same:  # the same sentence again: counted, and moved to the newest place
            note = same[0]
            note.repeat()
            self._notes.remove(note)
            self._layout.removeWidget(note)
        else:
            note = Notification(msg, self)
            note.dismissed.connect(lambda: self._remove(note))
        self._notes.append(note)
        self._layout.addWidget(note)
        while len(self._notes) > MAX_SHOWN:
            self._remove(self._notes[0], placed=False)
        self.setVisible(True)
        self.changed.emit()

    def clear(self, levels: tuple[str, ...] = ("error", "warning")) -> None:
        """Drop the notes of these levels (what they said no longer holds)."""
        for note in [n for n in self._notes if n.message.level in levels]:
            self._remove(note)

    def _remove(self, note: Notification, *, placed: bool = True) -> None:
        if note not in self._notes:
            return
        self._notes.remove(note)
        self._layout.removeWidget(note)
        note.hide()
        note.deleteLater()
        self.setVisible(bool(self._notes))
        if placed:
            self.changed.emit()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest and self._notes:
            self.changed.emit()  # a note's size changed (its text, its style): place again
        return super().event(event)

    def place(self, area: QRect) -> None:
        """Float at the bottom right of ``area`` (the parent's coordinates), inside it: the
        newest notes that fit are shown, older ones wait hidden until there is room."""
        width = max(1, min(WIDTH, area.width() - 2 * MARGIN))
        room = area.height() - 2 * MARGIN
        spacing = self._layout.spacing()
        height = 0
        full = False
        for i, note in enumerate(reversed(self._notes)):
            note.ensurePolished()
            need = note.heightForWidth(width)
            if need <= 0:
                need = note.sizeHint().height()
            grown = need if i == 0 else height + spacing + need
            full = full or (i > 0 and grown > room)
            note.setVisible(not full)
            if not full:
                height = grown
        height = max(1, min(height, room))
        self.setGeometry(
            area.right() - width - MARGIN + 1, area.bottom() - height - MARGIN + 1, width, height
        )
        self.raise_()
