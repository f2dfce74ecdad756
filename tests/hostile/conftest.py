"""Fixtures of the hostile-input suite; the runner itself is cli_runner.py. The figures
of each run are printed at the end by tests/conftest.py."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_runner import Docent
from hostile_files import TEXTS, write_texts

from docent.core.config import Settings
from docent.core.engine import Engine


@pytest.fixture
def docent(request: pytest.FixtureRequest, _isolated_home: Path) -> Docent:
    return Docent(request, _isolated_home)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    return lib


@pytest.fixture(scope="session")
def indexed_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(folder, data folder): TEXTS indexed once. Tests that damage only the data folder
    start from a copy of it (``library``, ``copy_library``): an index costs ~4 s of CPU in
    a process of its own; the folder itself they leave as it is."""
    root = tmp_path_factory.mktemp("indexed")
    folder, home = root / "lib", root / "home"
    folder.mkdir()
    write_texts(folder)
    with Engine(Settings(data_dir=str(home), extract_in_subprocess=False)) as eng:
        assert len(eng.index([folder]).indexed) == len(TEXTS)
    return folder, home


@pytest.fixture
def copy_library(indexed_library: tuple[Path, Path]) -> Callable[[Path], Path]:
    """``copy_library(home)``: the indexed library's data folder copied to ``home``;
    returns the library's folder."""
    folder, template = indexed_library

    def copy(home: Path) -> Path:
        home.mkdir(parents=True, exist_ok=True)
        # Qdrant's files are sparse (~1 MB used of ~390 MB): a plain copy fills a tmpfs
        subprocess.run(["cp", "-a", "--sparse=always", f"{template}/.", str(home)], check=True)
        return folder

    return copy


@pytest.fixture
def library(copy_library: Callable[[Path], Path], _isolated_home: Path) -> Path:
    """The indexed library in this test's DOCENT_HOME; returns its folder."""
    return copy_library(_isolated_home)
