"""How long a search waits while the same engine embeds a big PDF (the window's case:
a question asked while a folder is indexed), and what the indexing does meanwhile.

    .venv/bin/python benchmarks/search_while_indexing.py [--file BIG.pdf] [--seconds 60]
    DOCENT_EMBED_BATCH_SIZE=8 .venv/bin/python benchmarks/search_while_indexing.py

A small PDF is indexed first; its question is searched 8 times with nothing else running
(quiet), then every 0.5 s while the big file is extracted and embedded. Prints the
searches' median, 90th percentile and longest time, quiet and while embedding (a search
slower than 0.2 s is counted as one that waited for the model), and the chunks embedded
per second. Asserts nothing: machines are noisy, compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pdfs"
SMALL = REPO / "resources" / "samples" / "simh__ctss_hardware.pdf"
QUESTION = "How is memory protection done?"


def _ms(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"median {statistics.median(ordered) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms (n={len(ordered)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--file", default=str(CORPUS / "debian-reference-en__debian-reference.en.pdf")
    )
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    os.environ["DOCENT_HOME"] = tempfile.mkdtemp(prefix="docent-swi-")
    sys.path.insert(0, str(REPO / "desktop"))
    from docent.core.config import load_settings
    from docent.core.engine import Engine

    settings = load_settings()
    with Engine(settings) as eng:
        eng.index([str(SMALL)])
        quiet = []
        for _ in range(8):
            t = time.perf_counter()
            eng.search(QUESTION)
            quiet.append(time.perf_counter() - t)
        before = eng.embedder.texts_embedded
        eng.submit_index([args.file])
        during: list[float] = []
        start = time.perf_counter()
        first_embedded = last_embedded = 0.0
        while time.perf_counter() - start < args.seconds:
            embedded = eng.embedder.texts_embedded
            t = time.perf_counter()
            eng.search(QUESTION)
            took = time.perf_counter() - t
            if embedded > before:  # the embedding had begun: the contended case
                during.append(took)
                first_embedded = first_embedded or t
                last_embedded = time.perf_counter()
            time.sleep(0.5)
        chunks = eng.embedder.texts_embedded - before
        eng.cancel_indexing()
    waited = sum(1 for d in during if d > 0.2)
    rate = chunks / (last_embedded - first_embedded) if last_embedded > first_embedded else 0
    print(f"file: {Path(args.file).name}; embed batch size {settings.embed_batch_size}")
    print(f"search, quiet:           {_ms(quiet)}")
    print(f"search, while embedding: {_ms(during)}; {waited} waited over 0.2 s")
    print(f"embedding meanwhile: {chunks} chunks, about {rate:.1f} chunks/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
