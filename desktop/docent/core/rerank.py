"""Reranking the fused candidates: the right page, not just the right document.

Fusion is good at finding the document (file hit@5 ~1.0 on both question sets) and
weaker at choosing among that document's passages: a long manual has many chunks that
share the question's words. The passage that answers usually holds the question's terms
*close together*. :func:`proximity` scores that: the best window of ``WINDOW`` words by
the weight of the distinct question terms it holds (rarer terms in the candidate pool
weigh more), over the weight of all of them. Case and light suffixes are ignored.

:func:`within_documents` reorders each document's candidates among the positions that
document already holds, so the choice between documents stays fusion's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from docent.core.evaluation import stem
from docent.core.fusion import Candidate
from docent.core.queryterms import content_words

#: Words in the window that must hold the question's terms.
WINDOW = 16
_WORD = re.compile(r"[^\W_]+(?:[.\-/=][^\W_]+)*")


def _stems(text: str) -> list[str]:
    return [stem(w.lower()) for w in _WORD.findall(text)]


def question_terms(question: str) -> list[str]:
    """Distinct stemmed content words of the question (compounds split as in text)."""
    out: list[str] = []
    for word in content_words(question):
        out.extend(_stems(word))
    return list(dict.fromkeys(out))


def pool_weights(terms: Sequence[str], texts: Sequence[list[str]]) -> dict[str, float]:
    """IDF of each term over the candidate pool (a term every candidate has weighs little)."""
    n = len(texts)
    sets = [set(t) for t in texts]
    out: dict[str, float] = {}
    for term in terms:
        df = sum(term in s for s in sets)
        if df:
            out[term] = math.log(1 + n / df)
    return out


def proximity(words: Sequence[str], weights: dict[str, float], window: int = WINDOW) -> float:
    """The best share (0-1) of the question's term weight inside ``window`` words."""
    total = sum(weights.values())
    if not total or not words:
        return 0.0
    best = 0.0
    positions = [(i, w) for i, w in enumerate(words) if w in weights]
    start = 0
    for end in range(len(positions)):
        while positions[end][0] - positions[start][0] >= window:
            start += 1
        held = {w for _, w in positions[start : end + 1]}
        best = max(best, sum(weights[w] for w in held))
    return best / total


def scores(question: str, cands: Sequence[Candidate]) -> list[float]:
    """The proximity score of each candidate (its context line included)."""
    terms = question_terms(question)
    texts = [_stems(f"{c.payload.get('context', '')} {c.payload.get('text', '')}") for c in cands]
    weights = pool_weights(terms, texts)
    return [proximity(t, weights) for t in texts]


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
