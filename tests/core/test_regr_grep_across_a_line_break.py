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


def test_a_phrase_across_a_line_break_is_found_among_many_passages_of_its_words(
    tmp_path: Path,
) -> None:
    """Review s30: the passages were read by the pattern's longest word, at most
    GREP_SCAN of them in the store's order: "the fan" across a line break was missed
    among a thousand passages holding "the"."""
    from docent.core import lookup

    docs = tmp_path / "docs"
    docs.mkdir()
    filler = " ".join(f"The lamp number {i} is lit at dusk by the keeper." for i in range(40))
    for i in range(60):
        (docs / f"z{i:02}.txt").write_text(filler + "\n")
    (docs / "a.txt").write_text("Check the\nfan before the winter.\n")
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        eng.index([docs])
        assert len(eng._store.grep("the", limit=10_000)) > lookup.GREP_SCAN // 10
        lookup_scan = lookup.GREP_SCAN
        try:
            lookup.GREP_SCAN = 20  # fewer passages of "the" read than there are
            assert [m.file_name for m in eng.grep("the fan")] == ["a.txt"]
        finally:
            lookup.GREP_SCAN = lookup_scan


def test_an_apostrophe_as_typed_finds_one_as_typeset(tmp_path: Path) -> None:
    """QA 2, session 30: `docent grep "Debian's"` said "No matches." of a PDF's
    "Debian’s" (U+2019), and only the typographic one, typed, found it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "history.txt").write_text("Debian’s first release came in 1993.\n")
    (docs / "notes.txt").write_text("Ian's notes say Debian's name joins two names.\n")
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        eng.index([docs])
        for typed in ("Debian's", "Debian’s", "debian's first"):
            found = sorted(m.file_name for m in eng.grep(typed))
            assert found == (["history.txt"] if "first" in typed else ["history.txt", "notes.txt"])
