"""Regression (70ccecc, ocr_layout._columns_of_text): two columns whose lines hold fewer
than three words (median) are now taken for a table and read row by row. A scanned
index, a glossary, a two-column list of names or parts is read interleaved ("apple 3
mango 41 banana 7 orange 52 ..."), not column by column. (Fixed: short lines alike on both sides are
columns; unlike, a table's cells.)"""

from __future__ import annotations

from docent.core.ocr_layout import RawLine, reading_order


def _line(text: str, x: float, y: float, w: float = 300, h: float = 30) -> RawLine:
    return RawLine(text, ((x, y), (x + w, y), (x + w, y + h), (x, y + h)))


def test_a_two_column_index_is_read_column_by_column() -> None:
    left = ["apple 3", "banana 7", "cherry 12", "date 15", "elder 19", "fig 23"]
    right = ["mango 41", "nut 44", "orange 52", "pear 57", "quince 60", "rye 66"]
    lines = [_line(t, 100, 100 + 40 * i, w=450) for i, t in enumerate(left)]
    lines += [_line(t, 650, 100 + 40 * i, w=450) for i, t in enumerate(right)]
    text = reading_order(lines, 1240, 1754).text
    assert text.split("\n\n") == ["\n".join(left), "\n".join(right)]
