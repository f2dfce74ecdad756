"""GUI fixtures: a fake engine (fast tests) or an opened Engine on the test's DOCENT_HOME
(end-to-end tests), and the main window over either.

Tests wait on signals (``qtbot.waitSignal``), which run a real event loop, rather than on
polling loops: each poll is a processEvents() call, and those are kept few.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine
from gui_helpers import ENCRYPTED_PDF, SMALL_PDFS

from docent.core.api import EngineAPI
from docent.core.config import load_settings
from docent.core.embedding import Embedder
from docent.core.engine import Engine
from pdf_files import encrypted_text_pdf


@pytest.fixture
def library_dir(tmp_path: Path, samples_dir: Path) -> Path:
    """Three small PDFs, an encrypted one and a file Docent cannot read."""
    lib = tmp_path / "library"
    (lib / "sub").mkdir(parents=True)
    for name in SMALL_PDFS[:2]:
        shutil.copy(samples_dir / name, lib / name)
    shutil.copy(samples_dir / SMALL_PDFS[2], lib / "sub" / SMALL_PDFS[2])  # recursion
    locked = [["Minutes of the board meeting: the budget was approved."]]
    (lib / ENCRYPTED_PDF).write_bytes(encrypted_text_pdf(locked, user_password="peanuts"))
    (lib / "minutes.doc").write_bytes(b"\xd0\xcf\x11\xe0 an old binary Word file")
    return lib


EngineFactory = Callable[..., Engine]


@pytest.fixture
def make_engine() -> Iterator[EngineFactory]:
    """``make_engine(ollama_host=...)``: an opened Engine (``embedder=`` another than the
    real model); closed after the test."""
    opened: list[Engine] = []

    def make(embedder: Embedder | None = None, **overrides: Any) -> Engine:
        overrides.setdefault("extract_in_subprocess", False)  # no process start-up per test
        eng = Engine(load_settings(**overrides), interactive=True, embedder=embedder).open()
        opened.append(eng)
        return eng

    yield make
    for eng in opened:
        eng.close()


@pytest.fixture
def fake() -> Iterator[FakeEngine]:
    """A fake engine on the test's settings (DOCENT_HOME); its job threads end with the test."""
    engine = FakeEngine(load_settings())
    yield engine
    engine.release_jobs.set()
    engine.release_answer.set()
    engine.release_health.set()
    engine.wait_jobs()


@pytest.fixture
def drain(qtbot: Any) -> Iterator[None]:
    """Workers started by a test are finished (and their signals delivered) after it."""
    from docent.gui.workers import cancel_all, wait_for_all

    yield
    cancel_all()
    assert wait_for_all(30_000), "workers still running after the test"
    qtbot.wait(10)


@pytest.fixture
def chat(qtbot: Any, fake: FakeEngine, drain: None) -> Iterator[Any]:
    """The chat pane alone, on the fake engine, shown."""
    from docent.gui.chat_pane import ChatPane

    pane = ChatPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    yield pane
    pane.stop()


@pytest.fixture
def make_window(qtbot: Any) -> Iterator[Callable[..., Any]]:
    """``make_window(engine)``: the main window, shown; its workers are drained at the end."""
    from docent.gui.main_window import MainWindow
    from docent.gui.workers import cancel_all, wait_for_all

    windows: list[MainWindow] = []

    def make(engine: EngineAPI) -> MainWindow:
        window = MainWindow(engine)
        qtbot.addWidget(window)
        window.resize(1400, 860)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
    cancel_all()
    assert wait_for_all(30_000), "workers still running after the test"
    # Deliver the finished workers' last queued signals while their receivers still exist.
    qtbot.wait(10)


#: The offscreen platform plugin warns whenever a top-level window's layout sets its
#: minimum size (QPlatformWindow::propagateSizeHints is not implemented there). That is
#: the test platform talking, not Docent; every other Qt warning still fails a test.
OFFSCREEN_NOISE = r"^This plugin does not support propagateSizeHints\(\)$"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))
