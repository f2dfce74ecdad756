"""Take the README's collection screenshots: the selector open over two collections, and
an answer asked in one of them.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python resources/screenshots/capture_collections.py

A scratch DOCENT_HOME, the real engine and model, corpus PDFs in two folders, and the
stand-in Ollama server from the tests (it answers from the passages it is given). The
window is driven as a user would: make two collections from the selector, pick one, add a
folder into it, pick the other, add another, then ask in the first.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from capture import OUT, REPO
from capture import responder as history_responder

FOLDERS = {
    "Retro computing": ("simh__ctss_hardware.pdf", "simh__vax780_doc.pdf"),
    "Statistics course": (
        "r-cran-hsaur3__Ch_simple_inference.pdf",
        "r-cran-hsaur3__Ch_analysis_of_variance.pdf",
    ),
}
QUESTION = "How is the interval timer in location 5 incremented?"


def responder(messages: list[dict[str, Any]], model: str) -> str:
    """capture.py's stand-in answer (the passages' first sentences, cited), without its
    opening words (written for its Debian question)."""
    text = history_responder(messages, model).removeprefix("According to the project history, ")
    return text[:1].upper() + text[1:]


def main() -> int:
    sys.path.insert(0, str(REPO / "tests"))
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ollama_stub import OllamaStub

    scratch = Path(tempfile.mkdtemp(prefix="docent-shots-"))
    os.environ["DOCENT_HOME"] = str(scratch / "home")
    corpus = Path(os.environ.get("DOCENT_CORPUS", REPO.parent / "shared" / "corpus" / "pdfs"))
    folders: dict[str, Path] = {}
    for name, pdfs in FOLDERS.items():
        folders[name] = scratch / "Documents" / name.split()[0]
        folders[name].mkdir(parents=True)
        for pdf in pdfs:
            shutil.copy(corpus / pdf, folders[name] / pdf)

    from docent.core.config import load_settings
    from docent.gui.app import create_app, open_engine
    from docent.gui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    stub = OllamaStub(models=["llama3.2:3b"], responder=responder).start()
    engine = open_engine(load_settings(ollama_host=stub.url, ollama_model="llama3.2:3b"))
    assert engine is not None
    window = MainWindow(engine)
    window.resize(1560, 940)
    window.show()
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
            QTimer.singleShot(300, lambda: lib.add_paths([str(folders[names[0]])]))

    def after_run(_: Any) -> None:
        if state["added"] == 1:
            state["added"] = 2
            bar.select(by_name(names[1]))
            QTimer.singleShot(300, lambda: lib.add_paths([str(folders[names[1]])]))
        elif state["added"] == 2:
            state["added"] = 3
            bar.select(by_name(names[0]))
            QTimer.singleShot(1500, open_selector)

    def open_selector() -> None:
        bar.combo.showPopup()
        QTimer.singleShot(600, shoot_selector)

    def shoot_selector() -> None:
        screen = app.primaryScreen().grabWindow(0)
        geo = window.frameGeometry()
        screen.copy(geo.x(), geo.y(), 760, 520).save(str(OUT / "collection-selector.png"))
        print("saved", OUT / "collection-selector.png")
        bar.combo.hidePopup()
        QTimer.singleShot(300, lambda: chat.ask(QUESTION))

    def after_answer(turn: Any) -> None:
        if not turn.citations:
            print("no citations:", turn.text, file=sys.stderr)
            app.quit()
            return
        sources.select(turn.citations[0].n)

    def after_page(path: str, page: int) -> None:
        def shoot() -> None:
            window.grab().save(str(OUT / "collection-scoped-answer.png"))
            print("saved", OUT / "collection-scoped-answer.png")
            app.quit()

        QTimer.singleShot(300, shoot)

    bar.collections_changed.connect(on_collections)
    lib.controller.run_finished.connect(after_run)
    chat.answer_finished.connect(after_answer)
    sources.page_shown.connect(after_page)
    QTimer.singleShot(800, lambda: [bar.make(n) for n in names])
    QTimer.singleShot(1_800_000, app.quit)
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


if __name__ == "__main__":
    sys.exit(main())
