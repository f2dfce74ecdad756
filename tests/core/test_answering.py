"""Answers end to end: a real Engine over sample PDFs (the hashing embedder: conftest.py),
the stand-in Ollama over real HTTP.

The library (``answer_library`` in conftest: two sample PDFs) is indexed once per
session; each test points the engine's settings at its
own stub (or at a dead port) and scripts the model with ``ScriptedModel``.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from answer_script import (
    INVENTION,
    MEMORY_Q,
    MODEL,
    GoesOnFromTheOpening,
    InventsFirst,
    InventsThenCounts,
    ScriptedModel,
    ask,
    asked,
    first_sentence,
    kind,
    offered_in,
    point_at,
)

from docent.core.answer_notes import conversation_markdown, headline, notes
from docent.core.answering import (
    RETRY_MIN_SUPPORT,
    Answer,
    AnswerCancelled,
    Answerer,
    clearly_supported,
)
from docent.core.citations import strip_markers
from docent.core.conversation import (
    UNSUPPORTED_LEAD,
    UNSUPPORTED_QUOTES,
    AskStage,
    Conversation,
    is_follow_up,
)
from docent.core.engine import Engine
from docent.core.errors import (
    LLMConnectionCut,
    LLMError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
    NotOllama,
)
from docent.core.evaluation import SUPPORT_THRESHOLD
from docent.core.prompting import ANSWER_SAMPLING, DEFAULT_LAYOUT, OPENING
from docent.core.retrieval import SearchResult
from ollama_stub import OllamaStub

PAGES_Q = "How many pages does the LibreOffice Writer test text have?"
OFF_TOPIC = "How do I bake sourdough bread with rye flour?"


@pytest.fixture
def library(answer_library: Engine) -> Engine:
    return answer_library


@pytest.fixture
def engine(library: Engine, ollama_stub: OllamaStub) -> Engine:
    return point_at(library, ollama_stub.url)


@pytest.fixture
def model(ollama_stub: OllamaStub) -> ScriptedModel:
    scripted = ScriptedModel()
    ollama_stub.responder = scripted
    return scripted


# Generated answers -----------------------------------------------------------


def test_generated_answer_cites_an_offered_passage(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    answer, tokens = ask(engine)
    assert answer.mode == "generated" and answer.model == MODEL
    assert "".join(tokens).strip() == answer.text  # streamed as it arrived
    (body,) = ollama_stub.bodies("/api/chat")
    offered = offered_in(body["messages"])
    n = len(answer.offered)
    assert [o.n for o in offered] == list(range(n, 0, -1))  # the best listed last
    offered.sort(key=lambda o: o.n)
    for o, hit in zip(offered, answer.offered, strict=True):
        assert (o.file_name, o.pages) == (hit.file_name, hit.pages_label)
    assert body["options"]["num_ctx"] == engine.settings.llm_context_tokens
    assert "followed by the number of its passage" in asked(body["messages"])
    (citation,) = answer.citations
    best = answer.offered[0]
    assert citation.n == 1 and citation.chunk_id == best.chunk_id
    assert (citation.file_name, citation.page, citation.text) == (
        best.file_name,
        best.page_start,
        best.text,
    )
    assert citation.file_name == "simh__ctss_hardware.pdf"
    assert answer.unsupported_sentences == [] and answer.invalid_citations == []
    assert answer.sentence_support and all(
        s >= SUPPORT_THRESHOLD for _, s in answer.sentence_support
    )
    assert answer.confidence in ("high", "medium") and answer.reason == ""
    assert notes(answer) == [headline(answer)]  # no check found anything to say
    assert answer.requests == 1 and answer.seconds > 0


def test_a_page_the_model_names_but_was_not_given_is_dropped_and_reported(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """A small model wrote a passage's header with a page of its own ("p.34" of a
    27-page file), shown as if a citation (QA, session 26)."""
    first, _ = ask(engine)
    best = first.offered[0]
    model.answer = f"{best.file_name} p.999: {first_sentence(best.text)}."
    answer, _ = ask(engine)
    place = f"{best.file_name} p.999"
    assert answer.unoffered_pages == [place] and "p.999" not in answer.text
    assert answer.pages_not_given == []  # dropped first: not said twice
    assert f"Dropped {place}: the model named a page it was not given." in said(answer)
    assert answer.confidence != "high"
    assert answer.as_dict()["unoffered_pages"] == [place]


def test_a_page_the_answer_names_in_a_sentence_but_was_not_given_is_said(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """ "This is explained on page 99": a reader takes the page for a citation, and no
    passage the model was given is from it (session 28). Left in the text, and said; a
    page that was given is not."""
    first, _ = ask(engine)
    best = first.offered[0]
    sentence = first_sentence(best.text)
    model.answer = (
        f"{sentence} [1]. This is explained on page 99, as page {best.page_start} also says."
    )
    answer, _ = ask(engine)
    assert answer.pages_not_given == ["page 99"] and "page 99" in answer.text
    assert "The answer names page 99, but no passage given to the model is from that page" in (
        said(answer)
    )
    assert answer.confidence != "high"
    assert answer.as_dict()["pages_not_given"] == ["page 99"]


def test_numbers_never_offered_are_dropped_and_reported(
    engine: Engine, model: ScriptedModel
) -> None:
    model.cite = "[1, 42][2][77]"
    answer, tokens = ask(engine)
    assert "[1, 42]" in "".join(tokens)  # the model did write them
    assert answer.invalid_citations == [42, 77]
    assert "42" not in answer.text and "77" not in answer.text
    assert "[1][2]" in answer.text
    assert [c.n for c in answer.citations] == [1, 2]
    assert "the model cited passages it was not given" in said(answer)
    assert answer.confidence != "high"


@pytest.mark.parametrize("echo", [False, True], ids=["ollama", "llama.cpp"])
def test_the_answer_is_opened_in_a_quotation_of_the_best_passage(
    engine: Engine, ollama_stub: OllamaStub, echo: bool
) -> None:
    """A small model that starts inside a quotation copies the passage (session 22). The
    opening is Docent's, so its "[1]" is no citation of the model's: the copied sentence is
    cited by matching, and the answer reads the same whether the server sends the begun
    words back or not."""
    model = GoesOnFromTheOpening(echo=echo)
    ollama_stub.responder = model
    answer, tokens = ask(engine)
    (body,) = ollama_stub.bodies("/api/chat")
    assert body["messages"][-1] == {"role": "assistant", "content": OPENING}
    assert DEFAULT_LAYOUT.prefill == OPENING
    best = answer.offered[0]
    copied = " ".join(first_sentence(best.text).split())  # as the prompt shows it
    assert "".join(tokens).startswith(copied)  # the begun words are not streamed
    assert answer.mode == "generated"
    assert answer.text.startswith(f'"{copied}')
    assert "Passage [1] says" not in answer.text
    (citation,) = answer.citations
    assert (citation.n, citation.source, citation.chunk_id) == (1, "matched", best.chunk_id)
    # the model's own sentence is no passage's: flagged, as any sentence would be
    assert answer.unsupported_sentences == ["That is how the book puts it."]


def test_no_opening_quotation_mark_when_the_model_answered_afresh(
    engine: Engine, model: ScriptedModel
) -> None:
    """A server that cannot go on from a begun reply answers from the start: with no
    quotation to close, Docent's opening mark is left out."""
    answer, _ = ask(engine)
    assert not answer.text.startswith('"') and answer.citations


def test_no_citations_at_all_gets_a_matched_citation(engine: Engine, model: ScriptedModel) -> None:
    model.cite = ""
    answer, tokens = ask(engine)
    assert answer.mode == "generated" and "[" not in "".join(tokens)
    # The quoted sentence is matched to the passage it comes from, marked as matched.
    (citation,) = answer.citations
    assert citation.n == 1 and citation.source == "matched"
    assert citation.chunk_id == answer.offered[0].chunk_id
    assert answer.text.endswith(" [1].")
    # one sentence, one passage: said in the singular ("1 sentence ... support them": seen)
    assert "Docent matched [1] to the sentence it supports: the model did not " in (said(answer))
    assert answer.as_dict()["citations"][0]["source"] == "matched"
    assert answer.unsupported_sentences == []
    assert answer.confidence != "high"  # Docent's match, not the model's citation


def test_an_answer_copied_from_a_lower_passage_lists_the_closest_one_too(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    """QA-77: smollm2 copied, uncited, a sentence of passage [3] (a manual's build notes)
    for "How long do I bake the lemon cake?"; Docent matched [3] and showed it alone, and
    the recipe's "Bake for 35 minutes", passage [1], was never shown."""

    def copies_the_last(messages: list[dict[str, object]], model: str) -> str:
        if kind(messages) != "answer":
            return "1: 0.9"
        last = max(offered_in(messages), key=lambda p: p.n)
        return f"{first_sentence(last.text)}."

    ollama_stub.responder = copies_the_last
    answer, _ = ask(engine)
    assert answer.mode == "generated" and not answer.unsupported_answer
    sources = [(c.n, c.source) for c in answer.citations]
    last = len(answer.offered)
    assert last > 1 and sources == [(1, "closest"), (last, "matched")]
    assert answer.citations[0].chunk_id == answer.offered[0].chunk_id
    assert "[1]" not in answer.text  # listed with the sources, not put in the model's words
    assert (
        "The answer does not cite passage [1], the closest to your question: it is listed "
        "with the sources."
    ) in notes(answer)


def test_an_answer_nothing_supports_says_so_and_quotes_the_best_passages(
    engine: Engine, model: ScriptedModel
) -> None:
    model.answer = "The lunar rover carried twelve penguins to Jupiter in a basket."
    answer, _ = ask(engine)
    assert answer.mode == "generated" and answer.unsupported_answer
    assert answer.unsupported_sentences == [model.answer]
    assert answer.uncited_sentences == [model.answer]  # no citation, no passage supports it
    assert answer.confidence == "low"
    assert "1 sentence cites nothing, and no passage offered to the model supports it" in (
        said(answer)
    )
    # Said plainly first; the invention stays uncited; the best passages quoted beneath.
    lead, words, quotes = answer.parts()
    assert answer.text.startswith(UNSUPPORTED_LEAD) and lead == UNSUPPORTED_LEAD
    assert words == model.answer
    assert quotes.startswith(UNSUPPORTED_QUOTES)
    shown = answer.offered[:3]
    assert [(c.n, c.source) for c in answer.citations] == [
        (n, "retrieved") for n in range(1, len(shown) + 1)
    ]
    for n, (citation, hit) in enumerate(zip(answer.citations, shown, strict=True), 1):
        assert citation.chunk_id == hit.chunk_id
        assert f"[{n}] {hit.file_name}, {hit.pages_label}:\n> " in quotes
    assert answer.as_dict()["unsupported_answer"] is True
    assert {c["source"] for c in answer.as_dict()["citations"]} == {"retrieved"}


def test_an_unsupported_answer_is_asked_again_with_another_seed(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = InventsFirst()
    stages: list[AskStage] = []
    answer, tokens = ask(engine, on_stage=stages.append)
    first, second = ollama_stub.bodies("/api/chat")
    assert first["messages"] == second["messages"]
    assert (first["options"]["seed"], second["options"]["seed"]) == (7, 8)
    assert stages == [
        AskStage.SEARCHING,
        AskStage.WAITING,
        AskStage.CHECKING,
        AskStage.RETRYING,
        AskStage.CHECKING,
    ]
    assert "".join(tokens).startswith("The lunar rover")  # the first was streamed too
    # the second answer is kept: cited, and it says it is the second
    assert (answer.attempt, answer.attempts) == (2, 2) and answer.requests == 2
    assert not answer.unsupported_answer
    assert "lunar" not in answer.text and [c.n for c in answer.citations] == [1]
    assert f"No passage supported {MODEL}'s first answer, so Docent asked it again (asked " in (
        said(answer)
    )
    assert answer.as_dict()["attempts"] == 2


def test_asked_again_and_still_unsupported_says_so(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    model.answer = INVENTION
    answer, _ = ask(engine)  # llm_answer_retries 2, within the cap of 3 requests
    bodies = ollama_stub.bodies("/api/chat")
    assert [b["options"]["seed"] for b in bodies] == [7, 8, 9] and answer.attempts == 3
    assert answer.unsupported_answer and answer.parts()[1] == INVENTION
    assert answer.attempt == 1 and (
        f"Docent asked {MODEL} again (asked 3 times); no later answer had a sentence your "
        "documents clearly say, so this first one stands."
    ) in said(answer)


def test_a_retry_by_the_user_samples_anew(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """Asked again by the user (the window's Retry), the model gets another seed and the
    hotter sampling: with the first seed it would write the same answer again."""
    ask(engine)
    ask(engine, attempt=2)
    ask(engine, attempt=3)
    first, second, third = (b["options"] for b in ollama_stub.bodies("/api/chat"))
    assert first["seed"] == 7 and first["temperature"] == ANSWER_SAMPLING["temperature"]
    assert (second["seed"], third["seed"]) == (107, 207)
    assert second["temperature"] == third["temperature"] == 0.6
    assert second["num_predict"] == first["num_predict"]  # the same budget


def test_a_retry_asked_again_by_itself_keeps_its_own_seeds(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = InventsFirst()
    answer, _ = ask(engine, attempt=2)
    assert [b["options"]["seed"] for b in ollama_stub.bodies("/api/chat")] == [107, 108]
    assert answer.attempts == 2


@pytest.mark.parametrize(
    ("changes", "requests"),
    [
        ({"llm_answer_retries": 0}, 1),
        ({"llm_max_requests_per_question": 1}, 1),
        ({"llm_answer_retries": 1}, 2),
        ({"llm_max_requests_per_question": 2}, 2),
    ],
    ids=["retries off", "request cap 1", "one retry", "request cap 2"],
)
def test_retries_stop_at_the_setting_and_the_request_cap(
    library: Engine,
    model: ScriptedModel,
    ollama_stub: OllamaStub,
    changes: dict[str, object],
    requests: int,
) -> None:
    model.answer = INVENTION
    answer, _ = ask(point_at(library, ollama_stub.url, **changes))
    assert len(ollama_stub.bodies("/api/chat")) == requests
    assert answer.attempts == requests and answer.unsupported_answer


def test_a_try_that_gives_nothing_usable_keeps_the_answer_before(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    """The later tries count "1) 2) 3)" (extractive on their own): the invention before
    them stays, labelled unsupported."""
    ollama_stub.responder = InventsThenCounts()
    answer, _ = ask(engine)
    assert len(ollama_stub.bodies("/api/chat")) == 3
    assert answer.mode == "generated" and answer.unsupported_answer
    assert (answer.attempt, answer.attempts) == (1, 3) and answer.parts()[1] == INVENTION
    assert "so this first one stands." in said(answer)


def test_a_model_gone_after_the_first_answer_is_not_asked_again(
    engine: Engine, ollama_stub: OllamaStub
) -> None:
    """The model was removed (or the server stopped) while the question was answered: a
    later try would fail the same way, so the first answer stands without them."""

    def invents_then_leaves(messages: list[dict[str, object]], model: str) -> str:
        ollama_stub.fail_status = 404  # every request after this one: "model not found"
        return INVENTION

    ollama_stub.responder = invents_then_leaves
    answer, _ = ask(engine)  # llm_answer_retries 2: two more tries were made before
    assert len(ollama_stub.bodies("/api/chat")) == 2
    assert answer.unsupported_answer and answer.parts()[1] == INVENTION


def test_a_later_try_must_hold_a_sentence_a_passage_clearly_says() -> None:
    def generated(support: float, **kw: object) -> Answer:
        answer = Answer(
            question="q",
            text="It is so.",
            mode="generated",
            sentence_support=[("It is so.", support)],
        )
        for key, value in kw.items():
            setattr(answer, key, value)
        return answer

    assert clearly_supported(generated(RETRY_MIN_SUPPORT))
    assert not clearly_supported(generated(0.7))  # cited by matching (0.5), not clearly
    assert not clearly_supported(generated(0.95, unsupported_sentences=["It is so."]))
    assert not clearly_supported(generated(0.95, unsupported_answer=True))
    assert not clearly_supported(generated(0.95, partial=True))
    assert not clearly_supported(generated(0.95, mode="extractive"))


def test_the_tries_after_the_first_are_sampled_hotter(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    model.answer = INVENTION
    ask(engine)
    temperatures = [b["options"]["temperature"] for b in ollama_stub.bodies("/api/chat")]
    assert temperatures == [ANSWER_SAMPLING["temperature"], 0.6, 0.6]


def test_stopped_while_asked_again_keeps_the_answer_before(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    model.answer = INVENTION
    cancel = threading.Event()

    def stop_at_retry(stage: AskStage) -> None:
        if stage is AskStage.RETRYING:
            cancel.set()

    conv = Conversation()
    with pytest.raises(AnswerCancelled) as stopped:
        ask(engine, conversation=conv, on_stage=stop_at_retry, cancel=cancel)
    kept = stopped.value.answer
    assert kept is not None and kept.unsupported_answer and kept.parts()[1] == INVENTION
    assert conv.turns[-1].answer is kept and conv.turns[-1].stopped
    # the text streaming when it stopped was the second answer's: the notes say whose, and
    # not that this one is incomplete
    said_stopped = notes(kept, stopped=True)
    assert said_stopped[0].startswith(f"■ Stopped by you while {MODEL} was asked again (its second")
    assert not any("incomplete" in n for n in said_stopped)


def test_an_answer_too_short_to_judge_is_not_called_unsupported(
    engine: Engine, model: ScriptedModel
) -> None:
    model.answer = "At dusk."  # no sentence with enough content words to check
    answer, _ = ask(engine)
    assert answer.mode == "generated" and not answer.unsupported_answer
    assert answer.unsupported_sentences == [] and answer.confidence == "low"
    # ... but not left with no source to check it by (QA-79: "The PRESIDENT." came with
    # none): the passage closest to the question is listed, and the notes say so
    assert answer.text == "At dusk."
    assert [(c.n, c.source) for c in answer.citations] == [(1, "closest")]
    assert any("does not cite passage [1], the closest" in n for n in notes(answer))


def test_a_cut_answer_nothing_supports_keeps_its_cut_line_above_the_passages(
    engine: Engine, model: ScriptedModel
) -> None:
    sentence = "The lunar rover carried twelve penguins to Jupiter in a basket."
    model.answer = " ".join([sentence] * 6)  # loops: cut at the first repeat
    answer, _ = ask(engine)
    assert answer.unsupported_answer and answer.cut
    _, words, quotes = answer.parts()
    assert words == f"{sentence}\n\n({answer.cut})"
    assert quotes.startswith(UNSUPPORTED_QUOTES) and answer.text.endswith(quotes)


def test_invented_sentence_is_flagged(engine: Engine, model: ScriptedModel) -> None:
    model.extra = ["The lunar rover carried twelve penguins to Jupiter [2]."]
    answer, _ = ask(engine)
    assert answer.unsupported_sentences == [
        "The lunar rover carried twelve penguins to Jupiter [2]."
    ]
    scores = dict(answer.sentence_support)
    assert scores["The lunar rover carried twelve penguins to Jupiter [2]."] < SUPPORT_THRESHOLD
    assert answer.uncited_sentences == []  # it cites [2], which does not support it
    assert [c.n for c in answer.citations] == [1, 2]


def test_domain_preamble_leads_the_instructions(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(library, ollama_stub.url, domain_preamble="You help PDP-10 historians.")
    ask(eng)
    system = model.seen["answer"][0][0]["content"]
    assert system.startswith("You help PDP-10 historians.\n\nYou answer questions")


def test_context_budget_offers_best_first_prefix(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    roomy, _ = ask(point_at(library, ollama_stub.url, results_k=12, llm_context_tokens=16384))
    tight, _ = ask(point_at(library, ollama_stub.url, results_k=12, llm_context_tokens=768))
    assert len(roomy.offered) == 3  # the default layout's most, for a small model
    assert 1 <= len(tight.offered) < len(roomy.offered)
    assert [h.chunk_id for h in tight.offered] == [h.chunk_id for h in roomy.offered][
        : len(tight.offered)
    ]
    body = ollama_stub.bodies("/api/chat")[-1]
    assert body["options"]["num_ctx"] == 768 and body["options"]["num_predict"] == 192
    prompt_tokens = sum(library.embedder.count_tokens(m["content"]) for m in body["messages"])
    assert prompt_tokens + 192 <= 768


def test_a_question_that_fills_the_context_is_not_asked_without_passages(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """A pasted text as the question leaves no room for a passage: the model would answer
    from its own knowledge, shown as an ordinary answer (review). The best passages are
    quoted instead, saying why."""
    question = MEMORY_Q + " Context: " + " ".join(["the memory protection of CTSS"] * 1500)
    assert engine.search(question).hits
    answer, tokens = ask(engine, question)
    assert answer.mode == "extractive" and tokens == []
    assert ollama_stub.bodies("/api/chat") == []
    assert answer.text.startswith("**Not generated — the question leaves no room for a passage.**")
    assert "llm_context_tokens" in answer.reason and "ollama serve" not in answer.text
    assert answer.citations and answer.offered and answer.too_long
    from docent.gui.health import Health, banner

    assert banner(Health(True, [MODEL]), MODEL, answer) == ("", False)  # Retry won't help


# Abstaining ---------------------------------------------------------------------


def test_abstains_when_the_library_cannot_answer(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    result = engine.search(OFF_TOPIC)
    assert result.confidence == "low" or not result.sufficient  # the retrieval's verdict
    answer, tokens = ask(engine, OFF_TOPIC)
    assert answer.mode == "abstained" and answer.confidence == "low"
    assert ollama_stub.bodies("/api/chat") == [] and tokens == []  # no model asked
    assert "could not find" in answer.text and OFF_TOPIC in answer.text
    assert "all documents" in answer.text
    assert 1 <= len(answer.citations) <= 3
    assert [c.chunk_id for c in answer.citations] == [h.chunk_id for h in result.hits[:3]]
    assert "[1]" in answer.text


def test_asked_anyway_the_model_answers_what_retrieval_judged_low(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """The person overrides an abstention ("Ask anyway"): the passages go to the model,
    and the answer says what retrieval found, at low confidence. Retrieval's verdict can
    be wrong (a paraphrase it cannot see: "script" for "command file")."""
    first, _ = ask(engine, OFF_TOPIC)
    assert first.mode == "abstained" and first.retrieval_abstained
    assert ollama_stub.bodies("/api/chat") == []
    again, tokens = ask(engine, OFF_TOPIC, anyway=True)
    assert again.mode == "generated" and tokens and again.model == MODEL
    assert again.asked_anyway and again.as_dict()["asked_anyway"] is True
    assert again.confidence == "low" and not again.retrieval_abstained
    assert "\nAsked anyway: Retrieval confidence is low" in said(again)
    assert [h.chunk_id for h in again.offered] == [
        h.chunk_id for h in engine.search(OFF_TOPIC).hits[: len(again.offered)]
    ]
    # a question retrieval finds sufficient is not "asked anyway": nothing was overridden
    plain, _ = ask(engine, anyway=True)
    assert plain.mode == "generated" and not plain.asked_anyway
    assert not any(n.startswith("Asked anyway") for n in notes(plain))


def test_asked_anyway_with_nothing_found_still_abstains(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    def search(query: str, rewrites: object) -> SearchResult:
        return SearchResult(query, [], confidence="low", sufficient=False)

    answer = Answerer(engine.llm, engine.settings, search).answer(MEMORY_Q, anyway=True)
    assert answer.mode == "abstained" and not answer.asked_anyway
    assert not answer.retrieval_abstained  # nothing to offer a model
    assert ollama_stub.bodies("/api/chat") == []


def test_the_model_finding_nothing_cannot_be_asked_anyway(
    engine: Engine, model: ScriptedModel
) -> None:
    model.answer = "I could not find this in the documents."
    answer, _ = ask(engine)
    assert answer.mode == "abstained" and not answer.retrieval_abstained


def test_model_saying_not_found_is_an_abstention(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    model.answer = "I could not find this in the documents."
    answer, tokens = ask(engine)
    assert tokens and answer.mode == "abstained" and answer.model == MODEL
    assert "model found no answer" in answer.reason and answer.confidence == "low"
    assert [c.chunk_id for c in answer.citations] == [h.chunk_id for h in answer.offered]
    assert len(answer.citations) == 3 and answer.requests == 1


def test_not_found_words_in_an_answer_a_passage_supports_are_no_abstention(
    engine: Engine, model: ScriptedModel
) -> None:
    """Review, session 35: an uncited instruction saying "nicht gefunden" (not found) was
    taken for the model abstaining, though its first sentence is the best passage's."""
    model.cite = ""  # the passage's sentence, uncited: Docent matches it
    model.extra = ["Wenn das Gerät nicht gefunden wird, starten Sie es neu."]
    answer, _ = ask(engine)
    assert answer.mode == "generated" and answer.citations
    assert {c.source for c in answer.citations} == {"matched"}


@pytest.mark.parametrize(
    ("confidence", "sufficient", "mode"),
    [("low", True, "abstained"), ("medium", False, "abstained"), ("high", True, "generated")],
)
def test_abstain_follows_search_result_fields(
    engine: Engine, model: ScriptedModel, confidence: str, sufficient: bool, mode: str
) -> None:
    real = engine.search(MEMORY_Q)

    def search(query: str, rewrites: object) -> SearchResult:
        return SearchResult(query, real.hits, confidence=confidence, sufficient=sufficient)

    answerer = Answerer(engine.llm, engine.settings, search)
    assert answerer.answer(MEMORY_Q).mode == mode


# No model: extractive -------------------------------------------------------------


def assert_extractive(answer: Answer, model_name: str = MODEL) -> None:
    assert answer.mode == "extractive" and answer.model == ""
    assert answer.text.startswith("**Not generated")
    # how to get written answers, each fix said once (the reason names its own)
    assert answer.text.count(f"`ollama pull {model_name}`") == 1
    assert answer.text.count("`ollama serve`") <= 1
    assert answer.reason and answer.reason in answer.text
    assert [c.n for c in answer.citations] == list(range(1, len(answer.citations) + 1))
    assert len(answer.citations) == 3
    for c in answer.citations:
        assert f"[{c.n}] {c.file_name}, {c.pages_label}:\n> " in answer.text


def test_extractive_when_ollama_is_down(library: Engine, ollama_down_host: str) -> None:
    eng = point_at(library, ollama_down_host)
    answer, tokens = ask(eng)
    assert_extractive(answer)
    assert "not running" in answer.reason and tokens == []
    assert answer.text.count("`ollama serve`") == 1 and "Once it runs, make sure" in answer.text
    assert answer.citations[0].file_name == "simh__ctss_hardware.pdf"
    assert "memory" in answer.text.lower()  # the excerpt nearest the question


def test_extractive_when_the_model_is_not_pulled(engine: Engine, model: ScriptedModel) -> None:
    answer, _ = ask(engine, model="llama3.2:3b")
    assert_extractive(answer, "llama3.2:3b")
    assert "run `ollama pull llama3.2:3b`" in answer.reason
    assert "`ollama serve`" not in answer.text  # it runs: the reason says what to do


def test_extractive_when_no_first_token_in_time(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(library, ollama_stub.url, llm_first_token_timeout=0.5)
    ollama_stub.stall_after_tokens = 0
    answer, _ = ask(eng)  # the stub never sends a token: only the timeout ends this
    assert_extractive(answer)
    assert "first-token timeout" in answer.reason
    # Ollama is running: no advice to start it (QA, session 26)
    assert "ollama serve" not in answer.text


def test_extractive_on_server_error(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    ollama_stub.fail_status = 500
    answer, _ = ask(engine)
    assert_extractive(answer)
    assert "HTTP 500" in answer.reason
    assert "ollama serve" not in answer.text


# Streams that break ---------------------------------------------------------------


def test_error_line_mid_stream_keeps_the_partial_answer(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    model.answer = (
        "Memory is managed in 256W blocks [1]. Relocation and protection use three 7b "
        "registers [1]. These registers are loaded by privileged instructions only [1]."
    )
    ollama_stub.error_after_tokens = 15  # the first two sentences
    answer, tokens = ask(engine)
    assert len(tokens) == 15
    assert answer.mode == "generated" and answer.partial
    assert answer.text.startswith("".join(tokens).strip())
    assert answer.text.endswith(
        "(Answer incomplete: Ollama stopped the answer with an error: "
        "stub: the model runner crashed)"
    )
    assert "runner crashed" in answer.reason
    assert [c.n for c in answer.citations] == [1]


def test_the_stages_are_reported_in_order(engine: Engine, model: ScriptedModel) -> None:
    stages: list[AskStage] = []
    conv = Conversation()
    answer, _ = ask(engine, conversation=conv, on_stage=stages.append)
    assert answer.mode == "generated"
    assert stages == [AskStage.SEARCHING, AskStage.WAITING, AskStage.CHECKING]
    stages.clear()
    follow_up, _ = ask(
        engine, "And how is it protected?", conversation=conv, on_stage=stages.append
    )
    checked = [AskStage.CHECKING] if follow_up.mode == "generated" else []
    assert stages == [AskStage.REWRITING, AskStage.SEARCHING, AskStage.WAITING, *checked]
    stages.clear()  # a question of its own is not rewritten: no such stage
    ask(engine, PAGES_Q, conversation=conv, on_stage=stages.append)
    assert AskStage.REWRITING not in stages and stages[0] is AskStage.SEARCHING


def test_stream_broken_before_anything_useful_falls_back(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    ollama_stub.error_after_tokens = 1
    answer, tokens = ask(engine)
    assert len(tokens) == 1
    assert_extractive(answer)
    assert "broke off before saying anything useful" in answer.reason


def test_stall_mid_stream_past_the_total_timeout(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(library, ollama_stub.url, llm_total_timeout=1.5)
    ollama_stub.stall_after_tokens = 8
    # The stub stalls for good after 8 tokens: only the total timeout can end this answer,
    # and its reason names it (no wall-clock bound here: a busy machine made one flaky).
    answer, tokens = ask(eng)
    assert len(tokens) == 8 and answer.partial and answer.mode == "generated"
    assert "total timeout" in answer.reason and "(Answer incomplete:" in answer.text
    assert ollama_stub.client_disconnected.wait(5)  # Docent hung up


def stopped_after_six_tokens(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub, question: str, **kw: object
) -> tuple[AnswerCancelled, list[str]]:
    """Ask, and Stop once six tokens came (the stand-in stalls there): what was raised,
    and the tokens."""
    model.extra = ["More words follow slowly " * 4]
    ollama_stub.stall_after_tokens = 6
    cancel = threading.Event()
    tokens: list[str] = []

    def on_token(token: str) -> None:
        tokens.append(token)
        if len(tokens) == 6:
            cancel.set()

    with pytest.raises(AnswerCancelled) as info:
        engine.ask(question, on_token=on_token, cancel=cancel, **kw)  # type: ignore[arg-type]
    return info.value, tokens


def test_cancel_mid_stream_raises_with_the_partial_answer(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    conv = Conversation()
    stopped, tokens = stopped_after_six_tokens(
        engine, model, ollama_stub, MEMORY_Q, conversation=conv
    )
    partial = stopped.answer
    assert partial is not None and partial.partial
    assert strip_markers(partial.text) == "".join(tokens).strip()  # (a matched marker added)
    assert conv.turns[-1].stopped and conv.turns[-1].answer is partial
    assert ollama_stub.client_disconnected.wait(5)


def test_an_answer_asked_anyway_and_stopped_still_says_it_was_asked_anyway(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    stopped, _ = stopped_after_six_tokens(engine, model, ollama_stub, OFF_TOPIC, anyway=True)
    partial = stopped.answer
    assert partial is not None and partial.partial and partial.asked_anyway
    assert partial.confidence == "low"
    assert any(n.startswith("Asked anyway:") for n in notes(partial, stopped=True))


def test_cancel_before_anything_asks_nothing(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    cancel = threading.Event()
    cancel.set()
    conv = Conversation()
    with pytest.raises(AnswerCancelled) as info:
        engine.ask(MEMORY_Q, conversation=conv, cancel=cancel)
    assert info.value.answer is None
    # The question is still a turn of the conversation: stopped, with no answer.
    [turn] = conv.turns
    assert turn.stopped and turn.answer is None and conv.last is None
    assert ollama_stub.bodies("/api/chat") == []


# Conversations --------------------------------------------------------------------


def history_of(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The messages between the system prompt and the current question (and the reply
    Docent began after it)."""
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return messages[1:last]


def test_follow_up_is_rewritten_and_scope_persists(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    conv = Conversation()
    first, _ = ask(engine, MEMORY_Q, conversation=conv, files=["simh__ctss_hardware.pdf"])
    assert conv.scope is not None and [Path(p).name for p in conv.scope] == [
        "simh__ctss_hardware.pdf"
    ]
    model.rewrite = "How many registers does CTSS use for memory relocation?"
    second, _ = ask(engine, "And how many registers does it use?", conversation=conv)
    assert second.query == "How many registers does CTSS use for memory relocation?"
    assert second.rewrites and "registers" in second.rewrites[0]  # the keyword fallback too
    assert {c.file_name for c in first.citations + second.citations} == {"simh__ctss_hardware.pdf"}
    assert all(h.file_name == "simh__ctss_hardware.pdf" for h in second.offered)
    # Turn 1's passages are not resent: a marker stands in for them.
    history = history_of(model.seen["answer"][-1])
    assert history[0]["content"].startswith("[passages from turn 1 omitted]\nQuestion: ")
    assert history[1] == {"role": "assistant", "content": first.text.split(" [1]")[0] + "."}
    assert not any("Passages from the documents" in m["content"] for m in history)
    assert "(In full: How many registers" in asked(model.seen["answer"][-1])
    assert [t.number for t in conv.turns] == [1, 2]
    assert conv.turns[1].scope == conv.scope
    # files=[] clears the scope: the whole library again.
    model.rewrite = None  # the stub echoes the question
    third, _ = ask(engine, PAGES_Q, conversation=conv, files=[])
    assert conv.scope is None and conv.turns[2].scope is None
    assert third.citations[0].file_name == "forensics-samples-files__a-text.pdf"
    # answer; rewrite + answer; answer: the third names its own subject, no rewrite
    assert len(ollama_stub.bodies("/api/chat")) == 4 and third.query == PAGES_Q


def test_the_quoted_passages_of_an_unsupported_answer_are_not_sent_back_as_its_words(
    engine: Engine, model: ScriptedModel
) -> None:
    conv = Conversation()
    invention = "The lunar rover carried twelve penguins to Jupiter in a basket."
    model.answer = invention
    first, _ = ask(engine, MEMORY_Q, conversation=conv)
    assert first.unsupported_answer and UNSUPPORTED_QUOTES in first.text
    model.answer, model.rewrite = None, "How many registers does CTSS use for relocation?"
    ask(engine, "And how many registers?", conversation=conv)
    # nor its words: smollm2:135m gave them again as its next answer (QA, session 29)
    history = history_of(model.seen["answer"][-1])
    assert history == [] and not any(invention in m["content"] for m in history)


def test_a_new_question_in_a_chat_is_searched_as_asked(
    engine: Engine, model: ScriptedModel, ollama_stub: OllamaStub
) -> None:
    """It names its own subject: not rewritten, and none of the previous question's words
    added (searched with them, it found the previous subject's passages)."""
    conv = Conversation()
    ask(engine, MEMORY_Q, conversation=conv)
    answer, _ = ask(engine, PAGES_Q, conversation=conv)
    assert answer.query == PAGES_Q and answer.rewrites == []
    assert answer.search_note == ""
    assert "rewrite" not in model.seen
    assert answer.citations[0].file_name == "forensics-samples-files__a-text.pdf"
    # nor sent the turn before it: smollm2:135m answered such a question with the answer
    # before it, word for word (QA, session 29)
    assert history_of(model.seen["answer"][-1]) == []


@pytest.mark.parametrize(
    ("question", "follows"),
    [
        ("And on the 11/70?", True),
        ("What about the registers?", True),
        ("How many registers does it use?", True),
        ("Which of those is faster?", True),
        ("Why?", True),
        ("How is memory relocation done in CTSS?", False),
        ("Is there a cap on how long a line typed at the R console can be?", False),
        ("What is the command that stops the simulator?", False),
        ("How much memory?", True),  # short, naming nothing of its own
        # short, but naming an identifier of its own: searched as asked (QA, session
        # 27: "WRU SIMH interrupt character" was added to a t-test question)
        ("What is a t-test used for?", False),
        ("What does WRU do?", False),
        ("And the VAX?", True),  # opens as a follow-up
        ("What is it in KLU?", True),  # points back
        # elliptical, though naming an identifier: they lean on the question before
        # (review, session 27)
        ("How much RAM?", True),
        ("Which CPU?", True),
        ("In 2020?", True),
        ("Page 12?", True),
        ("Price in USD?", True),
        ("What is KLU?", False),
        # naming a name of its own: searched as asked (QA, session 31: the Casa do Farol
        # was searched with the lighthouse keeper's words)
        ("What is the Casa do Farol?", False),
        ("Who is Helga?", False),
        ("What about Helga?", True),
        ("What is the boathouse?", True),  # a thing, no name: may lean on the one before
        # a name that is not the subject: where or when (review, session 31)
        ("What are the hours on Sunday?", True),
        ("What is the default on Windows?", True),
        ("What was the codename in June?", True),
        ("What is May?", True),
    ],
)
def test_what_counts_as_a_follow_up(question: str, follows: bool) -> None:
    assert is_follow_up(question) is follows


def test_a_turn_the_model_did_not_answer_is_not_sent_back_as_history(
    library: Engine, ollama_down_host: str, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    """Its placeholder ("[no model answer: passages were quoted]") was repeated by a small
    model as its answer to the next question."""
    conv = Conversation()
    ask(point_at(library, ollama_down_host), MEMORY_Q, conversation=conv)
    assert conv.turns[0].answer is not None and conv.turns[0].answer.mode == "extractive"
    ask(point_at(library, ollama_stub.url), PAGES_Q, conversation=conv)
    sent = model.seen["answer"][-1]
    assert not any("no model answer" in m["content"] for m in sent)
    assert history_of(sent) == []


def test_unusable_rewrite_falls_back_to_keywords(engine: Engine, model: ScriptedModel) -> None:
    conv = Conversation()
    ask(engine, MEMORY_Q, conversation=conv)
    model.rewrite = "Penguins are birds that cannot fly."  # an answer, not a rewrite
    answer, _ = ask(engine, "What about the registers?", conversation=conv)
    assert answer.query.startswith("What about the registers?")
    assert "ctss" in answer.query.lower() and answer.rewrites == []


def test_follow_up_without_a_model_uses_previous_keywords(
    library: Engine, ollama_down_host: str
) -> None:
    eng = point_at(library, ollama_down_host)
    conv = Conversation()
    ask(eng, MEMORY_Q, conversation=conv)
    answer, _ = ask(eng, "And how many registers?", conversation=conv)
    assert answer.mode == "extractive"
    assert answer.query.startswith("And how many registers? ")
    assert {"memory", "relocation", "ctss"} <= set(answer.query.lower().split())
    assert answer.search_note == (
        f"Searched as a follow-up: “{answer.query}” (your question with words of the one "
        "before it)."
    )


def test_a_follow_up_naming_someone_else_leaves_out_the_name_before() -> None:
    """ "What about Tomas Okafor?" after "Who is Helga Brandt?" was searched with "helga
    brandt" added, and answered about Helga (QA, session 31)."""
    from docent.core.conversation import fallback_query

    conv = Conversation()
    conv.add("Who is Helga Brandt?", "Who is Helga Brandt?", Answer("q", "x", "extractive"))
    assert fallback_query(conv, "What about Tomas Okafor?") == "What about Tomas Okafor?"
    assert fallback_query(conv, "And her budget?") == "And her budget? helga brandt"


def test_a_rewrite_that_times_out_still_gets_an_answer(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    """A timeout is often a model still loading: the follow-up is searched with the
    words before it, and the answer is still asked for (review, session 35: the rewrite's
    timeout took the model for down, and no model answered)."""
    eng = point_at(library, ollama_stub.url, llm_first_token_timeout=0.5)
    conv = Conversation()
    ask(eng, MEMORY_Q, conversation=conv)
    late = threading.Event()

    def loading(question: str) -> str:
        late.wait(10)  # no token until the answer is in: only the timeout ends the rewrite
        return question

    model.rewrite = loading
    try:
        answer, _ = ask(eng, "And how many registers?", conversation=conv)
    finally:
        late.set()
    assert answer.mode == "generated" and answer.model == MODEL
    assert "ctss" in answer.query.lower() and answer.rewrites == []


def test_request_cap_skips_the_rewrite(
    library: Engine, ollama_stub: OllamaStub, model: ScriptedModel
) -> None:
    eng = point_at(library, ollama_stub.url, llm_max_requests_per_question=1)
    conv = Conversation()
    ask(eng, MEMORY_Q, conversation=conv)
    answer, _ = ask(eng, "And how many registers?", conversation=conv)
    assert answer.requests == 1 and "rewrite" not in model.seen
    assert answer.mode == "generated" and "ctss" in answer.query.lower()
    assert len(ollama_stub.bodies("/api/chat")) == 2


def test_export_to_markdown(engine: Engine, model: ScriptedModel) -> None:
    conv = Conversation()
    first, _ = ask(engine, MEMORY_Q, conversation=conv, files=["ctss"])
    ask(engine, OFF_TOPIC, conversation=conv)
    md = conversation_markdown(conv)
    cited = first.citations[0]
    assert md.startswith("# Docent conversation\n")
    assert f"## 1. {MEMORY_Q}" in md and f"## 2. {OFF_TOPIC}" in md
    assert "_Scope: simh__ctss_hardware.pdf_" in md
    assert f"**[1] simh__ctss_hardware.pdf, {cited.pages_label}** — `{cited.path}`" in md
    assert "> " + " ".join(cited.text.split())[:80] in md
    # the window's footer in its words (answer_notes.notes): not another wording
    assert "_Not found in your documents: the sources listed are only the closest._" in md


# Engine: Ollama status ------------------------------------------------------------


def test_engine_llm_health_and_models(
    library: Engine, ollama_stub: OllamaStub, ollama_down_host: str
) -> None:
    ollama_stub.models.append("llama3.2:3b")
    eng = point_at(library, ollama_stub.url)
    assert eng.llm_health().ok
    assert eng.list_models() == [MODEL, "llama3.2:3b"]
    eng = point_at(library, ollama_down_host)
    health = eng.llm_health()
    assert not health.ok and "ollama serve" in health.message
    eng = point_at(library, ollama_stub.url, ollama_model="mistral:7b")
    assert "ollama pull mistral:7b" in eng.llm_health().message


@pytest.mark.parametrize(
    ("failure", "advice"),
    [
        (LLMTimeout("Ollama at http://127.0.0.1:11434 did not answer within 120 s."), "running"),
        (LLMStreamError("Ollama stopped the answer with an error: out of memory"), "running"),
        # cut: Ollama may be gone, its message says to check ("Ollama is running" was
        # said under a banner saying it was not; QA-80)
        (LLMConnectionCut("The connection to Ollama was cut before it answered: …"), ""),
        (LLMError("Ollama failed (HTTP 500): boom"), "running"),
        (LLMTimeout("Ollama took too long."), "running"),  # no word of the old pattern
        (LLMUnavailable("Ollama is not running at x — start it with `ollama serve`."), "once"),
        (NotOllama("What answers at http://gpu-box (port 80) is not Ollama (HTTP 404)."), ""),
        (ModelNotFound("The model is not installed: run `ollama pull smollm2:135m`."), ""),
        (None, "start"),
    ],
)
def test_the_advice_under_an_extractive_answer_fits_the_failure(
    failure: LLMError | None, advice: str
) -> None:
    """A read timeout was told to start Ollama, and a server that is not Ollama that
    Ollama was running (helper-55). The advice is chosen by the error's kind, not by the
    words of its message: a message reworded in llm.py keeps its advice."""
    from docent.core.prompting import extractive_text

    reason = str(failure) if failure else "No language model was asked."
    text = extractive_text("q", [], reason, MODEL, failure=failure)
    advice_text = text.split("\n\n")[1] if text.count("\n\n") >= 2 else ""
    assert ("Ollama is running" in advice_text) == (advice == "running")
    assert advice_text.startswith("Once it runs") == (advice == "once")
    assert ("start Ollama (`ollama serve`)" in advice_text) == (advice == "start")
    assert (f"ollama pull {MODEL}" in advice_text) == bool(advice)


def test_quoted_passages_of_two_files_of_one_name_name_their_folders() -> None:
    """Two notes.md quoted in one answer read alike ("[1] notes.md, p.1" twice; QA,
    session 30): each is named as the sources list names it."""
    from docent.core.citations import Citation
    from docent.core.prompting import quoted_passages

    def cited(n: int, path: str) -> Citation:
        return Citation(n, f"c{n}", f"d{n}", Path(path).name, path, 1, 1, "The boiler.")

    quotes = [cited(1, "/home/a/work/notes.md"), cited(2, "/home/a/archive/notes.md")]
    heads = [q.splitlines()[0] for q in quoted_passages("boiler", quotes)]
    assert heads == ["[1] work/notes.md, p.1:", "[2] archive/notes.md, p.1:"]
    alone = quoted_passages("boiler", quotes[:1])[0].splitlines()[0]
    assert alone == "[1] notes.md, p.1:"


def said(answer: Answer) -> str:
    """The answer's notes as ``docent ask`` prints them."""
    return "\n".join(notes(answer, marked="listed below", outlined=False))


def test_the_closest_passage_is_listed_beside_a_little_trusted_answer_only() -> None:
    """An answer citing [2] itself lists [1] only when it is little trusted, an answer
    asked anyway over retrieval's verdict included (its confidence is lowered before the
    listing: review, session 34)."""
    from docent.core.answering import _list_closest, _mark_anyway
    from docent.core.citations import citation_for
    from docent.core.models import Hit

    offered = [
        Hit(f"c{n}", f"d{n}", f"{n}.txt", f"/d/{n}.txt", 1, 1, n, 1.0, f"Passage {n}.")
        for n in (1, 2, 3)
    ]

    def written(confidence: str) -> Answer:
        cited = [citation_for(2, offered[1])]
        return Answer("q", "It is so [2].", "generated", cited, offered, confidence=confidence)

    trusted = written("high")
    _list_closest(trusted, "q")
    assert [(c.n, c.source) for c in trusted.citations] == [(2, "model")]
    anyway = written("high")
    _mark_anyway(anyway, "Retrieval confidence is low: ...")
    _list_closest(anyway, "q")
    assert [(c.n, c.source) for c in anyway.citations] == [(1, "closest"), (2, "model")]
    extractive = Answer(
        "q", "> Passage 2. [2]", "extractive", [citation_for(2, offered[1])], offered
    )
    _list_closest(extractive, "q")
    assert len(extractive.citations) == 1  # an answer Docent quotes lists what it quotes
