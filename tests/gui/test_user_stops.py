"""What the user stops stays stopped, and is not a failure: a Cancel survives closing and
reopening the window (nothing resumes by itself, no file vanishes, Resume is offered), and
a Stop mid-answer is said under the answer and logged as the user's doing, without a
traceback. The real engine (a fast stand-in embedder), the real window, the real Ollama
client against the stand-in server."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.store_base import ChunkVectors
from docent.gui.messages import bridge
from fake_embedder import FakeEmbedder
from ollama_stub import OllamaStub


class GatedEmbedder(FakeEmbedder):
    """Holds the first document in its embedding until the test lets it go, so the
    user's Cancel lands mid-run however fast the stand-in embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        self.entered.set()
        assert self.release.wait(30), "the test never let the embedding go"
        return super().embed_chunks(texts, bodies)


def open_engine(embedder: FakeEmbedder | None = None, **overrides: Any) -> Engine:
    settings = load_settings(extract_in_subprocess=False, **overrides)
    return Engine(settings, interactive=True, embedder=embedder or FakeEmbedder()).open()


def test_a_cancel_survives_a_restart_and_waits_for_resume(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    files = []
    for name in ("a.txt", "b.txt", "c.txt"):
        f = tmp_path / name
        f.write_text(f"{name} is about lamps, wicks and the keeper who trims them.\n")
        files.append(f)
    gated = GatedEmbedder()
    engine = open_engine(gated)
    try:
        window = make_window(engine)
        lib = window.library
        with qtbot.waitSignal(lib.controller.run_finished, timeout=60_000) as run:
            lib.add_paths([str(f) for f in files])
            qtbot.waitUntil(gated.entered.is_set, timeout=30_000)  # a.txt is being embedded
            qtbot.waitUntil(lib.cancel_button.isVisible, timeout=30_000)
            qtbot.mouseClick(lib.cancel_button, Qt.MouseButton.LeftButton)
            gated.release.set()
        # a.txt was embedded when Cancel came: it is kept; b and c never started
        assert run.args[0].cancelled and [Path(p).name for p in run.args[0].indexed] == ["a.txt"]
        window.close()
    finally:
        gated.release.set()
        engine.close()

    engine = open_engine()  # the next start
    try:
        window = make_window(engine)
        lib = window.library
        qtbot.waitUntil(lambda: lib.model.rowCount() == 3, timeout=30_000)
        states = {r.file_name: r.state_text for r in lib.model.rows()}
        assert states == {
            "a.txt": "ready",
            "b.txt": "cancelled: not indexed",
            "c.txt": "cancelled: not indexed",
        }, "a file not yet started vanished, or a cancelled one resumed by itself"
        assert lib.resume_row.isVisibleTo(lib) and lib.resume_button.isEnabled()
        assert lib.resume_label.text().startswith("2 documents cancelled")
        assert not any("Resuming" in t for t in window.notifications.texts())
        # nothing ran by itself: Resume is what indexes the two
        with qtbot.waitSignal(lib.controller.run_finished, timeout=60_000) as resumed:
            qtbot.mouseClick(lib.resume_button, Qt.MouseButton.LeftButton)
        assert sorted(Path(p).name for p in resumed.args[0].indexed) == ["b.txt", "c.txt"]
        qtbot.waitUntil(lambda: not lib.resume_row.isVisibleTo(lib), timeout=30_000)
        assert {r.state_text for r in lib.model.rows()} == {"ready"}
        window.close()
    finally:
        engine.close()


def test_a_stop_mid_answer_is_marked_and_not_logged_as_a_failure(
    qtbot: Any, make_window: Any, tmp_path: Path, ollama_stub: OllamaStub, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="docent")
    notes = tmp_path / "notes.txt"
    notes.write_text("The lamp is lit at dusk by the keeper.\n")
    ollama_stub.responder = lambda messages, model: "The lamp is lit at dusk [1]. More."
    ollama_stub.stall_after_tokens = 3
    engine = open_engine(ollama_host=ollama_stub.url, ollama_model="stub-model:latest")
    try:
        engine.index([notes])
        window = make_window(engine)
        with qtbot.waitSignal(window.health_changed, timeout=30_000):
            pass
        chat = window.chat
        errors = []
        bridge().message_posted.connect(lambda m: errors.append(m) if m.level == "error" else None)
        with qtbot.waitSignal(chat.answer_finished, timeout=60_000) as done:
            chat.input.setPlainText("When is the lamp lit?")
            qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
            assert ollama_stub.stalled.wait(30), "the answer never started"
            qtbot.waitUntil(lambda: "The lamp is" in chat.view.toPlainText(), timeout=30_000)
            qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
        turn = done.args[0]
        assert turn.stopped and turn.answer is not None
        assert turn.answer.text.startswith("The lamp is")
        shown = chat.view.toPlainText()
        assert "Stopped by you" in shown and "Answered by" not in shown
        assert errors == [], "a Stop was reported as an error"
        ask_records = [r for r in caplog.records if "worker ask" in r.getMessage()]
        assert ask_records, "the worker's end was not logged at all"
        assert all("failed" not in r.getMessage() for r in ask_records), [
            r.getMessage() for r in ask_records
        ]
        assert [r for r in caplog.records if r.exc_info] == [], "a traceback for a Stop"
        window.close()
    finally:
        ollama_stub.release.set()
        engine.close()
