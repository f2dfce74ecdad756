"""Indexing benchmark: pipeline throughput vs embedding alone, memory, re-scan time.

    .venv/bin/python benchmarks/index_bench.py [--files a.pdf b.pdf ...] [--corpus DIR]

Prints figures; asserts nothing (machines are noisy: compare the ratio, not seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILES = [
    "r-doc-pdf__R-intro.pdf",
    "packaging-tutorial__packaging-tutorial.pdf",
    "libsuitesparse-doc__KLU_UserGuide.pdf",
    "simh__simh_doc.pdf",
    "simh__pdp11_doc.pdf",
    "r-cran-hsaur3__Ch_simple_inference.pdf",
]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class ChildRss:
    """Peak RSS of the live child processes (the extraction worker is never reaped
    during a run, so RUSAGE_CHILDREN does not see it), sampled every 0.2 s."""

    def __init__(self) -> None:
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ChildRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.wait(0.2):
            for child in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self.peak_mb = max(self.peak_mb, child.memory_info().rss / 2**20)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    ap.add_argument("--files", nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--embed-repeats", type=int, default=1)
    args = ap.parse_args()
    corpus = Path(args.corpus)
    files = [corpus / f for f in args.files]
    missing = [f for f in files if not f.exists()]
    if missing:
        print(f"missing corpus files: {missing}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="docent-bench-") as home:
        os.environ["DOCENT_HOME"] = home
        from docent.core.config import load_settings
        from docent.core.engine import Engine

        with Engine(load_settings()) as eng:
            eng.embedder.ensure_loaded()  # model load is not indexing throughput
            t0 = time.perf_counter()
            with ChildRss() as child:
                report = eng.index(files)
            pipeline_s = time.perf_counter() - t0
            docs = eng.documents()
            pages = sum(d.pages for d in docs)
            chunks = sum(d.chunks for d in docs)
            assert eng.store is not None
            texts = [pl["text"] for d in docs for pl, _ in eng.store.iter_chunks(d.doc_id)]

            embed_times = []
            for _ in range(args.embed_repeats):
                t0 = time.perf_counter()
                eng.embedder.embed_dense(texts)
                eng.embedder.embed_sparse(texts)
                embed_times.append(time.perf_counter() - t0)
            embed_s = statistics.median(embed_times)
            # What keeping sentence vectors costs: the same texts through the model with
            # and without pooling each sentence of the pass (sentence_vectors.py), in
            # turns, three times each (one run of each differed by 15 % either way).
            sample = texts[:240]
            without, with_ = [], []
            for _ in range(3):
                t0 = time.perf_counter()
                eng.embedder.embed_dense(sample)
                without.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                eng.embedder.embed_chunks(sample, sample)
                with_.append(time.perf_counter() - t0)
            dense_only_s, with_sentences_s = statistics.median(without), statistics.median(with_)

            rescans = []
            for _ in range(3):
                t0 = time.perf_counter()
                again = eng.index(files)
                rescans.append(time.perf_counter() - t0)
            assert again.chunks_embedded == 0

    me, kids = peak_rss_mb(), child.peak_mb
    pipe_cps = chunks / pipeline_s
    embed_cps = len(texts) / embed_s
    print(f"files                 {len(files)} ({len(report.failed)} failed)")
    print(f"pages / chunks        {pages} / {chunks}")
    print(
        f"pipeline              {pipeline_s:.1f} s  = {pages / pipeline_s:.1f} pages/s, "
        f"{pipe_cps:.1f} chunks/s"
    )
    print(
        f"embed only (same run) {embed_s:.1f} s  = {embed_cps:.1f} chunks/s "
        "(dense + BM25 in this process)"
    )
    print(f"pipeline / embed-only {pipe_cps / embed_cps:.2f}  (target >= 0.9)")
    print(
        f"sentence vectors      {with_sentences_s:.1f} s with, {dense_only_s:.1f} s without, "
        f"medians of 3 for {min(len(texts), 240)} chunks "
        f"({with_sentences_s / dense_only_s:.2f}x: the pooling of one pass)"
    )
    print(
        f"peak RSS              {me:.0f} MB main, {kids:.0f} MB extraction process "
        f"(target < 1.5 GB)"
    )
    print(
        f"re-scan unchanged     median {statistics.median(rescans) * 1000:.0f} ms "
        f"over {len(files)} files"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
