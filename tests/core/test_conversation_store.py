"""The window's conversations kept across restarts (core/conversation_store.py; QA-80:
closing Docent lost them all)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from answer_script import MODEL

from docent.core import conversation_store as store
from docent.core.answering import Answerer
from docent.core.config import Settings
from docent.core.conversation import Conversation
from docent.core.llm import OllamaClient
from docent.core.models import Hit
from docent.core.retrieval import SearchResult
from ollama_stub import OllamaStub

PUMP = (
    "The pump starts when the switch is on. The pump stops when the tank is full. "
    "The tank holds forty litres of water and is filled from the roof."
)


def answered(url: str, tmp_path: Path) -> Conversation:
    """A conversation of real answers: one cited, one asked again (its first kept)."""
    hit = Hit("c1", "d1", "pump.pdf", "/docs/pump.pdf", 4, 5, 1, 1.0, PUMP, page_breaks=((5, 40),))

    def search(query: str, rewrites: Sequence[str], /, *, within: Sequence[str] = ()) -> Any:
        return SearchResult(query, [hit], confidence="high")

    settings = Settings.model_validate(
        {"data_dir": str(tmp_path), "ollama_host": url, "ollama_model": MODEL}
    )
    ask = Answerer(OllamaClient(url, MODEL, 1.0, 5.0, 10.0), settings, search)
    conv = Conversation(scope=["/docs/pump.pdf"], collection="c-7")
    ask.answer("When does the pump stop?", conv)  # (the Answerer adds each turn)
    ask.answer("How much does the tank hold?", conv)
    earlier = conv.pop()
    assert earlier is not None
    ask.answer("How much does the tank hold?", conv)
    conv.retried(earlier)
    conv.add_unanswered("And the valve?", stopped=True)
    return conv


def test_conversations_come_back_as_they_were(ollama_stub: OllamaStub, tmp_path: Path) -> None:
    ollama_stub.responder = lambda messages, model: "The pump stops when the tank is full [1]."
    conv = answered(ollama_stub.url, tmp_path)
    assert conv.turns[1].others and conv.turns[0].answer and conv.turns[0].answer.citations
    store.write(tmp_path, store.dumps([conv, Conversation()]))  # an empty one is not kept
    (back,) = store.read(tmp_path)
    assert back == conv


def test_a_file_that_cannot_be_read_is_set_aside_not_lost(tmp_path: Path) -> None:
    path = store.path_in(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "conversations": [{"turns": [{"numb', encoding="utf-8")
    assert store.read(tmp_path) == []
    aside = path.with_name("open.json.unreadable")
    assert aside.read_text(encoding="utf-8").startswith('{"version": 1') and not path.exists()
    assert store.read(tmp_path) == []  # no file: none
