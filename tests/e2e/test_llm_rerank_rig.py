"""The LLM rerank (``llm_rerank``) against the real (tiny) model: its reply is held to the
schema by the server, and an answer with the rerank on is still one a person can check.
The library is a sample PDF of the repository (no corpus needed).

Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (``rig_host`` in conftest):

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e; ../shared/llm-rig/stop
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rig_helpers import RIG_MODEL, rig_library

from docent.core import llm_rerank
from docent.core.engine import Engine
from docent.core.llm import OllamaClient

QUESTION = "How is memory relocation and protection done in CTSS?"

pytestmark = pytest.mark.rig


@pytest.fixture(scope="module")
def rerank_engine(
    rig_host: str, samples_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("rerank-rig")
    files = [samples_dir / "simh__ctss_hardware.pdf"]
    eng = rig_library(root, files, rig_host, llm_context_tokens=4096, llm_rerank=True)
    yield eng
    eng.close()


def test_the_reply_is_held_to_the_schema(rig_host: str) -> None:
    """Without the schema reaching the server the tiny model writes prose here."""
    client = OllamaClient(rig_host, RIG_MODEL, 2.0, 600.0, 900.0)
    passages = "\n\n".join(
        f"[{n}] {text}"
        for n, text in enumerate(
            ["Bread is baked from flour.", "Paris is the capital of France.", "Cats purr."], 1
        )
    )
    ask = f"Passages:\n\n{passages}\n\nQuestion: What is the capital of France?\n\n"
    try:
        reply = client.chat(
            [{"role": "user", "content": ask + llm_rerank.ASK}],
            options={**llm_rerank.OPTIONS, "num_predict": 64},
            schema=llm_rerank.schema(3),
        )
    finally:
        client.close()
    best = json.loads(reply)["best"]
    assert isinstance(best, list) and len(best) <= llm_rerank.RERANK_PICKS
    assert all(isinstance(n, int) and 1 <= n <= 3 for n in best), reply


def test_an_answer_with_the_rerank_on_offers_the_searchs_passages(
    rerank_engine: Engine,
) -> None:
    found = rerank_engine.search(QUESTION).hits
    answer = rerank_engine.ask(QUESTION)
    assert answer.reranked is not None  # the model was asked (it may name none)
    assert answer.requests >= 2
    count = rerank_engine.embedder.count_tokens
    context = rerank_engine.settings.llm_context_tokens
    head = found[: len(llm_rerank.listed(answer.query, found, context, count))]
    moved = [head[n - 1].chunk_id for n in answer.reranked]
    offered = [h.chunk_id for h in answer.offered]
    # the passages it named come first, the others keep the search's order after them
    assert offered[: len(moved)] == moved[: len(offered)]
    rest = [h.chunk_id for h in found if h.chunk_id not in moved]
    assert offered[len(moved) :] == rest[: len(offered) - len(moved)]
    for citation in answer.citations:  # every chip still points at a passage offered
        assert citation.chunk_id == answer.offered[citation.n - 1].chunk_id
    assert answer.mode in ("generated", "extractive", "abstained") and answer.text.strip()
