"""The quality gate for a model's summary of a section (or of the section summaries).

A small model's summary is often unusable in ways a guard on the stream cannot see
(guards.py cuts loops while they happen): a few short lines repeated, a list of the
document's name ("Debian-History-Summary-1.1 Debian-History-Summary-1.2 ..."), or
generic words that say nothing of the text. ``rejection`` names what is wrong, so the
map step can retry with a simpler prompt and then fall back to extracted sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePath

from docent.core import words
from docent.core.guards import normalise

#: Lines or sentences of at least this many words must not repeat.
REPEAT_MIN_WORDS = 3
#: Above this share of content words from the document's name (or filler) is "mostly name".
NAME_SHARE = 0.6
#: Content words the summary must share with its source.
MIN_SHARED = 2
#: The share of the summary's content words its source must have (a summary may name
#: what the text abbreviates, "Compatible Time-Sharing System" for CTSS): a small model's
#: combined summary of a CTSS manual told of "a high-speed digital television system ...
#: by the National Cable and Wireless Technology (NCRT) team", sharing two words with it.
MIN_GROUNDED = 0.3
#: Words compared by their first letters, so "drum" and "drums" match.
STEM = 6

_SPLIT = re.compile(r"\n+|(?<=[.!?])\s+|(?<=[。！？])")
#: A word of letters (3+), or a run of Chinese or Japanese, read as its pairs of
#: characters (words.py: those scripts write no spaces between words).
_TOKEN = re.compile(rf"[^\W\d_{words.CJK}]{{3,}}|[{words.CJK}]+")
#: Words that tell nothing about a text's content, in a summary of it (the second half:
#: what smollm2:135m wrote of a CTSS manual's pages, "The document contains pages 1–4 …
#: The text is written in a clear and easy-to-read style.", sharing only those).
_FILLER_WORDS = """summary summarise summarize summaries section sections page pages document documents
    part parts chapter text brief detailed overview following main points point key about
    this that these those with from into their there which what where when have been were
    will would also more most some such than then they them very here provides describes
    discusses presents explains covers includes information content contents
    contain contains containing clear clearly concise style written writing easy easily
    read readable simple simply language well overall topic topics described discussed
    explained mentioned"""
_FILLER = frozenset(_FILLER_WORDS.split())


def _tokens(text: str) -> list[str]:
    """The words of ``text``, lower case; a CJK run as its character pairs ("北京大学":
    "北京", "京大", "大学"), or itself when it is one character."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        w = m.group().lower()
        if words.is_cjk(w[0]):
            out += [w[i : i + 2] for i in range(len(w) - 1)] or [w]
        else:
            out.append(w)
    return out


def _meaningful(word: str) -> bool:
    """A word that can carry content: not filler, 4+ letters or a CJK pair."""
    return (len(word) >= 4 or words.is_cjk(word[0])) and word not in _FILLER


def content_stems(text: str, exclude: frozenset[str] = frozenset()) -> set[str]:
    """The stems of the words of ``text`` that can carry content."""
    return {w[:STEM] for w in _tokens(text) if _meaningful(w) and w[:STEM] not in exclude}


def name_stems(name: str) -> frozenset[str]:
    """The stems of a document's file name ("debian-history__project-history.en.pdf")."""
    stem = PurePath(name).stem if "." in name else name
    return frozenset(w[:STEM] for w in _tokens(stem))


def repeated_line(text: str) -> str:
    """The first line or sentence (of REPEAT_MIN_WORDS words or more) that repeats, or ""."""
    seen: Counter[str] = Counter()
    for raw in _SPLIT.split(text):
        key = normalise(raw)
        if words.count(key) < REPEAT_MIN_WORDS:
            continue
        seen[key] += 1
        if seen[key] > 1:
            return raw.strip()
    return ""


#: This many words in a row from the prompt's instructions (and not from the text) is
#: the instructions said back: "The document summarises pages in at most 60 words: its
#: topics, main points and key facts, names or numbers ..." (smollm2:135m).
ECHO_WORDS = 6


def echoed(text: str, instructions: str, source: str) -> str:
    """The first run of ``ECHO_WORDS`` words of ``text`` that ``instructions`` hold and
    ``source`` does not, or ""."""
    said = words.split(normalise(text))
    asked, read = words.split(normalise(instructions)), words.split(normalise(source))

    def runs(words: list[str]) -> set[tuple[str, ...]]:
        return {tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}

    told, seen = runs(asked), runs(read)
    for i in range(len(said) - ECHO_WORDS + 1):
        run = tuple(said[i : i + ECHO_WORDS])
        if run in told and run not in seen:
            return " ".join(run)
    return ""


def rejection(text: str, source: str, name: str, instructions: str = "") -> str:
    """Why ``text`` is not a usable summary of ``source`` ("" when it is), in a phrase.
    ``instructions``: the prompt's words other than the source, which a summary must not
    say back."""
    if not text.strip():
        return "it was empty"
    again = repeated_line(text)
    if again:
        return f"it repeated a line ({again[:60]!r})"
    told = echoed(text, instructions, source) if instructions else ""
    if told:
        return f"it said back the instructions ({told!r})"
    names = name_stems(name)
    meaningful = [w for w in _tokens(text) if _meaningful(w)]
    from_name = [w for w in meaningful if w[:STEM] in names]
    if not meaningful:
        return "it had no content words from the text"
    if len(from_name) > NAME_SHARE * len(meaningful):
        return "it was mostly the document's name"
    said = content_stems(text, names)
    read = content_stems(source, names)
    if len(read) < MIN_SHARED:
        return ""  # a text of numbers or symbols: no words a summary could share
    shared = said & read
    if len(shared) < MIN_SHARED:
        return "it had no content words from the text"
    if len(shared) < MIN_GROUNDED * len(said):
        return f"most of its words are not in the text ({len(said) - len(shared)} of {len(said)})"
    return ""
