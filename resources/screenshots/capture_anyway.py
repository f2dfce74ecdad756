"""Take the README's screenshots of Ask anyway: an answer Docent withheld (the passages
found did not seem to answer the question) with Ask anyway under it, then the real
model's answer to the same question, asked anyway.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \
        resources/screenshots/capture_anyway.py --host http://127.0.0.1:11500

``--host`` names a real Ollama or the llm-rig (``smollm2:135m``, named in the caption).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from shots import OUT, Window, copy_corpus, log, save

PDF = "simh__simh_doc.pdf"
#: The manual says "startup file" and "command files": retrieval finds the page (p.4) but
#: judges that no passage covers "script".
QUESTION = (
    "How do I make SIMH run a script of commands automatically when the simulator starts?"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", required=True)
    parser.add_argument("--model", default="smollm2:135m")
    parser.add_argument("--out", default=str(OUT), help="folder for the PNGs")
    args = parser.parse_args()
    with Window(size=(1560, 940), ollama_host=args.host, ollama_model=args.model) as w:
        library = copy_corpus([PDF], w.scratch / "Documents")
        drive(w, library, Path(args.out))
        w.run(timeout_ms=1_200_000)
    return 0


def drive(w: Window, library: Path, out: Path) -> None:
    window = w.window
    lib, chat, sources = window.library, window.chat, window.citations
    state: dict[str, Any] = {"step": "withheld"}

    def after_index(_: Any) -> None:
        w.later(500, lambda: chat.ask(QUESTION))

    def after_answer(turn: Any) -> None:
        answer = turn.answer
        log(f"{state['step']}: {answer.mode if answer else turn.error}")
        if answer is None or not answer.citations:
            w.quit()
            return
        # the page that answers it: p.4, among the passages listed
        on_p4 = [c.n for c in answer.citations if c.page <= 4 <= c.page_end]
        sources.select(on_p4[0] if on_p4 else answer.citations[0].n)

    def after_page(path: str, page: int) -> None:
        if state["step"] == "withheld":
            state["step"] = "anyway"

            def shoot_then_ask() -> None:
                save(window, out / "answer-withheld-ask-anyway.png")
                chat.answer_bar.anyway_button.click()

            w.later(300, shoot_then_ask)
        elif state["step"] == "anyway":
            state["step"] = "done"
            w.later(300, lambda: (save(window, out / "answer-asked-anyway.png"), w.quit()))

    lib.controller.run_finished.connect(after_index)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    w.later(800, lambda: lib.add_paths([str(library)]))


if __name__ == "__main__":
    sys.exit(main())
