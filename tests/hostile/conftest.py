"""Fixtures of the hostile-input suite; the runner itself is cli_runner.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import FIGURES, Docent


@pytest.fixture
def docent(request: pytest.FixtureRequest, _isolated_home: Path) -> Docent:
    return Docent(request, _isolated_home)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    return lib


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES.rows:
        return
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    tr = terminalreporter
    tr.section("hostile inputs: figures per docent run")
    tr.write_line(f"load average now: {' '.join(load)}")
    tr.write_line("| case | run | exit | seconds | peak RSS (MB) |")
    tr.write_line("|---|---|---|---|---|")
    for case, what, seconds, rss, rc in FIGURES.rows:
        tr.write_line(f"| {case} | `{what}` | {rc} | {seconds:.1f} | {rss:.0f} |")
