"""Sufficiency: can the passages a search found answer the question?

``evaluate_retrieval`` judges the hits of a search before any answer is written:

- keyword overlap: stemmed content words of the question found in the top hits and their
  neighbour context;
- the cosine similarity of the closest hit (when retrieval measured it);
- exact terms of the question the library never mentions;
- names of the question (``Google``, ``Vega-Lite``: written with a capital, not as its
  first word) that no top passage, neighbour or heading holds: the passages are about
  something else (low; the library may still mention the name elsewhere);
- uncovered words (when retrieval passes ``gain_of``: ``RetrievalConfig.uncovered_check``,
  on by default): content words of the question that no top passage holds, weighed by
  how much closer the best passage comes to the question once they are left out
  (:func:`masked_questions`, :func:`uncovered_gains`), and how much closer the best
  sentence of the top passages does. A question whose every word is in the library ("how
  do I change the *fan* speed of the server?") still has a word no passage found covers,
  and the passages match the rest of it better without that word: they are about the
  rest, not about what was asked. A paraphrase the passage does cover ("overnight" for a
  page saying "at night") brings it no closer when left out. A word a large library
  never uses ("dplyr" of R's manuals) needs less gain (``UNUSED_GAIN``): no passage
  anywhere holds it for the search to have missed.

Answers abstain on ``sufficient=False``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docent.core.evaluation import cosine, stem, words_of
from docent.core.models import Hit
from docent.core.numbers import MONTH_NAMES, WEEKDAY_NAMES
from docent.core.queryterms import content_words
from docent.core.words import pieces

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
#: Summed cosine gain (MiniLM) of the best passage when the question's uncovered words
#: are left out one at a time, at or above which the question is judged not covered
#: (chosen on the dev questions only: benchmarks/retrieval_eval.py, docs/measurements/retrieval.md).
UNCOVERED_GAIN = 0.05
#: Cosine gain of the best sentence of the top passages when one uncovered word is left
#: out, at or above which the question is judged not covered too. A sentence is closer
#: to one thing than a passage's mean ("the fan speed" against a page on CPU frequency
#: scaling). Chosen on the dev questions (the largest gain of an answerable one there:
#: 0.055); checked on the held-out ones (docs/measurements/retrieval.md, session 10).
UNCOVERED_SENTENCE_GAIN = 0.058
#: The bar of either gain (the passage's or the best sentence's, the larger) for an
#: uncovered word a large library never uses (no passage holds its stem: "dplyr",
#: "isotope"). Lower than the others: no passage anywhere holds the word for a search to
#: have missed, so the passages found answer it by a paraphrase or not at all. A word
#: with a digit ("4414" of a table's "NGC4414") is left to the checks of names and
#: numbers. The retrieval's ``unused_gain`` (this is its default).
UNUSED_GAIN = 0.02
#: Uncovered words weighed at most, in the question's order (one short embedding each,
#: ~12 ms quiet: the search's largest cost after the question's own embedding). On the
#: dev questions 3 decides as 6 did (1.55 words embedded per search instead of 1.76).
MAX_UNCOVERED = 3
#: Words of a question's frame (how *long*, how *many*, the *largest*): they ask for a
#: value, not about a topic, and the passage that gives it says "about 4095 bytes", never
#: "long". Never weighed as uncovered: inside one document (a scoped question, a library
#: of one file) they were what made an answered question low
#: (docs/measurements/retrieval.md, session 12).
FRAME_WORDS = frozenset(
    {"long", "many", "much", "often", "far", "largest", "smallest", "biggest", "highest"}
    | {"lowest", "maximum", "minimum", "most", "least"}
)
#: A name as written: a capital, then a lower-case letter (``Google``, ``Vega-Lite``,
#: ``YubiKey``). Acronyms (``CPU``, ``SIMH``) are left out: pages spell them out or
#: write them otherwise as often as not (on the dev questions, "every CPU platform").
_WRITTEN_AS_NAME = re.compile(r"[A-Z][a-z]")
#: Months and days, written with a capital but no names of what a passage is about: a
#: date is written in many ways ("FEB 2023", "2/2023", "2023-02"), and a page dated so
#: is no page about something else (the fresh questions, session 34: "the February 2023
#: VA form" was not found on the form that says "FEB 2023").
_DATE_WORDS = MONTH_NAMES | WEEKDAY_NAMES


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
    #: Per uncovered word, how much closer the best passage comes without it (measured
    #: only when retrieval passed a way to, and some word is uncovered).
    uncovered: dict[str, float] = field(default_factory=dict)
    #: Per uncovered word, how much closer the best sentence of the top passages comes.
    uncovered_sentences: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Gain:
    """How much closer the search's results come to the question without one word."""

    #: The best passage's vector (cosine).
    passage: float
    #: The best sentence of the top passages (cosine; 0 when they have no sentence vectors,
    #: or the rerank did not read them: ``RetrievalConfig.sentence_weight`` 0).
    sentence: float = 0.0


#: Given the question's uncovered words, the gains without each.
GainOf = Callable[[Sequence[str]], Sequence[Gain]]


def masked_questions(question: str, words: Sequence[str]) -> list[str]:
    """The question once without each of ``words`` (every occurrence, any case; a word
    inside a longer name or option stays)."""
    out = []
    for word in words:
        pattern = r"(?<![\w\-./=])" + re.escape(word) + r"(?![\w\-/=]|\.\w)"
        out.append(" ".join(re.sub(pattern, " ", question, flags=re.IGNORECASE).split()))
    return out


def uncovered_gains(
    question_vec: Sequence[float],
    masked_vecs: Sequence[Sequence[float]],
    passage_vec: Sequence[float],
) -> list[float]:
    """For each masked question, how much closer (cosine) the passage is to it than to
    the whole question."""
    base = cosine(question_vec, passage_vec)
    return [cosine(v, passage_vec) - base for v in masked_vecs]


#: Where letters meet digits ("ngc|4414"): one word of a page, two of a question.
#: (The passage's words only: a question's "B12" is not "B6 ... 12 mg"; review, s35.)
_LETTER_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")


def _word_stems(word: str) -> list[str]:
    """``is.na`` or ``PDP-11`` are present when each of their parts is."""
    # a run of Chinese or Japanese as its character pairs, on both sides: a question's
    # word never matched a passage's "word", a whole sentence of them (review)
    parts = re.split(r"[^\w]+|_", word.lower())
    return [stem(q) for p in parts if p for q in pieces(p)]


def keyword_overlap(question: str, hits: Sequence[Hit]) -> tuple[float, list[str]]:
    """The share of the question's content words found in ``hits`` (context included),
    and the words missing."""
    words = list(dict.fromkeys(content_words(question)))
    if not words:
        # "What is it?": nothing to find, so nothing found (a full score answered it from
        # whatever came first; found by a review)
        return 0.0, []
    raw: set[str] = set()
    for h in hits:
        for text in (h.text, h.context_before, h.context_after):
            raw.update(q for w in words_of(text) for q in pieces(w))
    # "NGC4414" of a table holds the question's "NGC" and "4414"
    raw.update(p for w in list(raw) if _LETTER_DIGIT.search(w) for p in _LETTER_DIGIT.split(w))
    present = {stem(w) for w in raw}  # each distinct word stemmed once
    missing = [w for w in words if not all(s in present for s in _word_stems(w))]
    return (len(words) - len(missing)) / len(words), missing


def unfound_names(
    names: Sequence[str], missing: Sequence[str], headings: Sequence[str]
) -> list[str]:
    """The words of ``missing`` (see :func:`keyword_overlap`) that are among ``names``
    (the question's names and exact terms, ``queryterms.QueryTerms``) and written as
    names, except those a heading holds (``headings``: the document title and heading
    path of each top passage); as the question writes them."""
    wanted = {
        n.lower(): n for n in names if _WRITTEN_AS_NAME.match(n) and n.lower() not in _DATE_WORDS
    }
    if not wanted:
        return []
    present = {stem(w) for text in headings for w in words_of(text)}
    return [
        wanted[w] for w in missing if w in wanted and not all(s in present for s in _word_stems(w))
    ]


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
    question: str,
    hits: Sequence[Hit],
    absent_terms: Sequence[str] = (),
    gain_of: GainOf | None = None,
    names: Sequence[str] = (),
    headings: Sequence[str] = (),
    common: Callable[[Sequence[str]], Sequence[str]] | None = None,
    unused: Callable[[Sequence[str]], Sequence[str]] | None = None,
    unused_gain: float = UNUSED_GAIN,
) -> RetrievalEvaluation:
    """Can these hits answer ``question``?

    ``absent_terms``: exact terms of the question (names, identifiers, quoted phrases)
    that no chunk in the searched scope contains; retrieval finds them with the text index.
    ``gain_of``: weighs the uncovered words (see the module's docstring); without it
    they only lower the overlap. ``names``: the question's names and exact terms; one
    that no hit, neighbour or heading holds makes it low. ``headings``: the title and
    heading path of each hit. ``unused``: of the uncovered words weighed, those the
    library never uses; their gains meet a lower bar (``unused_gain``).
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
    unfound = unfound_names(names, missing, headings)
    if unfound:
        confidence = "low"
        if news := [w for w in unfound if w not in absent]:  # those are said already
            issues.append("no passage found mentions " + ", ".join(f"'{w}'" for w in news))
    # Already low: the embeddings would change nothing.
    gains = _uncovered(missing, gain_of, common) if confidence != "low" else {}
    uncovered = _positive(gains, lambda g: g.passage)
    sentences = _positive(gains, lambda g: g.sentence)
    by_sentence = [w for w, g in sentences.items() if g >= UNCOVERED_SENTENCE_GAIN]
    by_sentence += _unused_words(gains, unused, unused_gain, by_sentence)
    not_covered = sum(uncovered.values()) >= UNCOVERED_GAIN or bool(by_sentence)
    named = by_sentence + [w for w in uncovered if w not in by_sentence] if not_covered else []
    if not_covered:
        confidence = "low"
        words = ", ".join(f"'{w}'" for w in named)
        issues.append(f"no passage found covers {words}: they are about the rest of the question")
    return RetrievalEvaluation(
        keyword_overlap=round(overlap, 3),
        sufficient=confidence != "low",
        confidence=confidence,
        issues=issues,
        recommendation=_recommend(
            question,
            top,
            confidence,
            absent,
            missing,
            named,
            unfound,
            loose=sim is not None and sim < LOW_SIMILARITY,
        ),
        top_similarity=sim,
        uncovered=uncovered,
        uncovered_sentences=sentences,
    )


def _uncovered(
    missing: Sequence[str],
    gain_of: GainOf | None,
    common: Callable[[Sequence[str]], Sequence[str]] | None = None,
) -> dict[str, Gain]:
    """The first uncovered words and their gains (the question's frame words left out,
    and the words ``common`` says the best passage's document uses throughout)."""
    words = [w for w in missing if w not in FRAME_WORDS]
    if words and common is not None:
        everywhere = set(common(words))
        words = [w for w in words if w not in everywhere]
    words = words[:MAX_UNCOVERED]
    if not words or gain_of is None:
        return {}
    return dict(zip(words, gain_of(words), strict=True))


def _unused_words(
    gains: dict[str, Gain],
    unused: Callable[[Sequence[str]], Sequence[str]] | None,
    bar: float,
    named: Sequence[str],
) -> list[str]:
    """The words of ``gains`` not in ``named`` that the library never uses and whose
    leaving out brings the passage or the best sentence ``bar`` closer."""
    near = [
        w
        for w, g in gains.items()
        if w not in named and max(g.passage, g.sentence) >= bar and not any(map(str.isdigit, w))
    ]
    if not near or unused is None:
        return []
    never = set(unused(near))
    return [w for w in near if w in never]


def _positive(gains: dict[str, Gain], part: Callable[[Gain], float]) -> dict[str, float]:
    """The words whose leaving out brings ``part`` closer, largest gain first."""
    kept = [(w, part(g)) for w, g in gains.items() if part(g) > 0]
    return {w: round(g, 4) for w, g in sorted(kept, key=lambda wg: -wg[1])}


def _recommend(
    question: str,
    top: Sequence[Hit],
    confidence: str,
    absent: Sequence[str],
    missing: Sequence[str],
    uncovered: Sequence[str],
    unfound: Sequence[str] = (),
    *,
    loose: bool = False,
) -> str:
    """``loose``: the closest passage is only loosely related to the question."""
    files = Counter(h.file_name for h in top)
    name, n = files.most_common(1)[0]
    if absent and confidence == "low":
        return (
            f"The documents searched never mention '{absent[0]}': add one that covers it, "
            "widen the scope, or rephrase with the words your documents use."
        )
    if unfound:
        return (
            f"No passage found mentions '{unfound[0]}': the documents may not cover it. "
            "Add one that does, widen the scope, or rephrase with the words they use."
        )
    if uncovered:
        return (
            f"No passage found is about '{uncovered[0]}': the documents may not cover it. "
            "Add one that does, widen the scope, or rephrase with the words they use."
        )
    if confidence == "low" and loose and missing:
        # nothing near: a word of the passages found is no word to rephrase with ("Rephrase
        # ... such as 'platters'" of the melting point of tungsten; QA, session 31)
        # the question's last words: its subject comes late ("...point of tungsten?");
        # not a particle of another language ("du tungstène": review)
        said = [w for w in missing if len(w) > 2] or list(missing)
        words = " or ".join(f"'{w}'" for w in said[::-1][:2])
        return (
            f"No passage found is about {words}: the documents may not cover it. Add one "
            "that does, or widen the scope."
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
