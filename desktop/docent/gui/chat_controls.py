"""Under the conversation: what the answer being written is doing, and the last answer's
controls (its other attempts, Retry, back to the newest text).

``AskStatus`` says the stage and the time since Ask, every second: searching, waiting
for the model (a small model on a busy CPU can take a minute before its first word),
writing, checking the citations. A silent wait reads as a hang.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from docent.core.api import AskStage
from docent.gui.summary_progress import elapsed_text


class AskStatus(QLabel):
    """One line: the stage of the question being answered and how long it has taken."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("askStatus")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAccessibleName("Answer progress")
        self.model = ""
        self.stage: AskStage | None = None
        self.words = 0
        self._writing = False
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._show)
        self.setVisible(False)

    def start(self, model: str) -> None:
        self.model, self.stage, self.words, self._writing = model, AskStage.SEARCHING, 0, False
        self._started = time.monotonic()
        self._timer.start()
        self._show()
        self.setVisible(True)

    def set_stage(self, stage: AskStage) -> None:
        self.stage = stage
        if stage is AskStage.RETRYING:  # the next answer's words are counted anew
            self.words, self._writing = 0, False
        self._show()

    def add_tokens(self, text: str) -> None:
        """Tokens arrived: the model is writing (words counted roughly, by spaces)."""
        self.words += text.count(" ") + (1 if not self._writing and text.strip() else 0)
        if not self._writing:
            self._writing = True
            self._show()

    def finish(self) -> None:
        self._timer.stop()
        self.stage = None
        self.setVisible(False)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def describe(self) -> str:
        model = self.model or "the model"
        if self.stage is AskStage.CHECKING:
            what = "Checking the answer against its passages"
        elif self._writing:
            words = "1 word" if self.words == 1 else f"{self.words} words"
            which = "another answer" if self.stage is AskStage.RETRYING else "the answer"
            what = f"{model} is writing {which} · {words} so far"
        elif self.stage is AskStage.RETRYING:
            what = f"No passage supports {model}'s answer: asking it again"
        elif self.stage is AskStage.REWRITING:
            what = f"{model} is reading the follow-up question"
        elif self.stage is AskStage.RERANKING:
            what = f"{model} is choosing the passages that answer best"
        elif self.stage is AskStage.WAITING:
            what = f"Waiting for {model} to start answering"
        else:
            what = "Searching your documents"
        return f"{what} · {elapsed_text(self.elapsed)}"

    def _show(self) -> None:
        self.setText(self.describe())


class AnswerBar(QWidget):
    """The last answer's controls: ◀ ▶ between the answers to its question, Retry (or,
    for an answer Docent withheld because the passages found did not seem to answer the
    question, Ask anyway), and back to the newest text when the user scrolled away."""

    #: the user wants attempt n (1-based) of the last question shown
    attempt_requested = Signal(int)
    #: the user wants the last question asked again
    retry_requested = Signal()
    #: the user wants the model asked though Docent judged the passages do not answer it
    anyway_requested = Signal()
    #: the user wants the view back at the newest text
    latest_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.current, self.total = 1, 1
        self.earlier_button = self._button("◀", "Show the earlier answer to this question")
        self.earlier_button.setAccessibleName("Earlier answer")
        self.later_button = self._button("▶", "Show the later answer to this question")
        self.later_button.setAccessibleName("Later answer")
        self.attempt_label = QLabel()
        self.attempt_label.setObjectName("muted")
        self.latest_button = QPushButton("↓ Newest")
        self.latest_button.setToolTip("Scroll to the newest text (the view follows it again)")
        self.latest_button.setAccessibleName("Scroll to the newest text")
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip(
            "Ask the last question again (the model samples anew); its current answer "
            "stays until the new one is done"
        )
        self.retry_button.setAccessibleName("Ask the last question again")
        self.anyway_button = QPushButton("Ask anyway")
        self.anyway_button.setToolTip(
            "Docent judged that the passages found do not answer this question, and no "
            "model was asked. If they do, ask the model with them: its answer is labelled "
            "low confidence, and its sentences are checked against them as usual."
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.earlier_button)
        row.addWidget(self.attempt_label)
        row.addWidget(self.later_button)
        row.addStretch(1)
        row.addWidget(self.latest_button)
        row.addWidget(self.anyway_button)
        row.addWidget(self.retry_button)
        self.earlier_button.clicked.connect(lambda: self.attempt_requested.emit(self.current - 1))
        self.later_button.clicked.connect(lambda: self.attempt_requested.emit(self.current + 1))
        self.retry_button.clicked.connect(self.retry_requested.emit)
        self.anyway_button.clicked.connect(self.anyway_requested.emit)
        self.latest_button.clicked.connect(self.latest_requested.emit)
        self.latest_button.setVisible(False)
        self.set_attempts(1, 1, can_retry=False)

    def _button(self, text: str, tip: str) -> QToolButton:
        b = QToolButton()
        b.setText(text)
        b.setToolTip(tip)
        return b

    def set_attempts(
        self, current: int, total: int, *, can_retry: bool, can_ask_anyway: bool = False
    ) -> None:
        """``can_ask_anyway``: the answer shown was withheld on retrieval's verdict
        (``Answer.retrieval_abstained``): Ask anyway stands in for Retry, which would
        withhold it again."""
        self.current, self.total = current, total
        several = total > 1
        for w in (self.earlier_button, self.attempt_label, self.later_button):
            w.setVisible(several)
        self.attempt_label.setText(f"Answer {current} of {total}")
        self.earlier_button.setEnabled(current > 1)
        self.later_button.setEnabled(current < total)
        self.retry_button.setVisible(can_retry and not can_ask_anyway)
        self.anyway_button.setVisible(can_retry and can_ask_anyway)
        self._fit()

    def show_latest_button(self, on: bool) -> None:
        self.latest_button.setVisible(on)
        self._fit()

    def _fit(self) -> None:
        self.setVisible(
            self.total > 1
            or self.retry_button.isVisibleTo(self)
            or self.anyway_button.isVisibleTo(self)
            or self.latest_button.isVisibleTo(self)
        )
