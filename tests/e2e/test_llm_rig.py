"""OllamaClient against a real (tiny) model: ``../shared/llm-rig/start`` serves it.

Runs only when DOCENT_RIG_HOST (or OLLAMA_HOST) answers and lists ``smollm2:135m``:

    eval "$(../shared/llm-rig/start)" && pytest -m rig; ../shared/llm-rig/stop
"""

from __future__ import annotations

import os

import pytest

from docent.core.llm import OllamaClient

RIG_MODEL = "smollm2:135m"
# Read at import: the autouse _isolated_home fixture removes OLLAMA_HOST for each test.
RIG_HOST = os.environ.get("DOCENT_RIG_HOST") or os.environ.get("OLLAMA_HOST") or ""

pytestmark = pytest.mark.rig


@pytest.fixture(scope="module")
def rig_client() -> OllamaClient:
    if not RIG_HOST:
        pytest.skip("no LLM rig: set DOCENT_RIG_HOST or OLLAMA_HOST (../shared/llm-rig/start)")
    client = OllamaClient(RIG_HOST, RIG_MODEL, 2.0, first_token_timeout=120, total_timeout=300)
    health = client.health(timeout=2.0)
    if not health.ok:
        pytest.skip(f"no LLM rig with {RIG_MODEL} at {RIG_HOST}: {health.message}")
    return client


def test_streams_a_real_answer(rig_client: OllamaClient) -> None:
    question = [{"role": "user", "content": "What is the capital of France? Answer in one word."}]
    tokens = list(rig_client.stream_chat(question, options={"num_predict": 32, "temperature": 0}))
    assert tokens
    assert "".join(tokens).strip()
