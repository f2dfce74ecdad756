"""The watched-folders box: the engine's folder states, watch and unwatch in workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine

from docent.core.api import FolderState, FolderStatus, JobKind
from docent.gui.messages import Message, bridge
from docent.gui.plain import plain_tip
from docent.gui.watched_folders import WatchedFoldersBox


@pytest.fixture
def box(qtbot: Any, fake: FakeEngine, drain: None) -> Iterator[WatchedFoldersBox]:
    widget = WatchedFoldersBox(fake)
    qtbot.addWidget(widget)
    yield widget


def entries(box: WatchedFoldersBox) -> list[str]:
    return [box.list.item(i).text() for i in range(box.list.count())]


def test_it_lists_each_folder_with_its_state(box: WatchedFoldersBox) -> None:
    box.show_folders(
        [
            FolderStatus("/home/me/papers", FolderState.WATCHING),
            FolderStatus("/media/usb", FolderState.PAUSED, "The folder is missing; paused."),
        ]
    )
    assert entries(box) == ["/home/me/papers — watching", "/media/usb — paused"]
    assert box.list.item(1).toolTip() == plain_tip("The folder is missing; paused.")
    box.show_folders([])
    assert entries(box) == ["No folders watched. Use Watch folder… to add one."]


def test_a_folder_changing_state_asks_for_the_library_again(
    qtbot: Any, box: WatchedFoldersBox
) -> None:
    """A watched folder moved away: its documents' rows say "ready · file gone" only when
    the library is read again (QA-78: they stayed "ready")."""
    watching = [FolderStatus("/media/usb", FolderState.WATCHING)]
    told: list[bool] = []
    box.states_changed.connect(lambda: told.append(True))
    box.show_folders(watching)  # the first look: nothing changed
    box.show_folders(watching)
    assert told == []
    with qtbot.waitSignal(box.states_changed, timeout=1_000):
        box.show_folders([FolderStatus("/media/usb", FolderState.PAUSED, "missing")])
    with qtbot.waitSignal(box.states_changed, timeout=1_000):
        box.show_folders(watching)  # back


def test_the_library_pane_reads_the_library_when_a_folder_changes_state(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    from docent.gui.library_pane import LibraryPane

    pane = LibraryPane(fake)
    qtbot.addWidget(pane)
    with qtbot.waitSignal(pane.controller.refresh_started, timeout=2_000):
        pane.watched.states_changed.emit()


def test_watch_then_unwatch_keeping_or_dropping_documents(
    qtbot: Any, fake: FakeEngine, box: WatchedFoldersBox, tmp_path: Path
) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    box.watch(str(folder))
    qtbot.waitUntil(lambda: entries(box) == [f"{folder} — watching · default"], timeout=10_000)
    box.unwatch(str(folder), drop_documents=False)
    qtbot.waitUntil(lambda: entries(box)[0].startswith("No folders"), timeout=10_000)
    assert fake.submitted == []
    box.watch(str(folder))
    qtbot.waitUntil(lambda: entries(box) == [f"{folder} — watching · default"], timeout=10_000)
    box.unwatch(str(folder), drop_documents=True)
    qtbot.waitUntil(lambda: entries(box)[0].startswith("No folders"), timeout=10_000)
    assert [(j.kind, j.paths) for j in fake.submitted] == [(JobKind.DROP, [str(folder)])]


def test_a_folder_that_cannot_be_watched_is_reported(
    qtbot: Any, box: WatchedFoldersBox, tmp_path: Path
) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    box.watch(str(tmp_path / "missing"))
    qtbot.waitUntil(lambda: any(m.level == "error" for m in posted), timeout=10_000)
    (error,) = [m.text for m in posted if m.level == "error"]
    assert error.startswith(f"Could not watch {tmp_path / 'missing'}: ") and "not a folder" in error
