"""Fixtures shared by the answer tests (tests/core/test_answering.py, test_answer_guards.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder

#: Two of the sample PDFs: the 24-page VAX manual would double the time spent embedding.
ANSWER_LIBRARY = ["simh__ctss_hardware.pdf", "forensics-samples-files__a-text.pdf"]


@pytest.fixture(scope="session")
def answer_library(tmp_path_factory: pytest.TempPathFactory, samples_dir: Path) -> Iterator[Engine]:
    """An Engine over the sample PDFs, indexed once; tests re-point its settings
    (``answer_script.point_at``) at their own stand-in Ollama.

    Its embedder is the hashing one: these tests are about what answering does with the
    passages and the model's words (a third of their CPU went to MiniLM re-embedding the
    passages to attribute each answer). The real model answers in test_cli_ask.py, scores
    sentences in test_attribution.py, and retrieves in test_retrieval.py and tests/e2e."""
    root = tmp_path_factory.mktemp("answering")
    docs = root / "docs"
    docs.mkdir()
    for name in ANSWER_LIBRARY:
        shutil.copy(samples_dir / name, docs / name)
    settings = Settings(data_dir=str(root / "data"), extract_in_subprocess=False)
    eng = Engine(settings, embedder=FakeEmbedder()).open()
    report = eng.index([docs])
    assert len(report.indexed) == len(ANSWER_LIBRARY) and not report.failed
    yield eng
    eng.close()
