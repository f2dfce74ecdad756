"""Cut a document's pages into sections a language model can read in one call.

Sections follow page boundaries: whole pages are packed until the next one would pass
``max_words``. Each section after the first starts with the last page(s) of the one
before (the overlap), so a topic that straddles a boundary is seen whole at least once.
A page longer than a section is cut by words into even pieces that keep its page number.
Markers (``[page 12]``; ``[lines 121-180]`` in a text file, ``[slide 3]`` in a deck) in a
section's text let the model say where each point is, as ``Places`` names it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docent.core import words
from docent.core.models import ExtractedDocument, Page, line_span

#: Default overlap budget as a share of ``max_words``.
OVERLAP_SHARE = 0.25


Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Places:
    """How a summary names where its text is, as answers cite it: a PDF's pages
    ("p. 12"), a text file's lines ("lines 121-180": its pages are Docent's blocks of
    lines, which the file does not have), or each unit's label ("slide 3", "Setup").
    A summary of a text file said "(p. 3)" (review)."""

    #: a text file's lines per block, and its last line (0: not a text file)
    lines_per_page: int = 0
    last_line: int = 0
    #: (page, label) of the units a format names
    labels: tuple[tuple[int, str], ...] = ()

    @classmethod
    def of(cls, doc: ExtractedDocument) -> Places:
        if doc.lines_per_page and doc.pages:
            last = doc.pages[-1]
            total = (last.number - 1) * doc.lines_per_page + last.text.count("\n") + 1
            return cls(doc.lines_per_page, total)
        return cls(labels=tuple((p.number, p.label) for p in doc.pages if p.label))

    def _lines(self, start: int, end: int) -> str:
        n = self.lines_per_page
        return line_span((start - 1) * n + 1, min(end * n, self.last_line))

    def _label(self, page: int) -> str:
        return next((label for number, label in self.labels if number == page), "")

    def one(self, page: int) -> str:
        """A reference to one page: "p. 12", "lines 121-180", "slide 3"."""
        if self.lines_per_page:
            return self._lines(page, page)
        return self._label(page) or f"p. {page}"

    def of_sentence(self, page: int, sentence: str, page_text: str) -> str:
        """Where a sentence of ``page`` is: in a text file, its own lines ("line 42",
        "lines 42-43"), found in ``page_text``; elsewhere its page (``one``)."""
        if self.lines_per_page:
            parts = [re.escape(w) for w in sentence.split()]
            found = re.search(r"\s+".join(parts), page_text) if parts else None
            if found is not None:
                first = (page - 1) * self.lines_per_page + page_text.count("\n", 0, found.start())
                return line_span(first + 1, first + 1 + found.group().count("\n"))
        return self.one(page)

    def span(self, pages: Span) -> str:
        """Where a run of pages is: "page 3", "pages 3–5", "lines 1-180", "slides 3 to
        5" ("slide 3 to slide 5"), "Setup"."""
        start, end = pages
        if self.lines_per_page:
            return self._lines(start, end)
        first, last = self._label(start), self._label(end)
        if first or last:
            a, b = first or f"page {start}", last or f"page {end}"
            return a if start == end else f"{a} to {b}"
        return f"page {start}" if start == end else f"pages {start}–{end}"

    def marker(self, page: int) -> str:
        """What starts a page's text in a section: "page 12", "lines 121-180", "slide 3"."""
        if self.lines_per_page or self._label(page):
            return self.one(page)
        return f"page {page}"

    @property
    def example(self) -> str:
        """A reference for a prompt to show: "(p. 12)", "(lines 12-20)", "(slide 3)"."""
        if self.lines_per_page:
            return f"({line_span(12, 20)})"
        if self.labels:
            return f"({self.labels[min(2, len(self.labels) - 1)][1]})"
        return "(p. 12)"


#: A PDF's pages: what a summary says when it is not told otherwise.
PAGES = Places()


@dataclass(frozen=True, slots=True)
class Piece:
    """A whole page, or a run of words of a long page (``part`` of ``parts``)."""

    page: int
    text: str
    words: int
    part: int = 1
    parts: int = 1


@dataclass(frozen=True, slots=True)
class Section:
    index: int  # 1-based
    page_start: int
    page_end: int
    pieces: tuple[Piece, ...]
    #: Leading pieces repeated from the previous section (the overlap).
    carried: int = 0
    places: Places = PAGES

    @property
    def words(self) -> int:
        return sum(p.words for p in self.pieces)

    @property
    def overlap_words(self) -> int:
        return sum(p.words for p in self.pieces[: self.carried])

    @property
    def new_pieces(self) -> tuple[Piece, ...]:
        """The pieces no earlier section holds."""
        return self.pieces[self.carried :]

    @property
    def pages(self) -> tuple[int, int]:
        return (self.page_start, self.page_end)

    @property
    def where(self) -> str:
        """Where the section is: "pages 3–5", "lines 1-180"."""
        return self.places.span(self.pages)

    @property
    def text(self) -> str:
        """The section with a ``[page N]`` marker (``Places.marker``) wherever a page (or
        part of one) starts."""
        out: list[str] = []
        for piece in self.pieces:
            label = self.places.marker(piece.page)
            if piece.parts > 1:
                label = f"{label}, part {piece.part} of {piece.parts}"
            out.append(f"[{label}]\n{piece.text}")
        return "\n\n".join(out)


def pages_label(pages: Span, places: Places = PAGES) -> str:
    return places.span(pages)


def split_sections(
    pages: Sequence[Page],
    max_words: int,
    overlap_words: int | None = None,
    places: Places = PAGES,
) -> list[Section]:
    """Sections of at most ``max_words`` words; [] when the pages hold no words.

    ``overlap_words`` (default a quarter of ``max_words``) bounds the repeated part:
    whole trailing pages when they fit, else the tail of the last page.
    """
    if max_words < 2:
        raise ValueError("max_words must be at least 2")
    budget = int(max_words * OVERLAP_SHARE) if overlap_words is None else overlap_words
    budget = max(0, min(budget, max_words // 2))
    pieces = [p for page in pages for p in _pieces(page, max_words, max_words - budget)]
    sections: list[Section] = []
    current: list[Piece] = []
    carried = 0  # leading pieces of ``current`` repeated from the previous section
    for piece in pieces:
        if current and _words(current) + piece.words > max_words:
            sections.append(_section(len(sections) + 1, current, carried, places))
            current = _overlap(current[carried:], min(budget, max_words - piece.words))
            carried = len(current)
        current.append(piece)
    if current:
        sections.append(_section(len(sections) + 1, current, carried, places))
    return sections


def _pieces(page: Page, max_words: int, piece_max: int) -> list[Piece]:
    """The page whole if it fits a section, else even runs leaving room for an overlap
    (words as words.py counts them: each CJK character one)."""
    at = words.spans(page.text)
    if not at:
        return []
    if len(at) <= max_words:
        return [Piece(page.number, page.text.strip(), len(at))]
    parts = math.ceil(len(at) / piece_max)
    size = math.ceil(len(at) / parts)
    runs = [at[i : i + size] for i in range(0, len(at), size)]
    return [
        Piece(page.number, page.text[run[0][0] : run[-1][1]], len(run), part, len(runs))
        for part, run in enumerate(runs, 1)
    ]


def _overlap(previous: list[Piece], allowed: int) -> list[Piece]:
    """The trailing whole pieces of ``previous`` within ``allowed`` words, or the tail."""
    if allowed <= 0 or not previous:
        return []
    taken: list[Piece] = []
    total = 0
    for piece in reversed(previous):
        if total + piece.words > allowed:
            break
        taken.insert(0, piece)
        total += piece.words
    if taken:
        return taken
    last = previous[-1]
    tail = words.last(last.text, allowed)
    return [Piece(last.page, tail, words.count(tail), last.part, last.parts)]


def _section(index: int, pieces: list[Piece], carried: int, places: Places) -> Section:
    return Section(
        index=index,
        page_start=pieces[0].page,
        page_end=pieces[-1].page,
        pieces=tuple(pieces),
        carried=carried,
        places=places,
    )


def _words(pieces: Sequence[Piece]) -> int:
    return sum(p.words for p in pieces)
