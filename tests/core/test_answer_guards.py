"""Answers from a model that loops, rambles or runs long, and the options that prevent it.

The stand-in Ollama streams a scripted answer over real HTTP; a looping model is an
endless token stream, so a missed cut would show as a test stuck at the total timeout.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from answer_script import (
    INVENTION,
    MEMORY_Q,
    MODEL,
    ScriptedModel,
    ask,
    first_sentence,
    kind,
    offered_in,
    point_at,
)

from docent.core.answer_notes import notes
from docent.core.citations import cited_numbers
from docent.core.conversation import Conversation
from docent.core.engine import Engine
from docent.core.evaluation import split_sentences
from docent.core.guards import normalise
from ollama_stub import OllamaStub, split_tokens

HOW_Q = "How do I show the memory relocation registers in CTSS?"


@pytest.fixture
def engine(answer_library: Engine, ollama_stub: OllamaStub) -> Engine:
    return point_at(answer_library, ollama_stub.url, llm_total_timeout=30.0)


def quoting(messages: list[dict[str, Any]], n: int = 0) -> str:
    """A sentence of the ``n``-th passage offered, without a citation (like SmolLM2)."""
    return first_sentence(offered_in(messages)[n].text) + "."


def test_a_looping_answer_is_cut_on_the_server_and_keeps_the_text_before(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    loop = "The supervisor sets the relocation register for each user program."

    def endless(messages: list[dict[str, Any]], model: str) -> Iterator[str]:
        yield from split_tokens(quoting(messages) + " ")
        while True:
            yield from split_tokens(loop + " ")

    ollama_stub.responder = endless
    answer, tokens = ask(engine)
    assert answer.mode == "generated"
    assert "began repeating" in answer.cut
    assert answer.text.endswith(f"({answer.cut})")
    body = answer.text[: answer.text.rindex("(")]
    keys = [normalise(s) for s in split_sentences(body)]
    assert len(keys) == len(set(keys)), "a repeated sentence survived the cut"
    assert body.count(loop[:-1]) == 1  # kept up to the first repeat
    assert len(tokens) < 2 * len(split_tokens(loop)) + 40  # cut within a bounded stretch
    assert ollama_stub.client_disconnected.wait(5.0), "the server kept generating"
    assert answer.confidence != "high"
    assert json.loads(json.dumps(answer.as_dict()))["cut"] == answer.cut


def test_loop_before_anything_useful_falls_back_to_extractive(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = lambda messages, model: itertools.cycle(["R0", " R1", " R2", " "])
    answer, tokens = ask(engine)
    assert answer.mode == "extractive" and "repeating" in answer.reason
    assert len(tokens) < 60
    assert ollama_stub.client_disconnected.wait(5.0)


def test_counting_instead_of_answering_falls_back_to_extractive(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = lambda messages, model: (f"{i}) " for i in itertools.count(1))
    answer, tokens = ask(engine)
    assert answer.mode == "extractive" and "numbers instead of words" in answer.reason
    assert answer.citations and {c.source for c in answer.citations} == {"retrieved"}
    assert len(tokens) < 20
    assert ollama_stub.client_disconnected.wait(5.0)
    # The model is running: the answer says it answered unusably, not to start Ollama.
    assert answer.text.startswith(f"**Not generated — {MODEL}'s answer could not be used.**")
    assert "ollama serve" not in answer.text and "A larger model" in answer.text
    assert "numbers instead of words" in answer.cut
    # Not asked again: measured, it gained nothing (docs/measurements/answers.md, session 11).
    assert len(ollama_stub.bodies("/api/chat")) == 1 and answer.attempts == 1


def test_an_empty_answer_says_the_model_answered_with_nothing_usable(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    """One field says the model's answer could not be used (``Answer.cut``): the text and
    the window's banner read it, so neither tells a person whose Ollama runs to start it."""
    from docent.gui.health import Health, banner

    ollama_stub.responder = lambda messages, model: "  \n "
    answer, _ = ask(engine)
    assert answer.mode == "extractive" and answer.cut == "The model returned an empty answer."
    assert answer.text.startswith(f"**Not generated — {MODEL}'s answer could not be used.**")
    assert "ollama serve" not in answer.text
    text, retry = banner(Health(True, [MODEL]), MODEL, answer)
    assert retry and "its last answer could not be used" in text


def test_a_later_try_of_fragments_too_short_to_judge_does_not_replace_the_first(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    """SmolLM2's tries sometimes end by themselves after "1) 2)\n\n3)\n\n4)": no
    sentence to judge is no sentence a passage clearly says, so the invention before
    them stays, labelled unsupported."""
    tries: list[int] = []

    def invents_then_fragments(messages: list[dict[str, Any]], model: str) -> str:
        tries.append(1)
        return INVENTION if len(tries) == 1 else "1) 2)\n\n3) \n\n4) \n5)"

    ollama_stub.responder = invents_then_fragments
    answer, _ = ask(engine)
    assert len(tries) == 3
    assert answer.mode == "generated" and answer.unsupported_answer
    assert (answer.attempt, answer.attempts) == (1, 3) and answer.parts()[1] == INVENTION
    assert "5)" not in answer.text


def test_rambling_without_a_sentence_end_is_cut(engine: Engine, ollama_stub: OllamaStub) -> None:
    def rambling(messages: list[dict[str, Any]], model: str) -> Iterator[str]:
        yield from split_tokens(quoting(messages) + " ")
        for i in itertools.count():
            yield f" word{i}"

    ollama_stub.responder = rambling
    answer, tokens = ask(engine)
    assert answer.mode == "generated" and "without ending a sentence" in answer.cut
    assert "word1" not in answer.text
    assert len(tokens) < 200


def test_answer_at_its_budget_ends_at_its_last_sentence(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.done_reason = "length"  # Ollama stopped at num_predict
    ollama_stub.responder = lambda messages, model: quoting(messages) + " And then the"
    answer, _ = ask(engine)
    assert answer.mode == "generated" and "budget of 192 tokens" in answer.cut
    assert "And then the" not in answer.text
    assert answer.budget == 192 and answer.tokens > 0


def test_options_fit_answers_and_the_budget_fits_the_question(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = ScriptedModel()
    ask(engine)  # a question about a fact
    ask(engine, HOW_Q)  # a how-to question
    point_at(engine, ollama_stub.url, llm_answer_tokens=100)
    ask(engine)
    fact, how, fixed = (body["options"] for body in ollama_stub.bodies("/api/chat"))
    assert fact["temperature"] <= 0.2 and fact["repeat_penalty"] > 1.0
    assert fact["repeat_last_n"] >= 64
    assert (fact["num_predict"], how["num_predict"], fixed["num_predict"]) == (192, 384, 100)


def test_a_citation_that_does_not_support_its_sentence_is_reported(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    def wrong_number(messages: list[dict[str, Any]], model: str) -> str:
        offered = sorted(offered_in(messages), key=lambda o: o.n)  # listed best last
        far = offered[-1].n  # the last passage: a different part of the library
        return f"{first_sentence(offered[0].text)} [{far}]."

    ollama_stub.responder = wrong_number
    answer, _ = ask(engine, MEMORY_Q)
    ((sentence, cited, better),) = answer.misattributed
    assert cited == (len(answer.offered),) and better == 1
    assert any(
        n.endswith(f"passage [{better}] does (listed with the sources).") for n in notes(answer)
    )
    # the passage the note names is one the sources list (QA-78: it was not)
    assert {c.n: c.source for c in answer.citations} == {better: "matched", cited[0]: "model"}
    assert not any(n.startswith("Docent matched") for n in notes(answer))
    assert answer.unsupported_sentences == [sentence]
    assert cited_numbers(answer.text) == list(cited)  # the model's marker is left as written
    (entry,) = answer.as_dict()["misattributed_citations"]
    assert entry == {"sentence": sentence, "cited": list(cited), "better": 1}


def test_a_looping_query_rewrite_is_cut_and_the_keywords_stand_in(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    scripted = ScriptedModel()

    def responder(messages: list[dict[str, Any]], model: str) -> Any:
        if kind(messages) == "rewrite":  # a follow-up's rewrite that never ends
            return itertools.cycle([" CTSS", " memory", " relocation", " registers"])
        return scripted(messages, model)

    ollama_stub.responder = responder
    conv = Conversation()
    ask(engine, MEMORY_Q, conversation=conv)
    answer, _ = ask(engine, "And how many registers?", conversation=conv)
    assert ollama_stub.client_disconnected.wait(5.0), "the rewrite kept generating"
    assert answer.mode == "generated" and answer.rewrites == []
    assert answer.query.startswith("And how many registers? ")  # the keyword fallback
    assert {"memory", "relocation", "ctss"} <= set(answer.query.lower().split())
