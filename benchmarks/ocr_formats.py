"""OCR and format benchmark: pages/s and character accuracy on the corpus scans (RapidOCR,
the engine Docent uses, against tesseract), and extraction speed for each format.

    .venv/bin/python benchmarks/ocr_formats.py [--ocr] [--formats] [--tesseract] [--runs N]

OCR: every page of the corpus's image-only scans is rendered once (pypdfium2, as Docent
does) and read by each engine; the time is the engine's alone (wall and CPU seconds: the
machine is shared, CPU time says more). Accuracy is measured on the pages whose text was
checked by eye against the page image (``benchmarks/data/ocr_reference/``): character
error rate (edit distance / reference length, after collapsing whitespace, straightening
quotes and dropping bullets; order matters, so reading order counts) and the share of the
reference's words found. Tesseract (Debian's tesseract-ocr through pytesseract) is run
only with ``--tesseract``.

Formats: files of each kind are made with the libraries (python-docx, python-pptx,
openpyxl, ...), then extracted ``--runs`` times; prints the median per file and per MB.
Prints the load average with every figure: the 2-core machine is shared.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus" / "pdfs"
REFERENCE = HERE / "data" / "ocr_reference"
SCANS = [
    "pikepdf__congress.pdf",
    "ocrmypdf__c03-29.pdf",
    "ocrmypdf__multipage.pdf",
    "ocrmypdf__skew.pdf",
    "ocrmypdf__linn.pdf",
    "ocrmypdf__epson.pdf",
]
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "″": '"', "„": '"'})


def load() -> str:
    return " ".join(os.getloadavg().__repr__().strip("()").split(", ")[:3])


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).replace("•", " ")
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return " ".join(text.split())


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


def accuracy(reference: str, hypothesis: str) -> tuple[float, float]:
    """(character error rate, share of reference words found)."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    cer = edit_distance(ref, hyp) / max(1, len(ref))
    words = re.findall(r"\w+", ref.lower())
    found = set(re.findall(r"\w+", hyp.lower()))
    return cer, sum(1 for w in words if w in found) / max(1, len(words))


def child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bench_ocr(with_tesseract: bool) -> None:
    from docent.core.ocr import OcrEngine, PdfRenderer

    engine = OcrEngine()
    engines = ["rapidocr"] + (["tesseract"] if with_tesseract else [])
    per: dict[str, list[tuple[float, float]]] = {e: [] for e in engines}
    scores: dict[str, list[tuple[str, float, float]]] = {e: [] for e in engines}
    t = time.perf_counter()
    engine.read_image(__import__("numpy").full((64, 64, 3), 255, dtype="uint8"))
    print(f"rapidocr model load: {time.perf_counter() - t:.1f} s (load {load()})")
    for name in SCANS:
        path = CORPUS / name
        if not path.exists():
            print(f"skip {name}: no corpus")
            continue
        with PdfRenderer(path) as pdf:
            pages = len(pdf._pdf)
            for number in range(1, pages + 1):
                image = pdf.render(number)
                ref_file = REFERENCE / f"{path.stem}.p{number}.txt"
                ref = ref_file.read_text(encoding="utf-8") if ref_file.exists() else None
                for which in engines:
                    wall, cpu0, kids0 = time.perf_counter(), time.process_time(), child_cpu()
                    if which == "rapidocr":
                        text = engine.read_layout(image).text
                    else:
                        import pytesseract

                        text = pytesseract.image_to_string(image)
                    wall = time.perf_counter() - wall
                    cpu = time.process_time() - cpu0 + child_cpu() - kids0
                    per[which].append((wall, cpu))
                    line = f"{which:9} {name} p{number} {image.shape[1]}x{image.shape[0]}px"
                    line += f" {wall:6.1f} s wall {cpu:6.1f} s CPU"
                    if ref is not None:
                        cer, recall = accuracy(ref, text)
                        scores[which].append((f"{name} p{number}", cer, recall))
                        line += f"  CER {cer:.3f} words {recall:.3f}"
                    print(line + f"  (load {load()})", flush=True)
    for which in engines:
        walls = [w for w, _ in per[which]]
        cpus = [c for _, c in per[which]]
        if not walls:
            continue
        print(
            f"\n{which}: {len(walls)} pages, {len(walls) / sum(walls):.3f} pages/s wall, "
            f"{len(cpus) / sum(cpus):.3f} pages/s of CPU; median {statistics.median(walls):.1f} s "
            f"wall, {statistics.median(cpus):.1f} s CPU per page"
        )
        for page, cer, recall in scores[which]:
            print(f"  {page}: CER {cer:.3f}, reference words found {recall:.3f}")
        if scores[which]:
            mean_cer = statistics.mean(c for _, c, _ in scores[which])
            print(f"  mean CER {mean_cer:.3f}")
    print(f"load average at the end: {load()}")


def bench_formats(runs: int, scale: int) -> None:
    from docent.core.extract import extract

    sys.path.insert(0, str(HERE.parent / "tests"))
    from format_files import make_samples

    with tempfile.TemporaryDirectory() as tmp:
        for path in make_samples(Path(tmp), scale):
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                doc = extract(path)
                times.append(time.perf_counter() - t)
            mb = path.stat().st_size / 1e6
            med = statistics.median(times)
            words = doc.word_count
            print(
                f"{path.suffix:6} {path.name:22} {mb:7.2f} MB {len(doc.pages):5} units "
                f"{words:7} words  median {med * 1000:8.1f} ms  {words / med:9.0f} words/s "
                f"(load {load()})",
                flush=True,
            )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ocr", action="store_true")
    ap.add_argument("--tesseract", action="store_true")
    ap.add_argument("--formats", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=int, default=200, help="size of the format samples")
    args = ap.parse_args()
    both = not (args.ocr or args.formats)
    print(f"{os.cpu_count()} cores, load average {load()}")
    if args.ocr or both:
        bench_ocr(args.tesseract)
    if args.formats or both:
        bench_formats(args.runs, args.scale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
