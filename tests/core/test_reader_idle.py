"""The extraction worker is stopped once the queue has been idle a while (QA-79: after
indexing scans it kept ~1 GB for good, the window idle); the next job starts another."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from watch_helpers import note, wait_for


def test_an_idle_queue_stops_the_extraction_worker_and_the_next_job_starts_one(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=str(tmp_path / "home"), extract_in_subprocess=True)
    with Engine(settings) as eng:
        eng.queue.reader_idle_seconds = 0.5
        a = note(tmp_path / "lib", "a.txt", "The lamp is lit at dusk.")
        assert eng.index([a]).indexed == [str(a)]
        prep = eng.indexer._prep
        assert prep is not None, "a worker read the file"
        proc = prep._proc  # type: ignore[attr-defined]
        assert proc is not None and proc.is_alive()
        wait_for(lambda: eng.indexer._prep is None, "the idle worker to be stopped")
        wait_for(lambda: not proc.is_alive(), "its process to end")
        b = note(tmp_path / "lib", "b.txt", "The boat leaves at dawn.")
        assert eng.index([b]).indexed == [str(b)]
        assert [m.file_name for m in eng.grep("leaves at dawn")] == ["b.txt"]
