"""Evaluation: does retrieval cover a question, and is an answer supported by its passages.

Two parts with two owners, kept apart in this file:

- retrieval evaluation (``evaluate_retrieval``: keyword overlap, sufficient, confidence) —
  the retrieval issue (3) adds it here;
- answer faithfulness (below): the words of a sentence (``terms``), its term overlap with
  passages, the per-sentence record (``SentenceSupport``), the answer's confidence and
  the optional LLM judge. ``attribution.py`` uses them to check and match citations.

Term overlap is the share of a sentence's content words (stopwords removed, light
stemming) found in its passages. An optional LLM judge can decide support instead; a
judge reply that cannot be parsed scores 0 — it never counts as support.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from docent.core.citations import MARKER, strip_markers
from docent.core.models import Hit
from docent.core.queryterms import content_words

# Faithfulness (answers issue) ------------------------------------------------

#: Without embeddings (or for a judge's score): supported at or above this share.
SUPPORT_THRESHOLD = 0.5
#: Sentences with fewer content words than this ("Yes.", "In short:") are not judged.
MIN_TERMS = 2

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(\[*_`]?[A-Z0-9\[])")
_LEADING_MARKERS = re.compile(r"^(?:\s*" + MARKER.pattern + r")+")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|#{1,6})\s+")
_SUFFIXES = (("sses", "ss"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


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


def terms(text: str) -> set[str]:
    """Stemmed content words of ``text`` (citation markers and list bullets ignored)."""
    plain = _LIST_PREFIX.sub("", strip_markers(text))
    return {stem(w) for w in content_words(plain)}


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


def support_score(sentence: str, passages: Iterable[str]) -> float:
    """Share (0–1) of the sentence's content words that occur in ``passages``."""
    wanted = terms(sentence)
    if not wanted:
        return 1.0
    have: set[str] = set()
    for passage in passages:
        have |= terms(passage)
    return len(wanted & have) / len(wanted)


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
    def pairs(self) -> list[tuple[str, float]]:
        return [(s.sentence, round(s.score, 3)) for s in self.sentences]

    @property
    def judged(self) -> list[SentenceSupport]:
        return [s for s in self.sentences if s.judged]

    @property
    def unsupported_share(self) -> float:
        judged = self.judged
        return sum(not s.supported for s in judged) / len(judged) if judged else 0.0


def judged_sentences(answer: str) -> list[str]:
    """The sentences ``check_faithfulness`` scores, in order (what a judge must rate)."""
    return [s for s in split_sentences(answer) if len(terms(s)) >= MIN_TERMS]


_LEVELS = ("low", "medium", "high")
#: A short, uncited answer saying this is the model abstaining (as its prompt asks).
_NOT_FOUND = re.compile(
    r"\b(?:(?:could|can|did|do)(?: ?not|n['’]t|['’]t)|unable to) (?:find|see|locate)\b"
    r"|\bnot (?:mentioned|covered|found|stated|given) in the (?:passages|documents|text)\b"
    r"|\b(?:passages|documents) do(?:es)?(?: not|n['’]t) (?:contain|mention|say|cover)\b",
    re.I,
)


def says_not_found(answer: str) -> bool:
    """True for a short answer that says the passages do not hold the answer."""
    return len(answer) <= 400 and bool(_NOT_FOUND.search(answer))


def answer_confidence(
    retrieval: str,
    faith: Faithfulness,
    *,
    cited: bool,
    invalid: bool,
    partial: bool,
    matched_only: bool = False,
) -> str:
    """Retrieval's confidence (medium when unknown), lowered for what the checks found:
    low with no citation or over 2/3 of sentences unsupported; one step down each for over
    1/3 unsupported, citations never offered, an incomplete or cut answer, and citations
    that Docent matched when the model cited nothing itself."""
    level = _LEVELS.index(retrieval) if retrieval in _LEVELS else 1
    if not cited or faith.unsupported_share > 2 / 3:
        return "low"
    level -= (faith.unsupported_share > 1 / 3) + invalid + partial + matched_only
    return _LEVELS[max(0, level)]


# Optional LLM judge -----------------------------------------------------------

_JUDGE_SYSTEM = (
    "You check whether statements are supported by numbered passages. For each statement, "
    "reply with its number and a score from 0 to 1: 1 if the passages state it, 0 if they "
    "do not. One line per statement, like `1: 0.8`. Write nothing else."
)
_JUDGE_LINE = re.compile(r"^\s*(?:statement\s*)?(\d{1,3})\s*[:.)=\-]\s*(.+?)\s*$", re.I)
_WORD_SCORES = {"yes": 1.0, "supported": 1.0, "true": 1.0, "partial": 0.5, "partly": 0.5}


def judge_messages(sentences: Sequence[str], passages: Mapping[int, str]) -> list[dict[str, str]]:
    listed = "\n".join(f"[{n}] {' '.join(text.split())}" for n, text in passages.items())
    statements = "\n".join(f"{i}. {strip_markers(s)}" for i, s in enumerate(sentences, 1))
    user = f"Passages:\n{listed}\n\nStatements:\n{statements}"
    return [{"role": "system", "content": _JUDGE_SYSTEM}, {"role": "user", "content": user}]


def _judge_value(raw: str) -> float:
    word = raw.strip().strip("*`'\".").lower()
    if word in _WORD_SCORES:
        return _WORD_SCORES[word]
    m = re.match(r"^(\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*1\b)?", word)
    if not m:
        return 0.0
    value = float(m.group(1))
    unit = (m.group(2) or "").replace(" ", "")
    value = value / 100 if unit == "%" else value / 10 if unit == "/10" else value
    return value if 0.0 <= value <= 1.0 else 0.0


def parse_judge(output: str, count: int) -> list[float]:
    """Scores for statements 1..count from a judge's reply; anything unreadable is 0."""
    scores = [0.0] * count
    for line in output.splitlines():
        m = _JUDGE_LINE.match(line)
        if m and 1 <= int(m.group(1)) <= count:
            scores[int(m.group(1)) - 1] = _judge_value(m.group(2))
    return scores


# Retrieval evaluation (retrieval issue 3) -------------------------------------------
#
# ``evaluate_retrieval`` judges the hits of a search before any answer is written:
# keyword overlap (stemmed content words of the question found in the top hits and their
# neighbour context), the cosine similarity of the closest hit (when retrieval measured
# it), and exact terms of the question the library never mentions. Answers abstain on
# ``sufficient=False``.

#: Hits looked at: the ones an answer would most likely cite.
TOP_HITS = 5
#: Cosine similarity (MiniLM) of the best hit at or above which it is clearly on topic.
HIGH_SIMILARITY = 0.55
#: Below this the best hit is only loosely related to the question.
LOW_SIMILARITY = 0.35
#: Share of the question's content words found in the top hits.
HIGH_OVERLAP = 0.6
LOW_OVERLAP = 0.3
#: Share of the top hits from one document at which "scope to it" is suggested.
CONCENTRATION = 0.8
_WORD = re.compile(r"[^\W_]+")


@dataclass(slots=True)
class RetrievalEvaluation:
    #: Share (0-1) of the question's content words present in the top hits.
    keyword_overlap: float
    sufficient: bool
    confidence: str  # "high" | "medium" | "low"
    issues: list[str] = field(default_factory=list)
    recommendation: str = ""
    #: Cosine similarity of the closest hit, when retrieval measured it.
    top_similarity: float | None = None


def _word_stems(word: str) -> list[str]:
    """``is.na`` or ``PDP-11`` are present when each of their parts is."""
    return [stem(p) for p in re.split(r"[^\w]+|_", word.lower()) if p]


def keyword_overlap(question: str, hits: Sequence[Hit]) -> tuple[float, list[str]]:
    """The share of the question's content words found in ``hits`` (context included),
    and the words missing."""
    words = list(dict.fromkeys(content_words(question)))
    if not words:
        return 1.0, []
    raw: set[str] = set()
    for h in hits:
        for text in (h.text, h.context_before, h.context_after):
            raw.update(_WORD.findall(text.lower()))
    present = {stem(w) for w in raw}  # each distinct word stemmed once
    missing = [w for w in words if not all(s in present for s in _word_stems(w))]
    return (len(words) - len(missing)) / len(words), missing


def _top_similarity(hits: Sequence[Hit]) -> float | None:
    values = [h.debug.get("similarity") for h in hits]
    sims = [float(v) for v in values if isinstance(v, int | float)]
    return max(sims) if sims else None


def _suggest_term(question: str, hits: Sequence[Hit]) -> str:
    """The word the top hits use most that the question does not: a term to rephrase with."""
    asked = {stem(w) for w in content_words(question)}
    counts: Counter[str] = Counter()
    for h in hits[:3]:
        for w in content_words(h.text):
            if w.isalpha() and len(w) > 3 and stem(w) not in asked:
                counts[w] += 1
    return counts.most_common(1)[0][0] if counts else ""


def evaluate_retrieval(
    question: str, hits: Sequence[Hit], absent_terms: Sequence[str] = ()
) -> RetrievalEvaluation:
    """Can these hits answer ``question``?

    ``absent_terms``: exact terms of the question (names, identifiers, quoted phrases)
    that no chunk in the searched scope contains; retrieval finds them with the text index.
    """
    top = list(hits[:TOP_HITS])
    if not any(ch.isalnum() for ch in question):
        # Whatever came back matched no words: it is no evidence (the passages of an
        # empty query are close to everything and nothing).
        return RetrievalEvaluation(
            0.0, False, "low", ["the question has no words"], "Ask a question in words."
        )
    if not top:
        return RetrievalEvaluation(
            0.0,
            False,
            "low",
            ["nothing was found"],
            "Index documents that cover this, or widen the scope.",
        )
    overlap, missing = keyword_overlap(question, top)
    sim = _top_similarity(top)
    absent = list(dict.fromkeys(absent_terms))
    issues: list[str] = []
    if absent:
        issues.append("the documents searched never mention " + ", ".join(f"'{t}'" for t in absent))
    if missing:
        issues.append("not in the passages found: " + ", ".join(missing[:6]))
    if sim is not None and sim < LOW_SIMILARITY:
        issues.append(f"the closest passage is only loosely related (similarity {sim:.2f})")
    points = 2 if overlap >= HIGH_OVERLAP else (1 if overlap >= LOW_OVERLAP else 0)
    if sim is None:
        points += 1
    else:
        points += 2 if sim >= HIGH_SIMILARITY else (1 if sim >= LOW_SIMILARITY else 0)
    points -= 2 * bool(absent)
    confidence = "high" if points >= 4 else ("medium" if points >= 2 else "low")
    return RetrievalEvaluation(
        keyword_overlap=round(overlap, 3),
        sufficient=confidence != "low",
        confidence=confidence,
        issues=issues,
        recommendation=_recommend(question, top, confidence, absent, missing),
        top_similarity=sim,
    )


def _recommend(
    question: str,
    top: Sequence[Hit],
    confidence: str,
    absent: Sequence[str],
    missing: Sequence[str],
) -> str:
    files = Counter(h.file_name for h in top)
    name, n = files.most_common(1)[0]
    if absent and confidence == "low":
        return (
            f"The documents searched never mention '{absent[0]}': add one that covers it, "
            "widen the scope, or rephrase with the words your documents use."
        )
    if confidence == "low":
        term = _suggest_term(question, top)
        hint = f" such as '{term}'" if term else ""
        return f"Rephrase with the terms your documents use{hint}, or widen the scope."
    if len(files) > 1 and n / len(top) >= CONCENTRATION:
        return f"Most passages come from {name}: scope the question to it to see more of it."
    if missing and confidence == "medium":
        term = _suggest_term(question, top)
        hint = f" (they say '{term}')" if term else ""
        word = max(missing, key=len)  # the longest is usually the most specific
        return (
            f"The passages found never say '{word}'{hint}: rephrasing with the "
            "documents' own words, or scoping to a file, may find a closer passage."
        )
    return ""
