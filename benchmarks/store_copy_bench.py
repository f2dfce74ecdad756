"""How fast `docent copy-store` moves points: a synthetic library in the embedded store
(Qdrant Edge) copied to the stand-in Qdrant server over HTTP (tests/qdrant_standin.py:
local mode behind real HTTP, the only server this machine has) and to qdrant-client's
local mode in a folder. No embedding happens in a copy, so the vectors are random unit
vectors and the sparse vectors random words; the payloads are the size of real chunks.

    .venv/bin/python benchmarks/store_copy_bench.py [--docs 40] [--chunks 50]

Prints points/s for reading from Edge, and for each whole copy, with the load average
before and after each figure. The stand-in's own cost (local mode's Python, JSON) is in
the HTTP figure: a real server would be faster at its end, a network slower.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from docent.core.catalog import Catalog  # noqa: E402
from docent.core.models import DocState, DocumentRecord, SparseVec  # noqa: E402
from docent.core.store import ChunkPoint, Store, chunk_point_id, open_store  # noqa: E402
from docent.core.store_copy import copy_library  # noqa: E402
from docent.core.store_server import ServerOptions  # noqa: E402
from qdrant_standin import QdrantStandin  # noqa: E402

DIM = 384
WORDS = 180  # a chunk's words, as the chunker makes them


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build(folder: Path, docs: int, chunks: int) -> tuple[Catalog, Store]:
    rng = np.random.default_rng(1)
    catalog = Catalog(folder / "catalog.sqlite3")
    store = open_store(path=folder / "qdrant", dim=DIM)
    for d in range(docs):
        doc_id = uuid.uuid4().hex
        vectors = rng.normal(size=(chunks, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        points = [
            ChunkPoint(
                chunk_point_id(doc_id, i),
                vectors[i].tolist(),
                SparseVec(sorted(rng.choice(30000, 60, replace=False).tolist()), [1.0] * 60),
                {
                    "doc_id": doc_id,
                    "path": f"/library/doc{d}.pdf",
                    "file_name": f"doc{d}.pdf",
                    "page_start": i + 1,
                    "page_end": i + 1,
                    "ordinal": i,
                    "text": " ".join(f"word{int(w)}" for w in rng.integers(0, 5000, WORDS)),
                    "content_hash": uuid.uuid4().hex,
                    "heading": "",
                    "collections": ["default"],
                },
            )
            for i in range(chunks)
        ]
        store.upsert_chunks(points)
        rec = DocumentRecord(doc_id=doc_id, path=f"/library/doc{d}.pdf", file_name=f"doc{d}.pdf")
        rec.state, rec.chunks, rec.sha256, rec.indexed_at = DocState.READY, chunks, "x", time.time()
        store.upsert_document(doc_id, vectors[0].tolist(), {"doc_id": doc_id, "sha256": "x"})
        catalog.put(rec)
    store.flush()
    return catalog, store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--chunks", type=int, default=50)
    args = ap.parse_args()
    total = args.docs * args.chunks
    print(f"machine: 2-core dev box, shared (NOT quiet); cpus={os.cpu_count()}")
    print(f"library: {args.docs} documents x {args.chunks} chunks = {total} points")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        catalog, store = build(folder, args.docs, args.chunks)
        ids = [r.doc_id for r in catalog.all()]

        before = load()
        t = time.perf_counter()
        read = sum(len(store.export_chunks(d)) for d in ids)
        s = time.perf_counter() - t
        print(f"read from Edge: {read / s:,.0f} points/s ({s:.2f} s; load {before} -> {load()})")

        standin = QdrantStandin().start()
        try:
            target = open_store(server=ServerOptions(url=standin.url, timeout=60), dim=DIM)
            before = load()
            report = copy_library(catalog, store, target, where="the stand-in")
            rate = report.points / report.seconds
            print(
                f"copy to the HTTP stand-in: {rate:,.0f} points/s ({report.seconds:.1f} s; "
                f"load {before} -> {load()})"
            )
            before = load()
            again = copy_library(catalog, store, target, where="the stand-in")
            print(
                f"copy again (all already there): {again.seconds:.2f} s for "
                f"{len(again.already)} documents (load {before} -> {load()})"
            )
            target.close()
        finally:
            standin.stop()

        local = open_store(local_client_path=str(folder / "local"), dim=DIM)
        before = load()
        report = copy_library(catalog, store, local, where="local mode")
        rate = report.points / report.seconds
        print(
            f"copy to local mode (a folder): {rate:,.0f} points/s ({report.seconds:.1f} s; "
            f"load {before} -> {load()})"
        )
        local.close()
        store.close()
        catalog.close()


if __name__ == "__main__":
    main()
