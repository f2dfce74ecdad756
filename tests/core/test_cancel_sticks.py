"""A cancel sticks: cancelled documents stay listed as cancelled, survive a restart without
resuming by themselves, and index when the user asks again."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest

from docent.cli import main
from docent.cli_progress import ProgressBar
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


def test_resumed_documents_no_longer_wait_for_the_user_once_the_run_takes_them_up(
    tmp_path: Path,
) -> None:
    """QA-79: after Resume, the status line still counted the documents cancelled while
    the run went on, and a kill -9 then left them "cancelled" again, waiting for another
    Resume. Taken up by a run, they are queued: a crash resumes them by itself."""
    files = []
    for name in ("a.txt", "b.txt", "c.txt"):
        f = tmp_path / name
        f.write_text(f"{name} is about lamps, wicks and the keeper who trims them.\n")
        files.append(f)
    cancel = threading.Event()
    eng = open_engine()
    try:
        eng.index(
            files,
            progress=lambda p: cancel.set() if p.phase == "embedding" else None,
            cancel=cancel,
        )
        assert {r.reason for r in eng.documents()} == {CANCELLED}
        seen: list[set[tuple[DocState, str]]] = []

        def on_progress(p: Progress) -> None:
            if p.phase == "extracting" and not seen:  # the run has begun: what is listed
                seen.append({(r.state, r.reason) for r in eng.documents()})

        eng.index(files, progress=on_progress)
        assert seen == [{(DocState.QUEUED, "")}]
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


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """30 notes to index, and the commands on an engine with the hashing embedder."""
    monkeypatch.setattr("docent.cli._open_engine", lambda rebuild=False: open_engine())
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(30):
        (docs / f"note{i:02}.txt").write_text(f"Note {i}: llamas hum when they are content.\n")
    return docs


def _signalled_after_first(stuck: threading.Event | None = None) -> type[ProgressBar]:
    """A progress bar that sends SIGTERM to the command (as `kill` or `timeout` do) when
    the first file is ready; with ``stuck``, that step then waits for it (a step that
    checks no cancel)."""
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    class StopAfterFirst(ProgressBar):
        sent: list[str] = []

        def __call__(self, p: Progress) -> None:  # on the queue's thread
            super().__call__(p)
            if p.phase == "ready" and not self.sent:
                self.sent.append(p.path)
                signal.pthread_kill(main_thread, signal.SIGTERM)
                if stuck is not None:
                    stuck.wait()

    return StopAfterFirst


def test_index_json_stopped_by_a_signal_prints_what_it_finished(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: 130 when stopped by Ctrl-C or SIGTERM, "what finished is kept". With
    ``--json`` stdout stayed empty: a script (or `timeout 60 docent index --json`) could
    not tell what was indexed, though the report has a ``cancelled`` field for it."""
    bar = _signalled_after_first()
    monkeypatch.setattr("docent.cli.ProgressBar", bar)
    code = main(["index", str(notes), "--json", "-q"])
    out, err = capsys.readouterr()
    assert code == 130 and "Cancelled; what finished is kept." in err
    report = json.loads(out)
    assert report["cancelled"] is True and bar.sent[0] in report["indexed"]
    assert len(report["indexed"]) < 30
    with open_engine() as eng:  # the rest waits, cancelled, for the next run
        assert {d.state for d in eng.documents()} == {DocState.READY, DocState.QUEUED}


def test_a_run_stuck_when_stopped_is_not_waited_for_without_end(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that does not end when cancelled (a step that checks no cancel) is waited
    for STOP_WAIT, not for ever: the command ends 130 with nothing on stdout, the
    library closed (closing is what lets the step go here)."""
    stuck = threading.Event()
    monkeypatch.setattr("docent.cli.ProgressBar", _signalled_after_first(stuck))
    monkeypatch.setattr("docent.core.jobs.STOP_WAIT", 0.2)
    close = Engine.close

    def close_then_release(eng: Engine) -> None:
        stuck.set()
        close(eng)

    monkeypatch.setattr(Engine, "close", close_then_release)
    code = main(["index", str(notes), "--json", "-q"])
    out, err = capsys.readouterr()
    assert code == 130 and out == "" and "Cancelled" in err
