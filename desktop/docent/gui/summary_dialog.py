"""Summarize one document (brief / detailed / bullets) with progress and Cancel.

The section summaries show as they finish. A summary the summarizer estimates to take
longer than the user's limit (``summary_seconds_per_page``) offers **Extractive now**:
the document's most central sentences at once, from a second worker, while the model's
summary goes on in the background; closing the dialog then leaves it running (it is
cached when it ends, and the window says so) and its result replaces the extractive one.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import (
    EngineAPI,
    SectionSummary,
    SummaryProgress,
    SummaryResult,
    changed_note,
    check_note,
    shown_text,
)
from docent.core.errors import Cancelled
from docent.gui.markdown_view import SafeBrowser
from docent.gui.messages import bridge
from docent.gui.summary_progress import SummaryTracker, elapsed_text
from docent.gui.workers import Task, Worker, run_in_worker

TYPES = ("brief", "detailed", "bullets")
NOT_FOUND_TIP = (
    "Not clearly supported by the document: its passages closest to this sentence do not "
    "say it, or a number in it is nowhere in the document — check the document."
)
SECTIONS_NOTE = "_The summary comes once every section is done. The sections so far:_"
EXTRACTIVE_SHOWN_NOTE = (
    "_Shown now: the extractive summary. The model's summary is still being written "
    "(see above) and will replace it._"
)


def extractive_left_note(why: str) -> str:
    """Above the extractive summary once the model's run ended without a summary."""
    return f"_Shown: the extractive summary (the model's summary {why})._"


def sections_markdown(parts: list[SectionSummary], heading: str = SECTIONS_NOTE) -> str:
    """The section summaries finished so far, in page order, each saying who wrote it."""
    lines = [heading]
    for part in sorted(parts, key=lambda p: p.section):
        a, b = part.pages
        pages = part.where or (f"p. {a}" if a == b else f"pp. {a}–{b}")
        by = "" if part.source == "model" else " (extracted: the model's summary was unusable)"
        lines.append(f"**{pages}**{by}\n\n{part.summary}")
    return "\n\n".join(lines)


class SummaryDialog(QDialog):
    #: a summary run ended: its SummaryResult, or None (cancelled or failed)
    summary_finished = Signal(object)

    def __init__(
        self,
        engine: EngineAPI,
        path: str,
        default_type: str = "brief",
        parent: QWidget | None = None,
        *,
        model: str = "",
    ) -> None:
        super().__init__(parent)
        self.engine = engine
        self.path = path
        #: the model to ask (the window's one choice; empty: the settings' one)
        self.chosen_model = model
        self.worker: Worker[SummaryProgress, SummaryResult] | None = None
        self.summary: SummaryResult | None = None
        #: the section summaries of the run under way, as they finish
        self.sections: list[SectionSummary] = []
        #: "Extractive now": its worker, then its result (shown until the model's arrives)
        self.extractive_worker: Worker[SummaryProgress, SummaryResult] | None = None
        self.extractive: SummaryResult | None = None
        self._failed = False
        #: how the model's run ended without a summary ("was cancelled", "failed")
        self._failed_why = ""
        self.tracker = SummaryTracker()
        self._started = 0.0
        #: the model this run asked (the window's one choice: Settings and the chat's box)
        self.model = ""
        #: the kind of summary the run asked for (the box may show another by then)
        self.kind = ""
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._show_progress)
        self.setWindowTitle(f"Summary — {Path(path).name}")
        self.resize(640, 520)
        self.type_combo = QComboBox()
        self.type_combo.addItems(list(TYPES))
        self.type_combo.setCurrentText(default_type if default_type in TYPES else "brief")
        self.type_combo.setAccessibleName("Kind of summary")
        self.start_button = QPushButton("Summarize")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.extractive_button = QPushButton("Extractive now")
        self.extractive_button.setToolTip(
            "Show the document's most central sentences now; the model's summary goes on "
            "in the background and replaces them when it is done"
        )
        self.extractive_button.setVisible(False)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setEnabled(False)
        close = QPushButton("Close")
        top = QHBoxLayout()
        kind = QLabel("&Kind")
        kind.setBuddy(self.type_combo)
        top.addWidget(kind)
        top.addWidget(self.type_combo)
        top.addWidget(self.start_button)
        top.addWidget(self.cancel_button)
        top.addWidget(self.extractive_button)
        top.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAccessibleName("Summary progress")
        self.offer = QLabel("")
        self.offer.setWordWrap(True)
        self.offer.setTextFormat(Qt.TextFormat.PlainText)
        self.offer.setVisible(False)
        self.view = SafeBrowser()
        self.view.setAccessibleName("Summary")
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.copy_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.offer)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.extractive_button.clicked.connect(self.extractive_now)
        self.copy_button.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.view.toPlainText())
        )
        close.clicked.connect(self.close)

    def start(self) -> None:
        # (an extractive summary still on its way would land in the new run)
        if self.worker is not None or self.extractive_worker is not None:
            return
        engine = self.engine
        path, kind = self.path, self.type_combo.currentText()
        self.kind = kind
        model = self.model = self.chosen_model or engine.settings.ollama_model

        def job(task: Task[SummaryProgress]) -> SummaryResult:
            return engine.summarize(
                path, type=kind, model=model, progress=task.report, cancel=task.cancel
            )

        self.summary, self._failed, self._failed_why = None, False, ""
        self.sections, self.extractive = [], None
        self.offer.setVisible(False)
        self.extractive_button.setVisible(False)
        self.view.set_markdown("")
        self.tracker = SummaryTracker(kind)
        self.tracker.stage = f"Preparing a {kind} summary with {model}"
        self._started = time.monotonic()
        self.progress.setRange(0, 0)  # busy until the first report
        self.progress.setVisible(True)
        self._show_progress()
        self._tick.start()
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        # the kind asked for stays the kind shown (switched mid-run, a brief summary was
        # labelled "Detailed", and Extractive now made the other kind; review)
        self.type_combo.setEnabled(False)
        self.worker = run_in_worker(
            job,
            name="summarize",
            on_progress=self._on_progress,
            on_result=self._on_result,
            on_error=self._on_error,  # shown in the dialog
            on_finished=self._on_finished,
            owner=self,
        )

    def cancel(self) -> None:
        if self.extractive_worker is not None:
            self.extractive_worker.cancel()
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("Cancelling…")

    def extractive_now(self) -> None:
        """The offer's first half: central sentences now, the model's summary going on."""
        if self.worker is None or self.extractive_worker is not None:
            return
        engine, path, kind = self.engine, self.path, self.kind  # the kind being written

        def job(task: Task[SummaryProgress]) -> SummaryResult:
            return engine.summarize(
                path, type=kind, extractive=True, progress=task.report, cancel=task.cancel
            )

        self.extractive_button.setEnabled(False)
        # said at once, and as it goes: while a file is indexed it shares the model and
        # the two cores, and nothing showed for half a minute (QA, session 31)
        self.offer.setText("Picking the document's most central sentences…")
        self.extractive_worker = run_in_worker(
            job,
            name="summarize-extractive",
            on_progress=self._on_extractive_progress,
            on_result=self._on_extractive,
            on_error=self._on_extractive_error,
            on_finished=self._on_extractive_finished,
            owner=self,
        )

    def _on_extractive_progress(self, p: SummaryProgress) -> None:
        if self.extractive is None and p.total:
            self.offer.setText(
                f"Picking the document's most central sentences: section {p.step} of {p.total}…"
            )

    def _on_extractive(self, result: SummaryResult) -> None:
        if self.summary is not None:  # the model's summary won the race: keep it
            return
        self.extractive = result
        self.extractive_button.setVisible(False)
        self.copy_button.setEnabled(True)
        if self.worker is None or self.worker.cancelled:  # the model's run ended first
            self._extractive_left(self._failed_why or "was cancelled")
            return
        self.offer.setText(
            "The extractive summary is below. The model's summary goes on in the background, "
            "even if you close this window, and replaces it when it is done."
        )
        self.view.set_markdown(f"{EXTRACTIVE_SHOWN_NOTE}\n\n{result.summary}")

    def _extractive_left(self, why: str) -> None:
        """The model's run ended without a summary: the extractive one shown stays, and
        nothing says the model's is still coming."""
        if self.extractive is None:
            return
        self.offer.setText(f"The extractive summary is below. The model's summary {why}.")
        self.offer.setVisible(True)
        self.view.set_markdown(f"{extractive_left_note(why)}\n\n{self.extractive.summary}")

    def _on_extractive_error(self, exc: Exception) -> None:
        if not isinstance(exc, Cancelled):
            self.offer.setText(f"The extractive summary failed: {exc}")

    def _on_extractive_finished(self) -> None:
        self.extractive_worker = None

    def _on_progress(self, p: SummaryProgress) -> None:
        self.tracker.update(p, time.monotonic() - self._started)
        if p.finished is not None:
            self.sections.append(p.finished)
            if self.extractive is None:
                self.view.set_markdown(sections_markdown(self.sections))
        if self.tracker.over_limit and self.extractive_worker is None and self.extractive is None:
            self._offer_extractive()
        self._show_progress()

    def _offer_extractive(self) -> None:
        left = self.tracker.left
        limit = self.engine.settings.summary_seconds_per_page
        # the time left is not the limit's measure: "takes about 55 s more: over your limit
        # of 4 s a page" read as a contradiction for 15 pages (QA-79)
        pace = (
            f"At this pace the model's summary needs about {elapsed_text(left)} more, which "
            "puts the whole over"
            if left is not None
            else "At this pace the model's summary goes past"
        )
        self.offer.setText(
            f"{pace} your limit of {limit:g} s a page (Settings). Extractive now shows the "
            "document's most central sentences at once, and the model's summary goes on in "
            "the background."
        )
        self.offer.setVisible(True)
        self.extractive_button.setEnabled(True)
        self.extractive_button.setVisible(True)

    def _show_progress(self) -> None:
        if self.worker is None or self.worker.cancelled:
            return
        fraction = self.tracker.fraction
        if fraction is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(fraction * 1000))
        self.status.setText(self.tracker.label(time.monotonic() - self._started))

    def _on_result(self, result: SummaryResult) -> None:
        self.summary = result
        text = shown_text(result)
        self.view.set_markdown(text)
        kind = result.type.capitalize()
        took = elapsed_text(time.monotonic() - self._started)
        if result.mode == "extractive":
            # the note above the summary says why (not running, not installed, ...)
            done = f"{kind} summary, extractive: {self.model} did not answer (see the note)."
        elif result.cached:
            done = f"{kind} summary by {result.model} (saved earlier)."
        else:
            n = result.sections_processed
            parts = f"{n} section{'' if n == 1 else 's'}"
            done = f"{kind} summary by {result.model}: {parts} in {took}."
        sections = [f for f in result.failed_sections if f.section]
        if sections:
            n = len(sections)
            done += f" {n} part{'s' if n > 1 else ''} could not be summarised (see the end)."
        if len(sections) < len(result.failed_sections):  # section 0: the synthesis
            done += " Combining the parts failed: they are shown one by one."
        self.offer.setVisible(False)  # done: nothing left to offer
        if self.extractive is not None:
            done += " It replaces the extractive summary shown meanwhile."
            if not self.isVisible():
                bridge().info(
                    f"The model's summary of {result.document} is ready "
                    "(Summarize… shows it again)."
                )
        self.extractive_button.setVisible(False)
        if result.unsupported is not None:
            marked = self.view.mark_sentences(result.unsupported, tip=NOT_FOUND_TIP)
            n = len(result.unsupported)
            how = "underlined" if marked == n else f"{marked} underlined" if marked else ""
            done += f" {check_note(result.unsupported, how)}"
        if changed := changed_note(
            result, "Re-index it (the library's menu) to summarize the new one."
        ):
            done += f" {changed}"
        self.status.setText(done)
        self.copy_button.setEnabled(bool(text))

    def _on_error(self, exc: Exception) -> None:
        self._failed = True
        if isinstance(exc, Cancelled):
            self._failed_why = "was cancelled"
            self.status.setText("Cancelled.")
        else:
            self._failed_why = "failed"
            self.status.setText(f"The summary failed: {exc}")

    def _on_finished(self) -> None:
        finished_with = self.summary if self.worker is not None and not self._failed else None
        self.worker = None
        self._tick.stop()
        self.progress.setVisible(False)
        if self._failed:  # nothing is coming: no offer, no "will replace it"
            self.extractive_button.setVisible(False)
            self.offer.setVisible(False)
            self._extractive_left(self._failed_why or "was cancelled")
            if self.extractive is None and self.sections:
                # QA-79: still "The summary comes once every section is done", and no Copy
                why = self._failed_why or "was cancelled"
                heading = f"_The summary {why} before every section was done. Those done:_"
                self.view.set_markdown(sections_markdown(self.sections, heading))
                self.copy_button.setEnabled(True)
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.type_combo.setEnabled(True)
        self.summary_finished.emit(finished_with)

    def closeEvent(self, event: QCloseEvent) -> None:
        # Once the extractive summary stands in, the model's goes on in the background.
        if self.extractive is None:
            self.cancel()
        super().closeEvent(event)

    def reject(self) -> None:
        """Esc: as closing (it only hid the dialog, and the model went on summarising for
        no one; review)."""
        if self.extractive is None:
            self.cancel()
        super().reject()
