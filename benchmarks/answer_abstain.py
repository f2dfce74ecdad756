"""How often answers abstain on the dev questions: rarely on answerable ones, always on the rest.

    .venv/bin/python benchmarks/answer_abstain.py [--home DIR]

Indexes the PDFs the dev questions refer to (persistent under ``--home``, so re-runs only
index what changed), then asks every question through ``Engine.ask`` with no Ollama
reachable: an answer is ``abstained`` when retrieval's verdict (``SearchResult.sufficient``
/ ``confidence``) says the library cannot answer, else ``extractive`` (where a model would
have generated). Prints one line per question and the two rates.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCENT_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
DEV_QUESTIONS = SHARED / "corpus" / "dev-questions.jsonl"


def dead_host() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", default="/tmp/docent-answer-eval")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "desktop"))
    from docent.core.config import Settings
    from docent.core.engine import Engine

    rows = [json.loads(line) for line in DEV_QUESTIONS.read_text().splitlines() if line.strip()]
    files = sorted({r["file"] for r in rows if r["file"]})
    settings = Settings(data_dir=args.home, ollama_host=dead_host(), llm_connect_timeout=0.5)
    with Engine(settings) as eng:
        started = time.monotonic()
        report = eng.index([CORPUS / f for f in files])
        print(
            f"library: {len(files)} PDFs ({len(report.indexed)} indexed now, "
            f"{time.monotonic() - started:.0f} s)\n"
        )
        counts = {True: [0, 0], False: [0, 0]}  # answerable -> [abstained, total]
        for r in rows:
            answer = eng.ask(r["question"])
            abstained = answer.mode == "abstained"
            counts[r["answerable"]][0] += abstained
            counts[r["answerable"]][1] += 1
            top = answer.offered[0] if answer.offered else None
            where = f"{top.file_name} {top.pages_label}" if top else "-"
            print(
                f"{r['id']} {'answerable  ' if r['answerable'] else 'unanswerable'} "
                f"{answer.mode:10} {answer.confidence:6} {where}"
            )
    a, n = counts[True]
    u, m = counts[False]
    print(f"\nabstained on answerable questions:   {a}/{n} ({a / max(n, 1):.0%})")
    print(f"abstained on unanswerable questions: {u}/{m} ({u / max(m, 1):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
