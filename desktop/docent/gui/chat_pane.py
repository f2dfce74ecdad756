"""The chat pane: a multi-turn conversation with streamed, cited, safely rendered answers."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

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

from docent.core.conversation import Conversation  # imported now, not mid-question
from docent.core.engine import Engine
from docent.core.errors import Cancelled
from docent.gui.conversation import Turn, conversation_markdown, turn_markdown
from docent.gui.markdown_view import SafeBrowser, parse_cite
from docent.gui.messages import bridge
from docent.gui.workers import Report, Worker, run_in_worker

RENDER_INTERVAL_MS = 80  # streamed tokens are drawn at most this often
EXTRACTIVE_TEXT = "No language model is running — answers quote the best passages."


class ChatPane(QWidget):
    #: a citation chip was clicked: (turn index, citation number)
    citation_activated = Signal(int, int)
    #: an answer ended — answered, stopped or failed — and the pane is idle again (Turn)
    answer_finished = Signal(object)
    #: an answer began streaming
    answer_started = Signal()
    #: the user asked to retry with the model (after an extractive answer)
    retry_requested = Signal()

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.turns: list[Turn] = []
        self.scope: list[str] = []
        self._conversation: Conversation | None = None
        self._worker: Worker[Any] | None = None
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

        self.scope_label = QLabel()
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

    # Scope --------------------------------------------------------------------

    def set_scope(self, paths: list[str]) -> None:
        self.scope = list(paths)
        self._update_scope_label()
        self.input.setFocus()

    def clear_scope(self) -> None:
        self.set_scope([])

    def _update_scope_label(self) -> None:
        if not self.scope:
            self.scope_label.setText("Asking: all documents")
        else:
            names = ", ".join(Path(p).name for p in self.scope[:3])
            more = f" and {len(self.scope) - 3} more" if len(self.scope) > 3 else ""
            self.scope_label.setText(f"Asking only: {names}{more}")
        self.clear_scope_button.setVisible(bool(self.scope))

    # Asking -------------------------------------------------------------------

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
        if not hasattr(self.engine, "ask"):
            bridge().warning("Answering is not available in this build; use search instead.")
            return
        turn = Turn(len(self.turns), question, scope=list(self.scope))
        self.turns.append(turn)
        self._set_streaming(True)
        self.answer_started.emit()
        self.redraw()
        self._worker = run_in_worker(
            self._ask_job(turn),
            name="ask",
            on_progress=self._on_token,
            on_result=lambda answer: self._on_answer(turn, answer),
            on_error=lambda exc: self._on_ask_error(turn, exc),
            on_finished=self._on_ask_finished,
        )

    def _ask_job(self, turn: Turn) -> Any:
        engine: Any = self.engine
        conversation = self._conversation_for_ask()
        files = list(turn.scope)  # [] clears an earlier scope
        model = self.selected_model()

        def job(report: Report, cancel: threading.Event) -> Any:
            return engine.ask(
                turn.question,
                conversation=conversation,
                files=files,
                model=model,
                on_token=report,
                cancel=cancel,
            )

        return job

    def _conversation_for_ask(self) -> Conversation:
        if self._conversation is None:
            self._conversation = Conversation()
        return self._conversation

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def retry_last(self) -> None:
        """Ask the last question again (after Ollama came back, say)."""
        if self.streaming or not self.turns:
            return
        last = self.turns.pop()
        self._frozen_turns, self._frozen_pos = 0, 0  # redraw the whole conversation
        if self._conversation is not None and hasattr(self._conversation, "turns"):
            turns = self._conversation.turns
            if turns and getattr(turns[-1], "question", None) == last.question:
                turns.pop()
        self.set_scope(last.scope)
        self.ask(last.question)

    def _on_token(self, token: object) -> None:
        if not self.turns or not isinstance(token, str):
            return
        self.turns[-1].text += token
        self.streamed_tokens += 1
        if not self._render_timer.isActive():
            self._render_timer.start()

    def _on_answer(self, turn: Turn, answer: Any) -> None:
        turn.set_answer(answer)
        mode = turn.mode
        self.set_extractive(mode == "extractive", getattr(answer, "reason", "") or "")

    def _on_ask_error(self, turn: Turn, exc: Exception) -> None:
        if isinstance(exc, Cancelled):
            partial = getattr(exc, "answer", None)  # AnswerCancelled keeps what arrived
            if partial is not None:
                turn.set_answer(partial)
            turn.stopped = True
        else:
            turn.error = str(exc) or exc.__class__.__name__
            bridge().error(f"The question could not be answered: {turn.error}")

    def _on_ask_finished(self) -> None:
        worker, self._worker = self._worker, None
        turn = self.turns[-1] if self.turns else None
        if worker is not None and worker.cancelled and turn is not None:
            turn.stopped = True
        self._set_streaming(False)
        self.redraw()
        self._freeze()
        if turn is not None:
            self.answer_finished.emit(turn)

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
        tail = self.turns[self._frozen_turns :]
        md = "\n\n".join(
            ("---\n\n" if t.index else "") + turn_markdown(t, streaming=self.streaming)
            for t in tail
        )
        with self.view.one_edit():
            self.view.replace_tail(self._frozen_pos, md)
            if not self.streaming:
                unsupported = [s for t in tail for s in t.unsupported]
                self.view.mark_sentences(unsupported, self._frozen_pos)
        if at_bottom:
            bar.setValue(bar.maximum())

    def _freeze(self) -> None:
        """The turns so far are final: later redraws leave them alone."""
        self._frozen_turns = len(self.turns)
        self._frozen_pos = self.view.new_tail()

    def _on_link(self, url: QUrl) -> None:
        cite = parse_cite(url)
        if cite is not None:
            self.citation_activated.emit(*cite)
        elif url.scheme() in ("http", "https"):
            QDesktopServices.openUrl(url)
        else:
            bridge().warning(
                f"Docent does not open '{url.scheme() or 'relative'}:' links from answers or "
                "documents; use Open file in the library or citation pane instead."
            )

    def export_markdown(self) -> str:
        if self._conversation is not None and hasattr(self._conversation, "to_markdown"):
            return str(self._conversation.to_markdown())
        return conversation_markdown(self.turns)
