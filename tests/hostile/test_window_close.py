"""Closing the window does not wait on a file that is stuck in the reader."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest
from hostile_files import self_referencing_pdf

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.index_events import DocumentProgressed, IndexEvent

OUTER = 120.0  # the old code waited 30 s and then left the worker running

pytestmark = pytest.mark.qt_log_ignore(r"^This plugin does not support propagateSizeHints\(\)$")


def test_closing_the_window_while_a_file_loops_ends_at_once(
    qtbot: Any, tmp_path: Path, _isolated_home: Path
) -> None:
    from docent.gui.main_window import MainWindow
    from docent.gui.workers import cancel_all, wait_for_all

    # Only this window's worker counts: a process left by an earlier test (CI runs the
    # corpus tests first) is not this test's business.
    earlier = set(_extract_workers())
    loop = tmp_path / "loop.pdf"
    loop.write_bytes(self_referencing_pdf())
    engine = Engine(
        load_settings(extract_in_subprocess=True, extract_page_timeout=600), interactive=True
    ).open()
    window = MainWindow(engine)
    qtbot.addWidget(window)
    window.show()
    stuck = threading.Event()

    def on_event(event: IndexEvent) -> None:  # on the queue's thread
        if isinstance(event, DocumentProgressed) and event.progress.message == "opening the PDF":
            stuck.set()

    engine.subscribe(on_event)
    engine.submit_index([str(loop)])  # as a drop on the window does
    qtbot.waitUntil(stuck.is_set, timeout=int(OUTER * 1000))
    indexing = engine.queue._thread  # noqa: SLF001 - the thread stuck on the file
    assert indexing is not None and indexing.is_alive()

    window.close()  # what app.main does after the window closes
    cancel_all()
    assert wait_for_all(int(OUTER * 1000))
    closer = threading.Thread(target=engine.close)
    closer.start()
    closer.join(OUTER)
    assert not closer.is_alive(), "closing the library waited on the stuck file"
    assert not indexing.is_alive(), "the indexing thread is still stuck on the file"
    assert not set(_extract_workers()) - earlier, "the extraction process outlived the window"


def _extract_workers() -> list[int]:
    return [p.pid for p in multiprocessing.active_children() if p.name == "docent-extract"]
