"""Whether a sentence's figure is the one its passage gives for what the sentence is about.

The number check (``numbers.unstated_numbers``) asks whether a passage states a sentence's
numbers at all. A passage saying "The painter arrives on 1 June. Work ends on 15 June."
states every number of "Work ends on 1 June", and so did "Team A has a budget of 25,000.
Team B has a budget of 40,000." of "Team A's budget is 40,000" (QA, session 31): a small
model lifts a figure from the statement beside the one it is about.

``misplaced`` finds, for a sentence and the passages it is checked against, the
statement that gives the sentence's subject another figure, when the figure the sentence
states stands there only in statements about something else. A statement is a sentence
of a passage as ``evaluation.sentence_bounds`` splits it, a heading's line, a paragraph
and a list's item ending one whatever punctuation it lacks. A figure is a day of the year, a
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
  It has 5 people."). A sentence naming no one and stating one figure is read with the
  names of its summary section's heading (``about``).

``contradicted`` finds the statement a sentence says again with its sense turned:
negated, with a word of opposite sense, or with another name in a name's place.

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
from docent.core.queryterms import ENGLISH_SHARE, is_english, stopwords
from docent.core.summary_parts import LIST_ITEM

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
    """A passage reads as English: half ``queryterms.ENGLISH_SHARE`` is enough, a plan of
    lists and figures has few stopwords (0.16), German or French text next to none."""
    return is_english(words_of(passage), ENGLISH_SHARE / 2)


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
            elif LIST_ITEM.match(following):  # a list's item is a statement of its own
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
    # a section's heading is what a sentence is about when it names no one and states
    # one figure ("Go-live date: 15 September 2025." under "## Team Alpha"; not "...
    # EUR 184,500, the larger share of the total EUR 320,000")
    aside = bool(mine - about) or sum(f.kind != "year" for f in own) > 1
    if english is None:  # the passages', not the sentence's: German nouns are capitals
        english = all(_english(p) for p in passages)
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
        # the names beside the figure; a section's heading's for a sentence naming none
        # (a history's "Ian Murdock and the Founding" is not what its GNU line is about)
        names = near_names(sentence, figure) & known or (frozenset() if aside else about & known)
        names = names if english else frozenset()
        if names and all((h.named - mine) and not names <= h.named for h in holders):
            for i, s, f in others:
                # its own names close to the figure: not a name pages before it
                by = near_names(s.text, f, 2 * NEAR) if s.names else s.named
                if names <= by:
                    return i, s.text.strip()
    return None


def changed(sentence: str, passages: Sequence[str]) -> tuple[int, str] | None:
    """Which of ``passages`` (its index) gives what ``sentence`` is about another figure,
    when the sentence's figure stands in none of them, and that statement; None when none
    does. "The workstation has 24 GB of video memory" of "... a graphics card with 48 GB
    of video memory": the number check flags the sentence (no passage states 24), and
    this says what the passage gives instead. The statement has ``AGREE`` of the content
    words beside the sentence's figure beside a figure of the same kind the sentence
    does not state, and names no one the sentence does not; a table's rows (a statement
    of several lines) are not read, as ``misplaced`` does not read which row says what."""
    own = figures(sentence)
    if not own or not passages:
        return None
    pool = [
        (i, s) for i, passage in enumerate(passages) for s in statements(passage) if not s.lines
    ]
    said = stated_numbers(sentence)
    mine = names_in(sentence)
    heading = _SECTION_NUMBER.match(sentence)
    stated = frozenset().union(*(s.stated for p in passages for s in statements(p)))
    for figure in own:
        if (heading and figure.start < heading.end()) or figure.values & stated:
            continue  # a section's number; a figure they state (``misplaced``'s to judge)
        near = near_words(sentence, figure)
        if len(near) < AGREE:
            continue
        for i, s in pool:
            if s.named - mine:
                continue
            for f in s.figures:
                same = f.kind == figure.kind and not f.values & said
                if same and len(near & near_words(s.text, f)) >= AGREE:
                    return i, s.text.strip()
    return None


#: A negation: "did not deliver", "isn't", "never", "cannot", "neither ... nor" (one),
#: "without", "not enrolled", "rather than replacing it"; not "not only" (... but also).
#: A statement is negated by an odd number of them ("will not work without the key").
_NEGATION = re.compile(
    r"\bnot\b(?!\s+only\b)|n['’]t\b|\b(?:never|cannot|neither|without|unless|no\s+longer|rather\s+than|instead\s+of)\b",
    re.I,
)
#: What a negation in it does not turn: a bracket ("4095 bytes (not characters)") and a
#: contrast after a comma ("on time, not late"; review, session 32) that the other text
#: does not negate itself ("The project was not delivered late" says it).
_BRACKET = re.compile(r"\([^()]*\)")
_CONTRAST = re.compile(r",\s*not\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)\s*(?=[,.;!?]|$)", re.I)
#: A word made the negation of another by its prefix: "unmounted" is "not mounted".
_PREFIXES = ("un", "dis", "non", "in", "im")
#: Words of opposite sense: a sentence that says one where its statement says the other,
#: between the same words, says the opposite ("two weeks early" of "two weeks late").
_OPPOSITES = [
    ("early", "late"),
    ("before", "after"),
    ("earlier", "later"),
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
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("allowed", "forbidden"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("true", "false"),
    ("succeeded", "failed"),
    ("success", "failure"),
    ("included", "excluded"),
    ("won", "lost"),
    ("always", "never"),
    ("required", "optional"),
    ("mandatory", "optional"),
]
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in _OPPOSITES:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
#: A statement's clauses: a sentence that says one of them again is compared with it, not
#: with the whole ("The feature is enabled by default" of "... enabled by default, but
#: cannot be used offline").
_CLAUSE = re.compile(r"[,;:]\s+|\s+(?:and|but|while|whereas|although|though)\s+", re.I)
#: A clause is the one a sentence says again when they share this many content words at
#: least, and this share of the sentence's and of the clause's.
RESTATES_WORDS = 3
RESTATES_SHARE = 0.7


def contradicted(
    sentence: str, passages: Sequence[str]
) -> tuple[int, str, Literal["opposite", "name"]] | None:
    """Which of ``passages`` (its index) has the statement ``sentence`` says again with its
    sense turned, that statement, and how: "opposite" when one of the two is negated and
    the other not ("Norvik did not deliver the first batch" of "Norvik delivered the
    first batch ..."), or one says a word where the other says its opposite, between the
    same words ("two weeks early" of "two weeks late"), but not both (they cancel: "is
    not required" of "is optional"); "name" when the sentence names someone in the place
    of another the statement names, between the same content words ("Team Beta has
    spent EUR 97,300" of "Team Alpha has spent EUR 97,300"; QA, session 32).

    The sentence is compared with the clause of a statement, or the whole statement,
    that shares most of its content words (``RESTATES_WORDS`` at least, and
    ``RESTATES_SHARE`` of its own and of the sentence's), the one with fewest words
    besides among equals; when it says it as the sentence does, or none is near enough,
    None. A statement of several lines (a table's rows) is not read."""
    wanted = terms(sentence)
    if len(wanted) < RESTATES_WORDS or not passages:
        return None
    # (shared words, the part's own words less, passage, statement, verdict)
    near: list[tuple[int, int, int, str, Literal["opposite", "name"] | None]] = []
    for i, passage in enumerate(passages):
        for statement in statements(passage):
            if statement.lines:
                continue
            whole = statement.text.strip()
            for part in dict.fromkeys([whole, *_CLAUSE.split(whole)]):
                held = terms(part)
                shared = len(wanted & held)
                if shared >= RESTATES_WORDS and shared >= RESTATES_SHARE * max(
                    len(wanted), len(held)
                ):
                    near.append((shared, -len(held), i, whole, _turned(sentence, part)))
    if not near:
        return None
    # the part the sentence says again best decides: it holds most of the sentence's
    # words ("... two weeks early" is the whole statement's, not its first clause's), and
    # of those, fewest besides ("enabled by default" is the first clause's, not the
    # whole "... enabled by default, but cannot be used offline")
    best = max(near, key=lambda n: n[:2])
    if any(n[:2] == best[:2] and n[4] is None for n in near):
        return None
    return (best[2], best[3], best[4]) if best[4] is not None else None


def _turned(sentence: str, part: str) -> Literal["opposite", "name"] | None:
    """How ``sentence`` turns ``part`` of a statement it says again, or None."""
    negated = _negated(sentence, part) != _negated(part, sentence)
    mine, theirs = words_of(sentence), words_of(part)
    compared = "than" in mine and "than" in theirs  # "higher in Oslo than" = "lower ... than"
    opposed = not compared and any(
        other in theirs and word not in theirs and _same_place(mine, word, theirs, other)
        for word in mine
        for other in _OPPOSITE.get(word, ())
    )
    if negated and (_prefixed(mine, theirs) or _prefixed(theirs, mine)):
        negated = False  # "not mounted" is "unmounted"
    if negated != opposed:  # (both: "not required" of "optional" says the same)
        return "opposite"
    if negated:
        return None
    names, named = _swappable(sentence), _swappable(part)
    stop = stopwords()
    for name in names - named:
        for other in named - names:
            if other in mine:
                continue
            around = _neighbours(mine, name) & _neighbours(theirs, other)
            if any(w not in stop and w not in names | named for w in around):
                return "name"
    return None


def _negated(text: str, other: str) -> bool:
    """Whether ``text`` is negated (``_NEGATION``), ``other`` the text it is compared with."""
    said = set(words_of(other))
    text = _BRACKET.sub(" ", text)
    text = _CONTRAST.sub(
        lambda m: m.group() if set(words_of(m.group("what"))) <= said else " ", text
    )
    return len(_NEGATION.findall(text)) % 2 == 1


def _prefixed(words: list[str], other: list[str]) -> bool:
    """A word of ``words`` is one of ``other`` with a negating prefix ("unmounted" of
    "mounted")."""
    said = set(other)
    return any(
        w.startswith(p) and len(w) > len(p) + 3 and w[len(p) :] in said
        for w in words
        for p in _PREFIXES
    )


def _swappable(text: str) -> frozenset[str]:
    """The names of ``text`` but its first word: a verb opening a sentence ("Email Helga
    Brandt ...") is no name to swap."""
    first = re.match(r"\W*([^\W\d_]+)", text)
    return names_in(text) - {first.group(1).lower()} if first else names_in(text)


def _same_place(mine: list[str], word: str, theirs: list[str], other: str) -> bool:
    """``word`` of one text and ``other`` of another stand between the same words."""
    return bool(_neighbours(mine, word) & _neighbours(theirs, other))


def _neighbours(words: list[str], word: str) -> set[str]:
    """The words just before and after ``word`` in ``words`` (a possessive's "s"
    skipped)."""
    kept = [w for w in words if w != "s"]
    out: set[str] = set()
    for k, w in enumerate(kept):
        if w == word:
            out |= set(kept[max(0, k - 1) : k]) | set(kept[k + 1 : k + 2])
    return out
