"""OCR's memory in the extraction worker, under the worker's real caps.

    .venv/bin/python benchmarks/ocr_memory.py [--corpus DIR] [FILE ...]

Each scan is prepared (OCR included) by a fresh ``ProcessPreparer`` with the default
settings' limits, so the address-space cap (``extract_memory_mb``) and the stream cap are
the ones a user has. The worker's peak RSS is its ``VmHWM`` read after the file, before
the worker is closed: the exact high-water mark, not a sample. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The corpus's image-only and skewed/two-column scans, and the longest scan with a layer.
SCANS = [
    "pikepdf__congress.pdf",
    "ocrmypdf__c03-29.pdf",
    "ocrmypdf__skew.pdf",
    "ocrmypdf__linn.pdf",
    "ocrmypdf__epson.pdf",
    "pypdf__Seige_of_Vicksburg_Sample_OCR.pdf",
]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _vm(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    ap.add_argument("files", nargs="*", default=SCANS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="docent-ocrmem-") as tmp:
        os.environ["DOCENT_HOME"] = tmp
        from docent.core.config import load_settings
        from docent.core.embedding import Embedder
        from docent.core.preparing import Limits
        from docent.core.sandbox import ProcessPreparer

        settings = load_settings()
        limits = Limits.of(settings)
        embedder = Embedder()
        print(f"2-core dev box; load average {_load()} at the start")
        print(
            f"limits: memory {limits.memory_mb} MB above the idle worker, "
            f"stream {limits.stream_mb} MB, OCR page {limits.ocr_page_seconds:.0f} s\n"
        )
        print("| file | pages | OCR'd | outcome | seconds | worker idle RSS | worker peak RSS |")
        print("|---|---|---|---|---|---|---|")
        for name in args.files:
            path = Path(args.corpus) / name
            prep = ProcessPreparer(
                embedder.tokenizer_json(),
                embedder.cache_dir,
                str(Path(tmp) / name / "cache"),
                limits,
                ocr=True,
            )
            try:
                t0 = time.perf_counter()
                task = prep.submit(str(path), "")
                got = prep.result(task, threading.Event(), lambda label, pages: None)
                seconds = time.perf_counter() - t0
                pid = prep._proc.pid  # noqa: SLF001 - the worker's own high-water mark
                idle, peak = _vm(pid, "VmRSS"), _vm(pid, "VmHWM")
            finally:
                prep.close()
            outcome = got.reason or "read"
            print(
                f"| {name} | {got.pages} | {got.ocr_pages} | {outcome} | {seconds:.1f} "
                f"| {idle:.0f} MB | {peak:.0f} MB |"
            )
        print(f"\nload average {_load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
