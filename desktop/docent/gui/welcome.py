"""The first-run panel: shown above the panes while the library is empty.

It says what to do (add a folder, add files, or drop them on the window) and what answers
to expect: whether Ollama was found, and if not, how to get it and that answers still
work, quoted from the documents (extractive). It goes away once the library holds a
document, and comes back if it is emptied.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from docent.core.api import Health

OLLAMA_URL = "https://ollama.com"


def ollama_text(health: Health | None, model: str, host: str) -> str:
    """What answers to expect, as rich text."""
    m = f"<code>{escape(model)}</code>"
    if health is None:
        return "Looking for Ollama, the local model that writes answers…"
    if health.ok:
        return f"<b>Ollama found</b> ({m}): answers are written by the model, with citations."
    still = (
        "Answers work without it: they quote the passages of your documents that answer "
        "best (extractive), with citations."
    )
    if health.models:  # Ollama runs, the model is missing
        return (
            f"<b>Ollama is running, but the model {m} is not pulled.</b> Run "
            f"<code>ollama pull {escape(model)}</code> (or pick an installed model in the "
            f"chat's Model box). {still}"
        )
    return (
        f"<b>Ollama was not found</b> at {escape(host)}. {still} For written answers, install "
        f'Ollama from <a href="{OLLAMA_URL}">ollama.com</a>, then run '
        f"<code>ollama serve</code> and <code>ollama pull {escape(model)}</code>."
    )


class WelcomePanel(QFrame):
    add_folder_requested = Signal()
    add_files_requested = Signal()

    def __init__(self, parent: QWidget | None = None, *, ocr: bool = True) -> None:
        """``ocr``: scanned pages are read (the setting): only then does it say so."""
        super().__init__(parent)
        self.setObjectName("welcome")
        title = QLabel("Welcome to Docent")
        title.setObjectName("welcomeTitle")
        self.what = QLabel(
            "Your library is empty. Add the documents you want to ask about: a folder "
            "(read with its subfolders), files, or drop them anywhere on this window. "
            f"PDFs{' (scans too)' if ocr else ''}, Word, PowerPoint, Excel, OpenDocument "
            "text, EPUB, HTML, text and Markdown. Nothing leaves this computer."
        )
        self.what.setWordWrap(True)
        self.add_folder_button = QPushButton("Add folder…")
        self.add_files_button = QPushButton("Add files…")
        self.add_folder_button.setDefault(True)
        self.add_folder_button.clicked.connect(self.add_folder_requested)
        self.add_files_button.clicked.connect(self.add_files_requested)
        self.ollama = QLabel(ollama_text(None, "", ""))
        self.ollama.setObjectName("welcomeOllama")
        self.ollama.setWordWrap(True)
        self.ollama.setTextFormat(Qt.TextFormat.RichText)
        self.ollama.setOpenExternalLinks(True)
        self.ollama.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_folder_button)
        buttons.addWidget(self.add_files_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addWidget(title)
        layout.addWidget(self.what)
        layout.addLayout(buttons)
        layout.addWidget(self.ollama)
        self.hide()  # until the first status says the library is empty

    def show_health(self, health: Health | None, model: str, host: str) -> None:
        self.ollama.setText(ollama_text(health, model, host))

    def set_library_empty(self, empty: bool) -> None:
        self.setVisible(empty)
