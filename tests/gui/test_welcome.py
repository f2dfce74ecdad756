"""The first-run panel: on an empty library it says what to do and what answers to expect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine
from gui_helpers import started
from PySide6.QtWidgets import QFileDialog

from docent.core.api import Health, Progress
from docent.gui.welcome import WelcomePanel, ollama_text


def test_an_empty_library_says_to_add_documents_and_how_to_get_ollama(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake._settings = fake.settings.model_copy(
        update={"ollama_model": "qwen2.5:3b", "ollama_host": "http://127.0.0.1:9"}
    )
    fake.health = Health(False, [], "Ollama is not running at http://127.0.0.1:9.")
    window = started(qtbot, fake, make_window)
    panel = window.welcome
    assert panel.isVisibleTo(window)
    assert "Your library is empty" in panel.what.text()
    assert "drop them anywhere on this window" in panel.what.text()
    # what it reads, as it is: scans when OCR is on, OpenDocument *text* (review)
    assert "PDFs (scans too)" in panel.what.text() and "OpenDocument text" in panel.what.text()
    assert "scans too" not in WelcomePanel(ocr=False).what.text()
    text = panel.ollama.text()
    assert "Ollama was not found</b> at http://127.0.0.1:9" in text
    assert "<code>ollama serve</code>" in text
    assert "<code>ollama pull qwen2.5:3b</code>" in text
    assert "extractive" in text


def test_add_folder_on_the_panel_indexes_the_folder_and_the_panel_goes(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "note.txt").write_text("A note.\n")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    window = started(qtbot, fake, make_window)
    assert window.welcome.isVisibleTo(window)
    with qtbot.waitSignal(window.library.controller.run_finished, timeout=10_000):
        window.welcome.add_folder_button.click()
    assert fake.submitted[-1].paths == [str(folder)]
    qtbot.waitUntil(lambda: not window.welcome.isVisibleTo(window), timeout=10_000)


def test_the_panel_goes_when_the_first_document_is_being_read(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    assert window.welcome.isVisibleTo(window)
    reading = Progress("extracting", 1, 1, "/docs/scan.pdf", message="reading page 1")
    window.library.model.apply(reading, None)
    assert not window.welcome.isVisibleTo(window)
    window.docs_label.setText("")
    window.refresh_status()  # the catalog does not count the document yet
    qtbot.waitUntil(lambda: window.docs_label.text().startswith("0 documents"), timeout=10_000)
    assert not window.welcome.isVisibleTo(window)


def test_a_library_with_documents_shows_no_panel(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake.add_document("/docs/a.pdf")
    window = started(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: window.docs_label.text().startswith("1 document"), timeout=10_000)
    assert not window.welcome.isVisibleTo(window)


def test_what_answers_to_expect_follows_ollamas_health() -> None:
    assert "Looking for Ollama" in ollama_text(None, "m", "h")
    found = ollama_text(Health(True, ["m"], "ok"), "m", "http://x")
    assert "Ollama found" in found and "<code>m</code>" in found
    missing = ollama_text(Health(False, ["other:7b"], "not pulled"), "llama3.2:3b", "http://x")
    assert "model <code>llama3.2:3b</code> is not pulled" in missing
    assert "<code>ollama pull llama3.2:3b</code>" in missing and "extractive" in missing
    assert "<script>" not in ollama_text(Health(False, [], ""), "<script>", "http://x")
