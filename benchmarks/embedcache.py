"""A disk cache of dense (and sentence) vectors by text, for benchmarks that compare chunkings.

Indexing the corpus is dominated by the embedding model (10-37 chunks/s on the 2-core
box). Comparing chunk-text variants (contextual prefixes, other windows) would re-embed
every chunk each time; with this cache each distinct text is embedded once ever, and a
variant costs only the texts it really changes. Benchmarks only: the app has its own
reuse by content hash inside the store.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from docent.core.embedding import Embedder
    from docent.core.store_base import ChunkVectors


class VectorCache:
    def __init__(self, path: Path, model: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS v (k TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        # A chunk's dense vector and its packed sentence vectors (Embedder.embed_chunks),
        # by its embedded text and its body (the sentences are the body's).
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS c (k TEXT PRIMARY KEY, vec BLOB NOT NULL, sentences TEXT NOT NULL)"
        )
        self._model = model
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self._model}\0{text}".encode()).hexdigest()

    def _select(self, columns: str, table: str, keys: Sequence[str]) -> list[tuple[Any, ...]]:
        """The rows of ``table`` whose key is among ``keys``, 500 keys a query."""
        rows: list[tuple[Any, ...]] = []
        with self._lock:
            for i in range(0, len(keys), 500):
                part = list(keys[i : i + 500])
                marks = ",".join("?" * len(part))
                query = f"SELECT k, {columns} FROM {table} WHERE k IN ({marks})"
                rows.extend(self._db.execute(query, part))
        return rows

    def get_many(self, texts: Sequence[str]) -> dict[str, list[float]]:
        keys = {self._key(t): t for t in texts}
        return {
            keys[k]: np.frombuffer(blob, dtype=np.float32).tolist()
            for k, blob in self._select("vec", "v", list(keys))
        }

    def put_many(self, pairs: Sequence[tuple[str, list[float]]]) -> None:
        rows = [(self._key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in pairs]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)

    def get_chunks(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], ChunkVectors]:
        from docent.core.store_base import ChunkVectors

        keys = {self._key(f"{t}\0{b}"): (t, b) for t, b in pairs}
        return {
            keys[k]: ChunkVectors(np.frombuffer(blob, dtype=np.float32).tolist(), sentences)
            for k, blob, sentences in self._select("vec, sentences", "c", list(keys))
        }

    def put_chunks(self, items: Sequence[tuple[tuple[str, str], ChunkVectors]]) -> None:
        rows = [
            (self._key(f"{t}\0{b}"), np.asarray(v.dense, dtype=np.float32).tobytes(), v.sentences)
            for (t, b), v in items
        ]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO c VALUES (?, ?, ?)", rows)


def install(embedder: Embedder, path: Path) -> VectorCache:
    """Route ``embedder.embed_dense`` and ``embed_chunks`` (what indexing calls) through a
    cache at ``path`` (this process only)."""
    cache = VectorCache(path, embedder.model_name)
    original = embedder.embed_dense
    original_chunks = embedder.embed_chunks

    def embed_dense(texts: Sequence[str]) -> list[list[float]]:
        known = cache.get_many(texts)
        fresh = list(dict.fromkeys(t for t in texts if t not in known))
        cache.hits += len(texts) - len(fresh)
        cache.misses += len(fresh)
        if fresh:
            vecs = original(fresh)
            cache.put_many(list(zip(fresh, vecs, strict=True)))
            known.update(zip(fresh, vecs, strict=True))
        return [known[t] for t in texts]

    def embed_chunks(texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        pairs = list(zip(texts, bodies, strict=True))
        known = cache.get_chunks(pairs)
        fresh = list(dict.fromkeys(p for p in pairs if p not in known))
        cache.hits += len(pairs) - len(fresh)
        cache.misses += len(fresh)
        if fresh:
            made = original_chunks([t for t, _ in fresh], [b for _, b in fresh])
            cache.put_chunks(list(zip(fresh, made, strict=True)))
            known.update(zip(fresh, made, strict=True))
        return [known[p] for p in pairs]

    embedder.embed_dense = embed_dense  # type: ignore[method-assign]
    embedder.embed_chunks = embed_chunks  # type: ignore[method-assign]
    return cache
