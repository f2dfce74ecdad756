"""QA-80: a question asked of an empty library was told "Index documents that cover
this, or widen the scope", as if documents had missed it; it now says there is none."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def test_an_empty_library_says_it_holds_no_document(tmp_path: Path) -> None:
    eng = Engine(
        Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False),
        embedder=FakeEmbedder(),
    ).open()
    try:
        result = eng.search("What is SIMH?")
        assert not result.hits and result.evaluation is not None
        assert result.evaluation.recommendation.startswith(
            "Your library has no document ready yet: add files or a folder"
        )
        doc = tmp_path / "notes.txt"
        doc.write_text("SIMH simulates historic computers such as the PDP-11.\n")
        assert not eng.index([doc]).failed
        other = eng.search("Who painted the harbour lighthouse in 1902?")
        assert other.evaluation is not None
        assert "no document ready" not in other.evaluation.recommendation
    finally:
        eng.close()
