"""Extractive summaries: the most central sentences of each section, no language model.

A section's centre is the mean of its chunks' vectors, already in the store from
indexing, so nothing is re-embedded to find it. Only the sentences of the few chunks
closest to that centre are embedded and ranked by closeness to it: a 300-page manual
costs a few thousand short sentence embeddings, not one per sentence in the book.
Without stored vectors (a document still indexing), a sample of the section's own
sentences is embedded and their mean is the centre.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docent.core.errors import Cancelled
from docent.core.sectioning import Section

Embed = Callable[[Sequence[str]], list[list[float]]]
ChunkRow = tuple[dict[str, Any], list[float] | None]

#: Chunks nearest a section's centre whose sentences are candidates.
TOP_CHUNKS = 3
#: Candidate sentences embedded per section, at most.
MAX_CANDIDATES = 40
MIN_WORDS, MAX_WORDS = 6, 60

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])|\n+")


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    page: int
    #: Cosine to the section's centre, and to the whole document's.
    score: float
    doc_score: float


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    page_start: int
    page_end: int


def central_sentences(
    sections: Sequence[Section],
    chunks: Sequence[ChunkRow],
    embed: Embed,
    per_section: int,
    *,
    cancel: threading.Event | None = None,
    on_section: Callable[[Section], None] | None = None,
) -> list[list[Sentence]]:
    """For each section, its ``per_section`` most central sentences in page order."""
    rows = [(pl, vec) for pl, vec in chunks if vec is not None and pl.get("text")]
    matrix = _normalise(np.asarray([vec for _, vec in rows], dtype=np.float32))
    seen: set[str] = set()  # overlapping sections must not repeat a sentence
    centres: list[np.ndarray] = []
    scored: list[list[tuple[_Candidate, np.ndarray, float]]] = []
    for section in sections:
        if cancel is not None and cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        if on_section is not None:
            on_section(section)
        near = _chunks_in(section, rows)
        if near:
            centre = _unit(matrix[near].mean(axis=0))
            ranked = sorted(near, key=lambda i: -float(matrix[i] @ centre))[:TOP_CHUNKS]
            cands = _from_chunks([rows[i][0] for i in sorted(ranked)])
            central: dict[str, Any] | None = rows[ranked[0]][0]
        else:
            cands = _sample(_from_section(section), MAX_CANDIDATES)
            centre, central = np.zeros(0, dtype=np.float32), None
        cands = [c for c in cands if c.text not in seen][:MAX_CANDIDATES]
        if not cands:  # tables or code only: the most central passage's opening words
            cands = _opening(central, section)
        vecs = _normalise(np.asarray(embed([c.text for c in cands]), dtype=np.float32))
        if centre.size == 0 and len(cands):
            centre = _unit(vecs.mean(axis=0))
        picks = _top(cands, vecs, centre, per_section)
        seen.update(c.text for c, _, _ in picks)
        centres.append(centre)
        scored.append(picks)
    doc_centre = _document_centre(matrix, centres)
    return [
        [
            Sentence(c.text, _page_of(c, section), score, float(vec @ doc_centre))
            for c, vec, score in picks
        ]
        for section, picks in zip(sections, scored, strict=True)
    ]


def _top(
    cands: list[_Candidate], vecs: np.ndarray, centre: np.ndarray, n: int
) -> list[tuple[_Candidate, np.ndarray, float]]:
    if not cands:
        return []
    scores = vecs @ centre
    best = sorted(np.argsort(-scores)[:n].tolist())  # back in reading order
    return [(cands[i], vecs[i], float(scores[i])) for i in best]


def _chunks_in(section: Section, rows: Sequence[ChunkRow]) -> list[int]:
    lo, hi = section.pages
    return [
        i
        for i, (pl, _) in enumerate(rows)
        if int(pl.get("page_start", 0)) <= hi and int(pl.get("page_end", 0)) >= lo
    ]


def _from_chunks(payloads: Sequence[dict[str, Any]]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for pl in payloads:
        start, end = int(pl.get("page_start", 0)), int(pl.get("page_end", 0))
        out.extend(_Candidate(s, start, end) for s in sentences_of(str(pl["text"])))
    return _dedupe(out)


def _from_section(section: Section) -> list[_Candidate]:
    out = [
        _Candidate(s, piece.page, piece.page)
        for piece in section.pieces
        for s in sentences_of(piece.text)
    ]
    return _dedupe(out)


def sentences_of(text: str) -> list[str]:
    """Sentence-like runs of prose: not code lines, tables or headings."""
    out = []
    for raw in _SENTENCE_END.split(text):
        words = raw.split()
        if MIN_WORDS <= len(words) <= MAX_WORDS and _is_prose(words):
            out.append(" ".join(words))
    return out


def _is_prose(words: list[str]) -> bool:
    alpha = sum(1 for w in words if w.strip(".,;:()\"'").isalpha())
    return alpha >= 0.6 * len(words) and words[0][:1].isalnum()


def _dedupe(cands: list[_Candidate]) -> list[_Candidate]:
    seen: set[str] = set()
    out = []
    for c in cands:
        if c.text not in seen:
            seen.add(c.text)
            out.append(c)
    return out


def _opening(payload: dict[str, Any] | None, section: Section) -> list[_Candidate]:
    if payload is not None:
        text, start, end = str(payload["text"]), payload["page_start"], payload["page_end"]
    else:
        piece = section.pieces[0]
        text, start, end = piece.text, piece.page, piece.page
    words = text.split()[:MAX_WORDS]
    if not words:
        return []
    return [
        _Candidate(
            " ".join(words) + (" …" if len(words) == MAX_WORDS else ""), int(start), int(end)
        )
    ]


def _sample(items: list[_Candidate], n: int) -> list[_Candidate]:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _page_of(cand: _Candidate, section: Section) -> int:
    """The page a sentence is on: the chunk's page, or the one whose text holds it."""
    if cand.page_start == cand.page_end:
        return cand.page_start
    probe = " ".join(cand.text.split()[:8])
    for piece in section.pieces:
        if cand.page_start <= piece.page <= cand.page_end and probe in " ".join(piece.text.split()):
            return piece.page
    return cand.page_start


def _document_centre(matrix: np.ndarray, centres: list[np.ndarray]) -> np.ndarray:
    if len(matrix):
        return _unit(matrix.mean(axis=0))
    usable = [c for c in centres if c.size]
    return _unit(np.mean(usable, axis=0)) if usable else np.zeros(0, dtype=np.float32)


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


def _normalise(matrix: np.ndarray) -> np.ndarray:
    if matrix.ndim != 2 or not len(matrix):
        return matrix.reshape(0, 0) if matrix.ndim != 2 else matrix
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)
