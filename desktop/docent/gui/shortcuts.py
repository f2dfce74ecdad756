"""Help ▸ Keyboard shortcuts: every key the window answers to, in one table.

The menu actions are read from the window itself (their text and shortcut as set), so
the table cannot drift from what the keys do; the keys that belong to one widget (the
question box, the tables) are listed after them.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

#: Keys handled by one widget rather than by a menu action.
WIDGET_KEYS = (
    ("Ctrl+Enter", "Ask the question typed in the question box"),
    ("Tab / Shift+Tab", "Next / previous part of the window (the question box too)"),
    ("Enter", "In the library: ask about the selected documents"),
    ("Delete", "In the library: remove the selected documents from the library"),
    ("Menu key / Shift+F10", "In the library: the selected document's actions"),
    # (QA-80: neither was listed, though both work from the keyboard)
    ("Tab to a citation [n], Enter", "In an answer: open the cited page, the passage lit"),
    ("Tab to ◀ / ▶, Space", "Under a retried answer: its earlier / later answer"),
)


def shortcut_rows(window: QWidget) -> list[tuple[str, str]]:
    """(keys, what they do) for the window's actions that have a shortcut, then the
    widgets' own keys."""
    rows: list[tuple[str, str]] = []
    for action in window.actions():
        if not isinstance(action, QAction) or action.shortcut().isEmpty():
            continue
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        rows.append((keys, action.text().replace("&", "").rstrip("…")))
    return rows + list(WIDGET_KEYS)


def show_shortcuts(window: QWidget) -> QDialog:
    dialog = QDialog(window)
    dialog.setWindowTitle("Keyboard shortcuts")
    rows = shortcut_rows(window)
    table = QTableWidget(len(rows), 2)
    table.setObjectName("shortcuts")
    table.setAccessibleName("Keyboard shortcuts")
    table.setHorizontalHeaderLabels(["Keys", "Does"])
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setTabKeyNavigation(False)  # Tab leaves the table for Close
    for r, (keys, what) in enumerate(rows):
        table.setItem(r, 0, QTableWidgetItem(keys))
        table.setItem(r, 1, QTableWidgetItem(what))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    layout.addWidget(buttons)
    dialog.resize(560, 460)
    dialog.open()
    return dialog
