"""The whole real corpus indexed once per test session, shared by the e2e tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.indexer import IndexReport


@pytest.fixture(scope="session")
def corpus_engine(
    corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, IndexReport]]:
    home = tmp_path_factory.mktemp("corpus-home")
    eng = Engine(Settings(data_dir=str(home))).open()
    report = eng.index([corpus_dir])
    yield eng, report
    eng.close()
