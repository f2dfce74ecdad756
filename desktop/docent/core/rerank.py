"""Reranking the fused candidates: the right page, not just the right document.

Fusion is good at finding the document (file hit@5 ~1.0 on both question sets) and
weaker at choosing among that document's passages: a long manual has many chunks that
share the question's words. The passage that answers usually holds the question's terms
*close together*. :func:`proximity` scores that: the best window of ``WINDOW`` words by
the weight of the distinct question terms it holds (rarer terms in the candidate pool
weigh more), over the weight of all of them. Case and light suffixes are ignored.

:func:`within_documents` reorders each document's candidates among the positions that
document already holds, so the choice between documents stays fusion's.

:func:`code_share` is the second signal: an option or a code-like name the question
writes (``-d``, ``HISTORY=n``, ``is.na``, ``SET CPU``) found as written in a passage. The
proximity splits ``-d`` into the letter ``d``, which every passage holds; the page that
documents the option is the one where it stands as a token of its own.

:func:`title_share` is the one signal that moves documents: a name the question writes
(``R``, ``PDP-11``, ``Debian``) that some candidates' document titles hold and others'
do not. "Is there a cap on how long a line typed at the R console can be?" found a
CTSS manual's page on console lines first, above *An Introduction to R*'s answer:
the single letter is no word for BM25, and a weak one for the embedding. :func:`by_title`
re-sorts the candidates by their rank, favouring those whose title names it.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence

from docent.core.evaluation import stem
from docent.core.fusion import Candidate
from docent.core.queryterms import content_words, identifier_terms

#: Words in the window that must hold the question's terms.
WINDOW = 16
_WORD = re.compile(r"[^\W_]+(?:[.\-/=][^\W_]+)*")


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # Passages repeat their words: caching the stems makes the rerank a few ms.
    return stem(word.lower())


def question_terms(question: str) -> list[str]:
    """Distinct stemmed content words of the question (compounds split as in text)."""
    out: list[str] = []
    for word in content_words(question):
        out.extend(_stem(w) for w in _WORD.findall(word.lower()))
    return list(dict.fromkeys(out))


def term_positions(text: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    """(word index, term) for each word of ``text`` that stems to one of ``terms``.

    Only words sharing a term's first three letters are stemmed: a passage has ~250
    words and the question a handful of terms, and this runs for 30 passages a search.
    """
    wanted = set(terms)
    prefixes = {t[:3] for t in wanted}  # a stem of 1-2 letters ("us") is its own prefix
    out: list[tuple[int, str]] = []
    for i, word in enumerate(_WORD.findall(text.lower())):
        if word[:3] in prefixes or word[:2] in prefixes or word[:1] in prefixes:
            s = _stem(word)
            if s in wanted:
                out.append((i, s))
    return out


def pool_weights(terms: Sequence[str], found: Sequence[set[str]]) -> dict[str, float]:
    """IDF of each term over the candidate pool (a term every candidate has weighs little)."""
    n = len(found)
    out: dict[str, float] = {}
    for term in terms:
        df = sum(term in s for s in found)
        if df:
            out[term] = math.log(1 + n / df)
    return out


def proximity(
    positions: Sequence[tuple[int, str]], weights: dict[str, float], window: int = WINDOW
) -> float:
    """The best share (0-1) of the question's term weight inside ``window`` words."""
    total = sum(weights.values())
    if not total or not positions:
        return 0.0
    best = 0.0
    start = 0
    for end in range(len(positions)):
        while positions[end][0] - positions[start][0] >= window:
            start += 1
        held = {w for _, w in positions[start : end + 1]}
        best = max(best, sum(weights.get(w, 0.0) for w in held))
    return best / total


def scores(question: str, cands: Sequence[Candidate]) -> list[float]:
    """The proximity score of each candidate (its context line included)."""
    terms = question_terms(question)
    found = [
        term_positions(f"{c.payload.get('context', '')} {c.payload.get('text', '')}", terms)
        for c in cands
    ]
    weights = pool_weights(terms, [{t for _, t in f} for f in found])
    return [proximity(f, weights) for f in found]


def code_terms(question: str) -> list[str]:
    """The question's options, code-like compounds and upper-case command pairs.

    Compounds of words, numbers and hyphens alone (``PDP-11``, ``Debian-Edu``) are left
    out: they are product names, on nearly every page of their manual, and favouring the
    pages that spell them cost as many dev questions as it helped.
    """
    out = [
        t
        for t in identifier_terms(question)
        if t.startswith("-") or " " in t or any(ch in t for ch in ".=(")
    ]
    return list(dict.fromkeys(out))


def _literal(term: str) -> re.Pattern[str]:
    # Not inside a longer word or option: "-d" is not in "--debug" nor in "R-devel".
    return re.compile(r"(?<![\w\-])" + re.escape(term) + r"(?!\w)", re.IGNORECASE)


def code_share(question: str, cands: Sequence[Candidate]) -> list[float]:
    """The share (0-1) of the question's code terms that each candidate's text holds as
    written; all 0 when the question has none."""
    patterns = [_literal(t) for t in code_terms(question)]
    if not patterns:
        return [0.0] * len(cands)
    return [
        sum(bool(p.search(str(c.payload.get("text", "")))) for p in patterns) / len(patterns)
        for c in cands
    ]


#: A name as the question writes it: a word starting with a capital (``R``, ``PDP-11``,
#: ``Debian``), not the question's first word unless it is all capitals, nor "I".
_TOKEN = re.compile(r"[A-Za-z][\w\-/]*")
#: In :func:`by_title`, a candidate at rank r (from 0) weighs 1 / (r + TITLE_RANK_K): with
#: a title factor of 1.5 (weight 0.5, every name held), rank 4 passes rank 0, rank 5
#: ties it (the order before stands) and rank 6 does not.
TITLE_RANK_K = 10


def title_names(question: str) -> list[str]:
    """The words of ``question`` written as names (see ``_TOKEN``), as written."""
    words = _TOKEN.findall(question)
    names = [
        w for i, w in enumerate(words) if w[0].isupper() and (i > 0 or w.isupper()) and w != "I"
    ]
    return list(dict.fromkeys(names))


def title_share(question: str, cands: Sequence[Candidate]) -> list[float]:
    """The share (0-1) of the question's names (:func:`title_names`) that each
    candidate's document title (payload ``title``) holds as a word, case as written; all
    0 when every candidate's share is the same (no title tells them apart)."""
    names = title_names(question)
    if not names:
        return [0.0] * len(cands)
    shares = []
    for c in cands:
        held = set(_TOKEN.findall(str(c.payload.get("title", ""))))
        shares.append(sum(n in held for n in names) / len(names))
    return shares if len(set(shares)) > 1 else [0.0] * len(cands)


def by_title(cands: Sequence[Candidate], shares: Sequence[float], weight: float) -> list[Candidate]:
    """``cands`` re-sorted by ``(1 + weight x share) / (rank + TITLE_RANK_K)``: over all
    documents, by rank (the scores before are on different scales)."""
    if weight <= 0 or not any(shares):
        return list(cands)
    key = [(1 + weight * s) / (r + TITLE_RANK_K) for r, s in enumerate(shares)]
    return [cands[i] for i in sorted(range(len(cands)), key=lambda i: -key[i])]


def within_documents(cands: Sequence[Candidate], key: Callable[[int], float]) -> list[Candidate]:
    """Each document's candidates re-sorted by ``key(index)`` (best first) inside the
    positions that document holds; other documents' positions are untouched."""
    slots: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        slots.setdefault(c.doc_id, []).append(i)
    out = list(cands)
    for positions in slots.values():
        ranked = sorted(positions, key=lambda i: -key(i))
        for slot, i in zip(positions, ranked, strict=True):
            out[slot] = cands[i]
    return out
