"""The window, opening a library whose catalog is damaged: it says so and offers a rebuild."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from docent.core.config import load_settings
from docent.core.engine import Engine

pytestmark = pytest.mark.qt_log_ignore(r"^This plugin does not support propagateSizeHints\(\)$")


def _answer_with(button: str, seen: list[str]) -> None:
    """Click ``button`` in the next message box (the dialog runs its own event loop)."""
    box = QApplication.activeModalWidget()
    if not isinstance(box, QMessageBox):
        QTimer.singleShot(20, lambda: _answer_with(button, seen))
        return
    seen.append(box.text())
    for b in box.buttons():
        if b.text() == button:
            b.click()
            return
    raise AssertionError(f"no {button} button in {[b.text() for b in box.buttons()]}")


def test_a_damaged_catalog_is_explained_and_rebuilt_on_request(
    qtbot: Any, tmp_path: Path, _isolated_home: Path
) -> None:
    from docent.gui.app import open_engine

    (tmp_path / "a.txt").write_text("Llamas hum when they are curious.\n")
    with Engine(load_settings(extract_in_subprocess=False)) as eng:
        eng.index([tmp_path / "a.txt"])
    catalog = _isolated_home / "catalog.sqlite3"
    damaged = b"this is not a database" + catalog.read_bytes()[22:]
    catalog.write_bytes(damaged)

    seen: list[str] = []
    QTimer.singleShot(0, lambda: _answer_with("Cancel", seen))
    assert open_engine(load_settings()) is None
    assert "is damaged" in seen[-1] and catalog.read_bytes() == damaged

    QTimer.singleShot(0, lambda: _answer_with("Rebuild", seen))
    engine = open_engine(load_settings(extract_in_subprocess=False))
    assert engine is not None
    try:
        assert [d.file_name for d in engine.documents()] == ["a.txt"]
        assert any("damaged catalog was moved" in n for n in engine.notes)
    finally:
        engine.close()
