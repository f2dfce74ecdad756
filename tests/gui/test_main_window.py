"""The main window over a fake engine: startup, status, health, drops, chat to sources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import drop, started
from PySide6.QtWidgets import QFileDialog

from docent.core.api import Health, JobKind, conversation_markdown
from docent.core.embedding import EmbeddingError
from docent.core.models import DocState, DocumentRecord


def test_startup_warms_up_watches_and_shows_the_status(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake.add_document("/docs/a.pdf")
    fake.health = Health(False, ["fake-model"], "llama3.2:3b is not installed.")
    window = make_window(fake)
    with qtbot.waitSignal(window.warmed_up, timeout=10_000):
        pass
    assert fake.warmed.is_set() and fake.started_watching
    qtbot.waitUntil(lambda: window.docs_label.text() == "1 document · 2 chunks", timeout=10_000)
    qtbot.waitUntil(
        lambda: (
            window.ollama_label.text() == "Ollama: llama3.2:3b not installed — quoting passages"
        ),
        timeout=10_000,
    )
    assert window.chat.banner.isVisibleTo(window.chat)


def test_a_healthy_ollama_hides_the_banner_and_fills_the_model_picker(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake._settings = fake.settings.model_copy(update={"ollama_model": "fake-model"})
    window = started(qtbot, fake, make_window)
    assert window.ollama_label.text() == "Ollama: fake-model"
    assert not window.chat.banner.isVisibleTo(window.chat)
    combo = window.chat.model_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["fake-model", "other:7b"]
    fake.health = Health(False, [], "Ollama is not running.")
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        window.check_health()
    assert window.chat.banner.isVisibleTo(window.chat)
    assert window.ollama_label.text() == "Ollama: not running — quoting passages"


def test_a_model_switch_that_cannot_be_saved_is_undone_in_the_window(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """The box stayed on the model picked, so the next question went to a model the
    settings never switched to, and the status bar said "checking…" until the next poll
    (review)."""
    fake._settings = fake.settings.model_copy(update={"ollama_model": "fake-model"})
    window = started(qtbot, fake, make_window)
    combo = window.chat.model_combo
    fake.save_error = OSError("disk full")
    combo.setCurrentIndex(combo.findText("other:7b"))
    combo.activated.emit(combo.currentIndex())  # as a click does
    qtbot.waitUntil(
        lambda: any("Could not switch to other:7b" in t for t in window.notifications.texts()),
        timeout=10_000,
    )
    assert fake.settings.ollama_model == "fake-model"
    assert window.chat.selected_model() == "fake-model"
    assert window.current_model() == "fake-model"
    qtbot.waitUntil(lambda: window.ollama_label.text() == "Ollama: fake-model", timeout=10_000)


def test_a_document_removed_from_the_library_leaves_the_chats_scope(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """Asked about, then removed: every later question failed ("not in the library")
    until the scope was cleared by hand (review)."""
    fake.add_document("/docs/a.pdf")
    fake.add_document("/docs/b.pdf")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    window.library.ask_about_requested.emit(["/docs/a.pdf", "/docs/b.pdf"])
    assert chat.scope == ["/docs/a.pdf", "/docs/b.pdf"]
    fake.submit_removal(["/docs/a.pdf"])
    qtbot.waitUntil(lambda: chat.scope == ["/docs/b.pdf"], timeout=10_000)
    assert chat.scope_label.text() == "Asking only: b.pdf"
    assert any("a.pdf left the library" in t for t in window.notifications.texts())
    fake.submit_removal(["/docs/b.pdf"])
    qtbot.waitUntil(lambda: chat.scope == [], timeout=10_000)
    assert chat.scope_label.text() == "Asking: all documents"


def test_ask_again_under_a_withheld_answer_asks_anyway(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """Ctrl+R does what the answer bar offers there: asked again as before, the answer
    was withheld again."""
    from docent.core.models import Hit

    window = started(qtbot, fake, make_window)
    withheld = answer("I could not find an answer to this.", mode="abstained", model="")
    withheld.offered = [Hit("c1", "d1", "a.pdf", "/d/a.pdf", 4, 4, 0, 1.0, "A passage.")]
    fake.answers = [withheld, answer("Asked anyway.")]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("How do I make it run a script at start?")
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.retry_action.trigger()
    assert fake.asked_anyway == [False, True]


def test_documents_left_unfinished_are_resumed(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake._recovered = [DocumentRecord("d1", "/docs/a.pdf", "a.pdf", state=DocState.QUEUED)]
    window = started(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: bool(fake.submitted), timeout=10_000)  # once the model loaded
    assert [j.kind for j in fake.submitted] == [JobKind.RESUME]
    assert any("Resuming 1 document" in t for t in window.notifications.texts())


def test_documents_saved_again_since_they_were_indexed_are_indexed_again_at_start(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake.changed_files = [
        DocumentRecord(f"d{i}", f"/docs/{n}.pdf", f"{n}.pdf", state=DocState.READY)
        for i, n in enumerate("ab")
    ]
    window = started(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: bool(fake.submitted), timeout=10_000)  # once the model loaded
    assert [j.kind for j in fake.submitted] == [JobKind.RESUME]
    said = "Checking 2 documents changed on disk since they were indexed (searchable as indexed"
    assert any(said in t for t in window.notifications.texts())


def test_scans_indexed_without_ocr_are_read_at_start_once_it_is_on(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """QA-79: a scan failed with OCR off stayed failed once OCR was on."""
    fake.scans_awaiting_ocr = [
        DocumentRecord("d1", "/docs/minutes.pdf", "minutes.pdf", state=DocState.FAILED)
    ]
    window = started(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: bool(fake.submitted), timeout=10_000)  # once the model loaded
    assert [j.kind for j in fake.submitted] == [JobKind.RESUME]
    said = "Reading the scanned pages of 1 document now that OCR is on."
    assert any(said in t for t in window.notifications.texts())


def test_a_model_that_does_not_load_is_said_once_and_resumes_nothing(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    # the resume needs the model too: it failed again ("Could not resume the queued
    # documents"), and the log said "embedding model ready" after the failure
    fake._recovered = [DocumentRecord("d1", "/docs/a.pdf", "a.pdf", state=DocState.QUEUED)]
    fake.warm_error = EmbeddingError("Could not load the embedding model: '-5' is not a model")
    window = make_window(fake)
    ready: list[bool] = []
    window.warmed_up.connect(lambda: ready.append(True))
    qtbot.waitUntil(
        lambda: any(
            "Loading the embedding model failed" in t for t in window.notifications.texts()
        ),
        timeout=10_000,
    )
    assert fake.submitted == [] and ready == []
    assert not any("Resuming" in t for t in window.notifications.texts())


def test_a_drop_is_handed_to_the_engine(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    doc = tmp_path / "dropped.txt"
    doc.write_text("Dropped text.\n")
    window = started(qtbot, fake, make_window)
    with qtbot.waitSignal(window.library.controller.run_finished, timeout=10_000):
        drop(window, [doc])
    assert fake.submitted[-1].paths == [str(doc)]
    qtbot.waitUntil(lambda: window.docs_label.text().startswith("1 document"), timeout=10_000)


def test_a_chip_shows_its_source_in_the_citation_pane(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Intro.\nThe lamp is lit at dusk.\n")
    fake.add_document(str(notes), ["Intro.\nThe lamp is lit at dusk."])
    cites = [
        citation(1, str(notes), 1, "Intro."),
        citation(2, str(notes), 1, "The lamp is lit at dusk."),
    ]
    fake.answers = [answer("At dusk [2].", cites)]
    window = started(qtbot, fake, make_window)
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("When is the lamp lit?")
    assert window.citations.list.count() == 2
    with qtbot.waitSignal(window.citations.page_shown, timeout=10_000) as shown:
        window.show_citation(1, 2)
    assert shown.args == [str(notes), 1]
    assert window.citations.text_view.highlighted_text().startswith("The lamp is lit at dusk")
    assert "highlighted" in window.citations.note.text()


def test_export_writes_the_conversation(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    window = started(qtbot, fake, make_window)
    fake.answers = [answer("Because [1].", [citation(1, "/d/why.pdf", 2)])]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("Why?")
    target = tmp_path / "chat.md"
    offered: list[str] = []

    def choose(parent: Any, title: str, suggested: str, kinds: str) -> tuple[str, str]:
        offered.append(suggested)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)
    window.export_chat()
    qtbot.waitUntil(target.exists, timeout=10_000)
    # in the home folder, dated (QA-80: the folder Docent was started from)
    (suggested,) = offered
    assert Path(suggested).parent == Path.home()
    assert Path(suggested).name.startswith("docent-chat-20")
    assert target.read_text(encoding="utf-8") == conversation_markdown(window.chat.conversation)


def test_settings_applied_say_what_waits_for_a_restart(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window = started(qtbot, fake, make_window)
    dialog = window.open_settings()
    dialog.data_edit.setText("/somewhere/else")
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000):
        dialog.save()
    assert any(
        "Data folder: takes effect when Docent starts again" in t
        for t in window.notifications.texts()
    )
    # QA-79: the next start showed an empty library, as if it were lost
    said = f"The library in {fake.settings.data_path} stays there (nothing is moved)"
    assert any(said in t for t in window.notifications.texts())


def test_summarize_opens_a_dialog_with_progress_and_the_summary(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.gui.summary_dialog import SummaryDialog

    fake.add_document("/docs/a.pdf")
    window = started(qtbot, fake, make_window)
    window.summarize("/docs/a.pdf")
    (dialog,) = [d for d in window.dialogs if isinstance(d, SummaryDialog)]
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        pass
    assert (
        done.args[0] is not None
        and "A brief generated summary of a.pdf." in dialog.view.toPlainText()
    )
    assert dialog.copy_button.isEnabled() and not dialog.progress.isVisible()
    fake.summaries = [RuntimeError("the model crashed")]
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as failed:
        dialog.start()
    assert failed.args[0] is None
    assert dialog.status.text() == "The summary failed: the model crashed"
    dialog.close()


def test_the_first_library_read_is_frozen_out_of_later_collections(
    qtbot: Any, fake: FakeEngine, make_window: Any, monkeypatch: Any
) -> None:
    """The rows of the first catalog read live as long as the window: the heap is settled
    once they are in (at 10,000 documents a full collection took 25-90 ms), not at each
    later read."""
    import sys

    import docent.gui.main_window as main_window

    # (caller, rows): the heap is also settled at start and after the warm-up, which may
    # come before or after the first read; only the library read's settles are counted
    settled: list[tuple[str, int]] = []
    monkeypatch.setattr(
        main_window,
        "settle_heap",
        lambda: settled.append((sys._getframe(1).f_code.co_name, window.library.model.count)),
    )
    for i in range(3):
        fake.add_document(f"/docs/{i}.pdf")
    window = make_window(fake)
    qtbot.waitUntil(lambda: ("_on_library_read", 3) in settled, timeout=10_000)
    with qtbot.waitSignal(window.library.model.records_taken, timeout=10_000):
        window.library.refresh()
    assert [s for s in settled if s[0] == "_on_library_read"] == [("_on_library_read", 3)]


def test_the_first_window_fits_the_screen(qtbot: Any, fake: FakeEngine) -> None:
    """No saved geometry: 1500x920 if the screen has room, else the screen's room (the
    offscreen screen is 800x800; a 1366x768 laptop has less than 1500x920)."""
    from docent.gui.main_window import FIRST_SIZE, MainWindow

    window = MainWindow(fake)
    qtbot.addWidget(window)
    room = window.screen().availableGeometry().size()
    assert room.width() < FIRST_SIZE.width()
    assert window.width() <= max(room.width(), window.minimumSizeHint().width())
    assert window.height() <= room.height()


def test_the_collection_counts_follow_each_document_a_long_job_finishes(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """QA, session 30: "Inbox: 4 of 20 documents · 241 chunks" stayed for over a minute
    after a watched folder's 908-chunk file was ready: the collection's counts were read
    only when the job ended; the library's followed each document."""
    from docent.core.api import DocumentChanged, Job, JobStarted, Progress

    fake.add_document("/docs/a.pdf")
    window = started(qtbot, fake, make_window)
    bar = window.library.collection_bar
    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        bar.select(bar.collections[0].id)
    name = bar.collections[0].name
    qtbot.waitUntil(lambda: window.docs_label.text().startswith(f"{name}: 1 of 1"), timeout=10_000)
    job = Job(JobKind.INDEX, ["/docs/b.pdf", "/docs/c.pdf"], "watch", id=77)
    rec = fake.add_document("/docs/b.pdf")  # the first of the job's two is ready
    fake.emit(JobStarted(job))
    fake.emit(DocumentChanged(job, Progress("ready", 1, 2, rec.path, rec.doc_id), rec))
    qtbot.waitUntil(
        lambda: window.docs_label.text() == f"{name}: 2 of 2 documents · 4 chunks",
        timeout=10_000,
    )
