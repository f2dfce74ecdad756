"""Watched folders: the list with each folder's live state, and Add / Remove.

The engine watches (``Engine.watch`` / ``unwatch``, started with the window); this box
asks it in workers and shows ``Engine.watched()`` every few seconds.
"""

from __future__ import annotations

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

from docent.core.api import Collection, EngineAPI, FolderStatus
from docent.gui.messages import bridge
from docent.gui.plain import plain_tip
from docent.gui.workers import call_in_worker

POLL_MS = 3000


class WatchedFoldersBox(QGroupBox):
    #: A watched folder's state changed (gone, back, paused): its documents' rows may say
    #: another thing now ("ready · file gone" for a folder moved away; QA-78).
    states_changed = Signal()

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__("Watched folders", parent)
        self.engine = engine
        #: the collection a folder watched from here joins (None: the default one)
        self.collection: Collection | None = None
        self.list = QListWidget()
        self.list.setAccessibleName("Watched folders")
        self.list.setWordWrap(True)  # a long path or the hint wraps rather than scrolls
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMaximumHeight(90)
        self.add_button = QPushButton("Watch folder…")
        self.add_button.setToolTip(
            "Index a folder and keep it indexed: new, changed and deleted files are followed"
        )
        self.remove_button = QPushButton("Stop watching")
        self.remove_button.setToolTip("Stop following the selected folder")
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
        self._states: dict[str, str] | None = None  # as last shown (None: not yet)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()
        QTimer.singleShot(0, self, self.refresh)

    # Actions ------------------------------------------------------------------

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch folder")
        if folder:
            self.watch(folder)

    def watch(self, folder: str) -> None:
        engine, into = self.engine, self.collection
        where = f" into '{into.name}'" if into else ""
        call_in_worker(
            lambda: engine.watch(folder, into.id if into else None),
            name="watch",
            on_result=lambda _: bridge().info(f"Watching {folder}; changes are indexed{where}."),
            on_finished=self.refresh,
            error_text=f"Could not watch {folder}",
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
        box.setTextFormat(Qt.TextFormat.PlainText)  # a folder named "<b>Projects"
        keep = box.addButton("Keep its documents", QMessageBox.ButtonRole.AcceptRole)
        drop = box.addButton("Remove its documents", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() not in (keep, drop):
            return
        self.unwatch(folder, drop_documents=box.clickedButton() is drop)

    def unwatch(self, folder: str, *, drop_documents: bool) -> None:
        engine = self.engine
        call_in_worker(
            lambda: engine.unwatch(folder, drop_documents),
            name="unwatch",
            on_finished=self.refresh,
            error_text=f"Could not stop watching {folder}",
        )

    # Live state ---------------------------------------------------------------

    def refresh(self) -> None:
        if self._polling:
            return
        self._polling = True
        call_in_worker(
            self.engine.watched,
            name="watched",
            on_result=self.show_folders,
            on_finished=self._on_polled,
            error_text="Could not read the watched folders",
        )

    def _on_polled(self) -> None:
        self._polling = False

    def folders(self) -> list[str]:
        """The watched folders as last shown (read in a worker every few seconds)."""
        items = (self.list.item(i) for i in range(self.list.count()))
        return [str(p) for i in items if (p := i.data(Qt.ItemDataRole.UserRole))]

    def show_folders(self, watched: list[FolderStatus]) -> None:
        states = {st.path: st.state.value for st in watched}
        changed = self._states is not None and states != self._states
        self._states = states
        if changed:
            self.states_changed.emit()
        selected = {str(i.data(Qt.ItemDataRole.UserRole)) for i in self.list.selectedItems()}
        self.list.clear()
        for st in watched:
            where = f" · {st.collection}" if st.collection else ""
            item = QListWidgetItem(f"{st.path} — {st.state.value}{where}")
            item.setData(Qt.ItemDataRole.UserRole, st.path)
            item.setToolTip(plain_tip(st.message or st.path))
            self.list.addItem(item)
            item.setSelected(st.path in selected)
        if not watched:
            placeholder = QListWidgetItem("No folders watched. Use Watch folder… to add one.")
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(placeholder)
