"""QA, session 30: `docent grep "Ian Murdock"` showed "...Debra. Chapter 2 Leadership
Debian has had...", and `docent grep "Chapter 2 Leadership"`, copied from that line, said
"No matches.": the passage holds a line break where grep's line shows a space, and the
pattern was matched as written."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def test_a_phrase_copied_from_grep_output_is_found_across_line_breaks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "history.txt").write_text(
        "The project was named after Ian Murdock and his wife Debra.\n"
        "Chapter 2\n\nLeadership\n"
        "Debian has had several leaders since 1993.\n"
    )
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        eng.index([docs])
        (shown,) = eng.grep("Ian Murdock")
        assert "Debra. Chapter 2 Leadership Debian" in shown.line
        (found,) = eng.grep("debra. chapter 2 leadership")
        assert found.line == shown.line and found.location == shown.location
        assert eng.grep("Chapter 2 Leadership")
        assert not eng.grep("Chapter 2 Leaders hip")  # spacing is flexible, words are not
        assert not eng.grep("Chapter2 Leadership")
