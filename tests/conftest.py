"""Shared fixtures. Several modules add fixtures here: add yours, keep the others.

Tests never touch the user's real data: DOCENT_HOME is a tmp folder."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ollama_stub import OllamaStub, unused_port

if TYPE_CHECKING:
    from docent.core.models import ExtractedDocument

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]

# The tests start hundreds of Python processes (`docent` commands, extraction workers).
# With bytecode writing off (PYTHONDONTWRITEBYTECODE, set on our dev box) each one compiled
# Docent's modules again: ~0.15 s of CPU a process. They share a bytecode cache outside
# the source tree instead, which this process fills as it imports them.
if sys.dont_write_bytecode and not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = str(REPO / ".pytest_cache" / "pyc")
    sys.dont_write_bytecode = False


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


# Running in parallel ------------------------------------------------------------------
# `make test` runs pytest-xdist (-n auto --dist loadscope). Each module's tests stay in one
# worker, so what a module builds once (an indexed library, a loaded model) is built once;
# the groups below share a session-scoped fixture, so one worker runs each group. (Done in
# the scheduler because xdist's own xdist_group marker is lost on pytest 9.2: it rewrites
# Node._nodeid, which pytest no longer reads.)

#: Test files, or folders (ending in /), that run in one worker, by group.
WORKER_GROUPS = {
    "tests/e2e/": "e2e",  # the corpus is indexed once; the rig answers one test at a time
    "tests/core/test_answering.py": "answer_library",  # tests/core/conftest.py
    "tests/core/test_answer_guards.py": "answer_library",
}


def worker_scope(nodeid: str) -> str:
    """What ``nodeid`` is scheduled with: its group, else its module."""
    module = nodeid.split("::", 1)[0]
    for prefix, group in WORKER_GROUPS.items():
        if module == prefix or (prefix.endswith("/") and module.startswith(prefix)):
            return group
    return module


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadscope":
        return None  # another --dist asked for: xdist's own
    from xdist.scheduler import LoadScopeScheduling

    class ByGroupOrModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_scope(nodeid)

    return ByGroupOrModule(config, log)


# Figures that tests record (item.user_properties) and print at the end of the run; read
# from the test reports, so they reach this process from xdist's workers too.

FIGURE_PROPERTY = "docent_run_figures"
_figures: list[tuple[str, str, float, float, int]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        _figures.extend(tuple(v) for k, v in report.user_properties if k == FIGURE_PROPERTY)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _figures:
        return
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    tr = terminalreporter
    tr.section("hostile inputs: figures per docent run")
    tr.write_line(f"load average now: {' '.join(load)}")
    tr.write_line("| case | run | exit | seconds | peak RSS (MB) |")
    tr.write_line("|---|---|---|---|---|")
    for case, what, seconds, rss, rc in _figures:
        tr.write_line(f"| {case} | `{what}` | {rc} | {seconds:.1f} | {rss:.0f} |")
