"""A citation on an OCR'd page (no text layer for pdfium to search) lights up the lines
OCR read the passage from."""

from __future__ import annotations

from pathlib import Path

from docent.core.models import LineBox
from docent.gui.pdf_render import render_page
from scan_files import MARGIN, PAGE, page_image, save_scan


def test_ocr_lines_are_highlighted_where_they_were_read(qapp: object, tmp_path: Path) -> None:
    scan = save_scan(tmp_path / "scan.pdf", [page_image(["A line of scanned text", "Another"])])
    first = LineBox(0, 22, MARGIN / PAGE[0], MARGIN / PAGE[1], 0.45, (MARGIN + 34) / PAGE[1])
    plain = render_page(str(scan), 1, "A line of scanned text", fit_width=620)
    assert plain.rects == [] and plain.method == ""  # an image: nothing for pdfium to find
    lit = render_page(str(scan), 1, "A line of scanned text", fit_width=620, ocr_lines=[first])
    assert lit.method == "ocr" and len(lit.rects) == 1
    rect = lit.rects[0]
    width = lit.image.width() / lit.image.devicePixelRatio()
    assert abs(rect.left() / width - first.x0) < 0.01 and abs(rect.right() / width - 0.45) < 0.01
    # Inside the box the white page turned yellow; outside it stayed white.
    inside = lit.image.pixelColor(int(rect.center().x()) + 40, int(rect.top()) + 2)
    outside = lit.image.pixelColor(int(width) - 20, int(rect.center().y()))
    assert inside.blue() < 200 < inside.red() and outside.blue() > 240
