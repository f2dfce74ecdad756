"""Shared by the e2e tests: the whole real corpus indexed once per session, and the
real tiny model of ``../shared/llm-rig`` (the rig tests)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from rig_helpers import RIG_MODEL

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.indexer import IndexReport
from docent.core.llm import OllamaClient

# Read at import: the autouse _isolated_home fixture removes OLLAMA_HOST for each test.
RIG_HOST = os.environ.get("DOCENT_RIG_HOST") or os.environ.get("OLLAMA_HOST") or ""


@pytest.fixture(scope="session")
def rig_host() -> str:
    """The rig's URL. Skips without one; with DOCENT_RIG_HOST set (CI sets it when the rig
    is there) a rig that does not answer fails the test instead of skipping it."""
    if not RIG_HOST:
        pytest.skip("no LLM rig: set DOCENT_RIG_HOST or OLLAMA_HOST (../shared/llm-rig/start)")
    client = OllamaClient(RIG_HOST, RIG_MODEL, 2.0, 120.0, 300.0)
    try:
        health = client.health(timeout=5.0)
    finally:
        client.close()
    if not health.ok:
        message = f"no LLM rig with {RIG_MODEL} at {RIG_HOST}: {health.message}"
        if os.environ.get("DOCENT_RIG_HOST"):
            pytest.fail(message)
        pytest.skip(message)
    return RIG_HOST


@pytest.fixture(scope="session")
def corpus_engine(
    corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, IndexReport]]:
    home = tmp_path_factory.mktemp("corpus-home")
    eng = Engine(Settings(data_dir=str(home))).open()
    report = eng.index([corpus_dir])
    yield eng, report
    eng.close()
