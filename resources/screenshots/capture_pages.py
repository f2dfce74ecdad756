"""Take the README's screenshot of a question about a page: an answer about the PDP-11
simulator's CPU, then "And on page 3?", answered from page 3 of the manual it cited.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \
        resources/screenshots/capture_pages.py --host http://127.0.0.1:11500

``--host`` names a real Ollama or the llm-rig (``smollm2:135m``, named in the caption).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from shots import OUT, Window, copy_corpus, log, save

PDFS = ["simh__pdp11_doc.pdf", "simh__vax780_doc.pdf"]
QUESTIONS = ["How do I set the PDP-11 CPU model?", "And on page 3?"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", required=True)
    parser.add_argument("--model", default="smollm2:135m")
    parser.add_argument("--out", default=str(OUT), help="folder for the PNGs")
    args = parser.parse_args()
    with Window(size=(1560, 940), ollama_host=args.host, ollama_model=args.model) as w:
        library = copy_corpus(PDFS, w.scratch / "Documents")
        drive(w, library, Path(args.out))
        w.run(timeout_ms=1_200_000)
    return 0


def drive(w: Window, library: Path, out: Path) -> None:
    window = w.window
    lib, chat, sources = window.library, window.chat, window.citations
    asked = list(QUESTIONS)

    def after_index(_: Any) -> None:
        w.later(500, lambda: chat.ask(asked.pop(0)))

    def after_answer(turn: Any) -> None:
        answer = turn.answer
        log(f"{turn.question}: {answer.mode if answer else turn.error}")
        if answer is None or not answer.citations:
            w.quit()
            return
        log("cited: " + ", ".join(f"[{c.n}] {c.file_name} {c.where}" for c in answer.citations))
        if asked:
            w.later(500, lambda: chat.ask(asked.pop(0)))
        else:
            sources.select(answer.citations[0].n)

    def after_page(path: str, page: int) -> None:
        if not asked:
            w.later(300, lambda: (save(window, out / "answer-page-question.png"), w.quit()))

    lib.controller.run_finished.connect(after_index)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    w.later(800, lambda: lib.add_paths([str(library)]))


if __name__ == "__main__":
    sys.exit(main())
