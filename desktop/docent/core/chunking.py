"""Cut pages into passages that the embedding model sees whole.

Pages become *units*: sentences of prose, plus whole lines for headings, table rows and
long unpunctuated runs (manuals and tables have few full stops). Running headers and
folios (first/last lines repeated on several pages) are left out: they are noise to the
model and would stretch a chunk's page range. Units are packed into
chunks of about ``target_words``, never more than ``max_words`` and, when a token
counter is given, never more than ``max_tokens`` of the model's own tokenizer: MiniLM
sees 256 tokens and silently drops the rest. Each unit keeps its page, so a chunk that
crosses a page boundary still knows both ends.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from docent.core.context import HeadingPath, context_line
from docent.core.models import Chunk, Page
from docent.core.normal_form import compounds, whole_words

TokenCounter = Callable[[str], int]

#: A "sentence" longer than this with line breaks in it is a list or table: cut at lines.
LONG_RUN_WORDS = 80
#: Lines are regrouped into units of about this many words when a run is cut at lines.
LINE_GROUP_WORDS = 50
#: An overlap sentence longer than this is not repeated in the next chunk.
MAX_OVERLAP_WORDS = 40
#: ...or that takes more than this share of a chunk's tokens (dense code, CJK).
MAX_OVERLAP_SHARE = 0.25
#: Above this share of max_tokens the estimate is checked with the real counter...
VERIFY_SHARE = 0.9
#: ...until this many checks in a row have agreed with it (the counter adds up).
TRUST_AFTER_AGREEING = 8
HEADING_MAX_WORDS = 10
#: A slide deck (:func:`is_slide_deck`): at least this many pages, half of them holding at
#: most this many words (a manual's page holds 300-500, a book's with figures 120-200),
#: and this share of them opening with a title, each title counted on two pages at most
#: (an outline slide comes back; the same first line on every page is a running header).
SLIDE_DECK_MIN_PAGES = 5
SLIDE_MAX_WORDS = 100
SLIDE_TITLED_SHARE = 0.7
#: A heading in sentence case ("Suggestions to the reader") is at most this long.
SENTENCE_CASE_HEADING_WORDS = 6
#: A first or last line seen (digits aside) on this many pages is a running header/footer.
RUNNING_LINE_PAGES = 3
#: No chunk is longer than this many characters. The token count alone cannot bound it:
#: the tokenizer turns a "word" of over 100 characters into one [UNK], so a megabyte with
#: no spaces would count as a handful of tokens.
MAX_CHUNK_CHARS = 2000

_SENTENCE_END = re.compile(
    r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9])"  # Latin: needs a space and a capital
    r"|[。！？]+[」』）)]*"  # CJK: no space follows
)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "fig", "no", "dr", "mr", "mrs", "st"})
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)+\.?|[A-Z]\.\d+(?:\.\d+)*\.?)\s+[A-Z]")
_LEADING_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|Chapter\s+\d+:?|Appendix\s+[A-Z]:?)\s+")
_ITEM_MARK = re.compile(r"^\s*\(?[0-9A-Za-z]{1,3}$")  # "1." or "(a)." opening a list item
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+\S")
_LINE_BREAK = re.compile("\n")
_WORD_RUN = re.compile(r"\S+")
#: A list item's mark: bullets (a slide deck's ▶ and ■ too, and the private-use bullets of
#: Symbol and Wingdings fonts), "1." or "(a)".
_BULLETS = "•·▪◦‣∙*–—\\-▶►▸▹➢➤■□●○◆◇❖✓✔\uf0b7\uf0a7\uf076\uf0d8"
_LIST_START = re.compile(rf"^(?:[{_BULLETS}]|\(?\d{{1,3}}[.)]|\(?[a-z][.)])\s+")
_NUMERIC = re.compile(r"[-+(]?[$€£]?\d[\d.,:%/eE+-]*\)?")
_SENTENCE_CLOSERS = (".", "!", "?", ":", ";", ")")
_INNER_PUNCTUATION = re.compile(r"[,;:.!?()\[\]{}=<>@/\\|\"“”]")
_DIGITS = re.compile(r"\d+")
#: A page number alone on its line ("12", "- 12 -", "[12]").
_FOLIO = re.compile(r"[^\w\s]*\s*\d+\s*[^\w\s]*")


@dataclass(slots=True)
class _Unit:
    text: str
    page: int
    words: int
    kind: str  # "sentence" | "line" | "heading"
    tokens: int = 0
    #: The most recent heading at this unit (its own text for a heading).
    section: str = ""
    #: The heading path in force at this unit (context.HeadingPath).
    path: tuple[str, ...] = ()
    #: The lines of its page it comes from, first and last (0-based): a text file's
    #: passage is cited by its own lines, not its blocks'.
    lines: tuple[int, int] = (0, 0)
    #: The line of each of its words, for a sentence of several lines: a piece of it
    #: (``_Packer.fit``) is cited by its own lines.
    word_lines: tuple[int, ...] = ()


def chunk_pages(
    pages: Sequence[Page],
    count_tokens: TokenCounter | None = None,
    *,
    target_words: int = 180,
    max_words: int = 220,
    min_words: int = 40,
    max_tokens: int = 240,
    overlap_sentences: int = 1,
    title: str | None = None,
    context_tokens: int = 0,
    max_chars: int = MAX_CHUNK_CHARS,
    paged: bool = True,
) -> list[Chunk]:
    """Split ``pages`` into chunks numbered 0..n-1; the same input gives the same chunks.

    ``count_tokens`` must count a text the way the embedding model does (special tokens
    included); without it only the word limits apply. With a ``title``, each chunk gets
    a ``context`` (title and heading path, see context.py); ``context_tokens`` are then
    kept free for it in every chunk, and a longer context is shortened to what is free.
    ``paged``: the pages were printed pages, with running headers and folios to leave
    out; a text file's blocks of lines have none (a log's "line 12 ..." lines, the first
    and last of every block, would all be taken for one and dropped).
    """
    packer = _Packer(
        count_tokens, target_words, max_words, min_words, max_tokens - context_tokens, max_chars
    )
    units: list[_Unit] = []
    section = ""
    headings = HeadingPath()
    furniture = _running_lines(pages) if paged else set()
    slides = paged and is_slide_deck(pages, furniture)
    keep = compounds("\n".join(p.text for p in pages))  # "non-data" broken: not "nondata"
    for unit in _units(pages, furniture, slides, keep):
        if unit.kind == "heading":
            section = unit.text.lstrip("#").strip()
            if slides:  # a slide's title is all its path: the slides are not nested
                headings = HeadingPath()
            headings.push(unit.text)
        unit.section = section
        unit.path = headings.path
        units.extend(packer.fit(unit))
    groups = [(g, *_join_paged(g)) for g in packer.pack(units, overlap_sentences)]
    chunks = []
    for i, (g, text, breaks) in enumerate(x for x in groups if x[1]):
        context = ""
        if title is not None:
            room = max_tokens - count_tokens(text) if count_tokens and context_tokens else None
            context = _context(title, _first_text(g).path, room, count_tokens)
        chunks.append(
            Chunk(
                text,
                g[0].page,
                g[-1].page,
                ordinal=i,
                heading=_heading_of(g),
                context=context,
                title=title or "",
                page_breaks=breaks,
                lines=(g[0].lines[0], g[-1].lines[1]),
            )
        )
    return chunks


# ---------------------------------------------------------------- pages -> units


def is_slide_deck(pages: Sequence[Page], furniture: set[str] | None = None) -> bool:
    """Slides (a presentation printed to PDF, one slide a page): short pages, most of them
    opening with a title. Each page's title is then its heading, and nothing else on it
    is: a slide's numbered steps ("5 Check that it worked") are no chapters.

    ``furniture``: the document's running lines (:func:`_running_lines`), when known."""
    if furniture is None:
        furniture = _running_lines(pages)
    titles: Counter[str] = Counter()
    sizes: list[int] = []
    for page in pages:
        lines = [ln.strip() for ln in page.text.split("\n") if ln.strip()]
        skip = _edge_furniture(lines, furniture)
        lines = [ln for i, ln in enumerate(lines) if i not in skip]
        if lines:
            sizes.append(sum(len(ln.split()) for ln in lines))
            if _is_title(lines[0]):
                titles[_DIGITS.sub("#", lines[0])] += 1
    if len(sizes) < SLIDE_DECK_MIN_PAGES:
        return False
    short = sorted(sizes)[len(sizes) // 2] <= SLIDE_MAX_WORDS
    titled = sum(min(n, 2) for n in titles.values())
    return short and titled >= SLIDE_TITLED_SHARE * len(sizes)


def _is_title(line: str) -> bool:
    """A slide title: a short line, no sentence's end, opening with a capital or digit."""
    words = line.split()
    return (
        0 < len(words) <= HEADING_MAX_WORDS
        and not line.endswith((".", ",", ";", ":"))
        and line[0].isupper()
        and sum(ch.isalpha() for ch in line) >= 3
        and not _LIST_START.match(line)
    )


def _units(
    pages: Sequence[Page], furniture: set[str], slides: bool, keep: frozenset[str]
) -> Iterable[_Unit]:
    for page in pages:
        lines = [line.strip() for line in page.text.split("\n")]
        skip = _edge_furniture(lines, furniture)
        paragraph: list[str] = []
        start = 0  # the line the paragraph opens on
        prev = ""
        titled = False  # a slide's title is read
        for i, line in enumerate(lines):
            if not line:
                yield from _paragraph_units(paragraph, page.number, keep, start)
                paragraph, prev = [], ""
                continue
            words = line.split()
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if i in skip:
                prev = ""  # a running header ends no sentence and is not content
                continue
            first, titled = not titled, True
            if _is_title(line) and first if slides else _is_heading(line, words, prev, nxt):
                kind = "heading"
            elif _is_table_row(words):
                kind = "line"
            else:
                if _LIST_START.match(line):
                    yield from _paragraph_units(paragraph, page.number, keep, start)
                    paragraph = []
                if not paragraph:
                    start = i
                paragraph.append(line)
                prev = line
                continue
            yield from _paragraph_units(paragraph, page.number, keep, start)
            paragraph = []
            yield _Unit(line.replace("\xad", ""), page.number, len(words), kind, lines=(i, i))
            prev = line
        yield from _paragraph_units(paragraph, page.number, keep, start)


def _edge_furniture(lines: Sequence[str], furniture: set[str]) -> set[int]:
    """The indices of the page's first and last non-empty lines when they are running
    lines: only there, where they were found. Dropped wherever they stood, a running "#"
    took every lone number of the body with it, and "# # #,#" every row of a table
    (review: 48 rows of a table lost, "π = 4(1 − 1/3 + ..." read "4(1 − 3 + ...")."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    edges = {filled[0], filled[-1]} if filled else set()
    return {i for i in edges if _DIGITS.sub("#", lines[i].strip()) in furniture}


def _running_lines(pages: Sequence[Page]) -> set[str]:
    """First/last lines that recur (digits aside) on several pages: running headers, folios.

    Only lines with letters and a number or three words and more, or a lone number (a
    folio: "12", "- 12 -"), not ending like a sentence: the tail of a paragraph ("data.")
    can also end several pages, and a table's rows of numbers ("1994 12 3,400") end them.
    """
    seen: Counter[str] = Counter()
    for page in pages:
        lines = [line.strip() for line in page.text.split("\n") if line.strip()]
        if len(lines) < 2:
            continue  # a page's only line is its content, not a header framing content
        ends = {lines[0], lines[-1]}
        seen.update(
            _DIGITS.sub("#", line)
            for line in ends
            if not line.endswith((".", ",", ";", ":", "!", "?"))
            and (
                _FOLIO.fullmatch(line)
                or (
                    any(ch.isalpha() for ch in line)
                    and (_DIGITS.search(line) or len(line.split()) >= 3)
                )
            )
        )
    return {line for line, n in seen.items() if n >= RUNNING_LINE_PAGES}


def _paragraph_units(
    lines: list[str], page: int, keep: frozenset[str], first: int = 0
) -> Iterable[_Unit]:
    """The sentences of a paragraph (``lines``, the first of them line ``first`` of its
    page), each with the lines it spans."""
    if not lines:
        return
    joined = "\n".join(lines)
    text, where = whole_words(joined, keep)  # "docu-\nment"; lines counted in ``joined``
    breaks = [m.start() for m in _LINE_BREAK.finditer(joined)]

    def line_at(offset: int) -> int:
        return first + bisect.bisect_left(breaks, where[min(offset, len(where) - 1)])

    at = 0
    for sentence in _split_sentences(text):
        found = max(text.find(sentence, at), 0)
        at = found + len(sentence)
        span = (line_at(found), line_at(found + len(sentence) - 1))
        words = sentence.split()
        if len(words) > LONG_RUN_WORDS and "\n" in sentence:
            yield from _line_groups(sentence.split("\n"), page, span[0])
        elif words:
            at_line = (  # (one line: its words need no lines of their own)
                [line_at(found + m.start()) for m in _WORD_RUN.finditer(sentence)]
                if span[0] != span[1]
                else []
            )
            yield _Unit(
                " ".join(words), page, len(words), "sentence", lines=span, word_lines=tuple(at_line)
            )


def _split_sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        before = text[start : m.start()]
        last = before.rsplit(None, 1)[-1] if before.strip() else ""
        if m.group() == "." and (last.lower() in _ABBREVIATIONS or _ITEM_MARK.match(before)):
            continue
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _line_groups(lines: list[str], page: int, first: int = 0) -> Iterable[_Unit]:
    group: list[str] = []
    words = 0
    at = first  # the line the group opens on
    for i, line in enumerate(lines):
        n = len(line.split())
        if group and words + n > LINE_GROUP_WORDS:
            yield _Unit("\n".join(group), page, words, "line", lines=(at, first + i - 1))
            group, words, at = [], 0, first + i
        group.append(line)
        words += n
    if group:
        yield _Unit("\n".join(group), page, words, "line", lines=(at, first + len(lines) - 1))


def _is_heading(line: str, words: list[str], prev: str, nxt: str) -> bool:
    if not words or len(words) > HEADING_MAX_WORDS:
        return False
    if _MARKDOWN_HEADING.match(line):
        return not prev  # after a blank line; else a "# comment" in a code listing
    if "…" in line:  # a table-of-contents entry (dot leaders shortened by extract)
        return False
    if line.endswith((".", ",", ";", ":")) or not (line[0].isupper() or line[0].isdigit()):
        return False
    if _NUMBERED.match(line):  # "2.7 Index vectors", even after a footnote mark
        return True
    # A heading starts after a finished sentence, not in the middle of a wrapped one.
    if prev and not prev.endswith(_SENTENCE_CLOSERS):
        return False
    title = _LEADING_NUMBER.sub("", line)
    letters = [ch for ch in title if ch.isalpha()]
    if len(letters) < 3 or not title[:1].isupper():
        return False
    if len(letters) >= 4 and all(ch.isupper() for ch in letters):
        return True
    long_words = [w for w in title.split() if len(w) >= 4 and w[0].isalpha()]
    if long_words and all(w[0].isupper() for w in long_words):
        return True
    # "Suggestions to the reader": short, unpunctuated, between two sentences.
    # The next line may be a list item: a slide's title, then its first bullet.
    after = _LIST_START.sub("", nxt, count=1)
    return (
        len(words) <= SENTENCE_CASE_HEADING_WORDS
        and not _INNER_PUNCTUATION.search(line)
        and after[:1].isupper()
    )


def _first_text(group: Sequence[_Unit]) -> _Unit:
    """The chunk's first unit past any leading headings."""
    return next((u for u in group if u.kind != "heading"), group[-1])


def _heading_of(group: Sequence[_Unit]) -> str:
    """The heading in force at the chunk's first text (past any leading headings)."""
    return _first_text(group).section


def _context(
    title: str, path: tuple[str, ...], room: int | None, count: TokenCounter | None
) -> str:
    """The context line, shortened to ``room`` tokens when given: the middle of the path
    goes first, then the title, then words from the end."""
    candidates = [
        context_line(title, path),
        context_line(title, path[-1:]),
        context_line("", path[-1:]),
        title,
    ]
    if room is None or count is None:
        return candidates[0]
    special = count("")
    for text in candidates:
        if count(text) - special <= room:
            return text
    words = candidates[0].split()
    while words and count(" ".join(words)) - special > room:
        words.pop()
    return " ".join(words)


def _is_table_row(words: list[str]) -> bool:
    if len(words) < 3:
        return False
    numeric = sum(1 for w in words if _NUMERIC.fullmatch(w))
    return 2 * numeric >= len(words)


def _join(units: Sequence[_Unit]) -> str:
    parts: list[str] = []
    for i, unit in enumerate(units):
        if i:
            prose = unit.kind == "sentence" and units[i - 1].kind == "sentence"
            parts.append(" " if prose else "\n")
        parts.append(unit.text)
    return "".join(parts)


def _join_paged(units: Sequence[_Unit]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The units' text (``_join``), stripped, and where in it each page after the first
    begins (``_join`` puts one character between two units)."""
    joined = _join(units)
    text = joined.strip()
    lead = len(joined) - len(joined.lstrip())
    breaks: list[tuple[int, int]] = []
    at = -1
    for i, unit in enumerate(units):
        at += 1  # the separator before it (none before the first: -1 + 1)
        if i and unit.page != units[i - 1].page and at - lead < len(text):
            breaks.append((unit.page, max(0, at - lead)))
        at += len(unit.text)
    return text, tuple(breaks)


# ---------------------------------------------------------------- units -> chunks


@dataclass
class _Packer:
    count: TokenCounter | None
    target_words: int
    max_words: int
    min_words: int
    max_tokens: int
    max_chars: int = MAX_CHUNK_CHARS
    #: Tokens a counter adds to any text ([CLS] and [SEP] for MiniLM).
    special: int = 0
    #: Consecutive checks where the sum of unit counts equalled the real count;
    #: -1 once they differed (then every candidate near the limit is checked).
    agreed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.min_words <= self.target_words <= self.max_words:
            raise ValueError("need 0 < min_words <= target_words <= max_words")
        self.special = self.count("") if self.count else 0
        if self.count and self.max_tokens - self.special < 8:
            raise ValueError("max_tokens leaves no room for text")

    def fit(self, unit: _Unit) -> list[_Unit]:
        """Measure ``unit``; split one bigger than half a chunk at lines, else at words.

        Half, not whole: a unit that fills most of a chunk would leave the previous chunk
        under-filled (code listings and CJK text run to 5 tokens a word).
        """
        budget = self.max_tokens - self.special
        if self.count:
            unit.tokens = self.count(unit.text) - self.special
        short = len(unit.text) <= self.max_chars // 2
        if unit.words <= self.max_words // 2 and unit.tokens <= budget // 2 and short:
            return [unit]
        lines = unit.text.split("\n")
        words = unit.text.split()
        first, last = unit.lines
        if len(lines) > 1:
            mid = len(lines) // 2
            parts = ["\n".join(lines[:mid]), "\n".join(lines[mid:])]
            spans = [(first, first + mid - 1), (first + mid, last)]
            at_words: list[tuple[int, ...]] = [(), ()]
        elif len(words) > 1:
            n = max(2, math.ceil(unit.words / (self.max_words // 2)))
            if self.count:
                n = max(n, math.ceil(unit.tokens / (budget // 2)))
            size = math.ceil(len(words) / n)
            starts = range(0, len(words), size)
            parts = [" ".join(words[i : i + size]) for i in starts]
            known = len(unit.word_lines) == len(words)
            at_words = [unit.word_lines[i : i + size] if known else () for i in starts]
            spans = [(w[0], w[-1]) if w else (first, last) for w in at_words]
        elif (unit.tokens > budget or not short) and len(unit.text) > 1:  # one huge "word"
            half = len(unit.text) // 2
            parts = [unit.text[:half], unit.text[half:]]
            spans, at_words = [(first, last)] * 2, [(), ()]
        else:
            return [unit]
        out: list[_Unit] = []
        for part, span, at in zip(parts, spans, at_words, strict=True):
            piece = _Unit(
                part,
                unit.page,
                len(part.split()),
                unit.kind,
                section=unit.section,
                path=unit.path,
                lines=span,
                word_lines=at,
            )
            out.extend(self.fit(piece))
        return out

    def fits(self, group: Sequence[_Unit], extra: Sequence[_Unit]) -> bool:
        both = [*group, *extra]
        if _words(both) > self.max_words or _chars(both) > self.max_chars:
            return False
        if not self.count:
            return True
        estimate = self.special + sum(u.tokens for u in both)
        if estimate < VERIFY_SHARE * self.max_tokens:
            return True
        if self.agreed >= TRUST_AFTER_AGREEING:
            return estimate <= self.max_tokens
        # WordPiece counts add up across whitespace, so the sum is exact; a counter that
        # does not (BPE, SentencePiece) is caught here and then always checked.
        real = self.count(_join(both))
        if self.agreed >= 0:
            self.agreed = self.agreed + 1 if real == estimate else -1
        return real <= self.max_tokens

    def pack(self, units: Sequence[_Unit], overlap: int) -> list[list[_Unit]]:
        """Group units into chunks, each within the limits."""
        groups: list[list[_Unit]] = []
        cur: list[_Unit] = []
        carried = 0  # units at the start of cur that repeat the end of the previous chunk
        for unit in units:
            if unit.kind == "heading" and self._section_starts(cur, carried):
                if cur[carried:]:
                    groups.append(cur)
                cur, carried = [], 0  # a new section does not repeat the old one
            if cur and (_words(cur) >= self.target_words or not self.fits(cur, [unit])):
                cur, carried = self._roll(groups, cur, carried, unit, overlap)
            cur.append(unit)
        fresh = cur[carried:]
        if fresh:
            if groups and _words(fresh) < self.min_words and self.fits(groups[-1], fresh):
                groups[-1] = groups[-1] + fresh
            else:
                groups.append(cur)
        return groups

    def _section_starts(self, cur: list[_Unit], carried: int) -> bool:
        fresh = cur[carried:]
        if not fresh:
            return True
        return _words(cur) >= self.min_words and fresh[-1].kind != "heading"

    def _roll(
        self,
        groups: list[list[_Unit]],
        cur: list[_Unit],
        carried: int,
        unit: _Unit,
        overlap: int,
    ) -> tuple[list[_Unit], int]:
        """Close the full chunk ``cur``; return the start of the next one and its carry.

        Trailing headings move to the next chunk with the text they introduce; the last
        sentence(s) repeat there too when they fit.
        """
        tail = _trailing_headings(cur)
        body = cur[: len(cur) - len(tail)]
        keep: list[_Unit] = []
        if len(body) > carried:
            if self.fits(tail, [unit]):
                groups.append(body)
                keep = [] if tail else self._overlap(body, overlap)
                while keep and not self.fits([*keep, *tail], [unit]):
                    keep = keep[1:]
                return [*keep, *tail], len(keep)
            groups.append([*body, *tail])  # rare: heading + huge unit
            return [], 0
        if self.fits(tail, [unit]):
            return tail, 0
        if tail:
            groups.append(tail)
        return [], 0

    def _overlap(self, units: list[_Unit], n: int) -> list[_Unit]:
        """The last ``n`` units, unless one is a heading or too long to be worth repeating."""
        if n <= 0:
            return []
        tail = units[-n:]
        max_tokens = (self.max_tokens - self.special) * MAX_OVERLAP_SHARE
        for u in tail:
            if u.kind == "heading" or u.words > MAX_OVERLAP_WORDS or u.tokens > max_tokens:
                return []
        return list(tail)


def _words(units: Sequence[_Unit]) -> int:
    return sum(u.words for u in units)


def _chars(units: Sequence[_Unit]) -> int:
    """The length of the units joined (one separator between two)."""
    return sum(len(u.text) for u in units) + max(0, len(units) - 1)


def _trailing_headings(units: list[_Unit]) -> list[_Unit]:
    i = len(units)
    while i > 0 and units[i - 1].kind == "heading":
        i -= 1
    return units[i:]
