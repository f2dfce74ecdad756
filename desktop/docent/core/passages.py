"""Where a cited passage is in a page's text, and on an OCR'd page's image.

The passage is what was indexed (one chunk); the page text may differ in spacing,
punctuation, line breaks and glued words, so only the words need to match, in order.
Long passages are matched in windows of words, so a chunk that runs onto the next page
still finds its part of this one. Used by the PDF view (pdfium's text), the text view
(the extracted text) and, for OCR'd pages, to pick the recognised lines to light up.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Literal

from docent.core.models import LineBox, Page
from docent.core.normal_form import composed, compounds, dehyphenated, nfc, whole_words

WINDOW_WORDS = 8  # words per window when the whole passage does not match at once
MIN_WINDOW_WORDS = 3

_WORD = re.compile(r"\w+", re.UNICODE)

#: Where on the page a part of a passage running over pages must be: "end" (its start, at
#: the foot of its first page), "start" (its end, at the top of its last), "" anywhere.
Edge = Literal["", "start", "end"]


def _pattern(words: list[str]) -> re.Pattern[str]:
    """The words in order, whole: "cat sat" is not found inside "bobcat sat" (review)."""
    body = r"\W*".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def locate_spans(page_text: str, passage: str, edge: Edge = "") -> list[tuple[int, int]]:
    """(start, length) spans of ``page_text`` that hold the passage's words in order.

    ``edge``: the passage is the part of a longer one on this page, at its end or start
    (``Citation.edge_on``); a part shorter than a window is lit only there.

    Both are matched composed (NFC, normal_form.py): pdfium's text of a PDF written
    decomposed holds "cafe" + U+0301 where the indexed passage has "café"; and with words
    hyphenated across lines whole, as chunking makes them. The spans are offsets in
    ``page_text`` as given."""
    text, where = composed(page_text)
    passage = nfc(passage)
    kept = compounds(passage)  # "non-data" broken at a line's end, as chunking kept it
    whole, at = whole_words(text, kept)  # "docu-\nmentation" as the passage has it, whole
    spans = _locate(whole, dehyphenated(passage, kept), edge)
    return [(where[at[s]], where[at[s + n]] - where[at[s]]) for s, n in spans]


def _locate(page_text: str, passage: str, edge: Edge = "") -> list[tuple[int, int]]:
    words = _WORD.findall(passage)
    if not words:
        return []
    if edge and len(words) < WINDOW_WORDS:
        # "The results show" ending p.4 was lit where p.4 first says it (review s21)
        at = _at_edge(page_text, words, edge)
        return [(at[0], at[1] - at[0])] if at else []
    whole = _pattern(words).search(page_text)
    if whole:
        return [(whole.start(), whole.end() - whole.start())]
    windows: list[list[Window]] = []
    for i in range(0, len(words), WINDOW_WORDS):
        first = i
        window = words[i : i + WINDOW_WORDS]
        if len(window) < MIN_WINDOW_WORDS and windows:
            first = max(0, len(words) - MIN_WINDOW_WORDS)
            window = words[first:]
        if len(window) < MIN_WINDOW_WORDS:
            continue
        longest = 4 * len(" ".join(window)) + 20
        places = [
            (m.start(), m.end(), first, first + len(window))
            for m in islice(_pattern(window).finditer(page_text), _PLACES)
            if m.end() - m.start() <= longest
        ]
        if places:
            windows.append(places)
    found = _chain(windows) or _edge_parts(page_text, words)
    return _merge(_grown(page_text, words, found))


#: (start, end, first word, word after) of a window of the passage's words on the page.
Window = tuple[int, int, int, int]
#: The places on the page looked at for each window (a phrase a page repeats).
_PLACES = 16


def _chain(windows: list[list[Window]]) -> list[Window]:
    """One place for as many of the passage's words as can stand in its order, the closest
    together of those: a window of a passage's first page may also match a later section
    of its second page that repeats its words, and taking each window's first place after
    the last one's lit that section and left the cited part dark (review h20)."""
    # for each place: (words lit, -extent), the place before it in its chain, its start
    best: list[tuple[tuple[int, int], int, int]] = []
    flat = [(w, p) for w, places in enumerate(windows) for p in range(len(places))]
    for k, (w, p) in enumerate(flat):
        start, end, first, after = windows[w][p]
        score, before = (after - first, start - end), -1
        for j in range(k):
            v, q = flat[j]
            if v < w and windows[v][q][1] <= start:
                (lit, _), _, head = best[j]
                candidate = (lit + after - first, head - end)
                if candidate > score:
                    score, before = candidate, j
        best.append((score, before, best[before][2] if before >= 0 else start))
    if not best:
        return []
    k = max(range(len(best)), key=lambda i: best[i][0])
    chain = []
    while k >= 0:
        w, p = flat[k]
        chain.append(windows[w][p])
        k = best[k][1]
    return chain[::-1]


#: Lines a page may hold after the start of a passage running onto the next page (or
#: before the end of one coming from the last): a footer, a header.
EDGE_LINES = 2


def _lines(part: str) -> int:
    return sum(1 for line in part.splitlines() if line.strip())


def _at_edge(text: str, words: list[str], edge: Edge) -> tuple[int, int] | None:
    """The place of ``words`` closest to the page's ``edge``: within EDGE_LINES of it, or,
    for MIN_WINDOW_WORDS words or more, anywhere (footnotes, a journal's footer and a
    page number stand between a part and the foot; review s21)."""
    places = list(_pattern(words).finditer(text))
    if not places:
        return None
    m = places[-1] if edge == "end" else places[0]
    beyond = text[m.end() :] if edge == "end" else text[: m.start()]
    if _lines(beyond) > EDGE_LINES and len(words) < MIN_WINDOW_WORDS:
        return None  # a word or two: they stand anywhere on a page
    return m.start(), m.end()


def _edge_parts(text: str, words: list[str]) -> list[tuple[int, int, int, int]]:
    """A passage across a page break of which this page holds fewer words than a window:
    its start at the page's end, or its end at the page's start, each at least
    MIN_WINDOW_WORDS long (every fixed window crossed the break, so nothing was lit; found
    by a review). Only there: three words may stand anywhere else on the page."""

    lines = _lines
    most = min(WINDOW_WORDS - 1, len(words) - 1)
    for k in range(most, MIN_WINDOW_WORDS - 1, -1):
        head = [
            m for m in _pattern(words[:k]).finditer(text) if lines(text[m.end() :]) <= EDGE_LINES
        ]
        if head:
            return [(head[-1].start(), head[-1].end(), 0, k)]
        tail = _pattern(words[-k:]).search(text)
        if tail and lines(text[: tail.start()]) <= EDGE_LINES:
            return [(tail.start(), tail.end(), len(words) - k, len(words))]
    return []


def _grown(
    text: str, words: list[str], found: list[tuple[int, int, int, int]]
) -> list[tuple[int, int]]:
    """The windows' spans, each grown over the passage's words next to it that the page
    holds right there: the windows are cut at fixed places, so where a passage runs onto
    the next page the window across the page break fails, and without this up to a window
    of the words on this side of it would stay unlit. Across a line break the word must
    fill its line (a heading, a short last line) or the next word must follow on too: a
    footer's first word ("For more see p. 7") may be the passage's next one."""
    spans: list[tuple[int, int]] = []
    for k, (start, end, first, after) in enumerate(found):
        # not into the words a neighbouring window matched (they are lit already)
        floor = found[k - 1][3] if k else 0
        while first > floor:
            m = _before(text, start, words[first - 1])
            if m is None:
                break
            crossed = "\n" in text[m.end(1) : start] and first - 1 > floor
            if crossed and not (
                _line_start(text, m.start()) or _before(text, m.start(), words[first - 2])
            ):
                break
            start, first = m.start(), first - 1
        ceiling = found[k + 1][2] if k + 1 < len(found) else len(words)
        while after < ceiling:
            m = _after(text, end, words[after])
            if m is None:
                break
            crossed = "\n" in text[end : m.start(1)] and after + 1 < ceiling
            if crossed and not (
                _LINE_END.match(text, m.end()) or _after(text, m.end(), words[after + 1])
            ):
                break
            end, after = m.end(), after + 1
        spans.append((start, end - start))
    return spans


#: How far before a span its growth looks for the passage's word before it (so that a
#: passage deep in a long text costs no more than one near its start).
_REACH = 200


def _before(text: str, start: int, word: str) -> re.Match[str] | None:
    """``word`` ending right before ``start`` (only non-word characters between), whole."""
    pattern = re.compile(r"(?<!\w)(" + re.escape(word) + r")\W*\Z", re.IGNORECASE)
    return pattern.search(text, max(0, start - len(word) - _REACH), start)


_LINE_END = re.compile(r"[^\w\n]*(?:\n|\Z)")
_LINE_START = re.compile(r"(?:\A|\n)[^\w\n]*\Z")


def _line_start(text: str, start: int) -> bool:
    """Whether only non-word characters stand between ``start`` and its line's start."""
    return _LINE_START.search(text, max(0, start - _REACH), start) is not None


def _after(text: str, end: int, word: str) -> re.Match[str] | None:
    """``word`` starting right after ``end`` (only non-word characters between), whole."""
    return re.compile(r"\W*(" + re.escape(word) + r")(?!\w)", re.IGNORECASE).match(text, end)


def _merge(spans: list[tuple[int, int]], gap: int = 40) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, length in sorted(spans):
        if merged and start <= merged[-1][0] + merged[-1][1] + gap:
            s0, l0 = merged[-1]
            merged[-1] = (s0, max(s0 + l0, start + length) - s0)
        else:
            merged.append((start, length))
    return merged


def passage_boxes(page: Page, passage: str) -> list[LineBox]:
    """The OCR'd lines of ``page`` that hold part of ``passage`` (page-fraction boxes)."""
    spans = locate_spans(page.text, passage)
    return [
        box
        for box in page.lines
        if any(box.start < start + length and start < box.end for start, length in spans)
    ]
