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
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
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
    scratch = Path(tempfile.mkdtemp(prefix="docent-formats-"))
    os.environ["DOCENT_HOME"] = str(scratch / "home")
    folder = scratch / "Documents"
    sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "gui")]
    from gui_helpers import click_chip

    from format_files import make_samples

    make_samples(folder)
    corpus = Path(os.environ.get("DOCENT_CORPUS", REPO.parent / "shared" / "corpus" / "pdfs"))
    shutil.copy(corpus / SCAN, folder / "skew.pdf")
    questions = [q for q in QUESTIONS if not args.only or q[0] in args.only]

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from docent.core.config import load_settings
    from docent.gui.app import create_app, open_engine
    from docent.gui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    settings = load_settings(
        ollama_host=args.host or "http://127.0.0.1:9",  # nothing listens on 9 (discard)
        ollama_model=args.model,
        llm_first_token_timeout=900,
        llm_total_timeout=1800,
    )
    engine = open_engine(settings)
    assert engine is not None
    window = MainWindow(engine)
    window.resize(1500, 900)
    window.show()
    lib, chat, sources = window.library, window.chat, window.citations
    state: dict[str, Any] = {"next": 0, "file": ""}

    def ask_next(*_: Any) -> None:
        if state["next"] >= len(questions):
            app.quit()
            return
        name, question = questions[state["next"]]
        state["next"] += 1
        state["file"] = name
        chat.new_conversation()
        chat.set_scope([str(folder / name)])
        chat.ask(question)

    def answered(turn: Any) -> None:
        cited = [c for c in turn.answer.citations if c.file_name == state["file"]]
        print(state["file"], "->", [(c.n, c.pages_label, c.source) for c in cited])
        if not cited:
            QTimer.singleShot(200, ask_next)
            return
        state["clicked"] = True
        click_chip(chat.view, turn.number, cited[0].n)

    def shown(path: str, page: int) -> None:
        if not state.pop("clicked", False):
            return  # a refit of the page already saved

        def save() -> None:
            for note in window.notifications.notifications():
                note.dismissed.emit()  # the unsupported-type note would hide the page
            QApplication.processEvents()
            target = args.out / f"{Path(path).stem}-citation.png"
            window.grab().save(str(target))
            print("saved", target)
            ask_next()

        QTimer.singleShot(400, save)

    lib.controller.run_finished.connect(lambda _: QTimer.singleShot(300, ask_next))
    chat.answer_finished.connect(answered)
    sources.page_shown.connect(shown)
    QTimer.singleShot(800, lambda: lib.add_paths([str(folder)]))
    QTimer.singleShot(3_000_000, app.quit)
    app.exec()
    window.close()
    from docent.gui.workers import cancel_all, wait_for_all

    cancel_all()
    wait_for_all(30_000)
    engine.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
