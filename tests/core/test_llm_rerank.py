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
from docent.core.llm import OllamaClient
from docent.core.models import Hit
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
        ('{"best": ["4"]}', 5, []),  # whole numbers only, as the schema says
        ('{"best": [1e999, 2]}', 5, [2]),  # infinity crashed the question (review)
        ('{"best": "12"}', 5, None),
        ('{"best": [true, 2.9, 3]}', 5, [3]),
        ('{"best": {"2": 0}}', 5, None),
        ('{"best": 3}', 5, None),
        ('{"best": []}', 5, []),  # it named none
        ('{"best": [1, ', 5, None),  # cut short: not a reply it could use
        ("Passage 2 answers it.", 5, None),  # a server that ignored the schema
        ('{"best": "two"}', 5, None),
        ("[2]", 5, None),
        ('{"other": [1]}', 5, None),
    ],
)
def test_picks_are_the_listed_numbers_the_reply_names(
    reply: str, n: int, expected: list[int] | None
) -> None:
    assert llm_rerank.picks(reply, n) == expected


def test_reordered_puts_the_picks_first_and_keeps_the_rest_in_order() -> None:
    assert llm_rerank.reordered(list("abcde"), [4, 2]) == list("dbace")  # type: ignore[arg-type]
    assert llm_rerank.reordered(list("abc"), []) == list("abc")  # type: ignore[arg-type]


def _hit(n: int, words: int = 60) -> Hit:
    text = " ".join(f"word{n}x{i}" for i in range(words))
    return Hit(f"c{n}", "d", "a.pdf", "/d/a.pdf", n, n, n, 0.5, text)


def test_the_listing_fits_the_context_beside_the_question() -> None:
    """It counted 160 tokens a passage whatever they held, and not the question: a
    10,400-character listing went out with num_ctx 1024 (review)."""
    hits = [_hit(n) for n in range(1, 31)]

    def count(text: str) -> int:
        return len(text.split())

    assert len(llm_rerank.listed("Which word?", hits, 4096, count)) == llm_rerank.RERANK_TOP
    few = llm_rerank.listed("Which word?", hits, 400, count)
    assert 2 <= len(few) < llm_rerank.RERANK_TOP
    longer = llm_rerank.listed("Which word? " + "filler " * 120, hits, 400, count)
    assert len(longer) < len(few)
    # what is listed fits: the whole request's words within the context, reply included
    asked = llm_rerank.messages("Which word?", few)[0]["content"]
    assert count(asked) + llm_rerank.OPTIONS["num_predict"] <= 400


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
    assert answer.rerank_failed == "its reply was not a list of passage numbers"
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
    assert answer.requests == 1  # the rerank's; the answer was not tried again


def _rerank_only(stub: OllamaStub, model: ScriptedModel, **faults: object) -> None:
    """The stub's ``faults`` (stall_after_tokens, error_after_tokens) for the rerank
    request only: each request sets them as its kind wants before the stub reads them."""

    def responder(messages: list[dict[str, Any]], name: str) -> str:
        rerank = asked(messages).endswith(llm_rerank.ASK)
        for key, value in faults.items():
            setattr(stub, key, value if rerank else None)
        return model(messages, name)

    stub.responder = responder


def test_a_rerank_that_times_out_still_asks_for_the_answer(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    """The rerank's listing is the longest request: its timeout made the answer
    extractive, blamed on the answer (review)."""
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True, llm_first_token_timeout=1.0)
    _rerank_only(ollama_stub, model, stall_after_tokens=0)
    answer, _ = ask(eng)
    rerank, answers = _chats(ollama_stub)
    assert len(rerank) == 1 and len(answers) == 1
    assert answer.mode == "generated" and answer.requests == 2
    assert answer.reranked == [] and answer.rerank_failed == "it did not reply in time"


def test_the_rerank_reply_has_a_short_deadline_of_its_own(
    answer_library: Engine,
    ollama_stub: OllamaStub,
    model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rerank that starts and then stalls waited for the answer's whole time (600 s by
    default) before the answer was asked for (review). The client's per-call deadline
    itself is tested in test_llm.py."""
    deadlines: list[float | None] = []
    chat = OllamaClient.chat

    def spy(self: OllamaClient, *args: Any, **kw: Any) -> str:
        deadlines.append(kw.get("total_timeout"))
        return chat(self, *args, **kw)

    monkeypatch.setattr(OllamaClient, "chat", spy)
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True, llm_first_token_timeout=7.0)
    ask(eng)
    assert deadlines == [7.0 + llm_rerank.REPLY_SECONDS]


def test_a_stream_error_in_the_rerank_keeps_the_order_and_still_answers(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    plain, _ = ask(point_at(answer_library, ollama_stub.url))
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    _rerank_only(ollama_stub, model, error_after_tokens=1)
    answer, _ = ask(eng)
    assert answer.mode == "generated" and answer.reranked == []
    assert answer.rerank_failed and answer.as_dict()["rerank_failed"] == answer.rerank_failed
    assert [h.chunk_id for h in answer.offered] == [h.chunk_id for h in plain.offered]


def test_no_rerank_when_the_question_leaves_no_room_for_a_passage(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    """The answer says no model was asked: the rerank was (review)."""
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True, llm_context_tokens=1024)
    question = MEMORY_Q + " " + " ".join(f"memory{i} protection" for i in range(400))
    answer, _ = ask(eng, question, anyway=True)
    assert answer.too_long and answer.mode == "extractive"
    assert ollama_stub.bodies("/api/chat") == [] and answer.reranked is None


def test_a_follow_up_is_reranked_as_its_standalone_question(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    conv = Conversation()
    ask(eng, conversation=conv)
    model.rewrite = "How is memory protection done in CTSS user mode?"
    ollama_stub.requests.clear()
    follow_up = "And what about it in user mode?"
    answer, _ = ask(eng, follow_up, conversation=conv)
    (rerank,), _ = _chats(ollama_stub)
    assert answer.query == "How is memory protection done in CTSS user mode?"
    assert f"Question: {answer.query}\n" in asked(rerank["messages"])
    assert answer.reranked == [] and answer.requests == 3  # rewrite, rerank, answer


def test_a_retry_asks_the_rerank_with_the_retrys_sampling(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    """The same request again got the same reply: a Retry spent seconds for nothing."""
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    ask(eng)
    ask(eng, attempt=2)
    first, again = _chats(ollama_stub)[0]
    assert first["options"]["seed"] != again["options"]["seed"]
    assert again["options"]["temperature"] > first["options"]["temperature"] == 0


def test_stop_while_the_answer_streams_keeps_what_the_rerank_did(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    model.rerank = '{"best": [2]}'
    _rerank_only(ollama_stub, model, stall_after_tokens=None)

    def responder(messages: list[dict[str, Any]], name: str) -> str:
        answering = not asked(messages).endswith(llm_rerank.ASK)
        ollama_stub.stall_after_tokens = 2 if answering else None
        return model(messages, name)

    ollama_stub.responder = responder
    cancel = threading.Event()
    conv = Conversation()
    tokens: list[str] = []

    def on_token(token: str) -> None:
        # Stop once two tokens reached Docent (the stand-in stalls there). Stopping when the
        # server had *sent* them raced the client: it could stop with nothing received.
        tokens.append(token)
        if len(tokens) == 2:
            cancel.set()

    with pytest.raises(AnswerCancelled) as stopped:
        eng.ask(MEMORY_Q, conversation=conv, cancel=cancel, on_token=on_token)
    assert len(tokens) == 2
    assert stopped.value.answer is not None and stopped.value.answer.reranked == [2]
    assert conv.turns[-1].answer is not None and conv.turns[-1].answer.reranked == [2]


def test_stop_while_reranking_stops_the_question(
    answer_library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(answer_library, ollama_stub.url, llm_rerank=True)
    ollama_stub.stall_after_tokens = 0  # nothing comes: the model is "loading"
    cancel = threading.Event()
    conv = Conversation()

    stages: list[AskStage] = []

    def on_stage(stage: AskStage) -> None:
        stages.append(stage)
        if stage is AskStage.RERANKING:
            # stop once the rerank request is on its way (the stub says when it hangs)
            threading.Thread(
                target=lambda: ollama_stub.stalled.wait(10) and cancel.set(), daemon=True
            ).start()

    with pytest.raises(AnswerCancelled):
        eng.ask(MEMORY_Q, conversation=conv, cancel=cancel, on_stage=on_stage)
    (turn,) = conv.turns
    assert turn.stopped and turn.answer is None
    assert stages[-1] is AskStage.RERANKING  # not "waiting for the model" after Stop
    rerank, answers = _chats(ollama_stub)
    assert len(rerank) == 1 and answers == []
