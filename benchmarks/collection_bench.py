"""Does a search in one collection cost more when other collections are large?

Builds embedded Qdrant Edge stores in a scratch folder: collection A (``--a`` chunks, the
one searched) alone, then beside a collection B of each ``--b`` size, and times the
store's hybrid query (dense + BM25 prefetch, RRF) filtered to A, the same call retrieval
makes for every variant; its two halves alone (dense, BM25), filtered to A; and the
hybrid query unfiltered (what a search of all collections costs), for contrast. Vectors
are random (the cost of a filtered query does not depend on what the vectors mean). The
same queries run against every store, in rounds that rotate through them, so a busy spell
on a shared machine falls on each. Prints p50 / p95 per size and the ratio of each p50 to
A alone. The stores are optimized first, as a library is once a session that wrote 2,000+
points closes (``--as-written`` skips that: unoptimized segments, brute-force search).

    .venv/bin/python benchmarks/collection_bench.py --a 2000 --b 0 20000 50000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from docent.core.models import SparseVec
from docent.core.store import COLLECTIONS, ChunkPoint, chunk_point_id
from docent.core.store_edge import EdgeStore

DIM = 384
VOCAB = 30_000
#: What is timed: (label, dense?, sparse?, filtered to A?).
MODES = (
    ("hybrid in A", True, True, True),
    ("dense in A", True, False, True),
    ("BM25 in A", False, True, True),
    ("hybrid, all", True, True, False),
)


def units(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def sparse(rng: random.Random, terms: int = 40) -> SparseVec:
    idx = sorted(rng.sample(range(VOCAB), terms))
    return SparseVec(idx, [1.0 + rng.random() for _ in idx])


def fill(store: EdgeStore, seed: int, collection: str, chunks: int) -> None:
    per_doc, batch = 50, 1000
    rng, vectors = random.Random(seed), np.random.default_rng(seed)
    for start in range(0, chunks, batch):
        dense = units(vectors, min(batch, chunks - start))
        points = []
        for j, vec in enumerate(dense):
            i = start + j
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
            points.append(
                ChunkPoint(chunk_point_id(doc, i % per_doc), vec.tolist(), sparse(rng), payload)
            )
        store.upsert_chunks(points)


def time_query(
    store: EdgeStore, query: tuple[list[float], SparseVec], mode: tuple[str, bool, bool, bool]
) -> float:
    _, use_dense, use_sparse, filtered = mode
    collection = "a" if filtered else None
    t0 = time.perf_counter()
    hits = store.query(
        dense=query[0] if use_dense else None,
        sparse=query[1] if use_sparse else None,
        limit=50,
        prefetch_limit=50,
        collection=collection,
    )
    ms = (time.perf_counter() - t0) * 1e3
    assert collection is None or all(h.payload[COLLECTIONS] == [collection] for h in hits)
    return ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=int, default=2000, help="chunks in the collection searched")
    ap.add_argument("--b", type=int, nargs="+", default=[0, 20000, 50000], help="other sizes")
    ap.add_argument("--queries", type=int, default=40, help="queries per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--as-written", action="store_true", help="do not optimize the stores")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    root = Path(tempfile.mkdtemp(prefix="docent-collbench-"))
    stores: dict[int, EdgeStore] = {}
    try:
        for b in args.b:
            stores[b] = EdgeStore(root / f"b{b}", dim=DIM)
            fill(stores[b], 17, "a", args.a)  # A is the same in every store
            fill(stores[b], 18, "b", b)
            stores[b].flush()
            if not args.as_written:
                stores[b].optimize()
        rng = random.Random(4)
        queries = [
            (units(np.random.default_rng(i), 1)[0].tolist(), sparse(rng, 8))
            for i in range(args.queries)
        ]
        times: dict[tuple[int, str], list[float]] = {(b, m[0]): [] for b in args.b for m in MODES}
        for b in args.b:  # warm up
            for q in queries[:10]:
                for mode in MODES:
                    time_query(stores[b], q, mode)
        # Rounds rotate through the stores, so a busy spell on the machine falls on each.
        for r in range(args.rounds):
            for b in args.b[r % len(args.b) :] + args.b[: r % len(args.b)]:
                for q in queries:
                    for mode in MODES:
                        times[b, mode[0]].append(time_query(stores[b], q, mode))
        state = "as written" if args.as_written else "optimized"
        print(f"p50 / p95 in ms (x the p50 with A alone); A = {args.a} chunks; stores {state}")
        print(f"{'B chunks':>9} " + " ".join(f"{m[0]:>24}" for m in MODES))
        for b in args.b:
            cells = []
            for mode in MODES:
                ms = sorted(times[b, mode[0]])
                p50, p95 = statistics.median(ms), ms[int(0.95 * (len(ms) - 1))]
                base = statistics.median(times[args.b[0], mode[0]])
                cells.append(f"{p50:6.2f} / {p95:6.2f} (x{p50 / base:5.2f})")
            print(f"{b:>9} " + " ".join(f"{c:>24}" for c in cells))
    finally:
        for store in stores.values():
            store.close()
        shutil.rmtree(root, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
