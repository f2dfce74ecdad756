"""Evaluation: is an answer supported by its passages.

The words of a sentence (``terms``), its term overlap with passages, the per-sentence
record (``SentenceSupport``) and the answer's confidence.
``attribution.py`` uses them to check and match citations; whether the passages found
cover a question at all is ``sufficiency.py``'s.

Term overlap is the share of a sentence's content words (stopwords removed, light
stemming) found in its passages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from docent.core import words
from docent.core.citations import MARKER, strip_markers
from docent.core.numbers import MONTH_NAMES, figures, spelled_numbers
from docent.core.queryterms import content_words

#: Without embeddings: supported at or above this share.
SUPPORT_THRESHOLD = 0.5
#: Sentences with fewer content words than this ("Yes.", "In short:") are not judged.
MIN_TERMS = 2

#: A sentence ends at a full stop, not an abbreviation's, before a capital, a digit or
#: a marker; or at a Chinese or Japanese full stop, with no space after it.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])" + words.NOT_ABBREVIATION + r"[\"'”’)]*\s+(?=[\"'“‘(\[*_`]?[A-Z0-9\[])"
    r"|" + words.CJK_SENTENCE_END
)
_LEADING_MARKERS = re.compile(r"^(?:\s*" + MARKER.pattern + r")+")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|#{1,6})\s+")
_SUFFIXES = (("sses", "ss"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def stem(word: str) -> str:
    """Light suffix stripping so use/uses/used/using meet (not a linguistic stemmer)."""
    if len(word) <= 2 or not word.isalpha():
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: -len(suffix)] + repl
            break
    return word[:-1] if word.endswith("e") and len(word) >= 3 else word


#: A word: letters and digits of any script; punctuation and underscores part words.
WORD = re.compile(r"[^\W_]+")


def words_of(text: str) -> list[str]:
    """A text's words in order, lower-cased, without punctuation."""
    return WORD.findall(text.lower())


def terms(text: str) -> set[str]:
    """Stemmed content words of ``text`` (citation markers and list bullets ignored)."""
    plain = _LIST_PREFIX.sub("", strip_markers(text))
    # a run of Chinese or Japanese as its character pairs: those scripts write no spaces,
    # so a whole sentence was one "word", never judged (fewer than MIN_TERMS)
    return {stem(p) for w in content_words(plain) for p in words.pieces(w)}


def split_sentences(text: str) -> list[str]:
    """Sentences and list items of an answer, each with the markers that follow it.

    A marker placed after the full stop (``... bytes. [1] Next ...``) belongs to the
    sentence before it, so it is moved back there.
    """
    out: list[str] = []
    for line in text.splitlines():
        bullet = _LIST_PREFIX.match(line)  # "1. Item." is one sentence, not "1." + "Item."
        prefix = bullet.group(0).strip() + " " if bullet else ""
        for i, piece in enumerate(_SENTENCE_END.split(line[bullet.end() if bullet else 0 :])):
            piece = prefix + piece.strip() if i == 0 else piece
            lead = _LEADING_MARKERS.match(piece)
            if lead and out:
                out[-1] = f"{out[-1]} {lead.group(0).strip()}"
                piece = piece[lead.end() :]
            piece = piece.strip()
            if re.search(r"\w", piece):
                out.append(piece)
    return out


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a passage in ``text`` itself, whitespace at its
    ends left out: split where ``split_sentences`` splits a line, line breaks inside a
    sentence kept (a passage's lines are the page's, not its sentences)."""
    out: list[tuple[int, int]] = []
    start = 0
    cuts = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(text)]
    for end, after in [*cuts, (len(text), len(text))]:
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if re.search(r"\w", body):
            out.append((start + lead, start + lead + len(body)))
        start = after
    return out


@dataclass(frozen=True, slots=True)
class Conflict:
    """A statement of an offered passage that an answer's sentence goes against."""

    #: The passage's number.
    passage: int
    #: The statement, its spaces collapsed.
    statement: str
    #: "figure": the sentence states a figure the passage gives only for something else,
    #: and this statement gives what the sentence is about another ("Work ends on 15
    #: June." of "Work ends on 1 June"); "opposite": the sentence says what this statement
    #: says, negated or with a word of opposite sense ("did not deliver", "early");
    #: "name": with another name in a name's place ("Team Beta has spent ..." of "Team
    #: Alpha has spent ..."); "changed": the sentence's figure stands in no passage, and
    #: this statement gives what it is about another ("48 GB of video memory" of "24 GB
    #: of video memory").
    kind: Literal["figure", "opposite", "name", "changed"]

    def note(self, sentence: str) -> str:
        """What Docent says of ``sentence`` going against this statement (the answer's
        notes: the window's footer, ``docent ask``, the export)."""
        said = shortened(" ".join(_LIST_PREFIX.sub("", strip_markers(sentence)).split()))
        said = said.rstrip(". ")
        n, statement = self.passage, shortened(self.statement, 120).rstrip(".")
        if self.kind == "figure":
            return (
                f"“{said}” states a figure that passage [{n}] gives for something else; "
                f"about this, it says “{statement}”."
            )
        if self.kind == "changed":
            return f"“{said}” gives another figure than passage [{n}], which says “{statement}”."
        if self.kind == "name":
            return f"“{said}” names another than passage [{n}] does, which says “{statement}”."
        return f"“{said}” says the contrary of passage [{n}], which says “{statement}”."


def shortened(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut at a word to about ``limit`` characters ("... …")."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + " …"


@dataclass(frozen=True, slots=True)
class SentenceSupport:
    sentence: str
    #: The valid passage numbers the model cited in the sentence.
    cited: tuple[int, ...]
    score: float
    supported: bool
    #: False for sentences too short to judge (score 1.0, never flagged).
    judged: bool = True
    #: The passage Docent matched to a sentence the model left uncited.
    matched: int | None = None
    #: Another passage that clearly supports a sentence its citation does not.
    better: int | None = None
    #: Of a supported sentence, the parts its passage does not say, as written: what it
    #: goes on with past the words it copies ("Dh ... was introduced in 2008 as a CDBS
    #: killer, *and is not available anymore*"). Empty when the passage says all of it.
    unsaid: tuple[str, ...] = ()
    #: Of an unsupported sentence, the statement of a passage it goes against
    #: (``binding``): one giving what the sentence is about another figure, or saying
    #: the opposite of it.
    conflict: Conflict | None = None


@dataclass(slots=True)
class Faithfulness:
    sentences: list[SentenceSupport] = field(default_factory=list)

    @property
    def unsupported(self) -> list[str]:
        """Sentences no passage clearly supports, each listed once."""
        return list(dict.fromkeys(s.sentence for s in self.sentences if not s.supported))

    @property
    def uncited(self) -> list[str]:
        """The unsupported sentences that carry no citation: no offered passage supports
        them (the rest are not clearly supported by the passage they cite)."""
        return list(
            dict.fromkeys(
                s.sentence
                for s in self.sentences
                if not s.supported and not s.cited and s.matched is None
            )
        )

    @property
    def conflicts(self) -> list[tuple[str, Conflict]]:
        """(sentence, conflict) of each unsupported sentence that goes against a statement
        of its passage, each once."""
        found = {
            (s.sentence, s.conflict): None for s in self.sentences if s.conflict and not s.supported
        }
        return list(found)

    @property
    def unsaid(self) -> list[str]:
        """The parts of supported sentences that their passages do not say, each once."""
        return list(dict.fromkeys(p for s in self.sentences if s.supported for p in s.unsaid))

    @property
    def pairs(self) -> list[tuple[str, float]]:
        """(sentence, support) of each judged sentence: one too short to judge ("3)",
        "At dusk.") has no score of its own (1.0 in ``sentences``, never flagged)."""
        return [(s.sentence, round(s.score, 3)) for s in self.judged]

    @property
    def judged(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.judged]

    @property
    def unsupported_share(self) -> float:
        judged = self.judged
        return sum(not s.supported for s in judged) / len(judged) if judged else 0.0


_LEVELS = ("low", "medium", "high")
#: A short, uncited answer saying this is the model abstaining (as its prompt asks).
_NOT_FOUND = re.compile(
    # the model as the subject ("If you cannot see the menu, hold reset" is an answer)
    r"\b(?:I|we)(?:['’]m| am| was| were| have been| had been)?"
    r" (?:(?:could|can|did|do)(?: ?not|n['’]t|['’]t)|unable to) (?:find|see|locate)\b"
    r"|^(?:unable to|(?:could|can)(?: ?not|n['’]t)) (?:find|locate)\b"
    # the passages as the place, not a folder of that name ("not found in the documents
    # folder, reinstall" is an answer)
    r"|\bnot (?:mentioned|covered|found|stated|given) in the (?:provided |given )?"
    r"(?:passages|documents|text)\b(?!\s+(?:folders?|director(?:y|ies)|files?|menus?|tabs?|lists?)\b)"
    r"|\b(?:passages|documents) do(?:es)?(?: not|n['’]t) (?:contain|mention|say|cover)\b"
    # German, French, Spanish, Chinese, the documents as the subject ("Der Kessel enthält
    # keinen Filter" is an answer): "Die Dokumente enthalten dazu keine Angaben", "nicht
    # gefunden", "les documents ne mentionnent pas", "no se menciona", "没有找到"
    r"|\b(?:dokumente?|texte?|passagen|abschnitte?|quellen|unterlagen)\b[^.]{0,30}"
    r"\b(?:enthalten|enthält|nennen|nennt|erwähnen|erwähnt|sagen|sagt)\b[^.]{0,30}"
    r"\b(?:keine?n?|nichts)\b"
    r"|\bnicht (?:gefunden|erwähnt|angegeben)\b"
    r"|\b(?:documents?|passages?|textes?|extraits?) ne (?:contiennent|contient|mentionnent"
    r"|mentionne|disent|dit|précisent|précise) (?:pas|rien)\b"
    r"|\bn['’]est pas (?:mentionnée?|indiquée?|précisée?)\b|\bpas trouvé\b"
    r"|\bno se (?:menciona|encuentra|indica|especifica)\b|\bno (?:encontré|he encontrado)\b"
    r"|没有(?:找到|提到|提及)|未(?:提及|提到|找到)",
    re.I,
)


def says_not_found(answer: str) -> bool:
    """True for a short answer that says the passages do not hold the answer (the answer
    is an abstention only when no sentence of it is found in a passage, too: "Wenn das
    Gerät nicht gefunden wird, ..." is an instruction)."""
    return len(answer) <= 400 and bool(_NOT_FOUND.search(answer.strip()))


#: A question that asks for a quantity: "How many parking spaces ...", "How much does it
#: cost", "What percentage of ...".
_ASKS_QUANTITY = re.compile(
    r"\bhow\s+(?:many|much)\b(?!.*\bmatters?\b)|\bwhat\s+(?:percentage|proportion|number\s+of)\b",
    re.I,
)


_UNIT_FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?[a-zA-Z]{1,3}\b")
_COUNT = re.compile(
    r"\b(?:no|none|zero|nothing|nobody|free|dozens?|twice|once|thrice|half|double|single)\b",
    re.I,
)


#: A word that makes the figure after it a year ("in 2019", "since 1998", "until 2030",
#: "10 November 2025").
_WHEN_BEFORE = re.compile(
    r"\b(?:in|since|from|until|till|before|after|during|circa|year|early|late|mid"
    r"|spring|summer|autumn|fall|winter|" + "|".join(sorted(MONTH_NAMES)) + r")\.?[\s,-]*$",
    re.I,
)


def gives_no_number(question: str, answer: str) -> bool:
    """Whether ``question`` asks how many or how much and ``answer`` states no number, in
    figures or in words; a date or a year is no count, and its citation markers and page
    references are none: "How many parking spaces does the Aire Building have?" answered
    with the day the office moves there was medium confidence (QA, session 32)."""
    if not _ASKS_QUANTITY.search(question):
        return False
    text = strip_markers(answer)
    # a year-like figure is a count unless a word of time leads it: "2000 employees"
    # (review, session 35), not "in 2019"
    counts = [
        f
        for f in figures(text)
        if f.kind == "number" or (f.kind == "year" and not _WHEN_BEFORE.search(text, 0, f.start))
    ]
    # a figure joined to its unit ("512MB", "97k") is one too, and "no", "none", "free",
    # "a dozen", "twice" are counts in words (review, session 32)
    return not (counts or spelled_numbers(text) or _UNIT_FIGURE.search(text) or _COUNT.search(text))


def answer_confidence(
    retrieval: str,
    faith: Faithfulness,
    *,
    cited: bool,
    invalid: bool,
    partial: bool,
    matched_only: bool = False,
    no_number: bool = False,
) -> str:
    """Retrieval's confidence (medium when unknown), lowered for what the checks found:
    low with no citation or over 2/3 of sentences unsupported; one step down each for over
    1/3 unsupported, citations never offered, an incomplete or cut answer, citations
    that Docent matched when the model cited nothing itself, no number given to a
    question asking how many (``gives_no_number``), and a sentence going against its
    passage (``Faithfulness.conflicts``: "high confidence" over "...gives another figure
    than passage [1]", QA-78)."""
    level = _LEVELS.index(retrieval) if retrieval in _LEVELS else 1
    if not cited or faith.unsupported_share > 2 / 3:
        return "low"
    level -= (faith.unsupported_share > 1 / 3) + invalid + partial + matched_only + no_number
    level -= bool(faith.conflicts)
    return _LEVELS[max(0, level)]
