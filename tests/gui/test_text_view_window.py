"""A cited text file far bigger than a screen: the view holds the part around the passage.

Laying out a whole 10 MB text file in the view took the window's thread about half a second
(session 20's review), and ``max_text_file_mb`` goes up to 10,000: the window froze for as
long. The worker cuts a stretch of whole lines around the passage; the note says which lines
are shown and of how many, and Open in viewer has the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docent.core.api import Citation
from docent.gui import text_passage
from docent.gui.text_passage import TextPassage, shown_part


def _lines(n: int) -> list[str]:
    return [
        f"Line {i:05d}: the pump in bay {i} is checked by the night shift." for i in range(1, n + 1)
    ]


def test_a_small_text_is_shown_whole() -> None:
    text = "\n".join(_lines(30))
    start = text.index("Line 00020")
    part = shown_part(text, [(start, 10)], limit=10_000)
    assert part == TextPassage(text, [(start, 10)], first_line=1, last_line=30, total_lines=30)
    assert part.whole


def test_a_big_text_keeps_whole_lines_around_the_passage_and_counts_them() -> None:
    lines = _lines(2_000)  # ~130,000 characters
    text = "\n".join(lines)
    start = text.index("Line 01500")
    part = shown_part(text, [(start, 40)], limit=6_000)
    assert not part.whole
    assert len(part.text) <= 6_000
    shown = part.text.split("\n")
    # whole lines, numbered as in the file
    assert shown[0] == lines[part.first_line - 1]
    assert shown[-1] == lines[part.last_line - 1]
    assert part.last_line - part.first_line + 1 == len(shown)
    assert part.total_lines == 2_000
    # the passage is in the part, at its place there, with lines before it to read
    (s, n) = part.spans[0]
    assert part.text[s : s + n] == text[start : start + 40]
    assert part.first_line < 1_500 - 10 < 1_500 + 10 < part.last_line


def test_a_passage_near_the_end_still_gets_a_full_part() -> None:
    lines = _lines(2_000)
    text = "\n".join(lines)
    start = text.index("Line 01999")
    part = shown_part(text, [(start, 20)], limit=6_000)
    assert part.last_line == 2_000
    assert len(part.text) > 5_000  # not a sliver after the passage


def test_one_endless_line_is_cut_mid_line_rather_than_shown_whole() -> None:
    text = "word " * 100_000 + "the valve opens at dusk " + "word " * 100_000
    start = text.index("the valve")
    part = shown_part(text, [(start, 20)], limit=8_000)
    assert len(part.text) <= 8_000
    (s, n) = part.spans[0]
    assert part.text[s : s + n] == "the valve opens at d"


def test_a_part_of_an_extracted_format_is_not_numbered_as_a_files_lines() -> None:
    text = "\n".join(_lines(2_000))
    part = shown_part(text, [(text.index("Line 01500"), 10)], limit=6_000, numbered=False)
    assert "Lines" not in part.lines_note() and "Part of" in part.lines_note()


def test_the_pane_shows_the_part_and_says_which_lines_of_the_file(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """Every sixth line is blank, the 60th of each block too: the extraction drops the blank
    lines a block ends with, which shifted the note's numbers one line a block (review s21)."""
    from docent.gui.citation_pane import CitationPane
    from fake_embedder import FakeEmbedder

    monkeypatch.setattr(text_passage, "SHOWN_CHARS", 5_000)
    # (the file's own last line is not blank: the extraction does not keep that one)
    lines = ["" if i % 6 == 0 < 600 - i else ln for i, ln in enumerate(_lines(600), 1)]
    passage = lines[451 - 1]
    log = tmp_path / "pumps.txt"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    engine = make_engine(FakeEmbedder())
    engine.index([log])
    (rec,) = engine.documents()
    doc = engine.extracted(rec)
    page = next(i for i, p in enumerate(doc.pages, 1) if passage in p.text)
    cite = Citation(1, "chunk-1", rec.doc_id, rec.file_name, rec.path, page, page, passage)

    pane = CitationPane(engine)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations([cite])
    pane.select(1)
    qtbot.waitUntil(lambda: pane.text_view.highlighted_text() != "", timeout=10_000)
    assert pane.text_view.highlighted_text() == passage.rstrip(".")  # words lit, not the stop
    shown = pane.text_view.toPlainText().split("\n")
    assert len(pane.text_view.toPlainText()) <= 5_000
    k, first = next((k, line) for k, line in enumerate(shown) if line)
    n = int(first[5:10]) - k  # the file's number of the view's first line
    assert shown == lines[n - 1 : n - 1 + len(shown)]  # the file's lines, blank ones too
    note = pane.note.text()
    assert "highlighted" in note
    assert f"Lines {n}–{n + len(shown) - 1} of 600" in note, note
    assert "Open in viewer" in note, note


def test_a_passage_not_found_shows_the_part_around_its_cited_lines() -> None:
    """The passage could not be located (the file changed since): the part shown was the
    file's first 400,000 characters, lines 1-10,042 for a citation of lines 11,941-12,000
    (review s21); it is the part around the cited block."""
    lines = _lines(2_000)
    text = "\n".join(lines)
    block = text.index("Line 01500")
    part = shown_part(text, [], limit=6_000, around=block)
    assert part.spans == [] and part.first_line <= 1_500 <= part.last_line


GAMMA = "Gamma's server lives in rack 7, slot 3, beside the tape library."


def _cited_note(make_engine: Any, tmp_path: Path) -> tuple[Any, Path, Citation]:
    """An engine with gamma.md indexed, the file, and a citation of its passage."""
    from fake_embedder import FakeEmbedder

    note = tmp_path / "gamma.md"
    note.write_text(GAMMA + "\n", encoding="utf-8")
    engine = make_engine(FakeEmbedder())
    engine.index([note])
    (rec,) = engine.documents()
    cite = Citation(
        1, "chunk-1", rec.doc_id, rec.file_name, rec.path, 1, 1, GAMMA, sha256=rec.sha256
    )
    return engine, note, cite


def _open(qtbot: Any, pane: Any, cite: Citation, said: str) -> str:
    pane.set_citations([cite])
    pane.select(1)
    qtbot.waitUntil(lambda: said in pane.note.text(), timeout=10_000)
    return str(pane.note.text())


def test_a_citation_of_an_edited_file_says_it_is_the_older_version(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """QA-78: after "rack 7, slot 3" became "rack 12, slot 9", the answer's chip lit the
    words both versions share and said "The cited passage is highlighted."."""
    from dataclasses import replace

    from docent.gui.citation_pane import CitationPane

    engine, note, cite = _cited_note(make_engine, tmp_path)
    pane = CitationPane(engine)
    qtbot.addWidget(pane)
    pane.show()
    said = _open(qtbot, pane, cite, "highlighted")
    assert said.startswith("The cited passage is highlighted.")  # as cited
    note.write_text(GAMMA.replace("rack 7, slot 3", "rack 12, slot 9") + "\n", encoding="utf-8")
    engine.index([note])
    said = _open(qtbot, pane, replace(cite), "changed since this answer cited it")
    assert "only what the file now shown still shares with it is highlighted" in said
    assert "The cited passage is highlighted" not in said


def test_a_citation_of_a_file_edited_elsewhere_is_lit_whole_and_says_so(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """An edit away from the passage (another version, the passage whole in it): lit, and
    no "changed since" note, which said only part of it was (review, session 35)."""
    from docent.gui.citation_pane import CitationPane

    engine, note, cite = _cited_note(make_engine, tmp_path)
    note.write_text(GAMMA + "\nDelta's server lives in rack 2.\n", encoding="utf-8")
    engine.index([note])
    pane = CitationPane(engine)
    qtbot.addWidget(pane)
    pane.show()
    said = _open(qtbot, pane, cite, "highlighted")
    assert said.startswith("The cited passage is highlighted.")
