"""A 1,000-page PDF: steady pages/s and peak memory, reading it and indexing it.

    .venv/bin/python benchmarks/big_pdf.py [--pages 1000] [--index]

Builds the PDF by concatenating the corpus's text manuals (pypdfium2 ``import_pages``,
in a scratch folder), then:

1. prepares it in the real extraction worker (``ProcessPreparer``: its own process with
   the app's time and memory limits; read, chunk with the model's tokenizer, BM25): the
   steady pages/s is the rate between 10 % and 90 % of the pages (the worker reports
   each page it starts), and the worker's peak RSS is sampled every 0.2 s;
2. with ``--index``, indexes it with the real Engine (embedding included, the
   bottleneck): wall time, chunks/s, the app's peak RSS and the worker's.

Prints figures with the load average; asserts nothing. Target: peak RSS < 500 MB.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

from index_bench import ChildRss

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pdfs"
#: Text manuals, none encrypted or scanned.
SOURCES = [
    "gnuplot-doc__gnuplot.pdf",
    "debian-reference-en__debian-reference.en.pdf",
    "libsuitesparse-doc__UMFPACK_UserGuide.pdf",
    "r-doc-pdf__R-intro.pdf",
    "debian-edu-doc-en__debian-edu-bookworm-manual.pdf",
    "packaging-tutorial__packaging-tutorial.pdf",
    "debian-edu-doc-legacy-en__debian-edu-itil-manual.pdf",
    "pari-doc__tutorial.pdf",
]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def build(out: Path, pages: int) -> None:
    import pypdfium2 as pdfium

    dst = pdfium.PdfDocument.new()
    while len(dst) < pages:
        for name in SOURCES:
            src = pdfium.PdfDocument(str(CORPUS / name))
            take = min(len(src), pages - len(dst))
            if take > 0:
                dst.import_pages(src, pages=list(range(take)))
            src.close()
    dst.save(str(out))
    dst.close()


def prepare(path: Path, home: Path) -> None:
    os.environ["DOCENT_HOME"] = str(home)
    from docent.core.config import load_settings
    from docent.core.embedding import Embedder
    from docent.core.preparing import Limits
    from docent.core.sandbox import ProcessPreparer

    settings = load_settings()
    embedder = Embedder()
    prep = ProcessPreparer(
        embedder.tokenizer_json(),
        embedder.cache_dir,
        str(settings.text_cache_path),
        Limits.of(settings),
        ocr=False,
    )
    marks: list[tuple[float, int]] = []

    def on_step(label: str, pages: int) -> None:
        marks.append((time.perf_counter(), pages))

    t0 = time.perf_counter()
    with ChildRss() as child:
        task = prep.submit(str(path), "")
        result = prep.result(task, threading.Event(), on_step)
    wall = time.perf_counter() - t0
    prep.close()
    n = result.pages
    lo = next(t for t, p in marks if p >= 0.1 * n)
    hi = next(t for t, p in marks if p >= 0.9 * n)
    print(f"prepared              {n} pages, {len(result.chunks)} chunks in {wall:.1f} s")
    print(f"steady pages/s        {0.8 * n / (hi - lo):.1f} (10 %-90 % of the pages)")
    print(f"worker peak RSS       {child.peak_mb:.0f} MB (target < 500 MB); load {_load()}")


def index(path: Path, home: Path) -> None:
    os.environ["DOCENT_HOME"] = str(home)
    from docent.core.config import load_settings
    from docent.core.engine import Engine

    with Engine(load_settings()) as eng:
        eng.embedder.ensure_loaded()
        t0 = time.perf_counter()
        with ChildRss() as child:
            report = eng.index([path])
        wall = time.perf_counter() - t0
        chunks = sum(d.chunks for d in eng.documents())
    main_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"indexed               {chunks} chunks in {wall:.0f} s = {chunks / wall:.1f} chunks/s")
    print(f"failed                {[f.message for f in report.failed]}")
    print(f"peak RSS              {main_mb:.0f} MB app, {child.peak_mb:.0f} MB worker")
    print(f"load average          {_load()} (2-core dev box, shared)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--index", action="store_true", help="also index it (embedding: slow)")
    args = ap.parse_args()
    print(f"load average          {_load()}")
    with tempfile.TemporaryDirectory(prefix="docent-bigpdf-") as tmp:
        pdf = Path(tmp) / f"concatenated-{args.pages}-pages.pdf"
        build(pdf, args.pages)
        print(f"built                 {pdf.name}, {pdf.stat().st_size / 2**20:.1f} MB")
        prepare(pdf, Path(tmp) / "prep-home")
        if args.index:
            index(pdf, Path(tmp) / "index-home")
    return 0


if __name__ == "__main__":
    sys.exit(main())
