"""Words as summaries count and cut them: runs between spaces, and each Chinese or Japanese
character on its own.

Those scripts put no spaces between words, so ``text.split()`` made a page of Chinese one
"word": its sections overflowed the model's context, the extractive summary found no
sentence, and the quality gate found no word a faithful summary shared with its text
(review). A character of them carries about what an English word does, and costs about
as many tokens.
"""

from __future__ import annotations

import re

#: Hiragana, Katakana, CJK ideographs (with extension A and the compatibility block),
#: half-width Katakana. Korean writes spaces between its words.
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
#: Thai, Lao, Myanmar, Khmer: no spaces between words either (a Thai page was one
#: "word", and a section of 1,500 of them overflowed the context; review). Counted a
#: character each, like CJK: more than their words, so sections err small.
UNSPACED = CJK + "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_WORD = re.compile(rf"[{UNSPACED}]|[^\s{UNSPACED}]+")
_CJK_CHAR = re.compile(rf"[{CJK}]")
_RUNS = re.compile(rf"[{CJK}]+|[^{CJK}]+")

#: Full stops that are not a sentence's end: "p. 12", "e.g. AES", "Fig. 3", "U.S. Congress"
#: (initials, two or more). Not "etc." nor one capital: a sentence ends on them as often
#: ("... to terminal B. The fan ..."; a review). For a sentence-end pattern, after its
#: ``(?<=[.!?])``.
NOT_ABBREVIATION = (
    r"(?<!\bp\.)(?<!\bpp\.)(?<![eE]\.g\.)(?<![iI]\.e\.)(?<!\bcf\.)(?<!\bvs\.)"
    r"(?<!\bNo\.)(?<!\b[Ff]ig\.)(?<!\bSec\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)"
    r"(?<!\bMs\.)(?<!\bSt\.)(?<!\b[A-Z]\.[A-Z]\.)"
)
#: Chinese and Japanese end a sentence with a full-width mark and no space after it (a
#: zero-width split: after the mark and any closing quote or bracket).
CJK_SENTENCE_END = r"(?<=[。！？])(?![」』）”’])|(?<=[。！？][」』）”’])"


def spans(text: str) -> list[tuple[int, int]]:
    """Where each word of ``text`` is: (start, end)."""
    return [m.span() for m in _WORD.finditer(text)]


def count(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text))


def split(text: str) -> list[str]:
    """The words of ``text`` (each CJK character one)."""
    return _WORD.findall(text)


def first(text: str, n: int) -> str:
    """``text`` up to the end of its ``n``-th word (all of it when it has fewer), its
    spacing kept."""
    if n <= 0:
        return ""
    at = spans(text)
    return text[: at[n - 1][1]] if len(at) >= n else text


def last(text: str, n: int) -> str:
    """``text`` from the start of its ``n``-th word from the end (all of it when it has
    fewer), its spacing kept."""
    if n <= 0:
        return ""
    at = spans(text)
    return text[at[-n][0] :] if len(at) >= n else text


def pieces(word: str) -> list[str]:
    """``word`` with each run of CJK characters in it as that run's pairs of characters
    ("北京大学": "北京", "京大", "大学"; one character alone: itself); other runs as
    they are."""
    out: list[str] = []
    for run in _RUNS.findall(word):
        if is_cjk(run[0]):
            out += [run[i : i + 2] for i in range(len(run) - 1)] or [run]
        else:
            out.append(run)
    return out


def is_cjk(char: str) -> bool:
    return bool(_CJK_CHAR.match(char))


def joined(lines: list[str]) -> str:
    """Wrapped lines as one line: a space between them, but none where a CJK line wraps."""
    parts: list[str] = []
    for line in lines:
        if parts and not (is_cjk(parts[-1][-1:]) and is_cjk(line[:1])):
            parts.append(" ")
        parts.append(line)
    return "".join(parts)
