"""Qdrant Edge indexes nothing by itself: the store asks for index steps as it grows.

Every point outside an HNSW segment is scanned by each query (200k points: p50 250 ms per
search), and its full-text index is rebuilt on every open; indexing 200k points in one go
had not finished after 16 min at 6.2 GB. So ``index_due`` asks for a step once
``index_step`` points wait, the indexer runs it between documents, and a closing engine
indexes what is left (a fifth of a step or more).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_store import Corpus, point, unit

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.indexer import Progress
from docent.core.store import ChunkPoint
from docent.core.store_edge import EdgeStore
from fake_embedder import FakeEmbedder


def _filler(rng: np.random.Generator, doc_id: str, count: int) -> list[ChunkPoint]:
    return [point(doc_id, i, f"Filler line {i} of {doc_id}.", unit(rng)) for i in range(count)]


def test_edge_indexes_in_steps_as_it_grows(tmp_path: Path) -> None:
    """Qdrant Edge indexes nothing by itself: every point outside an HNSW segment is
    scanned by each query. ``index_due`` asks for a step once ``index_step`` wait, and
    a step indexes them (not the whole library again)."""
    rng = np.random.default_rng(3)
    path = tmp_path / "qdrant"
    with EdgeStore(path, index_step=500) as s:
        corpus = Corpus(s)
        s.upsert_chunks(_filler(rng, "fill1", 400))
        assert s.index_backlog() == 409
        assert not s.index_due()
        s.upsert_chunks(_filler(rng, "fill2", 200))
        assert s.index_due()
        assert s.optimize()
        assert s.index_backlog() == 0
        assert not s.index_due()
        assert s.count_chunks() == 609
        assert s.query(dense=corpus.q_dense, sparse=corpus.q_sparse)[0].id == corpus.t.id
        assert len(s.text_match("terminal")) == 2
        # Fewer than a step wait: not due while working, due when closing (a fifth).
        s.upsert_chunks(_filler(rng, "fill3", 150))
        assert s.index_backlog() == 150
        assert not s.index_due()
        assert s.index_due(closing=True)
        assert s.optimize()
        assert not s.index_due(closing=True)
    with EdgeStore(path, index_step=500) as s:
        assert s.index_backlog() == 0 and s.count_chunks() == 759
        assert len(s.grep("FILLER LINE 149 of fill3")) == 1


def test_indexing_runs_steps_between_documents_and_at_close(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(30):  # two chunks each
        words = " ".join(f"w{i}x{j}" for j in range(300))
        (docs / f"note{i:02d}.txt").write_text(f"Note {i} about lamps.\n\n{words}\n")
    store = EdgeStore(tmp_path / "qdrant", index_step=20)
    seen: list[Progress] = []
    eng = Engine(
        load_settings(extract_in_subprocess=False), embedder=FakeEmbedder(), store=store
    ).open()
    try:
        report = eng.index([docs], progress=seen.append)
        assert len(report.indexed) == 30 and not report.failed
        steps = [p for p in seen if p.phase == "optimizing"]
        written = store.count_chunks()
        assert written >= 60
        # A step whenever 20 points waited, between documents: the backlog stays under it.
        assert len(steps) >= written // 20 - 1
        assert all(p.message == "building the search index" and p.path for p in steps)
        assert store.index_backlog() < 20
    finally:
        eng.close()  # indexes what is left
    with EdgeStore(tmp_path / "qdrant", index_step=20) as again:
        assert again.index_backlog() == 0
        assert again.count_chunks() == written
