"""Recognised text lines -> page text in reading order, each line keeping its box.

An OCR engine returns lines as quadrilaterals in no useful order. Reading order here:

1. **Deskew**: the median slope of the long lines is the page's skew; boxes are rotated
   back by it, so rows and columns line up again (ocrmypdf's skew.pdf is ~1° off).
2. **Rows**: lines that overlap the highest line of a row vertically join it.
3. **Columns**: consecutive rows that share a vertical gutter, with text on both sides of
   it in at least two rows, and columns wider than the gutter (else it is a table, read
   row by row), are a multi-column region: it is read column by column (each column
   again by these rules, for three columns or a column with its own layout).
   A full-width line (a title, a closing list) ends the region. Everything else is read
   row by row, left to right.

Regions and columns are separated by a blank line, so the chunker sees paragraphs.
Boxes are kept in the page's own frame, as fractions of its width and height (origin at
the top left), for highlighting a cited passage on the page image.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from docent.core.models import LineBox

#: A gutter is at least this many median line heights wide (OCR boxes are padded, so
#: the gap between two columns' boxes is narrower than on paper).
GUTTER_LINE_HEIGHTS = 0.3
#: A column of prose has lines of this many words or more (the median); columns of fewer
#: are read as columns only when both sides look alike (``_columns_of_text``).
COLUMN_LINE_WORDS = 3
#: Lines that overlap vertically by this share of the smaller height are on one row.
ROW_OVERLAP = 0.4
#: Only lines this many times wider than tall say how the page is skewed.
SKEW_MIN_ASPECT = 4.0
#: Skew beyond this is not skew (a rotated table, a vertical label): left alone.
MAX_SKEW_DEGREES = 15.0

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class RawLine:
    """One recognised line: its text and its four corners in pixels (clockwise from the
    top left, as PP-OCR and most engines give them)."""

    text: str
    quad: tuple[Point, Point, Point, Point]
    score: float = 1.0


@dataclass(slots=True)
class _Line:
    raw: RawLine
    #: axis-aligned box after deskewing
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(frozen=True, slots=True)
class PageLayout:
    text: str
    lines: tuple[LineBox, ...]


def skew_degrees(lines: Sequence[RawLine]) -> float:
    """The median slope of the page's long lines, in degrees (positive: clockwise)."""
    angles = []
    for line in lines:
        (x0, y0), (x1, y1), _, (x3, y3) = line.quad
        width, height = math.hypot(x1 - x0, y1 - y0), math.hypot(x3 - x0, y3 - y0)
        if height > 0 and width / height >= SKEW_MIN_ASPECT:
            angles.append(math.degrees(math.atan2(y1 - y0, x1 - x0)))
    if not angles:
        return 0.0
    angle = statistics.median(angles)
    return angle if abs(angle) <= MAX_SKEW_DEGREES else 0.0


def reading_order(lines: Sequence[RawLine], width: float, height: float) -> PageLayout:
    """The page's text in reading order; ``width``/``height``: the image size in pixels."""
    kept = [line for line in lines if line.text.strip()]
    if not kept:
        return PageLayout("", ())
    placed = _deskewed(kept, skew_degrees(kept), width / 2, height / 2)
    unit = statistics.median(line.height for line in placed) or 1.0
    blocks = _blocks(placed, unit)
    return _assemble(blocks, width, height)


def _deskewed(lines: list[RawLine], degrees: float, cx: float, cy: float) -> list[_Line]:
    cos, sin = math.cos(math.radians(-degrees)), math.sin(math.radians(-degrees))
    out = []
    for line in lines:
        pts = [
            (cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos)
            for x, y in line.quad
        ]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        out.append(_Line(line, min(xs), min(ys), max(xs), max(ys)))
    return out


def _rows(lines: list[_Line]) -> list[list[_Line]]:
    """Lines that overlap the first line of a row (the highest) enough join it. Measured
    against that one line, not the row's growing extent: in two columns whose lines are
    offset by half a line, a chain of overlaps would make one row of both columns."""
    rows: list[list[_Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.y0 + ln.y1) / 2):
        if rows:
            first = rows[-1][0]
            overlap = min(first.y1, line.y1) - max(first.y0, line.y0)
            if overlap >= ROW_OVERLAP * min(line.height, first.height):
                rows[-1].append(line)
                continue
        rows.append([line])
    return [sorted(row, key=lambda ln: ln.x0) for row in rows]


def _gaps(row: list[_Line], left: float, right: float, min_gap: float) -> list[tuple[float, float]]:
    """Horizontal stretches of ``[left, right]`` no line of ``row`` covers."""
    out, at = [], left
    for line in row:
        if line.x0 - at >= min_gap:
            out.append((at, line.x0))
        at = max(at, line.x1)
    if right - at >= min_gap:
        out.append((at, right))
    return out


def _common(
    a: list[tuple[float, float]], b: list[tuple[float, float]], min_gap: float
) -> list[tuple[float, float]]:
    out = []
    for s0, e0 in a:
        for s1, e1 in b:
            s, e = max(s0, s1), min(e0, e1)
            if e - s >= min_gap:
                out.append((s, e))
    return out


def _blocks(lines: list[_Line], unit: float) -> list[list[list[_Line]]]:
    """Blocks in reading order; a block is a list of rows, a row a list of lines."""
    min_gap = unit * GUTTER_LINE_HEIGHTS
    left, right = min(ln.x0 for ln in lines), max(ln.x1 for ln in lines)
    rows = _rows(lines)
    blocks: list[list[list[_Line]]] = []
    flow: list[list[_Line]] = []
    i = 0
    while i < len(rows):
        j, gutter = _region(rows, i, left, right, min_gap)
        if gutter is None:
            # A gap taller than a line between two rows is a paragraph break.
            if flow and min(ln.y0 for ln in rows[i]) - max(ln.y1 for ln in flow[-1]) > unit:
                blocks.append(flow)
                flow = []
            flow.append(rows[i])
            i += 1
            continue
        if flow:
            blocks.append(flow)
            flow = []
        cut = (gutter[0] + gutter[1]) / 2
        region = [ln for row in rows[i:j] for ln in row]
        for side in ([ln for ln in region if ln.x1 <= cut], [ln for ln in region if ln.x0 >= cut]):
            if side:
                blocks.extend(_blocks(side, unit))
        i = j
    if flow:
        blocks.append(flow)
    return blocks


def _region(
    rows: list[list[_Line]], start: int, left: float, right: float, min_gap: float
) -> tuple[int, tuple[float, float] | None]:
    """The longest run of rows from ``start`` sharing an inner gutter with text on both
    sides in two rows or more: (end index, gutter), or (start + 1, None)."""
    best: tuple[int, tuple[float, float] | None] = (start + 1, None)
    # The page's edges count as gaps too: a column that starts lower (a figure above it)
    # leaves its rows beside the other column's first lines with no inner gap.
    common = _gaps(rows[start], left, right, min_gap)
    both = 0
    for j in range(start, len(rows)):
        if j > start:
            common = _common(common, _gaps(rows[j], left, right, min_gap), min_gap)
        inner = [g for g in common if left < g[0] and g[1] < right]
        if not inner:
            if common:
                continue  # rows on one side only so far
            break
        gutter = max(inner, key=lambda g: g[1] - g[0])
        cut = (gutter[0] + gutter[1]) / 2
        if any(ln.x1 <= cut for ln in rows[j]) and any(ln.x0 >= cut for ln in rows[j]):
            both += 1
        if both >= 2:
            best = (j + 1, gutter)
    end, found = best
    if found is None:
        return best
    if all(ln.x1 <= (found[0] + found[1]) / 2 for ln in rows[start]):
        return (start + 1, None)  # a short line left of it: read before it all the same
    if not _columns_of_text(rows[start:end], found):
        return (start + 1, None)
    return best


def _columns_of_text(rows: list[list[_Line]], gutter: tuple[float, float]) -> bool:
    """Columns of text are wider than the gutter between them, and their lines are lines
    of prose; a table's cells (a wide gap between them, or a column of names or numbers
    of a word or two) are read row by row instead."""
    cut = (gutter[0] + gutter[1]) / 2
    sides = (
        [ln for row in rows for ln in row if ln.x1 <= cut],
        [ln for row in rows for ln in row if ln.x0 >= cut],
    )
    narrowest = min(max(ln.x1 for ln in side) - min(ln.x0 for ln in side) for side in sides)
    (words_a, digits_a), (words_b, digits_b) = (_profile(side) for side in sides)
    prose = min(words_a, words_b) >= COLUMN_LINE_WORDS
    # Short lines alike on both sides (an index, a glossary: "apple 3" beside "mango 41")
    # are one list going on in the next column; unlike (names beside descriptions, labels
    # beside numbers), they are a table's cells (review).
    alike = (
        abs(words_a - words_b) <= 1
        and abs(digits_a - digits_b) <= 0.5
        and max(words_a, words_b) >= 2
    )
    return (prose or alike) and gutter[1] - gutter[0] < narrowest


def _profile(lines: list[_Line]) -> tuple[float, float]:
    """The median words of a side's lines, and the share of them with a digit."""
    words = statistics.median(len(ln.raw.text.split()) for ln in lines)
    digits = sum(any(c.isdigit() for c in ln.raw.text) for ln in lines) / len(lines)
    return words, digits


def _assemble(blocks: list[list[list[_Line]]], width: float, height: float) -> PageLayout:
    parts: list[str] = []
    boxes: list[LineBox] = []
    at = 0
    for b, block in enumerate(blocks):
        if b:
            parts.append("\n\n")
            at += 2
        for r, row in enumerate(block):
            if r:
                parts.append("\n")
                at += 1
            for k, line in enumerate(row):
                if k:
                    parts.append(" ")
                    at += 1
                text = " ".join(line.raw.text.split())
                xs = [p[0] for p in line.raw.quad]
                ys = [p[1] for p in line.raw.quad]
                boxes.append(
                    LineBox(
                        at,
                        at + len(text),
                        _frac(min(xs), width),
                        _frac(min(ys), height),
                        _frac(max(xs), width),
                        _frac(max(ys), height),
                    )
                )
                parts.append(text)
                at += len(text)
    return PageLayout("".join(parts), tuple(boxes))


def _frac(value: float, size: float) -> float:
    return round(min(1.0, max(0.0, value / size)), 5) if size > 0 else 0.0
