"""The library pane against a fake engine: rows follow the queue's events; the menu acts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine
from PySide6.QtCore import Qt

from docent.core.api import JobKind
from docent.gui.library_pane import LibraryPane
from docent.gui.library_rows import Row, _state_tip


@pytest.fixture
def pane(qtbot: Any, fake: FakeEngine, drain: None) -> Iterator[LibraryPane]:
    lib = LibraryPane(fake)
    qtbot.addWidget(lib)
    lib.show()
    yield lib
    lib.controller.detach()


def texts(tmp_path: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        out.append(tmp_path / name)
        out[-1].write_text(f"Text of {name}.\n")
    return out


def test_rows_go_from_queued_through_indexing_to_ready(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    a, b = texts(tmp_path, "a.txt", "b.txt")
    fake.hold_jobs.set()
    seen: list[tuple[str, str]] = []
    pane.controller.document_progressed.connect(
        lambda p: seen.append((Path(p.path).name, pane.model.row_for(p.path).state_text))
    )
    pane.add_paths([str(a), str(b)])
    assert pane.progress_row.isVisibleTo(pane)
    assert pane.progress_label.full_text() == "Preparing a.txt and 1 more…"
    assert fake.job_paused.wait(10)
    qtbot.waitUntil(lambda: ("a.txt", "indexing 100%") in seen, timeout=10_000)
    assert ("a.txt", "reading…") in seen and ("a.txt", "indexing 50%") in seen
    assert pane.model.row_for(str(b)).state == "queued"
    with qtbot.waitSignal(pane.controller.run_finished, timeout=10_000):
        fake.release_jobs.set()
    qtbot.waitUntil(lambda: not pane.controller._refresh_pending, timeout=10_000)
    assert {r.file_name: r.state for r in pane.model.rows()} == {"a.txt": "ready", "b.txt": "ready"}
    assert not pane.progress_row.isVisibleTo(pane) and not pane.empty_hint.isVisibleTo(pane)


def test_a_failed_document_shows_why(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    (bad,) = texts(tmp_path, "bad.txt")
    fake.failing[str(bad)] = "bad.txt is encrypted: it needs a password."
    with qtbot.waitSignal(pane.controller.run_finished, timeout=10_000):
        pane.add_paths([str(bad)])
    row = pane.model.row_for(str(bad))
    assert row is not None and row.state == "failed"
    assert row.state_text == "failed: encrypted: it needs a password."
    # not indexed, so nothing to ask about: a double-click, as Enter, does not scope the
    # chat to it (review: it did)
    asked: list[list[str]] = []
    pane.ask_about_requested.connect(asked.append)
    rect = pane.table.visualRect(pane.proxy.index(0, 0))
    with qtbot.waitSignal(pane.table.doubleClicked, timeout=2000):
        qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert asked == []


def test_cancel_leaves_unfinished_rows_cancelled_with_a_resume(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    a, b, c = texts(tmp_path, "a.txt", "b.txt", "c.txt")
    fake.hold_jobs.set()
    pane.add_paths([str(a), str(b), str(c)])
    assert fake.job_paused.wait(10)
    with qtbot.waitSignal(pane.controller.run_finished, timeout=10_000) as end:
        pane.cancel_button.click()
        fake.release_jobs.set()
    assert end.args[0].cancelled
    # the catalog's read after the run has the last word: nothing vanishes
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        pane.refresh()
    states = {r.file_name: r.state_text for r in pane.model.rows()}
    assert states == {n: "cancelled: not indexed" for n in ("a.txt", "b.txt", "c.txt")}, states
    qtbot.waitUntil(lambda: pane.resume_row.isVisibleTo(pane), timeout=5000)  # next merge
    assert pane.resume_label.text().startswith("3 documents cancelled")
    fake.hold_jobs.clear()
    with qtbot.waitSignal(pane.controller.run_finished, timeout=10_000) as resumed:
        pane.resume_button.click()
    assert sorted(Path(p).name for p in resumed.args[0].indexed) == ["a.txt", "b.txt", "c.txt"]
    qtbot.waitUntil(lambda: not pane.resume_row.isVisibleTo(pane), timeout=10_000)


def test_the_first_read_fills_the_table_and_the_filter_narrows_it(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane
) -> None:
    for name in ("alpha.pdf", "beta.pdf", "gamma.txt"):
        fake.add_document(f"/docs/{name}")
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        pane.refresh()
    assert pane.model.rowCount() == 3 and not pane.empty_hint.isVisibleTo(pane)
    pane.filter_edit.setText("ALPHA")
    assert pane.proxy.rowCount() == 1


def alpha_row(qtbot: Any, fake: FakeEngine, pane: LibraryPane) -> Row:
    """The row of a library of one document, alpha.pdf, once the pane has read it."""
    fake.add_document("/docs/alpha.pdf", ["The alpha text."])
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        pane.refresh()
    (row,) = pane.model.rows()
    return row


def test_the_menu_asks_summarizes_reindexes_and_removes(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, monkeypatch: Any
) -> None:
    row = alpha_row(qtbot, fake, pane)
    menu = pane.build_menu([row])
    actions = {a.text(): a for a in menu.actions() if a.text()}
    with qtbot.waitSignal(pane.ask_about_requested) as asked:
        actions["Ask about this document"].trigger()
    assert asked.args == [["/docs/alpha.pdf"]]
    with qtbot.waitSignal(pane.summarize_requested) as summ:
        actions["Summarize…"].trigger()
    assert summ.args == ["/docs/alpha.pdf"]

    fake.hold_jobs.set()  # the re-index stays queued in the engine
    actions["Re-index"].trigger()
    assert [(j.kind, j.paths, j.force) for j in fake.submitted] == [
        (JobKind.INDEX, ["/docs/alpha.pdf"], True)
    ]
    fake.release_jobs.set()
    fake.wait_jobs()

    monkeypatch.setattr("docent.gui.library_pane.ask", lambda *a, **k: True)
    with qtbot.waitSignal(pane.controller.document_changed, timeout=10_000):
        actions["Remove from library"].trigger()
    assert pane.model.count == 0, "the removed row stayed until the next read"
    qtbot.waitUntil(lambda: pane.model.rowCount() == 0, timeout=5000)  # the view follows
    assert fake.submitted[-1].kind is JobKind.DROP


def test_a_removal_waiting_behind_a_run_shows_at_once(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, monkeypatch: Any
) -> None:
    """Queued behind indexing, the row stayed "ready" until the run ended."""
    row = alpha_row(qtbot, fake, pane)
    fake.hold_jobs.set()  # the removal waits in the engine
    monkeypatch.setattr("docent.gui.library_pane.ask", lambda *a, **k: True)
    actions = {a.text(): a for a in pane.build_menu([row]).actions() if a.text()}
    actions["Remove from library"].trigger()
    pane.model.flush()
    shown = pane.model.row_for("/docs/alpha.pdf")
    assert shown is not None and shown.state_text == "removing…"
    with qtbot.waitSignal(pane.controller.document_changed, timeout=10_000):
        fake.release_jobs.set()
    qtbot.waitUntil(lambda: pane.model.rowCount() == 0, timeout=5000)


def test_removing_a_file_of_a_watched_folder_says_it_stays_out(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, monkeypatch: Any, tmp_path: Path
) -> None:
    """It stays out though its folder is swept (Catalog.leave_out): the question says so,
    and how to bring it back."""
    watched, other = tmp_path / "watched", tmp_path / "other"
    watched.mkdir()
    fake.add_document(str(watched / "alpha.pdf"), ["The alpha text."])
    fake.add_document(str(other / "beta.pdf"), ["The beta text."])
    fake.watch(watched)
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        pane.refresh()
    pane.watched.refresh()
    qtbot.waitUntil(lambda: pane.watched.folders() == [str(watched)], timeout=5000)
    asked: list[str] = []

    def answer(_parent: object, _title: str, question: str, _button: str) -> bool:
        asked.append(question)
        return False

    monkeypatch.setattr("docent.gui.library_pane.ask", answer)
    rows = {Path(r.path).name: r for r in pane.model.rows()}
    for name in ("beta.pdf", "alpha.pdf"):
        actions = {a.text(): a for a in pane.build_menu([rows[name]]).actions() if a.text()}
        actions["Remove from library"].trigger()
    beta, alpha = asked
    assert "watched folder" not in beta
    # one file: "it" (QA, session 32)
    assert "watched folder holds it: it stays out" in alpha and "until you add it again" in alpha


def test_show_extracted_text_opens_a_dialog(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane
) -> None:
    from docent.gui.text_dialog import TextDialog

    fake.add_document("/docs/alpha.pdf", ["The alpha text.", "Page two."])
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        pane.refresh()
    (row,) = pane.model.rows()
    menu = pane.build_menu([row])
    show = next(a for a in menu.actions() if a.text() == "Show extracted text")
    show.trigger()
    qtbot.waitUntil(lambda: bool(pane.findChildren(TextDialog)), timeout=10_000)
    (dialog,) = pane.findChildren(TextDialog)
    assert "Page two." in dialog.view.toPlainText()
    dialog.close()


def test_a_long_extracted_text_is_shown_in_part_and_copied_whole(qtbot: Any) -> None:
    """Review 82: 10 MB of a log's text laid out at once held the window's thread 0.5 s.
    The dialog holds the first SHOWN_CHARS and says so; Copy gives all of it."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QDialogButtonBox, QWidget

    from docent.gui.text_dialog import TextDialog
    from docent.gui.text_passage import SHOWN_CHARS

    text = "".join(f"line {i} of the service log\n" for i in range(30_000))
    assert len(text) > SHOWN_CHARS
    parent = QWidget()
    qtbot.addWidget(parent)
    dialog = TextDialog("Extracted text", text, parent)
    view = dialog.view.toPlainText()
    assert view.startswith(text[:1000]) and len(view) < SHOWN_CHARS + 200
    assert view.endswith(
        f"the first {SHOWN_CHARS:,} of {len(text):,} characters are shown; Copy copies all of it]"
    )
    copy = next(b for b in dialog.findChild(QDialogButtonBox).buttons() if b.text() == "Copy")
    copy.click()
    assert QGuiApplication.clipboard().text() == text
    short = TextDialog("Extracted text", "Page two.", parent)
    assert short.view.toPlainText() == "Page two."


def test_a_wide_pane_shows_cancelled_not_indexed_whole(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    from docent.gui.library_pane import NARROW, STATE_WIDE_WORDS
    from docent.gui.library_rows import STATE

    pane.resize(NARROW + 40, 600)  # the library's share of a 1600-pixel window
    qtbot.waitUntil(lambda: pane.width() == NARROW + 40, timeout=10_000)
    header, metrics = pane.table.horizontalHeader(), pane.table.fontMetrics()
    assert header.sectionSize(STATE) >= metrics.horizontalAdvance(STATE_WIDE_WORDS) + 12
    assert all(not pane.table.isColumnHidden(c) for c in range(5))


def test_removing_a_queued_file_keeps_it_out_of_the_library(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path, monkeypatch: Any
) -> None:
    """A file still waiting in the run: Remove did nothing, and it was indexed (review)."""
    folder = tmp_path / "lib"
    folder.mkdir()
    texts(folder, "a.txt", "b.txt", "c.txt")
    fake.hold_jobs.set()  # the run pauses after its first document
    pane.add_paths([str(folder)])
    assert fake.job_paused.wait(10)
    victim = str(folder / "c.txt")
    qtbot.waitUntil(
        lambda: (r := pane.model.row_for(victim)) is not None and r.state == "queued",
        timeout=10_000,
    )
    monkeypatch.setattr("docent.gui.library_pane.ask", lambda *a, **k: True)
    row = pane.model.row_for(victim)
    assert row is not None
    pane._remove([row])
    with qtbot.waitSignal(pane.controller.run_finished, timeout=10_000):
        fake.release_jobs.set()
    fake.wait_jobs()
    assert victim not in fake.records
    assert str(folder / "a.txt") in fake.records


def test_rows_being_removed_say_so_until_the_removal_runs(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path, monkeypatch: Any
) -> None:
    """A removal waiting behind two runs: the catalog read after the first put its row
    back to "ready" (review)."""
    old = fake.add_document(str(tmp_path / "old.txt"))
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.txt").write_text("words")
    gate = threading.Event()
    index = fake._index

    def gated(job: Any, report: Any) -> None:  # the second run is a long one
        if job.paths[0].endswith("/b"):
            gate.wait(10)
        index(job, report)

    monkeypatch.setattr(fake, "_index", gated)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.model.row_for(old.path) is not None, timeout=10_000)
    fake.hold_jobs.set()
    pane.add_paths([str(tmp_path / "a")])
    assert fake.job_paused.wait(10)
    pane.add_paths([str(tmp_path / "b")])
    monkeypatch.setattr("docent.gui.library_pane.ask", lambda *a, **k: True)
    row = pane.model.row_for(old.path)
    assert row is not None
    pane._remove([row])
    refreshed: list[object] = []
    pane.controller.documents_changed.connect(refreshed.append)
    try:
        fake.release_jobs.set()  # the first run ends: the catalog is read again
        qtbot.waitUntil(lambda: bool(refreshed), timeout=10_000)
        assert old.path in fake.records  # the removal has not run yet
        now = pane.model.row_for(old.path)
        assert now is not None and now.state == "removing"
    finally:
        gate.set()
    qtbot.waitUntil(lambda: pane.model.row_for(old.path) is None, timeout=10_000)


def test_the_pages_column_counts_a_document_in_its_own_units() -> None:
    """A 9,000-line log showed "150" under Pages: its 60-line blocks, which no one calls
    pages (seen in a session-21 screenshot); `docent list` says "150 parts" since h20."""
    from docent.gui.library_rows import PAGES, cells

    def shown_pages(unit: str, n: int) -> object:
        return cells(Row("/d/f", "f", state="ready", pages=n, page_unit=unit))[PAGES].get(
            Qt.ItemDataRole.DisplayRole
        )

    assert shown_pages("page", 150) == "150"
    assert shown_pages("lines:60", 150) == "150 parts"
    assert shown_pages("slide", 12) == "12 slides"
    assert shown_pages("section", 3) == "3 sect."
    assert shown_pages("page", 0) == ""
    # one of them: "1 parts" was shown for a short text file (QA, session 26)
    assert shown_pages("lines:60", 1) == "1 part"
    assert shown_pages("slide", 1) == "1 slide"


def test_a_watched_file_queued_behind_a_run_is_listed_and_waits_its_turn(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    """The queue tells a watched folder's files queued behind the running job (QA,
    session 29: a second file dropped into the folder was not listed until its turn); the
    run's end does not call them cancelled."""
    from docent.core.api import (
        DocumentProgressed,
        FilesFound,
        IndexReport,
        Job,
        JobFinished,
        JobStarted,
        Progress,
    )

    first, second = texts(tmp_path, "first.txt", "second.txt")
    reading = Job(JobKind.INDEX, [str(first)], "watch", id=7)
    waiting = Job(JobKind.INDEX, [str(second)], "watch", id=8)
    with qtbot.waitSignal(pane.controller.run_started, timeout=10_000):
        fake.emit(JobStarted(reading))
        fake.emit(FilesFound(reading, [str(first)], [], []))
        fake.emit(DocumentProgressed(reading, Progress("extracting", 1, 1, str(first))))
    with qtbot.waitSignal(pane.controller.files_found, timeout=10_000, check_params_cb=of(waiting)):
        fake.emit(FilesFound(waiting, [str(second)], [], []))  # told while the first runs
    row = pane.model.row_for(str(second))
    assert row is not None and row.state == "queued"
    fake.add_document(str(first))
    with (
        qtbot.waitSignal(pane.controller.run_finished, timeout=10_000),
        qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000),
    ):
        fake.emit(JobFinished(reading, IndexReport(indexed=[str(first)])))
    # not "cancelled" at the run's end, nor dropped by the catalog read after it, though
    # the window shows no run now (review s30: it vanished until its turn)
    row = pane.model.row_for(str(second))
    assert row is not None and row.state == "queued", row and row.state_text
    sweep = Job(JobKind.SWEEP, [str(tmp_path)], "sweep", id=9)  # another job ahead of it
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000):
        fake.emit(JobStarted(sweep))
        fake.emit(JobFinished(sweep, IndexReport()))
    row = pane.model.row_for(str(second))
    assert row is not None and row.state == "queued"


def test_a_watched_file_gone_before_its_turn_leaves_the_list_when_its_job_ends(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    """Told while a user's run went on, then deleted (the queue empties its job): its
    "queued" row stayed until the user's run ended (review s30)."""
    from docent.core.api import FilesFound, IndexReport, Job, JobFinished, JobStarted

    a, x = texts(tmp_path, "a.txt", "x.txt")
    fake.hold_jobs.set()
    pane.add_paths([str(a)])
    assert fake.job_paused.wait(10)
    waiting = Job(JobKind.INDEX, [str(x)], "watch", id=99)
    # (not the user's run's FilesFound, which may still be on its way: flaky under load)
    with qtbot.waitSignal(pane.controller.files_found, timeout=10_000, check_params_cb=of(waiting)):
        fake.emit(FilesFound(waiting, [str(x)], [], []))
    assert pane.model.row_for(str(x)) is not None
    x.unlink()
    waiting.paths = []  # as IndexQueue._drop_pending_index leaves it
    with qtbot.waitSignal(pane.controller.told_ended, timeout=10_000):
        fake.emit(JobStarted(waiting))
        fake.emit(FilesFound(waiting, [], [], []))
        fake.emit(JobFinished(waiting, IndexReport()))
    assert pane.controller.busy and pane.model.row_for(str(x)) is None
    fake.release_jobs.set()


def test_a_ready_document_whose_file_is_gone_says_so(
    qtbot: Any, fake: FakeEngine, pane: LibraryPane, tmp_path: Path
) -> None:
    """QA-77: a file moved away outside the watched folders stayed "ready" in its row (and
    searchable, and cited), and Open file then failed. Its row says the file is gone; the
    check is made where the catalog is read, off the GUI thread."""
    here = tmp_path / "here.txt"
    here.write_text("Still here.\n")
    fake.add_document(str(here))
    fake.add_document(str(tmp_path / "moved-away.txt"))
    with qtbot.waitSignal(pane.controller.documents_changed, timeout=10_000) as read:
        pane.refresh()
    assert read.args[0].gone == {str(tmp_path / "moved-away.txt")}
    states = {r.file_name: r.state_text for r in pane.model.rows()}
    assert states == {"here.txt": "ready", "moved-away.txt": "ready · file gone"}
    row = pane.model.rows()[[r.file_name for r in pane.model.rows()].index("moved-away.txt")]
    assert "Its file is gone (moved or deleted?)" in _state_tip(row)


def of(job: Any) -> Any:
    """A check that a FilesFound signal is ``job``'s."""
    return lambda found: found.job is job
