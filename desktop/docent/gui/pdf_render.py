"""Render a cited PDF page with the cited passage highlighted (runs in a worker).

QtPdf (pdfium) renders the page onto a white QImage (its own render is transparent).
The passage is located in the page's own text (``getAllText``) with a regex that only
needs the words to match: spacing, punctuation, line breaks and glued words may differ
between pdfplumber's text (what was indexed) and pdfium's. Long passages are matched in
windows of words, so a chunk that runs onto the next page still lights up its part of this
one. Each match becomes rectangles via ``getSelectionAtIndex(...).bounds()`` (in points,
scaled by dpi/72). When the regex finds nothing, ``QPdfSearchModel`` looks for a
distinctive phrase of the passage instead.

Nothing here touches widgets: QImage, QPainter and QPdfDocument are safe off the GUI
thread when each object stays on the thread that made it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtPdf import QPdfDocument, QPdfSearchModel

from docent.core.api import Edge, locate_spans
from docent.core.errors import DocumentError
from docent.core.models import LineBox

BASE_DPI = 96.0  # zoom 1.0
HIGHLIGHT_FILL = QColor(255, 214, 0, 110)
HIGHLIGHT_EDGE = QColor(230, 150, 0, 220)


@dataclass(slots=True)
class PageRender:
    image: QImage
    page: int  # 1-based
    page_count: int
    zoom: float
    #: highlighted areas in image pixels (device-independent)
    rects: list[QRectF] = field(default_factory=list)
    #: "regex" | "search" | "ocr" | "" (passage not located on this page)
    method: str = ""
    #: the file is not the one indexed (edited since, not yet indexed again)
    file_changed: bool = False
    #: the document was indexed again, another text, since the passage was cited
    cited_older: bool = False
    #: the page's own label when the PDF numbers its pages otherwise ("1" for the third
    #: page of a book whose front matter is i, ii; what viewers show); "" when the same
    label: str = ""


def distinctive_phrases(passage: str, n: int = 4, limit: int = 5) -> list[str]:
    """Short runs of the passage's words, the ones with the longest words first."""
    words = passage.split()
    runs = [" ".join(words[i : i + n]) for i in range(0, max(1, len(words) - n + 1))]
    runs.sort(key=lambda r: -max((len(w) for w in r.split()), default=0))
    return runs[:limit]


def passage_rects(
    doc: QPdfDocument, index: int, passage: str, edge: Edge = ""
) -> tuple[list[QRectF], str]:
    """Rectangles in points around the passage on page ``index`` (0-based); ``edge``: see
    ``locate_spans``."""
    text = doc.getAllText(index).text()
    rects: list[QRectF] = []
    for start, length in locate_spans(text, passage, edge):
        for poly in doc.getSelectionAtIndex(index, start, length).bounds():
            rects.append(poly.boundingRect())
    if rects:
        return rects, "regex"
    model = QPdfSearchModel(doc)  # a child: it goes when the document goes
    model.setDocument(doc)
    for phrase in distinctive_phrases(passage):
        model.setSearchString(phrase)
        for link in model.resultsOnPage(index):
            rects.extend(link.rectangles())
        if rects:
            return rects, "search"
    return [], ""


def render_page(
    path: str,
    page: int,
    passage: str,
    *,
    zoom: float | None = None,
    fit_width: int = 0,
    device_ratio: float = 1.0,
    ocr_lines: Sequence[LineBox] = (),
    edge: Edge = "",
) -> PageRender:
    """Page ``page`` (1-based) of ``path`` with ``passage`` highlighted.

    ``zoom`` None: fit the page to ``fit_width`` pixels. ``ocr_lines``: on a page read by
    OCR (no text layer for pdfium to search), the recognised lines that hold the passage
    (``passages.passage_boxes``), lit up instead.
    """
    doc = QPdfDocument()
    try:
        err = doc.load(path)
        if err != QPdfDocument.Error.None_:
            raise DocumentError(path, _load_message(path, err))
        count = doc.pageCount()
        index = min(max(page, 1), count) - 1
        size_pt: QSizeF = doc.pagePointSize(index)
        if zoom is None:
            zoom = max(0.25, min(4.0, (fit_width or 600) / (size_pt.width() * BASE_DPI / 72)))
        scale = zoom * BASE_DPI / 72  # points -> device-independent pixels
        px = QSize(
            int(size_pt.width() * scale * device_ratio),
            int(size_pt.height() * scale * device_ratio),
        )
        image = QImage(px, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor("white"))
        rects_pt, method = passage_rects(doc, index, passage, edge) if passage else ([], "")
        if not rects_pt and ocr_lines:
            w, h = size_pt.width(), size_pt.height()
            rects_pt = [
                QRectF(b.x0 * w, b.y0 * h, (b.x1 - b.x0) * w, (b.y1 - b.y0) * h) for b in ocr_lines
            ]
            method = "ocr"
        label = doc.pageLabel(index)
        rendered = doc.render(index, px)
        painter = QPainter(image)
        painter.drawImage(0, 0, rendered)
        painter.scale(scale * device_ratio, scale * device_ratio)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
        pen = QPen(HIGHLIGHT_EDGE)
        pen.setWidthF(0.8)
        painter.setPen(pen)
        painter.setBrush(HIGHLIGHT_FILL)
        for r in rects_pt:
            painter.drawRect(r.adjusted(-1.5, -1, 1.5, 1))
        painter.end()
        image.setDevicePixelRatio(device_ratio)
        rects = [
            QRectF(QPointF(r.left() * scale, r.top() * scale), r.size() * scale) for r in rects_pt
        ]
        own = label if label and label != str(index + 1) else ""
        return PageRender(image, index + 1, count, zoom, rects, method, label=own)
    finally:
        doc.close()


def _load_message(path: str, err: QPdfDocument.Error) -> str:
    name = path.rsplit("/", 1)[-1]
    if err == QPdfDocument.Error.IncorrectPassword:
        return f"{name} is password-protected, so its pages cannot be shown."
    if err == QPdfDocument.Error.FileNotFound:
        return f"{name} is no longer at {path}; re-index or remove it."
    return f"{name} could not be opened for display ({err.name})."
