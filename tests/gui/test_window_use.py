"""The main window as a person uses it: one model choice everywhere, Retry keeping the
sources, a focus chain Tab can walk, New conversation and the shortcuts' help."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import started
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableWidget

from docent.core.api import Health
from docent.gui.settings_dialog import SettingsDialog
from docent.gui.summary_dialog import SummaryDialog


def pick(window: Any, model: str) -> None:
    """Choose ``model`` in the chat's box as a user does (activated, not just set)."""
    combo = window.chat.model_combo
    i = combo.findText(model)
    assert i >= 0, f"{model} is not offered"
    combo.setCurrentIndex(i)
    combo.activated.emit(i)


def test_the_model_picked_in_the_chat_drives_every_label_and_action(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake.add_document("/docs/a.pdf")
    fake._settings = fake.settings.model_copy(update={"ollama_model": "llama3.2:3b"})
    fake.health = Health(True, ["smollm2:135m", "other:7b"], "Ollama is running (fake).")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    assert window.ollama_label.text() == "Ollama: llama3.2:3b not installed — quoting passages"
    assert chat.banner.isVisibleTo(chat) and "llama3.2:3b" in chat.banner_label.text()
    with qtbot.waitSignal(window.health_changed, timeout=10_000) as checked:
        pick(window, "smollm2:135m")
    assert checked.args[0].ok
    assert fake.settings.ollama_model == "smollm2:135m", "the choice did not reach the settings"
    assert fake.applied == [{"ollama_model": "smollm2:135m"}]
    assert window.ollama_label.text() == "Ollama: smollm2:135m"
    assert not chat.banner.isVisibleTo(chat), "the banner still speaks of the old model"
    # asking and summarizing use it
    fake.answers = [answer("Yes.", model="smollm2:135m")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("Is it used?")
    assert fake.asked[-1][2] == "smollm2:135m"
    window.summarize("/docs/a.pdf")
    (dialog,) = [d for d in window.dialogs if isinstance(d, SummaryDialog)]
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000):
        pass
    assert fake.summarize_calls[-1] == ("a.pdf", "smollm2:135m", False)
    assert "by smollm2:135m" in dialog.status.text()
    dialog.close()
    # and Settings shows the same value
    settings = window.open_settings()
    assert isinstance(settings, SettingsDialog)
    assert settings.model_combo.currentText() == "smollm2:135m"
    settings.reject()


def test_an_extractive_answer_with_ollama_back_offers_retry_and_keeps_the_sources(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake._settings = fake.settings.model_copy(update={"ollama_model": "fake-model"})
    fake.health = Health(False, [], "Ollama is not running at http://127.0.0.1:11434.")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    assert "Ollama is not running" in chat.banner_label.text()
    assert window.ollama_label.text() == "Ollama: not running — quoting passages"
    quoted = citation(1, "/d/vax.pdf", 4, "The page size is 65536 bytes.")
    fake.answers = [answer("> 65536 [1]", [quoted], mode="extractive")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("How big is a page?")
    assert window.citations.list.count() == 1
    fake.health = Health(True, ["fake-model"], "Ollama is running (fake).")
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        window.check_health()
    assert chat.banner.isVisibleTo(chat) and chat.retry_button.isVisibleTo(chat)
    assert "Retry" in chat.banner_label.text()
    fake.answers = [answer("12", [])]
    fake.hold_answer.set()
    with qtbot.waitSignal(chat.answer_started, timeout=10_000):
        chat.retry_button.click()
    assert fake.answer_paused.wait(10)
    assert window.citations.list.count() == 1, "Retry emptied the Sources pane"
    window.show_citation(1, 1)  # the earlier answer's chips still open their source
    assert window.citations.list.currentRow() == 0
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert window.citations.list.count() == 0 and not chat.banner.isVisibleTo(chat)
    with qtbot.waitSignal(chat.attempt_shown, timeout=10_000):
        chat.answer_bar.earlier_button.click()
    assert window.citations.list.count() == 1, "going back did not bring its sources"


def test_tab_walks_the_whole_window_and_leaves_the_library_table(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    for name in ("a.pdf", "b.pdf", "c.pdf"):
        fake.add_document(f"/docs/{name}")
    window = started(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 3, timeout=10_000)
    window.activateWindow()
    table = window.library.table
    table.setFocus()
    qtbot.waitUntil(table.hasFocus, timeout=10_000)
    visited = []
    for _ in range(60):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        w = QApplication.focusWidget()
        visited.append(w)
        if w is table:
            break
    assert visited[0] is not table, "Tab did not leave the library table"
    assert window.chat.input in visited and window.chat.send_button in visited
    i = visited.index(window.chat.input)
    assert visited[i + 1] is window.chat.send_button, "Tab from the question does not reach Ask"
    assert visited[-1] is table, "Tab never came round again (a trap)"
    unnamed = [
        f"{type(w).__name__} {w.objectName()}"
        for w in visited
        if not (w.accessibleName() or w.toolTip() or getattr(w, "text", lambda: "")())
    ]
    assert unnamed == [], "no name for a screen reader"
    assert window.library.filter_edit.toolTip()
    assert window.library.watched.add_button.toolTip()


def test_ctrl_n_starts_a_new_conversation_and_help_lists_the_keys(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    fake.answers = [answer("One [1].", [citation(1, "/d/a.pdf")])]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("first")
    assert window.citations.list.count() == 1
    assert window.new_chat_action.shortcut().toString() == "Ctrl+N"
    window.new_chat_action.trigger()
    assert window.chat.turns == [] and window.citations.list.count() == 0
    window.shortcuts_action.trigger()
    table = window.findChild(QTableWidget, "shortcuts")
    assert table is not None
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Ctrl+N"] == "New conversation"
    assert rows["Ctrl+Enter"].startswith("Ask the question")
    assert "Esc" in rows and rows["Ctrl+R"] == "Ask again"


def test_a_notification_floats_over_the_panes_without_moving_them(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.gui.messages import bridge

    window = started(qtbot, fake, make_window)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    before = window.splitter.geometry()
    bridge().error("Could not read x.pdf: it is damaged.")
    qtbot.waitUntil(lambda: window.notifications.isVisible(), timeout=10_000)
    assert window.splitter.geometry() == before, "a notification pushed the panes down"
    note = window.notifications.geometry()
    central = window.centralWidget().rect()
    assert central.contains(note) and note.height() > 0
    assert note.right() > central.width() * 0.6 and note.bottom() > central.height() * 0.6


def test_at_1024_by_700_the_empty_sources_pane_gives_way(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.gui.main_window import SOURCES_IDLE_WIDTH

    fake.add_document("/docs/a-rather-long-file-name-about-the-vax.pdf")
    window = make_window(fake)
    window.resize(1024, 700)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    window.fit_sources(False)
    lib, chat, src = window.splitter.sizes()
    assert src <= SOURCES_IDLE_WIDTH + 10, window.splitter.sizes()
    table = window.library.table
    shown = [c for c in range(5) if not table.isColumnHidden(c)]
    assert [table.model().headerData(c, Qt.Orientation.Horizontal) for c in shown][-2:] == [
        "State",
        "Indexed",
    ]
    header = table.horizontalHeader()
    assert header.sectionViewportPosition(shown[-1]) + header.sectionSize(shown[-1]) <= (
        table.viewport().width()
    ), "Indexed is off-screen"
    fake.answers = [answer("At dusk [1].", [citation(1, "/d/a.pdf")])]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("When?")
    assert window.splitter.sizes()[2] >= sum(window.splitter.sizes()) // 3 - 2
    # an answer without sources leaves the panes where they are (they jumped back and
    # forth with every abstention or stop)
    widened = window.splitter.sizes()
    fake.answers = [answer("Your documents do not say.", [])]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("Why?")
    assert window.citations.citations == []
    assert window.splitter.sizes() == widened
    window.chat.new_conversation()  # nothing to show again: room for the chat, as at start
    assert window.splitter.sizes()[2] <= SOURCES_IDLE_WIDTH + 10, window.splitter.sizes()


def test_long_page_and_zoom_text_never_widen_the_window_past_1024(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    window.resize(1024, 700)
    # the page toolbar is shown with a page (its buttons widen the Sources pane by design);
    # the panes' own hint is computed afresh from their widgets, while the window's is
    # cached by its layout until a posted request runs (it read 717 or 832 by the clock)
    window.citations.toolbar.setVisible(True)
    window.citations.zoom_label.setText("page 1 of 2 · 100%")
    QApplication.processEvents()
    before = window.splitter.minimumSizeHint().width()
    window.citations.zoom_label.setText("page 120 of 270 · 147% · a long label")
    window.chat.answer_bar.set_attempts(2, 3, can_retry=True)
    QApplication.processEvents()  # the layouts take the new texts in (posted requests)
    # the page toolbar (buttons, then the label that gives way) fits a narrow Sources pane
    assert window.citations.toolbar.minimumSizeHint().width() < 330
    assert window.splitter.minimumSizeHint().width() <= before + 20
    assert window.minimumSizeHint().width() < 1024
    assert window.width() == 1024


def test_at_1024_by_700_long_names_keep_the_end_that_tells_them_apart(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.gui.library_pane import STATE_WIDTH
    from docent.gui.library_rows import NAME, STATE

    names = [f"quarterly-report-finance-department-2023-final-v{i}.pdf" for i in (1, 2)]
    for name in names:
        fake.add_document(f"/docs/{name}")
    window = make_window(fake)
    window.resize(1024, 700)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    window.fit_sources(False)
    table = window.library.table
    qtbot.waitUntil(lambda: table.model().rowCount() == 2, timeout=10_000)
    room = table.horizontalHeader().sectionSize(NAME) - 12  # the cell's margins
    metrics = table.fontMetrics()
    shown = [metrics.elidedText(n, table.textElideMode(), room) for n in names]
    assert all("…" in s for s in shown), "the names are not long enough to test eliding"
    assert [s[-12:] for s in shown] == ["final-v1.pdf", "final-v2.pdf"], shown
    # the narrow pane's State keeps the room of its usual words, no more
    header = table.horizontalHeader()
    assert header.sectionSize(STATE) < STATE_WIDTH
    assert header.sectionSize(STATE) > metrics.horizontalAdvance("indexing 100 %")


def test_at_1024_by_700_a_cut_reason_or_name_is_whole_in_its_tooltip(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    from docent.gui.library_rows import NAME, STATE

    bad = tmp_path / "minutes-of-the-annual-general-meeting-of-the-lighthouse-society.txt"
    bad.write_text("x")
    why = f"{bad.name} is encrypted: it needs a password (ask who sent it for the password)."
    fake.failing[str(bad)] = why
    window = started(qtbot, fake, make_window)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    lib = window.library
    with qtbot.waitSignal(lib.controller.run_finished, timeout=10_000):
        lib.add_paths([str(bad)])
    qtbot.waitUntil(lambda: lib.model.row_for(str(bad)) is not None, timeout=10_000)
    qtbot.waitUntil(lambda: lib.model.row_for(str(bad)).state == "failed", timeout=10_000)
    table, model = lib.table, lib.table.model()
    (r,) = [r for r in range(model.rowCount()) if model.index(r, NAME).data() == bad.name]
    # the view's rows follow in merges: wait for the cell, not only the Row
    qtbot.waitUntil(lambda: model.index(r, STATE).data().startswith("failed"), timeout=10_000)
    metrics, header = table.fontMetrics(), table.horizontalHeader()
    for col in (NAME, STATE):
        text = model.index(r, col).data()
        assert metrics.horizontalAdvance(text) > header.sectionSize(col), f"{text} fits: no test"
    assert model.index(r, NAME).data(Qt.ItemDataRole.ToolTipRole).count(bad.name) == 1
    tip = model.index(r, STATE).data(Qt.ItemDataRole.ToolTipRole)
    assert "ask who sent it for the password" in tip, tip


def test_at_1024_by_700_a_long_file_name_never_widens_the_window(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    """A name without spaces in a label that neither wraps nor elides sets the pane's
    minimum width: the window grew to 1132 px while one was indexed (seen under Xvfb)."""
    from docent.gui.messages import bridge

    name = "Debian-project-history-from-the-debian-history-package-english-edition-2024.pdf"
    doc = tmp_path / name
    doc.write_text("The project was founded in 1993.\n")
    window = started(qtbot, fake, make_window)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=10_000)
    lib = window.library
    fake.hold_jobs.set()
    lib.add_paths([str(doc)])  # the indexing row and the status bar name it
    assert fake.job_paused.wait(10)
    qtbot.waitUntil(lambda: name in window.index_label.text(), timeout=10_000)
    assert "(all files: " in window.index_label.text()  # the run's share, not the file's
    assert lib.progress_row.isVisible()
    window.chat.set_scope([str(doc)])  # "Asking only: <name>"
    bridge().error(f"Could not read {name}: it is damaged.")
    QApplication.processEvents()  # the layouts take the new texts in (posted requests)
    assert window.minimumSizeHint().width() <= 1024, window.minimumSizeHint()
    assert window.library.minimumSizeHint().width() < 400
    assert window.chat.minimumSizeHint().width() < 400
    # what is shortened is whole in its tooltip
    assert name in lib.progress_label.toolTip() and name in window.chat.scope_label.toolTip()
    with qtbot.waitSignal(lib.controller.run_finished, timeout=10_000):
        fake.release_jobs.set()


def test_retry_pressed_while_a_health_check_runs_still_asks_again(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """Retry waits for a health check; one already running (the 30 s poll, the end of an
    answer) swallowed it: the button did nothing (seen under Xvfb with the real model)."""
    window = started(qtbot, fake, make_window)
    fake.answers = [answer("First."), answer("Second.")]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("Why?")
    fake.hold_health.set()
    window.check_health()  # the poll's check, slow to answer
    assert fake.health_paused.wait(10)
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000) as again:
        window.retry_action.trigger()
        fake.release_health.set()
    assert again.args[0].answer.text == "Second." and again.args[0].attempt == 2


def test_a_new_answers_sources_do_not_keep_the_last_answers_page(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    from docent.gui.citation_pane import PDF, PLACEHOLDER
    from scan_files import page_image, save_scan

    first = save_scan(tmp_path / "first.pdf", [page_image(["The first page"])])
    second = save_scan(tmp_path / "second.pdf", [page_image(["The second page"])])
    window = started(qtbot, fake, make_window)
    chat, sources = window.chat, window.citations
    fake.answers = [
        answer("First [1].", [citation(1, str(first), 1, "The first page")]),
        answer("Second [1].", [citation(1, str(second), 1, "The second page")]),
    ]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.ask("The first?")
    # the first answer: its sources listed, no page until one is clicked
    assert sources.stack.currentIndex() == PLACEHOLDER and sources.list.currentRow() == -1
    with qtbot.waitSignal(sources.page_shown, timeout=10_000):
        window.show_citation(done.args[0].number, 1)
    assert sources.stack.currentIndex() == PDF and "first.pdf" in sources.header.text()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("The second?")
    assert [c.file_name for c in sources.citations] == ["second.pdf"]
    # the second answer: as for the first, not the first answer's page and highlight
    assert sources.stack.currentIndex() == PLACEHOLDER, "the last answer's page is still shown"
    assert sources.current is None and sources.list.currentRow() == -1
    assert "first.pdf" not in sources.header.text()
    assert sources.header.text().startswith("Click a citation")
    assert not sources.toolbar.isVisibleTo(sources)
