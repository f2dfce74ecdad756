"""Summarize one document (brief / detailed / bullets) with progress and Cancel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
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

from docent.core.api import EngineAPI, SummaryProgress, SummaryResult
from docent.core.errors import Cancelled
from docent.gui.markdown_view import SafeBrowser
from docent.gui.workers import Task, Worker, run_in_worker

TYPES = ("brief", "detailed", "bullets")


def progress_fraction(p: SummaryProgress) -> tuple[float | None, str]:
    """A summarizer's progress -> (fraction of the bar or None, a label).

    Sections are the first 80 % of the work, the synthesis calls the rest.
    """
    label = p.message or (f"Section {p.step} of {p.total}" if p.total else "")
    if p.phase == "done":
        return 1.0, label
    if not p.total:
        return None, label
    if p.phase == "synthesis":
        return 0.8 + 0.2 * p.step / p.total, label
    return 0.8 * p.step / p.total, label


class SummaryDialog(QDialog):
    #: a summary run ended: its SummaryResult, or None (cancelled or failed)
    summary_finished = Signal(object)

    def __init__(
        self,
        engine: EngineAPI,
        path: str,
        default_type: str = "brief",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.engine = engine
        self.path = path
        self.worker: Worker[SummaryProgress, SummaryResult] | None = None
        self.summary: SummaryResult | None = None
        self._failed = False
        self.setWindowTitle(f"Summary — {Path(path).name}")
        self.resize(640, 520)
        self.type_combo = QComboBox()
        self.type_combo.addItems(list(TYPES))
        self.type_combo.setCurrentText(default_type if default_type in TYPES else "brief")
        self.start_button = QPushButton("Summarize")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setEnabled(False)
        close = QPushButton("Close")
        top = QHBoxLayout()
        top.addWidget(QLabel("Kind"))
        top.addWidget(self.type_combo)
        top.addWidget(self.start_button)
        top.addWidget(self.cancel_button)
        top.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.view = SafeBrowser()
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.copy_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.copy_button.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.view.toPlainText())
        )
        close.clicked.connect(self.close)

    def start(self) -> None:
        if self.worker is not None:
            return
        engine = self.engine
        path, kind = self.path, self.type_combo.currentText()
        model = engine.settings.ollama_model

        def job(task: Task[SummaryProgress]) -> SummaryResult:
            return engine.summarize(
                path, type=kind, model=model, progress=task.report, cancel=task.cancel
            )

        self.summary, self._failed = None, False
        self.progress.setRange(0, 0)  # busy until the first report
        self.progress.setVisible(True)
        self.status.setText(f"Writing a {kind} summary…")
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.worker = run_in_worker(
            job,
            name="summarize",
            on_progress=self._on_progress,
            on_result=self._on_result,
            on_error=self._on_error,  # shown in the dialog
            on_finished=self._on_finished,
        )

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("Cancelling…")

    def _on_progress(self, p: SummaryProgress) -> None:
        fraction, label = progress_fraction(p)
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(fraction * 1000))
        if label:
            self.status.setText(label)

    def _on_result(self, result: SummaryResult) -> None:
        self.summary = result
        text = result.summary
        self.view.set_markdown(text)
        extractive = result.mode == "extractive"
        note = " (extractive: no language model was running)" if extractive else ""
        self.status.setText(f"{self.type_combo.currentText().capitalize()} summary{note}.")
        self.copy_button.setEnabled(bool(text))

    def _on_error(self, exc: Exception) -> None:
        self._failed = True
        if isinstance(exc, Cancelled):
            self.status.setText("Cancelled.")
        else:
            self.status.setText(f"The summary failed: {exc}")

    def _on_finished(self) -> None:
        finished_with = self.summary if self.worker is not None and not self._failed else None
        self.worker = None
        self.progress.setVisible(False)
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.summary_finished.emit(finished_with)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        super().closeEvent(event)
