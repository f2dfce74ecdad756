"""Take the README's collection screenshots: the selector open over two collections, and
an answer asked in one of them.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \\
        resources/screenshots/capture_collections.py [--host http://127.0.0.1:11435]

A scratch DOCENT_HOME, the real engine and embedding model, corpus PDFs in two folders.
With ``--host`` (a running Ollama or the llm-rig) the model answers; without it nothing
does and the answer is Docent's extractive one, labelled so. The window is driven as a user would: make two collections from the selector, pick one, add a
folder into it, pick the other, add another, then ask in the first.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from shots import OUT, Window, copy_corpus, log, save

FOLDERS = {
    "Retro computing": ("simh__ctss_hardware.pdf", "simh__vax780_doc.pdf"),
    "Statistics course": (
        "r-cran-hsaur3__Ch_simple_inference.pdf",
        "r-cran-hsaur3__Ch_analysis_of_variance.pdf",
    ),
}
QUESTION = "How is the interval timer in location 5 incremented?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default=os.environ.get("DOCENT_RIG_HOST", ""))
    ap.add_argument("--model", default="smollm2:135m")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    with Window(
        # without a model (nothing listens on port 9) the answer is extractive, and says so
        ollama_host=args.host or "http://127.0.0.1:9",
        ollama_model=args.model,
    ) as w:
        folders = {
            name: copy_corpus(pdfs, w.scratch / "Documents" / name.split()[0])
            for name, pdfs in FOLDERS.items()
        }
        drive(w, folders, args.out)
        w.run(timeout_ms=1_800_000)
    return 0


def drive(w: Window, folders: dict[str, Path], out: Path) -> None:
    """Make the two collections, add a folder into each, open the selector, ask in one."""
    window, app = w.window, w.app
    lib, chat, sources = window.library, window.chat, window.citations
    bar = lib.collection_bar
    names = list(FOLDERS)
    state: dict[str, Any] = {"added": 0}

    def by_name(name: str) -> str:
        return next(c.id for c in bar.collections if c.name == name)

    def on_collections(found: Any) -> None:
        if state["added"] == 0 and {c.name for c in found} >= set(names):
            state["added"] = 1
            bar.select(by_name(names[0]))
            w.later(300, lambda: lib.add_paths([str(folders[names[0]])]))

    def after_run(_: Any) -> None:
        if state["added"] == 1:
            state["added"] = 2
            bar.select(by_name(names[1]))
            w.later(300, lambda: lib.add_paths([str(folders[names[1]])]))
        elif state["added"] == 2:
            state["added"] = 3
            bar.select(by_name(names[0]))
            w.later(1500, open_selector)

    def open_selector() -> None:
        bar.combo.showPopup()
        w.later(600, shoot_selector)

    def shoot_selector() -> None:
        screen = app.primaryScreen().grabWindow(0)
        geo = window.frameGeometry()
        screen.copy(geo.x(), geo.y(), 760, 520).save(str(out / "collection-selector.png"))
        log(f"saved {out / 'collection-selector.png'}")
        bar.combo.hidePopup()
        w.later(300, lambda: chat.ask(QUESTION))

    def after_answer(turn: Any) -> None:
        if not turn.citations:
            log(f"no citations: {turn.text}")
            w.quit()
            return
        sources.select(turn.citations[0].n)

    def after_page(path: str, page: int) -> None:
        w.later(300, lambda: (save(window, out / "collection-scoped-answer.png"), w.quit()))

    bar.collections_changed.connect(on_collections)
    lib.controller.run_finished.connect(after_run)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    w.later(800, lambda: [bar.make(n) for n in names])


if __name__ == "__main__":
    sys.exit(main())
