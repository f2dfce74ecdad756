"""What the watched-folder and collection tests share: an engine with the hashing
embedder on a real folder, a note file, and polling a condition with a timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from docent.core.config import load_settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder

TIMEOUT = 30.0


def open_engine() -> Engine:
    return Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()


def note(folder: Path, name: str, words: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"{name}\n\nThe {words} note: {words} {words} and nothing else.\n")
    return path


def wait_for(pred: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling a condition, not synchronising on time
