"""Sentence vectors: each sentence of a chunk as a vector of its own, at no extra cost.

A chunk's dense vector is the mean of its tokens' vectors after one pass of the model.
The same pass gives every token's vector, so the mean over one sentence's tokens is that
sentence's vector, read in its chunk's context ("late chunking"). Retrieval's
in-document rerank weighs the best cosine between the question and a candidate's
sentences: the page that answers often holds one sentence close to the question among
others that are not, which the chunk's mean blurs (docs/measurements/retrieval.md, session 9).

They are kept in the chunk's payload (``store.SENTENCES``), packed: each vector quantised to
int8 (``round(x * 127)``; cosines of the unpacked vectors are within ~0.01 of the
originals), the bytes base64-encoded. 384 bytes a sentence, ~4.7 sentences a chunk on the
corpus. Normal reads leave the field out; the rerank reads it for its candidates only.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np

from docent.core.evaluation import sentence_bounds

#: Sentences shorter than this (a heading, "See below.") get no vector of their own.
MIN_CHARS = 20
#: At most this many vectors per chunk (a chunk of 256 tokens rarely holds 15 sentences).
MAX_SENTENCES = 32
_SCALE = 127.0


def sentence_spans(body: str) -> list[tuple[int, int]]:
    """Where the sentences of ``body`` are that get a vector: those of ``MIN_CHARS`` or
    more, or the whole body when it has none that long."""
    bounds = sentence_bounds(body)
    kept = [(a, b) for a, b in bounds if len(" ".join(body[a:b].split())) >= MIN_CHARS]
    if not kept and bounds:
        kept = [(bounds[0][0], bounds[-1][1])]
    return kept[:MAX_SENTENCES]


def pool(
    hidden: np.ndarray,
    offsets: Sequence[tuple[int, int]],
    spans: Sequence[tuple[int, int]],
    base: int,
) -> np.ndarray:
    """Unit vectors of the spans (of the text from ``base`` on): each the mean of the
    token vectors ``hidden`` whose characters (``offsets``) lie inside it. A span whose
    tokens were cut off (past the model's 256) has none and is left out."""
    starts = np.fromiter((a for a, _ in offsets), dtype=np.int64, count=len(offsets))
    ends = np.fromiter((b for _, b in offsets), dtype=np.int64, count=len(offsets))
    real = ends > starts  # special tokens and padding have no characters
    vectors = []
    for a, b in spans:
        inside = real & (starts >= base + a) & (ends <= base + b)
        if inside.any():
            vectors.append(hidden[: len(offsets)][inside].mean(axis=0))
    if not vectors:
        return np.zeros((0, hidden.shape[-1]), dtype=np.float32)
    out = np.asarray(vectors, dtype=np.float32)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def pack(vectors: Any) -> str:
    """Unit vectors (rows) as the payload keeps them."""
    rows = np.asarray(vectors, dtype=np.float32)
    quantised = np.clip(np.rint(rows * _SCALE), -_SCALE, _SCALE).astype(np.int8)
    return base64.b64encode(quantised.tobytes()).decode("ascii")


def unpack(packed: str, dim: int) -> np.ndarray:
    """The vectors ``pack`` packed, one per row (none for an empty string)."""
    raw = np.frombuffer(base64.b64decode(packed), dtype=np.int8)
    return raw.reshape(-1, dim).astype(np.float32) / _SCALE


def unit(vec: Sequence[float]) -> np.ndarray:
    out = np.asarray(vec, dtype=np.float32)
    return out / max(float(np.linalg.norm(out)), 1e-12)


def best_cosines(packed: Sequence[str], queries: Sequence[Sequence[float]]) -> list[float] | None:
    """For each query, its best cosine with one sentence of any of the ``packed`` chunks;
    None when none of them has sentence vectors."""
    if not queries:
        return []
    dim = len(queries[0])
    rows = [unpack(p, dim) for p in packed if p]
    if not rows or not sum(len(r) for r in rows):
        return None
    sentences = np.concatenate(rows)
    return [float((sentences @ unit(q)).max()) for q in queries]


def best_cosine(packed: str, query: Sequence[float]) -> float | None:
    """The best cosine between ``query`` and one of a packed chunk's sentences; None when
    the chunk has none (indexed before they were kept)."""
    best = best_cosines([packed], [query])
    return best[0] if best else None
