"""The main window: library | chat | sources in splitters, menus, status bar, drops."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import (
    SUPPORTED_SUFFIXES,
    Collection,
    Conversation,
    DocumentChanged,
    EngineAPI,
    FolderStatus,
    Health,
    SettingsApplied,
    Status,
    Turn,
    conversation_markdown,
    conversations_json,
)
from docent.gui.chat_pane import ChatPane
from docent.gui.citation_pane import CitationPane
from docent.gui.collection_bar import status_text
from docent.gui.health import HEALTH_TIMEOUT, banner, describe
from docent.gui.heap import settle_heap
from docent.gui.library_pane import LibraryPane, local_paths
from docent.gui.messages import NotificationArea, bridge
from docent.gui.plain import plain_label, plain_tip
from docent.gui.settings_dialog import FIELD_LABELS, SettingsDialog
from docent.gui.shortcuts import show_shortcuts
from docent.gui.summary_dialog import SummaryDialog
from docent.gui.welcome import WelcomePanel
from docent.gui.workers import call_in_worker

STATUS_POLL_MS = 10_000
#: The status bar's counts follow document changes at most this often (a sweep of 1,000
#: unchanged files is 1,000 changes: one catalog count each kept a worker busy).
STATUS_AFTER_CHANGE_MS = 500
#: Width of the Sources pane while it has nothing to show (it widens for an answer's).
SOURCES_IDLE_WIDTH = 220
HEALTH_POLL_MS = 30_000
#: The window's size at its first start, bounded by the screen's room.
FIRST_SIZE = QSize(1500, 920)


#: The file dialog offers every type Docent reads (the extraction module's list).
DOCUMENT_FILTER = (
    "Documents ("
    + " ".join(f"*{s}" for s in sorted(SUPPORTED_SUFFIXES))
    + ");;PDF (*.pdf);;Office and e-books (*.docx *.pptx *.xlsx *.odt *.epub *.html);;"
    "All files (*)"
)


class MainWindow(QMainWindow):
    #: a health check finished (Health)
    health_changed = Signal(object)
    #: the embedding model is loaded and the heap settled (the first drop or question is quick)
    warmed_up = Signal()

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setWindowTitle("Docent")
        self.setAcceptDrops(True)
        self.gui_settings = QSettings(
            str(engine.settings.data_path / "gui.ini"), QSettings.Format.IniFormat
        )
        self.health: Health | None = None
        self._health_running = False
        self._health_again = False  # the model changed while a check ran: check again
        self._health_waiters: list[Callable[[], None]] = []  # to run after the next check
        self._status_running = False
        #: the library's last status (shown again when the collection shown changes)
        self._status: Status | None = None
        self.dialogs: list[QWidget] = []
        self._citations_turn = 0  # the turn whose sources the citation pane lists
        #: the question being answered, and whether the person opened a citation since it
        #: was asked (a chip, a row of the sources): another question's page then stays,
        #: the answer's sources waiting for a click of its own chips (QA-78: the page being
        #: read went back to the hint when the answer came). A Retry's answer replaces its
        #: earlier attempt's sources, whatever was opened meanwhile.
        self._asking = False
        self._opened_while_asking = False
        self._sources_width = 0  # the Sources pane's width before it was narrowed
        #: The panes' sizes before fit_sources narrowed the Sources pane, until the user
        #: lays them out again: what is saved (saved narrowed, each restart gave the
        #: library more of the Sources' width: review).
        self._laid_out: list[int] | None = None
        self._build()
        self._menus()
        self._wire()
        self._restore()
        self._timers()
        #: Snapshots of the conversations handed to be kept (``save_conversations``).
        self._conversations_saved = 0
        #: The conversations kept last time were read back (``_restore_conversations``).
        self._conversations_read = False
        QTimer.singleShot(0, self, self._start)

    # Building -----------------------------------------------------------------

    def _build(self) -> None:
        self.notifications = NotificationArea()
        self.library = LibraryPane(self.engine)
        self.chat = ChatPane(self.engine)
        self.citations = CitationPane(self.engine)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.library)
        self.splitter.addWidget(self.chat)
        self.splitter.addWidget(self.citations)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.splitterMoved.connect(self._on_laid_out)
        self.splitter.setSizes([530, 500, 530])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # while the library is empty
        self.welcome = WelcomePanel(ocr=self.engine.settings.ocr_enabled)
        layout.addWidget(self.welcome)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        # floating over the panes, not in the layout: a message does not move them
        self.notifications.setParent(central)  # (this hides it: shown again if it has notes)
        self.notifications.setVisible(bool(self.notifications.notifications()))
        self.notifications.changed.connect(self._place_notifications)
        # the stack sits above the chat's question box: placed again when that moves
        self.chat.view.installEventFilter(self)

        sb = self.statusBar()
        self.docs_label = plain_label("Opening the library…")
        self.index_label = plain_label()  # names the file being indexed
        self.ollama_label = plain_label("Ollama: checking…")
        self.store_label = plain_label()
        self.store_label.setObjectName("muted")
        # the counts never shrink; the indexing line gives way instead
        self.docs_label.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
        self.index_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        sb.addWidget(self.docs_label)
        sb.addWidget(self.index_label, 1)
        sb.addPermanentWidget(self.ollama_label)
        sb.addPermanentWidget(self.store_label)
        self._show_store()

    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        self.addAction(action)
        return action

    def _menus(self) -> None:
        std = QKeySequence.StandardKey
        self.add_files_action = self._action("Add files…", self.add_files, std.Open)
        self.add_folder_action = self._action("Add folder…", self.add_folder, "Ctrl+Shift+O")
        self.watch_action = self._action(
            "Watch folder…", self.library.watched.choose_folder, "Ctrl+Shift+W"
        )
        self.export_action = self._action("Export chat…", self.export_chat, "Ctrl+E")
        self.settings_action = self._action("Settings…", self.open_settings, std.Preferences)
        if self.settings_action.shortcut().isEmpty():
            self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.quit_action = self._action("Quit", self.close, std.Quit)
        if self.quit_action.shortcut().isEmpty():
            self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        file_menu = self.menuBar().addMenu("&File")
        for a in (self.add_files_action, self.add_folder_action, self.watch_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self.new_chat_action = self._action("New conversation", self.new_conversation, std.New)
        if self.new_chat_action.shortcut().isEmpty():
            self.new_chat_action.setShortcut(QKeySequence("Ctrl+N"))
        self.ask_focus_action = self._action("Type a question", self.chat.focus_question, "Ctrl+L")
        self.retry_action = self._action("Ask again", self._retry, "Ctrl+R")
        chat_menu = self.menuBar().addMenu("&Chat")
        chat_menu.addAction(self.new_chat_action)
        chat_menu.addAction(self.ask_focus_action)
        chat_menu.addAction(self.retry_action)
        chat_menu.addAction(self._action("Ask the whole library", self.chat.clear_scope))
        chat_menu.addAction(self._action("Stop answering", self.chat.stop, "Esc"))
        help_menu = self.menuBar().addMenu("&Help")
        self.shortcuts_action = self._action(
            "Keyboard shortcuts", lambda: show_shortcuts(self), std.HelpContents
        )
        if self.shortcuts_action.shortcut().isEmpty():
            self.shortcuts_action.setShortcut(QKeySequence("F1"))
        help_menu.addAction(self.shortcuts_action)
        help_menu.addSeparator()
        help_menu.addAction(self._action("About Docent", self._about))

    def _wire(self) -> None:
        lib, chat = self.library, self.chat
        lib.collection_bar.collection_changed.connect(self._on_collection_changed)
        lib.collection_bar.collections_changed.connect(self._on_collections_read)
        chat.answer_started.connect(lambda: lib.collection_bar.setEnabled(False))
        chat.answer_started.connect(self._on_answer_started)
        self.citations.citation_opened.connect(self._on_citation_opened)
        chat.answer_finished.connect(lambda _: lib.collection_bar.setEnabled(True))
        lib.ask_about_requested.connect(chat.set_scope)
        lib.summarize_requested.connect(self.summarize)
        lib.controller.overall_progressed.connect(
            # the run's share, said as such: "(39%)" after a file's name read as that
            # file's, beside its row's 26% (QA-78)
            lambda f, label: self.index_label.setText(f"{label} (all files: {int(f * 100)}%)")
        )
        lib.controller.run_finished.connect(lambda _: self._after_run())
        lib.controller.documents_changed.connect(lambda _: self.refresh_status())
        lib.controller.document_changed.connect(self._on_document_changed)
        chat.answer_finished.connect(self._on_answer_finished)
        chat.attempt_shown.connect(self._show_sources_of)
        # another collection's conversation, or a new one: its last sources, if any
        chat.conversation_changed.connect(
            lambda: self._show_sources_of(chat.turns[-1] if chat.turns else None)
        )
        chat.citation_activated.connect(self.show_citation)
        chat.retry_requested.connect(self._retry)
        chat.anyway_requested.connect(self._ask_anyway)
        chat.model_chosen.connect(self.choose_model)
        self.welcome.add_folder_requested.connect(self.add_folder)
        self.welcome.add_files_requested.connect(self.add_files)
        # the first document's row appears while it is read, long before the catalog
        # counts it: "Your library is empty" would be wrong from then on
        self.library.model.rowsInserted.connect(lambda *_: self.welcome.set_library_empty(False))
        self.library.model.records_taken.connect(self._on_library_read)
        self.health_changed.connect(
            lambda h: self.welcome.show_health(
                h, self.engine.settings.ollama_model, self.engine.settings.effective_ollama_host()
            )
        )

    def _timers(self) -> None:
        self.status_timer = QTimer(self)
        self.status_timer.setInterval(STATUS_POLL_MS)
        self.status_timer.timeout.connect(self.refresh_status)
        self.status_timer.start()
        self.health_timer = QTimer(self)
        self.health_timer.setInterval(HEALTH_POLL_MS)
        self.health_timer.timeout.connect(self.check_health)
        self.health_timer.start()
        self.status_soon = QTimer(self)
        self.status_soon.setSingleShot(True)
        self.status_soon.setInterval(STATUS_AFTER_CHANGE_MS)
        self.status_soon.timeout.connect(self._refresh_counts)

    def _start(self) -> None:
        saved = self.gui_settings.value("collection/current")
        if isinstance(saved, str) and saved:
            self.library.collection_bar.select(saved)
        # Loading the embedding model holds the GIL for a moment: do it now, while the
        # window appears, rather than in the middle of the first drop or question; then
        # take what startup made out of the garbage collector's sight (see heap.py).
        settle_heap()
        self.fit_sources(False)  # nothing to show yet: room for the library and the chat
        call_in_worker(
            self.engine.warm_up,
            name="warm-up",
            # returned, not finished: a model that failed to load is not ready, and the
            # error is said once (not again by a resume that needs the same model)
            on_result=self._on_warmed_up,  # a method: dropped if the window is gone
            error_text="Loading the embedding model failed",
        )
        call_in_worker(  # the conversations kept when Docent last closed (QA-80)
            self.engine.saved_conversations,
            name="read conversations",
            on_result=self._restore_conversations,
            error_text="The conversations kept last time could not be read",
        )
        self.library.refresh()
        self.refresh_status()
        self.check_health()
        for note in self.engine.notes:  # what opening changed (core/consistency.py)
            bridge().warning(note)
        call_in_worker(
            self.engine.start_watching,
            name="start-watching",
            on_result=self._on_watching,
            error_text="Watching folders failed",
        )

    # Persistence --------------------------------------------------------------

    def _restore(self) -> None:
        s = self.gui_settings
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:  # the first run: roomy, but never past the screen (a 1366x768 laptop)
            screen = self.screen() or QGuiApplication.primaryScreen()
            room = screen.availableGeometry().size() if screen is not None else FIRST_SIZE
            self.resize(FIRST_SIZE.boundedTo(room))
        for splitter in (self.splitter, self.citations.splitter):
            state = s.value(f"splitters/{splitter.objectName()}")
            if isinstance(state, QByteArray):
                splitter.restoreState(state)

    def _on_laid_out(self, *_: object) -> None:
        self._laid_out = None  # the user dragged a divider: this is their layout now

    def save_layout(self) -> None:
        s = self.gui_settings
        s.setValue("window/geometry", self.saveGeometry())
        if self._laid_out is not None:  # the user's layout, not the one narrowed for now
            self.splitter.setSizes(self._laid_out)
        for splitter in (self.splitter, self.citations.splitter):
            s.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())
        s.sync()

    # Status -------------------------------------------------------------------

    def _show_store(self) -> None:
        s = self.engine.settings
        where = s.qdrant_url or str(s.data_path)
        self.store_label.setText(f"Store: {where}")
        self.store_label.setToolTip(plain_tip(f"Data folder: {s.data_path}"))

    def _on_warmed_up(self, _: None) -> None:
        settle_heap()
        self.warmed_up.emit()
        self._resume_unfinished()

    def _resume_unfinished(self) -> None:
        """Index what the last session left queued, and what an older index format or
        another embedding model left outdated: once the model loaded, since indexing
        needs it (a model that fails would fail the resume too, with a second error)."""
        scans = self.engine.awaiting_ocr
        if self.engine.recovered or self.engine.outdated or self.engine.changed or scans:
            n = len(self.engine.recovered)
            if n:
                s = "s" if n > 1 else ""
                bridge().info(f"Resuming {n} document{s} left unfinished last time.")
            if m := len(self.engine.outdated):
                s = "s" if m > 1 else ""
                bridge().info(f"Updating the search index of {m} document{s} (still searchable).")
            if scans:
                which = "1 document" if len(scans) == 1 else f"{len(scans)} documents"
                bridge().info(f"Reading the scanned pages of {which} now that OCR is on.")
            if c := len(self.engine.changed):
                which = "1 document" if c == 1 else f"{c} documents"
                bridge().info(
                    f"Checking {which} changed on disk since {'it was' if c == 1 else 'they were'} "
                    "indexed (searchable as indexed meanwhile)."
                )
            self.library.controller.resume()

    def _on_library_read(self) -> None:
        """The library's rows are in: they live as long as the window, so the first read
        is frozen out of later collections too (at 10,000 documents the full collections,
        which walked them with the rest, took 25-90 ms in whichever thread allocated,
        holding the GIL)."""
        self.library.model.records_taken.disconnect(self._on_library_read)
        settle_heap()

    def _on_watching(self, folders: list[FolderStatus]) -> None:
        self.library.watched.show_folders(folders)

    def _on_document_changed(self, change: DocumentChanged) -> None:
        self.citations.forget(change.progress.path)  # its pages may differ now
        if change.record is None:  # gone from the library
            self.chat.forget_document(change.progress.path)
        else:  # (back) in it
            self.chat.know_document(change.progress.path)
        # counts move with a document indexed, renamed or removed, not with one a sweep
        # found unchanged (a read of 10,000 documents' collections: ~60 ms; review s30)
        if change.progress.phase != "unchanged" and not self.status_soon.isActive():
            self.status_soon.start()

    def _refresh_counts(self) -> None:
        """A document changed: the library's counts, and the collection's when one is
        shown (the status bar shows its counts, which waited for the job's end: a minute
        for a big watched file, QA session 30)."""
        self.refresh_status()
        if self.library.collection_bar.current is not None:
            self.library.collection_bar.refresh()

    def refresh_status(self) -> None:
        if self._status_running:
            return
        self._status_running = True
        call_in_worker(
            self.engine.status,
            name="status",
            on_result=self._show_status,
            on_finished=self._on_status_done,
            error_text="Could not read the library's status",
        )

    def _on_status_done(self) -> None:
        self._status_running = False

    def _show_status(self, st: Status | None = None) -> None:
        """Show ``st`` (or the last one again: the collection shown changed)."""
        st = st or self._status
        if st is None:
            return
        self._status = st
        self.docs_label.setText(status_text(st, self.library.collection_bar.current))
        self.welcome.set_library_empty(st.documents == 0 and self.library.model.rowCount() == 0)

    def _after_run(self) -> None:
        self.index_label.setText("")
        self.refresh_status()

    def check_health(self, then: Callable[[], None] | None = None) -> None:
        """Check Ollama in a worker; ``then`` runs after a check that began after it was
        asked for (a Retry pressed while the poll's check runs waits for the next one)."""
        if then is not None:
            self._health_waiters.append(then)
        if self._health_running:
            self._health_again = True  # the one running may be about another model
            return
        self._health_running = True
        engine = self.engine

        def done() -> None:
            self._health_running = False
            if self._health_again:
                self._health_again = False
                self.check_health()
                return
            waiters, self._health_waiters = self._health_waiters, []
            for waiter in waiters:
                waiter()

        call_in_worker(
            lambda: engine.llm_health(HEALTH_TIMEOUT),
            name="health",
            on_result=self._show_health,
            on_finished=done,
            error_text="Could not check Ollama",
        )

    def _show_health(self, health: Health) -> None:
        self.health = health
        self.chat.set_models(list(health.models), self.engine.settings.ollama_model)
        self._show_model_state()
        self.health_changed.emit(health)

    def _show_model_state(self) -> None:
        """The status bar and the chat's banner, from the same health check of the same
        model (the settings' one, which the chat's box sets): they cannot disagree."""
        model = self.engine.settings.ollama_model
        if self.health is None:
            self.ollama_label.setText("Ollama: checking…")
            self.ollama_label.setToolTip("")
        else:
            self.ollama_label.setText(describe(self.health, model))
            self.ollama_label.setToolTip(plain_tip(self.health.message))
        text, retry = banner(self.health, model, self.chat.last_answer())
        self.chat.set_banner(text, retry=retry)

    def choose_model(self, name: str) -> None:
        """The chat's model box picked ``name``: it becomes the setting (saved), so
        answers, summaries, the banner and the status bar all use it."""
        if name == self.engine.settings.ollama_model:
            return
        self.health = None  # it was about the model before: nothing said until checked
        self._show_model_state()
        engine = self.engine

        def failed(exc: Exception) -> None:
            # the box goes back to the model the settings still name: the next question
            # went to the one picked, which nothing had switched to
            combo = self.chat.model_combo
            names = [combo.itemText(i) for i in range(combo.count())]
            self.chat.set_models(names, engine.settings.ollama_model)
            bridge().error(
                f"Could not switch to {name}: {exc}" if str(exc) else f"Could not switch to {name}"
            )

        call_in_worker(
            lambda: engine.apply_settings({"ollama_model": name}),
            name="choose-model",
            on_error=failed,
            on_finished=self.check_health,  # either way: the status bar said "checking…"
        )

    def current_model(self) -> str:
        """The one model choice (the chat's box shows it; Settings saves it)."""
        return self.chat.selected_model() or self.engine.settings.ollama_model

    # Collections ---------------------------------------------------------------

    def _on_collections_read(self, _: list[Collection]) -> None:
        """A rename: the chat says the new name; new counts: the status bar shows them."""
        self.chat.set_collection(self.library.collection_bar.current)
        self._show_status()

    def _on_collection_changed(self, collection: Collection | None) -> None:
        """The library shows it (the pane follows the bar itself); the chat asks it, in the
        conversation started there (the sources pane follows: conversation_changed)."""
        self.chat.set_collection(collection)
        self._show_status()
        self.gui_settings.setValue("collection/current", collection.id if collection else "")

    # Chat <-> citations -------------------------------------------------------

    def _on_answer_started(self) -> None:
        self._asking, self._opened_while_asking = True, False

    def _on_citation_opened(self) -> None:
        self._opened_while_asking = self._asking

    def _restore_conversations(self, conversations: list[Conversation]) -> None:
        """Those kept at the last close, shown again; one whose collection has a new
        conversation already (a question asked before they were read) is kept as
        Markdown instead, never written over."""
        for conv in self.chat.restore(conversations):
            self._keep(conversation_markdown(conv), say=True)
        self._conversations_read = True
        if any(c.turns for c in self.chat.open_conversations()):
            self.save_conversations()  # (one asked before they were read: not saved yet)

    def save_conversations(self) -> None:
        """Keep the conversations as they are now (a worker writes them; the latest
        snapshot wins). After each answer, Ctrl+N, and on close: a crash loses at most
        the answer being written. Not before the kept ones are read back: a window
        closed first wrote over them with none (review 85)."""
        if not self._conversations_read:
            return
        self._conversations_saved += 1
        text = conversations_json(self.chat.open_conversations())
        engine, generation = self.engine, self._conversations_saved
        call_in_worker(
            lambda: engine.save_conversations(text, generation),
            name="save conversations",
            error_text="Could not keep the conversations",
        )

    def _on_answer_finished(self, turn: Turn) -> None:
        self.save_conversations()
        reading = self._opened_while_asking and self._citations_turn != turn.number
        self._asking = self._opened_while_asking = False
        if not reading:
            self._show_sources_of(turn)
        self._show_model_state()  # an extractive answer with Ollama up offers Retry
        extractive = turn.answer is None or turn.answer.mode == "extractive"
        if extractive and self.health is not None and self.health.ok:
            # Ollama may have gone since the last poll: the banner said it was running
            # with the model until the next one, beside "Ollama is not running" (review)
            self.check_health()

    def _show_sources_of(self, turn: Turn | None) -> None:
        cites = turn.citations if turn is not None else []
        self.citations.set_citations(cites)
        self._citations_turn = turn.number if turn is not None else 0
        if cites:
            self.fit_sources(True)
        elif turn is None:
            # an empty conversation (a new one, another collection's with no turns): as
            # at start; an answer without sources (an abstention, a stop) leaves the
            # panes where they are, so they do not jump with every question
            self.fit_sources(False)

    def fit_sources(self, has_sources: bool) -> None:
        """The Sources pane is narrow while the conversation is empty (at start, a new
        conversation), and gets its width back (a third at least) when an answer has
        sources."""
        sizes = self.splitter.sizes()
        if len(sizes) != 3 or sum(sizes) <= 0:
            return
        lib, chat, src = sizes
        if not has_sources and src > SOURCES_IDLE_WIDTH:
            self._sources_width = src
            self._laid_out = sizes
            spare = src - SOURCES_IDLE_WIDTH
            self.splitter.setSizes(
                [lib + spare // 3, chat + spare - spare // 3, SOURCES_IDLE_WIDTH]
            )
        elif has_sources and src <= SOURCES_IDLE_WIDTH and self._laid_out is not None:
            # the panes as they were before they gave way, exactly: computed again, each
            # narrowing and widening gave the library more (review)
            if sum(self._laid_out) == sum(sizes):
                self.splitter.setSizes(self._laid_out)
                self._laid_out = None
                return
            self._laid_out = None
            self.fit_sources(True)
        elif has_sources and src <= SOURCES_IDLE_WIDTH:
            total = lib + chat + src
            want = max(self._sources_width, total // 3)
            take = want - src
            chat_share = min(take, max(0, chat - total // 3))
            self.splitter.setSizes([lib - (take - chat_share), chat - chat_share, want])

    def show_citation(self, turn_number: int, n: int) -> None:
        turn = self.chat.turn(turn_number)
        if turn is None:
            return
        if self._citations_turn != turn_number:
            self._show_sources_of(turn)
        self.citations.select(n)

    def _retry(self) -> None:
        """Retry, or Ctrl+R: under an answer withheld on retrieval's verdict, what the
        answer bar offers there, Ask anyway (asked again, it was withheld again)."""
        last = self.chat.last_answer()
        self._ask_again(anyway=True if last is not None and last.retrieval_abstained else None)

    def _ask_anyway(self) -> None:
        self._ask_again(anyway=True)

    def _ask_again(self, *, anyway: bool | None) -> None:
        """Retry (or Ask anyway) once Ollama is checked, for the conversation it was
        pressed in: another collection's, shown meanwhile, is not asked again."""
        chat, conversation = self.chat, self.chat.conversation

        def then() -> None:
            if chat.conversation is conversation:
                chat.retry_last(anyway=anyway)
            else:
                bridge().info("Not asked again: another conversation is shown now.")

        self.check_health(then=then)

    def new_conversation(self) -> None:
        done = self.chat.export_markdown() if self.chat.shown_turns() else ""
        if not self.chat.new_conversation():
            bridge().info("Stop the answer being written first (Esc), then start anew.")
            return
        self.save_conversations()
        if done:
            self._keep(done, say=True)

    def _keep(self, markdown: str, *, say: bool) -> None:
        """Keep a conversation the window is done with in the data folder, in a worker
        (Ctrl+N and closing lost it for good; QA-80)."""
        engine = self.engine
        call_in_worker(
            lambda: engine.keep_conversation(markdown),
            name="keep conversation",
            on_result=(
                (lambda path: bridge().info(f"The last conversation is kept in {path}."))
                if say
                else None
            ),
            error_text="Could not keep the conversation",
        )

    # Actions ------------------------------------------------------------------

    def add_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Add files", "", DOCUMENT_FILTER)
        if files:
            self.library.add_paths(files)

    def add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add folder")
        if folder:
            self.library.add_paths([folder])

    def summarize(self, path: str) -> None:
        dialog = SummaryDialog(
            self.engine, path, self.engine.settings.summary_type, self, model=self.current_model()
        )
        self.dialogs.append(dialog)
        dialog.finished.connect(lambda _: self.dialogs.remove(dialog))
        dialog.show()
        dialog.start()

    def export_chat(self) -> None:
        if not self.chat.shown_turns():
            bridge().info("There is no conversation to export yet.")
            return
        # in the home folder, dated: a bare name opened the folder Docent was started
        # from (QA-80)
        suggested = Path.home() / f"docent-chat-{time.strftime('%Y-%m-%d')}.md"
        name, _ = QFileDialog.getSaveFileName(
            self, "Export chat", str(suggested), "Markdown (*.md)"
        )
        if not name:
            return
        text = self.chat.export_markdown()

        def save() -> str:
            Path(name).write_text(text, encoding="utf-8")
            return name

        call_in_worker(
            save,
            name="export",
            on_result=lambda n: bridge().info(f"Saved the conversation to {n}."),
            error_text="Could not save the conversation",
        )

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.engine, self)
        dialog.settings_applied.connect(self._on_settings_applied)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _on_settings_applied(self, applied: SettingsApplied) -> None:
        """The engine saved and applied them; the window follows."""
        models = self.health.models if self.health is not None else []
        self.chat.set_models(models, applied.settings.ollama_model)
        self.check_health()
        self.library.watched.refresh()
        # what the errors and warnings said was about the settings before
        self.notifications.clear()
        if applied.restart:
            names = ", ".join(FIELD_LABELS.get(k, k) for k in applied.restart)
            moved = ""
            if "data_dir" in applied.restart:  # QA-79: the next start looked like a loss
                moved = (
                    f" The library in {self.engine.settings.data_path} stays there (nothing "
                    "is moved): the new folder starts empty, or opens the library it holds."
                )
            bridge().info(f"Saved. {names}: takes effect when Docent starts again.{moved}")
        else:
            bridge().info("Settings saved and applied.")

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About Docent",
            "Docent — chat with your own documents, locally.\n\n"
            f"Data folder: {self.engine.settings.data_path}",
        )

    def notification_room(self, central: QWidget) -> QRect:
        """Where notifications may float (``central``'s coordinates): the window's width,
        down to the bottom of the conversation, above the question box, Ask, Retry and the
        scope line, which they must never cover."""
        view = self.chat.view
        bottom = view.mapTo(central, view.rect().bottomLeft()).y()
        return QRect(0, 0, central.width(), max(1, bottom + 1))

    def _place_notifications(self) -> None:
        central = self.centralWidget()
        if central is not None and self.notifications.isVisibleTo(central):
            self.notifications.place(self.notification_room(central))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.chat.view and event.type() in (QEvent.Type.Resize, QEvent.Type.Move):
            self._place_notifications()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_notifications()

    # Drag and drop ------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.library.add_paths(paths)

    # Closing ------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        self.status_timer.stop()
        self.status_soon.stop()
        self.health_timer.stop()
        self.library.controller.detach()
        if self._conversations_read:
            self.save_conversations()  # shown again at the next start (the quit waits)
        else:  # closed before the kept ones were read back: these are kept aside
            for conv in self.chat.open_conversations():
                if conv.turns:
                    self._keep(conversation_markdown(conv), say=False)
        self.chat.stop()
        super().closeEvent(event)
