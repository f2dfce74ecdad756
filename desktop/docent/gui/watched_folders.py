"""Watched folders: the list with each folder's live state, and Add / Remove.

Uses ``Engine.watch`` / ``Engine.unwatch`` and ``Engine.status().watched`` when the engine
has them; without them, "Watch folder…" indexes the folder once and says so.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.engine import Engine
from docent.gui.messages import bridge
from docent.gui.workers import Report, run_in_worker

POLL_MS = 3000


def can_watch(engine: Engine) -> bool:
    return hasattr(engine, "watch") and hasattr(engine, "unwatch")


class WatchedFoldersBox(QGroupBox):
    #: without a watcher in the engine: index this folder once (path)
    index_requested = Signal(str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__("Watched folders", parent)
        self.engine = engine
        self.list = QListWidget()
        self.list.setMaximumHeight(90)
        self.add_button = QPushButton("Watch folder…")
        self.remove_button = QPushButton("Stop watching")
        self.remove_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self.add_button.clicked.connect(self.choose_folder)
        self.remove_button.clicked.connect(self._on_remove)
        self.list.itemSelectionChanged.connect(
            lambda: self.remove_button.setEnabled(bool(self.list.selectedItems()))
        )
        self._polling = False
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.refresh)
        if can_watch(engine):
            self._timer.start()
            QTimer.singleShot(0, self, self.refresh)
        else:
            self.setVisible(False)

    # Actions ------------------------------------------------------------------

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch folder")
        if folder:
            self.watch(folder)

    def watch(self, folder: str) -> None:
        if not can_watch(self.engine):
            bridge().info(
                f"Indexing {folder} once: this build cannot watch folders for changes yet."
            )
            self.index_requested.emit(folder)
            return
        engine: Any = self.engine

        def job(report: Report, cancel: threading.Event) -> None:
            if engine.watch(folder) is None and hasattr(engine, "start_watching"):
                engine.start_watching()  # the first watched folder: start the watcher

        run_in_worker(
            job,
            name="watch",
            on_result=lambda _: bridge().info(f"Watching {folder}; changes are indexed."),
            on_error=lambda exc: bridge().error(f"Could not watch {folder}: {exc}"),
            on_finished=self.refresh,
        )

    def _on_remove(self) -> None:
        items = self.list.selectedItems()
        if not items:
            return
        folder = str(items[0].data(Qt.ItemDataRole.UserRole))
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Stop watching",
            f"Stop watching {folder}?",
            parent=self,
        )
        keep = box.addButton("Keep its documents", QMessageBox.ButtonRole.AcceptRole)
        drop = box.addButton("Remove its documents", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() not in (keep, drop):
            return
        self.unwatch(folder, drop_documents=box.clickedButton() is drop)

    def unwatch(self, folder: str, *, drop_documents: bool) -> None:
        engine: Any = self.engine

        def job(report: Report, cancel: threading.Event) -> None:
            engine.unwatch(folder, drop_documents)

        run_in_worker(
            job,
            name="unwatch",
            on_error=lambda exc: bridge().error(f"Could not stop watching {folder}: {exc}"),
            on_finished=self.refresh,
        )

    # Live state ---------------------------------------------------------------

    def refresh(self) -> None:
        if self._polling:
            return
        self._polling = True
        engine = self.engine

        def job(report: Report, cancel: threading.Event) -> list[dict[str, Any]]:
            return list(engine.status().watched)

        def done() -> None:
            self._polling = False

        run_in_worker(job, name="watched", on_result=self.show_folders, on_finished=done)

    def show_folders(self, watched: list[dict[str, Any]]) -> None:
        selected = {str(i.data(Qt.ItemDataRole.UserRole)) for i in self.list.selectedItems()}
        self.list.clear()
        for entry in watched:
            path = str(entry.get("path", ""))
            state = str(entry.get("state", ""))
            item = QListWidgetItem(f"{path} — {state}" if state else path)
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(str(entry.get("message") or entry.get("error") or path))
            self.list.addItem(item)
            item.setSelected(path in selected)
        if not watched:
            placeholder = QListWidgetItem("No folders watched. Use Watch folder… to add one.")
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(placeholder)
