"""A cancel sticks: cancelled documents stay listed as cancelled, survive a restart without
resuming by themselves, and index when the user asks again."""

from __future__ import annotations

import threading
from pathlib import Path

from docent.core.api import Progress
from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import CANCELLED, DocState
from fake_embedder import FakeEmbedder


def open_engine() -> Engine:
    return Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()


def test_cancelled_documents_wait_for_the_user_across_a_restart(tmp_path: Path) -> None:
    files = []
    for name in ("a.txt", "b.txt", "c.txt"):
        f = tmp_path / name
        f.write_text(f"{name} is about lamps, wicks and the keeper who trims them.\n")
        files.append(f)
    cancel = threading.Event()

    def on_progress(p: Progress) -> None:
        if p.phase == "embedding":  # the first file is being written: the user cancels
            cancel.set()

    eng = open_engine()
    try:
        report = eng.index(files, progress=on_progress, cancel=cancel)
        assert report.cancelled and report.indexed == []
        states = {r.file_name: (r.state, r.reason) for r in eng.documents()}
        # the one being written, and the two never started: all listed, as cancelled
        assert states == {n: (DocState.QUEUED, CANCELLED) for n in ("a.txt", "b.txt", "c.txt")}
    finally:
        eng.close()

    eng = open_engine()  # the next start
    try:
        assert eng.recovered == [], "a cancelled document resumed by itself"
        assert eng.resume().indexed == []
        assert all(r.reason == CANCELLED for r in eng.documents())
        again = eng.index(files)  # the user's Resume
        assert sorted(Path(p).name for p in again.indexed) == ["a.txt", "b.txt", "c.txt"]
        assert {(r.state, r.reason) for r in eng.documents()} == {(DocState.READY, "")}
    finally:
        eng.close()


def test_a_crash_still_resumes_what_it_interrupted(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("The lamp is lit at dusk.\n")
    eng = open_engine()
    try:
        eng.index([f])
        (rec,) = eng.documents()
        rec.state = DocState.INDEXING  # as a crash mid-write leaves it
        eng._cat.put(rec)
    finally:
        eng.close()
    eng = open_engine()
    try:
        assert [r.file_name for r in eng.recovered] == ["a.txt"]
        assert eng.resume().indexed == [str(f)]
    finally:
        eng.close()
