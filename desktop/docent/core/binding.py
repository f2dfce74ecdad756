"""Whether a sentence's figure is the one its passage gives for what the sentence is about.

The number check (``numbers.unstated_numbers``) asks whether a passage states a sentence's
numbers at all. A passage saying "The painter arrives on 1 June. Work ends on 15 June."
states every number of "Work ends on 1 June", and so did "Team A has a budget of 25,000.
Team B has a budget of 40,000." of "Team A's budget is 40,000" (QA, session 31): a small
model lifts a figure from the statement beside the one it is about.

``misplaced`` finds, for a sentence and the passages it is checked against, the
statement that gives the sentence's subject another figure, when the figure the sentence
states stands there only in statements about something else. A statement is a sentence
of a passage as ``evaluation.sentence_bounds`` splits it, a heading's line and a
paragraph ending one whatever punctuation it lacks. A figure is a day of the year, a
year or another number (``numbers.figures``); the other figure must be of the same kind
and one the sentence does not state:

- **words**: no statement giving the figure has, among the ``NEAR`` content words either
  side of it, one the sentence has beside its figure; another statement has ``AGREE`` of
  them beside a figure of its own, and names no one the sentence does not ("Work ends on
  15 June" for "Work ends on 1 June", not "The painter arrives on 1 June");
- **names** (English only: German writes every noun with a capital): the sentence names
  names beside its figure that the passages name too ("Team A", "Helga"); every
  statement giving the figure names someone the sentence never names, and none names
  them all; another statement that names them all gives another figure (a statement
  naming no one is read with the last one before it that does: "Helga leads the team.
  It has 5 people.").

A statement of several lines that gives the figure (a table's rows, a list) clears it:
which row says what is not read. Only ever a reason to flag: a sentence none of whose
figures is placed elsewhere is judged as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from docent.core.evaluation import WORD, sentence_bounds, stem, terms, words_of
from docent.core.numbers import MONTH_NAMES, WEEKDAY_NAMES, Figure, figures, stated_numbers
from docent.core.queryterms import is_english, stopwords

#: Content words either side of a figure that say what it is of (and words, stopwords
#: aside, either side in which the names beside it are looked for).
NEAR = 4
#: Of those, how many another statement's figure must have too for the sentence to be
#: about it: "The project concludes on 15 June" is not about "The project starts on 5
#: April" for sharing "project", nor "The salary is 50,000" about "The salary of her
#: deputy is 42,000" for sharing "salary" (review, session 32).
AGREE = 2

#: A Markdown heading's line: "## Budget".
_HEADING = re.compile(r"[ \t]*#{1,6}\s")
#: A list's item: "- Budget: ...", "* ...", "• ...", "2. ...".
_BULLET = re.compile(r"(?:[-*+•]|\d{1,2}[.)])\s")
#: A list's item after a sentence on the same line.
_JOINED_ITEM = re.compile(r"(?<=[.!?])[ \t]+(?=[-*•][ \t])")
#: A section's number opening a sentence: "4.1 Hardware requirements".
_SECTION_NUMBER = re.compile(r"\W*\d+(?:\.\d+)+\.?\s+(?=[A-Z])")
#: Words of when, not of what nor whose.
_WHEN_WORDS = MONTH_NAMES | WEEKDAY_NAMES
#: A word that may be a name's: letters of any script, an apostrophe's "s" after them.
_WORDISH = re.compile(r"(?<![\w'’-])[^\W\d_][^\W_]*(?:['’]s)?(?![\w-])")
_POSSESSIVE = re.compile(r"['’]s?$")
#: A line that ends no sentence: a heading's ("Renovation plan" over its text), when it
#: is short, its last word no stopword and the next line opens with a capital.
_HEADING_WORDS = 8


@dataclass(frozen=True, slots=True)
class _Statement:
    """A sentence of a passage, with its figures, the numbers it states and its names."""

    text: str
    figures: tuple[Figure, ...]
    stated: frozenset[str]
    names: frozenset[str]
    #: Its own names, or those of the last statement before it in its passage naming any.
    named: frozenset[str]

    @property
    def lines(self) -> bool:
        return "\n" in self.text.strip()


@functools.lru_cache(maxsize=512)
def statements(passage: str) -> tuple[_Statement, ...]:
    """A passage's statements in order (module docstring), parsed once per passage text:
    the check asks about the same passages for every sentence of an answer."""
    out: list[_Statement] = []
    before: frozenset[str] = frozenset()
    for part in _paragraphs(passage):
        for a, b in sentence_bounds(part):
            text = part[a:b]
            names = names_in(text)
            before = names or before
            out.append(
                _Statement(
                    text, tuple(figures(text)), frozenset(stated_numbers(text)), names, before
                )
            )
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _english(passage: str) -> bool:
    return is_english(words_of(passage))


def _paragraphs(passage: str) -> list[str]:
    """A passage's paragraphs, its headings' lines apart: a Markdown heading's, and a
    short line ending no sentence over one opening with a capital ("Renovation plan"),
    without figures or a table's bars; and each item of a list."""
    stop = stopwords()
    parts: list[str] = []
    # a list the chunker joined into one line ("... warehouses. - Budget: ...") is a list
    passage = _JOINED_ITEM.sub("\n", passage)
    for paragraph in re.split(r"\n[ \t]*\n", passage):
        lines = paragraph.split("\n")
        start = 0
        for i, line in enumerate(lines):
            following = lines[i + 1].lstrip() if i + 1 < len(lines) else ""
            words = words_of(line)
            titled = (
                0 < len(words) <= _HEADING_WORDS
                and not re.search(r"[\d|]|[.,;:!?)\]]\s*$", line)  # (no table's row)
                and words[-1] not in stop
                and following[:1].isupper()
            )
            if _HEADING.match(line) or titled:
                parts += ["\n".join(lines[start:i]), line]
                start = i + 1
            elif _BULLET.match(following):  # a list's item is a statement of its own
                parts.append("\n".join(lines[start : i + 1]))
                start = i + 1
        parts.append("\n".join(lines[start:]))
    return [p for p in parts if p.strip()]


def names_in(text: str) -> frozenset[str]:
    """The names a sentence writes, lower-cased (``_name_spans``)."""
    return frozenset(name for _, _, name in _name_spans(text))


def _name_spans(text: str) -> list[tuple[int, int, str]]:
    """Where a sentence writes names, and each lower-cased: words of a capital and small
    letters ("Helga", "Müller") or a capital alone ("Team B") after its first word, the
    first word too when a name or a possessive follows it ("Helga Brandt", "Helga's");
    not codes in capitals ("RAM") nor units ("GiB", "MHz"), which say what a figure
    counts, not whose it is; not months, weekdays, stopwords ("The", "If": a line of a
    passage may open with one), nor "I"."""
    out: list[tuple[int, int, str]] = []
    caps = [m for m in _WORDISH.finditer(text) if _capitalised(_POSSESSIVE.sub("", m.group()))]
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


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and (len(word) == 1 or word[1:].islower())


@functools.lru_cache(maxsize=8192)  # (a passage's statements are asked for every sentence)
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


@functools.lru_cache(maxsize=8192)
def near_names(text: str, figure: Figure, reach: int = NEAR) -> frozenset[str]:
    """The names written within ``reach`` words either side of a figure of ``text``,
    stopwords in small letters and a possessive's "s" not counted ("Team A has a budget
    of 40,000": "Team A" is beside it)."""
    stop = stopwords()

    def counted(m: re.Match[str]) -> bool:
        word = m.group()
        return not (word.islower() and (word in stop or word == "s"))

    before = [m.start() for m in WORD.finditer(text, 0, figure.start) if counted(m)][-reach:]
    after = [m.end() for m in WORD.finditer(text, figure.end) if counted(m)][:reach]
    start = before[0] if before else figure.start
    end = after[-1] if after else figure.end
    return frozenset(name for a, b, name in _name_spans(text) if a >= start and b <= end)


def misplaced(
    sentence: str,
    passages: Sequence[str],
    about: frozenset[str] = frozenset(),
    english: bool | None = None,
) -> tuple[int, str] | None:
    """Which of ``passages`` (its index) gives what ``sentence`` is about another figure
    than the sentence's, when the sentence's figure stands in them only in statements
    about something else, and that statement (module docstring); None when none does.
    ``about``: names the sentence is about without writing them (a summary's list item
    under "## Team Alpha"); ``english``: whether the text is English, when its writer
    knows better than the sentence and passages tell (a summary, as a whole)."""
    own = figures(sentence)
    if not own or not passages:
        return None
    pool = [(i, s) for i, passage in enumerate(passages) for s in statements(passage)]
    said = stated_numbers(sentence)
    mine = names_in(sentence) | about
    # (a passage of lists and figures has few stopwords: the sentence tells too)
    if english is None:
        english = is_english(words_of(sentence)) or all(_english(p) for p in passages)
    known: frozenset[str] = frozenset().union(*(s.names for _, s in pool))
    heading = _SECTION_NUMBER.match(sentence)
    for figure in own:
        if heading and figure.start < heading.end():
            continue  # "4.1 Hardware requirements": which section, not a figure
        holders = [s for _, s in pool if figure.values & s.stated]
        if not holders or any(s.lines for s in holders):
            continue  # not stated at all (the number check's to say), or in a table
        held = {id(h) for h in holders}
        others = [
            (i, s, f)
            for i, s in pool
            if id(s) not in held
            for f in s.figures
            if f.kind == figure.kind and not f.values & said
        ]
        near = near_words(sentence, figure)
        if len(near) >= AGREE and not any(
            near & near_words(h.text, f)
            for h in holders
            for f in h.figures
            if f.values & figure.values
        ):
            for i, s, f in others:
                if len(near & near_words(s.text, f)) >= AGREE and not s.named - mine:
                    return i, s.text.strip()
        names = (near_names(sentence, figure) | about) & known if english else frozenset()
        if names and all((h.named - mine) and not names <= h.named for h in holders):
            for i, s, f in others:
                # its own names close to the figure: not a name pages before it
                by = near_names(s.text, f, 2 * NEAR) if s.names else s.named
                if names <= by:
                    return i, s.text.strip()
    return None


#: A verb negated: the statement does not hold ("did not deliver", "is not", "isn't",
#: "never", "cannot", "no longer"). Not "no file" nor "(not characters)": a determiner
#: or a contrast, not the statement turned (review of the tests, session 32).
_NEGATION = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|shall|should|"
    r"must|may|might)\s+not\b|n['’]t\b|\b(?:never|cannot|no\s+longer)\b",
    re.I,
)
#: Words of opposite sense: a sentence that says one where its statement says the other
#: says the opposite ("two weeks early" of "two weeks late").
_OPPOSITES = [
    ("early", "late"),
    ("earlier", "later"),
    ("before", "after"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("above", "below"),
    ("maximum", "minimum"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("faster", "slower"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("allowed", "forbidden"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("true", "false"),
    ("succeeded", "failed"),
    ("success", "failure"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("won", "lost"),
    ("ahead", "behind"),
    ("always", "never"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("open", "closed"),
    ("first", "last"),
]
_OPPOSITE = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
#: A statement is the one a sentence says again when they share this many content words
#: at least, this share of the sentence's ...
RESTATES_WORDS = 3
RESTATES_SENTENCE = 0.6
#: ... and this share of the statement's.
RESTATES_STATEMENT = 0.5


def contradicted(
    sentence: str, passages: Sequence[str]
) -> tuple[int, str, Literal["opposite", "name"]] | None:
    """Which of ``passages`` (its index) has the statement ``sentence`` says again with
    its sense turned, that statement, and how: "opposite" when one of the two is negated
    and the other not ("Norvik did not deliver the first batch" of "Norvik delivered the
    first batch ..."), or one says a word where the other says its opposite ("two weeks
    early" of "two weeks late"); "name" when the sentence names someone in the place of
    another the statement names, between the same words ("Team Beta has spent EUR 97,300"
    of "Team Alpha has spent EUR 97,300"; QA, session 32). A statement of several lines
    (a table's rows, a list) is not read. The statement is one sharing ``RESTATES_WORDS``
    content words with the sentence, ``RESTATES_SENTENCE`` of the sentence's and
    ``RESTATES_STATEMENT`` of its own; when any such statement says it as the sentence
    does, or the sentence shares no words with any statement so, None."""
    wanted = terms(sentence)
    if len(wanted) < RESTATES_WORDS or not passages:
        return None
    said = set(words_of(sentence))
    negated = bool(_NEGATION.search(sentence))
    names = names_in(sentence)
    found: tuple[int, str, Literal["opposite", "name"]] | None = None
    for i, passage in enumerate(passages):
        for statement in statements(passage):
            if statement.lines:
                continue  # a table's rows or a list's items: which says what is not read
            held = terms(statement.text)
            shared = wanted & held
            if (
                len(shared) < RESTATES_WORDS
                or len(shared) < RESTATES_SENTENCE * len(wanted)
                or len(shared) < RESTATES_STATEMENT * len(held)
            ):
                continue
            words = set(words_of(statement.text))
            turned = negated != bool(_NEGATION.search(statement.text)) or any(
                _OPPOSITE.get(w) in words and w not in words and _OPPOSITE[w] not in said
                for w in said
                if w in _OPPOSITE
            )
            swapped = any(
                _neighbours(sentence, mine) & _neighbours(statement.text, theirs)
                for mine in names - statement.names
                for theirs in (statement.names - names) - said
            )
            if not turned and not swapped:
                return None  # the sentence says what this statement says
            if found is None:
                found = (i, statement.text.strip(), "opposite" if turned else "name")
    return found


def _neighbours(text: str, name: str) -> set[str]:
    """The words just before and after ``name`` in ``text``, lower-cased (a possessive's
    "s" skipped): a name in another's place has its neighbours ("Team Beta has" of "Team
    Alpha has")."""
    words = [w for w in words_of(text) if w != "s"]
    out: set[str] = set()
    for k, word in enumerate(words):
        if word == name:
            out |= set(words[max(0, k - 1) : k]) | set(words[k + 1 : k + 2])
    return out
