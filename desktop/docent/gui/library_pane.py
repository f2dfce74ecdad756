"""The library pane: documents table, filter, progress with Cancel, context menu, watched folders."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QMimeData, QModelIndex, QPoint, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import (
    Collection,
    DocumentChanged,
    EngineAPI,
    FilesFound,
    IndexReport,
    Job,
    JobKind,
    Progress,
    inside,
    shown,
)
from docent.gui.collection_bar import CollectionBar
from docent.gui.indexing import IndexController, LibraryRead
from docent.gui.library_model import DocumentTableModel, StateDelegate
from docent.gui.library_rows import CHUNKS, INDEXED, NAME, PAGES, ROW_ROLE, SORT_ROLE, STATE, Row
from docent.gui.messages import open_file
from docent.gui.plain import ElidedLabel, as_written, ask
from docent.gui.text_dialog import show_text
from docent.gui.watched_folders import WatchedFoldersBox
from docent.gui.workers import call_in_worker

#: Pane widths (px) below which the Chunks, then the Pages column are hidden.
NARROW = 540
NARROWER = 440
#: The State column's width, and what it must hold in a narrow pane (longer reasons are
#: cut and in the tooltip)
STATE_WIDTH = 130
STATE_WORDS = "indexing 100 %"
#: What State holds whole when the pane has room for every column
STATE_WIDE_WORDS = "cancelled: not indexed"


def local_paths(mime: QMimeData) -> list[str]:
    """The local files and folders in a drop (other URLs are not ours to fetch)."""
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]


class LibraryPane(QWidget):
    #: the user wants the chat scoped to these documents (list of paths)
    ask_about_requested = Signal(list)
    #: the user wants a summary of this document (path)
    summarize_requested = Signal(str)

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.controller = IndexController(engine, self)
        self.model = DocumentTableModel(self)
        #: The model's clock when the catalog read in flight began (None: none began).
        self._read_at: int | None = None
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(NAME)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._run_paths: set[str] = set()  # files the current run is about
        #: the collection shown (None: every document)
        self.collection: Collection | None = None
        self._build()
        self._connect()

    def _build(self) -> None:
        self.collection_bar = CollectionBar(self.engine, self)
        title = QLabel("Library")
        title.setObjectName("paneTitle")
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter documents…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip("Show only the documents whose name contains this text")
        self.filter_edit.setAccessibleName("Filter documents")
        self.table = QTableView()
        self.table.setObjectName("documentsTable")
        self.table.setAccessibleName("Documents")
        self.table.setToolTip(
            "Enter or double-click: ask about the document · Delete: remove it · "
            "right-click or the Menu key: more"
        )
        # Tab leaves the table (arrows move within it); otherwise Tab never gets out
        self.table.setTabKeyNavigation(False)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(NAME, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.setItemDelegateForColumn(STATE, StateDelegate(self.table))
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        for col in range(1, INDEXED + 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(STATE, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(STATE, STATE_WIDTH)
        # Fitted to the rows in sight: measuring 1,000 rows (Qt's default) after every
        # change of the model took 30-40 ms per document at 1,000 documents.
        header.setResizeContentsPrecision(0)
        self.empty_hint = QLabel(
            "Drop PDFs, Word, PowerPoint, Excel, EPUB or HTML files or folders here, "
            "or use File ▸ Add files…"
        )
        self.empty_hint.setObjectName("hint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a collection's name

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress_label = ElidedLabel()  # names files, however long
        self.progress_label.setObjectName("muted")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop indexing; documents already ready are kept")
        self.progress_row = QWidget()
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(0, 0, 0, 0)
        bars = QVBoxLayout()
        bars.addWidget(self.progress_label)
        bars.addWidget(self.progress)
        row.addLayout(bars, 1)
        row.addWidget(self.cancel_button)
        self.progress_row.setVisible(False)

        # Cancelled documents wait for the user: said here, with the way to resume them
        self.resume_label = QLabel()
        self.resume_label.setObjectName("muted")
        self.resume_label.setWordWrap(True)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setToolTip("Index the documents whose indexing was cancelled")
        self.resume_row = QWidget()
        resume = QHBoxLayout(self.resume_row)
        resume.setContentsMargins(0, 0, 0, 0)
        resume.addWidget(self.resume_label, 1)
        resume.addWidget(self.resume_button)
        self.resume_row.setVisible(False)

        self.watched = WatchedFoldersBox(self.engine, self)
        self.watched.states_changed.connect(self.controller.refresh)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.addWidget(self.collection_bar)
        layout.addWidget(title)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_hint)
        layout.addWidget(self.progress_row)
        layout.addWidget(self.resume_row)
        layout.addWidget(self.watched)

    def _connect(self) -> None:
        c = self.controller
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.table.customContextMenuRequested.connect(self._on_context_menu)
        self.table.doubleClicked.connect(self._on_double_clicked)
        keys = {
            QKeySequence(Qt.Key.Key_Return): self._ask_about_selected,
            QKeySequence(Qt.Key.Key_Enter): self._ask_about_selected,
            QKeySequence(Qt.Key.Key_Delete): self._remove_selected,
            # Help's Shift+F10 (Qt turns only the Menu key into a context menu on X11: a
            # laptop without one had no keyboard way to the menu; review)
            QKeySequence("Shift+F10"): self._menu_at_current,
        }
        for key, slot in keys.items():
            shortcut = QShortcut(key, self.table)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(slot)
        self.cancel_button.clicked.connect(c.cancel)
        self.resume_button.clicked.connect(self.resume_cancelled)
        c.documents_changed.connect(self._on_documents)
        c.refresh_started.connect(self._on_refresh_started)
        c.files_found.connect(self._on_files_found)
        c.told_ended.connect(self._on_told_ended)
        c.document_progressed.connect(self._on_doc_progress)
        c.document_changed.connect(self._on_doc_changed)
        c.overall_progressed.connect(self._on_overall)
        c.run_started.connect(self._on_run_started)
        c.run_finished.connect(self._on_run_finished)
        c.documents_changed.connect(lambda _: self.collection_bar.refresh())
        self.collection_bar.collection_changed.connect(self.set_collection)
        self.collection_bar.collections_changed.connect(self._on_collections)
        # once per merge of the rows into the view, not per document (it counts them all)
        self.model.merged.connect(self._update_resume)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A narrow pane drops the counts (Chunks, then Pages) before the State and the
        date get cut: those say what a document is doing. State then keeps only the room
        of its usual words, so a long name (elided in the middle) keeps the end that tells
        it from its neighbours ("…final-v1.pdf", "…final-v2.pdf")."""
        super().resizeEvent(event)
        width = event.size().width()
        self.table.setColumnHidden(CHUNKS, width < NARROW)
        self.table.setColumnHidden(PAGES, width < NARROWER)
        state = STATE_WIDTH
        advance = self.table.fontMetrics().horizontalAdvance
        if width >= NARROW:
            state = max(state, advance(STATE_WIDE_WORDS) + 16)
        elif width < NARROWER:
            state = min(state, advance(STATE_WORDS) + 16)
        self.table.horizontalHeader().resizeSection(STATE, state)

    # Public -------------------------------------------------------------------

    def add_paths(
        self, paths: list[str], *, force: bool = False, collection: str | None = None
    ) -> None:
        """Index files and folders (recursively) into ``collection`` (None: the one shown);
        unsupported ones are reported."""
        self.controller.add(paths, force=force, collection=collection)

    def refresh(self) -> None:
        self.controller.refresh()
        self.collection_bar.refresh()

    def set_collection(self, collection: Collection | None) -> None:
        """Show this collection's documents (None: all of them)."""
        changed = (collection.id if collection else None) != self.controller.collection_id
        self.collection = collection
        self.watched.collection = collection
        self._update_hint_text()
        if changed:
            self.controller.collection_id = collection.id if collection else None
            self.model.set_records([])
            self.empty_hint.setVisible(True)
            self.controller.refresh()

    def _on_collections(self, found: list[Collection]) -> None:
        if self.collection is not None:  # its counts or name changed
            self.collection = next((c for c in found if c.id == self.collection.id), None)
            self.watched.collection = self.collection
            self._update_hint_text()

    def _update_hint_text(self) -> None:
        if self.collection is None:
            self.empty_hint.setText("Drop PDFs or folders here, or use File ▸ Add files…")
        else:
            self.empty_hint.setText(
                f"The collection '{self.collection.name}' is empty: drop PDFs or folders "
                "here to add them to it, or use File ▸ Add files…"
            )

    def _shows(self, path: str, job: Job) -> bool:
        """Does a file a job is about belong in the table shown? (Before the catalog has
        its record: by the job's collection, or the folder it lies in.)"""
        shown = self.collection
        if shown is None or self.model.row_for(path) is not None:
            return True
        if job.collection:
            return job.collection == shown.id
        return any(path.startswith(f.rstrip("/") + "/") for f in shown.folders)

    def cancelled_rows(self) -> list[Row]:
        return [r for r in self.model.rows() if r.state == "cancelled"]

    def resume_cancelled(self) -> None:
        """Index again what the user cancelled (nothing else resumes it)."""
        paths = [r.path for r in self.cancelled_rows()]
        if paths:
            self.add_paths(paths)

    def _update_resume(self, *_: object) -> None:
        n = self.model.cancelled_count
        if n:
            docs = "1 document" if n == 1 else f"{n} documents"
            waits = "it waits" if n == 1 else "they wait"
            self.resume_label.setText(f"{docs} cancelled, not indexed: {waits} for Resume.")
        self.resume_row.setVisible(n > 0)

    def selected_rows(self) -> list[Row]:
        rows = []
        for idx in self.table.selectionModel().selectedRows():
            row = idx.data(ROW_ROLE)
            if isinstance(row, Row):
                rows.append(row)
        return rows

    # Controller signals -------------------------------------------------------

    def _on_refresh_started(self) -> None:
        self._read_at = self.model.clock

    def _on_documents(self, read: LibraryRead) -> None:
        rows = self.model.rows()
        pending = {r.path for r in rows if r.state in ("queued", "indexing")}
        keep = pending if self.controller.busy else pending & self.controller.told()
        if self.controller.removing:  # a read before the removal ran: it says "ready"
            keep |= {r.path for r in rows if r.state == "removing"}
        self.model.set_records(read.records, keep, read_at=self._read_at, gone=read.gone)
        self.empty_hint.setVisible(self.model.count == 0)

    def _on_files_found(self, found: FilesFound) -> None:
        files = [f for f in found.files if self._shows(f, found.job)]
        if self.controller.shows_run(found.job):
            # not a watched file queued behind the run: the run's end would call it
            # cancelled, its turn not come
            self._run_paths.update(files)
        # a sweep lists every file, and most are unchanged: only new ones are queued rows
        self.model.mark_queued(files, requeue=found.job.kind is not JobKind.SWEEP)
        self.empty_hint.setVisible(self.model.count == 0)

    def _on_told_ended(self, paths: set[str]) -> None:
        """A watched folder's job ended: a file it told and never indexed (taken out of
        it, or gone before its turn) leaves the list, unless another job will read it."""
        still = self.controller.told()
        for path in paths - still:
            row = self.model.row_for(path)
            if row is not None and row.state == "queued" and not row.doc_id:
                self.model.remove(path)
        self.empty_hint.setVisible(self.model.count == 0)

    def _on_doc_progress(self, p: Progress) -> None:
        if self.collection is not None and self.model.row_for(p.path) is None:
            return  # not a file of the collection shown (its rows come with FilesFound)
        if self.controller.busy:
            self._run_paths.add(p.path)
        self.model.apply(p, None)

    def _on_doc_changed(self, change: DocumentChanged) -> None:
        rec = change.record
        shown = self.collection
        if rec is None or (shown is not None and shown.id not in rec.collections):
            self.model.remove(change.progress.path)  # gone, or not in this collection
            self.empty_hint.setVisible(self.model.count == 0)
        else:
            self.model.apply(change.progress, rec)
            self.empty_hint.setVisible(False)

    def _on_overall(self, fraction: float, label: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress_label.set_full_text(label)

    def _on_run_started(self, label: str) -> None:
        self._run_paths = set()
        self.progress.setValue(0)
        self.progress_label.set_full_text(f"Preparing {label}…")
        self.progress_row.setVisible(True)

    def _on_run_finished(self, report: IndexReport | None) -> None:
        self.model.finish_pending(self._run_paths)
        if not self.controller.pending:
            self.progress_row.setVisible(False)

    # Context menu -------------------------------------------------------------

    def _on_double_clicked(self, index: QModelIndex) -> None:
        row = index.data(ROW_ROLE)
        if isinstance(row, Row) and row.state == "ready":  # as Enter: nothing else to ask
            self.ask_about_requested.emit([row.path])

    def _ask_about_selected(self) -> None:
        ready = [r.path for r in self.selected_rows() if r.state == "ready"]
        if ready:
            self.ask_about_requested.emit(ready)

    def _remove_selected(self) -> None:
        rows = self.selected_rows()
        if rows:
            self._remove(rows)

    def _menu_at_current(self) -> None:
        """The selected documents' menu, at the current row (Shift+F10)."""
        index = self.table.currentIndex()
        self._on_context_menu(
            self.table.visualRect(index).center() if index.isValid() else QPoint()
        )

    def _on_context_menu(self, pos: QPoint) -> None:
        rows = self.selected_rows()
        if not rows:
            return
        menu = self.build_menu(rows)
        menu.popup(self.table.viewport().mapToGlobal(pos))

    def build_menu(self, rows: list[Row]) -> QMenu:
        menu = QMenu(self)
        one = rows[0] if len(rows) == 1 else None
        ready = [r for r in rows if r.state == "ready"]
        label = "Ask about this document" if one else f"Ask about these {len(rows)} documents"
        ask = menu.addAction(label, lambda: self.ask_about_requested.emit([r.path for r in ready]))
        ask.setEnabled(bool(ready))
        summ = menu.addAction("Summarize…", lambda: self._summarize(rows[0]))
        summ.setEnabled(one is not None and one.state == "ready")
        menu.addSeparator()
        menu.addAction("Open file", lambda: self._open(rows))
        dump = menu.addAction("Show extracted text", lambda: self._show_text(rows[0]))
        dump.setEnabled(one is not None and one.state == "ready")
        menu.addSeparator()
        self._collection_actions(menu, rows)
        menu.addAction("Re-index", lambda: self.add_paths([r.path for r in rows], force=True))
        menu.addAction("Remove from library", lambda: self._remove(rows))
        return menu

    def _collection_actions(self, menu: QMenu, rows: list[Row]) -> None:
        paths = [r.path for r in rows if r.doc_id]
        # not one every selected document is in already (QA-79: offered, it did nothing)
        others = [
            c
            for c in self.collection_bar.collections
            if c != self.collection and not all(c.id in r.collections for r in rows)
        ]
        if others:
            add_to = menu.addMenu("Add to collection")
            for c in others:
                action = add_to.addAction(as_written(c.name), self._adder(paths, c))
                action.setEnabled(bool(paths))
        current = self.collection
        if current is not None:
            leave = menu.addAction(
                f"Remove from '{as_written(current.name)}'", lambda: self._leave(rows, current)
            )
            leave.setEnabled(bool(paths))
        menu.addSeparator()

    def _summarize(self, row: Row) -> None:
        self.summarize_requested.emit(row.path)

    def _open(self, rows: list[Row]) -> None:
        for row in rows:
            open_file(row.path)

    def _show_text(self, row: Row) -> None:
        call_in_worker(
            lambda: self.engine.dump(row.path),
            name="dump",
            on_result=lambda text: self._show_dump(row, text),
            error_text=f"Could not show the text of {row.file_name}",
        )

    def _show_dump(self, row: Row, text: str) -> None:
        show_text(self, f"Extracted text — {shown(row.file_name)}", text)

    def _adder(self, paths: list[str], collection: Collection) -> Callable[[], None]:
        return lambda: self.controller.add(
            paths, collection=collection.id, joining=as_written(collection.name)
        )

    def _leave(self, rows: list[Row], collection: Collection) -> None:
        names = ", ".join(shown(r.file_name) for r in rows[:3]) + ("…" if len(rows) > 3 else "")
        question = (
            f"Take {names} out of '{collection.name}'? A document in no other collection "
            f"leaves the library. {_untouched(rows)}"
        )
        if ask(self, "Remove from collection", question, "Remove"):
            self.controller.leave([r.path for r in rows if r.doc_id], collection.id)

    def _remove(self, rows: list[Row]) -> None:
        names = ", ".join(shown(r.file_name) for r in rows[:3]) + ("…" if len(rows) > 3 else "")
        question = f"Remove {names} from the library? {_untouched(rows)}"
        folders = self.watched.folders()
        if any(inside(r.path, f) for r in rows for f in folders):
            one = len(rows) == 1
            question += (
                f"\n\nA watched folder holds {'it' if one else 'them'}: {'it stays' if one else 'they stay'} "
                "out of the library all the same, until you add "
                f"{'it' if one else 'them'} again."
            )
        if not ask(self, "Remove from library", question, "Remove"):
            return
        # a queued file too: the queue drops it from the run, or forgets it once indexed
        paths = [r.path for r in rows]
        self.controller.remove(paths)
        self.model.mark_removing(paths)


def _untouched(rows: Sequence[Row]) -> str:
    """That the files stay, in agreement with how many (QA-77: "The files themselves" of
    one file)."""
    return (
        "The file itself is not touched."
        if len(rows) == 1
        else "The files themselves are not touched."
    )
