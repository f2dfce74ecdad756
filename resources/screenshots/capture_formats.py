"""Take the README's screenshots of citations outside plain PDFs, as a user gets them: a
folder of Word, PowerPoint, Excel, ODT, EPUB and HTML files (made with the libraries, as
the tests make them) and a corpus scan dropped on the window; one question asked of each
file named below, its first chip for that file clicked with the mouse, the window saved.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \\
        resources/screenshots/capture_formats.py --out /tmp/shots \\
        [--host http://127.0.0.1:11442 --model smollm2:135m]

Without ``--host`` no model answers: the answers quote the passages found, with chips.
Saves ``<file stem>-citation.png`` for each question whose answer cites that file.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from shots import CORPUS, REPO, Window, save

SCAN = "ocrmypdf__skew.pdf"
#: (file, question): asked with the chat scoped to that file
QUESTIONS = [
    ("report.docx", "What did the quarterly lighthouse inspection find?"),
    ("ledger.xlsx", "Which parts come from Copperfield?"),
    ("skew.pdf", "How do I erase a wrong note on the LinnSequencer?"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "docent-formats")
    ap.add_argument("--host", default="", help="a running Ollama (or the llm-rig)")
    ap.add_argument("--model", default="smollm2:135m")
    ap.add_argument("--only", action="append", default=[], help="ask only about this file")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "gui")]
    from format_files import make_samples

    questions = [q for q in QUESTIONS if not args.only or q[0] in args.only]
    with Window(
        size=(1500, 900),
        prefix="docent-formats-",
        # without --host nothing listens (port 9): the answers are extractive, labelled so
        ollama_host=args.host or "http://127.0.0.1:9",
        ollama_model=args.model,
    ) as w:
        folder = w.scratch / "Documents"
        make_samples(folder)
        shutil.copy(CORPUS / SCAN, folder / "skew.pdf")
        drive(w, folder, questions, args.out)
        w.run(timeout_ms=3_000_000)
    return 0


def drive(w: Window, folder: Path, questions: list[tuple[str, str]], out: Path) -> None:
    """Ask each question scoped to its file, click its first chip for that file, save."""
    from gui_helpers import click_chip
    from PySide6.QtWidgets import QApplication

    window = w.window
    lib, chat, sources = window.library, window.chat, window.citations
    state: dict[str, Any] = {"next": 0, "file": ""}

    def ask_next(*_: Any) -> None:
        if state["next"] >= len(questions):
            w.quit()
            return
        name, question = questions[state["next"]]
        state["next"] += 1
        state["file"] = name
        chat.new_conversation()
        chat.set_scope([str(folder / name)])
        chat.ask(question)

    def answered(turn: Any) -> None:
        if turn.answer is None:  # asked before its file was indexed ("waits its turn")
            print(state["file"], "->", turn.error)
            state["tries"] = state.get("tries", 0) + 1
            if state["tries"] <= 30:
                state["next"] -= 1
                w.later(1000, ask_next)
            else:
                w.quit()
            return
        cited = [c for c in turn.answer.citations if c.file_name == state["file"]]
        print(state["file"], "->", [(c.n, c.pages_label, c.source) for c in cited])
        if not cited:
            w.later(200, ask_next)
            return
        state["clicked"] = True
        click_chip(chat.view, turn.number, cited[0].n)

    def shown(path: str, page: int) -> None:
        if not state.pop("clicked", False):
            return  # a refit of the page already saved

        def keep() -> None:
            for note in window.notifications.notifications():
                note.dismissed.emit()  # the unsupported-type note would hide the page
            QApplication.processEvents()
            save(window, out / f"{Path(path).stem}-citation.png")
            ask_next()

        w.later(400, keep)

    lib.controller.run_finished.connect(lambda _: w.later(300, ask_next))
    chat.answer_finished.connect(answered)
    sources.page_shown.connect(shown)
    w.later(800, lambda: lib.add_paths([str(folder)]))


if __name__ == "__main__":
    sys.exit(main())
