"""Core reads ``[1-2]``, ``[1–3]``, ``[1; 2]`` and ``[ 1 ]`` as citations (citations.MARKER:
the Sources pane lists them, the checks score them), but the chat's chips
(markdown_view._CITE_GROUP) know only ``[1]`` and ``[1, 2]``: such markers stayed inert
text, with no chip to open the passage they cite."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeEngine, answer, citation

from docent.core.citations import cited_numbers
from docent.gui.chat_pane import ChatPane


@pytest.mark.parametrize("marker", ["[1-2]", "[1–2]", "[1; 2]", "[ 1, 2 ]"])
def test_every_marker_core_counts_is_a_chip(
    qtbot: Any, fake: FakeEngine, chat: ChatPane, marker: str
) -> None:
    text = f"The interval timer in location 5 counts at 60Hz {marker}."
    assert cited_numbers(text) == [1, 2]  # what the engine cites: passages 1 and 2
    fake.answers = [answer(text, [citation(1, "/d/a.pdf", 3), citation(2, "/d/a.pdf", 4)])]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("How fast is the timer?")
    html = chat.view.toHtml()
    assert 'href="cite:1.1"' in html and 'href="cite:1.2"' in html, chat.view.toPlainText()


def test_the_engines_answer_with_a_range_marker_has_chips(
    qtbot: Any, make_engine: Any, make_window: Any, tmp_path: Any, samples_dir: Any
) -> None:
    """End to end (real Engine, stand-in Ollama): the engine keeps ``[1-2]`` as the model
    wrote it and cites passages 1 and 2; the chat must draw chips for them."""
    from fake_embedder import FakeEmbedder
    from ollama_stub import OllamaStub

    pdf = tmp_path / "docs" / "simh__ctss_hardware.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes((samples_dir / pdf.name).read_bytes())
    reply = (
        "Location 5 is incremented at 60Hz [1-2]. When it overflows, a trap occurs and the "
        "PC is saved in location 6 [1; 2]."
    )
    with OllamaStub() as stub:
        stub.responder = lambda messages, model: reply
        engine = make_engine(FakeEmbedder(), ollama_host=stub.url, ollama_model="stub-model:latest")
        engine.index([pdf])
        window = make_window(engine)
        chat = window.chat
        with qtbot.waitSignal(window.health_changed, timeout=60_000):
            pass
        with qtbot.waitSignal(chat.answer_finished, timeout=60_000) as done:
            chat.ask("How is the interval timer in location 5 incremented, and on overflow?")
        turn = done.args[0]
        assert turn.answer.mode == "generated" and [c.n for c in turn.citations] == [1, 2]
        assert "[1-2]" in turn.answer.text
        html = chat.view.toHtml()
        assert 'href="cite:1.1"' in html and 'href="cite:1.2"' in html, chat.view.toPlainText()
