"""Whether a sentence's figure is the one its passage gives for what the sentence is about.

The number check (``numbers.unstated_numbers``) asks whether a passage states a sentence's
numbers at all. A passage saying "The painter arrives on 1 June. Work ends on 15 June."
states every number of "Work ends on 1 June", and so did "Team A has a budget of 25,000.
Team B has a budget of 40,000." of "Team A's budget is 40,000" (QA, session 31): a small
model lifts a figure from the statement beside the one it is about.

``misplaced`` finds, for a sentence and the passages it is checked against, the
statement that gives the sentence's subject another figure, when the figure the sentence
states stands there only in statements about something else. A statement is a sentence
of a passage as ``evaluation.sentence_bounds`` splits it (line breaks inside a sentence
kept, so the rows of a table without full stops are one statement, never judged). A
figure is a day of the year, a year or another number (``numbers.figures``); the other
figure must be of the same kind and one the sentence does not state:

- **words**: no statement giving the figure has, among the ``NEAR`` content words either
  side of it, one the sentence has beside its figure, and another statement has ``AGREE``
  of them beside a figure of its own ("Work ends on 15 June" for "Work ends on 1 June",
  not "The painter arrives on 1 June");
- **names**: the sentence names names the passages name too ("Team A", "Helga"), no
  statement giving the figure names them all (a statement naming no one is read with the
  one before it: "Helga leads the team. It has 5 people."), and another statement that
  names them all gives another figure.

Only ever a reason to flag: a sentence none of whose figures is placed elsewhere is
judged as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from docent.core.evaluation import WORD, sentence_bounds, stem
from docent.core.numbers import MONTH_NAMES, Figure, figures, stated_numbers
from docent.core.queryterms import stopwords

#: Words either side of a figure that say what it is of.
NEAR = 4
#: Of those, how many another statement's figure must have too for the sentence to be
#: about it (all of them, when the sentence has fewer): "The project concludes on 15
#: June" is not about "The project starts on 5 April" for sharing "project".
AGREE = 2

#: A Markdown heading's line: "## Budget".
_HEADING = re.compile(r"[ \t]*#{1,6}\s")
#: A section's number opening a sentence: "4.1 Hardware requirements".
_SECTION_NUMBER = re.compile(r"\W*\d+(?:\.\d+)+\.?\s+(?=[A-Z])")
#: Words of when, not of what nor whose.
_WHEN_WORDS = MONTH_NAMES | {
    f"{day}day" for day in ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
}
#: A name's word: a capital and small letters ("Helga", "Team"), or a capital alone ("Team
#: B"). Not a code in capitals ("RAM", "LTSP") nor a unit ("GiB", "MHz"): those say what
#: a figure counts, not whose it is.
_CAPITAL = re.compile(r"(?<![\w'’-])(?:[A-Z][a-z]+|[A-Z](?![\w-]))(?:['’]s)?(?![\w-])")
_POSSESSIVE = re.compile(r"['’]s?$")


class _Statement:
    """A sentence of a passage, with its figures, the numbers it states and its names."""

    __slots__ = ("figures", "names", "stated", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.figures = figures(text)
        self.stated = stated_numbers(text)
        self.names = names_in(text)


class _Pool:
    """The statements of the passages a sentence is checked against, in order, and the
    names each is read with: its own, or when it names no one, those of the statement
    before it in the same passage ("Helga leads the team. It has 5 people.")."""

    def __init__(self, passages: Sequence[str]) -> None:
        self.items: list[_Statement] = []
        self.named: list[frozenset[str]] = []
        for passage in passages:
            before: frozenset[str] = frozenset()
            # a heading or a paragraph ends a statement, whatever punctuation it lacks
            for part in _paragraphs(passage):
                for a, b in sentence_bounds(part):
                    statement = _Statement(part[a:b])
                    self.items.append(statement)
                    self.named.append(statement.names or before)
                    before = statement.names
        self.all_names: frozenset[str] = frozenset().union(*(s.names for s in self.items))


def _paragraphs(passage: str) -> list[str]:
    """A passage's paragraphs, and its Markdown headings' lines apart."""
    parts: list[str] = []
    for paragraph in re.split(r"\n[ \t]*\n", passage):
        lines = paragraph.split("\n")
        heading = [i for i, line in enumerate(lines) if _HEADING.match(line)]
        start = 0
        for i in heading:
            parts += ["\n".join(lines[start:i]), lines[i]]
            start = i + 1
        parts.append("\n".join(lines[start:]))
    return [p for p in parts if p.strip()]


def names_in(text: str) -> frozenset[str]:
    """The names a sentence writes, lower-cased (``_name_spans``)."""
    return frozenset(name for _, _, name in _name_spans(text))


def _name_spans(text: str) -> list[tuple[int, int, str]]:
    """Where a sentence writes names, and each lower-cased: capitalised words after its
    first word, the first word too when a name or a possessive follows it ("Helga
    Brandt", "Helga's"), single capitals ("Team A"); not months, weekdays, stopwords
    ("The", "It", "If": a line of a passage may open with one), nor "I"."""
    out: list[tuple[int, int, str]] = []
    caps = list(_CAPITAL.finditer(text))
    first = re.match(r"\W*", text)
    lead = first.end() if first else 0
    stop = stopwords()
    for i, m in enumerate(caps):
        raw = m.group()
        word = _POSSESSIVE.sub("", raw).lower()
        if word in _WHEN_WORDS or word == "i" or (len(word) > 1 and word in stop):
            continue
        if m.start() == lead:
            following = caps[i + 1] if i + 1 < len(caps) else None
            joined = following is not None and not text[m.end() : following.start()].strip()
            if not (joined or _POSSESSIVE.search(raw)):
                continue
        out.append((m.start(), m.end(), word))
    return out


def near_names(text: str, figure: Figure, reach: int = NEAR) -> frozenset[str]:
    """The names written within ``reach`` words either side of a figure of ``text``."""
    before = [m.start() for m in WORD.finditer(text, 0, figure.start)][-reach:]
    after = [m.end() for m in WORD.finditer(text, figure.end)][:reach]
    start = before[0] if before else figure.start
    end = after[-1] if after else figure.end
    return frozenset(name for a, b, name in _name_spans(text) if a >= start and b <= end)


def near_words(text: str, figure: Figure, reach: int = NEAR) -> frozenset[str]:
    """The ``reach`` content words (stemmed) nearest a figure of ``text`` on either side:
    what it is a figure of. Not figures, months, weekdays or stopwords."""
    stop = stopwords()

    def content(words: list[str]) -> list[str]:
        return [
            stem(w)
            for w in (x.lower() for x in words)
            if w.isalpha() and len(w) > 1 and w not in stop and w not in _WHEN_WORDS
        ]

    before = content([m.group() for m in WORD.finditer(text, 0, figure.start)])[-reach:]
    after = content([m.group() for m in WORD.finditer(text, figure.end)])[:reach]
    return frozenset(before + after)


def misplaced(sentence: str, passages: Sequence[str]) -> str | None:
    """The statement of ``passages`` that gives what ``sentence`` is about another figure
    than the sentence's, when the sentence's figure stands in them only in statements
    about something else (module docstring); None when there is none."""
    own = figures(sentence)
    if not own or not passages:
        return None
    pool = _Pool(passages)
    said = stated_numbers(sentence)
    heading = _SECTION_NUMBER.match(sentence)
    for figure in own:
        if heading and figure.start < heading.end():
            continue  # "4.1 Hardware requirements": which section, not a figure
        holders = {k for k, s in enumerate(pool.items) if figure.values & s.stated}
        if not holders:
            continue  # not stated at all: the number check's to say
        near = near_words(sentence, figure)
        if near and not any(
            near & near_words(pool.items[k].text, f)
            for k in holders
            for f in pool.items[k].figures
            if f.values & figure.values
        ):
            enough = min(len(near), AGREE)
            for k, f in _others(pool, holders, figure.kind, said):
                if len(near & near_words(pool.items[k].text, f)) >= enough:
                    return pool.items[k].text.strip()
        names = near_names(sentence, figure) & pool.all_names
        if names and not any(names <= pool.named[k] for k in holders):
            for k, f in _others(pool, holders, figure.kind, said):
                text = pool.items[k].text
                # its own names close to the figure: not a name pages before it
                by = near_names(text, f, 2 * NEAR) if pool.items[k].names else pool.named[k]
                if names <= by:
                    return text.strip()
    return None


def _others(
    pool: _Pool, holders: set[int], kind: str, said: set[str]
) -> Iterator[tuple[int, Figure]]:
    """The figures of ``kind`` that the statements other than ``holders`` give and the
    sentence does not state, with their statement's index."""
    for k, statement in enumerate(pool.items):
        if k not in holders:
            for f in statement.figures:
                if f.kind == kind and not f.values & said:
                    yield k, f
