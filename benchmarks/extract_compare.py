"""Extraction before and after a change: chunk texts, pages and highlights on a corpus.

    .venv/bin/python benchmarks/extract_compare.py --dump before.json   # on the old code
    .venv/bin/python benchmarks/extract_compare.py --dump after.json    # on the new code
    .venv/bin/python benchmarks/extract_compare.py --compare before.json after.json

``--dump`` reads every PDF of the corpus the way the extraction worker does (``extract``,
OCR off: scans are the same either way and OCR would take the whole run), chunks it with
the bundled model's tokenizer (``chunk_document``) and saves, per file, its pages, the
chunks (text, first page, last page), the extraction's CPU seconds and the chunking's.

Each chunk is also looked for on its first page as the Sources pane highlights it:
``locate_spans`` over QtPdf's own page text (``getAllText``, pdfium), as
``gui/pdf_render.py`` does before its search fallback.

``--compare`` prints what changed: chunks identical (text and pages), the same pages with
other text, chunks only in one, and the highlight rate of each. ``--embed-cpu N`` embeds
N of a dump's chunks (dense + BM25) and prints the CPU seconds per chunk of that and of
the dump's extraction. Prints figures only.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pdfs"


def dump(out: Path, corpus: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtPdf import QPdfDocument

    from docent.core.context import document_title
    from docent.core.embedding import Embedder
    from docent.core.errors import DocumentError
    from docent.core.extract import extract
    from docent.core.passages import locate_spans
    from docent.core.preparing import chunk_document

    app = QGuiApplication.instance() or QGuiApplication([])
    embedder = Embedder()
    count = embedder.count_tokens
    result: dict[str, object] = {}
    for path in sorted(corpus.glob("*.pdf")):
        t0 = time.process_time()
        try:
            doc = extract(path, ocr=False)
        except DocumentError as exc:
            result[path.name] = {"error": exc.reason}
            print(f"{path.name}: {exc.reason}", flush=True)
            continue
        extract_cpu = time.process_time() - t0
        t0 = time.process_time()
        chunks = chunk_document(doc.pages, count, document_title(doc.pages))
        chunk_cpu = time.process_time() - t0
        qdoc = QPdfDocument()
        qdoc.load(str(path))
        page_text: dict[int, str] = {}
        located = []
        for c in chunks:
            if c.page_start not in page_text:
                page_text[c.page_start] = qdoc.getAllText(c.page_start - 1).text()
            located.append(bool(locate_spans(page_text[c.page_start], c.text)))
        qdoc.close()
        result[path.name] = {
            "pages": [p.text for p in doc.pages],
            "chunks": [[c.text, c.page_start, c.page_end] for c in chunks],
            "located": located,
            "extract_cpu": extract_cpu,
            "chunk_cpu": chunk_cpu,
        }
        print(
            f"{path.name}: {len(doc.pages)} pages in {extract_cpu:.2f} s CPU, "
            f"{len(chunks)} chunks in {chunk_cpu:.2f} s, located {sum(located)}",
            flush=True,
        )
    del app
    out.write_text(json.dumps(result))


def _words_ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def compare(before_path: Path, after_path: Path, show: int) -> None:
    before = json.loads(before_path.read_text())
    after = json.loads(after_path.read_text())
    tot = dict.fromkeys(
        ["pages", "pages_same", "chunks_b", "chunks_a", "same", "same_pages", "loc_b", "loc_a"],
        0,
    )
    cpu_b = cpu_a = chunk_b = chunk_a = 0.0
    examples: list[str] = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name, {}), after.get(name, {})
        if "error" in b or "error" in a:
            if b.get("error") != a.get("error"):
                print(f"{name}: error before {b.get('error')!r}, after {a.get('error')!r}")
            continue
        cpu_b += b["extract_cpu"]
        cpu_a += a["extract_cpu"]
        chunk_b += b["chunk_cpu"]
        chunk_a += a["chunk_cpu"]
        pages_b, pages_a = b["pages"], a["pages"]
        tot["pages"] += len(pages_b)
        tot["pages_same"] += sum(1 for x, y in zip(pages_b, pages_a, strict=False) if x == y)
        if len(pages_b) != len(pages_a):
            print(f"{name}: {len(pages_b)} pages before, {len(pages_a)} after")
        cb = [tuple(c) for c in b["chunks"]]
        ca = [tuple(c) for c in a["chunks"]]
        same = len(set(cb) & set(ca))
        spans_b = {(c[1], c[2]) for c in cb}
        same_pages = sum(1 for c in ca if (c[1], c[2]) in spans_b) - same
        tot["chunks_b"] += len(cb)
        tot["chunks_a"] += len(ca)
        tot["same"] += same
        tot["same_pages"] += same_pages
        tot["loc_b"] += sum(b["located"])
        tot["loc_a"] += sum(a["located"])
        ratios = [_words_ratio(x, y) for x, y in zip(pages_b, pages_a, strict=False) if x != y]
        low = min(ratios, default=1.0)
        print(
            f"{name}: chunks {len(cb)} -> {len(ca)}, identical {same}, same pages other text "
            f"{same_pages}; pages differing {len(ratios)}/{len(pages_b)} (lowest word "
            f"similarity {low:.3f}); located {sum(b['located'])} -> {sum(a['located'])}; "
            f"extract CPU {b['extract_cpu']:.2f} -> {a['extract_cpu']:.2f} s"
        )
        for i, (x, y) in enumerate(zip(pages_b, pages_a, strict=False)):
            if x != y and len(examples) < show:
                diff = difflib.unified_diff(x.splitlines(), y.splitlines(), lineterm="", n=0)
                examples.append(f"--- {name} p.{i + 1}\n" + "\n".join(list(diff)[2:12]))
    print()
    print(f"pages identical        {tot['pages_same']} / {tot['pages']}")
    print(
        f"chunks                 {tot['chunks_b']} before, {tot['chunks_a']} after; "
        f"identical (text and pages) {tot['same']}, same pages but other text "
        f"{tot['same_pages']}"
    )
    print(
        f"highlight located      {tot['loc_b']}/{tot['chunks_b']} before, "
        f"{tot['loc_a']}/{tot['chunks_a']} after"
    )
    print(f"extraction CPU         {cpu_b:.1f} s before, {cpu_a:.1f} s after")
    print(f"chunking CPU           {chunk_b:.1f} s before, {chunk_a:.1f} s after")
    for e in examples:
        print(e)


def embed_cpu(dump_path: Path, n: int) -> None:
    import random
    import resource

    from docent.core.embedding import Embedder

    files = [f for f in json.loads(dump_path.read_text()).values() if "chunks" in f]
    texts = [c[0] for f in files for c in f["chunks"]]
    random.Random(18).shuffle(texts)
    sample = texts[:n]
    embedder = Embedder()
    embedder.ensure_loaded()

    def cpu() -> float:  # every thread of this process, onnxruntime's included
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    c0 = cpu()
    embedder.embed_dense(sample)
    embedder.embed_sparse(sample)
    per_chunk = (cpu() - c0) / len(sample)
    extract_s = sum(f["extract_cpu"] for f in files)
    print(f"embedding CPU per chunk   {per_chunk * 1000:.1f} ms ({len(sample)} chunks)")
    print(
        f"extraction CPU per chunk  {extract_s / len(texts) * 1000:.2f} ms ({len(texts)} "
        f"chunks) = {extract_s / len(texts) / per_chunk * 100:.1f} % of the embedding's"
    )
    print(f"load average              {' '.join(map(str, os.getloadavg()))}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--dump", metavar="OUT")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--show", type=int, default=8, help="page diffs to print")
    ap.add_argument("--embed-cpu", type=int, metavar="N", help="with --dump-file: embed N chunks")
    ap.add_argument("--dump-file", help="the dump --embed-cpu reads")
    args = ap.parse_args()
    if args.dump:
        dump(Path(args.dump), Path(args.corpus))
    if args.compare:
        compare(Path(args.compare[0]), Path(args.compare[1]), args.show)
    if args.embed_cpu and args.dump_file:
        embed_cpu(Path(args.dump_file), args.embed_cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
