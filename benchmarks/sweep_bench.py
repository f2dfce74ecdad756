"""Startup-sweep benchmark: a watched folder of unchanged files must cost no embedding.

    .venv/bin/python benchmarks/sweep_bench.py [--files 1000] [--folders 20] [--runs 5]

Builds a folder of small text files, indexes it once, then reopens the engine several
times and times ``start_watching()`` until the queue is idle (observer start with its
recursive inotify watches + the sweep: walk, size+mtime check per file, gone-file check).
Prints the median; target < 2 s for 1,000 files. Fails (exit 1) if the sweep embedded
anything or changed the catalog.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "lantern",
    "harbour",
    "ledger",
    "crate",
    "seal",
    "tin",
    "oil",
    "inspector",
    "season",
    "north",
    "quay",
]


def make_folder(root: Path, files: int, folders: int) -> None:
    for i in range(files):
        sub = root / f"part-{i % folders:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        words = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(25))
        (sub / f"note-{i:05d}.txt").write_text(f"Note {i}: {words}. Entry number {i}.\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--folders", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="docent-sweep-bench-") as tmp:
        os.environ["DOCENT_HOME"] = str(Path(tmp) / "home")
        from docent.core.config import load_settings
        from docent.core.engine import Engine
        from docent.core.index_events import IndexEvent, JobFailed, JobFinished, JobKind

        library = Path(tmp) / "library"
        make_folder(library, args.files, args.folders)
        settings = load_settings()

        t0 = time.perf_counter()
        with Engine(settings) as eng:
            eng.watch(library)
            eng.start_watching()
            if not eng.wait_idle(3600):
                print("the first indexing did not finish", file=sys.stderr)
                return 1
            docs = len(eng.documents())
        print(f"indexed {docs} files once in {time.perf_counter() - t0:.1f} s (setup)")

        walls: list[float] = []
        sweeps: list[float] = []
        for run in range(args.runs):
            results: list[JobFinished | JobFailed] = []

            def on_event(
                event: IndexEvent, results: list[JobFinished | JobFailed] = results
            ) -> None:
                if isinstance(event, JobFinished | JobFailed):
                    results.append(event)

            with Engine(load_settings()) as eng:
                eng.subscribe(on_event)
                t0 = time.perf_counter()
                eng.start_watching()
                idle = eng.wait_idle(120)
                wall = time.perf_counter() - t0
                embedded = eng.embedder.texts_embedded
                after = len(eng.documents())
            sweep = [r for r in results if r.job.kind is JobKind.SWEEP]
            changed = [e for r in results for e in r.changes()]
            unchanged = sum(len(r.report.unchanged) for r in sweep)
            print(
                f"run {run + 1}: {wall:.3f} s to idle (sweep job "
                f"{sweep[0].report.seconds:.3f} s), {unchanged} unchanged, "
                f"{embedded} embedded, {len(changed)} changes"
            )
            if not idle or embedded or changed or after != docs or unchanged != docs:
                print("FAIL: the sweep of an unchanged folder did work", file=sys.stderr)
                return 1
            walls.append(wall)
            sweeps.append(sweep[0].report.seconds)

    median = statistics.median(walls)
    verdict = "ok" if median < 2.0 else "OVER TARGET"
    print(
        f"startup sweep of {args.files} unchanged files: median {median:.3f} s to idle "
        f"(sweep job {statistics.median(sweeps):.3f} s) over {args.runs} runs; "
        f"target < 2 s: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
