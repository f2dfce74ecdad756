"""Evaluation: does retrieval cover a question, and is an answer supported by its passages.

Two parts with two owners, kept apart in this file:

- retrieval evaluation (``evaluate_retrieval``: keyword overlap, sufficient, confidence) —
  the retrieval issue (3) adds it here;
- answer faithfulness (below) — the answers issue (4): a support score per sentence of an
  answer against the passages it cites (against every passage offered when it cites none).

Faithfulness is deterministic term overlap: the share of a sentence's content words
(stopwords removed, light stemming) found in its passages. Sentences below
``SUPPORT_THRESHOLD`` are flagged. An optional LLM judge can replace the overlap score; a
judge reply that cannot be parsed scores 0 — it never counts as support.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from docent.core.citations import MARKER, cited_numbers, strip_markers
from docent.core.queryterms import content_words

# Faithfulness (answers issue) ------------------------------------------------

#: A sentence is supported when at least this share of its content words is in its passages.
SUPPORT_THRESHOLD = 0.5
#: Sentences with fewer content words than this ("Yes.", "In short:") are not judged.
MIN_TERMS = 2

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(\[*_`]?[A-Z0-9\[])")
_LEADING_MARKERS = re.compile(r"^(?:\s*" + MARKER.pattern + r")+")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|#{1,6})\s+")
_SUFFIXES = (("sses", "ss"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def stem(word: str) -> str:
    """Light suffix stripping so use/uses/used/using meet (not a linguistic stemmer)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: -len(suffix)] + repl
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


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
        for piece in _SENTENCE_END.split(line.strip()):
            lead = _LEADING_MARKERS.match(piece)
            if lead and out:
                out[-1] = f"{out[-1]} {lead.group(0).strip()}"
                piece = piece[lead.end() :]
            piece = piece.strip()
            if piece and terms(piece) | set(cited_numbers(piece)).difference(()):
                out.append(piece)
            elif piece and re.search(r"\w", piece):
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
    #: The valid passage numbers the sentence cites (empty: scored against all offered).
    cited: tuple[int, ...]
    score: float
    supported: bool
    #: False for sentences too short to judge (score 1.0, never flagged).
    judged: bool = True


@dataclass(slots=True)
class Faithfulness:
    sentences: list[SentenceSupport] = field(default_factory=list)

    @property
    def unsupported(self) -> list[str]:
        return [s.sentence for s in self.sentences if not s.supported]

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


def check_faithfulness(
    answer: str,
    passages: Mapping[int, str],
    *,
    threshold: float = SUPPORT_THRESHOLD,
    judge_scores: Sequence[float] | None = None,
) -> Faithfulness:
    """Score every sentence of ``answer`` against the passages it cites.

    ``passages`` maps the offered numbers to the text the model was shown. Numbers not in
    it are ignored (drop them first: ``citations.drop_invalid``). With ``judge_scores``
    (one per *judged* sentence, in order, from ``parse_judge``) those scores are used
    instead of term overlap.
    """
    result = Faithfulness()
    judge = list(judge_scores) if judge_scores is not None else None
    for sentence in split_sentences(answer):
        cited = tuple(n for n in cited_numbers(sentence) if n in passages)
        if len(terms(sentence)) < MIN_TERMS:
            result.sentences.append(SentenceSupport(sentence, cited, 1.0, True, judged=False))
            continue
        texts = [passages[n] for n in cited] if cited else list(passages.values())
        if judge is not None:
            score = judge.pop(0) if judge else 0.0
        else:
            score = support_score(sentence, texts)
        result.sentences.append(SentenceSupport(sentence, cited, score, score >= threshold))
    return result


def judged_sentences(answer: str) -> list[str]:
    """The sentences ``check_faithfulness`` scores, in order (what a judge must rate)."""
    return [s for s in split_sentences(answer) if len(terms(s)) >= MIN_TERMS]


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
