"""A cited passage in a text file: the whole extracted text, the passage selected."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from docent.core.api import Citation, EngineAPI, locate_spans, shown
from docent.core.errors import UnknownFile

HIGHLIGHT = QColor(255, 214, 0, 150)

#: The most characters of a text file the view holds: a whole 10 MB file held the window's
#: thread 1.0 s to lay out (and ``max_text_file_mb`` goes to 10,000); this much, 0.04 s.
SHOWN_CHARS = 400_000
#: A line longer than this is cut mid-line at the part's edge rather than kept whole.
_LONGEST_EDGE_LINE = 2_000


@dataclass(slots=True)
class TextPassage:
    #: the part of the file shown: all of it, or whole lines around the passage
    text: str
    #: (start, length) in ``text`` as Qt counts it: UTF-16 units (``utf16_spans``)
    spans: list[tuple[int, int]] = field(default_factory=list)
    #: the lines of the file ``text`` holds (1-based, inclusive), and how many it has
    first_line: int = 1
    last_line: int = 0
    total_lines: int = 0
    #: the lines are the file's (a text file), not of text extracted from a format
    numbered: bool = True

    @property
    def whole(self) -> bool:
        return self.first_line == 1 and self.last_line >= self.total_lines

    def whole_passage_lit(self, passage: str) -> bool:
        """Whether the spans light about all of ``passage`` (spacing aside), not a few of
        its words: an edited file's old passage may be found only in part (QA-78)."""
        lit = sum(n for _, n in self.spans)
        return lit >= 0.9 * len(" ".join(passage.split()))

    def lines_note(self) -> str:
        """'' for a whole file; else which lines are shown, for the pane's note."""
        if self.whole:
            return ""
        if not self.numbered:  # an EPUB's or a DOCX's lines are no viewer's (review s21)
            return " Part of the document's text is shown; Open in viewer for all of it."
        return (
            f" Lines {self.first_line:,}–{self.last_line:,} of {self.total_lines:,} are shown;"
            " Open in viewer for the whole file."
        )


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def shown_part(
    text: str,
    spans: list[tuple[int, int]],
    limit: int | None = None,
    *,
    numbered: bool = True,
    around: int = 0,
) -> TextPassage:
    """``text`` with ``spans`` (Python characters) as the view shows it: whole when it is at
    most ``limit`` characters, else whole lines around the first span, a quarter of the
    part before it (or before ``around`` when no span was found); spans outside the part
    are dropped."""
    limit = SHOWN_CHARS if limit is None else limit
    total = _line_count(text)
    if len(text) <= limit:
        return TextPassage(text, spans, 1, total, total, numbered)
    # no passage found: around the cited lines (``around``), not the file's start (s21)
    at, after = (spans[0][0], spans[0][0] + spans[0][1]) if spans else (around, around)
    start = max(0, min(at - limit // 4, len(text) - limit))
    if start > 0 and text[start - 1] != "\n":  # from the next line's start, if it is near
        nl = text.find("\n", start, min(at, start + _LONGEST_EDGE_LINE))
        if nl >= 0:
            start = nl + 1
    end = min(start + limit, len(text))
    if end < len(text) and text[end] != "\n":  # to the end of a line, if one is near
        nl = text.rfind("\n", max(after, end - _LONGEST_EDGE_LINE), end)
        if nl >= 0:
            end = nl
    part = text[start:end]
    first = text.count("\n", 0, start) + 1
    kept = [(s - start, n) for s, n in spans if s >= start and s + n <= end]
    # a part ending "\n" ends with a blank line of the file: counted, unlike a file's last
    return TextPassage(part, kept, first, first + part.count("\n"), total, numbered)


#: Characters outside the Basic Multilingual Plane: two UTF-16 units each in Qt's text.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` of ``text`` in Python's characters, as Qt's positions: an emoji before a
    passage shifted its highlight one place per emoji (review)."""
    astral = [m.start() for m in _ASTRAL.finditer(text)]
    if not astral:
        return spans

    def at(i: int) -> int:
        return i + bisect.bisect_left(astral, i)  # the astral characters before ``i``

    return [(at(s), at(s + n) - at(s)) for s, n in spans]


def load_passage(engine: EngineAPI, citation: Citation) -> TextPassage:
    """Runs in a worker: the document's extracted text and where the passage is in it."""
    rec = engine.document(citation.doc_id) if citation.doc_id else None
    if rec is None:
        try:
            rec = engine.resolve(citation.path)
        except UnknownFile:  # its message points at `docent list` (review h20)
            raise UnknownFile(
                f"{shown(citation.file_name)} is no longer in your library; "
                "the passage is quoted above."
            ) from None
    doc = engine.extracted(rec)
    page = citation.page or 1
    offsets: list[int] = []
    parts: list[str] = []
    at = 0
    per_block = doc.lines_per_page
    for p in doc.pages:
        # A text file's blocks lost the blank lines they ended with: put them back, so
        # the view's lines are the file's and "Lines 10,264-19,668" names them (review s21)
        block = p.text
        if per_block and p is not doc.pages[-1]:
            block += "\n" * max(0, per_block - 1 - block.count("\n"))
        if p.label and not _opens_with(block, p.label):
            # a sheet's rows, a slide, a section: named where it begins (the "Staff"
            # sheet's rows ran on from the "Budget" rows unnamed: QA, session 30)
            block = f"── {p.label} ──\n{block}"
        offsets.append(at)
        parts.append(block)
        at += len(block) + 1
    text = "\n".join(parts)
    start = offsets[min(max(page, 1), len(offsets)) - 1] if offsets else 0
    spans = [(s + start, n) for s, n in locate_spans(text[start:], citation.text)]
    if not spans:
        spans = locate_spans(text, citation.text)
    part = shown_part(text, spans, numbered=per_block > 0, around=start)
    part.spans = utf16_spans(part.text, part.spans)
    return part


def _opens_with(block: str, label: str) -> bool:
    """The block's first line is its label's heading already ("## Tomatoes" under "§
    Tomatoes", "ch. 3 › The Return"): named once (review s30)."""
    first = block.split("\n", 1)[0].lstrip("#").strip()
    return bool(first) and first == label.split("›")[-1].removeprefix("§").strip()


class TextPassageView(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setObjectName("textPassage")
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._text = ""

    def show_passage(self, passage: TextPassage) -> bool:
        if passage.text != self._text:
            self.setPlainText(passage.text)  # plain text: nothing in a file is markup
            self._text = passage.text
        selections = []
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        for start, length in passage.spans:
            sel = QTextEdit.ExtraSelection()
            cur = QTextCursor(self.document())
            cur.setPosition(start)
            cur.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            sel.format = fmt
            selections.append(sel)
        self.setExtraSelections(selections)
        if passage.spans:
            cur = QTextCursor(self.document())
            cur.setPosition(passage.spans[0][0])
            self.setTextCursor(cur)
            self.centerCursor()
        return bool(passage.spans)

    def highlighted_text(self) -> str:
        return " ".join(s.cursor.selectedText() for s in self.extraSelections())
