"""Word (python-docx) and PowerPoint (python-pptx) files.

A Word document has no pages of its own (they depend on the printer), so its units are
its sections: a new one at each heading of level 1-2, named by it ("Installation").
A presentation's units are its slides ("slide 3"): the title first, then the other
shapes top to bottom and left to right, tables row by row, then the speaker notes.
Neither library runs macros or fetches linked content; only text is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from docent.core.errors import DamagedDocument
from docent.core.formats.blocks import (
    MAX_COLUMNS,
    SPANNED,
    Block,
    Heading,
    Para,
    clean,
    paginate,
    table,
    to_pages,
)
from docent.core.formats.containers import damaged, leading, open_container
from docent.core.models import ExtractedDocument, Page

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo)\s*(\d)", re.I)


def extract_docx(path: Path) -> ExtractedDocument:
    with open_container(path) as fh:  # encrypted / corrupt / too big: said first
        return _extract_docx(path, fh)


def _extract_docx(path: Path, fh: IO[bytes]) -> ExtractedDocument:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml import etree

    try:
        document = docx.Document(fh)
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise damaged(path, f"it has no Word document inside ({exc})") from exc
    except etree.LxmlError as exc:
        raise _broken_xml(path, exc) from exc
    try:  # its styles, properties and parts are parsed when first read
        title = " ".join(clean(document.core_properties.title or "").split())
        pages = to_pages(paginate(_docx_blocks(document), f"§ {title or 'start'}", prefix="§ "))
    except etree.LxmlError as exc:
        raise _broken_xml(path, exc) from exc
    return ExtractedDocument(str(path), "docx", pages, page_unit="section")


def _broken_xml(path: Path, exc: Exception) -> DamagedDocument:
    """A part python-docx or python-pptx cannot parse: lxml's error, said as damage (it
    came out as lxml's own words, and was logged as Docent's fault; review); a part
    nested past lxml's depth as that, not as badly formed (session 22)."""
    deep = re.search(r"Excessive depth in document: (\d+)", str(exc))
    if deep:
        return damaged(path, f"its XML is nested more than {int(deep.group(1)):,} deep")
    return damaged(path, f"a part of it is not well-formed XML ({exc})")


def _docx_blocks(document: Any) -> Iterator[Block]:
    """The body's paragraphs and tables in order, read from its XML (review): python-docx
    skips content controls (``w:sdt``) around blocks, and its ``Paragraph.text`` the text of
    tracked insertions, content controls and fields inside a paragraph."""
    from docx.text.paragraph import Paragraph

    parent = document._body
    for el in _blocks_in(document.element.body):
        if _tag(el) == "tbl":
            t = table(_docx_rows(el), header_rows=_docx_marked_rows(el))
            if t is not None:
                yield t
            continue
        text = clean(_paragraph_text(el))
        if text:
            level = _heading_level(Paragraph(el, parent))
            yield Heading(level, " ".join(text.split())) if level else Para(text)
        for box in _text_boxes(el):  # a text box's paragraphs after the one it is anchored in
            yield from (Para(t) for t in map(clean, box) if t)


def _tag(el: Any) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _blocks_in(container: Any) -> Iterator[Any]:
    """The ``w:p`` and ``w:tbl`` of a body or cell, inside content controls and custom XML."""
    return _children(container, ("p", "tbl"))


def _children(container: Any, tags: tuple[str, ...]) -> Iterator[Any]:
    """``container``'s children with one of ``tags``, also inside content controls
    (``w:sdt``: a form's field, or its repeating section of table rows) and custom XML."""
    for child in container:
        tag = _tag(child)
        if tag in tags:
            yield child
        elif tag == "sdt":
            for content in child:
                if _tag(content) == "sdtContent":
                    yield from _children(content, tags)
        elif tag == "customXml":
            yield from _children(child, tags)


#: What a paragraph's text does not hold: deleted or moved-away text (tracked changes),
#: text boxes (read as paragraphs of their own), a drawing's other rendering.
_NOT_IN_TEXT = frozenset({"del", "moveFrom", "txbxContent", "Fallback"})


def _paragraph_text(p: Any) -> str:
    parts: list[str] = []

    def walk(el: Any) -> None:
        for child in el:
            tag = _tag(child)
            if tag in _NOT_IN_TEXT:
                continue
            if tag == "t":
                parts.append(child.text or "")
            elif tag == "tab":
                parts.append("\t")
            elif tag in ("br", "cr"):
                parts.append("\n")
            else:
                walk(child)

    walk(p)
    return "".join(parts)


def _text_boxes(p: Any) -> Iterator[list[str]]:
    """The paragraphs of each text box anchored in ``p``, once: a drawing written twice
    (``mc:Choice`` and an old ``mc:Fallback``) is read from its Choice."""
    for box in p.iter():
        if _tag(box) != "txbxContent":
            continue
        above = list(box.iterancestors())
        if any(_tag(a) == "txbxContent" for a in above):
            continue  # a box inside a box: read with its outer one
        fallback = next((a for a in above if _tag(a) == "Fallback"), None)
        if fallback is not None and _has_box(fallback.getparent(), "Choice"):
            continue
        yield [_paragraph_text(q) for q in box.iter() if _tag(q) == "p"]


def _has_box(alternate: Any, branch: str) -> bool:
    return any(_tag(el) == "txbxContent" for c in alternate if _tag(c) == branch for el in c.iter())


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
    """Each row's cells by grid column: a row starting in a later column (``w:gridBefore``)
    and a merged cell, read once, leave those columns empty, so the cells after them
    stay under their own header (they were shifted left: "Q2: 7" under Q3; review). Read
    from the table's XML (``w:tbl``): python-docx's rows and cells skip those inside
    content controls, and its ``row.cells`` repeats a merged cell per grid column it
    spans, billions for a hostile gridSpan (review s21)."""
    above: list[str] = []
    for tr in _children(tbl, ("tr",)):
        cells = [""] * min(tr.grid_before, MAX_COLUMNS)
        for tc in _children(tr, ("tc",)):
            if len(cells) >= MAX_COLUMNS:
                break
            if tc.vMerge == "continue":  # merged down: the row above's value, said again
                at = len(cells)
                cells.append(above[at] if at < len(above) else "")
            else:
                cells.append(" ".join(clean(_cell_text(tc)).split("\n")))
            cells.extend([SPANNED] * min(max(tc.grid_span - 1, 0), MAX_COLUMNS - len(cells)))
        above = cells
        yield cells


def _docx_marked_rows(tbl: Any) -> int:
    """How many of the table's first rows repeat as its header on each page
    (``w:tblHeader``; ``w:val="false"`` unmarks a row)."""

    def repeats(tr: Any) -> bool:
        marks = [m for props in _children(tr, ("trPr",)) for m in _children(props, ("tblHeader",))]
        if not marks:
            return False
        value = next((v for k, v in marks[0].attrib.items() if k.endswith("}val")), "true")
        return str(value).lower() not in ("0", "false", "off")

    return leading(_children(tbl, ("tr",)), repeats)


def _cell_text(tc: Any) -> str:
    """A cell's paragraphs, and a table nested in it row by row (python-docx's
    ``cell.text`` reads the paragraphs only)."""
    lines = []
    for el in _blocks_in(tc):
        if _tag(el) == "p":
            lines.append(_paragraph_text(el))
        else:
            for row in _children(el, ("tr",)):
                texts = (clean(_cell_text(c)) for c in _children(row, ("tc",)))
                lines.append(" | ".join(t for t in texts if t))
    return "\n".join(lines)


def extract_pptx(path: Path) -> ExtractedDocument:
    with open_container(path) as fh:  # encrypted / corrupt / too big: said first
        return _extract_pptx(path, fh)


def _extract_pptx(path: Path, fh: IO[bytes]) -> ExtractedDocument:
    import pptx
    from lxml import etree
    from pptx.exc import PackageNotFoundError

    try:
        deck = pptx.Presentation(fh)
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise damaged(path, f"it has no presentation inside ({exc})") from exc
    except etree.LxmlError as exc:
        raise _broken_xml(path, exc) from exc
    pages = []
    try:  # each slide is parsed when first read
        for number, slide in enumerate(deck.slides, start=1):
            text = "\n\n".join(t for t in _slide_texts(slide) if t)
            pages.append(Page(number=number, text=text, label=f"slide {number}"))
    except etree.LxmlError as exc:
        raise _broken_xml(path, exc) from exc
    return ExtractedDocument(str(path), "pptx", pages, page_unit="slide")


def _slide_texts(slide: Any) -> Iterator[str]:
    from docent.core.formats.blocks import render

    title = slide.shapes.title
    title_id = title.shape_id if title is not None else None
    if title is not None and title.has_text_frame and clean(title.text_frame.text):
        yield "# " + " ".join(clean(title.text_frame.text).split())
    for shape, _ in sorted(_flat_shapes(slide.shapes), key=lambda shape_place: shape_place[1]):
        if shape.shape_id == title_id:
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            rows = [[clean(c.text).replace("\n", " ") for c in r.cells] for r in shape.table.rows]
            t = table(rows)  # its "header row" is a style every new table has on
            if t is not None:
                yield render(t)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield clean(shape.text_frame.text)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame  # None: a notes page without its body
        notes = clean(frame.text or "") if frame is not None else ""
        if notes:
            yield f"Notes: {notes}"


#: Where a shape is on its slide: (top, left) in EMU from its own (top, left).
Place = Callable[[float, float], tuple[float, float]]


def _on_slide(top: float, left: float) -> tuple[float, float]:
    return top, left


def _flat_shapes(
    shapes: Any, place: Place = _on_slide
) -> Iterator[tuple[Any, tuple[float, float]]]:
    """Each shape not a group, with where it is on the slide: a group's shapes carry the
    group's own coordinates (``chOff``/``chExt``), which PowerPoint keeps as they were
    when the group is moved or resized; sorted by them, a group moved to the top was
    read after the text below it (s21)."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _flat_shapes(shape.shapes, _inside(shape, place))
        else:
            yield shape, place(shape.top or 0, shape.left or 0)


def _inside(group: Any, place: Place) -> Place:
    xfrm = group._element.grpSpPr.xfrm
    if xfrm is None or xfrm.chOff is None or xfrm.chExt is None or xfrm.off is None:
        return place
    off, ext, ch_off, ch_ext = xfrm.off, xfrm.ext, xfrm.chOff, xfrm.chExt
    sx = ext.cx / ch_ext.cx if ext is not None and ch_ext.cx else 1.0
    sy = ext.cy / ch_ext.cy if ext is not None and ch_ext.cy else 1.0

    def inner(top: float, left: float) -> tuple[float, float]:
        return place(off.y + (top - ch_off.y) * sy, off.x + (left - ch_off.x) * sx)

    return inner
