"""What a chunk is about beyond its own words: its document's title and its heading path.

A passage of a long manual rarely names its subject: "The maximum length for the history
is 262144 entries" never says *PDP-11* or *CPU*. The title and the headings above it do.
The embedding model and BM25 both index ``context + text`` (:func:`indexed_text`); the user
only ever sees ``text`` (citations, highlights, prompts): the context is stored apart.

Heading levels come from the headings' own numbers (``5.7.3 Eigenvalues`` is level 3,
``Chapter 2`` level 1, ``## Usage`` level 2); an unnumbered heading is taken as a child
of the last numbered one, and replaces an earlier unnumbered sibling. A numbered heading
closes every numbered heading whose number does not begin its own: ``6.3`` after ``4``
(its chapter's own heading not found) is not part of chapter 4.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docent.core.models import Chunk, Page

#: Headings kept in a path (the deepest ones): deeper paths crowd out the passage.
MAX_PATH = 3
#: A heading longer than this many characters is cut (a wrapped heading, a caption).
MAX_HEADING_CHARS = 80
#: A first line longer than this many words is prose, not a title.
MAX_TITLE_WORDS = 12
_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")
_LETTERED = re.compile(r"^([A-Z])\.(\d+(?:\.\d+)*)\.?\s+\S")
_CHAPTER = re.compile(r"^(?:chapter|part|appendix)\s+[\dA-Z]+\b", re.I)
#: A chapter or appendix whose number its sections' numbers begin with (``Chapter 2``:
#: ``2.1``; ``Appendix A``: ``A.1``); a roman one (``Chapter IV``) is not.
_CHAPTER_NUMBER = re.compile(r"^(?:chapter|appendix)\s+(\d+|[A-Z])\b", re.I)
_MARKDOWN = re.compile(r"^(#{1,6})\s+\S")
_SEPARATOR = " › "


def heading_number(heading: str) -> tuple[str, ...] | None:
    """A heading's number as its parts (``("5", "7", "3")``, ``("A", "1")``, ``Chapter 2``:
    ``("2",)``, ``Appendix B``: ``("B",)``), also after a Markdown ``#``; None when it has
    none (unnumbered, a part: its numbers are not its chapters')."""
    text = heading.strip().lstrip("#").strip()
    if m := _CHAPTER_NUMBER.match(text):
        return (m.group(1).upper(),)
    if m := _LETTERED.match(text):
        return (m.group(1), *m.group(2).split("."))
    if (m := _NUMBER.match(text)) and heading_level(text) is not None:
        return tuple(m.group(1).split("."))
    return None


def heading_level(heading: str) -> int | None:
    """The depth a heading's numbering gives it, or None when it has no numbering."""
    text = heading.strip()
    if m := _MARKDOWN.match(text):
        return len(m.group(1))
    if _CHAPTER.match(text):
        return 1
    if m := _LETTERED.match(text):
        return 1 + len(m.group(2).split("."))
    if m := _NUMBER.match(text):
        parts = m.group(1).split(".")
        if len(parts) == 1 and int(parts[0]) > 50:
            return None  # "1996 was ...", a number, not a chapter
        return len(parts)
    return None


class HeadingPath:
    """The headings in force while a document is read from start to end."""

    def __init__(self) -> None:
        #: (depth, heading, its number when it has one)
        self._stack: list[tuple[float, str, tuple[str, ...] | None]] = []

    def push(self, heading: str) -> None:
        text = " ".join(heading.lstrip("#").split())[:MAX_HEADING_CHARS]
        if not text:
            return
        level = heading_level(heading)
        number = heading_number(heading)
        if level is None:
            # Unnumbered: below the last numbered heading, replacing an unnumbered sibling.
            numbered = [lv for lv, _, _ in self._stack if lv == int(lv)]
            depth: float = (numbered[-1] if numbered else 0) + 0.5
        else:
            depth = level
        while self._stack and self._stack[-1][0] >= depth:
            self._stack.pop()
        if number is not None:
            # another chapter's headings (and what stood below them) are closed
            for i, (_, _, above) in enumerate(self._stack):
                if above is not None and number[: len(above)] != above:
                    del self._stack[i:]
                    break
        self._stack.append((depth, text, number))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text, _ in self._stack[-MAX_PATH:])


def document_title(pages: Sequence[Page]) -> str:
    """The first line of the first page with text when it reads like a title, else "".

    Never the file name: the same content at two paths must index the same (and reuse
    its vectors).
    """
    for page in pages:
        lines = [line.strip() for line in page.text.splitlines() if line.strip()]
        if not lines:
            continue
        first = lines[0].lstrip("#").strip()  # a Markdown title
        words = first.split()
        if len(words) <= MAX_TITLE_WORDS and sum(ch.isalpha() for ch in first) >= 3:
            return first[:MAX_HEADING_CHARS]
        break
    return ""


def context_line(title: str, path: Sequence[str]) -> str:
    """``Title › 5 Arrays › 5.7 Matrix facilities``; a heading equal to the title is
    left out."""
    parts = [title] if title else []
    parts += [h for h in path if h.casefold() != title.casefold()]
    return _SEPARATOR.join(parts)


def indexed_text(context: str, text: str) -> str:
    """What the embedding model and BM25 see for a chunk."""
    return f"{context}\n{text}" if context else text


def dense_text(chunk: Chunk) -> str:
    """What the embedding model sees for a chunk: the same as BM25. A long context may
    push the chunk's last tokens past the model's 256 (the last sentence, which the next
    chunk repeats). Keeping room for it (``chunk_pages(context_tokens=...)``) is not
    measured yet, so the indexer keeps none."""
    return indexed_text(chunk.context, chunk.text)
