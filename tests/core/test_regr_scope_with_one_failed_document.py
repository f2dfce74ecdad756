"""Regression (a104b2f, engine._searchable via Engine._scope): a search (or a question)
scoped to several documents raises NotIndexed as soon as *one* of them is not ready (it
failed, waits its turn, is being re-indexed after an edit), so the ready ones can no
longer be searched at all. Before the commit the ready documents were searched and the
one without passages simply contributed none."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def test_a_scope_of_two_documents_one_failed_still_searches_the_ready_one(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keeper.txt").write_text("The keeper climbs the tower at dusk to light the lamp.\n")
    (docs / "broken.txt").write_bytes(b"\x00\x01\x02" * 100)  # fails: binary
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        report = eng.index([docs])
        assert len(report.indexed) == 1 and len(report.failed) == 1
        result = eng.search("keeper lamp", files=["keeper.txt", "broken.txt"])
        assert any(h.file_name == "keeper.txt" for h in result.hits)
        ev = result.evaluation
        assert ev is not None and any("broken.txt cannot be searched" in i for i in ev.issues)
