"""OpenDocument text (.odt): ``content.xml`` read with lxml, no extra library.

Headings (``text:h``, with their outline level) start units as in Word documents;
paragraphs, list items and tables (one row per line, under their header) follow in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
from docent.core.formats.containers import leading, open_zip, own_rows, parse_xml, read_member
from docent.core.models import ExtractedDocument

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_H, _P, _S, _TAB, _BR = (f"{{{TEXT}}}{n}" for n in ("h", "p", "s", "tab", "line-break"))
_TABLE, _ROW, _CELL = (f"{{{TABLE}}}{n}" for n in ("table", "table-row", "table-cell"))
_COVERED = f"{{{TABLE}}}covered-table-cell"
_NOTE, _CITATION, _NOTE_BODY = (f"{{{TEXT}}}{n}" for n in ("note", "note-citation", "note-body"))
#: Not the document's text: what tracked changes deleted (``text:tracked-changes`` holds
#: it, with who and when), comments (their author and date too).
_UNREAD = frozenset(
    {f"{{{TEXT}}}tracked-changes", f"{{{OFFICE}}}annotation", f"{{{OFFICE}}}annotation-end"}
)
#: A row or cell repeated this often is formatting to the sheet's end, not content.
MAX_REPEAT = 100


def extract_odt(path: Path) -> ExtractedDocument:
    with open_zip(path) as zf:
        root = parse_xml(path, read_member(path, zf, "content.xml"), "content.xml")
    body = root.find(".//{urn:oasis:names:tc:opendocument:xmlns:office:1.0}text")
    blocks = list(_blocks(body)) if body is not None else []
    pages = to_pages(paginate(blocks, "§ start", prefix="§ "))
    return ExtractedDocument(str(path), "odt", pages, page_unit="section")


def _blocks(el: Any) -> Iterator[Block]:
    for child in el:
        if child.tag in _UNREAD:
            continue
        if child.tag in (_H, _P):
            notes: list[str] = []
            text = _text(child, notes)
            if child.tag == _H and " ".join(text.split()):
                level = _number(child.get(f"{{{TEXT}}}outline-level"))
                yield Heading(level, " ".join(text.split()))
            elif child.tag == _P and clean(text):
                yield Para(clean(text))
            # a footnote after its paragraph, not inside its sentence ("signed in 16481")
            yield from (Para(f"Note: {n}") for n in map(clean, notes) if n)
        elif child.tag == _TABLE:
            t = table(_rows(child), header_rows=_marked_rows(child))
            if t is not None:
                yield t
        elif isinstance(child.tag, str):
            yield from _blocks(child)  # lists, sections, frames: their paragraphs


def _rows(tbl: Any) -> Iterator[list[str]]:
    """Each row's cells by column: a cell covered by a merged one, and each of the empty
    cells written once with a repeat count, is an empty column (they were skipped, and the
    cells after them shifted left under the wrong header); a nested table is read in its
    cell's text only (its rows were read again as the outer table's, and its cells taken
    for the outer row's; review)."""
    # column: (for how many rows, the next on, a cell above covers it; what it says there)
    down: dict[int, tuple[int, str]] = {}
    for row in own_rows(tbl, _ROW, _TABLE):
        cells: list[str] = []
        spanned = 0  # the columns the last merged cell spans still to come
        for cell in row:
            if cell.tag not in (_CELL, _COVERED) or len(cells) >= MAX_COLUMNS:
                continue
            repeat = min(_number(cell.get(f"{{{TABLE}}}number-columns-repeated")), MAX_REPEAT)
            repeat = max(1, min(repeat, MAX_COLUMNS - len(cells)))
            if cell.tag == _COVERED:
                across = min(repeat, spanned)  # a merged cell's columns: named by it
                cells.extend([SPANNED] * across)
                for _ in range(repeat - across):  # merged down: its value, said again
                    cells.append(down.get(len(cells), (0, ""))[1])
                spanned -= across
                continue
            text = " ".join(_text(cell, []).split())
            # a hostile span (-20,000,000) made millions of cells past the cap (review s21)
            span = _number(cell.get(f"{{{TABLE}}}number-columns-spanned"))
            spanned = min(max(span - 1, 0), MAX_COLUMNS)
            rows = _number(cell.get(f"{{{TABLE}}}number-rows-spanned"))
            if rows > 1 and repeat == 1:
                for k in range(1 + min(spanned, MAX_COLUMNS - len(cells) - 1)):
                    down[len(cells) + k] = (min(rows, MAX_REPEAT), SPANNED if k else text)
            cells.extend([text] * repeat)
        down = {col: (n - 1, t) for col, (n, t) in down.items() if n > 1}  # a row on
        while cells and not cells[-1]:
            cells.pop()  # empty to the row's end: formatting
        yield cells


def _marked_rows(tbl: Any) -> int:
    """How many of the table's first rows are its header rows
    (``table:table-header-rows``)."""

    def in_header(row: Any) -> bool:
        parent = row.getparent()
        return parent is not None and parent.tag == f"{{{TABLE}}}table-header-rows"

    return leading(own_rows(tbl, _ROW, _TABLE), in_header)


def _number(value: str | None) -> int:
    """A count or level written in an attribute; 1 when it is none ("one": the file was
    refused with Python's own error; review)."""
    try:
        return int(value or 1)
    except ValueError:
        return 1


def _text(el: Any, notes: list[str]) -> str:
    """The text of ``el``; its footnotes' and endnotes' bodies go to ``notes``."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if child.tag == _S:
                parts.append(" " * min(_number(child.get(f"{{{TEXT}}}c")), 8))
            elif child.tag == _TAB:
                parts.append("\t")
            elif child.tag == _BR:
                parts.append("\n")
            elif child.tag in (_P, _H):
                parts.append("\n")
                walk(child)
            elif child.tag == _NOTE:
                body = child.find(_NOTE_BODY)
                if body is not None:
                    notes.append(_text(body, notes))
            elif child.tag not in _UNREAD and child.tag != _CITATION:
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return "".join(parts)
