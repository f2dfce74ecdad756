"""Text fitted to terminal cells: a wide character (CJK) takes two, a combining mark none."""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"


def cells(text: str) -> int:
    """The terminal cells ``text`` takes."""
    return sum(_cells(ch) for ch in text)


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: cut with an ellipsis when longer (a name cut
    silently reads as the whole name: QA, session 27)."""
    if cells(text) <= width:
        return text
    room, out = width - 1, []
    for ch in text:
        room -= _cells(ch)
        if room < 0:
            break
        out.append(ch)
    return "".join(out) + ELLIPSIS if width > 0 else ""


def pad(text: str, width: int) -> str:
    """``text`` fitted to ``width`` cells and padded with spaces to fill them: a column
    that stays in line with wide characters in it."""
    fitted = fit(text, width)
    return fitted + " " * (width - cells(fitted))


def _cells(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


#: Docent's bold leads ("**Not generated — no language model answered.**"): the window
#: draws them; a terminal showed the asterisks (QA-80).
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL)


def unbold(text: str) -> str:
    """``text`` without Markdown's bold marks, for a terminal; code as written
    ("print(2**10 + 3**2)" lost its asterisks; review 85)."""
    from docent.core.citations import code_spans

    out, at = [], 0
    for a, b in code_spans(text):
        out += [_BOLD.sub(r"\1", text[at:a]), text[a:b]]
        at = b
    out.append(_BOLD.sub(r"\1", text[at:]))
    return "".join(out)
