"""The app end to end: crash dialog, second-instance refusal, no display, warm-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from docent.core.config import load_settings
from docent.gui.app import CrashHandler, open_engine


def test_uncaught_exception_opens_crash_dialog_with_log_path(qtbot: Any, tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "docent.log"
    handler = CrashHandler(log_file)
    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError as exc:
        handler.hook(type(exc), exc, exc.__traceback__)
    dialog = handler.dialog
    assert dialog is not None
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    assert str(log_file) in dialog.message.text()
    assert "boom in a slot" in dialog.details.toPlainText()
    dialog.keep_button.click()
    assert not dialog.isVisible()


def test_second_instance_is_refused_clearly(qtbot: Any, make_engine: Any) -> None:
    make_engine()  # the first Docent holds the data folder
    shown: list[str] = []

    def answer_dialog() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer_dialog)
            return
        shown.append(f"{box.windowTitle()}\n{box.text()}")
        box.done(QMessageBox.StandardButton.Ok)

    QTimer.singleShot(0, answer_dialog)
    assert open_engine(load_settings()) is None
    (text,) = shown
    assert "already open" in text
    assert str(load_settings().data_path) in text


def test_cli_without_display_falls_back_to_indexing_samples(
    monkeypatch: Any, capsys: Any, tmp_path: Path
) -> None:
    from docent import cli
    from pdf_files import text_pdf

    samples = tmp_path / "samples"  # the bundled PDFs take minutes on a busy machine
    samples.mkdir()
    (samples / "note.pdf").write_bytes(
        text_pdf([["Docent indexes this when there is no display."]])
    )
    (samples / "MANIFEST.tsv").write_text("file\tsource\nnote.pdf\tmade here\n")  # not a sample
    monkeypatch.setattr(cli, "samples_dir", lambda: samples)

    assert cli.build_parser().parse_args(["gui"]).func is cli.cmd_gui

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    assert cli.main([]) == 0  # `docent` alone
    out = capsys.readouterr()
    assert "no display is available" in out.err
    assert "Documents: 1 (1 ready" in out.out


def test_window_warms_up_and_freezes_startup_objects_out_of_the_collector(
    qtbot: Any, make_engine: Any, make_window: Any
) -> None:
    import gc

    engine = make_engine()
    assert not engine.embedder.loaded
    gc.unfreeze()  # whatever an earlier test froze
    window = make_window(engine)
    with qtbot.waitSignal(window.warmed_up, timeout=60_000):
        pass
    assert engine.embedder.loaded, "the model was not loaded ahead of the first drop"
    frozen = gc.get_freeze_count()
    assert frozen > 100_000, f"only {frozen} objects frozen: startup is still collected"
