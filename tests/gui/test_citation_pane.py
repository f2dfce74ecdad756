"""The citation pane: the answer's sources, and the cited passage found in its document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine, citation, hold
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from docent.gui.citation_pane import PLACEHOLDER, TEXT, CitationPane, page_label
from docent.gui.messages import Message, bridge


def notes_pane(qtbot: Any, fake: FakeEngine, tmp_path: Path) -> tuple[Path, CitationPane]:
    """A two-line Markdown file in the library ("# Notes", then a sentence) and a pane
    shown to open it."""
    notes = tmp_path / "notes.md"
    fake.add_document(str(notes), ["# Notes", "The boiler is serviced every spring."])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    return notes, pane


def test_it_lists_the_sources_and_shows_a_text_passage(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    notes, pane = notes_pane(qtbot, fake, tmp_path)
    cites = [
        citation(1, str(notes), 1, "# Notes"),
        citation(3, str(notes), 2, "The boiler is serviced every spring.", source="matched"),
    ]
    pane.set_citations(cites)
    assert pane.list.count() == 2 and pane.list.item(1).text().startswith("[3] notes.md  p. 2")
    assert "matched by Docent" in pane.list.item(1).text()
    assert "did not cite" in pane.list.item(1).toolTip()
    assert "matched" not in pane.list.item(0).text()
    # another cited file of the same name is told apart by its folder (QA, session 29)
    twin = tmp_path / "archive" / "notes.md"
    pane.set_citations([*cites, citation(4, str(twin), 1, "# Notes")])
    assert pane.list.item(0).text().startswith(f"[1] {tmp_path.name}/notes.md  p. 1")
    assert pane.list.item(2).text().startswith("[4] archive/notes.md  p. 1")
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        assert pane.select(1)
    assert pane.header.text().startswith(f"{tmp_path.name}/notes.md")  # as the list names it
    pane.set_citations(cites)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000) as shown:
        assert pane.select(3)
    assert shown.args == [str(notes), 2]
    assert pane.stack.currentIndex() == TEXT
    assert pane.text_view.highlighted_text().startswith("The boiler is serviced")
    assert pane.header.text() == "notes.md — p. 2"
    assert not pane.prev_button.isVisibleTo(pane), "page buttons shown for a text file"


def test_an_unknown_number_or_a_missing_text_is_said(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.set_citations([citation(1, str(tmp_path / "gone.txt"))])
    assert not pane.select(7)
    assert Message("info", "Citation [7] is not among this answer's sources.") in posted
    pane.select(1)  # not in the library: the text cannot be loaded
    qtbot.waitUntil(lambda: "gone.txt" in pane.note.text(), timeout=10_000)
    assert pane.stack.currentIndex() == PLACEHOLDER


def test_page_labels() -> None:
    assert page_label(citation(1, "/d/a.pdf", 4)) == "p. 4"
    c = citation(1, "/d/a.pdf", 4)
    from dataclasses import replace

    assert page_label(replace(c, page_end=6)) == "pp. 4–6"


def two_pages(qtbot: Any, fake: FakeEngine, tmp_path: Path) -> tuple[Path, CitationPane]:
    """A scanned two-page PDF ("Page one", "Page two") and a pane shown to open it."""
    from scan_files import page_image, save_scan

    pdf = save_scan(tmp_path / "two.pdf", [page_image(["Page one"]), page_image(["Page two"])])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    return pdf, pane


def test_the_heading_names_the_page_shown(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    pdf, pane = two_pages(qtbot, fake, tmp_path)
    pane.resize(560, 700)
    pane.set_citations([citation(1, str(pdf), 1, "Page one")])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.header.text() == "two.pdf — p. 1"
    # the page shown, of how many, and the zoom: in the toolbar, with room to be read
    label = pane.zoom_label
    full = label.full_text()
    assert full.startswith("page 1 of 2 · ") and full.endswith("%")
    qtbot.waitUntil(lambda: label.text() == full, timeout=5_000)
    assert label.width() >= label.fontMetrics().horizontalAdvance(full)
    # at a 1024-pixel window's pane width it gives way to a shorter form, whole, not cut
    # mid-word ("page 1 o": seen under Xvfb); the full one is in its tooltip
    pane.resize(330, 700)
    shorter = ("1/2 · " + full.rsplit(" · ", 1)[1], "1/2")
    qtbot.waitUntil(lambda: label.text() in shorter, timeout=5_000)
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())
    assert full in label.toolTip()
    pane.resize(560, 700)
    qtbot.waitUntil(lambda: label.text() == full, timeout=5_000)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000) as shown:
        pane.next_button.click()
    assert shown.args == [str(pdf), 2]
    assert pane.header.text() == "two.pdf — p. 2 (the passage is on p. 1)"
    assert pane.toolbar.isVisibleTo(pane)
    pane.set_citations([])  # a new conversation, or an answer without sources
    assert pane.stack.currentIndex() == PLACEHOLDER and pane.current is None
    assert pane.header.text().startswith("Click a citation") and not pane.toolbar.isVisibleTo(pane)


def test_a_passage_over_two_pages_opens_on_the_page_its_cited_part_is_on(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    from dataclasses import replace

    pdf, pane = two_pages(qtbot, fake, tmp_path)
    spans = replace(citation(1, str(pdf), 1, "Page one\nPage two"), page_end=2)
    pane.set_citations([replace(spans, focus_page=2), replace(spans, n=2)])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000) as shown:
        pane.select(1)
    assert shown.args == [str(pdf), 2]
    assert pane.header.text() == "two.pdf — pp. 1–2"
    with qtbot.waitSignal(pane.page_shown, timeout=10_000) as shown:
        pane.select(2)  # no cited part known: its first page
    assert shown.args == [str(pdf), 1]


def test_a_long_file_name_in_the_heading_is_elided_not_cut_and_never_widens_the_pane(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    from scan_files import page_image, save_scan

    name = "quarterly-report-finance-department-2023-with-every-appendix-final-v2.pdf"
    pdf = save_scan(tmp_path / name, [page_image(["Page one"]), page_image(["Page two"])])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.resize(300, 600)  # the Sources pane at 1024x700
    pane.show()
    qtbot.waitExposed(pane)
    short = save_scan(tmp_path / "a.pdf", [page_image(["Page one"])])
    pane.set_citations([citation(1, str(short), 1, "Page one"), citation(2, str(pdf), 1)])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    narrow = pane.minimumSizeHint().width()  # with the page's toolbar
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(2)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.next_button.click()
    head = pane.header
    lines = head.text().split("\n")
    room = head.contentsRect().width()
    assert len(lines) == 2, lines
    assert all(head.fontMetrics().horizontalAdvance(line) <= room for line in lines), lines
    # the name keeps its start and the end that tells it from its siblings; the place is whole
    assert "…" in lines[0] and lines[0].startswith("quarterly") and lines[0].endswith("v2.pdf")
    assert lines[1] == "p. 2 (the passage is on p. 1)"
    assert name in head.toolTip() and "p. 2 (the passage is on p. 1)" in head.toolTip()
    assert pane.minimumSizeHint().width() <= narrow, "the name widened the pane"
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.resize(1400, 600)  # room enough (the page is re-fitted to the width)
    assert head.text() == f"{name} — p. 2 (the passage is on p. 1)"


def test_the_same_sources_again_keep_the_page_other_ones_clear_it(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    from scan_files import page_image, save_scan

    pdf = save_scan(tmp_path / "one.pdf", [page_image(["Page one"])])
    other = save_scan(tmp_path / "other.pdf", [page_image(["Page one"])])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    cites = [citation(1, str(other), 1, "Page one"), citation(2, str(pdf), 1, "Page one")]
    pane.set_citations(cites)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(2)
    pane.set_citations(list(cites))  # the same answer's sources again
    assert pane.current == cites[1] and pane.list.currentRow() == 1
    assert pane.header.text() == "one.pdf — p. 1"
    pane.set_citations([citation(1, str(other), 1, "Page one")])  # another answer's
    assert pane.stack.currentIndex() == PLACEHOLDER and pane.current is None
    assert pane.list.currentRow() == -1 and pane.header.text().startswith("Click a citation")


def test_a_text_files_passage_after_emoji_is_lit_where_it_is(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None
) -> None:
    """Qt counts an emoji as two places, Python as one: each emoji before the passage moved
    its highlight one place earlier (review: blank lines and "…ced every spr" lit)."""
    notes = tmp_path / "README.md"
    fake.add_document(str(notes), ["# 🚀 Quick start 🎉🎉\n\nThe boiler is serviced every spring."])
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations([citation(1, str(notes), 1, "The boiler is serviced every spring.")])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.text_view.highlighted_text() == "The boiler is serviced every spring"


def test_a_pdf_changed_and_re_indexed_is_rendered_anew(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    """The render cache knew a page by its path: a PDF edited above the passage, then
    cited again, showed the old page, lit where the passage had been (review). The
    window's DocumentChanged makes the pane forget the path's pages."""
    from docent.core.api import DocumentChanged, Job, JobKind, Progress
    from pdf_files import text_pdf

    passage = "The boiler is serviced every spring by the landlord."
    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(text_pdf([["Heating", passage]]))
    rec = fake.add_document(str(pdf), ["Heating\n" + passage])
    window = make_window(fake)
    pane = window.citations
    pane.set_citations([citation(1, str(pdf), 1, passage)])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.last_render is not None
    old_top = pane.last_render.rects[0].top()
    pdf.write_bytes(text_pdf([["Heating", *[f"New safety note {i}." for i in range(20)], passage]]))
    job = Job(JobKind.INDEX, [str(pdf)], "watch")
    fake.emit(DocumentChanged(job, Progress("ready", 1, 1, str(pdf), rec.doc_id), rec))
    qtbot.waitUntil(lambda: not any(k[0] == str(pdf) for k in pane._cache), timeout=10_000)
    pane.set_citations([])
    pane.set_citations([citation(1, str(pdf), 1, passage)])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    assert pane.last_render.rects[0].top() > old_top + 50  # the passage moved down


def test_a_page_rendered_while_its_pdf_changed_is_not_kept_for_later(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """A render begun before the file changed and done after the pane forgot the file's
    pages was cached all the same, so the next click showed the old page (a busy CI run
    of the test above: the forgotten path came back into the cache). It is rendered again
    from the file as it is, and that page is shown and kept (review)."""
    from pdf_files import text_pdf

    passage = "The boiler is serviced every spring by the landlord."
    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(text_pdf([["Heating", passage]]))
    fake.add_document(str(pdf), ["Heating\n" + passage])
    gate, entered = hold(monkeypatch, fake, "document")  # the render worker asks it
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    pane.set_citations([citation(1, str(pdf), 1, passage)])
    pane.select(1)
    qtbot.waitUntil(entered.is_set, timeout=5_000)
    asked: list[str] = []
    held = fake.document
    monkeypatch.setattr(fake, "document", lambda doc_id: asked.append(doc_id) or held(doc_id))
    pane.forget(str(pdf))  # the file changed while its page was rendering
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        gate.set()
    assert len(asked) == 1  # the stale render was not shown: the page was rendered again
    (kept,) = [r for k, r in pane._cache.items() if k[0] == str(pdf)]
    assert kept is pane.last_render


def test_a_zoom_or_resize_before_the_first_page_comes_is_kept(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """The toolbar is live while the first page renders: a zoom then was lost (the page
    came at the fit zoom, and the label disagreed with the next step), and so was a resize
    (the page stayed at the old width) (review)."""
    from pdf_files import text_pdf

    pdf = tmp_path / "long.pdf"
    lines = [f"Filler line number {i} of the page." for i in range(49)]
    pdf.write_bytes(text_pdf([[*lines, "The passage that is cited sits last."], ["Two."]]))
    gate, entered = hold(monkeypatch, fake, "document")  # the render worker asks it
    pane = CitationPane(fake)
    qtbot.addWidget(pane)
    pane.resize(400, 600)
    pane.show()
    qtbot.waitExposed(pane)
    pane.set_citations([citation(1, str(pdf), 1, "The passage that is cited")])
    pane.select(1)
    qtbot.waitUntil(entered.is_set, timeout=5_000)
    pane.resize(1100, 600)
    qtbot.waitUntil(lambda: not pane._refit.isActive(), timeout=3_000)
    gate.set()
    qtbot.waitUntil(lambda: pane.page_label.width() > 800, timeout=10_000)
    entered.clear()
    gate.clear()
    pane.go_page(2)
    qtbot.waitUntil(entered.is_set, timeout=5_000)
    pane.zoom_in.click()
    gate.set()
    qtbot.waitUntil(
        lambda: pane.last_render is not None and pane.last_render.zoom == pane.zoom,
        timeout=10_000,
    )


def test_open_in_viewer_starts_the_default_viewer_at_the_page_shown(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """A desktop whose default PDF viewer is "evince" (a script that writes down how it
    was started): Open in viewer starts it at the page the pane shows, not the first."""
    from docent.gui import viewers
    from docent.gui.viewers import supported_platform

    if not supported_platform():
        pytest.skip("freedesktop.org associations are read on Linux and the BSDs only")
    pdf, pane = two_pages(qtbot, fake, tmp_path)
    desk = tmp_path / "desk"
    (desk / "bin").mkdir(parents=True)
    (desk / "share/applications").mkdir(parents=True)
    written = desk / "argv.txt"
    viewer = desk / "bin" / "evince"
    viewer.write_text(
        f"#!/bin/sh\nprintf '%s\\n' \"$@\" > '{written}.part'\nmv '{written}.part' '{written}'\n"
    )
    viewer.chmod(0o755)
    (desk / "share/applications/org.gnome.Evince.desktop").write_text(
        "[Desktop Entry]\nName=Document Viewer\nExec=evince %U\n"
    )
    (desk / "mimeapps.list").write_text(
        "[Default Applications]\napplication/pdf=org.gnome.Evince.desktop;\n"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(desk))
    monkeypatch.setenv("XDG_DATA_HOME", str(desk / "share"))
    for name in ("XDG_CONFIG_DIRS", "XDG_DATA_DIRS"):  # none of this machine's own
        monkeypatch.setenv(name, str(desk / "none"))
    monkeypatch.setenv("PATH", f"{desk / 'bin'}:/usr/bin:/bin")
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)

    pane.set_citations([citation(1, str(pdf), 1, "Page one")])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.next_button.click()
    pane.open_button.click()
    qtbot.waitUntil(written.exists, timeout=10_000)
    assert written.read_text().splitlines() == ["--page-index=2", str(pdf)]
    assert opened == []  # started at the page, not opened as any file

    # a viewer that fails as it starts opened nothing: the file opens as any file does
    # (watched for long enough that a busy machine's slow start cannot pass the window)
    monkeypatch.setattr(viewers, "EARLY_EXIT_SECONDS", 60.0)
    viewer.write_text("#!/bin/sh\necho 'cannot open display' >&2\nexit 1\n")
    pane.open_button.click()
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    assert opened == [QUrl.fromLocalFile(str(pdf))]

    # no viewer known to take a page: the file opens as any file does
    opened.clear()
    (desk / "mimeapps.list").unlink()
    pane.open_button.click()
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    assert opened == [QUrl.fromLocalFile(str(pdf))]


def test_open_in_viewer_opens_a_text_file_as_any_file(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    notes, pane = notes_pane(qtbot, fake, tmp_path)
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    pane.set_citations([citation(1, str(notes), 2, "The boiler is serviced every spring.")])
    with qtbot.waitSignal(pane.page_shown, timeout=10_000):
        pane.select(1)
    pane.open_button.click()
    assert opened == [QUrl.fromLocalFile(str(notes))]


def test_a_document_of_named_parts_shows_each_name_where_it_begins(
    qtbot: Any, fake: FakeEngine, tmp_path: Path, drain: None, monkeypatch: Any
) -> None:
    """QA, session 30: a workbook's "Staff" rows ran on from its "Budget" rows, no sheet
    named between them, and each block's header row looked like a stray row."""
    from docent.core.models import ExtractedDocument, Page
    from docent.gui.text_passage import load_passage

    ledger = tmp_path / "ledger.xlsx"
    rec = fake.add_document(str(ledger), ["Item: Paint | Cost: 40", "Name: Ada | Role: Clerk"])
    labelled = ExtractedDocument(
        str(ledger),
        "xlsx",
        [
            Page(1, "Item | Cost\nItem: Paint | Cost: 40", label="Budget rows 1-2"),
            Page(2, "Name | Role\nName: Ada | Role: Clerk", label="Staff rows 1-2"),
        ],
        page_unit="rows",
    )
    monkeypatch.setattr(fake, "extracted", lambda r: labelled)
    part = load_passage(fake, citation(1, str(ledger), 2, "Name: Ada | Role: Clerk"))
    assert part.text.split("\n") == [
        "── Budget rows 1-2 ──",
        "Item | Cost",
        "Item: Paint | Cost: 40",
        "── Staff rows 1-2 ──",
        "Name | Role",
        "Name: Ada | Role: Clerk",
    ]
    ((start, length),) = part.spans
    assert part.text[start : start + length] == "Name: Ada | Role: Clerk"
    # a section whose text opens with its own heading is named once (review s30)
    notes = ExtractedDocument(
        str(ledger), "html", [Page(1, "## Tomatoes\nSun and water.", label="§ Tomatoes")]
    )
    monkeypatch.setattr(fake, "extracted", lambda r: notes)
    part = load_passage(fake, citation(1, str(ledger), 1, "Sun and water."))
    assert part.text == "## Tomatoes\nSun and water."
    assert rec.doc_id


def test_a_file_no_application_opens_says_what_to_do(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said only "No application opened x.pdf" (QA, session 31)."""
    from docent.gui.messages import open_file

    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    posted += bridge().attach()  # as a window does: messages are held until one listens
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: False))
    open_file("/docs/manual.pdf")
    (note,) = [m for m in posted if "manual.pdf" in m.text]
    assert note.text.startswith("No application opened manual.pdf: install one")
    assert "default" in note.text
