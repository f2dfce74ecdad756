"""Settings: Ollama, embedding model, where the data lives, watched folders, summaries.

Values are validated by ``config.validate_change`` (the same pydantic model the file and
the environment go through), so a bad value is refused with a message naming the field.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.config import Settings, update_settings_file, validate_change
from docent.core.errors import SettingsError
from docent.gui.health import check_health
from docent.gui.workers import Report, run_in_worker

#: Changes that take effect only when Docent starts again (the store and model are open).
RESTART_KEYS = frozenset({"data_dir", "qdrant_url", "qdrant_api_key", "embedding_model"})
FIELD_LABELS = {
    "ollama_host": "Ollama host",
    "ollama_model": "Model",
    "embedding_model": "Embedding model",
    "data_dir": "Data folder",
    "qdrant_url": "Qdrant server URL",
    "watched_folders": "Watched folders",
    "summary_type": "Summary kind",
}
_KEY = re.compile(r"setting '([a-z_]+)")


class SettingsDialog(QDialog):
    #: the user saved: (new Settings, keys that need a restart)
    settings_saved = Signal(object, list)

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Docent settings")
        self.settings = settings
        self.saved: Settings | None = None
        self.fields: dict[str, QWidget] = {}
        self._build()
        self._load(settings)

    def _line(self, key: str, placeholder: str = "") -> QLineEdit:
        edit = QLineEdit()
        edit.setObjectName(key)
        edit.setPlaceholderText(placeholder)
        self.fields[key] = edit
        return edit

    def _build(self) -> None:
        form = QFormLayout()
        self.host_edit = self._line("ollama_host", "http://127.0.0.1:11434 (or OLLAMA_HOST)")
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("ollama_model")
        self.model_combo.setEditable(True)
        self.fields["ollama_model"] = self.model_combo
        self.test_button = QPushButton("Test")
        self.test_button.setToolTip("Check that Ollama answers and has the model")
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.test_button)
        self.test_label = QLabel("")
        self.test_label.setWordWrap(True)
        self.test_label.setTextFormat(Qt.TextFormat.PlainText)
        self.embedding_edit = self._line("embedding_model")
        self.data_edit = self._line("data_dir", "default (DOCENT_HOME or the platform folder)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_data)
        data_row = QHBoxLayout()
        data_row.addWidget(self.data_edit, 1)
        data_row.addWidget(browse)
        self.qdrant_edit = self._line("qdrant_url", "empty: the embedded store in the data folder")
        self.folders = QListWidget()
        self.folders.setObjectName("watched_folders")
        self.folders.setMaximumHeight(90)
        self.fields["watched_folders"] = self.folders
        add = QPushButton("Add…")
        remove = QPushButton("Remove")
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

        form.addRow(FIELD_LABELS["ollama_host"], self.host_edit)
        form.addRow(FIELD_LABELS["ollama_model"], model_row)
        form.addRow("", self.test_label)
        form.addRow(FIELD_LABELS["embedding_model"], self.embedding_edit)
        form.addRow(FIELD_LABELS["data_dir"], data_row)
        form.addRow(FIELD_LABELS["qdrant_url"], self.qdrant_edit)
        form.addRow(FIELD_LABELS["watched_folders"], folder_row)
        form.addRow(FIELD_LABELS["summary_type"], self.summary_combo)

        self.error_label = QLabel("")
        self.error_label.setObjectName("settingsError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setVisible(False)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.test_button.clicked.connect(self.test_connection)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.resize(620, 460)

    def _load(self, s: Settings) -> None:
        self.host_edit.setText(s.ollama_host)
        self.model_combo.addItem(s.ollama_model)
        self.model_combo.setCurrentText(s.ollama_model)
        self.embedding_edit.setText(s.embedding_model)
        self.data_edit.setText(s.data_dir)
        self.qdrant_edit.setText(s.qdrant_url)
        self.folders.addItems(s.watched_folders)
        self.summary_combo.setCurrentText(s.summary_type)

    def changes(self) -> dict[str, Any]:
        return {
            "ollama_host": self.host_edit.text().strip(),
            "ollama_model": self.model_combo.currentText().strip(),
            "embedding_model": self.embedding_edit.text().strip(),
            "data_dir": self.data_edit.text().strip(),
            "qdrant_url": self.qdrant_edit.text().strip(),
            "watched_folders": [self.folders.item(i).text() for i in range(self.folders.count())],
            "summary_type": self.summary_combo.currentText(),
        }

    # Validation and saving ----------------------------------------------------

    def validated(self) -> Settings | None:
        """The new settings, or None with the error shown next to the buttons."""
        for w in self.fields.values():
            w.setProperty("invalid", False)
            w.style().polish(w)
        try:
            return validate_change(self.settings, **self.changes())
        except SettingsError as exc:
            self.show_error(str(exc))
            return None

    def show_error(self, message: str) -> None:
        keys = _KEY.findall(message)
        for key in keys:
            w = self.fields.get(key)
            if w is not None:
                w.setProperty("invalid", True)
                w.style().polish(w)
                w.setFocus()
        named = ", ".join(FIELD_LABELS.get(k, k) for k in keys)
        self.error_label.setText(f"{named}: {message}" if named else message)
        self.error_label.setVisible(True)

    def save(self) -> None:
        new = self.validated()
        if new is None:
            return
        old = self.settings.model_dump()
        changed = {k: v for k, v in new.model_dump().items() if v != old[k]}
        try:
            if changed:  # only what the user changed: DOCENT_* overrides stay out of the file
                update_settings_file(**changed)
        except (OSError, SettingsError) as exc:
            self.show_error(f"The settings could not be saved: {exc}")
            return
        restart = sorted(k for k in changed if k in RESTART_KEYS)
        self.saved = new
        self.settings_saved.emit(new, restart)
        self.accept()

    # Test ---------------------------------------------------------------------

    def test_connection(self) -> None:
        candidate = self.validated()
        if candidate is None:
            return
        self.error_label.setVisible(False)
        self.test_button.setEnabled(False)
        self.test_label.setText("Testing…")

        def job(report: Report, cancel: threading.Event) -> Any:
            return check_health(candidate)

        run_in_worker(
            job,
            name="test-ollama",
            on_result=self._on_tested,
            on_error=lambda exc: self.test_label.setText(f"Test failed: {exc}"),
            on_finished=lambda: self.test_button.setEnabled(True),
        )

    def _on_tested(self, health: Any) -> None:
        ok = bool(getattr(health, "ok", False))
        self.test_label.setText(("✓ " if ok else "✗ ") + str(getattr(health, "message", "")))
        models = [str(m) for m in getattr(health, "models", []) or []]
        current = self.model_combo.currentText()
        if models:
            self.model_combo.clear()
            self.model_combo.addItems(models)
            self.model_combo.setCurrentText(current)

    def _browse_data(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Data folder", self.data_edit.text())
        if folder:
            self.data_edit.setText(folder)

    def _add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch folder")
        if folder and not self.folders.findItems(folder, Qt.MatchFlag.MatchExactly):
            self.folders.addItem(folder)
