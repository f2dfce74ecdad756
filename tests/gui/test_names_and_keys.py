"""Small things a review found by using the window: a collection "R&D" shown (and read
out) as "RD", with D triggering its menu item; "1 chunks"; Shift+F10, listed in Help,
opening nothing; and the library's width growing a little at every restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import FakeEngine
from gui_helpers import started
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from docent.core.api import Status
from docent.core.config import load_settings
from docent.gui.chat_pane import ChatPane
from docent.gui.collection_bar import status_text
from docent.gui.library_pane import LibraryPane


def spoken(menu: QMenu) -> list[str]:
    iface = QAccessible.queryAccessibleInterface(menu)
    return [iface.child(i).text(QAccessible.Text.Name) for i in range(iface.childCount())]


def test_a_name_with_an_ampersand_is_shown_and_read_as_written(
    qtbot: Any, fake: Any, drain: None, tmp_path: Path
) -> None:
    rd = fake.create_collection("R&D")
    fake.create_collection("Tom & Jerry")
    doc = tmp_path / "a.pdf"
    fake.add_document(str(doc), collection=rd.id)
    pane = LibraryPane(fake)
    qtbot.addWidget(pane)
    pane.show()
    pane.refresh()
    qtbot.waitUntil(lambda: len(pane.collection_bar.collections) == 3, timeout=10_000)
    pane.collection_bar.select(rd.id)
    qtbot.waitUntil(lambda: pane.model.count == 1, timeout=10_000)
    menu = pane.build_menu(pane.model.rows())
    (sub,) = [a.menu() for a in menu.actions() if a.menu() is not None]
    assert "Remove from 'R&D'" in spoken(menu) and "Tom & Jerry" in spoken(sub)
    chat = ChatPane(fake)
    qtbot.addWidget(chat)
    chat.set_collection(pane.collection_bar.current)
    chat.set_scope([str(doc)])
    button = QAccessible.queryAccessibleInterface(chat.clear_scope_button)
    assert button.text(QAccessible.Text.Name) == "All of R&D"


def test_counts_of_one_are_singular() -> None:
    st = Status(
        documents=1,
        ready=1,
        failed=0,
        queued=0,
        indexing=0,
        chunks=1,
        cancelled=0,
        data_dir="",
        store="",
        backend="",
        embedding_model="",
        watched=[],
    )
    assert status_text(st, None) == "1 document · 1 chunk"


#: What the offscreen platform says when a menu pops up (it has no window manager).
POPUP_NOISE = (
    r"^This plugin does not support raise\(\)$",
    r"^This plugin does not support grabbing",
    r"^This plugin does not support propagateSizeHints\(\)$",  # as conftest ignores it
)


@pytest.mark.qt_log_ignore(*POPUP_NOISE)
def test_shift_f10_opens_the_documents_menu(qtbot: Any, fake: Any, make_window: Any) -> None:
    fake.add_document("/docs/lamps.pdf")
    window = started(qtbot, fake, make_window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    table = window.library.table
    qtbot.waitUntil(lambda: window.library.proxy.rowCount() == 1, timeout=10_000)
    table.setFocus()
    table.selectRow(0)
    QTest.keyClick(table, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=5000)
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and "Summarize…" in [a.text() for a in menu.actions()]
    menu.close()
    window.close()


def test_the_panes_come_back_as_the_user_left_them(qtbot: Any, fake: Any, make_window: Any) -> None:
    first = started(qtbot, fake, make_window)
    total = sum(first.splitter.sizes())
    mine = [300, total - 300 - 450, 450]
    first.splitter.setSizes(mine)  # the user's layout, sources wide
    first._on_laid_out()  # as a drag of a divider does
    for _ in range(3):  # conversations with and without sources: each cycle widened the library
        first.fit_sources(False)
        assert first.splitter.sizes()[2] < 450
        first.fit_sources(True)
        assert first.splitter.sizes() == mine
    first.fit_sources(False)  # closed with the Sources pane narrowed
    first.close()
    again = started(qtbot, FakeEngine(load_settings()), make_window)
    again.fit_sources(True)
    assert again.splitter.sizes() == mine
    again.close()
