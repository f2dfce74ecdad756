"""The window's side of formats and OCR: the library marks OCR'd documents, the sources
pane names slides and rows, the file dialog offers every type, Settings has the switch."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from docent.core.citations import Citation
from docent.core.indexer import Progress
from docent.core.models import DocState, DocumentRecord
from docent.gui.citation_pane import page_label
from docent.gui.library_model import DocumentTableModel
from docent.gui.library_rows import Row
from docent.gui.main_window import DOCUMENT_FILTER
from docent.gui.settings_dialog import SettingsDialog


def test_library_row_says_how_many_pages_were_ocrd(qtbot: Any) -> None:
    rec = DocumentRecord("d1", "/x/scan.pdf", "scan.pdf", state=DocState.READY, ocr_pages=2)
    assert Row.from_record(rec).state_text == "ready · OCR"
    model = DocumentTableModel()
    model.set_records([rec])
    assert "2 pages read by OCR" in model.item(0, 3).data(Qt.ItemDataRole.ToolTipRole)
    rec.ocr_pages = 0
    assert Row.from_record(rec).state_text == "ready"


def test_library_row_says_what_was_not_read(qtbot: Any) -> None:
    """A document indexed with pages left unread (core/gaps.py) says so in its row, and
    which and why in the tooltip, beside its OCR'd pages."""
    rec = DocumentRecord(
        "d1",
        "/x/log.pdf",
        "log.pdf",
        state=DocState.READY,
        ocr_pages=1,
        gaps="page 4 could not be read",
    )
    assert Row.from_record(rec).state_text == "ready · part unread"
    model = DocumentTableModel()
    model.set_records([rec])
    tip = model.item(0, 3).data(Qt.ItemDataRole.ToolTipRole)
    assert "1 page read by OCR" in tip
    assert "Page 4 could not be read; what was read is searchable." in tip
    rec.gaps = ""
    assert Row.from_record(rec).state_text == "ready · OCR"


def test_library_row_shows_the_scan_page_being_read(qtbot: Any) -> None:
    model = DocumentTableModel()
    step = "reading scanned page 3 by OCR (2 of 9)"
    model.apply(Progress("extracting", 1, 1, "/x/scan.pdf", message=step, pages=2), None)
    row = model.row_for("/x/scan.pdf")
    # the cell holds a short form; its tooltip has the whole step
    assert row is not None and row.state_text == "OCR 2/9…"
    tip = model.item(0, 3).data(Qt.ItemDataRole.ToolTipRole)
    assert step in tip and "scan.pdf" in tip
    model.apply(Progress("extracting", 1, 1, "/x/scan.pdf", message="reading page 4"), None)
    assert row.state_text == "reading page 4…"
    model.apply(Progress("extracting", 1, 1, "/x/b.pdf"), None)
    assert model.row_for("/x/b.pdf").state_text == "reading…"  # type: ignore[union-attr]


def test_sources_pane_names_the_unit() -> None:
    deck = Citation(1, "c", "d", "deck.pptx", "/x/deck.pptx", 2, 2, "text", location="slide 2")
    assert page_label(deck) == "slide 2"
    pdf = Citation(2, "c", "d", "a.pdf", "/x/a.pdf", 3, 4, "text")
    assert page_label(pdf) == "pp. 3–4"


def test_file_dialog_offers_every_readable_type() -> None:
    for suffix in ("*.pdf", "*.docx", "*.pptx", "*.xlsx", "*.odt", "*.epub", "*.html", "*.md"):
        assert suffix in DOCUMENT_FILTER.split(";;")[0]


def test_settings_switch_turns_ocr_off_after_a_restart(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.ocr_check.isChecked()
    dialog.ocr_check.setChecked(False)
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    applied = done.args[0]
    # The extraction process was started with the old value: it applies on the next start.
    assert applied.changed == ["ocr_enabled"] and applied.restart == ["ocr_enabled"]


def test_settings_switch_turns_the_llm_rerank_on_at_once(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert not dialog.llm_rerank_check.isChecked()
    assert dialog.llm_rerank_check.accessibleName() == "LLM rerank"
    dialog.llm_rerank_check.setChecked(True)
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    applied = done.args[0]
    # read by each answer as it starts: no restart
    assert applied.changed == ["llm_rerank"] and applied.restart == []
    assert fake.settings.llm_rerank is True
