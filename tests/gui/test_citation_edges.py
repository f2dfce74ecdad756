"""Citations a person clicks: the words lit on the page are the cited ones (review h20).
Real PDFs made by the tests, read by QtPdf as the pane reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtPdf import QPdfDocument

from docent.core.passages import locate_spans
from docent.gui.pdf_render import passage_rects
from pdf_files import text_pdf


def _lit(doc: QPdfDocument, index: int, passage: str) -> str:
    """The page text the highlighter lights for ``passage`` (pdfium's text, as QtPdf
    gives it to pdf_render.passage_rects)."""
    text = doc.getAllText(index).text()
    return " | ".join(text[s : s + n] for s, n in locate_spans(text, passage))


def _covers(doc: QPdfDocument, index: int, rects: list[QRectF], words: str) -> bool:
    """Every line box of ``words`` (as they stand on the page) lies inside a lit rect."""
    text = doc.getAllText(index).text()
    at = text.index(words)
    boxes = [p.boundingRect() for p in doc.getSelectionAtIndex(index, at, len(words)).bounds()]
    assert boxes
    return all(any(r.contains(b.center()) for r in rects) for b in boxes)


def _open(path: Path) -> QPdfDocument:
    doc = QPdfDocument()
    assert doc.load(str(path)) == QPdfDocument.Error.None_
    return doc


def _cited(
    make_engine: Any, path: Path, passage: str, page: int = 1, page_end: int = 1, **more: Any
) -> tuple[Any, Any]:
    """``path`` indexed alone (the hashing embedder), and a citation of ``passage`` in it."""
    from docent.core.api import Citation
    from fake_embedder import FakeEmbedder

    engine = make_engine(FakeEmbedder())
    engine.index([path])
    (rec,) = engine.documents()
    cite = Citation(
        1, "chunk-1", rec.doc_id, rec.file_name, rec.path, page, page_end, passage, **more
    )
    return engine, cite


def _pane_of(qtbot: Any, engine: Any, cite: Any) -> Any:
    """A shown Sources pane listing ``cite``."""
    from docent.gui.citation_pane import CitationPane

    pane = CitationPane(engine)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations([cite])
    return pane


def test_a_word_hyphenated_at_a_line_end_keeps_the_lines_before_it_lit(
    qapp: Any, tmp_path: Path
) -> None:
    """pdfium writes a word broken at a line's end ("out-" / "liers") as "out\\ufffeliers"
    in the text QtPdf gives (no line break after the mark); extraction and chunking make
    it "outliers". normal_form's _HYPHEN_BREAK only joins a mark followed by a line
    break, so the page text keeps "out" and "liers" apart, the passage's whole-match
    fails, and the words before the broken one in the passage's first window (or after
    it in its last) are left unlit (corpus: UMFPACK_UserGuide.pdf, the passage opening
    "UMFPACK is an outer-/product based" is lit from "based" on)."""
    from docent.core.chunking import chunk_pages
    from docent.core.extract import extract

    lines = [
        "The analysis of the data shows that out-",
        "liers were removed before the final",
        "computation of every statistic in the study.",
    ]
    pdf = tmp_path / "hyphen.pdf"
    pdf.write_bytes(text_pdf([lines]))
    (chunk,) = chunk_pages(extract(pdf, ocr=False).pages)
    assert "outliers" in chunk.text  # what was indexed, and what the chip carries
    doc = _open(pdf)
    try:
        assert "out\ufffeliers" in doc.getAllText(0).text()  # what the highlighter searches
        rects, _method = passage_rects(doc, 0, chunk.text)
        assert _covers(doc, 0, rects, "The analysis of the data shows that"), _lit(
            doc, 0, chunk.text
        )
    finally:
        doc.close()


SECTION_A_P1 = [
    "4.10 The 9.x Releases",
    "Debian 9.0 (Stretch) was released June 17th, 2017.",
    "New features and updated software packages included:",
    "- Apache 2.4.23",
    "- Bind 9.10",
    "- Calligra 2.9",
    "- Emacs 25.1",
]
SECTION_A_P2 = [
    "- MariaDB 10.1",
    "- OpenJDK 8",
    "- Perl 5.24",
    "The eighteenth DebConf took place in Montreal, Canada, from 31 July to 12 August 2017.",
]
SECTION_B_P2 = [
    "4.11 The 10.x Releases",
    "Debian 10.0 (Buster) was released July 6th, 2019.",
    "New features and updated software packages included:",
    "- Apache 2.4.38",
    "- Bind 9.11",
]


def test_the_part_of_a_passage_on_its_second_page_is_lit_not_a_later_section_repeating_its_words(
    qapp: Any, tmp_path: Path
) -> None:
    """A passage runs from page 1 onto page 2, and page 2, after the passage's end, has a
    section that repeats a phrase of the passage's first part ("New features and updated
    software packages included: Apache 2"; release notes, API references, forms do this).
    passages._locate matches its windows greedily, each from where the last one ended:
    a window of the page-1 part matches the later section on page 2 first, every window
    of the real continuation comes before it and is never looked for, and page 2 lights
    the other section's line while the cited words stay dark (seen on the corpus:
    debian-history project-history.en.pdf pp.19-20, KLU_UserGuide.pdf pp.12-13)."""
    filler = [f"Filler line {i} about something else entirely." for i in range(30)]
    pdf = tmp_path / "history.pdf"
    pdf.write_bytes(text_pdf([[*filler, *SECTION_A_P1], [*SECTION_A_P2, *SECTION_B_P2]]))
    passage = "\n".join([*SECTION_A_P1, *SECTION_A_P2])
    doc = _open(pdf)
    try:
        rects, _method = passage_rects(doc, 1, passage)
        lit = _lit(doc, 1, passage)
        assert _covers(doc, 1, rects, "MariaDB 10.1"), lit  # the continuation, at the top
        assert not _covers(doc, 1, rects, "Debian 10.0 (Buster)"), lit  # another section
        assert not _covers(doc, 1, rects, "Apache 2.4.38"), lit
    finally:
        doc.close()


def test_a_page_the_passage_is_not_on_lights_nothing_and_is_not_called_highlighted(
    qtbot: Any, fake: Any, tmp_path: Path, drain: None
) -> None:
    """The passage is on p. 1. The user presses ▶ to read on: p. 2 shares four words with
    it ("annual maintenance inspection of"). _render_pdf passes the passage to every page
    it renders, and pdf_render.passage_rects, its regex finding nothing there, falls back
    to QPdfSearchModel on the passage's "distinctive phrases": p. 2's unrelated sentence
    is lit, and the note says "The cited passage is highlighted." under the heading
    "p. 2 (the passage is on p. 1)"."""
    from fakes import citation

    from docent.gui.citation_pane import CitationPane

    passage = (
        "Every year the landlord arranges the annual maintenance inspection of the boiler "
        "before winter."
    )
    pdf = tmp_path / "house.pdf"
    pdf.write_bytes(
        text_pdf(
            [
                ["Heating", passage],
                ["Plumbing", "Drains are cleared after the annual maintenance inspection of it."],
            ]
        )
    )
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.resize(700, 800)
    pane.show()
    pane.set_citations([citation(1, str(pdf), 1, passage)])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.last_render is not None and pane.last_render.rects
    with qtbot.waitSignal(pane.page_shown, timeout=10_000) as shown:
        pane.next_button.click()
    assert shown.args == [str(pdf), 2]
    assert pane.header.text() == "house.pdf — p. 2 (the passage is on p. 1)"
    render = pane.last_render
    assert render is not None
    assert (render.rects, pane.note.text()) == ([], ""), (render.method, pane.note.text())


def test_a_chip_streaming_in_is_plain_until_the_answer_is_checked(
    qtbot: Any, fake: Any, make_window: Any, tmp_path: Path
) -> None:
    """A local model takes tens of seconds to answer, and "[1]" streams in long before
    the answer is checked. Drawn as a link (a hand pointer), a click on it did nothing
    and said nothing: the turn being answered has no citations yet (review h20). It is
    plain "[1]" until the checked answer replaces the tokens, then a chip that opens."""
    from fakes import answer, citation
    from gui_helpers import click_chip, started

    notes = tmp_path / "notes.md"
    passage = "The boiler is serviced every spring."
    fake.add_document(str(notes), [passage])
    cited = [citation(1, str(notes), 1, passage)]
    fake.answers = [answer("Spring[1] is when the boiler is serviced.", cited)]
    fake.hold_answer.set()
    window = started(qtbot, fake, make_window)
    window.chat.ask("When is the boiler serviced?")
    try:
        qtbot.waitUntil(fake.answer_paused.is_set, timeout=10_000)
        qtbot.waitUntil(lambda: "Spring[1]" in window.chat.view.toPlainText(), timeout=5_000)
        assert 'href="cite:1.1"' not in window.chat.view.toHtml()
    finally:
        with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
            fake.release_answer.set()
    assert 'href="cite:1.1"' in window.chat.view.toHtml()
    click_chip(window.chat.view, 1, 1)
    qtbot.waitUntil(lambda: window.citations.current is not None, timeout=5_000)


def test_a_text_document_removed_from_the_library_is_explained_without_a_cli_command(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """An answer cites notes.md; the user then removes notes.md from the library (the file
    stays on disk) and clicks the citation. load_passage falls back to
    ``engine.resolve(path)``, whose UnknownFile speaks to the command line: the pane and a
    warning say "See `docent list` for what is indexed." A PDF in the same state still
    shows its page (it is read from the file)."""
    notes = tmp_path / "docs" / "notes.md"
    notes.parent.mkdir()
    passage = "The boiler is serviced every spring by the landlord."
    notes.write_text(f"# Heating\n\n{passage}\n", encoding="utf-8")
    engine, cite = _cited(make_engine, notes, passage)
    engine.remove(str(notes))
    assert notes.exists()

    pane = _pane_of(qtbot, engine, cite)
    pane.select(1)
    qtbot.waitUntil(lambda: "notes.md" in pane.note.text(), timeout=10_000)
    assert "docent list" not in pane.note.text(), pane.note.text()


def test_while_a_text_citation_loads_the_previous_pdf_page_is_not_called_highlighted(
    qtbot: Any, fake: Any, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """Citation [1] (a PDF) is shown: its page, lit, "The cited passage is highlighted."
    The user clicks [2], a text file, whose text loads in a worker. Until it comes, the
    heading names notes.md, the toolbar's page buttons are gone, and below it stands [1]'s
    PDF page with the note "The cited passage is highlighted." (_load_text changes
    neither the view nor the note; a PDF's render says "Rendering the page…"). With a
    large document, or a busy disk, the user reads the wrong page as [2]'s source."""
    import threading

    from fakes import citation

    from docent.gui.citation_pane import PDF, CitationPane

    manual = tmp_path / "manual.pdf"
    manual.write_bytes(text_pdf([["Heating", "The boiler is serviced every spring."]]))
    notes = tmp_path / "notes.md"
    fake.add_document(str(notes), ["The tenant bleeds the radiators in autumn."])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations(
        [
            citation(1, str(manual), 1, "The boiler is serviced every spring."),
            citation(2, str(notes), 1, "The tenant bleeds the radiators in autumn."),
        ]
    )
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.note.text() == "The cited passage is highlighted."

    gate, entered = threading.Event(), threading.Event()
    real = fake.document

    def document(doc_id: str) -> Any:  # the text's worker: held until the gate opens
        entered.set()
        gate.wait(10)
        return real(doc_id)

    monkeypatch.setattr(fake, "document", document)
    pane.select(2)
    try:
        qtbot.waitUntil(entered.is_set, timeout=5_000)
        assert pane.header.text().startswith("notes.md")
        stale = pane.stack.currentIndex() == PDF and "highlighted" in pane.note.text()
        assert not stale, "[1]'s lit PDF page is shown, said to be highlighted, under [2]"
    finally:
        gate.set()
    qtbot.waitUntil(lambda: pane.text_view.highlighted_text() != "", timeout=10_000)


def test_a_pdf_changed_on_disk_since_it_was_indexed_is_said_to_have_changed(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """The answer cites manual.pdf p. 1; the user then saves a new version of the file (not
    watched, or the watcher not yet run). The chip renders the new file's p. 1, where the
    passage no longer is, and the pane says only "The passage could not be located on the
    page; it is quoted above.", as if Docent had failed to find it. The catalog knows the
    size and time of the file it indexed (DocumentRecord.size/mtime), so the pane could
    say the file changed since it was indexed and offer to re-index it."""
    import os

    passage = "The boiler is serviced every spring by the landlord."
    pdf = tmp_path / "docs" / "manual.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(text_pdf([["Heating", passage]]))
    engine, cite = _cited(make_engine, pdf, passage)
    new = [f"Safety note {i}: keep the vents clear at all times." for i in range(40)]
    pdf.write_bytes(text_pdf([["Heating", *new], [passage]]))
    st = pdf.stat()
    os.utime(pdf, (st.st_atime, st.st_mtime + 5))

    pane = _pane_of(qtbot, engine, cite)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert "changed" in pane.note.text(), pane.note.text()


def test_a_pdf_indexed_again_since_the_answer_says_the_passage_is_the_old_version(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """QA-77: an answer cited pdp.pdf p. 4; another PDF was moved over it and indexed
    again. The chip opened the new file's p. 4 under the old citation, saying only that
    the passage could not be located. The citation keeps the version it was made of."""
    from dataclasses import replace

    passage = "The boiler is serviced every spring by the landlord."
    pdf = tmp_path / "docs" / "manual.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(text_pdf([["Heating", passage]]))
    engine, cite = _cited(make_engine, pdf, passage)
    (rec,) = engine.documents()
    cite = replace(cite, sha256=rec.sha256)
    pdf.write_bytes(text_pdf([["Garden", "The hedge is cut in June by the gardener."]]))
    engine.index([pdf])
    (again,) = engine.documents()
    assert again.sha256 != cite.sha256

    pane = _pane_of(qtbot, engine, cite)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert "changed since this answer cited it" in pane.note.text(), pane.note.text()


def test_the_page_number_shown_is_the_one_the_pdf_prints_and_viewers_use(
    qtbot: Any, fake: Any, tmp_path: Path, drain: None
) -> None:
    """A book's PDF numbers its front matter i, ii and its first chapter 1 (/PageLabels:
    every viewer, and the page's own folio, say "1"). The citation of a passage on that
    page says "p. 3" in the heading and "page 3 of 4" in the toolbar; a user who types 3
    into their PDF viewer (or looks for the folio 3) lands two pages off. QtPdf knows the
    label (QPdfDocument.pageLabel) but nothing reads it."""
    from fakes import citation

    from docent.gui.citation_pane import CitationPane
    from pdf_files import pdf, text_pdf_objects

    objects = text_pdf_objects(
        [["Title page"], ["Contents"], ["Chapter one starts here."], ["More of chapter one."]]
    )
    objects[0] = (
        b"<< /Type /Catalog /Pages 2 0 R /PageLabels << /Nums [0 << /S /r >> 2 << /S /D >>] >> >>"
    )
    book = tmp_path / "book.pdf"
    book.write_bytes(pdf(objects))
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations([citation(1, str(book), 3, "Chapter one starts here.")])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.last_render is not None and pane.last_render.rects  # the right page, lit
    assert pane.zoom_label.full_text().startswith("page 1 (3 of 4)"), pane.zoom_label.full_text()


def test_a_passage_found_only_by_one_of_its_phrases_is_not_called_highlighted(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """When the page's text does not line up with the passage (a text layer pdfium reads
    otherwise than the indexer did), the pane falls back to searching the page for a few
    words of it and lights those: four words of a paragraph. The note said "The cited
    passage is highlighted." as for the whole passage (review h20)."""
    from docent.gui import pdf_render

    passage = "The boiler is serviced every spring by the landlord."
    pdf = tmp_path / "docs" / "manual.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(text_pdf([["Heating", passage]]))
    engine, cite = _cited(make_engine, pdf, passage)
    monkeypatch.setattr(pdf_render, "locate_spans", lambda *args: [])

    pane = _pane_of(qtbot, engine, cite)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.last_render is not None and pane.last_render.method == "search"
    assert pane.last_render.rects  # something is lit
    note = pane.note.text()
    assert note != "The cited passage is highlighted.", note
    assert "quoted above" in note, note


def test_a_short_part_at_the_foot_of_the_first_page_is_lit_there_through_the_pane(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None
) -> None:
    """The passage starts with the last words of p.1 ("The results show") and runs onto
    p.2; p.1 also opens with "The results show". The chip opens p.1 and lit only its part
    there, matched at its first place: the page's opening line (review s21)."""
    p1 = [
        "The results show a clear trend in the first table.",
        *[f"Filler line {i} about the method and other matters." for i in range(20)],
        "The results show",
    ]
    p2 = ["that the pump wears out after two winters of use.", "Other matters follow."]
    pdf = tmp_path / "docs" / "report.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(text_pdf([p1, p2]))
    passage = "The results show\nthat the pump wears out after two winters of use."
    engine, cite = _cited(make_engine, pdf, passage, 1, 2, page_breaks=((2, 17),))
    assert cite.part_on(1) == "The results show"

    pane = _pane_of(qtbot, engine, cite)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    r = pane.last_render
    assert r is not None and r.page == 1 and len(r.rects) == 1
    doc = _open(pdf)
    try:
        text = doc.getAllText(0).text()
        foot = doc.getSelectionAtIndex(0, text.rindex("The results show"), 16).boundingRectangle()
    finally:
        doc.close()
    # the lit rect (pixels) is on the last line, not the first
    scale = r.rects[0].height() / foot.height()
    assert abs(r.rects[0].center().y() - foot.center().y() * scale) < r.rects[0].height()


@pytest.mark.parametrize("kind", ["pdf", "text"])
def test_a_page_failing_after_its_pane_is_gone_is_dropped(
    qtbot: Any, make_engine: Any, tmp_path: Path, drain: None, monkeypatch: Any, kind: str
) -> None:
    """A page still rendering (or a text passage loading) when its pane is deleted, then
    failing: its error reached the deleted pane ("Internal C++ object (QStackedWidget)
    already deleted"), raised in the next test's event loop on a busy CI run (s21)."""
    import threading

    import shiboken6

    from docent.gui import citation_pane
    from docent.gui.citation_pane import CitationPane
    from docent.gui.workers import wait_for_all

    release = threading.Event()

    def failing(*args: Any, **kwargs: Any) -> Any:
        release.wait(10)
        raise RuntimeError("the page could not be drawn")

    monkeypatch.setattr(citation_pane, "render_page" if kind == "pdf" else "load_passage", failing)
    passage = "The boiler is serviced every spring by the landlord."
    path = tmp_path / ("manual.pdf" if kind == "pdf" else "notes.txt")
    if kind == "pdf":
        path.write_bytes(text_pdf([["Heating", passage]]))
    else:
        path.write_text(f"Heating\n{passage}\n", encoding="utf-8")
    engine, cite = _cited(make_engine, path, passage)
    pane = CitationPane(engine)
    pane.show()
    pane.set_citations([cite])
    pane.select(1)
    shiboken6.delete(pane)
    release.set()
    assert wait_for_all(10_000)
    qtbot.wait(50)  # the failure's signal is delivered: dropped, no exception
