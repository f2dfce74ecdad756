"""Review 83, the window's words: each test fails on the code as reviewed. A real Engine
(hashing embedder: what is said matters here, not ranking), a real queue, the real
IndexController."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent.core.api import FailedFile, IndexReport
from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.index_events import DocumentProgressed, IndexEvent, Job, JobKind
from docent.gui.indexing import IndexController
from docent.gui.messages import Message, bridge
from fake_embedder import FakeEmbedder


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    yield eng
    eng.close()


def _listen() -> list[Message]:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    return posted


def test_removing_a_collection_mid_add_does_not_say_the_finished_documents_are_kept(
    qtbot: Any, engine: Engine, tmp_path: Path, drain: None
) -> None:
    """QA-79's fix: removing a collection cancels the run adding files to it. The window
    then hears a cancelled run and says "Indexing cancelled; the documents that finished
    are kept." -- next to "Removed the collection: N documents left the library": the
    documents that finished are exactly those that just left. The user never pressed
    Cancel either."""
    lib = tmp_path / "lib"
    lib.mkdir()
    for i in range(3):
        (lib / f"long{i}.txt").write_text(
            " ".join(f"Paragraph {j} on lamp {i}." for j in range(3000)) + "\n"
        )
    tmp = engine.create_collection("Tmp")
    removed = threading.Event()

    def heard(e: IndexEvent) -> None:  # on the queue's thread: the run is embedding
        if (
            isinstance(e, DocumentProgressed)
            and e.progress.phase == "embedding"
            and e.progress.path.endswith("long1.txt")
            and not removed.is_set()
        ):
            removed.set()
            engine.submit_collection_removal(tmp.id)

    engine.subscribe(heard)
    posted = _listen()
    c = IndexController(engine)
    try:
        c.add([str(lib)], collection=tmp.id)
        for said in ("Removed the collection", "Stopped adding lib: the collection it was"):
            qtbot.waitUntil(
                lambda s=said: any(m.text.startswith(s) for m in posted), timeout=60_000
            )
    finally:
        c.detach()
    texts = [m.text for m in posted]
    assert engine.documents() == [], texts
    assert not any("the documents that finished are kept" in t for t in texts), texts


def test_a_ready_documents_update_skipped_for_a_file_saved_at_every_read_is_said(
    qtbot: Any, engine: Engine, drain: None
) -> None:
    """Review 81's wording 2 made a ready document whose file "kept changing" a skip
    (reason 'changing', version kept). _say_how_it_ended picks only 'missing' out of the
    skipped: the edit that was not indexed is now said nowhere in the window (it was
    "1 file could not be indexed" before), though the report carries the message."""
    posted = _listen()
    c = IndexController(engine)
    try:
        msg = (
            "log.txt kept changing while Docent read it; index it again once it is saved "
            "(a watched folder does so by itself). The version indexed stays searchable."
        )
        c._say_how_it_ended(
            IndexReport(skipped=[FailedFile("/d/log.txt", "changing", msg)]),
            "d",
            False,
            Job(JobKind.INDEX, ["/d/log.txt"], "user"),
        )
    finally:
        c.detach()
    assert any("kept changing" in m.text for m in posted), posted
