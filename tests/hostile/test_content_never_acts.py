"""Content never acts: nothing in a passage, an answer or a file name loads a resource,
reads a file or opens a link unless the user chooses to."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from docent.core.config import load_settings
from docent.core.engine import Engine

HERE = Path(__file__).parent
OUTER = 180.0

#: The offscreen platform cannot propagate size hints; every other Qt warning fails a test.
pytestmark = pytest.mark.qt_log_ignore(r"^This plugin does not support propagateSizeHints\(\)$")


class _Opens(FileSystemEventHandler):
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type == "opened":
            with self.lock:
                self.paths.append(os.fsdecode(event.src_path))


def test_images_links_and_markup_in_answers_quotes_and_names_read_nothing(
    tmp_path: Path,
) -> None:
    pic, pipe = tmp_path / "pic.png", tmp_path / "pipe.png"
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(0xFF0000)
    assert image.save(str(pic))
    os.mkfifo(pipe)
    opens = _Opens()
    observer = Observer()
    observer.schedule(opens, str(tmp_path))
    observer.start()
    try:
        child = subprocess.run(
            [sys.executable, str(HERE / "render_hostile.py"), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=OUTER,  # a read of the FIFO would block here: the test fails, not hangs
            env={k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"},
        )
    finally:
        observer.stop()
        observer.join(10)
    assert child.returncode == 0 and "DONE" in child.stdout, child.stdout + child.stderr
    lines = dict(line.split(" ", 1) for line in child.stdout.splitlines() if " " in line)
    hrefs = lines["HREFS"]
    assert "evil.example" not in hrefs, "a link quoted from a document became live"
    assert lines["QUOTE_AS_TEXT"] == "True", "the extractive quote was rendered as Markdown"
    assert lines["SCOPE_PLAIN"] == "PlainText Asking only: <img src='pipe.png'>.pdf, <b>bold.pdf"
    assert [p for p in opens.paths if p in (str(pic), str(pipe))] == []


@pytest.fixture
def engine(_isolated_home: Path) -> Iterator[Engine]:
    eng = Engine(load_settings(extract_in_subprocess=False)).open()
    yield eng
    eng.close()


def test_links_ask_first_and_only_http_is_ever_opened(
    qtbot: Any, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docent.gui import chat_pane as chat_module
    from docent.gui.chat_pane import ChatPane

    opened: list[str] = []
    asked: list[str] = []
    answer = [False]

    def ask(parent: Any, title: str, text: str, yes: str) -> bool:
        asked.append(text)
        return answer[0]

    monkeypatch.setattr(
        chat_module.QDesktopServices, "openUrl", lambda url: opened.append(url.toString())
    )
    monkeypatch.setattr(chat_module, "ask", ask)
    pane = ChatPane(engine)
    qtbot.addWidget(pane)

    url = "https://example.org/path?q=secret"
    pane._on_link(QUrl(url))
    assert asked and url in asked[-1] and opened == []  # shown, asked, declined
    answer[0] = True
    pane._on_link(QUrl(url))
    assert opened == [url]
    for other in ("file:///etc/passwd", "smb://host/share", "javascript:alert(1)", "relative.pdf"):
        pane._on_link(QUrl(other))
    assert opened == [url], "a non-http(s) link was opened"
