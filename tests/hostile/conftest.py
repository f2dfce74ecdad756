"""Fixtures of the hostile-input suite; the runner itself is cli_runner.py. The figures
of each run are printed at the end by tests/conftest.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import Docent


@pytest.fixture
def docent(request: pytest.FixtureRequest, _isolated_home: Path) -> Docent:
    return Docent(request, _isolated_home)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    return lib
