"""One form for all text Docent matches: composed (NFC), and words whole across lines.

A PDF made on a Mac, or a text file saved by some editors, writes "café" decomposed (NFD:
"cafe" + U+0301). BM25's tokenizer and every ``\\w+`` here cut such a word at the combining
accent ("re", "sume" for "résumé"), so a question typed with the composed letters, as
keyboards write them, found neither its words nor its passage (review). Text is composed as
it enters: ``document`` on what extraction and the text cache give, ``nfc`` on a question.
``composed`` keeps a map to the original offsets, for matching in text that is not ours
(pdfium's page text) and for an OCR'd line's offsets.

Words hyphenated across lines ("docu-" / "mentation") are made whole where passages are
cut (``dehyphenated``, chunking.py), and found in the page's own broken text
(``whole_words``, passages.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from docent.core.models import ExtractedDocument, Page

#: A run of marks longer than this (stacked "zalgo" text) is composed in parts: each step
#: composes the whole run again.
_LONGEST_RUN = 32


def nfc(text: str) -> str:
    """``text`` composed (NFC); the same object when it already is."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def typed(text: str) -> str:
    """Text a person typed (a question, a grep pattern), composed. Bytes that were not
    UTF-8 (a terminal set to Latin-1: Python hands them on as surrogates) are read as
    Windows-1252, the encoding such text is most likely in: "caf\\udce9" is "café". They
    reached the store and the tokenizer as they were, and the command died (review)."""
    if any("\udc80" <= c <= "\udcff" for c in text):
        raw = text.encode("utf-8", "surrogateescape")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("cp1252", "replace")
    return nfc(text.encode("utf-8", "replace").decode("utf-8"))


#: Where a run of Latin letters or digits meets one of Chinese or Japanese (which write
#: no spaces): "SIMHのシミュレーション" was one word, and SIMH was never searched (QA-80).
_SCRIPTS_MEET = re.compile(
    r"(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])"
    r"|(?<=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])(?=[A-Za-z0-9])"
)


def scripts_apart(text: str) -> str:
    """A question with a space where Latin letters or digits meet Chinese or Japanese
    ("SIMH のシミュレーション"), for the search: its words are the index's words."""
    return _SCRIPTS_MEET.sub(" ", text)


def composed(text: str) -> tuple[str, list[int]]:
    """``text`` composed, and for each of its offsets (and its end) the offset in ``text``.

    Composition joins a character only to the one before it (a base and its accents, a
    Hangul syllable and its jamo), so the text is composed a run of joined characters at a
    time (at most ``_LONGEST_RUN`` characters); each character composed from a run maps to
    the run's start."""
    if unicodedata.is_normalized("NFC", text):
        return text, list(range(len(text) + 1))
    parts: list[str] = []
    where: list[int] = []
    start = 0
    run = ""
    for i, ch in enumerate(text):
        if run and not _joins(run, ch):
            parts.append(run)
            where.extend([start] * len(run))
            start, run = i, ""
        run = unicodedata.normalize("NFC", run + ch)
    parts.append(run)
    where.extend([start] * len(run))
    where.append(len(text))
    return "".join(parts), where


def _joins(run: str, ch: str) -> bool:
    """``ch`` may compose with the end of ``run`` (an accent, a jamo), and the run is short."""
    if len(run) >= _LONGEST_RUN:
        return False
    return bool(unicodedata.combining(ch)) or len(unicodedata.normalize("NFC", run[-1] + ch)) == 1


def _page(page: Page) -> Page:
    if unicodedata.is_normalized("NFC", page.text):
        return page
    text, where = composed(page.text)
    if not page.lines:
        return replace(page, text=text)
    # an OCR'd line's [start, end) in the composed text: the first offset at or after it
    new_at = {old: new for new, old in reversed(list(enumerate(where)))}

    def moved(old: int) -> int:
        while old not in new_at:
            old += 1
        return new_at[old]

    lines = tuple(replace(b, start=moved(b.start), end=moved(b.end)) for b in page.lines)
    return replace(page, text=text, lines=lines)


def document(doc: ExtractedDocument) -> ExtractedDocument:
    """``doc`` with every page's text composed (the same object when all already are)."""
    pages = [_page(p) for p in doc.pages]
    if all(a is b for a, b in zip(pages, doc.pages, strict=True)):
        return doc
    return replace(doc, pages=pages)


#: A word hyphenated at a line's end (pdfium's U+FFFE mark, which extraction writes as "-",
#: or a soft hyphen): its halves are joined when the next line goes on in lower case. The
#: text QtPdf gives the highlighter has the mark with no line break after it
#: ("out\ufffeliers", review h20): the mark alone is a break too. The letter before the
#: mark is looked behind, not matched: a word matched from its start was tried from every
#: letter of a megabyte without a space (hours).
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])(?:[-\ufffe\xad][ \t]*\r?\n|\ufffe)[ \t]*(?=[^\W\d_])")
_LETTERS = re.compile(r"[^\W\d_]{1,64}")
#: The longest half of a compound looked at (a word is shorter).
_HALF = 64


#: A compound written with its hyphen inside a line ("non-data", "right-hand").
_COMPOUND = re.compile(r"(?<![\w-])[^\W\d_]+-[^\W\d_]+(?![\w-])")


def compounds(text: str) -> frozenset[str]:
    """The hyphenated compounds ``text`` writes inside its lines, lower case: broken at a
    line's end, they keep their hyphen ("non-\ndata": "non-data", not "nondata")."""
    return frozenset(m.group().lower() for m in _COMPOUND.finditer(text))


def _breaks(text: str, keep: frozenset[str]) -> list[tuple[int, int]]:
    """Where ``dehyphenated`` cuts: the line break (and the hyphen, unless the compound is
    in ``keep``) of a word broken before a lower-case letter; soft hyphens."""
    cuts = []
    for m in _HYPHEN_BREAK.finditer(text):
        if not text[m.end()].islower():
            continue
        kept = text[m.start()] in "-\ufffe" and keep and _compound_at(text, m) in keep
        cuts.append((m.start() + 1 if kept else m.start(), m.end()))
    cuts += [(i, i + 1) for i, ch in enumerate(text) if ch == "\xad"]
    return sorted(cuts, key=lambda c: (c[0], -c[1]))  # a break before its soft hyphen


def _compound_at(text: str, m: re.Match[str]) -> str:
    """The compound a hyphen break splits, lower case ("non-data" for "non-\ndata")."""
    before = text[max(0, m.start() - _HALF) : m.start()]
    left = _LETTERS.findall(before)
    right = _LETTERS.match(text, m.end())
    if not left or right is None or not before.endswith(left[-1]):
        return ""
    return f"{left[-1]}-{right.group()}".lower()


def dehyphenated(text: str, keep: frozenset[str] = frozenset()) -> str:
    """``text`` with words hyphenated across lines made whole ("docu-\nmentation":
    "documentation") and soft hyphens dropped: "docu- mentation" could not be searched or
    grepped (review). A compound in ``keep`` (``compounds`` of the document) keeps its
    hyphen; another broken at its hyphen is joined: the text cannot tell it from a
    hyphenated word, and those are most breaks."""
    return whole_words(text, keep)[0]


def whole_words(text: str, keep: frozenset[str] = frozenset()) -> tuple[str, list[int]]:
    """``dehyphenated(text, keep)``, and for each of its offsets (and its end) the offset
    in ``text``: to find an indexed passage in a page's own text (pdfium's)."""
    parts: list[str] = []
    where: list[int] = []
    pos = 0
    for a, b in _breaks(text, keep):
        if a < pos:
            continue  # a soft hyphen inside a break already cut
        parts.append(text[pos:a])
        where.extend(range(pos, a))
        pos = b
    parts.append(text[pos:])
    where.extend(range(pos, len(text) + 1))
    return "".join(parts), where
