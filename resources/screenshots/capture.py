"""Take the README screenshots: the library while indexing, and a real model's answer.

    DOCENT_RIG_HOST=http://127.0.0.1:11435 xvfb-run -s "-screen 0 1600x1000x24" \
        .venv/bin/python resources/screenshots/capture.py [--model smollm2:135m]

Uses a scratch DOCENT_HOME and a few corpus PDFs (``shots.Window``). The answer comes from a real model
behind Ollama's API (``../shared/llm-rig/start`` serves smollm2:135m), named in the
README's caption; the window is saved once the answer is in and its first citation's page
is shown.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from shots import OUT, Window, copy_corpus, save

PDFS = (
    "simh__ctss_hardware.pdf",
    "simh__vax780_doc.pdf",
    "debian-history__project-history.en.pdf",
    "r-cran-hsaur3__Ch_simple_inference.pdf",
    "forensics-samples-files__a-text-pass-peanuts.pdf",
)
QUESTION = "When was Debian begun, and who started it?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("DOCENT_RIG_HOST", ""))
    parser.add_argument("--model", default="smollm2:135m")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--pdf", action="append", default=[], help="corpus PDFs to index")
    parser.add_argument("--out", default=str(OUT), help="folder for the PNGs")
    parser.add_argument(
        "--only", default="", help="save only this screenshot (e.g. answer-with-citation.png)"
    )
    args = parser.parse_args()
    if not args.host:
        print("no model: set DOCENT_RIG_HOST or pass --host", file=sys.stderr)
        return 1
    with Window(ollama_host=args.host, ollama_model=args.model) as w:
        library = copy_corpus(args.pdf or PDFS, w.scratch / "Documents")
        drive(w, library, args)
        w.run(timeout_ms=2_400_000)
    return 0


def drive(w: Window, library: Path, args: argparse.Namespace) -> None:
    """Index ``library``; save the table mid-run, then ask and save the cited page."""
    window = w.window
    lib, chat, sources = window.library, window.chat, window.citations
    state: dict[str, Any] = {"indexing_shot": False}

    def shot(name: str) -> None:
        if not args.only or args.only == name:
            save(window, Path(args.out) / name)

    def on_progress(item: Any) -> None:
        rows = lib.model.rows()
        ready = sum(r.state == "ready" for r in rows)
        busy = any(r.state == "indexing" and 0.3 < r.fraction < 0.8 for r in rows)
        if ready >= 2 and busy and not state["indexing_shot"]:
            state["indexing_shot"] = True
            shot("library-indexing.png")  # now: the table shows this very moment

    def after_index(_: Any) -> None:
        w.later(500, lambda: chat.ask(args.question))

    def after_answer(turn: Any) -> None:
        print("answer:", turn.answer.text if turn.answer else turn.error, file=sys.stderr)
        if not turn.citations:
            w.quit()
            return
        sources.select(turn.citations[0].n)

    def after_page(path: str, page: int) -> None:
        w.later(300, lambda: (shot("answer-with-citation.png"), w.quit()))

    lib.controller.document_progressed.connect(on_progress)
    lib.controller.run_finished.connect(after_index)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    w.later(800, lambda: lib.add_paths([str(library)]))


if __name__ == "__main__":
    sys.exit(main())
