"""Documents of every format Docent reads, made here with the libraries (nothing fetched).

Each holds phrases found nowhere else, at a known location, so tests can check that
indexing, grep, search and the citation's location agree. ``scale`` makes them bigger
for the benchmark (benchmarks/ocr_formats.py).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

#: (file name, a phrase in it, the location a citation of that phrase names)
PHRASES = {
    "report.docx": ("quarterly lighthouse inspection", "§ Inspection results"),
    "deck.pptx": ("violet harbour beacon", "slide 2"),
    "ledger.xlsx": ("Copperfield", "Stock rows 2–26"),
    "notes.odt": ("amber quay lantern", "§ Quay lanterns"),
    "book.epub": ("the cartographer folded the vellum map", "ch. 2 › The Map Room"),
    "page.html": ("saffron tide tables", "§ Tide tables"),
}


def make_docx(path: Path, scale: int = 1) -> Path:
    import docx

    d = docx.Document()
    d.core_properties.title = "Lighthouse report"
    d.add_heading("Introduction", level=1)
    for i in range(scale):
        d.add_paragraph(f"This report covers the coast from north to south, part {i + 1}. " * 3)
    d.add_heading("Inspection results", level=1)
    d.add_paragraph("The quarterly lighthouse inspection found the lamp in good order.")
    t = d.add_table(rows=1, cols=3)
    for cell, text in zip(t.rows[0].cells, ("Station", "Keeper", "Lamp hours"), strict=True):
        cell.text = text
    for i in range(3 * scale):
        row = t.add_row().cells
        row[0].text, row[1].text, row[2].text = f"Station {i + 1}", f"Keeper {i + 1}", str(100 + i)
    d.add_heading("Recommendations", level=2)
    d.add_paragraph("Replace the fog horn diaphragm before winter.")
    d.save(str(path))
    return path


def make_pptx(path: Path, scale: int = 1) -> Path:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    layout = deck.slide_layouts[1]
    texts = [
        ("Harbour plan", "Dredging starts in spring."),
        ("Signals", "The violet harbour beacon flashes every four seconds."),
        ("Budget", "See the table below."),
    ] + [(f"Extra slide {i}", f"Routine item number {i}.") for i in range(3 * (scale - 1))]
    for title, body in texts:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    budget = deck.slides[2]
    shape = budget.shapes.add_table(3, 2, Inches(1), Inches(3), Inches(6), Inches(1.5))
    for r, (a, b) in enumerate([("Item", "Cost"), ("Buoys", "1200"), ("Chains", "340")]):
        shape.table.cell(r, 0).text, shape.table.cell(r, 1).text = a, b
    deck.slides[1].notes_slide.notes_text_frame.text = "Mention the night trial."
    deck.save(str(path))
    return path


def make_xlsx(path: Path, scale: int = 1) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["Name", "Quantity", "Supplier"])
    for i in range(60 * scale):
        supplier = "Copperfield" if i == 7 else f"Supplier {i % 5}"
        sheet.append([f"Part {i + 1}", i * 3, supplier])
    other = book.create_sheet("Notes")
    other.append(["Remarks"])
    other.append(["Count again in March"])
    book.save(str(path))
    return path


def make_html(path: Path, scale: int = 1) -> Path:
    rows = "".join(f"<tr><td>Port {i}</td><td>{i % 12}:00</td></tr>" for i in range(5 * scale))
    paras = "".join(f"<p>Harbour note {i}: calm water.</p>" for i in range(scale))
    path.write_text(
        "<!doctype html><html><head><title>Harbour guide</title>"
        "<script>document.write('INJECTED SCRIPT TEXT')</script>"
        "<style>p { color: red }</style></head><body>"
        "<h1>Welcome</h1><p>Read the notes below.</p>"
        f"{paras}<h2>Tide tables</h2><p>The saffron tide tables list high water.</p>"
        f"<table><tr><th>Port</th><th>High water</th></tr>{rows}</table>"
        "<img src='http://example.invalid/tracker.png'>"
        "<iframe src='http://example.invalid/'>FRAME TEXT</iframe>"
        "<h2>Contacts</h2><p>Ask the harbour master.</p></body></html>",
        encoding="utf-8",
    )
    return path


def make_odt(path: Path, scale: int = 1) -> Path:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
    )
    paras = "".join(f"<text:p>Routine paragraph {i}.</text:p>" for i in range(scale))
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}>'
        "<office:body><office:text>"
        '<text:h text:outline-level="1">Overview</text:h>'
        f"<text:p>General notes.</text:p>{paras}"
        '<text:h text:outline-level="1">Quay lanterns</text:h>'
        "<text:p>Each amber quay lantern<text:s/>burns oil.</text:p>"
        "<table:table><table:table-row><table:table-cell><text:p>Quay</text:p></table:table-cell>"
        "<table:table-cell><text:p>Lanterns</text:p></table:table-cell></table:table-row>"
        "<table:table-row><table:table-cell><text:p>East</text:p></table:table-cell>"
        "<table:table-cell><text:p>4</text:p></table:table-cell></table:table-row></table:table>"
        "</office:text></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        zf.writestr("content.xml", content)
    return path


def make_epub(path: Path, scale: int = 1, spine: bool = True) -> Path:
    chapters = [
        ("Departure", "<p>The ship left at dawn.</p>" * scale),
        ("The Map Room", "<p>At noon the cartographer folded the vellum map.</p>"),
    ]
    return write_epub(
        path,
        [
            '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
            f"<title>{title}</title><script>document.write('EPUB SCRIPT')</script></head>"
            f"<body><h1>{title}</h1>{body}</body></html>"
            for title, body in chapters
        ],
        spine,
    )


def write_epub(
    path: Path, chapters: Sequence[str | bytes], spine: bool = True, nav: int = 0
) -> Path:
    """A book of these chapters' XHTML (bytes: written as they are, in their encoding);
    ``nav``: the 1-based number of the one that is the book's table of contents."""
    manifest = "".join(
        f'<item id="c{i}" href="text/c{i}.xhtml" media-type="application/xhtml+xml"'
        + (' properties="nav"' if i == nav else "")
        + "/>"
        for i in range(1, len(chapters) + 1)
    )
    itemrefs = "".join(f'<itemref idref="c{i}"/>' for i in range(1, len(chapters) + 1))
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f"<metadata/><manifest>{manifest}</manifest>"
        + (f"<spine>{itemrefs}</spine>" if spine else "")
        + "</package>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip")
        zf.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        zf.writestr("OEBPS/content.opf", opf)
        for i, chapter in enumerate(chapters, start=1):
            zf.writestr(f"OEBPS/text/c{i}.xhtml", chapter)
    return path


MAKERS = {
    "report.docx": make_docx,
    "deck.pptx": make_pptx,
    "ledger.xlsx": make_xlsx,
    "notes.odt": make_odt,
    "book.epub": make_epub,
    "page.html": make_html,
}


def make_samples(folder: Path, scale: int = 1) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [make(folder / name, scale) for name, make in MAKERS.items()]
