"""Summaries from a real model on corpus documents: time, calls, model vs extracted, coverage.

    .venv/bin/python benchmarks/summary_eval.py [--model smollm2:135m] [--host URL]
        [--type brief] [--docs a.pdf,b.pdf] [--home DIR] [--show]

A benchmark, not a test: it works with any Ollama model (default: the rig's smollm2:135m;
start it with ``../shared/llm-rig/start``) and prints figures. Each document is indexed
in a fresh library (``--home``: a new temporary folder by default, so no summary is
cached) and summarised through ``Engine.summarize``.

Per document: pages, seconds, model calls, sections from the model and extracted,
repeated lines in the summary, coverage, and the 1-minute load average before and after.
Coverage: for each section, its top keywords by BM25 weight (the sections are the
collection); the share of them the summary mentions (by word stem), averaged over the
sections.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCENT_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
#: 27, 15 and 41 pages: a short book, a statistics chapter, a manual with tables.
DOCS = [
    "debian-history__project-history.en.pdf",
    "r-cran-hsaur3__Ch_simple_inference.pdf",
    "r-doc-pdf__R-data.pdf",
]
KEYWORDS = 5
_WORD = re.compile(r"[^\W\d_]{4,}")
_STOP = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "were",
        "which",
        "their",
        "there",
        "these",
        "those",
        "been",
        "will",
        "would",
        "also",
        "into",
        "more",
        "than",
        "then",
        "when",
        "what",
        "where",
        "some",
        "such",
        "they",
        "them",
        "only",
        "other",
        "each",
        "page",
    ]
)


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def words(text: str) -> list[str]:
    return [w[:6] for w in (m.group().lower() for m in _WORD.finditer(text)) if w not in _STOP]


def top_keywords(sections: list[str], k: int = KEYWORDS) -> list[list[str]]:
    """Each section's ``k`` terms of highest BM25 weight (k1 1.2, b 0.75)."""
    bags = [Counter(words(s)) for s in sections]
    n = len(bags)
    df = Counter(t for bag in bags for t in bag)
    avg = sum(sum(b.values()) for b in bags) / max(n, 1)
    out = []
    for bag in bags:
        length = sum(bag.values())
        weight = {
            t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            * tf
            * 2.2
            / (tf + 1.2 * (0.25 + 0.75 * length / max(avg, 1)))
            for t, tf in bag.items()
        }
        out.append(sorted(weight, key=lambda t: -weight[t])[:k])
    return out


def coverage(summary: str, keywords: list[list[str]]) -> float:
    said = set(words(summary))
    shares = [sum(t in said for t in kw) / len(kw) for kw in keywords if kw]
    return sum(shares) / len(shares) if shares else 0.0


def repeated_lines(text: str) -> int:
    from docent.core.guards import normalise

    seen: Counter[str] = Counter()
    for line in re.split(r"\n+|(?<=[.!?])\s+", text):
        key = normalise(line)
        if len(key.split()) >= 3:
            seen[key] += 1
    return sum(c - 1 for c in seen.values() if c > 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2:135m")
    ap.add_argument("--host", default=os.environ.get("DOCENT_RIG_HOST", ""))
    ap.add_argument("--type", default="brief", choices=["brief", "detailed", "bullets"])
    ap.add_argument("--docs", default=",".join(DOCS))
    ap.add_argument("--home", default="", help="library folder (default: a new temporary one)")
    ap.add_argument("--show", action="store_true", help="print each summary")
    args = ap.parse_args(argv)

    from docent.core.config import Settings
    from docent.core.engine import Engine
    from docent.core.sectioning import split_sections
    from docent.core.summary_budget import section_words

    settings = Settings(
        data_dir=args.home or tempfile.mkdtemp(prefix="docent-summary-eval-"),
        ollama_host=args.host,
        ollama_model=args.model,
        summary_timeout_per_call=300,
        summary_timeout_total=3600,
    )
    rows = []
    with Engine(settings) as eng:
        for name in args.docs.split(","):
            path = CORPUS / name
            report = eng.index([path])
            if report.failed:
                print(f"{name}: indexing failed: {report.failed}", file=sys.stderr)
                continue
            rec = eng.resolve(name)
            sections = split_sections(eng.extracted(rec).pages, section_words(settings))
            before = load()
            start = time.monotonic()
            result = eng.summarize(name, type=args.type)
            seconds = time.monotonic() - start
            body = "\n\n".join(p for p in result.summary.split("\n\n") if not p.startswith("_"))
            row = {
                "document": name,
                "pages": result.pages,
                "seconds": round(seconds, 1),
                "calls": result.calls,
                "model": result.model_sections,
                "extracted": result.extracted_sections,
                "failed": len(result.failed_sections),
                "repeated": repeated_lines(body),
                "coverage": round(coverage(body, top_keywords([s.text for s in sections])), 2),
                "load": f"{before:.1f}->{load():.1f}",
                "mode": result.mode,
            }
            rows.append(row)
            print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            if args.show:
                print(result.summary + "\n", flush=True)
    print(f"\n{args.model}, {args.type} summaries, 2-core dev box (load average shown):")
    print("| document | pages | seconds | calls | model/extracted | repeated | coverage | load |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['document']} | {r['pages']} | {r['seconds']} | {r['calls']} | "
            f"{r['model']}/{r['extracted']} | {r['repeated']} | {r['coverage']} | {r['load']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
