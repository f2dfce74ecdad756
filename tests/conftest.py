"""Shared fixtures. Several modules add fixtures here: add yours, keep the others.

Tests never touch the user's real data: DOCENT_HOME is a tmp folder."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ollama_stub import OllamaStub, unused_port

if TYPE_CHECKING:
    from docent.core.models import ExtractedDocument

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]


def _shared_dir() -> Path:
    env = os.environ.get("DOCENT_SHARED")
    return Path(env) if env else REPO.parent / "shared"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The real corpus of 46 PDFs (../shared/corpus/pdfs), or skip."""
    env = os.environ.get("DOCENT_CORPUS")
    path = Path(env) if env else _shared_dir() / "corpus" / "pdfs"
    if not (path / "MANIFEST.tsv").exists():
        pytest.skip(f"the shared corpus is not at {path} (set DOCENT_CORPUS)")
    return path


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    return REPO / "resources" / "samples"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own DOCENT_HOME and no stray DOCENT_*/OLLAMA_HOST settings."""
    for name in list(os.environ):
        if name.startswith("DOCENT_") and name not in (
            "DOCENT_CORPUS",
            "DOCENT_SHARED",
            "DOCENT_RIG_HOST",
            "DOCENT_RESOURCES",
        ):
            monkeypatch.delenv(name)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    home = tmp_path / "docent-home"
    monkeypatch.setenv("DOCENT_HOME", str(home))
    return home


# Ollama ---------------------------------------------------------------------


@pytest.fixture
def ollama_stub() -> Iterator[OllamaStub]:
    """A running stand-in Ollama (model ``stub-model:latest``); script it via attributes."""
    with OllamaStub() as stub:
        yield stub


@pytest.fixture
def ollama_down_host() -> str:
    """An http URL on 127.0.0.1 where nothing listens (connection refused)."""
    return f"http://127.0.0.1:{unused_port()}"


# Extraction -------------------------------------------------------------------


@pytest.fixture(scope="session")
def extracted_corpus(corpus_dir: Path) -> Callable[[str], ExtractedDocument]:
    """``get(name)``: ``extract()`` of a corpus PDF, cached for the session (R-intro ~15 s)."""
    from docent.core.extract import extract

    cache: dict[str, ExtractedDocument] = {}

    def get(name: str) -> ExtractedDocument:
        if name not in cache:
            cache[name] = extract(corpus_dir / name)
        return cache[name]

    return get
