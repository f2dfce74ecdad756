"""The chat pane: a multi-turn conversation with streamed, cited, safely rendered answers.

While a question is answered, a line under the conversation says the stage and the time
so far. Retry asks the last question again without losing its answer: the earlier answer
and its sources stay until the new one is complete, and ◀ ▶ switch between them.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import (
    Answer,
    AskStage,
    Collection,
    Conversation,
    EngineAPI,
    Turn,
    conversation_markdown,
    shown,
)
from docent.gui.chat_controls import AnswerBar, AskStatus
from docent.gui.chat_view import ConversationView
from docent.gui.markdown_view import parse_cite
from docent.gui.messages import bridge
from docent.gui.plain import as_written, ask, banner_html, middle, plain_label, plain_tip
from docent.gui.turn_markdown import chip_tips, matched_chips, turn_markdown
from docent.gui.workers import Task, Worker, run_in_worker

RENDER_INTERVAL_MS = 80  # streamed tokens are drawn at most this often
SEPARATOR = "\n\n---\n\n"


@dataclass(frozen=True, slots=True)
class AskProgress:
    """What a worker answering a question reports: a token, or the stage it reached."""

    token: str = ""
    stage: AskStage | None = None


#: What a question or a Retry asked while an answer is written is told (the question
#: stays in the box).
BUSY = "An answer is being written: stop it first (Esc), or ask once it is done."


class ChatPane(QWidget):
    #: a citation chip was clicked: (turn number, citation number)
    citation_activated = Signal(int, int)
    #: an answer ended — answered, stopped or failed — and the pane is idle again (Turn)
    answer_finished = Signal(object)
    #: an answer began streaming
    answer_started = Signal()
    #: another answer of the last question is shown (its Turn)
    attempt_shown = Signal(object)
    #: the user asked to retry the last question (the window checks Ollama first)
    retry_requested = Signal()
    #: the user asked the model anyway, though Docent withheld the last answer (the window
    #: checks Ollama first, then calls ``retry_last(anyway=True)``)
    anyway_requested = Signal()
    #: the user picked another model in the box (its name; the window saves the choice)
    model_chosen = Signal(str)
    #: another conversation is shown: that of the collection chosen, or a new empty one
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
        #: the turn a Retry asks again: shown, with its sources, until the new answer is in
        self._retrying: Turn | None = None
        #: the turns as they were when the question was asked (the worker owns the
        #: conversation meanwhile)
        self._shown_turns: list[Turn] = []
        self._streamed = ""
        #: documents that left the library: a Retry of a turn scoped to one leaves it out
        self._forgotten: set[str] = set()
        #: a collection chosen while an answer streamed, asked by the next question
        self._next_collection: tuple[Collection | None] | None = None
        self._scope_kept: list[str] = []  # the scope before it, should it be chosen back
        self._worker: Worker[AskProgress, Answer] | None = None
        self.streamed_tokens = 0  # tokens shown as they arrived (all answers)
        self._frozen_turns = 0  # turns drawn for good, before the view's frozen_pos
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
        self.model_combo.setToolTip(
            "The Ollama model that writes answers and summaries (the same as in Settings)"
        )
        self.model_combo.setAccessibleName("Model")
        self.model_combo.setMinimumContentsLength(12)
        self.model_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        model_label = QLabel("&Model")
        model_label.setBuddy(self.model_combo)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(model_label)
        top.addWidget(self.model_combo)

        self.banner = QFrame()
        self.banner.setObjectName("extractiveBanner")
        self.banner_label = QLabel()
        self.banner_label.setWordWrap(True)
        # rich text of Docent's own making only (``banner_html``): commands in code type
        self.banner_label.setTextFormat(Qt.TextFormat.RichText)
        self.banner_label.setAccessibleName("Language model status")
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip("Check for Ollama again and re-ask the last question")
        # two "Retry" buttons read alike to a screen reader (QA-80)
        self.retry_button.setAccessibleName("Check Ollama and ask again")
        row = QHBoxLayout(self.banner)
        row.setContentsMargins(10, 6, 6, 6)
        row.addWidget(self.banner_label, 1)
        row.addWidget(self.retry_button)
        self.banner.setVisible(False)

        self.view = ConversationView()
        self.view.setPlaceholderText("Answers cite their sources as [1] [2]: click one to see it.")
        self.status = AskStatus()
        self.answer_bar = AnswerBar()

        self.scope_label = plain_label()  # file names, not markup
        self.scope_label.setObjectName("scope")
        self.scope_label.setWordWrap(True)
        # a name is no wider than the pane lets it be (names are shortened, whole in the tip)
        self.scope_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.clear_scope_button = QToolButton()
        self.clear_scope_button.setText("All documents")
        self.clear_scope_button.setToolTip("Ask the whole library again")
        scope_row = QHBoxLayout()
        scope_row.addWidget(self.scope_label, 1)
        scope_row.addWidget(self.clear_scope_button)

        self.input = QPlainTextEdit()
        self.input.setObjectName("question")
        self.input.setAccessibleName("Question")
        self.input.setPlaceholderText("Ask about your documents…  (Ctrl+Enter to ask)")
        self.input.setTabChangesFocus(True)  # Tab goes on to Ask; a question needs no tab
        self.input.setFixedHeight(72)
        self.send_button = QPushButton("Ask")
        self.send_button.setToolTip("Ask the question (Ctrl+Enter)")
        self.send_button.setDefault(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the answer; what arrived is kept (Esc)")
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
        layout.addWidget(self.status)
        layout.addWidget(self.answer_bar)
        layout.addLayout(scope_row)
        layout.addLayout(ask_row)

        self.send_button.clicked.connect(self._on_send)
        self.stop_button.clicked.connect(self.stop)
        self.retry_button.clicked.connect(self.retry_requested.emit)
        self.answer_bar.retry_requested.connect(self.retry_requested.emit)
        self.answer_bar.anyway_requested.connect(self.anyway_requested.emit)
        self.answer_bar.attempt_requested.connect(self.show_attempt)
        self.answer_bar.latest_requested.connect(lambda: self.view.set_following(True))
        self.view.follow_changed.connect(self._on_follow_changed)
        self.clear_scope_button.clicked.connect(self.clear_scope)
        self.view.link_activated.connect(self._on_link)
        self.model_combo.activated.connect(self._on_model_activated)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self.input, self._on_send)

    # Model and health ---------------------------------------------------------

    def set_models(self, models: list[str], current: str) -> None:
        """The models Ollama has, ``current`` (the settings' one) selected."""
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

    def _on_model_activated(self, index: int) -> None:
        name = self.model_combo.itemText(index)
        if name and name != self.engine.settings.ollama_model:
            self.model_chosen.emit(name)

    def set_banner(self, text: str, *, retry: bool) -> None:
        """The language model's state above the chat ("" hides it)."""
        self.banner_label.setText(banner_html(text))
        self.retry_button.setVisible(retry)
        self.banner.setVisible(bool(text))

    # Collection and scope -----------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The chat shown: what the engine answered, turn by turn (core/conversation.py)."""
        return self._conversations[self.collection.id if self.collection else None]

    def set_collection(self, collection: Collection | None) -> None:
        """Ask ``collection`` from now on (None: all), in its own conversation: the one
        started there earlier comes back. Chosen while an answer streams, it waits for the
        next question (``ask``), the answer staying on screen."""
        key = collection.id if collection else None
        if self.streaming:
            # the next question asks it: switching now would take the answer being
            # written off the screen (the collection restored at startup did; review).
            # ``scope`` is the next question's from now on.
            if key == (self.collection.id if self.collection else None):
                self.collection = collection  # the same one (renamed, maybe)
                if self._next_collection is not None:  # chosen again: nothing waits
                    self._next_collection = None
                    self.scope = self._scope_kept
            else:
                if self._next_collection is None:
                    self._scope_kept = self.scope
                self._next_collection = (collection,)
                conv = self._conversations.get(key)
                self.scope = list(conv.scope or []) if conv else []
            self._update_scope_label()
            return
        waiting = self._next_collection
        if waiting is not None and key == (waiting[0].id if waiting[0] else None):
            # the bar saying again what waits (its list read again after the answer): it
            # still waits for the next question, the answer on screen (review, a flake)
            self._next_collection = (collection,)
            self._update_scope_label()
            return
        self._next_collection = None
        changed = key != (self.collection.id if self.collection else None)
        self.collection = collection
        if changed:
            conv = self._conversations.setdefault(key, Conversation(collection=key))
            self.scope = list(conv.scope or [])
            self._show_conversation()
        self._update_scope_label()

    def set_scope(self, paths: list[str]) -> None:
        self.scope = list(paths)
        self._update_scope_label()
        self.input.setFocus()

    def clear_scope(self) -> None:
        self.set_scope([])

    def know_document(self, path: str) -> None:
        """A document is in the library (again): a Retry may ask it."""
        self._forgotten.discard(path)

    def forget_document(self, path: str) -> None:
        """A document left the library: no question asks it any more (every one failed,
        "not in the library", until the scope was cleared by hand)."""
        self._forgotten.add(path)
        for conv in self._conversations.values():
            if conv.scope and path in conv.scope:
                conv.scope = [p for p in conv.scope if p != path] or None  # a new list
        if path in self.scope:
            self.scope = [p for p in self.scope if p != path]
            self._update_scope_label()
            everything = f"all of {self.collection.name}" if self.collection else "all documents"
            where = "only the other documents chosen" if self.scope else everything
            bridge().info(f"{shown(Path(path).name)} left the library: questions ask {where}.")

    def _update_scope_label(self) -> None:
        """What the next question asks (a collection chosen while an answer streamed
        included)."""
        coll = self.collection if self._next_collection is None else self._next_collection[0]
        asks = "Asking" if self._next_collection is None else "The next question asks"
        where = f"collection {coll.name}" if coll else "all documents"
        if not self.scope:
            self.scope_label.setText(f"{asks}: {where}")
            self.scope_label.setToolTip("")
        else:
            self.scope_label.setToolTip(plain_tip("\n".join(shown(p) for p in self.scope)))
            names = ", ".join(middle(shown(Path(p).name)) for p in self.scope[:3])
            more = f" and {len(self.scope) - 3} more" if len(self.scope) > 3 else ""
            inside = f" (in collection {coll.name})" if coll else ""
            self.scope_label.setText(f"{asks} only: {names}{more}{inside}")
        self.clear_scope_button.setText(
            f"All of {as_written(coll.name)}" if coll else "All documents"
        )
        self.clear_scope_button.setVisible(bool(self.scope))

    # The conversation ---------------------------------------------------------

    @property
    def turns(self) -> list[Turn]:
        return self.conversation.turns

    def shown_turns(self) -> list[Turn]:
        """The turns as shown: while a question is answered, those before it and the turn
        a Retry asks again (taken out of the conversation until its new answer is in)."""
        if not self.streaming:
            return list(self.conversation.turns)
        return [*self._shown_turns, *([self._retrying] if self._retrying is not None else [])]

    def turn(self, number: int) -> Turn | None:
        """Turn ``number`` as shown (while a question is answered: as it was then, and
        the turn being asked again)."""
        shown = self.shown_turns()
        return shown[number - 1] if 1 <= number <= len(shown) else None

    def last_answer(self) -> Answer | None:
        """The last turn's answer (None while a question is being answered)."""
        if self.streaming or not self.conversation.turns:
            return None
        return self.conversation.turns[-1].answer

    @property
    def streaming(self) -> bool:
        return self._worker is not None

    def new_conversation(self) -> bool:
        """Start over: no turns, no document scope (a new topic gets no old passages).
        Not while an answer streams."""
        if self.streaming:
            return False
        key = self.collection.id if self.collection else None
        self._conversations[key] = Conversation(collection=key)
        self.scope = []
        self._update_scope_label()
        self._show_conversation()
        self.input.setFocus()
        return True

    def _show_conversation(self) -> None:
        """Draw the conversation now shown from the start (another collection's, or a
        new one)."""
        self._frozen_turns = 0
        self.view.reset()
        turns = self.conversation.turns
        if turns:
            self._freeze_upto(len(turns) - 1)
            self.redraw()
        self._update_answer_bar()
        self.conversation_changed.emit()

    # Asking -------------------------------------------------------------------

    def focus_question(self) -> None:
        self.input.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.input.selectAll()

    def _on_send(self) -> None:
        question = self.input.toPlainText().strip()
        if question and self.streaming:  # it was ignored without a word (QA-77)
            bridge().info(BUSY)
        elif question:
            self.input.clear()
            self.ask(question)

    def ask(self, question: str) -> None:
        if self.streaming:
            return
        if self._next_collection is not None:  # chosen while the last answer streamed
            scope = self.scope  # chosen for it since ("Ask about")
            (chosen,), self._next_collection = self._next_collection, None
            self.set_collection(chosen)
            self.scope = scope
            self._update_scope_label()
        self._freeze_upto(len(self.conversation.turns))
        self._start(question)

    def retry_last(self, *, anyway: bool | None = None) -> None:
        """Ask the last question again; its answer stays until the new one is in.
        ``anyway``: ask the model even if retrieval judges the passages low (None: as the
        answer shown was asked, so a Retry of an answer asked anyway is asked anyway)."""
        if self.streaming:
            bridge().info(BUSY)
            return
        if not self.conversation.turns:
            return
        self._freeze_upto(len(self.conversation.turns) - 1)
        last = self.conversation.pop()
        if last is None:
            return
        if anyway is None:
            anyway = last.answer is not None and last.answer.asked_anyway
        self._retrying = last
        # the retry asks as the question was asked; the next question, as chosen since
        # ("Ask about" b.pdf, then Retry: the next one asked everything; review 84)
        following = self.scope
        self.scope = [p for p in last.scope or [] if p not in self._forgotten]
        self._start(last.question, attempt=last.next_attempt, anyway=anyway)
        self.set_scope([p for p in following if p not in self._forgotten])

    def _start(self, question: str, *, attempt: int = 1, anyway: bool = False) -> None:
        conversation = self.conversation  # the worker's until it finishes
        collection = self.collection.id if self.collection else ""
        self._shown_turns = list(conversation.turns)
        files = list(self.scope)  # [] clears an earlier scope
        self._asking = Turn(len(conversation.turns) + 1, question, scope=files or None)
        self._streamed = ""
        model = self.selected_model() or self.engine.settings.ollama_model
        self._set_streaming(True)
        self.status.start(model)
        self.view.set_following(True)
        self.answer_started.emit()
        self.redraw()
        engine = self.engine

        def job(task: Task[AskProgress]) -> Answer:
            return engine.ask(
                question,
                conversation=conversation,
                files=files,
                model=model,
                on_token=lambda t: task.report(AskProgress(token=t)),
                on_stage=lambda s: task.report(AskProgress(stage=s)),
                cancel=task.cancel,
                collection=collection,
                attempt=attempt,
                anyway=anyway,
            )

        self._worker = run_in_worker(
            job,
            name="ask",
            on_progress=self._on_progress,
            on_finished=self._on_ask_finished,
            error_text="The question could not be answered",
        )

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def _on_progress(self, p: AskProgress) -> None:
        if self._asking is None:
            return
        if p.stage is not None:
            self.status.set_stage(p.stage)
            if p.stage is AskStage.RETRYING:  # the first answer's words are dropped
                self._streamed = ""
                self.redraw()
            return
        self._streamed += p.token
        self.streamed_tokens += 1
        self.status.add_tokens(p.token)
        if not self._render_timer.isActive():
            self._render_timer.start()

    def _on_ask_finished(self) -> None:
        # The worker is done with the conversation: its last turn is this question's.
        self._worker, self._asking, self._streamed = None, None, ""
        if self._retrying is not None:
            self.conversation.retried(self._retrying)
            self._retrying = None
        self._shown_turns = []
        self.status.finish()
        self._set_streaming(False)
        self.redraw()
        self._update_answer_bar()
        if self.conversation.turns:
            self.answer_finished.emit(self.conversation.turns[-1])

    def show_attempt(self, attempt: int) -> None:
        """Show another answer of the last question (and, through the window, its sources)."""
        if self.streaming or not self.conversation.turns:
            return
        try:
            turn = self.conversation.show_attempt(attempt)
        except IndexError:
            return
        self.redraw()
        self._update_answer_bar()
        self.attempt_shown.emit(turn)

    def _set_streaming(self, on: bool) -> None:
        # The button pressed hands the focus on before it hides: hidden first, it threw
        # the focus to the next widget, the Sources list (review). Ask hands it to Stop
        # (the same key stops), Stop to the question box (the next question).
        pressed, shown = (
            (self.send_button, self.stop_button) if on else (self.stop_button, self.send_button)
        )
        had_focus = pressed.hasFocus()
        shown.setVisible(True)
        if had_focus:
            (self.stop_button if on else self.input).setFocus(Qt.FocusReason.OtherFocusReason)
        pressed.setVisible(False)
        self.model_combo.setEnabled(not on)
        self.retry_button.setEnabled(not on)  # the banner's: asks again, not mid-answer
        if not on:
            self.answer_bar.setEnabled(True)
        self._update_answer_bar()

    def _update_answer_bar(self) -> None:
        turns = self.conversation.turns
        # (asking: its worker is not made yet when the buttons change; the turn before's
        # bar showed, "Ask anyway" of an earlier question during a Retry; QA-80)
        if self.streaming or self._asking is not None or not turns:
            self.answer_bar.set_attempts(1, 1, can_retry=False)
            return
        last = turns[-1]
        total = len(last.others) + 1
        withheld = last.answer is not None and last.answer.retrieval_abstained
        self.answer_bar.set_attempts(last.attempt, total, can_retry=True, can_ask_anyway=withheld)

    def _on_follow_changed(self, following: bool) -> None:
        self.answer_bar.show_latest_button(not following)

    # Rendering ----------------------------------------------------------------

    def _freeze_upto(self, n: int) -> None:
        """Draw turns up to ``n`` for good (the live tail starts after them)."""
        if self._frozen_turns >= n:
            return
        turns = self.conversation.turns[self._frozen_turns : n]
        self._show(self._markdown(turns), turns)
        self.view.freeze()
        self._frozen_turns = n

    def redraw(self) -> None:
        """Draw the live tail: the last turn, or the question being answered (below the
        answer it asks again, for a Retry)."""
        self._render_timer.stop()
        if self._asking is not None:
            tail = [self._retrying] if self._retrying is not None else []
            md = self._markdown(tail)
            streaming = turn_markdown(
                self._asking,
                streamed=self._streamed,
                streaming=True,
                again=self._retrying is not None,
            )
            first = tail[0] if tail else self._asking
            lead = SEPARATOR.lstrip() if first.number > 1 and not tail else ""
            md = (md + SEPARATOR if md else lead) + streaming
            self._show(md, tail)
            return
        tail = self.conversation.turns[self._frozen_turns :]
        self._show(self._markdown(tail), tail)

    def _show(self, markdown: str, turns: list[Turn]) -> None:
        """Draw ``markdown`` as the live tail, underlining and outlining what the answers
        of ``turns`` (the ones it shows) say about their citations."""
        answers = [t.answer for t in turns if t.answer]
        self.view.show_tail(
            markdown,
            unsupported=[s for a in answers for s in a.unsupported_sentences],
            unsaid=[p for a in answers for p in a.unsaid_parts],
            matched=matched_chips(turns),
            tips=chip_tips(turns),
        )

    def _markdown(self, turns: list[Turn]) -> str:
        if not turns:
            return ""
        lead = SEPARATOR.lstrip() if turns[0].number > 1 else ""
        return lead + SEPARATOR.join(turn_markdown(t) for t in turns)

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

    def open_conversations(self) -> list[Conversation]:
        """Each conversation (one a collection), the one shown as shown: during a Retry
        with the turn asked again (taken out of it until its new answer is in)."""
        shown = self.conversation
        current = Conversation(self.shown_turns(), shown.scope, shown.collection)
        return [current if c is shown else c for c in self._conversations.values()]

    def restore(self, conversations: list[Conversation]) -> list[Conversation]:
        """Show again the conversations kept when Docent last closed (QA-80: they were
        lost), each in its collection; returns those not taken back: a conversation of
        that collection was begun since the window opened (the caller keeps them)."""
        shown = self.collection.id if self.collection else None
        left: list[Conversation] = []
        taken = False
        for conv in conversations:
            now = self._conversations.get(conv.collection)
            busy = self.streaming and conv.collection == shown
            if busy or (now is not None and now.turns):
                left.append(conv)
            else:
                self._conversations[conv.collection] = conv
                taken = taken or conv.collection == shown
        # the view drawn again only for a conversation taken back into it: nothing kept
        # cleared the sources a citation had opened meanwhile (a CI flake)
        if taken and not self.streaming:
            self.scope = [p for p in self.conversation.scope or [] if p not in self._forgotten]
            self._update_scope_label()
            self._show_conversation()
        return left

    def export_markdown(self) -> str:
        """The conversation as shown (during a Retry, with the answer being asked again)."""
        conv = self.conversation
        return conversation_markdown(Conversation(self.shown_turns(), conv.scope, conv.collection))
