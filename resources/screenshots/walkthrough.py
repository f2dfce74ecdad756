"""Walk through a question as a new user does and take a screenshot at each step: the wait
(stage and time), the answer with its page, Retry (the earlier answer stays), and the two
answers to switch between.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python resources/screenshots/walkthrough.py \
        --size 1600x1000 --out /tmp/shots --host http://127.0.0.1:11515 --model smollm2:135m

With ``--host`` pointing at a real Ollama (or the llm-rig's tiny model) the answers are the
model's own; a scratch DOCENT_HOME and a few corpus PDFs make the library.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from shots import Window, copy_corpus, log, save

#: corpus file -> the name it gets in the library (a long one: the window must not widen
#: for it, and the panes elide it in the middle)
PDFS = {
    "simh__ctss_hardware.pdf": "simh__ctss_hardware.pdf",
    "debian-history__project-history.en.pdf": (
        "Debian-project-history-from-the-debian-history-package-english-edition-2024.pdf"
    ),
}
QUESTION = "When was Debian begun, and who started it?"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1600x1000")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "docent-walk")
    ap.add_argument("--host", required=True)
    ap.add_argument("--model", default="smollm2:135m")
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)

    with Window(
        size=(width, height),
        prefix="docent-walk-",
        ollama_host=args.host,
        ollama_model=args.model,
    ) as w:
        library = copy_corpus(PDFS, w.scratch / "Documents")
        timer = drive(w, library, args.out, f"-{width}x{height}")
        w.run(timeout_ms=1_500_000)
        timer.stop()
    return 0


def drive(w: Window, library: Path, out: Path, suffix: str) -> Any:
    """Index, ask, save the wait and the answer, Retry, save the retry and the two answers."""
    from PySide6.QtCore import QTimer

    window = w.window
    lib, chat, sources = window.library, window.chat, window.citations
    step = {"name": "indexing", "since": time.monotonic()}

    def shot(name: str) -> None:
        save(window, out / f"{name}{suffix}.png")

    def go(name: str) -> None:
        step["name"], step["since"] = name, time.monotonic()
        log(f"step: {name}")

    def poll() -> None:
        s = step["name"]
        waited = time.monotonic() - float(step["since"])
        if s == "asking" and chat.status.isVisible() and waited > 4:
            shot("1-waiting")
            go("answering")
        elif s == "retrying" and "Asking again" in chat.view.toPlainText() and waited > 4:
            shot("3-retrying")
            go("retry-answering")

    def after_index(_: Any) -> None:
        go("asking")
        chat.input.setPlainText(QUESTION)
        chat.send_button.click()

    def after_answer(turn: Any) -> None:
        if step["name"] in ("asking", "answering"):
            go("answered")
            if turn.citations:
                sources.select(turn.citations[0].n)
            else:
                w.later(500, lambda: after_page("", 0))
        elif step["name"] in ("retrying", "retry-answering"):
            go("retried")
            w.later(800, lambda: (shot("4-two-answers"), w.quit()))

    def after_page(path: str, page: int) -> None:
        if step["name"] != "answered":
            return
        shot("2-answered")
        go("retrying")
        window.retry_action.trigger()

    timer = QTimer()
    timer.setInterval(500)
    timer.timeout.connect(poll)
    timer.start()
    lib.controller.run_finished.connect(after_index)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    w.later(800, lambda: lib.add_paths([str(library)]))
    return timer


if __name__ == "__main__":
    sys.exit(main())
