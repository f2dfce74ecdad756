"""A fast stand-in for the embedding model: words hashed into vectors, no model to load.

For tests of the engine's plumbing (queue, events, settings, conversation), where what
matters is that texts become vectors, not how good the vectors are. Retrieval quality is
tested with the real model.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path

from docent.core.embedding import Embedder
from docent.core.models import SparseVec
from docent.core.store_base import ChunkVectors

_WORD = re.compile(r"\w+")
DIM = 384


def _bucket(word: str, size: int) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big") % size


class FakeEmbedder(Embedder):
    def __init__(self, model_name: str = "fake-hash-embedder", dim: int = DIM) -> None:
        """``model_name`` and ``dim``: another model as the store and catalog see it."""
        super().__init__(model_name=model_name)
        self.dim = dim

    @property
    def loaded(self) -> bool:
        return True

    def ensure_loaded(self) -> None:
        pass

    def warm_up(self) -> None:
        pass

    def tokenizer_json(self) -> str:
        raise RuntimeError("the fake embedder has no tokenizer: use extract_in_subprocess=False")

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text)) + 2

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            vec[_bucket(word, self.dim)] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def _sparse_one(self, text: str) -> SparseVec:
        counts: dict[int, float] = {}
        for word in _WORD.findall(text.lower()):
            i = _bucket(word, 1 << 20)
            counts[i] = counts.get(i, 0.0) + 1.0
        return SparseVec(sorted(counts), [counts[i] for i in sorted(counts)])

    def embed_dense(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts_embedded += len(texts)
        return [self._vector(t) for t in texts]

    def embed_for_question(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_dense(texts)

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        """As the real model's: the chunk's vector and each sentence's, hashed alike."""
        from docent.core.sentence_vectors import pack, sentence_spans

        self.texts_embedded += len(texts)
        out = []
        for text, body in zip(texts, bodies, strict=True):
            sentences = [self._vector(body[a:b]) for a, b in sentence_spans(body)]
            dense = self._vector(text)
            out.append(ChunkVectors(dense, pack(sentences or [dense])))
        return out

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVec]:
        return [self._sparse_one(t) for t in texts]

    def query_dense(self, text: str) -> list[float]:
        return self._vector(text)

    def query_sparse(self, text: str) -> SparseVec:
        return self._sparse_one(text)

    def query_dense_many(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


def model_folder(parent: Path) -> Path:
    """A folder the embedding_model setting accepts (it checks the files, loads nothing):
    for tests that change the setting without a second real model at hand."""
    folder = parent / "other-model"
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx" / "model.onnx").write_bytes(b"not loaded by these tests")
    (folder / "tokenizer.json").write_text("{}")
    return folder


class CountingEmbedder(FakeEmbedder):
    """A FakeEmbedder that counts the chunks it embeds (``embedded``)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        self.embedded += len(texts)
        return super().embed_chunks(texts, bodies)
