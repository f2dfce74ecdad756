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
    spans: list[tuple[int, int]] = []
    pos = 0
    for i in range(0, len(words), WINDOW_WORDS):
        window = words[i : i + WINDOW_WORDS]
        if len(window) < MIN_WINDOW_WORDS and spans:
            window = words[max(0, len(words) - MIN_WINDOW_WORDS) :]
        if len(window) < MIN_WINDOW_WORDS:
            continue
        m = _pattern(window).search(page_text, pos)
        if m is None or m.end() - m.start() > 4 * len(" ".join(window)) + 20:
            continue
        spans.append((m.start(), m.end() - m.start()))
        pos = m.end()
    return _merge(spans)


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
