"""What a screen reader says for each control Tab reaches: a name in words, read through
Qt's accessibility interface (what AT-SPI hands to Orca), in the window as it is used
(documents, an answer and its PDF page, two answers, a notification) and in its dialogs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer, citation
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QComboBox, QDialog, QTableWidget, QWidget

from docent.gui.messages import bridge
from docent.gui.settings_dialog import SettingsDialog
from docent.gui.summary_dialog import SummaryDialog
from docent.gui.text_dialog import show_text


def tab_stops(root: QWidget) -> list[QWidget]:
    """The widgets Tab visits in ``root``'s window, in order (Qt's own focus chain)."""
    stops: list[QWidget] = []
    w = root.nextInFocusChain()
    while w is not root and len(stops) < 500:
        if (
            w.isVisible()
            and w.isEnabled()
            and w.focusPolicy() & Qt.FocusPolicy.TabFocus
            and root.isAncestorOf(w)
            and w.focusProxy() is None
        ):
            stops.append(w)
        w = w.nextInFocusChain()
    return stops


def spoken(w: QWidget) -> str:
    """The name a screen reader announces. On Linux a combo box's accessible Name is its
    current value; it is named by its label (a Label relation), elsewhere by
    accessibleName: it needs both."""
    iface = QAccessible.queryAccessibleInterface(w)
    assert iface is not None, f"{type(w).__name__} has no accessibility interface"
    if isinstance(w, QComboBox):
        labelled = iface.relations(QAccessible.Relation.Label)
        return w.accessibleName() if labelled else ""
    return iface.text(QAccessible.Text.Name)


def unnamed(root: QWidget) -> list[str]:
    """Tab stops whose spoken name has no word in it ("", "◀", "✕", "−")."""
    stops = tab_stops(root)
    assert len(stops) >= 2, f"Tab reaches only {len(stops)} controls: the walk is wrong"
    return [
        f"{type(w).__name__}({w.objectName() or w.parentWidget().objectName()}) says {spoken(w)!r}"
        for w in stops
        if not re.search(r"[A-Za-z]{2}", spoken(w))
    ]


def test_every_control_tab_reaches_in_the_window_has_a_spoken_name(
    qtbot: Any, fake: FakeEngine, make_window: Any, tmp_path: Path
) -> None:
    from scan_files import page_image, save_scan

    pdf = save_scan(tmp_path / "two.pdf", [page_image(["Page one"]), page_image(["Page two"])])
    fake.add_document(str(pdf))
    fake.add_document("/docs/b.pdf")
    window = make_window(fake)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 2, timeout=10_000)
    fake.answers = [
        answer("One [1].", [citation(1, str(pdf), 1, "Page one")]),
        answer("Two [1].", [citation(1, str(pdf), 2, "Page two")]),
    ]
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.ask("first")
    with qtbot.waitSignal(window.chat.answer_finished, timeout=10_000):
        window.chat.retry_last()  # two answers: the ◀ ▶ buttons are shown
    with qtbot.waitSignal(window.citations.page_shown, timeout=10_000):
        window.show_citation(1, 1)  # the page toolbar: ◀ ▶ − + Fit
    bridge().error("Could not read x.pdf: it is damaged.")  # its ✕ button
    qtbot.waitUntil(window.notifications.isVisible, timeout=10_000)
    stops = tab_stops(window)
    for needed in (window.citations.prev_button, window.chat.answer_bar.earlier_button):
        assert needed in stops, f"{needed.toolTip()} is not reached: the scene is not set"
    bad = unnamed(window)
    assert not bad, "no spoken name: " + "; ".join(bad)


def test_every_control_in_the_dialogs_has_a_spoken_name(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    fake.add_document("/docs/a.pdf")
    window = make_window(fake)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    settings = window.open_settings()
    assert isinstance(settings, SettingsDialog)
    qtbot.waitExposed(settings)
    bad = unnamed(settings)
    assert not bad, "no spoken name: " + "; ".join(bad)
    settings.reject()
    window.summarize("/docs/a.pdf")
    (summary,) = [d for d in window.dialogs if isinstance(d, SummaryDialog)]
    with qtbot.waitSignal(summary.summary_finished, timeout=10_000):
        pass
    bad = unnamed(summary)
    assert not bad, "no spoken name: " + "; ".join(bad)
    summary.close()
    window.shortcuts_action.trigger()
    table = window.findChild(QTableWidget, "shortcuts")
    assert table is not None
    keys = table.window()
    assert isinstance(keys, QDialog) and keys is not window
    bad = unnamed(keys)
    assert not bad, "no spoken name: " + "; ".join(bad)
    keys.reject()
    text = show_text(window, "Extracted text — a.pdf", "Page one.")
    qtbot.waitExposed(text)
    bad = unnamed(text)
    assert not bad, "no spoken name: " + "; ".join(bad)
    text.close()


def test_a_symbol_button_is_announced_by_its_words_not_its_glyph(qtbot: Any) -> None:
    # the check itself: a button labelled only "◀" says nothing useful, so it is caught
    from PySide6.QtWidgets import QToolButton, QVBoxLayout

    box = QDialog()
    qtbot.addWidget(box)
    layout = QVBoxLayout(box)
    bare, named, plain = QToolButton(), QToolButton(), QToolButton()
    bare.setText("◀")
    named.setText("▶")
    named.setAccessibleName("Next page")
    plain.setText("Open")
    for b in (bare, named, plain):
        b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        layout.addWidget(b)
    box.show()
    qtbot.waitExposed(box)
    QApplication.processEvents()
    assert len(unnamed(box)) == 1 and "'◀'" in unnamed(box)[0]
