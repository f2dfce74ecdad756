"""Extractive summaries: the most central sentences of each section, no language model.

A section's centre is the mean of its chunks' vectors, already in the store from
indexing, so finding it costs no embedding. Its sentences (from the page text, so each
knows its page) are ranked first by how central their page is (the best chunk on it),
and only the leading few are embedded and scored by closeness to the centre. Embedding
is the expensive part (~25 short sentences/s on a busy 2-core machine), so the number
embedded is budgeted per document: a 300-page manual costs a few hundred, not one per
sentence in the book. Without stored vectors (a document still indexing), an even sample
of the section's sentences is embedded and their mean is the centre.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docent.core import words
from docent.core.errors import Cancelled
from docent.core.sectioning import Section

Embed = Callable[[Sequence[str]], list[list[float]]]
ChunkRow = tuple[dict[str, Any], list[float] | None]

#: Sentences embedded per document, spread over its sections within the bounds below.
EMBED_BUDGET = 400
MIN_CANDIDATES, MAX_CANDIDATES = 4, 16
MIN_WORDS, MAX_WORDS = 6, 50
#: A section this short with no sentence in it is quoted from its start.
SHORT_TEXT_WORDS = 100
#: A line at least this share of the page's longest line is wrapped prose: join the next.
WRAP_SHARE = 0.7

# A full stop ends a sentence unless it ends a short abbreviation ("p. 12", "e.g. X").
_SENTENCE_END = re.compile(
    r"(?<=[.!?])" + words.NOT_ABBREVIATION + r"[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])"
)
_CJK_SENTENCE_END = re.compile(words.CJK_SENTENCE_END)
#: Dot leaders of a table of contents or an index ("Grid data .... 230").
_LEADERS = re.compile(r"(?:…|\.{3,}|(?:\. ){3,})\s*\d")
_ENDS_SENTENCE = re.compile(r"[.!?。！？][\"'”’)\]」』）]*$")


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
    page: int
    order: int  # reading order within the section


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
    rows = [(pl, vec) for pl, vec in chunks if vec is not None]
    matrix = _normalise(np.asarray([vec for _, vec in rows], dtype=np.float32))
    budget = max(MIN_CANDIDATES, min(MAX_CANDIDATES, EMBED_BUDGET // max(len(sections), 1)))
    budget = max(budget, per_section)
    seen: set[str] = set()  # overlapping sections must not repeat a sentence
    picked: list[list[tuple[_Candidate, np.ndarray, float]]] = []
    centres: list[np.ndarray] = []
    for section in sections:
        if cancel is not None and cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        if on_section is not None:
            on_section(section)
        cands = [c for c in _candidates(section) if c.text not in seen]
        near = _chunks_in(section, rows)
        if near:
            centre = _unit(matrix[near].mean(axis=0))
            cands = _most_central_pages(cands, near, rows, matrix, centre, budget)
        else:
            cands = _sample(cands, budget)
        vecs = _normalise(np.asarray(embed([c.text for c in cands]), dtype=np.float32))
        if not near:
            centre = _unit(vecs.mean(axis=0)) if len(cands) else np.zeros(0, np.float32)
        picks = _top(cands, vecs, centre, per_section)
        seen.update(c.text for c, _, _ in picks)
        picked.append(picks)
        centres.append(centre)
    doc_centre = _document_centre(matrix, centres)
    return [
        [Sentence(c.text, c.page, score, float(vec @ doc_centre)) for c, vec, score in picks]
        for picks in picked
    ]


def sentences_of(text: str, strict: bool = True) -> list[str]:
    """Whole prose sentences of a page: wrapped lines joined, tables and code left out.

    Not ``strict``: any run of mostly words (a page of tables or code has no sentence),
    cut to MAX_WORDS.
    """
    lines = [line.strip() for line in text.split("\n")]
    width = max((len(line) for line in lines), default=0)
    blocks: list[str] = []
    current: list[str] = []
    for line in lines:
        if line:
            current.append(line)
        if not line or len(line) < WRAP_SHARE * width or line.endswith(":"):
            if current:
                blocks.append(words.joined(current))
            current = []
    if current:
        blocks.append(words.joined(current))
    out = []
    for block in blocks:
        for sentence in _SENTENCE_END.split(block):
            for raw in _CJK_SENTENCE_END.split(sentence):
                if not raw.strip() or _LEADERS.search(raw):
                    continue
                units = words.split(raw)  # each CJK character a word (words.py)
                text = " ".join(raw.split())
                if strict and MIN_WORDS <= len(units) <= _most(units) and _is_prose(units):
                    out.append(text)
                elif not strict and len(units) >= MIN_WORDS and _mostly_words(units, 0.75):
                    cut = len(units) > _most(units)
                    out.append(
                        " ".join(words.first(raw, _most(units)).split()) + (" …" if cut else "")
                    )
    return out


def _most(units: list[str]) -> int:
    """The most words a sentence quoted may have: twice as many CJK characters (one
    carries less than an English word, and their sentences run to 60 or more)."""
    return 2 * MAX_WORDS if units and words.is_cjk(units[0][0]) else MAX_WORDS


def _is_prose(units: list[str]) -> bool:
    opened = [u for u in units if u.strip("\"'“‘(「『（")]  # a quotation opening it
    first = opened[0][:1] if opened else ""
    return (
        _mostly_words(units, 0.7)
        and (first.isupper() or words.is_cjk(first))
        and _ENDS_SENTENCE.search(units[-1]) is not None
    )


def _mostly_words(units: list[str], share: float) -> bool:
    letters = sum(1 for w in units if w.strip(".,;:()\"'?!，、：；（）").isalpha())
    return letters >= share * len(units)


def _candidates(section: Section) -> list[_Candidate]:
    for strict in (True, False):
        out: list[_Candidate] = []
        seen: set[str] = set()
        for piece in section.pieces:
            for text in sentences_of(piece.text, strict):
                if text not in seen:
                    seen.add(text)
                    out.append(_Candidate(text, piece.page, len(out)))
        if out:
            return out
    if section.words > SHORT_TEXT_WORDS:
        return []  # a contents page, a table, code: no sentence worth quoting
    piece = section.new_pieces[0] if section.new_pieces else section.pieces[0]
    opening = " ".join(words.first(piece.text, MAX_WORDS).split())  # a very short text
    return [_Candidate(opening, piece.page, 0)] if opening else []


def _chunks_in(section: Section, rows: Sequence[ChunkRow]) -> list[int]:
    lo, hi = section.pages
    return [
        i
        for i, (pl, _) in enumerate(rows)
        if int(pl.get("page_start", 0)) <= hi and int(pl.get("page_end", 0)) >= lo
    ]


def _most_central_pages(
    cands: list[_Candidate],
    near: list[int],
    rows: Sequence[ChunkRow],
    matrix: np.ndarray,
    centre: np.ndarray,
    n: int,
) -> list[_Candidate]:
    """The ``n`` candidates on the pages whose best chunk is closest to the centre."""
    page_score: dict[int, float] = {}
    for i in near:
        score = float(matrix[i] @ centre)
        pl = rows[i][0]
        for page in range(int(pl["page_start"]), int(pl["page_end"]) + 1):
            page_score[page] = max(page_score.get(page, -1.0), score)
    ranked = sorted(cands, key=lambda c: (-page_score.get(c.page, -1.0), c.order))
    return sorted(ranked[:n], key=lambda c: c.order)


def _top(
    cands: list[_Candidate], vecs: np.ndarray, centre: np.ndarray, n: int
) -> list[tuple[_Candidate, np.ndarray, float]]:
    if not cands or centre.size == 0:
        return []
    scores = vecs @ centre
    best = sorted(np.argsort(-scores)[:n].tolist())  # back to reading order
    return [(cands[i], vecs[i], float(scores[i])) for i in best]


def _sample(items: list[_Candidate], n: int) -> list[_Candidate]:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _document_centre(matrix: np.ndarray, centres: list[np.ndarray]) -> np.ndarray:
    if len(matrix):
        return _unit(matrix.mean(axis=0))
    usable = [c for c in centres if c.size]
    return _unit(np.mean(usable, axis=0)) if usable else np.zeros(0, np.float32)


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


def _normalise(matrix: np.ndarray) -> np.ndarray:
    if matrix.ndim != 2:
        return matrix.reshape(0, 0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)
