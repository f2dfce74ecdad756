"""The shape every structured format is read into: headings, paragraphs and tables in
reading order; then cut into citable units (``Page`` with a ``label``).

Tables are written one row per line, each cell after its column's header ("Name: Ada |
Year: 1843"), so that wherever the chunker cuts a long table, every row still carries its
header and no row is split (the chunker cuts lists and tables at line breaks). The header
row itself opens the table once, for exact search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from docent.core.models import Page

#: A unit longer than this is cut (at a block boundary) into parts.
MAX_UNIT_CHARS = 12_000
#: Headings up to this level start a new unit; deeper ones stay inside it.
UNIT_HEADING_LEVEL = 2
#: A cell longer than this is cut: a table is not a place for whole documents.
MAX_CELL_CHARS = 2_000
#: The most columns of a table row read: a cell spanning 1,000 columns on every row of a
#: page made rows of thousands of cells, a Word row's offset billions (review s21).
MAX_COLUMNS = 200
#: A column a merged cell spans past its first (colspan, gridSpan): named by that cell in
#: a header ("Score" over two columns names both), empty in the rows of data.
SPANNED = "\x00"


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True, slots=True)
class Para:
    text: str


@dataclass(frozen=True, slots=True)
class Table:
    rows: tuple[tuple[str, ...], ...]
    #: How many of the first rows the file marks as the table's header (HTML ``<th>`` rows
    #: or ``<thead>``, Word's repeated header rows, OpenDocument's header rows): a title
    #: row over the header is one of them when both are marked.
    header_rows: int = 0


Block = Heading | Para | Table


def clean(text: str) -> str:
    """Whitespace of a cell or paragraph collapsed; line breaks kept."""
    lines = (" ".join(line.split()) for line in text.replace("\r", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def table(rows: Iterable[Sequence[str]], header_rows: int = 0) -> Table | None:
    """A table of non-empty rows, or None when no cell has text; ``header_rows``: how
    many first rows the file marks as the header (``Table.header_rows``)."""
    kept = []
    marked = 0
    for i, row in enumerate(rows):
        cells = tuple(
            c if c == SPANNED else " ".join(c.split())[:MAX_CELL_CHARS] for c in row[:MAX_COLUMNS]
        )
        if any(_filled(c) for c in cells):
            kept.append(cells)
            # an empty marked row is dropped and marks nothing: a row under it that the
            # file did not mark is data (review)
            marked += i < header_rows
    return Table(tuple(kept), marked) if kept else None


def has_header(rows: Sequence[Sequence[str]], marked: bool = False) -> bool:
    """The first row names the columns: every cell filled (but those before the first,
    over a column of row names or a table starting in column B), none a number, data
    follows. ``marked``: the file says the first row is the header; then it is one when
    data follows and it holds two names or more (one is a title over the table), numbers
    ("2021") and spanned columns whatever their count included."""
    if len(rows) < 2:
        return False
    named = _named(rows[0])
    names = [c for c in named if c != SPANNED]  # a merged header cell: one name
    if marked:
        return sum(1 for c in names if c) >= 2
    # spanned columns the fewer: a form's first row "Applicant | Jane Doe (over three)"
    # named every value after it "Jane Doe" (review s21)
    spans = len(named) - len(names)
    return all(names) and not any(_is_number(c) for c in names) and len(names) > max(1, spans)


def _is_title(row: Sequence[str]) -> bool:
    """A row of one cell merged over the columns after it: the table's title."""
    named = _named(row)
    return len(named) > 1 and _filled(named[0]) and all(c == SPANNED for c in named[1:])


def _filled(cell: str) -> bool:
    return bool(cell) and cell != SPANNED


def _named(header: Sequence[str]) -> Sequence[str]:
    """``header`` without the empty cells it starts with."""
    lead = next((i for i, c in enumerate(header) if c), len(header))
    return header[lead:]


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").replace("%", "").strip())
    except ValueError:
        return False
    return True


def row_line(cells: Sequence[str], header: Sequence[str] | None) -> str:
    if header is None:
        return " | ".join(c for c in cells if _filled(c))
    parts = []
    for i, cell in enumerate(cells):
        if not _filled(cell):
            continue
        j = min(i, len(header))
        name = header[j] if j < len(header) else ""
        while name == SPANNED and j > 0:  # under a merged header cell: its name
            j -= 1
            name = header[j]
        parts.append(f"{name}: {cell}" if name and name != cell else cell)
    return " | ".join(parts)


def table_lines(rows: Sequence[Sequence[str]], marked: int = 0) -> list[str]:
    """A table's lines: its header once, then each row with its cells named by it
    (``marked``: how many first rows the file marks as the header; see :func:`has_header`)."""
    if not rows:
        return []
    grouped = _group_rows(rows, marked)
    # one group over the columns after an empty corner ("" | "2021" over "Region | Q1"):
    # a group, not a title (review)
    corner = grouped > 0 and not _filled(rows[0][0])
    if not corner and len(rows) >= 3 and _is_title(rows[0]) and not has_header(rows, marked > 0):
        # "Quarterly results" merged over every column: said once, and the row under it
        # weighed as the header (a marked one if the file marks it too)
        return [next(c for c in rows[0] if _filled(c)), *table_lines(rows[1:], max(marked - 1, 0))]
    if grouped:
        # a group row over a sub-header ("2021" over "Q1 | Q2"): one header, "2021 Q1"
        rows, marked = [merged_header(rows[:grouped]), *rows[grouped:]], 1
    if has_header(rows, marked > 0):
        header = rows[0]
        names = (c for c in _named(header) if _filled(c))
        return [" | ".join(names)] + [row_line(r, header) for r in rows[1:]]
    return [row_line(r, None) for r in rows]


def _group_rows(rows: Sequence[Sequence[str]], marked: int) -> int:
    """How many of the first rows, among the ``marked`` ones, are groups over a
    sub-header (:func:`_groups_over`): the most that are, with a row after them; 0 when
    fewer than two. Marked rows past them are data written in ``<th>`` cells (review)."""
    k = min(marked, len(rows) - 1)
    while k >= 2 and not _groups_over(rows[:k]):
        k -= 1
    return k if k >= 2 else 0


def _groups_over(rows: Sequence[Sequence[str]]) -> bool:
    """Marked header rows that are groups over a sub-header: each row but the last has a
    cell merged over columns, and the last names two columns or more, none a number but
    a year. A section row the file marks under the header ("Europe" across the table,
    all ``<th>``) is not one, nor is a row of data written in ``<th>`` cells (review)."""
    *groups, sub = rows
    names = [c for c in sub if _filled(c)]
    return (
        all(SPANNED in r for r in groups)
        and len(names) >= 2
        and not any(_is_number(c) and not _YEAR.fullmatch(c) for c in names)
    )


#: A year, a number a header may hold ("2021" over "Q1 | Q2", or under a group).
_YEAR = re.compile(r"(?:1[89]|2[0-9])\d\d")


def merged_header(rows: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Header rows as one: each column named by what every row says over it, top down
    ("2021 Q1"), a merged cell naming each column it spans and a name said again (a cell
    spanning the rows) said once; a column every row merges into the one before stays
    merged (a cell over both rows and two columns names them once)."""
    width = max(len(r) for r in rows)
    out: list[str] = []
    for i in range(width):
        if all(i < len(r) and r[i] == SPANNED for r in rows):
            out.append(SPANNED)
            continue
        names: list[str] = []
        for row in rows:
            if i >= len(row):
                continue
            j = i
            while j > 0 and row[j] == SPANNED:  # under a merged cell: its name
                j -= 1
            name = row[j]
            if _filled(name) and name not in names:
                names.append(name)
        out.append(" ".join(names))
    return tuple(out)


def render(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * min(max(block.level, 1), 6) + " " + block.text
    if isinstance(block, Para):
        return block.text
    return "\n".join(line for line in table_lines(block.rows, block.header_rows) if line)


@dataclass(slots=True)
class _Unit:
    label: str
    parts: list[str] = field(default_factory=list)
    size: int = 0
    #: The level of its last heading while it holds headings only; 0: it holds text.
    bare: int = 0


def paginate(blocks: Iterable[Block], first_label: str, prefix: str = "") -> list[tuple[str, str]]:
    """(label, text) units: a new one at each heading up to UNIT_HEADING_LEVEL, labelled
    with it (``prefix`` before: "ch. 3 › "); what precedes the first is ``first_label``.
    A unit past MAX_UNIT_CHARS goes on in a part of its own ("Setup (2)").

    A heading right under one with nothing between ("Chapter 1", then "Overview") opens
    the same unit, "Chapter 1 › Overview": the chapter's heading was a unit, and a passage,
    of its own. A label an earlier unit has is told apart by the level-1 heading above it
    ("Chapter 2 › Summary"): each chapter's "Summary" was cited alike (review)."""
    units: list[_Unit] = [_Unit(first_label)]
    used = {first_label}
    top = ""  # the last heading of level 1
    part = 1
    for block in blocks:
        text = render(block)
        if not text.strip():
            continue
        cur = units[-1]
        if isinstance(block, Heading) and block.level <= UNIT_HEADING_LEVEL:
            under = bool(cur.parts) and 0 < cur.bare < block.level  # a bare heading's
            if under:
                label = f"{cur.label} › {block.text}"
            else:
                label = f"{prefix}{block.text}"
                if label in used and block.level > 1 and top:
                    label = f"{prefix}{top} › {block.text}"
            if cur.parts and not under:
                units.append(_Unit(label))
            else:
                cur.label = label
            used.add(label)
            top = block.text if block.level == 1 else top
            part = 1
        elif cur.size + len(text) > MAX_UNIT_CHARS and cur.parts:
            part += 1
            base = cur.label.rsplit(" (", 1)[0] if part > 2 else cur.label
            units.append(_Unit(f"{base} ({part})"))
        cur = units[-1]
        cur.parts.append(text)
        cur.size += len(text) + 2
        bare = isinstance(block, Heading) and block.level <= UNIT_HEADING_LEVEL
        cur.bare = block.level if bare and isinstance(block, Heading) else 0
    return [(u.label, "\n\n".join(u.parts)) for u in units if u.parts]


def to_pages(units: Iterable[tuple[str, str]]) -> list[Page]:
    return [
        Page(number=i, text=text, label=label)
        for i, (label, text) in enumerate(((lb, t) for lb, t in units if t.strip()), start=1)
    ]
