"""What of a document could not be read, said where the document is listed.

A page pdfium and pdfplumber both fail on is left empty, a scanned page OCR could not
read (or, OCR off, did not try) keeps its empty text layer, a workbook past
``sheets.MAX_ROWS`` rows is cut: the rest of the document is indexed, one bad page never
loses it. This was only logged, so a question about page 4 found nothing and nothing said
why. Each such page carries why (``Page.unread``); ``note`` turns them into the clause the
catalog keeps (``DocumentRecord.gaps``), and ``sentence`` into what a reader is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docent.core.models import Page

#: ``Page.unread``: the page's text could not be read (both PDF readers failed on it).
UNREADABLE = "unreadable"
#: A scanned page OCR failed on (it would not render or read, or OCR is unavailable).
OCR_FAILED = "ocr failed"
#: A scanned page not OCR'd because OCR is off in the settings.
NOT_OCRED = "ocr off"

#: How the settings' OCR switch is named to a reader (the Settings dialog's row).
OCR_SETTING = "“Scanned pages” in Settings, or `ocr_enabled` in settings.toml"

#: Page numbers named one by one at most; past them, how many and the first few.
_LISTED = 6


def page_list(numbers: Iterable[int]) -> str:
    """ "page 4", "pages 4 and 7", "pages 4-6, 9 and 12", "14 pages (4-6, 9, 12, 15, …)"."""
    nums = sorted(set(numbers))
    runs: list[tuple[int, int]] = []
    for n in nums:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    if len(nums) == 1:
        return f"page {nums[0]}"
    if len(parts) > _LISTED:
        return f"{len(nums)} pages ({', '.join(parts[: _LISTED - 1])}, …)"
    if len(parts) == 1:
        return f"pages {parts[0]}"
    return f"pages {', '.join(parts[:-1])} and {parts[-1]}"


def note(pages: Sequence[Page]) -> str:
    """The clauses that say which of ``pages`` were not read, and why; "" when all were."""
    clauses: list[str] = []
    for why, said in (
        (UNREADABLE, "could not be read"),
        (OCR_FAILED, "{are} scanned and OCR could not read {them}"),
        (NOT_OCRED, f"{{are}} scanned and not read: OCR is off (turn on {OCR_SETTING})"),
    ):
        numbers = [p.number for p in pages if p.unread == why]
        if numbers:
            one = len(numbers) == 1
            text = said.format(are="is" if one else "are", them="it" if one else "them")
            clauses.append(f"{page_list(numbers)} {text}")
    return "; ".join(clauses)


def sentence(gaps: str) -> str:
    """``gaps`` as a sentence of its own ("Page 4 could not be read; what was read is
    searchable."); "" for none. Not "the rest": of a sheet cut at its rows, the rest is
    what was not read (review 83)."""
    if not gaps:
        return ""
    return f"{gaps[0].upper()}{gaps[1:]}; what was read is searchable."
