"""OllamaClient against a real (tiny) model: ``../shared/llm-rig/start`` serves it.

Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (``rig_host`` in conftest):

    eval "$(../shared/llm-rig/start)" && pytest -m rig; ../shared/llm-rig/stop
"""

from __future__ import annotations

import pytest
from rig_helpers import RIG_MODEL

from docent.core.llm import OllamaClient

pytestmark = pytest.mark.rig


@pytest.fixture(scope="module")
def rig_client(rig_host: str) -> OllamaClient:
    return OllamaClient(rig_host, RIG_MODEL, 2.0, first_token_timeout=120, total_timeout=300)


def test_streams_a_real_answer(rig_client: OllamaClient) -> None:
    question = [{"role": "user", "content": "What is the capital of France? Answer in one word."}]
    tokens = list(rig_client.stream_chat(question, options={"num_predict": 32, "temperature": 0}))
    assert tokens
    assert "".join(tokens).strip()
