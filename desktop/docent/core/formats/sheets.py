"""Excel workbooks (openpyxl, read-only and streaming: a sheet is never held whole).

Each sheet is cut into units of ``ROWS_PER_UNIT`` rows, named by the sheet and the
spreadsheet's own row numbers ("Budget rows 2-26"), so a citation says where to look.
A sheet whose first row names its columns repeats those names before every cell of
every row (see blocks.py), so a row found alone still says what its numbers are. Whether
it does is guessed, unless a table of the sheet ("Format as Table") says its first row is
its header: then "Region | 2021 | 2022" names the columns though its names are numbers.
Formulas are not evaluated: the value Excel last saved is read (``data_only``).

Sheets can claim far more rows than they hold (a formatted column down to row 1,048,576):
empty rows cost nothing but the time to skip them, and ``MAX_EMPTY_RUN`` of them in a
row end the sheet. A workbook with more than ``MAX_ROWS`` rows of data is cut there, and
its document says so (``ExtractedDocument.gaps``).
"""

from __future__ import annotations

import datetime as dt
import logging
import posixpath
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import IO, Any

from docent.core.errors import EmptyDocument
from docent.core.formats.blocks import MAX_CELL_CHARS, MAX_COLUMNS, has_header, row_line
from docent.core.formats.containers import damaged, open_container
from docent.core.models import ExtractedDocument, Page
from docent.core.userfiles import shown

log = logging.getLogger(__name__)

ROWS_PER_UNIT = 25
#: This many empty rows in a row end a sheet (what follows is formatting, not data).
MAX_EMPTY_RUN = 10_000
#: Rows of data read from one workbook at most (their passages would embed for hours).
MAX_ROWS = 200_000


def extract_xlsx(path: Path) -> ExtractedDocument:
    # encrypted / corrupt / too big: said before openpyxl guesses; the one handle read
    with open_container(path) as fh, zipfile.ZipFile(fh) as zf:
        return _extract_book(path, fh, zf)


def extract_rows(path: Path, rows: Sequence[Sequence[str]]) -> ExtractedDocument:
    """A CSV or TSV file's rows (``extract.py`` parses them), read as a sheet's: units of
    ``ROWS_PER_UNIT`` rows cited by the file's row numbers ("rows 70–87"), a first row
    that names the columns repeated before every cell (QA-78: "2024-04-01,Torbjorn,42,187"
    reached the model with nothing saying 42 was kilometres). Kind "csv"."""
    budget = RowBudget()
    pages = [
        Page(number=i, text=text, label=label.strip())
        for i, (label, text) in enumerate(_sheet_units(_RowsSheet(rows), budget), 1)
    ]
    if not pages:
        raise EmptyDocument(str(path), f"{shown(path.name)} has no values in any row.")
    return ExtractedDocument(str(path), "csv", pages, page_unit="rows", gaps=budget.gaps)


@dataclass(slots=True)
class RowBudget:
    """The rows of data a file may still give (``MAX_ROWS`` in all), and whether one
    past them was left unread."""

    rows: int = field(default_factory=lambda: MAX_ROWS)
    cut: bool = False

    @property
    def gaps(self) -> str:
        return f"only its first {MAX_ROWS:,} rows of data are read" if self.cut else ""


class _RowsSheet:
    """Rows as much of an openpyxl sheet as ``_sheet_units`` reads: no name (the file's
    is the citation's), its rows, how many."""

    title = ""

    def __init__(self, rows: Sequence[Sequence[str]]) -> None:
        self._rows = rows
        self.max_row = len(rows)

    def iter_rows(
        self, *, min_row: int, values_only: bool, max_col: int
    ) -> Iterator[tuple[str, ...]]:
        for row in self._rows[min_row - 1 :]:
            yield tuple(row[:max_col])


def _extract_book(path: Path, fh: IO[bytes], zf: zipfile.ZipFile) -> ExtractedDocument:
    import openpyxl

    try:
        book = openpyxl.load_workbook(fh, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, TypeError, OSError) as exc:
        raise damaged(path, f"its workbook parts are missing or corrupt ({exc})") from exc
    except Exception as exc:  # openpyxl raises lxml/XML errors of many kinds on bad parts
        raise damaged(path, f"its workbook parts cannot be parsed ({exc})") from exc
    # A script's workbook (openpyxl, pandas) holds formulas with no values until a
    # spreadsheet program saves it: read as empty, a total went missing (s21). Its
    # formulas are read beside the values then, and stand in for the missing ones.
    formulas = None
    pages: list[Page] = []
    budget = RowBudget()
    try:
        formulas = _formulas_book(fh) if _uncached_formulas(zf) else None
        headers = _table_headers(zf)
        for i, sheet in enumerate(book.worksheets):
            if budget.cut:
                log.warning("%s: more than %d rows of data; the rest is not read", path, MAX_ROWS)
                break
            written = formulas.worksheets[i] if formulas is not None else None
            tables = headers[i] if i < len(headers) else []
            for label, text in _sheet_units(sheet, budget, written, tables):
                pages.append(Page(number=len(pages) + 1, text=text, label=label))
    except Exception as exc:  # a sheet's XML breaks midway
        raise damaged(path, f"a sheet cannot be read ({exc})") from exc
    finally:
        book.close()
        if formulas is not None:
            formulas.close()
    if not pages:
        raise EmptyDocument(str(path), f"{shown(path.name)} has no values in any sheet.")
    return ExtractedDocument(str(path), "xlsx", pages, page_unit="rows", gaps=budget.gaps)


#: A formula cell saved without its value: ``<c r="B4"><f>SUM(B2:B3)</f></c>``, or with an
#: empty one, or a shared formula's ``<f .../>`` alone; not one typed ``t="str"``, whose
#: empty value is the formula's result, "" (=IF(B2="","",B2*10); review s21).
_UNCACHED = re.compile(
    rb"<c\b(?![^>]*\bt=[\"']str[\"'])[^>]*>\s*(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)"
    rb"\s*(?:<v\s*/>|<v>\s*</v>)?\s*</c>"
)


def _uncached_formulas(zf: zipfile.ZipFile) -> bool:
    """Whether a sheet of the workbook holds a formula saved without its value."""
    for info in zf.infolist():
        if info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml"):
            with zf.open(info) as fh:
                tail = b""
                while block := fh.read(1 << 20):
                    if _UNCACHED.search(tail + block):
                        return True
                    tail = block[-256:]
    return False


def _formulas_book(fh: IO[bytes]) -> Any:
    import openpyxl

    try:
        return openpyxl.load_workbook(fh, read_only=True, data_only=False)
    except Exception:  # noqa: BLE001 - read as before, values only (the values book opened)
        return None


def _sheet_units(
    sheet: Any, budget: RowBudget, written: Any = None, tables: Sequence[TableRange] = ()
) -> Iterator[tuple[str, str]]:
    """(label, text) per block of ROWS_PER_UNIT data rows of ``sheet``, taking each row
    from ``budget`` (a row past it ends the sheet, and says so there);
    ``written``: the same sheet with its formulas, for the values it was saved without;
    ``tables``: the sheet's tables (``_table_headers``). The sheet's first row is weighed
    as a header; a table's header row further down (a table under a title, or a second
    table) names the rows under it: its table's, and those right under them with no empty
    row between (appended by a script, the table's range not grown). A header no row came
    under (a new table's empty body) is a unit of its own."""
    name = sheet.title
    header: list[str] | None = None
    header_at = 0
    shown = False  # a unit under the header was given, its names with it
    until = 0  # the last row the header names, when a table's header: 0 for the sheet's
    block: list[tuple[int, list[str]]] = []
    used = 0
    previous = 0
    starting: dict[int, list[TableRange]] = {}  # by first row: one look-up a row
    for t in tables:
        starting.setdefault(t.first_row, []).append(t)

    def units() -> list[tuple[str, str]]:
        nonlocal block, shown
        if block:
            out = [_unit(name, header, block)]
        elif header is not None and not shown:
            out = [(f"{name} row {header_at}", " | ".join(c for c in header if c))]
        else:
            return []
        block, shown = [], True
        return out

    for number, cells in _rows(sheet, written):
        heads = _headed_here(starting.get(number, []), cells)
        if until and number > until:
            if number == previous + 1 and not heads:
                until = number  # right under the table: one of its rows
            else:  # below the table, after an empty row: its header names nothing here
                yield from units()
                header, until = None, 0
        previous = number
        first = header is None and not block and used == 0
        if (first or heads) and _header_row(sheet, cells, bool(heads)):
            yield from units()  # the rows above stay under the header they had
            header, header_at, shown = cells, number, False
            until = max((t.last_row for t in heads), default=0)
            continue
        if budget.rows <= 0:  # a row past the budget: what was read is kept, said cut
            budget.cut = True
            if block:
                yield from units()
            return
        block.append((number, cells))
        used += 1
        budget.rows -= 1
        if len(block) == ROWS_PER_UNIT:
            yield from units()
    yield from units()


def _headed_here(starting: Sequence[TableRange], cells: Sequence[str]) -> list[TableRange]:
    """Of the tables ``starting`` on this row, the headed ones, when each filled cell of
    the row is in their columns (a cell of the row outside them is another table's data,
    or a note: the row is then guessed, as is a row where a headerless table starts)."""
    if not starting or not all(t.headed for t in starting):
        return []
    for col, cell in enumerate(cells, start=1):
        if cell and not any(t.first_col <= col <= t.last_col for t in starting):
            return []
    return list(starting)


def _header_row(sheet: Any, cells: list[str], marked: bool = False) -> bool:
    # has_header wants a data row after the header; in a stream, the sheet's claimed size
    # says whether there is one.
    return has_header([cells, ["x"]], marked) if (sheet.max_row or 2) > 1 else False


#: Tables read per workbook at most, for their header rows.
MAX_TABLES = 1_000
#: A table part larger than this is not read for its header mark (a table part is a few
#: kB; a hostile one pointing at a 28 MB sheet was parsed whole; review).
MAX_MARK_PART = 1 << 20
#: Nor is a workbook or relationships part larger than this (a sheet's relationships hold
#: its hyperlinks too): its sheets' headers are guessed.
MAX_RELS_PART = 8 << 20
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PACKAGE_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


@dataclass(frozen=True, slots=True)
class TableRange:
    """Where a sheet's table (Excel's "Format as Table") is: rows and columns from 1."""

    first_row: int
    last_row: int
    first_col: int
    last_col: int
    #: Its first row is its header (not saved with ``headerRowCount="0"``).
    headed: bool


def _table_headers(zf: zipfile.ZipFile) -> list[list[TableRange]]:
    """Per worksheet, in the workbook's order (openpyxl's ``worksheets``), its tables
    (Excel's "Format as Table"): a headed table's first row is its header, unless a
    headerless one starts on that row too (that row is then guessed, whatever the other
    says). Nothing for a part that cannot be read, or is too large to be a table's: those
    headers are guessed, as without a table."""
    try:
        return _read_table_headers(zf)
    except Exception:  # noqa: BLE001 - openpyxl read the sheets; only the marks are lost
        log.debug("a workbook's table parts could not be read", exc_info=True)
        return []


def _read_table_headers(zf: zipfile.ZipFile) -> list[list[TableRange]]:
    from lxml import etree
    from openpyxl.utils.cell import range_boundaries

    from docent.core.formats.containers import xml_parser

    sizes = {info.filename: info.file_size for info in zf.infolist()}

    def xml(name: str, most: int = MAX_MARK_PART) -> Any:
        if sizes.get(name, most + 1) > most:
            return None  # absent, or too large to be read for a mark
        return etree.fromstring(zf.read(name), xml_parser())

    def targets(part: str, kind: str) -> list[tuple[str, str]]:
        """(id, part pointed at) of ``part``'s relationships of type ``kind``, at most
        MAX_TABLES."""
        folder, base = posixpath.split(part)
        rels = xml(posixpath.join(folder, "_rels", base + ".rels"), MAX_RELS_PART)
        out: list[tuple[str, str]] = []
        for rel in rels if rels is not None else ():
            if rel.tag == f"{_PACKAGE_REL}Relationship" and rel.get("Type", "").endswith(kind):
                target = rel.get("Target", "")
                at = target[1:] if target.startswith("/") else posixpath.join(folder, target)
                out.append((rel.get("Id", ""), posixpath.normpath(at)))
                if len(out) >= MAX_TABLES:
                    break
        return out

    # the workbook part where the package says it is (xl/workbook.xml as Excel writes it)
    book_part = next((at for _, at in targets("", "/officeDocument")), "xl/workbook.xml")
    book = xml(book_part, MAX_RELS_PART)
    if book is None:
        return []
    sheets = dict(targets(book_part, "/worksheet"))
    found: list[list[TableRange]] = []
    read = 0
    for sheet in book.iter(f"{_MAIN}sheet"):
        part = sheets.get(sheet.get(f"{_REL}id", ""))
        if part is None:
            continue  # a chartsheet: openpyxl's worksheets leave it out too
        ranges: list[TableRange] = []
        # each table part once (a hostile file pointed 20 at one 28 MB part; review)
        for table_part in dict.fromkeys(at for _, at in targets(part, "/table")):
            read += 1
            table = xml(table_part) if read <= MAX_TABLES else None
            if table is None:
                continue
            try:
                min_col, min_row, max_col, max_row = range_boundaries(table.get("ref", ""))
            except (TypeError, ValueError):
                continue
            if None in (min_col, min_row, max_col, max_row):
                continue  # a whole column or row: not a table's range
            try:
                headed = int(table.get("headerRowCount", "1")) != 0
            except ValueError:
                headed = False
            ranges.append(TableRange(min_row, max_row, min_col, max_col, headed))
        found.append(ranges)
    return found


def _unit(
    name: str, header: Sequence[str] | None, block: list[tuple[int, list[str]]]
) -> tuple[str, str]:
    first, last = block[0][0], block[-1][0]
    lines = [" | ".join(c for c in header if c)] if header else []
    lines += [row_line(cells, header) for _, cells in block]
    rows = f"row {first}" if first == last else f"rows {first}–{last}"  # not "rows 8–8"
    return f"{name} {rows}", "\n".join(lines)


def _rows(sheet: Any, written: Any = None) -> Iterator[tuple[int, list[str]]]:
    """(row number, cell texts) of the rows holding a value; stops after MAX_EMPTY_RUN
    empty rows in a row. ``written``: the sheet with its formulas (``_sheet_units``)."""
    empty_run = 0
    # From row 1, numbered from 1: iter_rows yields the empty rows above the used range
    # (numbering from the sheet's min_row counted them twice: review).
    rows = (
        sheet.iter_rows(min_row=1, values_only=True, max_col=MAX_COLUMNS)
        if written is None
        else _with_formulas(sheet, written)
    )
    for number, values in enumerate(rows, start=1):
        cells = [_text(v) for v in values]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            empty_run += 1
            if empty_run >= MAX_EMPTY_RUN:
                return
            continue
        empty_run = 0
        yield number, cells


def _with_formulas(sheet: Any, written: Any) -> Iterator[list[object]]:
    """``sheet``'s rows of values, a formula saved without one read as its text (a
    formula typed as text, whose empty value is its result "", stays empty)."""
    from openpyxl.worksheet.formula import ArrayFormula

    formulas = written.iter_rows(min_row=1, values_only=True, max_col=MAX_COLUMNS)
    for row in sheet.iter_rows(min_row=1, max_col=MAX_COLUMNS):
        written_row = next(formulas, ())
        values: list[object] = []
        for cell, f in zip_longest(row, written_row):
            if cell is None:
                break
            value = cell.value
            if value is None and getattr(cell, "data_type", "n") not in ("s", "str"):
                if isinstance(f, ArrayFormula):
                    f = f.text
                if isinstance(f, str) and f.startswith("="):
                    value = f
            values.append(value)
        yield values


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())[:MAX_CELL_CHARS]
