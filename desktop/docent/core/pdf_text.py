"""A PDF page's text layer, read by pdfium (pypdfium2, which pdfplumber brings along).

pdfium reads these manuals at ~600 pages/s of CPU where pdfplumber reads ~16: pdfplumber
interprets each content stream in Python (pdfminer) and then turns every glyph into a
dict of a dozen attributes, none of which the chunker uses (cProfile on a 15-page manual:
55 % in pdfminer's interpreter, 40 % in pdfplumber's object conversion). Measured on
the whole corpus with ``benchmarks/extract_compare.py``.

pdfplumber stays for what pdfium reads poorly (``is_weak``): a page with next to no text
or mostly unreadable characters is read by both and keeps the better text, and a file
pdfium refuses to open is read by pdfplumber alone (extract.py), which repairs some
broken cross-reference tables pdfium gives up on.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from docent.core.ocr import GARBAGE_SHARE, MIN_PAGE_CHARS, garbage_share

if TYPE_CHECKING:
    import pypdfium2

#: pdfium marks a word hyphenated at the end of a line with U+FFFE in place of the hyphen
#: and the line break; pdfplumber (and the highlighter's regex) see "out-\nliers".
_SOFT_HYPHEN = "\ufffe"


class PdfiumRefused(Exception):
    """pdfium cannot open the file. Why is not kept: pdfium leaves its last error as it
    was when a load fails without setting one (a PDF without pages), so its "incorrect
    password" can be a stale one from an earlier file of the same process."""


def open_pdfium(fh: IO[bytes], password: str | None) -> pypdfium2.PdfDocument:
    """The document read from ``fh`` (kept open by the caller), or ``PdfiumRefused``."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(fh, password=password or None)
    except pdfium.PdfiumError as exc:
        raise PdfiumRefused(str(exc)) from exc


def pdfium_page_text(pdf: pypdfium2.PdfDocument, index: int) -> str:
    """The text of page ``index`` (from 0), in pdfium's reading order, uncleaned."""
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range() if textpage.count_chars() else ""
        finally:
            textpage.close()
    finally:
        page.close()
    return text.replace(_SOFT_HYPHEN, "-\n")


def is_weak(text: str) -> bool:
    """Next to no text, or mostly characters that carry none: worth a second reader."""
    visible = sum(1 for ch in text if not ch.isspace())
    return visible < MIN_PAGE_CHARS or garbage_share(text) >= GARBAGE_SHARE


def better_text(first: str, second: str) -> str:
    """The text with more readable characters (``first`` on a tie)."""
    return second if readable_chars(second) > readable_chars(first) else first


def readable_chars(text: str) -> float:
    """Visible characters that carry text (not glyph codes or private-use ones)."""
    visible = sum(1 for ch in text if not ch.isspace())
    return visible * (1.0 - garbage_share(text)) if visible else 0.0
