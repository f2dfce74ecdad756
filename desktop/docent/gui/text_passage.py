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


@dataclass(slots=True)
class TextPassage:
    text: str
    #: (start, length) in ``text`` as Qt counts it: UTF-16 units (``utf16_spans``)
    spans: list[tuple[int, int]] = field(default_factory=list)


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
    for p in doc.pages:
        offsets.append(at)
        parts.append(p.text)
        at += len(p.text) + 1
    text = "\n".join(parts)
    start = offsets[min(max(page, 1), len(offsets)) - 1] if offsets else 0
    spans = [(s + start, n) for s, n in locate_spans(text[start:], citation.text)]
    if not spans:
        spans = locate_spans(text, citation.text)
    return TextPassage(text, utf16_spans(text, spans))


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
