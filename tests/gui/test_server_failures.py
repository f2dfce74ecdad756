"""The window on a Qdrant server that fails (the stand-in of tests/qdrant_standin.py):
unreachable at startup, or gone in the middle of indexing; each said in the window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import DocState
from docent.gui.app import open_engine
from docent.gui.indexing import IndexController
from docent.gui.messages import Message, bridge
from fake_embedder import FakeEmbedder
from qdrant_standin import closed_port, qdrant_standin


def _answer_dialogs(shown: list[str]) -> None:
    box = QApplication.activeModalWidget()
    if not isinstance(box, QMessageBox):
        QTimer.singleShot(20, lambda: _answer_dialogs(shown))
        return
    shown.append(f"{box.windowTitle()}\n{box.text()}")
    box.done(QMessageBox.StandardButton.Ok)


def test_a_server_unreachable_at_startup_is_explained(qtbot: Any) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    shown: list[str] = []
    QTimer.singleShot(0, lambda: _answer_dialogs(shown))
    assert open_engine(load_settings(qdrant_url=url)) is None
    (text,) = shown
    assert text.startswith("Docent could not open the library")
    assert f"The Qdrant server at {url} cannot be reached" in text and "qdrant_url" in text


def test_a_server_lost_mid_index_is_said_in_the_window(
    qtbot: Any, tmp_path: Path, drain: None
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (lib / name).write_text(f"The {name} log: the lantern by the reef was lit.\n")
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    with qdrant_standin() as standin:
        settings = load_settings(
            extract_in_subprocess=False, qdrant_url=standin.url, qdrant_timeout=1
        )
        with Engine(settings, embedder=FakeEmbedder()) as eng:
            standin.fault, standin.fault_after_writes = "drop", 2  # a.txt lands whole
            controller = IndexController(eng)
            try:
                with qtbot.waitSignal(controller.run_finished, timeout=30_000) as end:
                    controller.add([str(lib)])
            finally:
                controller.detach()
            states = {d.file_name: d.state for d in eng.documents()}
    assert end.args == [None], "a run the server cut short has no report"
    warnings = [m.text for m in posted if m.level == "warning"]
    assert any(
        f"The Qdrant server at {standin.url} dropped the connection" in t
        and "not marked ready" in t
        for t in warnings
    ), warnings
    assert states["a.txt"] is DocState.READY
    assert states["b.txt"] is not DocState.READY
