"""One channel for messages to the user: ``bridge().error / warning / info``.

Any code on the GUI thread (usually a worker's error slot) calls the bridge; the bridge
emits a signal the main window's notification area listens to. Messages sent before the
window exists are held and shown when it connects. Notifications never block: info fades
after a few seconds, warnings and errors stay until dismissed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

log = logging.getLogger(__name__)

INFO_TIMEOUT_MS = 6000
_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
MAX_SHOWN = 4
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


class Notification(QFrame):
    """One message with a close button."""

    #: the user closed it, or it timed out
    dismissed = Signal()

    def __init__(self, msg: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = msg
        self.setObjectName(f"notification-{msg.level}")
        self.setProperty("level", msg.level)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel(msg.text)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # messages quote file names
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss the message")
        close.clicked.connect(self.dismissed.emit)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        if msg.level == "info":
            QTimer.singleShot(INFO_TIMEOUT_MS, self, self.dismissed.emit)


class NotificationArea(QWidget):
    """A stack of notifications floating over the bottom right of the window (over the
    page view, not in the layout: a message does not push the panes down); the newest
    at the bottom."""

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
        if any(n.message == msg for n in self._notes):
            return  # the same sentence twice adds nothing
        if len(self._notes) >= MAX_SHOWN:
            self._remove(self._notes[0])
        note = Notification(msg, self)
        note.dismissed.connect(lambda: self._remove(note))
        self._notes.append(note)
        self._layout.addWidget(note)
        self.setVisible(True)
        self.changed.emit()

    def _remove(self, note: Notification) -> None:
        if note not in self._notes:
            return
        self._notes.remove(note)
        self._layout.removeWidget(note)
        note.hide()
        note.deleteLater()
        self.setVisible(bool(self._notes))
        self.changed.emit()

    def place(self, area: QRect) -> None:
        """Float at the bottom right of ``area`` (the parent's coordinates)."""
        width = min(WIDTH, area.width() - 2 * MARGIN)
        height = min(self._layout.totalHeightForWidth(width), area.height() - 2 * MARGIN)
        self.setGeometry(
            area.right() - width - MARGIN, area.bottom() - height - MARGIN, width, height
        )
        self.raise_()
