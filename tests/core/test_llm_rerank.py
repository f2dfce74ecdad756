"""The LLM rerank (``llm_rerank``, off by default): the model is asked which of the
search's best passages answer, and those are offered first. A real Engine over the
sample PDFs and the stand-in Ollama over real HTTP (``answer_script``)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from answer_script import MEMORY_Q, ScriptedModel, ask, asked, offered_in, point_at

from docent.core import llm_rerank
from docent.core.answering import AnswerCancelled
from docent.core.conversation import AskStage, Conversation
from docent.core.engine import Engine
from ollama_stub import OllamaStub, unused_port


@pytest.fixture
def model(ollama_stub: OllamaStub) -> ScriptedModel:
    scripted = ScriptedModel()
    ollama_stub.responder = scripted
    return scripted


def _chats(stub: OllamaStub) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rerank requests and the answer requests the stub saw, in order."""
    bodies = stub.bodies("/api/chat")
    rerank = [b for b in bodies if asked(b["messages"]).endswith(llm_rerank.ASK)]
    return rerank, [b for b in bodies if b not in rerank]


# The pieces -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "n", "expected"),
    [
        ('{"best": [3, 1]}', 5, [3, 1]),
        ('{"best": [2, 2, 4]}', 5, [2, 4]),  # once each
        ('{"best": [9, 0, 2]}', 5, [2]),  # numbers never listed are dropped
        ('{"best": [1, 2, 3, 4, 5]}', 5, [1, 2, 3]),  # at most RERANK_PICKS
        ('{"best": ["4"]}', 5, [4]),
        ('{"best": [1, ', 5, []),  # cut short
        ("Passage 2 answers it.", 5, []),  # a server that ignored the schema
        ('{"best": "two"}', 5, []),
        ("[2]", 5, []),
        ('{"other": [1]}', 5, []),
    ],
)
def test_picks_are_the_listed_numbers_the_reply_names(
    reply: str, n: int, expected: list[int]
) -> None:
    assert llm_rerank.picks(reply, n) == expected


def test_reordered_puts_the_picks_first_and_keeps_the_rest_in_order() -> None:
    assert llm_rerank.reordered(list("abcde"), [4, 2]) == list("dbace")  # type: ignore[arg-type]
    assert llm_rerank.reordered(list("abc"), []) == list("abc")  # type: ignore[arg-type]


def test_the_listing_fits_the_answer_context() -> None:
    hits = list(range(30))
    assert len(llm_rerank.listed(hits, 4096)) == llm_rerank.RERANK_TOP  # type: ignore[arg-type]
    assert len(llm_rerank.listed(hits, 512)) < 2  # type: ignore[arg-type]


# In an answer -----------------------------------------------------------------


def test_off_by_default_no_request(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url)
    assert eng.settings.llm_rerank is False
    answer, _ = ask(eng)
    rerank, answers = _chats(ollama_stub)
    assert rerank == [] and len(answers) == 1
    assert answer.reranked is None and answer.requests == 1


def test_the_models_pick_is_offered_first(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    model.rerank = '{"best": [3]}'
    stages: list[AskStage] = []
    answer, _ = ask(eng, on_stage=stages.append)
    (rerank,), (body,) = _chats(ollama_stub)
    listed = offered_in(rerank["messages"])
    assert [p.n for p in listed] == list(range(1, len(listed) + 1)) and len(listed) >= 3
    # held to the schema, with the answer's context (Ollama would reload for another)
    assert rerank["format"]["properties"]["best"]["items"]["enum"] == list(
        range(1, len(listed) + 1)
    )
    assert rerank["options"]["num_ctx"] == body["options"]["num_ctx"]
    offered = sorted(offered_in(body["messages"]), key=lambda p: p.n)
    # the search's third passage is [1] now, and its first and second follow it
    for got, want in zip(offered, [listed[2], listed[0], listed[1]], strict=False):
        assert (got.file_name, got.pages) == (want.file_name, want.pages)
        assert got.text.startswith(want.text.removesuffix(" …")[:200])
    best = " ".join(answer.offered[0].text.split())
    assert best.startswith(listed[2].text.removesuffix(" …")[:200])
    assert answer.reranked == [3] and answer.requests == 2
    assert answer.mode == "generated" and answer.citations[0].n == 1
    assert stages.index(AskStage.RERANKING) < len(stages) - 1 - stages[::-1].index(AskStage.WAITING)
    assert answer.as_dict()["reranked"] == [3]


def test_a_reply_it_cannot_use_keeps_the_search_order(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    plain, _ = ask(point_at(answer_library, ollama_stub.url))
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    model.rerank = "The second passage, I think."
    answer, _ = ask(eng)
    assert answer.reranked == []
    assert [h.chunk_id for h in answer.offered] == [h.chunk_id for h in plain.offered]
    assert answer.mode == "generated"


def test_no_rerank_without_a_request_left_for_the_answer(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(
        answer_library, ollama_stub.url, llm_rerank=True, llm_max_requests_per_question=1
    )
    model.rerank = '{"best": [2]}'
    answer, _ = ask(eng)
    rerank, answers = _chats(ollama_stub)
    assert rerank == [] and len(answers) == 1 and answer.reranked is None


def test_a_server_error_keeps_the_order_and_still_answers(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    fail = {"left": 1}

    def responder(messages: list[dict[str, Any]], name: str) -> str:
        if asked(messages).endswith(llm_rerank.ASK) and fail["left"]:
            fail["left"] -= 1
            return "".join(f"{i}) " for i in range(1, 400))  # a loop: the guard cuts it
        return model(messages, name)

    ollama_stub.responder = responder
    answer, _ = ask(eng)
    assert answer.reranked == [] and answer.mode == "generated"


def test_ollama_down_is_asked_once_and_the_passages_are_quoted(
    answer_library: Engine,
) -> None:
    eng = point_at(answer_library, f"http://127.0.0.1:{unused_port()}", llm_rerank=True)
    answer, _ = ask(eng)
    assert answer.mode == "extractive" and answer.reranked is None
    assert "Ollama" in answer.text and answer.offered


def test_stop_while_reranking_stops_the_question(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    ollama_stub.stall_after_tokens = 0  # nothing comes: the model is "loading"
    cancel = threading.Event()
    conv = Conversation()

    def on_stage(stage: AskStage) -> None:
        if stage is AskStage.RERANKING:
            # stop once the rerank request is on its way (the stub says when it hangs)
            threading.Thread(
                target=lambda: ollama_stub.stalled.wait(10) and cancel.set(), daemon=True
            ).start()

    with pytest.raises(AnswerCancelled):
        eng.ask(MEMORY_Q, conversation=conv, cancel=cancel, on_stage=on_stage)
    (turn,) = conv.turns
    assert turn.stopped and turn.answer is None
    rerank, answers = _chats(ollama_stub)
    assert len(rerank) == 1 and answers == []
