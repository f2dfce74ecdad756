"""Dropping a folder on the window indexes it: rows, progress, final states, reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_helpers import ENCRYPTED_PDF, INDEX_TIMEOUT_MS, SMALL_PDFS, drop

from docent.gui.library_rows import ROW_ROLE
from docent.gui.messages import bridge


def test_dropped_folder_is_indexed_with_progress_and_reasons(
    qtbot: Any, make_engine: Any, make_window: Any, library_dir: Path
) -> None:
    window = make_window(make_engine())
    lib = window.library
    progress: list[float] = []
    lib.controller.overall_progressed.connect(lambda f, label: progress.append(f))
    rows_seen: list[int] = []
    lib.controller.files_found.connect(lambda _: rows_seen.append(lib.model.count))
    indexing_rows: list[tuple[str, str, str]] = []  # (name, state text, pages cell)

    def on_doc(p: Any) -> None:
        row = lib.model.row_for(p.path)
        if row is not None and row.state == "indexing" and row.phase == "embedding":
            lib.model.flush()  # the view's cells, as they are once merged
            i = next(
                r for r in range(lib.model.rowCount()) if lib.model.item(r).data(ROW_ROLE) is row
            )
            cells = [lib.model.index(i, c).data() for c in range(lib.model.columnCount())]
            indexing_rows.append((row.file_name, cells[3], cells[1]))

    lib.controller.document_progressed.connect(on_doc)
    posted: list[str] = []  # what was said, whether or not its note timed out since
    bridge().message_posted.connect(lambda m: posted.append(m.text))

    with qtbot.waitSignal(lib.controller.run_finished, timeout=INDEX_TIMEOUT_MS) as run:
        drop(window, [library_dir])
        assert lib.progress_row.isVisibleTo(lib), "no progress shown while indexing"

    assert run.args[0] is not None and not run.args[0].cancelled
    assert rows_seen == [4], "rows for the four supported files appear before indexing ends"
    assert any(0 < f < 1 for f in progress), f"progress never moved: {progress}"
    assert progress[-1] == 1.0
    assert indexing_rows, "no row was seen while its chunks were embedded"
    for name, state, pages in indexing_rows:  # the table cells, as the view reads them
        assert state.startswith("indexing "), (name, state)
        assert pages.isdigit() and int(pages) > 0, f"{name} showed no page count while indexing"
    rows = {r.file_name: r for r in lib.model.rows()}
    assert set(rows) == {*SMALL_PDFS, ENCRYPTED_PDF}
    for name in SMALL_PDFS:
        assert rows[name].state == "ready", rows[name].state_text
        assert rows[name].chunks > 0 and rows[name].pages > 0
    failed = rows[ENCRYPTED_PDF]
    assert failed.state == "failed"
    assert "password" in failed.state_text.lower()
    texts = " ".join(posted)
    assert "minutes.doc" in texts, "the unsupported file was not reported"
    assert "could not be indexed" in texts
    assert not lib.progress_row.isVisibleTo(lib)

    lib.filter_edit.setText("simh")
    assert lib.proxy.rowCount() == 2
    lib.filter_edit.setText("ctss")
    assert lib.proxy.rowCount() == 1


def test_reindex_and_remove_from_context_menu(
    qtbot: Any,
    make_engine: Any,
    make_window: Any,
    samples_dir: Path,
    tmp_path: Path,
    monkeypatch: Any,
) -> None:
    pdf = tmp_path / SMALL_PDFS[0]
    pdf.write_bytes((samples_dir / SMALL_PDFS[0]).read_bytes())
    engine = make_engine()
    engine.index([pdf])
    window = make_window(engine)
    lib = window.library
    with qtbot.waitSignal(lib.controller.documents_changed):
        pass  # the window's first read of the library
    (row,) = lib.model.rows()
    assert row.state == "ready"
    menu = lib.build_menu([row])
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert {
        "Ask about this document",
        "Summarize…",
        "Open file",
        "Show extracted text",
        "Re-index",
        "Remove from library",
    } <= set(actions)

    with qtbot.waitSignal(lib.ask_about_requested) as asked:
        actions["Ask about this document"].trigger()
    assert asked.args == [[str(pdf)]]
    assert window.chat.scope == [str(pdf)]
    assert SMALL_PDFS[0] in window.chat.scope_label.text()

    with qtbot.waitSignal(lib.controller.run_finished, timeout=INDEX_TIMEOUT_MS) as run:
        actions["Re-index"].trigger()
    assert run.args[0].indexed == [str(pdf)], "Re-index rebuilt nothing"

    monkeypatch.setattr("docent.gui.library_pane.ask", lambda *a, **k: True)
    with qtbot.waitSignal(
        lib.controller.documents_changed, check_params_cb=lambda read: read.records == []
    ):
        actions["Remove from library"].trigger()
    assert lib.model.count == 0
    qtbot.waitUntil(lambda: lib.model.rowCount() == 0, timeout=5000)  # the view follows


def test_cancel_stops_the_run_and_keeps_what_finished(
    qtbot: Any, make_engine: Any, make_window: Any, library_dir: Path
) -> None:
    window = make_window(make_engine())
    lib = window.library

    def cancel_when_embedding(p: Any) -> None:
        if p.phase == "embedding":
            lib.cancel_button.click()

    lib.controller.document_progressed.connect(cancel_when_embedding)
    with qtbot.waitSignal(lib.controller.run_finished, timeout=INDEX_TIMEOUT_MS) as run:
        lib.add_paths([str(library_dir)])
    report = run.args[0]
    assert report.cancelled
    states = {r.file_name: r.state_text for r in lib.model.rows()}
    assert "cancelled: not indexed" in states.values(), states
    qtbot.waitUntil(lambda: lib.resume_row.isVisibleTo(lib), timeout=5000)  # at the next merge
    assert not any(s.startswith(("indexing", "reading")) for s in states.values()), states
    assert any("cancelled" in t for t in window.notifications.texts())
