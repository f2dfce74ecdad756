"""Collections in the window, against a fake engine: the selector above the library, the
library and the chat following it, create / rename / remove, drops and watched folders
into the collection shown, one conversation per collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import drop
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog

from docent.core.api import JobKind
from docent.core.models import DEFAULT_COLLECTION
from docent.gui import collection_bar, library_pane
from docent.gui.collection_bar import ALL_TEXT
from docent.gui.main_window import MainWindow


def started(qtbot: Any, fake: FakeEngine, make_window: Any) -> MainWindow:
    window: MainWindow = make_window(fake)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    bar = window.library.collection_bar
    qtbot.waitUntil(lambda: len(bar.collections) == len(fake.collection_names), timeout=10_000)
    return window


def library_names(window: MainWindow) -> set[str]:
    return {r.file_name for r in window.library.model.rows()}


def choose(qtbot: Any, window: MainWindow, name: str | None) -> None:
    """Pick a collection in the selector (None: all) and wait for the library to follow."""
    bar = window.library.collection_bar
    combo = bar.combo
    at = 0 if name is None else next(i for i, c in enumerate(bar.collections, 1) if c.name == name)
    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        combo.setCurrentIndex(at)


def two_collections(fake: FakeEngine, tmp_path: Path) -> tuple[str, str]:
    work = fake.create_collection("Work").id
    home = fake.create_collection("Home").id
    for name in ("budget.pdf", "bread.pdf", "both.pdf", "old.pdf"):
        (tmp_path / name).write_text(f"The text of {name}.\n")
    fake.add_document(str(tmp_path / "budget.pdf"), collection=work)
    fake.add_document(str(tmp_path / "bread.pdf"), collection=home)
    fake.add_document(str(tmp_path / "both.pdf"), collection=work)
    fake.add_document(str(tmp_path / "both.pdf"), collection=home)
    fake.add_document(str(tmp_path / "old.pdf"))
    return work, home


def test_the_selector_lists_collections_and_the_library_shows_the_one_chosen(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    combo = window.library.collection_bar.combo
    items = [combo.itemText(i) for i in range(combo.count())]
    assert items == [ALL_TEXT, "default  (1)", "Home  (2)", "Work  (2)"]
    qtbot.waitUntil(lambda: len(library_names(window)) == 4, timeout=10_000)
    choose(qtbot, window, "Work")
    assert library_names(window) == {"budget.pdf", "both.pdf"}
    assert window.chat.scope_label.text() == "Asking: collection Work"
    choose(qtbot, window, "Home")
    assert library_names(window) == {"bread.pdf", "both.pdf"}
    choose(qtbot, window, None)
    assert library_names(window) == {"budget.pdf", "bread.pdf", "both.pdf", "old.pdf"}
    assert window.chat.scope_label.text() == "Asking: all documents"


def test_new_rename_and_remove_from_the_selector(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    work, home = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    bar = window.library.collection_bar
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Garden", True))
    with qtbot.waitSignal(bar.collection_changed, timeout=10_000) as changed:
        bar.new_action.trigger()
    assert changed.args[0] is not None and changed.args[0].name == "Garden"
    assert bar.combo.currentText() == "Garden  (0)"
    qtbot.waitUntil(lambda: "'Garden' is empty" in window.library.empty_hint.text(), timeout=10_000)

    choose(qtbot, window, "Work")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Office", True))
    with qtbot.waitSignal(bar.collections_changed, timeout=10_000):
        bar.rename_action.trigger()
    qtbot.waitUntil(lambda: bar.combo.currentText() == "Office  (2)", timeout=10_000)
    assert fake.collection_names[work] == "Office"
    assert window.chat.scope_label.text() == "Asking: collection Office"

    asked: list[str] = []

    def confirm(parent: Any, title: str, text: str, *a: Any) -> bool:
        asked.append(text)
        return True

    monkeypatch.setattr(collection_bar, "ask", confirm)
    # added since the selector last read the collections (QA-79: "0 documents" was said
    # of a collection whose files were still being added): the question reads them now
    (tmp_path / "late.pdf").write_text("The text of late.pdf.\n")
    fake.add_document(str(tmp_path / "late.pdf"), collection=work)
    assert bar.current is not None and bar.current.documents == 2
    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        bar.remove_action.trigger()
    assert "2 documents in no other collection will leave" in asked[0]
    assert "1 document stays in other collections" in asked[0]
    assert "No file is deleted" in asked[0]
    qtbot.waitUntil(lambda: work not in fake.collection_names, timeout=10_000)
    qtbot.waitUntil(lambda: bar.current is None and len(bar.collections) == 3, timeout=10_000)
    qtbot.waitUntil(lambda: "budget.pdf" not in library_names(window), timeout=10_000)
    assert fake.submitted[-1].kind is JobKind.REMOVE_COLLECTION
    assert {r.file_name for r in fake.documents(home)} == {"bread.pdf", "both.pdf"}


def test_a_drop_goes_into_the_collection_shown(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    work, _ = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    choose(qtbot, window, "Work")
    doc = tmp_path / "dropped.txt"
    doc.write_text("Dropped text.\n")
    with qtbot.waitSignal(window.library.controller.run_finished, timeout=10_000):
        drop(window, [doc])
    assert fake.submitted[-1].paths == [str(doc)] and fake.submitted[-1].collection == work
    qtbot.waitUntil(lambda: "dropped.txt" in library_names(window), timeout=10_000)
    assert fake.records[str(doc)].collections == [work]
    choose(qtbot, window, "Home")
    assert "dropped.txt" not in library_names(window)


def test_another_collections_indexing_does_not_show_up(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    _, home = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    choose(qtbot, window, "Work")
    doc = tmp_path / "recipe.txt"
    doc.write_text("Bread.\n")
    with qtbot.waitSignal(window.library.controller.documents_changed, timeout=10_000):
        window.library.add_paths([str(doc)], collection=home)
    assert fake.records[str(doc)].collections == [home]
    assert library_names(window) == {"budget.pdf", "both.pdf"}


def test_the_chat_asks_the_collection_and_each_keeps_its_conversation(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    work, home = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    chat = window.chat
    choose(qtbot, window, "Work")
    fake.answers = [
        answer("Travel is 10 % [1].", [citation(1, str(tmp_path / "budget.pdf"))]),
        answer("Sourdough."),
        answer("Also trains."),
    ]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("What is the travel budget?")
    assert fake.asked_collections == [work]
    assert chat.conversation.collection == work

    # the per-file scope works inside the collection
    window.library.ask_about_requested.emit([str(tmp_path / "budget.pdf")])
    assert chat.scope_label.text() == "Asking only: budget.pdf (in collection Work)"
    chat.clear_scope()

    choose(qtbot, window, "Home")
    assert chat.conversation.turns == [] and "travel" not in chat.view.toPlainText()
    assert window.citations.list.count() == 0
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("What bread?")
    assert fake.asked_collections[-1] == home

    choose(qtbot, window, "Work")
    assert [t.question for t in chat.conversation.turns] == ["What is the travel budget?"]
    assert window.citations.list.count() == len(chat.turns[-1].citations)
    assert "What is the travel budget?" in chat.view.toPlainText()
    assert "What bread?" not in chat.view.toPlainText()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("And by train?")
    assert fake.asked_collections[-1] == work
    assert len(chat.conversation.turns) == 2


def test_a_retry_asks_again_in_the_conversation_it_was_pressed_in(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    """Retry waits for Ollama's check (seconds when it is down): a collection chosen
    meanwhile had its own last question asked again (review)."""
    two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    chat = window.chat
    choose(qtbot, window, "Work")
    fake.answers = [answer("About work."), answer("About home.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("Question asked in Work")
    choose(qtbot, window, "Home")
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("Question asked in Home")
    choose(qtbot, window, "Work")
    asked = len(fake.asked)
    fake.hold_health.set()
    chat.answer_bar.retry_button.click()
    assert fake.health_paused.wait(10)
    choose(qtbot, window, "Home")  # the user looks at the other collection meanwhile
    fake.release_health.set()
    qtbot.waitUntil(
        lambda: any("Not asked again" in t for t in window.notifications.texts()),
        timeout=10_000,
    )
    assert len(fake.asked) == asked and not chat.streaming
    assert [t.question for t in chat.turns] == ["Question asked in Home"]


def test_the_selector_is_locked_while_an_answer_streams(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    fake.answers = [answer("A long answer.")]
    fake.hold_answer.set()
    window.chat.ask("Question?")
    assert fake.answer_paused.wait(10)
    assert not window.library.collection_bar.isEnabled()
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert window.library.collection_bar.isEnabled()


def test_a_folder_watched_from_a_collection_belongs_to_it(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    work, _ = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    choose(qtbot, window, "Work")
    folder = tmp_path / "reports"
    folder.mkdir()
    box = window.library.watched
    box.watch(str(folder))
    qtbot.waitUntil(
        lambda: (
            [box.list.item(i).text() for i in range(box.list.count())]
            == [f"{folder} — watching · Work"]
        ),
        timeout=10_000,
    )
    assert fake.folder_collections[str(folder)] == work


def test_the_menu_takes_a_document_out_of_the_collection_or_adds_it_to_another(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    work, home = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    lib = window.library
    choose(qtbot, window, "Work")
    rows = {r.file_name: r for r in lib.model.rows()}
    menu = lib.build_menu([rows["budget.pdf"]])
    actions = {a.text(): a for a in menu.actions()}
    add_to = {a.text(): a for a in actions["Add to collection"].menu().actions()}
    assert sorted(add_to) == ["Home", "default"]
    with qtbot.waitSignal(lib.controller.documents_changed, timeout=10_000):
        add_to["Home"].trigger()
    assert sorted(fake.records[str(tmp_path / "budget.pdf")].collections) == sorted([work, home])
    # a collection every selected document is in already is not offered (QA-79:
    # offered, it did nothing)
    budget = str(tmp_path / "budget.pdf")
    qtbot.waitUntil(lambda: home in getattr(lib.model.row_for(budget), "collections", ()))

    def offered(names: list[str]) -> set[str]:
        picked = [r for r in lib.model.rows() if r.file_name in names]
        menu = lib.build_menu(picked)
        add = next(a for a in menu.actions() if a.text() == "Add to collection")
        return {a.text() for a in add.menu().actions()}

    assert offered(["budget.pdf"]) == {"default"}
    assert offered(["budget.pdf", "both.pdf"]) == {"default"}  # both are in Home

    monkeypatch.setattr(library_pane, "ask", lambda *a: True)
    menu = lib.build_menu([rows["budget.pdf"]])
    leave = next(a for a in menu.actions() if a.text() == "Remove from 'Work'")
    with qtbot.waitSignal(lib.controller.documents_changed, timeout=10_000):
        leave.trigger()
    assert fake.submitted[-1].kind is JobKind.LEAVE
    qtbot.waitUntil(lambda: "budget.pdf" not in library_names(window), timeout=10_000)
    assert fake.records[str(tmp_path / "budget.pdf")].collections == [home]


def test_the_collection_shown_comes_back_with_the_window(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    choose(qtbot, window, "Home")
    window.close()
    again = started(qtbot, fake, make_window)
    bar = again.library.collection_bar
    qtbot.waitUntil(lambda: bar.current is not None and bar.current.name == "Home", timeout=10_000)
    qtbot.waitUntil(lambda: library_names(again) == {"bread.pdf", "both.pdf"}, timeout=10_000)
    assert again.chat.scope_label.text() == "Asking: collection Home"
    assert DEFAULT_COLLECTION in {c.id for c in bar.collections}


def test_a_saved_collection_since_removed_does_not_override_the_users_choice(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    """The collection shown at quit was removed from the command line: the bar kept
    wanting it, and every later read of the collections put the user's own choice back
    to All collections (review)."""
    work, _ = two_collections(fake, tmp_path)
    fake.settings.data_path.mkdir(parents=True, exist_ok=True)
    ini = QSettings(str(fake.settings.data_path / "gui.ini"), QSettings.Format.IniFormat)
    ini.setValue("collection/current", "c9-gone")
    ini.sync()
    window = started(qtbot, fake, make_window)
    bar = window.library.collection_bar
    qtbot.waitUntil(lambda: len(bar.collections) == 3, timeout=10_000)
    assert bar.current_id is None  # the gone one is not there: All collections
    bar.combo.setCurrentIndex(bar.combo.findData(work))  # the user picks Work
    with qtbot.waitSignal(bar.collections_changed, timeout=10_000):
        bar.refresh()  # as after every indexing run, a rename...
    assert bar.current_id == work
    assert window.chat.collection is not None and window.chat.collection.id == work


def test_the_status_bar_writes_big_counts_with_separators() -> None:
    """10,500 documents read as the chunks beside them do ("10500 documents · 10,500
    chunks" before)."""
    from docent.core.api import Status
    from docent.gui.collection_bar import status_text

    st = Status(10_500, 10_500, 1_200, 3_000, 1, 10_500, "/d", "edge", "edge", "m", cancelled=2_500)
    assert status_text(st, None) == (
        "10,500 documents · 10,500 chunks (1,200 failed, 3,001 waiting, 2,500 cancelled)"
    )


def test_the_status_bar_says_whose_failures_a_collection_shows() -> None:
    """With an empty collection shown, "Papers: 0 of 4 documents · 0 chunks (2 failed)"
    read as two of its own failures; they were the library's (QA, session 27)."""
    from docent.core.api import Status
    from docent.core.models import Collection
    from docent.gui.collection_bar import status_text

    st = Status(6, 4, 2, 0, 0, 900, "/d", "edge", "edge", "m")
    papers = Collection("p1", "Papers")
    assert status_text(st, papers) == "Papers: 0 of 4 documents · 0 chunks (library: 2 failed)"
    assert status_text(st, None) == "4 documents · 900 chunks (2 failed)"


def test_new_counts_are_written_in_place_without_closing_the_list(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """The counts now follow each document indexed (QA, session 30); rebuilt each time,
    the collection list would close under the mouse every half second of a run."""
    from docent.core.models import Collection

    window = started(qtbot, fake, make_window)
    bar = window.library.collection_bar
    found = list(bar.collections)
    removed: list[int] = []
    bar.combo.model().rowsRemoved.connect(lambda *_: removed.append(1))
    more = [
        Collection(c.id, c.name, c.documents + 5, c.ready, c.chunks, c.exclusive) for c in found
    ]
    bar.show_collections(more)
    assert removed == []
    assert bar.combo.itemText(1) == f"{more[0].name}  ({more[0].documents})"
    renamed = [Collection("other", "Other", 1, 1, 2, 1), *more]  # another list: rebuilt
    bar.show_collections(renamed)
    assert removed and [bar.combo.itemData(i) for i in range(1, bar.combo.count())] == [
        c.id for c in renamed
    ]


def test_a_rename_is_said_and_a_name_refused_is_a_warning_that_fades(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """QA-79: "Could not rename 'Work notes': A collection named 'statistics' already
    exists." stayed on screen over the rename that then worked, which said nothing."""
    from docent.gui.messages import Message, bridge

    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    work, _ = two_collections(fake, tmp_path)
    window = started(qtbot, fake, make_window)
    bar = window.library.collection_bar
    choose(qtbot, window, "Work")
    refused = "Could not rename 'Work': A collection named 'Home' already exists."
    steps = (
        ("Home", Message("warning", refused)),
        ("Office", Message("info", "Renamed 'Work' to 'Office'.")),
    )
    for name, said in steps:
        monkeypatch.setattr(QInputDialog, "getText", lambda *a, n=name, **k: (n, True))
        bar.rename_action.trigger()
        qtbot.waitUntil(lambda s=said: s in posted, timeout=10_000)
    assert not [m for m in posted if m.level == "error"]
