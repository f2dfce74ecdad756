"""Collections end to end in the window: a real Engine (a hashing embedder stands in for
the model: which documents a question reaches matters here, not how well they rank), a
real queue, a drop into the collection shown, an answer from the stand-in Ollama whose
passages come only from that collection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gui_helpers import ANSWER_TIMEOUT_MS, INDEX_TIMEOUT_MS, drop

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.gui.main_window import MainWindow
from fake_embedder import FakeEmbedder
from ollama_stub import OllamaStub


@pytest.fixture
def engine(ollama_stub: OllamaStub) -> Iterator[Engine]:
    ollama_stub.responder = lambda messages, model: "The comet passed in May [1]."
    settings = load_settings(
        extract_in_subprocess=False,
        ollama_host=ollama_stub.url,
        ollama_model="stub-model:latest",
    )
    eng = Engine(settings, embedder=FakeEmbedder()).open()
    yield eng
    eng.close()


def test_a_drop_and_a_question_stay_in_the_collection_shown(
    qtbot: Any, engine: Engine, make_window: Any, tmp_path: Path, ollama_stub: OllamaStub
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "stargazing.txt").write_text(
        "Stargazing diary\n\nThe comet passed over the garden in May; the comet's tail "
        "was bright and the telescope caught the comet at dawn.\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "observatory-budget.txt").write_text(
        "Observatory budget\n\nThe comet survey costs little; the telescope budget for "
        "the comet programme is approved.\n"
    )
    made = engine.create_collection("Home")
    engine.index([home], collection=made.id)
    office = engine.create_collection("Work")

    window: MainWindow = make_window(engine)
    bar = window.library.collection_bar
    qtbot.waitUntil(lambda: len(bar.collections) == 3, timeout=INDEX_TIMEOUT_MS)
    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        bar.select(office.id)
    assert window.library.model.rows() == []
    with qtbot.waitSignal(window.library.controller.run_finished, timeout=INDEX_TIMEOUT_MS):
        drop(window, [work])
    qtbot.waitUntil(
        lambda: (
            [(r.file_name, r.state) for r in window.library.model.rows()]
            == [("observatory-budget.txt", "ready")]
        ),
        timeout=INDEX_TIMEOUT_MS,
    )
    assert [d.file_name for d in engine.documents(office.id)] == ["observatory-budget.txt"]

    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        bar.select(made.id)
    assert [r.file_name for r in window.library.model.rows()] == ["stargazing.txt"]
    assert window.chat.scope_label.text() == "Asking: collection Home"
    # the status bar counts the collection shown, out of the whole library
    home_chunks = next(c.chunks for c in bar.collections if c.id == made.id)
    qtbot.waitUntil(
        lambda: (
            window.docs_label.text()
            == f"Home: 1 of 2 documents · {home_chunks} chunk{'' if home_chunks == 1 else 's'}"
        ),
        timeout=10_000,
    )
    with qtbot.waitSignal(window.chat.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        window.chat.ask("When did the comet pass?")
    turn = done.args[0]
    assert turn.answer is not None and turn.answer.offered
    assert {h.file_name for h in turn.answer.offered} == {"stargazing.txt"}
    prompt = " ".join(m["content"] for m in ollama_stub.bodies("/api/chat")[-1]["messages"])
    assert "stargazing.txt" in prompt and "observatory-budget.txt" not in prompt
    bar.select(None)  # all collections: the whole library's count
    total = engine.status().chunks
    qtbot.waitUntil(
        lambda: window.docs_label.text() == f"2 documents · {total} chunks", timeout=10_000
    )
