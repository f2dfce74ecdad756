"""Re-indexing an edited file: the changed chunks embedded, the rest reused.

    .venv/bin/python benchmarks/update_bench.py [--paragraphs 6000] [--edits 3]

Writes a text file of PARAGRAPHS numbered paragraphs (~1 MB, ~1,030 chunks with the
bundled model), indexes it, then edits paragraphs one at a time and times each update:
the first edit changes words inside one chunk; later ones change its length, so the
chunks after it are cut again. Prints, per update, the seconds and the chunks embedded and
reused, and the median. An edited ready document's new version is staged beside the old
one (searchable meanwhile) and then copied under its own id from the stored vectors: the
copy is this benchmark's difference between session 26's code and session 27's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def run(paragraphs: int, edits: int) -> None:
    from docent.core.config import load_settings
    from docent.core.engine import Engine

    root = Path(tempfile.mkdtemp(prefix="docent-update-"))
    try:
        path = root / "lib" / "big.txt"
        path.parent.mkdir()
        paras = [
            f"Paragraph {i}: the harbour master counted {i} crates of lamp oil in storehouse "
            f"{i % 17}, sealed and weighed before the winter convoy left the northern quay."
            for i in range(paragraphs)
        ]
        path.write_text("\n\n".join(paras))
        eng = Engine(load_settings(data_dir=str(root / "home"))).open()
        try:
            started = time.perf_counter()
            eng.index([path])
            print(f"first index: {time.perf_counter() - started:.1f} s", flush=True)
            times = []
            for k in range(edits):
                paras[paragraphs // 2 + k] = f"Paragraph edited {k}: the keeper lit the lamp."
                path.write_text("\n\n".join(paras))
                started = time.perf_counter()
                report = eng.index([path])
                times.append(time.perf_counter() - started)
                print(
                    f"update {k + 1}: {times[-1]:.2f} s, {report.chunks_embedded} embedded, "
                    f"{report.chunks_reused} reused, {eng.resolve('big.txt').chunks} chunks",
                    flush=True,
                )
            print(f"median update {statistics.median(times):.2f} s; load {os.getloadavg()[0]:.1f}")
        finally:
            eng.close()
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paragraphs", type=int, default=6000)
    ap.add_argument("--edits", type=int, default=3)
    args = ap.parse_args()
    run(args.paragraphs, args.edits)
