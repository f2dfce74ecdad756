"""Settings validation, the crash dialog, the second-instance refusal, the worker pattern."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

from docent.core.config import load_settings, settings_file
from docent.gui.app import CrashHandler, open_engine
from docent.gui.settings_dialog import SettingsDialog
from docent.gui.workers import Worker, pool


def test_settings_refuse_a_bad_url_naming_the_field(qtbot: Any) -> None:
    dialog = SettingsDialog(load_settings())
    qtbot.addWidget(dialog)
    saved: list[Any] = []
    dialog.settings_saved.connect(lambda s, restart: saved.append(s))
    dialog.host_edit.setText("localhost 11434")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()

    assert saved == [] and dialog.result() == 0, "a bad URL was accepted"
    message = dialog.error_label.text()
    assert dialog.error_label.isVisibleTo(dialog)
    assert "Ollama host" in message and "ollama_host" in message
    assert "http" in message, "the message should say what a good value looks like"
    assert dialog.host_edit.property("invalid") is True
    assert not settings_file().exists(), "nothing is written when validation fails"

    dialog.host_edit.setText("http://127.0.0.1:11434")
    dialog.summary_combo.setCurrentText("bullets")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert len(saved) == 1 and saved[0].summary_type == "bullets"
    assert load_settings().ollama_host == "http://127.0.0.1:11434"


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


def test_worker_reports_progress_result_and_errors(qtbot: Any) -> None:
    def job(report: Any, cancel: threading.Event) -> int:
        report(1)
        report(2)
        return 42

    progress: list[int] = []
    results: list[int] = []
    worker: Worker[Any] = Worker(job)
    sig = worker.signals
    sig.progress.connect(progress.append)
    sig.result.connect(results.append)
    with qtbot.waitSignals([sig.started, sig.result, sig.finished], order="strict"):
        pool().start(worker)  # connected first: a pool thread may emit at once
    assert progress == [1, 2] and results == [42]

    def failing(report: Any, cancel: threading.Event) -> None:
        raise ValueError("bad file")

    worker = Worker(failing)
    with qtbot.waitSignal(worker.signals.error) as err:
        pool().start(worker)
    assert isinstance(err.args[0], ValueError)


def test_cli_without_display_falls_back_to_indexing_samples(
    monkeypatch: Any, capsys: Any, tmp_path: Path
) -> None:
    from docent import cli

    samples = tmp_path / "samples"  # the bundled PDFs take minutes on a busy machine
    samples.mkdir()
    (samples / "note.txt").write_text("Docent indexes this note when there is no display.\n")
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


def test_settings_test_button_checks_the_unsaved_host(
    qtbot: Any, ollama_stub: Any, ollama_down_host: str
) -> None:
    ollama_stub.models = ["stub-model:latest", "other:7b"]
    dialog = SettingsDialog(load_settings())
    qtbot.addWidget(dialog)

    def test(host: str) -> str:
        dialog.host_edit.setText(host)
        dialog.test_button.click()
        assert not dialog.test_button.isEnabled(), "Test ran on the GUI thread"
        qtbot.waitUntil(dialog.test_button.isEnabled, timeout=15_000)
        return str(dialog.test_label.text())

    dialog.model_combo.setCurrentText("stub-model:latest")
    ok = test(ollama_stub.url)
    assert ok.startswith("✓"), ok
    models = [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())]
    assert models == ["stub-model:latest", "other:7b"], "the installed models were not offered"
    down = test(ollama_down_host)
    assert down.startswith("✗") and down[1:].strip(), down
    assert not settings_file().exists(), "testing saved the settings"
