"""Rank fusion and result shaping: weighted RRF, dedup, per-document caps, adaptive k.

Pure functions over :class:`Candidate`, so each rule is tested on its own without a
store or a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from docent.core.store import ScoredPoint

#: The RRF constant (Cormack et al.; the baseline was measured with it).
RRF_K = 60
#: Adaptive k never goes above this.
MAX_ADAPTIVE_K = 25
#: Dot leaders followed by a page number ("Encodings … 4", "nlm … 64, 65"), not by a
#: table figure ("Property crime . . . 1,396 .4").
_LEADER = re.compile(r"(?:…|\.{4,}|(?:\. ){3,})\s*\d{1,4}(?![\d.]|,\d)")
#: A chunk with this many leaders is navigation (contents, index), not content.
NAVIGATION_LEADERS = 3
#: An outline (:func:`is_outline`): at least this many numbered items, none longer.
OUTLINE_ITEMS = 4
OUTLINE_ITEM_WORDS = 8


@dataclass(slots=True)
class Candidate:
    """One chunk met in one or more ranked lists."""

    chunk_id: str
    payload: dict[str, Any]
    #: The fused score: the sum of weight / (RRF_K + rank) over the lists it is in.
    score: float = 0.0
    #: Its 1-based rank in each list it appeared in, by list name.
    ranks: dict[str, int] = field(default_factory=dict)
    #: Its raw score in each list it appeared in (the best one if it came back twice).
    scores: dict[str, float] = field(default_factory=dict)
    #: Its packed sentence vectors (sentence_vectors.py), once the rerank has read them.
    sentences: str = ""

    @property
    def doc_id(self) -> str:
        return str(self.payload.get("doc_id", ""))

    @property
    def best_raw(self) -> float:
        return max(self.scores.values(), default=0.0)


@dataclass(frozen=True, slots=True)
class RankedList:
    name: str
    weight: float
    points: Sequence[ScoredPoint]
    #: The points' scores order the list, so equal scores share a rank (:func:`tied_ranks`).
    #: False for a list put in order by other means: a hybrid list, whose equal sums are
    #: in the order of the lists it fused (:func:`hybrid`), or an exact term's, unscored.
    scored: bool = True


def rrf(
    lists: Iterable[RankedList], k: int = RRF_K, pool: dict[str, Candidate] | None = None
) -> dict[str, Candidate]:
    """Weighted reciprocal rank fusion; one entry per chunk id (a dict: O(1) dedup).

    A chunk that comes back in several lists collects each list's share; within one list
    only its first (best) rank counts. In a list its scores order (``RankedList.scored``),
    points of equal score share a rank (:func:`tied_ranks`).
    """
    out: dict[str, Candidate] = {} if pool is None else pool
    for ranked in lists:
        seen: set[str] = set()
        places = tied_ranks(ranked.points) if ranked.scored else enumerate(ranked.points, 1)
        for rank, point in places:
            if point.id in seen:
                continue
            seen.add(point.id)
            cand = out.get(point.id)
            if cand is None:
                cand = out[point.id] = Candidate(point.id, point.payload)
            cand.score += ranked.weight / (k + rank)
            cand.ranks[ranked.name] = rank
            best = cand.scores.get(ranked.name)
            cand.scores[ranked.name] = point.score if best is None else max(best, point.score)
    return out


def tied_ranks(points: Sequence[ScoredPoint]) -> Iterator[tuple[int, ScoredPoint]]:
    """Each point with its 1-based rank in ``points`` (best first), a point of the same
    score as the one before it sharing its rank: "1, 2, 2, 4". The store returns points of
    equal score in any order, even for the same search twice (a BM25 tie ranked 30th or
    31st moved a dev question's gold page between ranks 3 and 4, run to run)."""
    rank, previous = 0, None
    for position, point in enumerate(points, 1):
        if previous is None or point.score != previous:
            rank = position
        previous = point.score
        yield rank, point


def hybrid(lists: Sequence[Sequence[ScoredPoint]], limit: int) -> list[ScoredPoint]:
    """Qdrant's own hybrid fusion done here: each point scores the sum of 1 / (RRF_K + its
    0-based position) over the lists. With the question's dense list, which retrieval
    needs anyway, and its BM25 list, this replaces a hybrid query that would search the
    dense index a second time (checked on the dev library: the same scores as Qdrant's to
    1e-9). Points of equal score in one list share a position (:func:`tied_ranks`), and
    equal sums keep the order they were first met in (the first list's first): the store
    returns a tie in any order, even from one search to the next, and a search must rank
    alike each time."""
    scores: dict[str, float] = {}
    first: dict[str, ScoredPoint] = {}
    for points in lists:
        for rank, p in tied_ranks(points):
            scores[p.id] = scores.get(p.id, 0.0) + 1.0 / (RRF_K + rank - 1)
            first.setdefault(p.id, p)
    best = sorted(scores, key=lambda pid: -scores[pid])[:limit]  # stable: as first met
    return [ScoredPoint(pid, scores[pid], first[pid].payload) for pid in best]


def sort_key(c: Candidate) -> tuple[float, float, str]:
    """Best first; ties broken by the best raw score, then by id so runs are stable."""
    return (-c.score, -c.best_raw, c.chunk_id)


def ranked(pool: dict[str, Candidate]) -> list[Candidate]:
    return sorted(pool.values(), key=sort_key)


def dedup_text(cands: Iterable[Candidate]) -> list[Candidate]:
    """Drop a chunk whose text already appeared higher up (the same file at two paths)."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for c in cands:
        key = str(c.payload.get("content_hash") or c.chunk_id)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out


def cap_per_document(cands: Sequence[Candidate], cap: int, k: int) -> list[Candidate]:
    """The first ``k`` candidates with at most ``cap`` per document while others remain.

    Chunks over a document's cap wait; they fill the remaining slots (in their order)
    only when no other document has anything left, so a one-file scope still gets k.
    """
    if cap <= 0:
        return list(cands[:k])
    out: list[Candidate] = []
    waiting: list[Candidate] = []
    per_doc: dict[str, int] = {}
    for c in cands:
        if len(out) >= k:
            break
        n = per_doc.get(c.doc_id, 0)
        if n < cap:
            per_doc[c.doc_id] = n + 1
            out.append(c)
        else:
            waiting.append(c)
    if len(out) < k:
        out.extend(waiting[: k - len(out)])
    return out


def adaptive_k(chunks_in_scope: int, base: int = 5) -> int:
    """5 for a small library; x4 above 100 chunks, x5 above 200; never above 25."""
    if chunks_in_scope > 200:
        k = base * 5
    elif chunks_in_scope > 100:
        k = base * 4
    else:
        k = base
    return max(1, min(k, MAX_ADAPTIVE_K))


def is_navigation(text: str) -> bool:
    """A table of contents or index chunk: it names every topic and answers none."""
    if "…" in text or "...." in text or ". . ." in text:
        return len(_LEADER.findall(text)) >= NAVIGATION_LEADERS
    return is_outline(text)


def is_outline(text: str) -> bool:
    """A slide deck's outline: after its title, nothing but items numbered 1, 2, 3, ...,
    each a few words ("1 Introduction 2 Creating source packages ..."). A slide's numbered
    steps are longer ("4 Build the package cd dash-* debuild -us -uc")."""
    words = text.split()[1:]  # the slide's title
    if len(words) < 2 * OUTLINE_ITEMS or words[0] != "1":
        return False
    expected, items, size = 1, 0, 0
    for w in words:
        if w == str(expected):
            if expected > 1 and not 0 < size <= OUTLINE_ITEM_WORDS:
                return False
            expected, items, size = expected + 1, items + 1, 0
        else:
            size += 1
    return items >= OUTLINE_ITEMS and 0 < size <= OUTLINE_ITEM_WORDS


def demote_navigation(cands: Iterable[Candidate], factor: float) -> int:
    """Scale down the fused score of navigation chunks; returns how many there were."""
    n = 0
    for c in cands:
        if is_navigation(str(c.payload.get("text", ""))):
            c.score *= factor
            n += 1
    return n
