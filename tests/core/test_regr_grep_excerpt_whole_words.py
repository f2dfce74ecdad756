"""QA-78: `docent grep` showed excerpts that began and ended inside words ("a meeting
notes." of "Beta meeting notes.", "ow 9 degrees Celsius."). They begin and end on whole
words now, with an ellipsis where the passage goes on."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def test_grep_excerpts_are_whole_words(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    filler = "The greenhouse vents open at noon and close again before dusk each day. "
    text = filler * 3 + "Beta meeting notes. The zebra enclosure stays below 9 degrees Celsius. "
    (docs / "notes.txt").write_text(text + filler * 4 + "\n")
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        eng.index([docs])
        (match,) = eng.grep("zebra")
    line = match.line
    assert line.startswith("… ") and line.endswith(" …"), line
    words = set(text.split()) | {"…"}
    assert all(w in words for w in line.split()), line  # no word cut in two
    assert "zebra enclosure stays below 9 degrees Celsius." in line
