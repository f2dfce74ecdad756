"""Ollama stopping between two polls: the answer falls back to the passages and says
Ollama is not running, and the window says so too at once (its status bar and banner said
it was running with the model until the next poll, 30 s later; review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_helpers import started
from test_user_stops import open_engine

from ollama_stub import OllamaStub


def test_the_window_rechecks_ollama_when_an_answer_could_not_reach_it(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    doc = tmp_path / "lamps.txt"
    doc.write_text("The keeper trims the wicks of the lamps every evening at dusk.\n" * 3)
    stub = OllamaStub().start()
    engine = open_engine(ollama_host=stub.url, ollama_model="stub-model:latest")
    try:
        window = started(qtbot, engine, make_window)
        assert window.health is not None and window.health.ok
        with qtbot.waitSignal(window.library.controller.run_finished, timeout=30_000):
            window.library.add_paths([str(doc)])
        stub.stop()  # Ollama goes away between two polls
        window.health_timer.stop()  # no poll: only the answer's own check can tell
        with qtbot.waitSignal(window.chat.answer_finished, timeout=30_000) as done:
            window.chat.ask("When does the keeper trim the wicks?")
        assert done.args[0].answer.mode == "extractive"
        qtbot.waitUntil(lambda: window.health is not None and not window.health.ok, timeout=30_000)
        assert "not running" in window.ollama_label.text()
        window.close()
    finally:
        engine.close()
        stub.stop()
