"""Does a search in one collection cost more when other collections are large?

Builds embedded Qdrant Edge stores in a scratch folder: collection A (``--a`` chunks, the
one searched) alone, then beside a collection B of each ``--b`` size, and times the
store's hybrid query (dense + BM25 prefetch, RRF) filtered to A, the same call retrieval
makes for every variant. Vectors are random (the cost of a filtered query does not
depend on what the vectors mean). Prints p50 / p95 per size and the ratio to A alone.

    .venv/bin/python benchmarks/collection_bench.py --a 2000 --b 0 20000 50000
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from docent.core.models import SparseVec
from docent.core.store import COLLECTIONS, ChunkPoint, chunk_point_id
from docent.core.store_edge import EdgeStore

DIM = 384
VOCAB = 30_000


def unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def sparse(rng: random.Random, terms: int = 40) -> SparseVec:
    idx = sorted(rng.sample(range(VOCAB), terms))
    return SparseVec(idx, [1.0 + rng.random() for _ in idx])


def fill(store: EdgeStore, rng: random.Random, collection: str, chunks: int) -> None:
    per_doc = 50
    points = []
    for i in range(chunks):
        doc = f"{collection}-{i // per_doc}"
        payload = {
            "doc_id": doc,
            "path": f"/{collection}/{doc}.pdf",
            "file_name": f"{doc}.pdf",
            "page_start": 1,
            "page_end": 1,
            "ordinal": i % per_doc,
            "text": f"chunk {i} of {collection}",
            "content_hash": f"{collection}{i}",
            COLLECTIONS: [collection],
        }
        points.append(ChunkPoint(chunk_point_id(doc, i % per_doc), unit(rng), sparse(rng), payload))
        if len(points) == 1000:
            store.upsert_chunks(points)
            points = []
    if points:
        store.upsert_chunks(points)


def time_queries(store: EdgeStore, rng: random.Random, n: int) -> list[float]:
    out = []
    for _ in range(n):
        dense, sp = unit(rng), sparse(rng, 8)
        t0 = time.perf_counter()
        hits = store.query(dense=dense, sparse=sp, limit=50, prefetch_limit=50, collection="a")
        out.append((time.perf_counter() - t0) * 1e3)
        assert all(h.payload[COLLECTIONS] == ["a"] for h in hits)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=int, default=2000, help="chunks in the collection searched")
    ap.add_argument("--b", type=int, nargs="+", default=[0, 20000, 50000], help="other sizes")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    base = None
    for b in args.b:
        rng = random.Random(17)
        folder = Path(tempfile.mkdtemp(prefix="docent-collbench-"))
        try:
            store = EdgeStore(folder / "qdrant", dim=DIM)
            fill(store, rng, "a", args.a)
            fill(store, rng, "b", b)
            store.flush()
            time_queries(store, rng, 20)  # warm up
            ms = sorted(time_queries(store, rng, args.queries))
            p50, p95 = statistics.median(ms), ms[int(0.95 * (len(ms) - 1))]
            base = base or p50
            print(
                f"A {args.a:>6} + B {b:>6} chunks: hybrid query in A p50 {p50:6.2f} ms, "
                f"p95 {p95:6.2f} ms, p50 ratio to A alone {p50 / base:4.2f}"
            )
            store.close()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
