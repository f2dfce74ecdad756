"""Which pages of a PDF to OCR, and their OCR'd text in place of their text layer.

pdfplumber has read every page first (extract.py). A page is OCR'd when its text layer is
missing or unusable (``ocr.needs_ocr``): next to no text but an image covering a tenth of
it or more (a scan), a few words on a page mostly image (a scan with a stamp), or
characters the PDF cannot map to text (pdfium sees glyphs, pdfplumber gets none, or
mostly replacement and private-use characters). A page whose text pdfium reads well
(a content stream pdfminer cannot decode) takes pdfium's text instead: exact, and no OCR.
Pages are read one at a time, each
announced through ``on_page`` first (the extraction worker's progress and per-page
deadline), and one that fails to render or read keeps its text layer: one bad page never
loses the document.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from docent.core import gaps
from docent.core.models import Page
from docent.core.ocr import (
    GARBAGE_SHARE,
    MIN_PAGE_CHARS,
    OcrEngine,
    OcrUnavailable,
    PdfRenderer,
    garbage_share,
    needs_ocr,
    shared_engine,
)

if TYPE_CHECKING:
    import pypdfium2

log = logging.getLogger(__name__)

#: ``on_ocr(number, done, total)``: page ``number`` is about to be OCR'd, the
#: ``done``-th of ``total`` pages that need it; ``number`` 0: the pages are being looked
#: at for a text layer (a step of its own for the worker's time limits).
OcrCallback = Callable[[int, int, int], None]


def _no_progress(number: int, done: int, total: int) -> None:
    return None


#: A page with next to no text is OCR'd when images cover at least this share of it: a
#: 1x1-pixel image (a tracking pixel, a spacer) made every such page cost ~0.75 s of OCR
#: and find nothing (review).
MIN_IMAGE_COVER = 0.1
#: A page whose images cover this share of it is a scan even with some text on it (a
#: "Scanned with CamScanner" stamp, a fax header, a Bates number): OCR'd while its layer
#: holds fewer than SCAN_LAYER_CHARS visible characters. It was never OCR'd, and all it
#: said was lost (review).
SCAN_COVER = 0.6
SCAN_LAYER_CHARS = 200


def image_cover(page: pypdfium2.PdfPage) -> float:
    """The share of ``page`` its images cover (their boxes summed, at most 1)."""
    import pypdfium2.raw as pdfium_c

    width, height = page.get_size()
    if width <= 0 or height <= 0:
        return 0.0
    area = 0.0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        left, bottom, right, top = obj.get_bounds()
        w = min(right, width) - max(left, 0.0)
        h = min(top, height) - max(bottom, 0.0)
        area += max(w, 0.0) * max(h, 0.0)
    return min(1.0, area / (width * height))


def ocr_candidates(path: Path, password: str | None, pages: list[Page]) -> dict[int, str]:
    """Pages whose text layer pdfplumber could not use: number -> pdfium's text of the
    page when that is usable (a stream pdfminer cannot decode), else "" (to OCR); and
    scanned pages with a few words of text on them (to OCR)."""

    def visible(text: str) -> int:
        return sum(1 for ch in text if not ch.isspace())

    weak = {
        p.number
        for p in pages
        if visible(p.text) < MIN_PAGE_CHARS or garbage_share(p.text) >= GARBAGE_SHARE
    }
    few = [p.number for p in pages if p.number in weak or visible(p.text) < SCAN_LAYER_CHARS]
    if not few:
        return {}
    import pypdfium2 as pdfium

    out: dict[int, str] = {}
    pdf = pdfium.PdfDocument(str(path), password=password or None)
    try:
        for number in few:
            page = pdf[number - 1]
            try:
                cover = image_cover(page)
                if number not in weak:
                    if cover >= SCAN_COVER:
                        out[number] = ""
                    continue
                textpage = page.get_textpage()
                own = textpage.get_text_range() if textpage.count_chars() else ""
                textpage.close()
            finally:
                page.close()
            usable = visible(own) >= MIN_PAGE_CHARS
            if usable and garbage_share(own) < GARBAGE_SHARE:
                out[number] = own
            elif needs_ocr(pages[number - 1].text, cover >= MIN_IMAGE_COVER) or usable:
                out[number] = ""
    finally:
        pdf.close()
    return out


def ocr_pages(
    path: Path,
    password: str | None,
    pages: list[Page],
    on_ocr: OcrCallback = _no_progress,
    engine: OcrEngine | None = None,
    clean: Callable[[str], str] = str.strip,
) -> list[Page]:
    """``pages`` with those that need it replaced by pdfium's text (tidied by ``clean``,
    as pdfplumber's is) or their OCR'd text."""
    on_ocr(0, 0, 0)
    found = _candidates(path, password, pages)
    out = list(pages)
    for number, text in found.items():
        if text:
            out[number - 1] = Page(number=number, text=clean(text))
    todo = [number for number, text in found.items() if not text]
    if not todo:
        return out
    engine = engine or shared_engine()
    try:
        with PdfRenderer(path, password) as renderer:
            for done, number in enumerate(todo):
                on_ocr(number, done, len(todo))
                page = _ocr_page(renderer, engine, path, number)
                out[number - 1] = page or replace(out[number - 1], unread=gaps.OCR_FAILED)
    except OcrUnavailable as exc:
        log.error("OCR is unavailable, %s keeps its text layer: %s", path, exc)
        out = [
            replace(p, unread=gaps.OCR_FAILED) if p.number in todo and not p.ocr else p for p in out
        ]
    return out


def not_ocred(path: Path, password: str | None, pages: list[Page]) -> list[Page]:
    """``pages``, those OCR would have read marked so (``gaps.NOT_OCRED``): OCR is off."""
    scans = {number for number, text in _candidates(path, password, pages).items() if not text}
    return [replace(p, unread=gaps.NOT_OCRED) if p.number in scans else p for p in pages]


def _candidates(path: Path, password: str | None, pages: list[Page]) -> dict[int, str]:
    try:
        return ocr_candidates(path, password, pages)
    except Exception as exc:  # pdfium cannot open what pdfplumber could: keep the text
        log.warning("%s: cannot look for pages to OCR (%r)", path, exc)
        return {}


def _ocr_page(renderer: PdfRenderer, engine: OcrEngine, path: Path, number: int) -> Page | None:
    try:
        layout = engine.read_layout(renderer.render(number))
    except (OcrUnavailable, MemoryError):
        raise
    except Exception as exc:  # one page that will not render or read
        log.warning("%s: page %d could not be OCR'd (%r); kept its text layer", path, number, exc)
        return None
    return Page(number=number, text=layout.text, ocr=True, lines=layout.lines)
