"""Settings: Ollama, embedding model, where the data lives (or which Qdrant server, with
its API key), watched folders, summaries.

Save hands the values to ``Engine.apply_settings``, their one owner: it validates them
(the same pydantic model the file and the environment go through), saves them, applies
what can change live and says what waits for a restart. A bad value is refused with a
message naming the field, shown here; the dialog stays open.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import EngineAPI, Health, SettingsApplied
from docent.core.config import (
    OLLAMA_PORT,
    QDRANT_PORT,
    Settings,
    env_overridden,
    validate_change,
)
from docent.core.errors import SettingsError
from docent.gui.health import HEALTH_TIMEOUT
from docent.gui.plain import banner_html
from docent.gui.workers import call_in_worker

FIELD_LABELS = {
    "ollama_host": "Ollama host",
    "ollama_model": "Model",
    "embedding_model": "Embedding model",
    "data_dir": "Data folder",
    "qdrant_url": "Qdrant server URL",
    "qdrant_api_key": "Qdrant API key",
    "watched_folders": "Watched folders",
    "summary_type": "Summary kind",
    "summary_seconds_per_page": "Summary time limit",
    "ocr_enabled": "Scanned pages",
    "rerank_model_dir": "Reranker",
    "llm_rerank": "LLM rerank",
}


def host_placeholder(settings: Settings) -> str:
    """What an empty Ollama host means here: OLLAMA_HOST's value when it is set (its
    port may not be the default), else the default address."""
    if os.environ.get("OLLAMA_HOST"):
        return f"empty: {settings.effective_ollama_host()} (from OLLAMA_HOST)"
    return f"empty: http://127.0.0.1:{OLLAMA_PORT} (the default)"


def exact(value: float) -> str:
    """``value`` as text that reads back as the same number ("4", "2.3456789"): ``:g``
    showed 2.3456789 as "2.34568", and Save then changed a value nobody had touched."""
    return str(int(value)) if value.is_integer() else repr(value)


def sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!", ")")) else text + "."


class SettingsDialog(QDialog):
    #: the engine saved and applied the user's values (SettingsApplied)
    settings_applied = Signal(object)

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Docent settings")
        self.engine = engine
        # as saved: a restart-only change shows as made, waiting (QA-79: the running
        # value was shown, and undoing the change then saved nothing)
        self.settings = engine.saved_settings
        self.applied: SettingsApplied | None = None
        self.fields: dict[str, QWidget] = {}
        #: Qdrant Tests started, and edits of the URL or key since (``test_store``).
        self._qdrant_tests = 0
        #: the fields refused by the last Save or Test, with why; and a failure not
        #: about one field
        self._problems: dict[str, str] = {}
        self._other = ""
        self._build()
        self._load(self.settings)
        self._watch_edits()

    def _line(self, key: str, placeholder: str = "") -> QLineEdit:
        edit = QLineEdit()
        edit.setObjectName(key)
        edit.setPlaceholderText(placeholder)
        self.fields[key] = edit
        return edit

    def _build(self) -> None:
        form = QFormLayout()
        self.host_edit = self._line("ollama_host", host_placeholder(self.settings))
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("ollama_model")
        self.model_combo.setEditable(True)
        self.fields["ollama_model"] = self.model_combo
        self.test_button = QPushButton("Test")
        self.test_button.setToolTip("Check that Ollama answers and has the model")
        model_row, self.test_label = _tested(self.model_combo, self.test_button)
        self.embedding_edit = self._line("embedding_model")
        self.data_edit = self._line("data_dir", "default (DOCENT_HOME or the platform folder)")
        data_row = self._folder_row(self.data_edit, "the data folder", "Data folder")
        self.qdrant_edit = self._line(
            "qdrant_url",
            f"empty: the embedded store (a server: http://127.0.0.1:{QDRANT_PORT})",
        )
        self.qdrant_key_edit = self._line("qdrant_api_key", "empty: none (a server's key)")
        self.qdrant_key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        # a wrong URL was found only by a restart that failed (QA-79)
        self.qdrant_test_button = QPushButton("Test")
        self.qdrant_test_button.setToolTip(
            "Check that a Qdrant server answers at this URL and takes the key below"
        )
        self.qdrant_test_button.setAccessibleName("Test the Qdrant server")
        qdrant_row, self.qdrant_test_label = _tested(self.qdrant_edit, self.qdrant_test_button)
        self.folders = QListWidget()
        self.folders.setObjectName("watched_folders")
        self.folders.setMaximumHeight(90)
        self.fields["watched_folders"] = self.folders
        add = QPushButton("Add…")
        add.setAccessibleName("Add a watched folder")
        remove = QPushButton("Remove")
        remove.setAccessibleName("Remove the selected watched folder")
        add.clicked.connect(self._add_folder)
        remove.clicked.connect(
            lambda: [
                self.folders.takeItem(self.folders.row(i)) for i in self.folders.selectedItems()
            ]
        )
        folder_buttons = QVBoxLayout()
        folder_buttons.addWidget(add)
        folder_buttons.addWidget(remove)
        folder_buttons.addStretch(1)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folders, 1)
        folder_row.addLayout(folder_buttons)
        self.summary_combo = QComboBox()
        self.summary_combo.setObjectName("summary_type")
        self.summary_combo.addItems(["brief", "detailed", "bullets"])
        self.fields["summary_type"] = self.summary_combo
        self.limit_edit = self._line("summary_seconds_per_page", "seconds a page")
        self.limit_edit.setMaximumWidth(90)
        self.limit_edit.setToolTip(
            "A summary estimated to take longer than this many seconds a page (and than "
            "30 seconds) offers an extractive summary at once, the model's going on in the "
            "background"
        )
        limit_row = QHBoxLayout()
        limit_row.addWidget(self.limit_edit)
        limit_row.addWidget(QLabel("seconds a page (4: about 2 min for 30 pages; 0: never offer)"))
        limit_row.addStretch(1)
        self.rerank_edit = self._line(
            "rerank_model_dir", "empty: off (a folder holding a cross-encoder in ONNX)"
        )
        self.rerank_edit.setToolTip(
            "A cross-encoder you downloaded (e.g. ms-marco-MiniLM-L-6-v2 in ONNX, with its "
            "tokenizer.json) re-sorts each search's best passages; none ships with Docent"
        )
        rerank_row = self._folder_row(
            self.rerank_edit, "the cross-encoder's folder", "Cross-encoder folder"
        )
        self.llm_rerank_check = QCheckBox(
            "Before each answer, ask the model which passages answer best (one more request)"
        )
        self.llm_rerank_check.setObjectName("llm_rerank")
        self.llm_rerank_check.setToolTip(
            "Off by default: measured with a small model, it changed nothing and made each "
            "answer wait for one more request. A larger model may do better."
        )
        self.fields["llm_rerank"] = self.llm_rerank_check
        self.ocr_check = QCheckBox("Read pages without text by OCR (slow: seconds per page)")
        self.ocr_check.setObjectName("ocr_enabled")
        self.fields["ocr_enabled"] = self.ocr_check

        self._row(form, "ollama_host", self.host_edit)
        self._row(form, "ollama_model", model_row)
        form.addRow("", self.test_label)
        self._row(form, "embedding_model", self.embedding_edit)
        self._row(form, "data_dir", data_row)
        self._row(form, "qdrant_url", qdrant_row)
        self._row(form, "qdrant_api_key", self.qdrant_key_edit)
        form.addRow("", self.qdrant_test_label)
        self._row(form, "watched_folders", folder_row)
        self._row(form, "summary_type", self.summary_combo)
        self._row(form, "summary_seconds_per_page", limit_row)
        self._row(form, "ocr_enabled", self.ocr_check)
        self._row(form, "rerank_model_dir", rerank_row)
        self._row(form, "llm_rerank", self.llm_rerank_check)

        # Fields a DOCENT_* variable sets: a change lasts until the next start, when the
        # variable wins again; said, or the change seemed saved and came back (QA, s26)
        by_env = env_overridden()
        overridden = [
            f"{label} ({by_env[key]})" for key, label in FIELD_LABELS.items() if key in by_env
        ]
        self.env_label = QLabel(
            "Set by environment variables, which win again when Docent starts: "
            + ", ".join(overridden)
            + "."
            if overridden
            else ""
        )
        self.env_label.setObjectName("settingsEnv")
        self.env_label.setWordWrap(True)
        self.env_label.setTextFormat(Qt.TextFormat.PlainText)
        self.env_label.setVisible(bool(overridden))
        self.error_label = QLabel("")
        self.error_label.setObjectName("settingsError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # Room for five lines kept even when empty: the fields above never move when
        # errors come and go (one meant to be clicked moved, and the click hit the next).
        # More lines scroll: they squeezed the fields (the watched folders' list and its
        # buttons to slivers, QA session 30).
        self.error_area = QScrollArea()
        self.error_area.setObjectName("settingsErrors")
        self.error_area.setWidget(self.error_label)
        self.error_area.setWidgetResizable(True)
        self.error_area.setFrameShape(QFrame.Shape.NoFrame)
        self.error_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        margins = self.error_label.contentsMargins()
        self.error_area.setFixedHeight(
            5 * self.error_label.fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 6
        )
        # no Tab stop between the last field and Save (review s30); named for a reader
        self.error_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.error_area.setAccessibleName("Settings errors")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.test_button.clicked.connect(self.test_connection)
        self.qdrant_test_button.clicked.connect(self.test_store)
        self.qdrant_edit.textChanged.connect(self._qdrant_edited)
        self.qdrant_key_edit.textChanged.connect(self._qdrant_edited)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.env_label)
        layout.addStretch(1)
        layout.addWidget(self.error_area)
        layout.addWidget(self.buttons)
        self.resize(620, 460)

    def _row(self, form: QFormLayout, key: str, field: QWidget | QHBoxLayout) -> None:
        """A row whose label is its field's buddy, and the field named the same: a screen
        reader says "Data folder", not just "edit" (a row of a layout gets no buddy)."""
        label = QLabel(FIELD_LABELS[key])
        label.setBuddy(self.fields[key])
        self.fields[key].setAccessibleName(FIELD_LABELS[key])
        form.addRow(label, field)

    def _load(self, s: Settings) -> None:
        self.host_edit.setText(s.ollama_host)
        self.model_combo.addItem(s.ollama_model)
        self.model_combo.setCurrentText(s.ollama_model)
        self.embedding_edit.setText(s.embedding_model)
        self.data_edit.setText(s.data_dir)
        self.qdrant_edit.setText(s.qdrant_url)
        self.qdrant_test_button.setEnabled(bool(s.qdrant_url))  # (nothing to test: embedded)
        self.qdrant_key_edit.setText(s.qdrant_api_key)
        self.folders.addItems(s.watched_folders)
        self.summary_combo.setCurrentText(s.summary_type)
        self.limit_edit.setText(exact(s.summary_seconds_per_page))
        self.ocr_check.setChecked(s.ocr_enabled)
        self.rerank_edit.setText(s.rerank_model_dir)
        self.llm_rerank_check.setChecked(s.llm_rerank)

    def _watch_edits(self) -> None:
        def edited(key: str) -> Callable[..., None]:
            return lambda *_: self._on_edited(key)

        for key, w in self.fields.items():
            if isinstance(w, QLineEdit):
                w.textEdited.connect(edited(key))
            elif isinstance(w, QComboBox):
                w.currentTextChanged.connect(edited(key))
            elif isinstance(w, QListWidget):
                w.model().rowsInserted.connect(edited(key))
                w.model().rowsRemoved.connect(edited(key))
            elif isinstance(w, QCheckBox):
                w.toggled.connect(edited(key))

    def changes(self) -> dict[str, object]:
        return {
            "ollama_host": self.host_edit.text().strip(),
            "ollama_model": self.model_combo.currentText().strip(),
            "embedding_model": self.embedding_edit.text().strip(),
            "data_dir": self.data_edit.text().strip(),
            "qdrant_url": self.qdrant_edit.text().strip(),
            "qdrant_api_key": self.qdrant_key_edit.text().strip(),
            "watched_folders": [self.folders.item(i).text() for i in range(self.folders.count())],
            "summary_type": self.summary_combo.currentText(),
            # as typed: the engine's validation names a bad value ("must be a number")
            "summary_seconds_per_page": self.limit_edit.text().strip(),
            "ocr_enabled": self.ocr_check.isChecked(),
            "rerank_model_dir": self.rerank_edit.text().strip(),
            "llm_rerank": self.llm_rerank_check.isChecked(),
        }

    # Validation and saving ----------------------------------------------------

    def _mark(self, key: str, invalid: bool) -> None:
        w = self.fields.get(key)
        if w is not None and bool(w.property("invalid")) != invalid:
            w.setProperty("invalid", invalid)
            w.style().unpolish(w)
            w.style().polish(w)
            # a restyle alone is not drawn: all four bad fields were marked, and only the
            # one being edited showed it until something else repainted (QA, session 26)
            w.update()

    def _clear_marks(self) -> None:
        for key in self.fields:
            self._mark(key, False)

    def _on_edited(self, key: str) -> None:
        """The user changed a field marked bad: its mark and message go (Save or Test
        checks it again)."""
        if not self.fields[key].property("invalid"):
            return
        self._mark(key, False)
        self._problems.pop(key, None)
        self._show_problems()

    def show_error(self, exc: Exception) -> None:
        """A refused change: each bad field marked and named with what is wrong, in
        plain words; any other failure as its sentence."""
        problems = exc.problems if isinstance(exc, SettingsError) else {}
        # in the form's order, top down (the engine's is its settings' order): the first
        # line and the focus go to the topmost bad field
        order = {key: i for i, key in enumerate(self.fields)}
        keys = sorted(problems, key=lambda k: order.get(k, len(order)))
        self._problems = {k: problems[k] for k in keys}
        self._other = "" if self._problems else str(exc)
        for key in self._problems:
            self._mark(key, True)
        first = next((self.fields[k] for k in self._problems if k in self.fields), None)
        if first is not None:
            first.setFocus()
        self._show_problems()

    def _show_problems(self) -> None:
        lines = [f"{FIELD_LABELS.get(k, k)}: {sentence(v)}" for k, v in self._problems.items()]
        if self._other:
            lines.append(self._other)
        self.error_label.setText("\n".join(lines))
        self.error_area.verticalScrollBar().setValue(0)  # the first error first

    def _reset_problems(self) -> None:
        self._clear_marks()
        self._problems, self._other = {}, ""
        self._show_problems()

    def save(self) -> None:
        """The engine validates, saves and applies (in a worker: it writes a file)."""
        self._reset_problems()
        self.buttons.setEnabled(False)
        engine, changes = self.engine, self.changes()
        call_in_worker(
            lambda: engine.apply_settings(changes),
            name="save the settings",
            on_result=self._on_applied,
            on_error=self._on_save_failed,
            on_finished=lambda: self.buttons.setEnabled(True),
            owner=self,
        )

    def reject(self) -> None:
        """Esc or the title bar's close: not while a save runs (the buttons are off then).
        Closed meanwhile, the dialog was gone when the engine had saved and applied, and
        the window never heard: its model box, health and folders stayed as before."""
        if self.buttons.isEnabled():
            super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.buttons.isEnabled():
            super().closeEvent(event)
        else:
            event.ignore()

    def _on_applied(self, applied: SettingsApplied) -> None:
        self.applied = applied
        self.settings_applied.emit(applied)
        self.accept()

    def _on_save_failed(self, exc: Exception) -> None:
        if isinstance(exc, SettingsError):
            self.show_error(exc)
        else:
            self.show_error(Exception(f"The settings could not be saved: {exc}"))

    # Test ---------------------------------------------------------------------

    def _candidate(self, label: QLabel) -> Settings | None:
        """The settings the unsaved values describe, for a Test (nothing is saved or
        applied); None, said in ``label``, when a value is refused."""
        self._reset_problems()
        try:
            # the reranker's folder and the embedding model are checked on Save, in a
            # worker: they read the disk (and the model check imports fastembed)
            on_save = ("rerank_model_dir", "embedding_model")
            changes = {k: v for k, v in self.changes().items() if k not in on_save}
            return validate_change(self.settings, **changes)
        except SettingsError as exc:
            label.setText("✗ Not tested: fix the value marked in red first.")
            self.show_error(exc)
            return None

    def _qdrant_edited(self) -> None:
        """A verdict on the URL and key before this edit says nothing of them: gone, and
        a test still running is no longer waited for."""
        self._qdrant_tests += 1
        self.qdrant_test_label.setText("")
        self.qdrant_test_button.setEnabled(bool(self.qdrant_edit.text().strip()))

    def test_store(self) -> None:
        """The Qdrant server the unsaved URL and key name, asked for its collections."""
        candidate = self._candidate(self.qdrant_test_label)
        if candidate is None or not candidate.qdrant_url:
            return
        self.qdrant_test_button.setEnabled(False)
        self.qdrant_test_label.setText("Testing…")
        self._qdrant_tests += 1
        n, engine = self._qdrant_tests, self.engine

        def say(text: str) -> None:  # only the latest test's (review 85: an earlier,
            if n == self._qdrant_tests:  # slower one's verdict replaced the new one's)
                self.qdrant_test_label.setText(banner_html(text))

        def done() -> None:
            if n == self._qdrant_tests:
                self.qdrant_test_button.setEnabled(bool(self.qdrant_edit.text().strip()))

        call_in_worker(
            lambda: engine.probe_store(candidate),
            name="test Qdrant",
            on_result=lambda check: say(("✓ " if check.ok else "✗ ") + check.message),
            on_error=lambda exc: say(f"Test failed: {exc}"),
            on_finished=done,
            owner=self,
        )

    def test_connection(self) -> None:
        """Ollama as the unsaved values describe it (nothing is saved or applied)."""
        candidate = self._candidate(self.test_label)
        if candidate is None:
            return
        self.test_button.setEnabled(False)
        self.test_label.setText("Testing…")
        engine = self.engine
        call_in_worker(
            lambda: engine.probe_llm(candidate, HEALTH_TIMEOUT),
            name="test Ollama",
            on_result=self._on_tested,
            on_error=lambda exc: self.test_label.setText(banner_html(f"Test failed: {exc}")),
            on_finished=lambda: self.test_button.setEnabled(True),
            owner=self,
        )

    def _on_tested(self, health: Health) -> None:
        self.test_label.setText(banner_html(("✓ " if health.ok else "✗ ") + health.message))
        current = self.model_combo.currentText()
        if health.models:
            self.model_combo.clear()
            self.model_combo.addItems(list(health.models))
            self.model_combo.setCurrentText(current)

    def _folder_row(self, edit: QLineEdit, what: str, title: str) -> QHBoxLayout:
        """``edit`` with a Browse… button that picks a folder into it."""
        browse = QPushButton("Browse…")
        browse.setToolTip(f"Choose {what}")
        browse.setAccessibleName(f"Choose {what}")
        browse.clicked.connect(lambda: self._browse(edit, title))
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(browse)
        return row

    def _browse(self, edit: QLineEdit, title: str) -> None:
        folder = QFileDialog.getExistingDirectory(self, title, edit.text())
        if folder:
            edit.setText(folder)

    def _add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch folder")
        if folder and not self.folders.findItems(folder, Qt.MatchFlag.MatchExactly):
            self.folders.addItem(folder)


def _tested(field: QWidget, button: QPushButton) -> tuple[QHBoxLayout, QLabel]:
    """``field`` with its Test ``button`` beside it, and the label its verdict goes in
    (rich text of Docent's own making only, ``banner_html``: commands in code type)."""
    row = QHBoxLayout()
    row.addWidget(field, 1)
    row.addWidget(button)
    verdict = QLabel("")
    verdict.setWordWrap(True)
    verdict.setTextFormat(Qt.TextFormat.RichText)
    return row, verdict
