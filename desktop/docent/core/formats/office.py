"""Word (python-docx) and PowerPoint (python-pptx) files.

A Word document has no pages of its own (they depend on the printer), so its units are
its sections: a new one at each heading of level 1-2, named by it ("Installation").
A presentation's units are its slides ("slide 3"): the title first, then the other
shapes top to bottom and left to right, tables row by row, then the speaker notes.
Neither library runs macros or fetches linked content; only text is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docent.core.formats.blocks import Block, Heading, Para, clean, paginate, table, to_pages
from docent.core.formats.containers import damaged, open_zip
from docent.core.models import ExtractedDocument, Page

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo)\s*(\d)", re.I)


def extract_docx(path: Path) -> ExtractedDocument:
    open_zip(path).close()  # encrypted / corrupt / too big: said before python-docx guesses
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise damaged(path, f"it has no Word document inside ({exc})") from exc
    title = " ".join(clean(document.core_properties.title or "").split())
    pages = to_pages(paginate(_docx_blocks(document), f"§ {title or 'start'}", prefix="§ "))
    return ExtractedDocument(str(path), "docx", pages, page_unit="section")


def _docx_blocks(document: Any) -> Iterator[Block]:
    from docx.table import Table as DocxTable

    for item in document.iter_inner_content():
        if isinstance(item, DocxTable):
            t = table(_docx_rows(item))
            if t is not None:
                yield t
            continue
        text = clean(item.text)
        if not text:
            continue
        level = _heading_level(item)
        yield Heading(level, " ".join(text.split())) if level else Para(text)


def _heading_level(paragraph: Any) -> int:
    try:
        name = paragraph.style.name if paragraph.style is not None else ""
    except (KeyError, ValueError):
        return 0
    if name == "Title":
        return 1
    m = _HEADING_STYLE.match(name or "")
    return int(m.group(1)) if m else 0


def _docx_rows(tbl: Any) -> Iterator[list[str]]:
    for row in tbl.rows:
        cells, seen = [], set()
        for cell in row.cells:
            # A merged cell comes back once per grid column it spans: keep it once.
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(clean(cell.text).replace("\n", " "))
        yield cells


def extract_pptx(path: Path) -> ExtractedDocument:
    open_zip(path).close()
    import pptx
    from pptx.exc import PackageNotFoundError

    try:
        deck = pptx.Presentation(str(path))
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise damaged(path, f"it has no presentation inside ({exc})") from exc
    pages = []
    for number, slide in enumerate(deck.slides, start=1):
        text = "\n\n".join(t for t in _slide_texts(slide) if t)
        pages.append(Page(number=number, text=text, label=f"slide {number}"))
    return ExtractedDocument(str(path), "pptx", pages, page_unit="slide")


def _slide_texts(slide: Any) -> Iterator[str]:
    from docent.core.formats.blocks import render

    title = slide.shapes.title
    title_id = title.shape_id if title is not None else None
    if title is not None and title.has_text_frame and clean(title.text_frame.text):
        yield "# " + " ".join(clean(title.text_frame.text).split())
    for shape in sorted(_flat_shapes(slide.shapes), key=_position):
        if shape.shape_id == title_id:
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            rows = [[clean(c.text).replace("\n", " ") for c in r.cells] for r in shape.table.rows]
            t = table(rows)
            if t is not None:
                yield render(t)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield clean(shape.text_frame.text)
    if slide.has_notes_slide:
        notes = clean(slide.notes_slide.notes_text_frame.text or "")
        if notes:
            yield f"Notes: {notes}"


def _flat_shapes(shapes: Any) -> Iterator[Any]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _flat_shapes(shape.shapes)
        else:
            yield shape


def _position(shape: Any) -> tuple[int, int]:
    return (shape.top or 0, shape.left or 0)
