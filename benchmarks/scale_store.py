"""A library of 200k chunks: search latency, startup, store size and memory.

    .venv/bin/python benchmarks/scale_store.py build --home DIR [--chunks 200000]
    .venv/bin/python benchmarks/scale_store.py measure --home DIR [--queries 60]

``build`` indexes a few corpus manuals with the real pipeline (real embeddings, real
BM25), then adds copies of their documents until the store holds ``--chunks`` chunks.
Each copy is a document of its own (its own id, path and catalog record, written as the
indexer writes one: catalog ``indexing``, chunks in batches of 100, the documents point,
``ready``) whose chunks keep the original text, pages and BM25 vector, and whose dense
vector is the original's plus Gaussian noise, renormalised (``--noise`` 0.33: cosine
~0.95 to the original; no two points are the same, so the HNSW graph is not built over
duplicates). Embedding 200k chunks would take ~5 h at the ~12 chunks/s of this machine.
The store is flushed every 5,000 points and indexed in steps as the indexer does it
(``optimize()`` whenever ``index_due()``: one segment of ~10k points per step), and what
is left is indexed at close, as a closing app does. (Written without the steps, the store
searched by a scan: p50 250 ms at 200k on the busy box, and indexing it at close had not
finished after 16 min at 6.2 GB RSS.)

``measure`` (run it in a fresh process: the figures are its own) opens the library as the
app does (catalog, store, reconciliation) and times that; loads the model; then asks the
dev questions through ``Engine.search`` (query embedding, variants, hybrid RRF, caps,
neighbours: the whole retrieval pipeline) and prints p50/p95, the store's size on disk
and the process's RSS, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pdfs"
BASE_FILES = [
    "r-doc-pdf__R-intro.pdf",
    "libsuitesparse-doc__KLU_UserGuide.pdf",
    "simh__simh_doc.pdf",
    "simh__pdp11_doc.pdf",
    "r-cran-hsaur3__Ch_simple_inference.pdf",
]
FLUSH_POINTS = 5000


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def _rss_mb() -> tuple[float, float]:
    now = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1]) / 1024
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _du_mb(path: Path) -> float:
    """Blocks really used (Qdrant's memory-mapped files are sparse: their sizes say more)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 2**20


def build(home: Path, chunks: int, noise: float, base_files: list[str]) -> None:
    steps: list[float] = []
    with _build(home, chunks, noise, base_files, steps):
        t_end = time.perf_counter()
    print(
        f"index steps: {len(steps)}, {sum(steps):.0f} s in all "
        f"(each {min(steps, default=0):.0f}-{max(steps, default=0):.0f} s); "
        f"close (the last step, flush): {time.perf_counter() - t_end:.0f} s "
        f"(load {_load()})",
        flush=True,
    )


@contextmanager
def _build(
    home: Path, chunks: int, noise: float, base_files: list[str], steps: list[float]
) -> Iterator[Any]:
    os.environ["DOCENT_HOME"] = str(home)
    from docent.core.config import load_settings
    from docent.core.context import indexed_text
    from docent.core.engine import Engine
    from docent.core.indexer import mean_vector, record_payload
    from docent.core.models import DEFAULT_COLLECTION, DocState
    from docent.core.store import COLLECTIONS, SENTENCES, ChunkPoint, chunk_point_id

    rng = np.random.default_rng(18)
    with Engine(load_settings()) as eng:
        assert eng.store is not None and eng.catalog is not None
        t0 = time.perf_counter()
        report = eng.index([CORPUS / f for f in base_files])
        print(
            f"base: {report.chunks_embedded} chunks embedded in "
            f"{time.perf_counter() - t0:.0f} s (load {_load()})",
            flush=True,
        )
        base = []
        for rec in eng.catalog.all():
            rows = eng.store.iter_chunks(rec.doc_id, with_vectors=True)
            # Each copy keeps its chunk's sentence vectors too (iter_chunks leaves them out).
            kept = eng.store.sentence_vectors(
                [chunk_point_id(rec.doc_id, p["ordinal"]) for p, _ in rows]
            )
            payloads = [
                {**p, SENTENCES: kept.get(chunk_point_id(rec.doc_id, p["ordinal"]), "")}
                for p, _ in rows
            ]
            sparse = eng.embedder.embed_sparse(
                [indexed_text(p.get("context", ""), p["text"]) for p in payloads]
            )
            dense = np.asarray([v for _, v in rows], dtype=np.float32)
            base.append((rec, payloads, dense, sparse))
        total = sum(len(b[1]) for b in base)
        copy, written, flushed = 0, total, total
        t0 = time.perf_counter()
        while written < chunks:
            copy += 1
            for rec, payloads, dense, sparse in base:
                if written >= chunks:
                    break
                doc_id = f"copy{copy:04d}-{rec.doc_id}"
                path = str(home / "synthetic" / f"copy-{copy:04d}" / rec.file_name)
                new = type(rec)(
                    doc_id=doc_id,
                    path=path,
                    file_name=rec.file_name,
                    sha256=f"{rec.sha256[:48]}{copy:016x}",
                    size=rec.size,
                    mtime=rec.mtime,
                    pages=rec.pages,
                    state=DocState.INDEXING,
                    page_unit=rec.page_unit,
                    index_format=rec.index_format,
                    collections=[DEFAULT_COLLECTION],
                )
                eng.catalog.put(new)
                eng.catalog.set_collections(doc_id, new.collections)
                vecs = dense + rng.standard_normal(dense.shape, dtype=np.float32) * (
                    noise / np.sqrt(dense.shape[1])
                )
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                points = [
                    ChunkPoint(
                        id=chunk_point_id(doc_id, p["ordinal"]),
                        dense=vecs[i].tolist(),
                        sparse=sparse[i],
                        payload={
                            **p,
                            "doc_id": doc_id,
                            "path": path,
                            "content_hash": f"{p['content_hash']}-{copy}",
                            COLLECTIONS: [DEFAULT_COLLECTION],
                        },
                    )
                    for i, p in enumerate(payloads)
                ]
                for start in range(0, len(points), 100):
                    eng.store.upsert_chunks(points[start : start + 100])
                new.chunks, new.state, new.indexed_at = len(points), DocState.READY, time.time()
                eng.store.upsert_document(
                    doc_id, mean_vector(v.tolist() for v in vecs[:3]), record_payload(new)
                )
                eng.catalog.put(new)
                eng.catalog.payload_synced([doc_id])
                written += len(points)
                if written - flushed >= FLUSH_POINTS:
                    eng.store.flush()
                    flushed = written
                if eng.store.index_due():
                    t1 = time.perf_counter()
                    eng.store.optimize()
                    steps.append(time.perf_counter() - t1)
                    print(
                        f"  index step at {written} chunks: {steps[-1]:.0f} s (load {_load()})",
                        flush=True,
                    )
            if copy % 20 == 0:
                rate = (written - total) / (time.perf_counter() - t0)
                print(f"  {written} chunks, {rate:.0f}/s (load {_load()})", flush=True)
        eng.store.flush()
        print(
            f"wrote {written - total} copied chunks ({copy} copies of {len(base)} documents) "
            f"in {time.perf_counter() - t0:.0f} s (index steps included)",
            flush=True,
        )
        yield eng


def measure(home: Path, queries: int) -> None:
    os.environ["DOCENT_HOME"] = str(home)
    t0 = time.perf_counter()
    from docent.core.config import load_settings
    from docent.core.engine import Engine

    settings = load_settings()
    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    eng = Engine(settings).open()
    t_open = time.perf_counter() - t0
    rss_open = _rss_mb()[0]
    t0 = time.perf_counter()
    eng.embedder.ensure_loaded()
    t_model = time.perf_counter() - t0
    assert eng.store is not None
    docs = eng.documents()
    n_chunks = sum(d.chunks for d in docs)
    lines = (REPO / "benchmarks" / "retrieval_questions.jsonl").read_text().splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()][:queries]
    eng.search("warm-up question about the terminal")
    times, cpu, bare, load_seen = [], [], [], []
    stages: dict[str, list[float]] = {}
    for q in questions:
        t0, c0 = time.perf_counter(), time.process_time()
        result = eng.search(q, debug=True)
        times.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
        assert result.hits, q
        for stage, ms in result.debug["timings_ms"].items():
            stages.setdefault(stage, []).append(ms)
        # The store's share: the question's own embeddings and one hybrid query.
        t0 = time.perf_counter()
        eng.store.query(dense=eng.embedder.query_dense(q), sparse=eng.embedder.query_sparse(q))
        bare.append((time.perf_counter() - t0) * 1e3)
        load_seen.append(os.getloadavg()[0])
    eng.close()
    times.sort()
    bare.sort()
    rss_now, rss_peak = _rss_mb()
    print(f"library              {len(docs)} documents, {n_chunks} chunks")
    print(f"store on disk        {_du_mb(settings.store_path):.0f} MB (qdrant/)")
    print(
        f"startup              imports {t_import:.2f} s, open {t_open:.2f} s, model {t_model:.2f} s"
    )
    print(
        f"search, {len(times)} questions (query embedding included): p50 {statistics.median(times):.0f} ms, "
        f"p95 {times[int(0.95 * (len(times) - 1))]:.0f} ms, max {times[-1]:.0f} ms (target p50 < 100 ms)"
    )
    print(
        f"CPU per search (all threads; depends little on the load): p50 "
        f"{statistics.median(cpu):.0f} ms, p95 {sorted(cpu)[int(0.95 * (len(cpu) - 1))]:.0f} ms"
    )
    print(
        "stages, p50 ms: "
        + ", ".join(
            f"{name} {statistics.median(v):.1f}" for name, v in stages.items() if name != "total"
        )
    )
    print(
        f"one hybrid query, its embeddings included: p50 {statistics.median(bare):.0f} ms, "
        f"p95 {bare[int(0.95 * (len(bare) - 1))]:.0f} ms"
    )
    print(f"RSS                  {rss_open:.0f} MB after open, peak {rss_peak:.0f} MB")
    print(
        f"load average during searches: median {statistics.median(load_seen):.1f}, "
        f"max {max(load_seen):.1f} (2-core dev box, shared)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["build", "measure"])
    ap.add_argument("--home", required=True)
    ap.add_argument("--chunks", type=int, default=200_000)
    ap.add_argument("--noise", type=float, default=0.33)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--files", nargs="*", default=BASE_FILES)
    args = ap.parse_args()
    print(f"load average: {_load()}", flush=True)
    if args.mode == "build":
        build(Path(args.home), args.chunks, args.noise, args.files)
    else:
        measure(Path(args.home), args.queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
