"""The indexing bar's Cancel stops indexing, nothing else, and loses nothing (review):
removals the user confirmed meanwhile still happen (Cancel undid them, silently), and a
drop still waiting behind the run, cancelled or cut off by closing the window, is listed
for Resume (its files were never listed at all)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from test_user_stops import GatedEmbedder, open_engine

from docent.core.index_events import JobKind

TIMEOUT = 30_000


def write(folder: Path, names: list[str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        f = folder / name
        f.write_text(f"{name} is about lamps, wicks and the keeper who trims them.\n")
        out.append(f)
    return out


@pytest.mark.parametrize("what", ["document", "collection"])
def test_cancel_leaves_a_confirmed_removal_to_happen(
    qtbot: Any, make_window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    import docent.gui.collection_bar as collection_bar
    import docent.gui.library_pane as library_pane

    monkeypatch.setattr(library_pane, "ask", lambda *a: True)  # the user confirms
    monkeypatch.setattr(collection_bar, "ask", lambda *a: True)
    (old,) = write(tmp_path / "old", ["old.txt"])
    write(tmp_path / "big", ["b1.txt", "b2.txt", "b3.txt"])
    gated = GatedEmbedder()
    gated.release.set()
    engine = open_engine(gated)
    try:
        window = make_window(engine)
        lib, bar = window.library, window.library.collection_bar
        made = engine.create_collection("Old stuff")
        lib.refresh()
        qtbot.waitUntil(lambda: len(bar.collections) == 2, timeout=TIMEOUT)
        engine.index([old], collection=made.id)
        lib.refresh()
        qtbot.waitUntil(
            lambda: [r.file_name for r in lib.model.rows()] == ["old.txt"], timeout=TIMEOUT
        )
        gated.release.clear()
        lib.add_paths([str(tmp_path / "big")])  # a long run starts
        qtbot.waitUntil(gated.entered.is_set, timeout=TIMEOUT)
        if what == "document":  # meanwhile the user removes one, and confirms
            lib.model.flush()
            row = next(
                i for i in range(lib.proxy.rowCount()) if lib.proxy.index(i, 0).data() == "old.txt"
            )
            lib.table.selectRow(row)
            lib._remove_selected()
        else:
            bar.select(made.id)
            qtbot.waitUntil(lambda: bar.current_id == made.id, timeout=TIMEOUT)
            bar.ask_remove()  # asked once the collection's counts are read
            qtbot.waitUntil(
                lambda: any(j.kind is JobKind.REMOVE_COLLECTION for j in engine.queue.pending()),
                timeout=TIMEOUT,
            )
        with qtbot.waitSignal(lib.controller.run_finished, timeout=TIMEOUT):
            qtbot.mouseClick(lib.cancel_button, Qt.MouseButton.LeftButton)  # then stops the run
            gated.release.set()
        assert engine.wait_idle(30)
        assert str(old) not in [r.path for r in engine.documents()]
        if what == "collection":
            assert "Old stuff" not in [c.name for c in engine.collections()]
        window.close()
    finally:
        gated.release.set()
        engine.close()


@pytest.mark.parametrize("how", ["cancel", "close"])
def test_a_drop_waiting_behind_the_run_is_listed_for_resume(
    qtbot: Any, make_window: Any, tmp_path: Path, how: str
) -> None:
    write(tmp_path / "A", ["a1.txt", "a2.txt"])
    write(tmp_path / "B", ["b1.txt", "b2.txt"])
    gated = GatedEmbedder()
    engine = open_engine(gated)
    try:
        window = make_window(engine)
        lib = window.library
        lib.add_paths([str(tmp_path / "A")])
        qtbot.waitUntil(gated.entered.is_set, timeout=TIMEOUT)  # a1 is being embedded
        lib.add_paths([str(tmp_path / "B")])  # dropped meanwhile: it waits
        qtbot.waitUntil(lambda: len(engine.queue.pending()) == 1, timeout=TIMEOUT)
        if how == "cancel":
            with qtbot.waitSignal(lib.controller.run_finished, timeout=TIMEOUT):
                qtbot.mouseClick(lib.cancel_button, Qt.MouseButton.LeftButton)
                gated.release.set()
            assert engine.wait_idle(30)
            lib.refresh()
        window.close()  # (closing with the drop still waiting, for "close")
        gated.release.set()
    finally:
        gated.release.set()
        engine.close()
    engine = open_engine()
    try:
        window = make_window(engine)
        lib = window.library
        waiting = {"b1.txt", "b2.txt"}
        qtbot.waitUntil(lambda: waiting <= {r.file_name for r in lib.model.rows()}, timeout=TIMEOUT)
        for rec in engine.documents():
            if rec.file_name in waiting:
                assert rec.state.value == "queued" and rec.reason == "cancelled"
        wait = "cancelled, not indexed: they wait for Resume."
        qtbot.waitUntil(lambda: wait in lib.resume_label.text(), timeout=TIMEOUT)
        assert lib.model.cancelled_count >= 2
        window.close()
    finally:
        engine.close()


def test_resume_or_reindex_of_a_file_that_is_gone_says_so(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    """Nothing happened and nothing was said, and the gone file waited for Resume for
    ever (review)."""
    a, b = write(tmp_path / "lib", ["a.txt", "b.txt"])
    gated = GatedEmbedder()
    engine = open_engine(gated)
    try:
        window = make_window(engine)
        lib = window.library
        with qtbot.waitSignal(lib.controller.run_finished, timeout=TIMEOUT):
            lib.add_paths([str(a), str(b)])
            qtbot.waitUntil(gated.entered.is_set, timeout=TIMEOUT)
            qtbot.mouseClick(lib.cancel_button, Qt.MouseButton.LeftButton)
            gated.release.set()
        qtbot.waitUntil(lambda: lib.resume_row.isVisibleTo(lib), timeout=TIMEOUT)
        cancelled = {r.file_name for r in lib.cancelled_rows()}
        assert "b.txt" in cancelled
        b.unlink()  # moved away meanwhile
        said = len(window.notifications.texts())
        with qtbot.waitSignal(lib.controller.run_finished, timeout=TIMEOUT):
            qtbot.mouseClick(lib.resume_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(
            lambda: "b.txt" not in {r.file_name for r in lib.model.rows()}, timeout=TIMEOUT
        )
        assert any(
            "b.txt is no longer at" in t and "moved or deleted?" in t
            for t in window.notifications.texts()[said:]
        )
        qtbot.waitUntil(lambda: not lib.resume_row.isVisibleTo(lib), timeout=TIMEOUT)
        qtbot.waitUntil(
            lambda: [r.state_text for r in lib.model.rows()] == ["ready"], timeout=TIMEOUT
        )

        a.unlink()  # and the menu's Re-index of a ready document whose file is gone
        said = len(window.notifications.texts())
        with qtbot.waitSignal(lib.controller.run_finished, timeout=TIMEOUT):
            lib.add_paths([str(a)], force=True)
        assert any("a.txt is no longer at" in t for t in window.notifications.texts()[said:])
        assert [r.file_name for r in engine.documents()] == ["a.txt"]  # kept (a drive unplugged?)
        window.close()
    finally:
        gated.release.set()
        engine.close()
