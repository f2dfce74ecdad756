"""Citations a person clicks: the words lit on the page are the cited ones (review h20).
Real PDFs made by the tests, read by QtPdf as the pane reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF
from PySide6.QtPdf import QPdfDocument

from docent.core.passages import locate_spans
from docent.gui.pdf_render import passage_rects
from pdf_files import text_pdf


def _lit(doc: QPdfDocument, index: int, passage: str) -> str:
    """The page text the highlighter lights for ``passage`` (pdfium's text, as QtPdf
    gives it to pdf_render.passage_rects)."""
    text = doc.getAllText(index).text()
    return " | ".join(text[s : s + n] for s, n in locate_spans(text, passage))


def _covers(doc: QPdfDocument, index: int, rects: list[QRectF], words: str) -> bool:
    """Every line box of ``words`` (as they stand on the page) lies inside a lit rect."""
    text = doc.getAllText(index).text()
    at = text.index(words)
    boxes = [p.boundingRect() for p in doc.getSelectionAtIndex(index, at, len(words)).bounds()]
    assert boxes
    return all(any(r.contains(b.center()) for r in rects) for b in boxes)


def _open(path: Path) -> QPdfDocument:
    doc = QPdfDocument()
    assert doc.load(str(path)) == QPdfDocument.Error.None_
    return doc


def test_a_word_hyphenated_at_a_line_end_keeps_the_lines_before_it_lit(
    qapp: Any, tmp_path: Path
) -> None:
    """pdfium writes a word broken at a line's end ("out-" / "liers") as "out\\ufffeliers"
    in the text QtPdf gives (no line break after the mark); extraction and chunking make
    it "outliers". normal_form's _HYPHEN_BREAK only joins a mark followed by a line
    break, so the page text keeps "out" and "liers" apart, the passage's whole-match
    fails, and the words before the broken one in the passage's first window (or after
    it in its last) are left unlit (corpus: UMFPACK_UserGuide.pdf, the passage opening
    "UMFPACK is an outer-/product based" is lit from "based" on)."""
    from docent.core.chunking import chunk_pages
    from docent.core.extract import extract

    lines = [
        "The analysis of the data shows that out-",
        "liers were removed before the final",
        "computation of every statistic in the study.",
    ]
    pdf = tmp_path / "hyphen.pdf"
    pdf.write_bytes(text_pdf([lines]))
    (chunk,) = chunk_pages(extract(pdf, ocr=False).pages)
    assert "outliers" in chunk.text  # what was indexed, and what the chip carries
    doc = _open(pdf)
    try:
        assert "out\ufffeliers" in doc.getAllText(0).text()  # what the highlighter searches
        rects, _method = passage_rects(doc, 0, chunk.text)
        assert _covers(doc, 0, rects, "The analysis of the data shows that"), _lit(
            doc, 0, chunk.text
        )
    finally:
        doc.close()
