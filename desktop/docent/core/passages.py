"""Where a cited passage is in a page's text, and on an OCR'd page's image.

The passage is what was indexed (one chunk); the page text may differ in spacing,
punctuation, line breaks and glued words, so only the words need to match, in order.
Long passages are matched in windows of words, so a chunk that runs onto the next page
still finds its part of this one. Used by the PDF view (pdfium's text), the text view
(the extracted text) and, for OCR'd pages, to pick the recognised lines to light up.
"""

from __future__ import annotations

import re

from docent.core.models import LineBox, Page

WINDOW_WORDS = 8  # words per window when the whole passage does not match at once
MIN_WINDOW_WORDS = 3

_WORD = re.compile(r"\w+", re.UNICODE)


def _pattern(words: list[str]) -> re.Pattern[str]:
    return re.compile(r"\W*".join(re.escape(w) for w in words), re.IGNORECASE)


def locate_spans(page_text: str, passage: str) -> list[tuple[int, int]]:
    """(start, length) spans of ``page_text`` that hold the passage's words in order."""
    words = _WORD.findall(passage)
    if not words:
        return []
    whole = _pattern(words).search(page_text)
    if whole:
        return [(whole.start(), whole.end() - whole.start())]
    found: list[tuple[int, int, int, int]] = []  # start, end, first word, word after
    pos = 0
    for i in range(0, len(words), WINDOW_WORDS):
        first = i
        window = words[i : i + WINDOW_WORDS]
        if len(window) < MIN_WINDOW_WORDS and found:
            first = max(0, len(words) - MIN_WINDOW_WORDS)
            window = words[first:]
        if len(window) < MIN_WINDOW_WORDS:
            continue
        m = _pattern(window).search(page_text, pos)
        if m is None or m.end() - m.start() > 4 * len(" ".join(window)) + 20:
            continue
        found.append((m.start(), m.end(), first, first + len(window)))
        pos = m.end()
    return _merge(_grown(page_text, words, found))


def _grown(
    text: str, words: list[str], found: list[tuple[int, int, int, int]]
) -> list[tuple[int, int]]:
    """The windows' spans, each grown over the passage's words next to it that the page
    holds right there: the windows are cut at fixed places, so where a passage runs onto
    the next page the window across the page break fails, and without this up to a window
    of the words on this side of it would stay unlit."""
    spans: list[tuple[int, int]] = []
    for k, (start, end, first, after) in enumerate(found):
        floor = found[k - 1][3] if k else 0
        while first > floor:
            before = re.compile(r"(?<!\w)" + re.escape(words[first - 1]) + r"\W*\Z", re.I)
            m = before.search(text, 0, start)
            if m is None:
                break
            start, first = m.start(), first - 1
        ceiling = found[k + 1][2] if k + 1 < len(found) else len(words)
        while after < ceiling:
            m = re.compile(r"\W*" + re.escape(words[after]) + r"(?!\w)", re.I).match(text, end)
            if m is None:
                break
            end, after = m.end(), after + 1
        spans.append((start, end - start))
    return spans


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
