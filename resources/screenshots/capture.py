"""Take the README screenshots: the library while indexing, and an answer with its page.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python resources/screenshots/capture.py

Uses a scratch DOCENT_HOME, a few corpus PDFs, and the stand-in Ollama server from the
tests (scripted to answer from the passages it is given, citing [1] and [2]), so the
pictures show what a real session shows without a real model.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
PDFS = (
    "simh__ctss_hardware.pdf",
    "simh__vax780_doc.pdf",
    "debian-history__project-history.en.pdf",
    "r-cran-hsaur3__Ch_simple_inference.pdf",
    "forensics-samples-files__a-text-pass-peanuts.pdf",
)
QUESTION = "When was Debian begun, and who started it?"
_PASSAGE = re.compile(r"^\[(\d+)\] (.+?) (pp?\.[\d-]+): (.*)$", re.MULTILINE)


def responder(messages: list[dict[str, Any]], model: str) -> str:
    """An answer made of the first sentences of the passages offered, cited."""
    prompt = str(messages[-1]["content"])
    parts = []
    for n, _name, _pages, text in _PASSAGE.findall(prompt)[:2]:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) > 8]
        if sentences:
            parts.append(f"{sentences[0].rstrip('.')} [{n}].")
    body = " ".join(parts) or "The documents do not say [1]."
    return f"According to the project history, {body[0].lower()}{body[1:]}"


def main() -> int:
    sys.path.insert(0, str(REPO / "tests"))
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ollama_stub import OllamaStub

    scratch = Path(tempfile.mkdtemp(prefix="docent-shots-"))
    os.environ["DOCENT_HOME"] = str(scratch / "home")
    corpus = Path(os.environ.get("DOCENT_CORPUS", REPO.parent / "shared" / "corpus" / "pdfs"))
    library = scratch / "Documents"
    library.mkdir()
    for name in PDFS:
        shutil.copy(corpus / name, library / name)

    from docent.core.config import load_settings
    from docent.gui.app import create_app, open_engine
    from docent.gui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    stub = OllamaStub(models=["llama3.2:3b", "qwen2.5:7b"], responder=responder).start()
    engine = open_engine(load_settings(ollama_host=stub.url, ollama_model="llama3.2:3b"))
    assert engine is not None
    window = MainWindow(engine)
    window.resize(1560, 940)
    window.show()
    lib, chat, sources = window.library, window.chat, window.citations
    state: dict[str, Any] = {"indexing_shot": False}

    def on_progress(item: Any) -> None:
        rows = lib.model.rows()
        ready = sum(r.state == "ready" for r in rows)
        busy = any(r.state == "indexing" and 0.3 < r.fraction < 0.8 for r in rows)
        if ready >= 2 and busy and not state["indexing_shot"]:
            state["indexing_shot"] = True
            save(window, "library-indexing.png")  # now: the table shows this very moment

    def after_index(_: Any) -> None:
        QTimer.singleShot(500, lambda: chat.ask(QUESTION))

    def after_answer(turn: Any) -> None:
        if not turn.citations:
            print("no citations:", turn.text, file=sys.stderr)
            app.quit()
            return
        sources.select(turn.citations[0].n)

    def after_page(path: str, page: int) -> None:
        QTimer.singleShot(300, lambda: (save(window, "answer-with-citation.png"), app.quit()))

    lib.controller.document_progressed.connect(on_progress)
    lib.controller.run_finished.connect(after_index)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    QTimer.singleShot(800, lambda: lib.add_paths([str(library)]))
    QTimer.singleShot(900_000, app.quit)
    app.exec()
    window.close()
    from docent.gui.workers import cancel_all, wait_for_all

    cancel_all()
    wait_for_all(30_000)
    engine.close()
    stub.stop()
    QApplication.processEvents()
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def save(window: Any, name: str) -> None:
    path = OUT / name
    window.grab().save(str(path))
    print("saved", path)


if __name__ == "__main__":
    sys.exit(main())
