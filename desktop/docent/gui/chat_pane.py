"""The chat pane: a multi-turn conversation with streamed, cited, safely rendered answers."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import Answer, Collection, Conversation, EngineAPI, Turn, shown
from docent.gui.markdown_view import SafeBrowser, cite_url, parse_cite
from docent.gui.messages import bridge
from docent.gui.plain import ask, plain_label
from docent.gui.turn_markdown import turn_markdown
from docent.gui.workers import Task, Worker, run_in_worker

RENDER_INTERVAL_MS = 80  # streamed tokens are drawn at most this often
EXTRACTIVE_TEXT = "No language model is running — answers quote the best passages."


class ChatPane(QWidget):
    #: a citation chip was clicked: (turn number, citation number)
    citation_activated = Signal(int, int)
    #: an answer ended — answered, stopped or failed — and the pane is idle again (Turn)
    answer_finished = Signal(object)
    #: an answer began streaming
    answer_started = Signal()
    #: the user asked to retry with the model (after an extractive answer)
    retry_requested = Signal()
    #: another conversation is shown (that of the collection chosen)
    conversation_changed = Signal()

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        #: One conversation per collection (None: all of them), each remembering the
        #: collection it was started in; the one shown is ``conversation``.
        self._conversations: dict[str | None, Conversation] = {None: Conversation()}
        self.collection: Collection | None = None
        self.scope: list[str] = []
        #: the question being answered (not in the conversation until it is answered)
        self._asking: Turn | None = None
        self._streamed = ""
        self._worker: Worker[str, Answer] | None = None
        self.streamed_tokens = 0  # tokens shown as they arrived (all answers)
        self._frozen_turns = 0  # turns drawn for good, before _frozen_pos
        self._frozen_pos = 0
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self.redraw)
        self._build()
        self._update_scope_label()
        self.set_models([], engine.settings.ollama_model)

    def _build(self) -> None:
        title = QLabel("Chat")
        title.setObjectName("paneTitle")
        self.model_combo = QComboBox()
        self.model_combo.setToolTip("The Ollama model that writes answers")
        self.model_combo.setMinimumContentsLength(14)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(QLabel("Model"))
        top.addWidget(self.model_combo)

        self.banner = QFrame()
        self.banner.setObjectName("extractiveBanner")
        self.banner_label = QLabel(EXTRACTIVE_TEXT)
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextFormat(Qt.TextFormat.PlainText)
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip("Check for Ollama again and re-ask the last question")
        row = QHBoxLayout(self.banner)
        row.setContentsMargins(10, 6, 6, 6)
        row.addWidget(self.banner_label, 1)
        row.addWidget(self.retry_button)
        self.banner.setVisible(False)

        self.view = SafeBrowser()
        self.view.setObjectName("conversation")
        self.view.setPlaceholderText(
            "Ask about your documents. Answers cite sources as [1] [2]: click one."
        )

        self.scope_label = plain_label()  # file names, not markup
        self.scope_label.setObjectName("scope")
        self.clear_scope_button = QToolButton()
        self.clear_scope_button.setText("All documents")
        self.clear_scope_button.setToolTip("Ask the whole library again")
        scope_row = QHBoxLayout()
        scope_row.addWidget(self.scope_label, 1)
        scope_row.addWidget(self.clear_scope_button)

        self.input = QPlainTextEdit()
        self.input.setObjectName("question")
        self.input.setPlaceholderText("Ask about your documents…  (Ctrl+Enter to send)")
        self.input.setFixedHeight(72)
        self.send_button = QPushButton("Ask")
        self.send_button.setDefault(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setVisible(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        ask_row = QHBoxLayout()
        ask_row.addWidget(self.input, 1)
        ask_row.addLayout(buttons)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 8)
        layout.addLayout(top)
        layout.addWidget(self.banner)
        layout.addWidget(self.view, 1)
        layout.addLayout(scope_row)
        layout.addLayout(ask_row)

        self.send_button.clicked.connect(self._on_send)
        self.stop_button.clicked.connect(self.stop)
        self.retry_button.clicked.connect(self.retry_requested.emit)
        self.clear_scope_button.clicked.connect(self.clear_scope)
        self.view.link_activated.connect(self._on_link)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self.input, self._on_send)

    # Model and health ---------------------------------------------------------

    def set_models(self, models: list[str], current: str) -> None:
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        names = list(models) or [current]
        if current not in names:
            names.insert(0, current)
        self.model_combo.addItems(names)
        self.model_combo.setCurrentText(current)
        self.model_combo.blockSignals(False)

    def selected_model(self) -> str | None:
        return self.model_combo.currentText() or None

    def set_extractive(self, on: bool, reason: str = "") -> None:
        self.banner_label.setText(reason or EXTRACTIVE_TEXT)
        self.banner.setVisible(on)

    # Collection and scope -----------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The chat shown: what the engine answered, turn by turn (core/conversation.py)."""
        return self._conversations[self.collection.id if self.collection else None]

    def set_collection(self, collection: Collection | None) -> None:
        """Ask ``collection`` from now on (None: all), in its own conversation: the one
        started there earlier comes back. Not while an answer streams."""
        key = collection.id if collection else None
        if self.streaming:
            return
        changed = key != (self.collection.id if self.collection else None)
        self.collection = collection
        if changed:
            conv = self._conversations.setdefault(key, Conversation(collection=key))
            self.scope = list(conv.scope or [])
            self._frozen_turns, self._frozen_pos = 0, 0
            self.view.clear()
            if conv.turns:
                self.redraw()
                self._freeze()
            self.conversation_changed.emit()
        self._update_scope_label()

    def set_scope(self, paths: list[str]) -> None:
        self.scope = list(paths)
        self._update_scope_label()
        self.input.setFocus()

    def clear_scope(self) -> None:
        self.set_scope([])

    def _update_scope_label(self) -> None:
        where = f"collection {self.collection.name}" if self.collection else "all documents"
        if not self.scope:
            self.scope_label.setText(f"Asking: {where}")
        else:
            names = ", ".join(shown(Path(p).name) for p in self.scope[:3])
            more = f" and {len(self.scope) - 3} more" if len(self.scope) > 3 else ""
            inside = f" (in collection {self.collection.name})" if self.collection else ""
            self.scope_label.setText(f"Asking only: {names}{more}{inside}")
        self.clear_scope_button.setText(
            f"All of {self.collection.name}" if self.collection else "All documents"
        )
        self.clear_scope_button.setVisible(bool(self.scope))

    # Asking -------------------------------------------------------------------

    @property
    def turns(self) -> list[Turn]:
        return self.conversation.turns

    def last_answer(self) -> Answer | None:
        """The last turn's answer (None while a question is being answered)."""
        if self.streaming or not self.conversation.turns:
            return None
        return self.conversation.turns[-1].answer

    @property
    def streaming(self) -> bool:
        return self._worker is not None

    def _on_send(self) -> None:
        question = self.input.toPlainText().strip()
        if question and not self.streaming:
            self.input.clear()
            self.ask(question)

    def ask(self, question: str) -> None:
        if self.streaming:
            return
        conversation = self.conversation  # the worker's until it finishes
        collection = self.collection.id if self.collection else ""
        files = list(self.scope)  # [] clears an earlier scope
        self._asking = Turn(len(conversation.turns) + 1, question, scope=files or None)
        self._streamed = ""
        model = self.selected_model()
        self._set_streaming(True)
        self.answer_started.emit()
        self.redraw()

        def job(task: Task[str]) -> Answer:
            return self.engine.ask(
                question,
                conversation=conversation,
                files=files,
                model=model,
                on_token=task.report,
                cancel=task.cancel,
                collection=collection,
            )

        self._worker = run_in_worker(
            job,
            name="ask",
            on_progress=self._on_token,
            on_result=self._on_answer,
            on_finished=self._on_ask_finished,
            error_text="The question could not be answered",
        )

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def retry_last(self) -> None:
        """Ask the last question again (after Ollama came back, say)."""
        if self.streaming:
            return
        last = self.conversation.pop()
        if last is None:
            return
        self._frozen_turns, self._frozen_pos = 0, 0  # redraw the whole conversation
        self.set_scope(last.scope or [])
        self.ask(last.question)

    def _on_token(self, token: str) -> None:
        if self._asking is None:
            return
        self._streamed += token
        self.streamed_tokens += 1
        if not self._render_timer.isActive():
            self._render_timer.start()

    def _on_answer(self, answer: Answer) -> None:
        self.set_extractive(answer.mode == "extractive", answer.reason)

    def _on_ask_finished(self) -> None:
        # The worker is done with the conversation: its last turn is this question's.
        self._worker, self._asking, self._streamed = None, None, ""
        self._set_streaming(False)
        self.redraw()
        self._freeze()
        if self.conversation.turns:
            self.answer_finished.emit(self.conversation.turns[-1])

    def _set_streaming(self, on: bool) -> None:
        self.send_button.setVisible(not on)
        self.stop_button.setVisible(on)
        self.model_combo.setEnabled(not on)

    # Rendering ----------------------------------------------------------------

    def redraw(self) -> None:
        """Draw the turns not yet final; finished turns stay as drawn (see _freeze)."""
        self._render_timer.stop()
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        # While a worker answers, the conversation is its own: only the question asked
        # is drawn, with the tokens so far.
        tail = [] if self._asking is not None else self.conversation.turns[self._frozen_turns :]
        parts = [turn_markdown(t) for t in tail]
        if self._asking is not None:
            parts.append(turn_markdown(self._asking, streamed=self._streamed, streaming=True))
        first = tail[0] if tail else self._asking
        md = ("---\n\n" if first is not None and first.number > 1 else "") + "\n\n---\n\n".join(
            parts
        )
        matched = {
            cite_url(t.number, c.n)
            for t in tail
            if t.answer
            for c in t.answer.citations
            if c.source == "matched"
        }
        with self.view.one_edit():
            self.view.replace_tail(self._frozen_pos, md, matched)
            if not self.streaming:
                unsupported = [s for t in tail if t.answer for s in t.answer.unsupported_sentences]
                self.view.mark_sentences(unsupported, self._frozen_pos)
        if at_bottom:
            bar.setValue(bar.maximum())

    def _freeze(self) -> None:
        """The turns so far are final: later redraws leave them alone."""
        self._frozen_turns = len(self.conversation.turns)
        self._frozen_pos = self.view.new_tail()

    def _on_link(self, url: QUrl) -> None:
        cite = parse_cite(url)
        if cite is not None:
            self.citation_activated.emit(*cite)
        elif url.scheme() in ("http", "https"):
            question = f"Open this address in your browser?\n\n{url.toString()}"
            if ask(self, "Open a link from an answer?", question, "Open"):
                QDesktopServices.openUrl(url)
        else:
            bridge().warning(
                f"Docent does not open '{url.scheme() or 'relative'}:' links from answers or "
                "documents; use Open file in the library or citation pane instead."
            )

    def export_markdown(self) -> str:
        return self.conversation.to_markdown()
