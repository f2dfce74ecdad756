"""Answers from a real (tiny) model on real corpus documents.

SmolLM2-135M ignores the citation instruction, forgets citations and loops; what must hold
anyway: an answer that copies its page carries a citation (the model's or matched by
Docent); an answer with none has every sentence flagged, is labelled unsupported and has
low confidence; each citation points at a passage that was offered, the markers in the
text are exactly the citations, no sentence repeats, no answer runs past its budget, and
the question the library cannot answer abstains. Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set; CI
(``.ci/run``) starts the rig and fails if it does not come up:

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e; ../shared/llm-rig/stop
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rig_helpers import rig_library

from docent.core.answer_notes import conversation_markdown, notes
from docent.core.answering import Answer
from docent.core.citations import cited_numbers
from docent.core.conversation import UNSUPPORTED_LEAD, UNSUPPORTED_QUOTES, Conversation
from docent.core.engine import Engine
from docent.core.evaluation import MIN_TERMS, split_sentences, terms
from docent.core.guards import normalise
from docent.core.prompting import OPENING

#: Dev questions on the SIMH and PDP-11 manuals, and one the library cannot answer.
ANSWERABLE = ["q016", "q019", "q021", "q022"]
UNANSWERABLE = "q025"
DOCS = ["simh__pdp11_doc.pdf", "simh__ctss_hardware.pdf", "simh__simh_doc.pdf"]

pytestmark = pytest.mark.rig


@pytest.fixture(scope="module")
def rig_engine(
    rig_host: str, corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("answer-rig")
    files = [corpus_dir / name for name in DOCS]
    eng = rig_library(root, files, rig_host, llm_context_tokens=2048)
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def dev_questions(corpus_dir: Path) -> dict[str, str]:
    path = corpus_dir.parent / "dev-questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {row["id"]: row["question"] for row in rows}


def check_contract(answer: Answer, tokens: list[str]) -> None:
    assert answer.mode in ("generated", "extractive", "abstained")
    assert answer.text.strip()
    assert answer.confidence in ("high", "medium", "low")
    for citation in answer.citations:  # every chip points at a passage that was offered
        assert 1 <= citation.n <= len(answer.offered)
        assert citation.chunk_id == answer.offered[citation.n - 1].chunk_id
    if answer.mode == "generated":
        assert tokens, "a generated answer was streamed"
        # the reply Docent began is not streamed back (llama.cpp's server sends it first)
        assert not "".join(tokens).startswith(OPENING.strip())
        sources = {c.source for c in answer.citations}
        judged = [s for s, _ in answer.sentence_support if len(terms(s)) >= MIN_TERMS]
        assert answer.citations or not judged, "a generated answer has a page to check"
        assert answer.unsupported_answer == (sources == {"retrieved"})
        # besides them, only the passage closest to the question, listed when the answer
        # does not cite it (QA-77): not put in the model's words
        listed = {c.n for c in answer.citations if c.source == "closest"}
        assert listed <= {1} and not (listed and answer.unsupported_answer)
        in_words = {c.n for c in answer.citations} - listed
        if answer.unsupported_answer:  # no passage supports any sentence: each one is flagged
            assert judged and set(judged) == set(answer.unsupported_sentences), answer.text
            # each flagged sentence is named in a note of its own kind
            said = " ".join(notes(answer))
            assert "not clearly supported" in said or "cite nothing" in said
            lead, _, quotes = answer.parts()
            assert lead == UNSUPPORTED_LEAD and quotes.startswith(UNSUPPORTED_QUOTES)
            assert [c.n for c in answer.citations] == list(range(1, len(answer.citations) + 1))
            assert answer.confidence == "low"
        assert set(cited_numbers(answer.text)) == in_words
        assert not set(answer.invalid_citations) & set(cited_numbers(answer.text))
        body = answer.parts()[1].split("\n\n(")[0]  # the model's words
        keys = [normalise(s) for s in split_sentences(body) if len(s.split()) >= 5]
        assert len(keys) == len(set(keys)), f"a sentence repeats: {answer.text!r}"
        assert answer.tokens <= answer.budget
        assert len(set(answer.unsupported_sentences)) == len(answer.unsupported_sentences)
    else:
        assert answer.reason
    assert answer.requests <= 3


@pytest.fixture(scope="module")
def answers(rig_engine: Engine, dev_questions: dict[str, str]) -> dict[str, tuple[Answer, str]]:
    """Each answerable question asked once (a minute or so each on a busy 2-core box)."""
    out = {}
    for qid in ANSWERABLE:
        tokens: list[str] = []
        answer = rig_engine.ask(dev_questions[qid], on_token=tokens.append)
        check_contract(answer, tokens)
        out[qid] = (answer, "".join(tokens))
    return out


@pytest.mark.parametrize("qid", ANSWERABLE)
def test_real_model_answers_with_citations_to_offered_passages(
    answers: dict[str, tuple[Answer, str]], qid: str
) -> None:
    answer, streamed = answers[qid]
    assert answer.mode == "generated", answer.reason
    assert streamed.strip()


def test_a_real_answer_copied_from_its_page_is_cited(
    answers: dict[str, tuple[Answer, str]], rig_engine: Engine, dev_questions: dict[str, str]
) -> None:
    """Docent cites a sentence the model left uncited only when it copies a run of the
    passage's words (or the passage clearly says it: attribution.Thresholds), so what this
    model invents from a passage's words stays uncited and flagged, and its answer is
    labelled unsupported (check_contract). q016's answer copies its page ("Typing the
    interrupt character stops simulation"): cited in 15 of 15 runs on this library (quiet,
    Dec 2), then not in one full-suite run on Dec 3 (an invention, in each of its three
    tries); the others vary from run to run (5 runs: q019 3, q021 2, q022 1). So, as a
    person would, the test presses Retry (another seed) up to twice before it fails."""
    answer, _ = answers["q016"]
    for attempt in (2, 3):
        if any(c.source in ("model", "matched") for c in answer.citations):
            break
        tokens: list[str] = []
        answer = rig_engine.ask(dev_questions["q016"], attempt=attempt, on_token=tokens.append)
        check_contract(answer, tokens)
    assert any(c.source in ("model", "matched") for c in answer.citations), answer.text


def test_real_model_is_not_asked_what_the_library_cannot_answer(
    rig_engine: Engine, dev_questions: dict[str, str]
) -> None:
    tokens: list[str] = []
    answer = rig_engine.ask(dev_questions[UNANSWERABLE], on_token=tokens.append)
    assert answer.mode == "abstained" and not tokens
    check_contract(answer, tokens)


def test_real_model_follow_up(rig_engine: Engine, dev_questions: dict[str, str]) -> None:
    conv = Conversation()
    first: list[str] = []
    check_contract(
        rig_engine.ask(dev_questions["q021"], conversation=conv, on_token=first.append), first
    )
    second: list[str] = []
    answer = rig_engine.ask("And how do I show it?", conversation=conv, on_token=second.append)
    check_contract(answer, second)
    assert answer.query.strip() and len(conv.turns) == 2
    assert "## 2. And how do I show it?" in conversation_markdown(conv)
