"""QA-80: "SIMHのシミュレーションを中断するキーは何ですか？" was read as one word (Japanese
writes no spaces), SIMH was never searched, and the closest passages were R's manuals.
Where Latin letters or digits meet Chinese or Japanese, the search puts a space."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.normal_form import scripts_apart
from fake_embedder import FakeEmbedder


def test_latin_and_japanese_runs_are_words_apart() -> None:
    assert scripts_apart("SIMHのシミュレーション") == "SIMH のシミュレーション"
    assert scripts_apart("PDP11型は何KB") == "PDP11 型は何 KB"
    assert scripts_apart("What is SIMH?") == "What is SIMH?"


def test_the_document_named_in_latin_letters_is_found(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sim.txt").write_text(
        "SIMH simulators stop when the console interrupt character is typed.\n"
    )
    (docs / "r.txt").write_text("R packages are installed from CRAN with install.packages.\n")
    eng = Engine(
        Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False),
        embedder=FakeEmbedder(),
    ).open()
    try:
        assert not eng.index([docs]).failed
        result = eng.search("SIMHのシミュレーションを中断するキーは何ですか？")
        assert result.hits and result.hits[0].file_name == "sim.txt"
    finally:
        eng.close()
