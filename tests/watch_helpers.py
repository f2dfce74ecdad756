"""What the watched-folder and collection tests share: an engine with the hashing
embedder on a real folder, a note file, and polling a condition with a timeout."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.index_events import IndexEvent, JobStarted
from docent.core.jobs import IndexQueue
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


@contextmanager
def queue_held(eng: Engine) -> Iterator[IndexQueue]:
    """The queue busy with a job of its own (held at its start) while the body queues
    what a user and the watcher would meanwhile; released at the end."""
    q = eng.queue
    gate, started = threading.Event(), threading.Event()
    busy = q.resume()

    def hold(event: IndexEvent) -> None:
        if isinstance(event, JobStarted) and event.job is busy:
            started.set()
            gate.wait(TIMEOUT)

    unsubscribe = eng.subscribe(hold)
    try:
        assert started.wait(TIMEOUT)
        yield q
    finally:
        gate.set()
        unsubscribe()
