"""The settings dialog only asks the engine to apply; errors are shown next to the fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine, hold
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QPushButton

from docent.core.config import load_settings, settings_file
from docent.gui.settings_dialog import SettingsDialog
from fake_embedder import FakeEmbedder, model_folder
from ollama_stub import OllamaStub


def save(qtbot: Any, dialog: SettingsDialog) -> None:
    button = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    button.click()
    qtbot.waitUntil(dialog.buttons.isEnabled, timeout=10_000)  # the engine answered


def test_a_bad_url_is_refused_naming_the_field(qtbot: Any, fake: FakeEngine, drain: None) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.host_edit.setText("localhost 11434")
    save(qtbot, dialog)
    assert dialog.applied is None and dialog.result() == 0, "a bad URL was accepted"
    message = dialog.error_label.text()
    assert dialog.error_label.isVisibleTo(dialog)
    # plain words: the field's label and what to type, no key names or pydantic's words
    assert message.startswith("Ollama host: must start with http:// or https://"), message
    assert "http://127.0.0.1:11434" in message
    assert "ollama_host" not in message and "Value error" not in message
    assert dialog.host_edit.property("invalid") is True
    assert fake.applied == [] and fake.settings.ollama_host == ""


def test_the_fields_stay_put_when_errors_appear(qtbot: Any, fake: FakeEngine, drain: None) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)

    def places() -> list[tuple[int, int]]:
        return [
            (w.mapTo(dialog, w.rect().topLeft()).y(), w.height())
            for w in (dialog.host_edit, dialog.folders, dialog.ocr_check, dialog.rerank_edit)
        ]

    before = places()
    dialog.host_edit.setText("localhost:99999")
    dialog.embedding_edit.setText("")
    dialog.rerank_edit.setText("/nonexistent/dir")
    save(qtbot, dialog)
    assert dialog.error_label.isVisible() and dialog.error_label.text().count("\n") >= 2
    assert places() == before


def test_many_errors_scroll_and_squeeze_no_field(qtbot: Any, fake: FakeEngine, drain: None) -> None:
    """QA, session 30: four bad fields' lines, wrapped, grew the error text over the
    fields: the watched folders' list shrank to one line and its buttons to slivers."""
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    shrinkable = (dialog.folders, *dialog.findChildren(QPushButton))

    def places() -> list[tuple[int, int]]:
        return [(w.mapTo(dialog, w.rect().topLeft()).y(), w.height()) for w in shrinkable]

    before, height = places(), dialog.error_area.height()
    dialog.host_edit.setText("ftp://x")
    dialog.embedding_edit.setText("zzz")
    dialog.data_edit.setText("rel")
    dialog.limit_edit.setText("x")
    save(qtbot, dialog)
    lines = dialog.error_label.text().split("\n")
    assert len(lines) >= 4 and lines[0].startswith("Ollama"), lines
    assert places() == before and dialog.error_area.height() == height  # the rest scrolls
    assert not dialog.error_area.focusPolicy() & Qt.FocusPolicy.TabFocus  # no Tab stop


def test_the_red_mark_goes_when_the_field_is_edited(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.host_edit.setText("localhost:11434")
    dialog.qdrant_edit.setText("localhost:6333")
    save(qtbot, dialog)
    lines = dialog.error_label.text().splitlines()
    assert lines == [  # in the form's order, top down, and the topmost bad field focused
        "Ollama host: must start with http:// or https:// and name a host, like "
        "http://127.0.0.1:11434 (did you mean http://localhost:11434?)",
        "Qdrant server URL: must start with http:// or https:// and name a host, like "
        "http://127.0.0.1:6333 (did you mean http://localhost:6333?)",
    ]
    assert dialog.host_edit.property("invalid") and dialog.qdrant_edit.property("invalid")
    assert dialog.focusWidget() is dialog.host_edit
    dialog.host_edit.clear()
    qtbot.keyClicks(dialog.host_edit, "http://localhost:11434")
    assert not dialog.host_edit.property("invalid"), "the red border stayed after the fix"
    assert dialog.qdrant_edit.property("invalid"), "the other field's mark went too"
    assert dialog.error_label.text().startswith("Qdrant server URL:")
    dialog.qdrant_edit.clear()
    qtbot.keyClicks(dialog.qdrant_edit, "http://localhost:6333")
    assert dialog.error_label.text() == ""


def test_the_host_placeholder_names_the_address_in_use(
    qtbot: Any, fake: FakeEngine, drain: None, monkeypatch: Any
) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.host_edit.placeholderText() == "empty: http://127.0.0.1:11434 (the default)"
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:11500")
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert "127.0.0.1:11500" in dialog.host_edit.placeholderText()


def test_saving_hands_the_values_to_the_engine(
    qtbot: Any, fake: FakeEngine, drain: None, tmp_path: Path
) -> None:
    other = str(model_folder(tmp_path))
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.host_edit.setText("http://127.0.0.1:11434")
    dialog.summary_combo.setCurrentText("bullets")
    dialog.embedding_edit.setText(other)
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    applied = done.args[0]
    assert sorted(applied.changed) == ["embedding_model", "ollama_host", "summary_type"]
    assert applied.restart == ["embedding_model"]
    assert fake.settings.summary_type == "bullets"
    assert fake.settings.embedding_model != other, "applied before a restart"
    assert dialog.result() == 1
    assert not settings_file().exists(), "the dialog wrote the file itself"


def test_an_embedding_model_docent_cannot_load_is_refused(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    # saved before, with "takes effect when Docent starts again"; then no question answered
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.embedding_edit.setText("-5")
    save(qtbot, dialog)
    message = dialog.error_label.text()
    assert message.startswith("Embedding model: '-5' is not a model Docent can load"), message
    assert "sentence-transformers/all-MiniLM-L6-v2" in message and "ONNX" in message
    assert dialog.embedding_edit.property("invalid") is True
    assert fake.applied == [] and not settings_file().exists()


def test_a_save_that_fails_keeps_the_dialog_open(qtbot: Any, fake: FakeEngine, drain: None) -> None:
    fake.save_error = OSError("No space left on device")
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.summary_combo.setCurrentText("detailed")
    save(qtbot, dialog)
    assert dialog.result() == 0 and dialog.applied is None
    assert "No space left on device" in dialog.error_label.text()


def test_test_checks_the_unsaved_host_and_offers_its_models(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)

    def test(host: str) -> str:
        dialog.host_edit.setText(host)
        dialog.test_button.click()
        assert not dialog.test_button.isEnabled(), "Test ran on the GUI thread"
        qtbot.waitUntil(dialog.test_button.isEnabled, timeout=10_000)
        return dialog.test_label.text()

    dialog.model_combo.setCurrentText("fake-model")
    assert test("http://127.0.0.1:11434").startswith("✓")
    models = [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())]
    assert models == ["fake-model", "other:7b"]
    down = test("http://down.invalid:1")
    # the command in code type, not between backticks (QA-77)
    assert down.startswith("✗") and "<code>ollama serve</code>" in down and "`" not in down
    assert [s.ollama_host for s in fake.probed] == [
        "http://127.0.0.1:11434",
        "http://down.invalid:1",
    ]
    assert fake.applied == [], "testing applied the settings"
    dialog.host_edit.setText("not a url")
    dialog.test_button.click()
    assert dialog.error_label.text().startswith("Ollama host:") and len(fake.probed) == 2
    assert dialog.test_label.text().startswith("✗ Not tested"), "a bad host showed nothing"


def test_test_reads_no_model_files_on_the_gui_thread(
    qtbot: Any, fake: FakeEngine, drain: None, monkeypatch: Any
) -> None:
    """Checking the embedding model imports fastembed and reads its folder: on Save, in a
    worker, not on Test's GUI thread (review: 0.55 s there, and a bad value blocked the
    Ollama test)."""
    import threading

    from docent.core import config

    on_gui: list[bool] = []
    real = config.check_model

    def spy(*args: Any, **kw: Any) -> Any:
        on_gui.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kw)

    monkeypatch.setattr(config, "check_model", spy)
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.embedding_edit.setText("BAAI/bge-small-en-v1.5")
    dialog.test_button.click()
    qtbot.waitUntil(dialog.test_button.isEnabled, timeout=10_000)
    assert dialog.test_label.text().startswith("✓") and True not in on_gui


def test_esc_while_saving_waits_for_the_save(
    qtbot: Any, fake: FakeEngine, make_window: Any, monkeypatch: Any
) -> None:
    """Closed mid-save, the dialog was gone when the engine had saved and applied, and the
    window never heard: its model box stayed on the old model (review)."""

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = make_window(fake)
    qtbot.waitUntil(lambda: window.health is not None, timeout=10_000)
    gate, entered = hold(monkeypatch, fake, "apply_settings")
    dialog = window.open_settings()
    dialog.model_combo.setCurrentText("other:7b")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    qtbot.waitUntil(entered.is_set, timeout=5_000)
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    dialog.close()
    assert dialog.isVisible(), "closed while the save ran"
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000):
        gate.set()
    qtbot.waitUntil(lambda: window.chat.selected_model() == "other:7b", timeout=10_000)


def test_with_the_real_engine_a_change_is_saved_once_and_applied(
    qtbot: Any, make_engine: Any, ollama_stub: OllamaStub, tmp_path: Path, drain: None
) -> None:
    engine = make_engine()
    watched = tmp_path / "watched"
    watched.mkdir()
    dialog = SettingsDialog(engine)
    qtbot.addWidget(dialog)
    dialog.host_edit.setText(ollama_stub.url)
    dialog.model_combo.setCurrentText("stub-model:latest")
    dialog.folders.addItem(str(watched))
    dialog.data_edit.setText(str(tmp_path / "elsewhere"))
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    applied = done.args[0]
    assert applied.restart == ["data_dir"]
    saved = load_settings()
    assert saved.ollama_host == ollama_stub.url and saved.data_dir == str(tmp_path / "elsewhere")
    assert saved.watched_folders == [str(watched)]
    assert engine.settings.ollama_host == ollama_stub.url
    assert engine.settings.data_dir != str(tmp_path / "elsewhere"), "the open store moved"
    assert engine.llm_health(2.0).ok, "the engine still asks the old Ollama"

    dialog = SettingsDialog(engine)
    qtbot.addWidget(dialog)
    dialog.folders.addItem(str(tmp_path / "missing"))
    save(qtbot, dialog)
    assert "Watched folders" in dialog.error_label.text()
    assert "not a folder" in dialog.error_label.text()
    assert load_settings().watched_folders == [str(watched)], "a bad change was saved"


def test_an_api_key_for_a_plain_http_server_elsewhere_is_refused_without_showing_it(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.qdrant_key_edit.echoMode() == dialog.qdrant_key_edit.EchoMode.Password
    dialog.qdrant_edit.setText("http://qdrant.example.org:6333")
    dialog.qdrant_key_edit.setText("s3cr3t")
    save(qtbot, dialog)
    message = dialog.error_label.text()
    assert message.startswith(
        "Qdrant API key: would be sent unencrypted to http://qdrant.example.org:6333: "
        "use an https:// server URL"
    ), message
    assert "s3cr3t" not in message and dialog.qdrant_key_edit.property("invalid")
    dialog.qdrant_edit.setText("https://qdrant.example.org:6333")
    save(qtbot, dialog)
    assert dialog.applied is not None and "qdrant_api_key" in dialog.applied.restart
    assert fake.applied[-1]["qdrant_api_key"] == "s3cr3t"


def test_the_summary_time_limit_is_checked_then_saved(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.limit_edit.text() == "4"
    for bad, why in (("soon", "must be a number"), ("-2", "must be at least 0")):
        dialog.limit_edit.setText(bad)
        save(qtbot, dialog)
        assert dialog.error_label.text() == f"Summary time limit: {why}."
        assert dialog.limit_edit.property("invalid") and fake.applied == []
    qtbot.keyClicks(dialog.limit_edit, "x")  # an edit clears the mark
    assert not dialog.limit_edit.property("invalid")
    dialog.limit_edit.setText("10")
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert done.args[0].changed == ["summary_seconds_per_page"]
    assert fake.settings.summary_seconds_per_page == 10.0


def test_saving_the_dialog_keeps_an_untouched_summary_limit(
    qtbot: Any, make_engine: Any, drain: None
) -> None:
    """settings.toml had ``summary_seconds_per_page = 2.3456789``; the dialog showed it
    as "2.34568" (``:g``), and Save, after changing only the model, saved and applied the
    rounded value: ``changed`` listed a key the person never touched."""
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text("summary_seconds_per_page = 2.3456789\n")
    dialog = SettingsDialog(make_engine(FakeEmbedder()))
    qtbot.addWidget(dialog)
    dialog.model_combo.setCurrentText("qwen2.5:3b")
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert done.args[0].changed == ["ollama_model"]
    assert load_settings().summary_seconds_per_page == 2.3456789


def test_the_reranker_folder_is_checked_then_saved(
    qtbot: Any, fake: FakeEngine, drain: None, tmp_path: Path
) -> None:
    from cross_encoder_files import cross_encoder_folder

    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.rerank_edit.text() == "" and "off" in dialog.rerank_edit.placeholderText()
    empty = tmp_path / "empty"
    empty.mkdir()
    dialog.rerank_edit.setText(str(empty))
    save(qtbot, dialog)
    assert (
        dialog.error_label.text()
        == f"Reranker: {empty} holds no ONNX model (model.onnx or onnx/model.onnx)"
    )
    assert dialog.rerank_edit.property("invalid") and fake.applied == []
    folder = cross_encoder_folder(tmp_path / "ce")
    dialog.rerank_edit.setText(str(folder))
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert done.args[0].changed == ["rerank_model_dir"] and not done.args[0].restart
    assert fake.settings.rerank_model_dir == str(folder)


def test_browse_fills_the_folder_it_belongs_to(
    qtbot: Any, fake: FakeEngine, drain: None, monkeypatch: Any
) -> None:
    from PySide6.QtWidgets import QFileDialog, QPushButton

    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    titles: list[str] = []

    def pick(parent: Any, title: str, start: str) -> str:
        titles.append(title)
        return f"/picked/{len(titles)}"

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", pick)
    buttons = {b.accessibleName(): b for b in dialog.findChildren(QPushButton)}
    buttons["Choose the cross-encoder's folder"].click()
    buttons["Choose the data folder"].click()
    assert titles == ["Cross-encoder folder", "Data folder"]
    assert dialog.rerank_edit.text() == "/picked/1" and dialog.data_edit.text() == "/picked/2"


def test_every_field_marked_red_is_drawn_again(
    qtbot: Any, fake: FakeEngine, drain: None, monkeypatch: Any
) -> None:
    """A restyle alone is not drawn: of four bad fields the screen showed the red border
    of only the one last edited, though each was marked (QA, session 26)."""
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    drawn: list[str] = []
    for key in ("ollama_host", "data_dir", "summary_seconds_per_page"):
        field = dialog.fields[key]
        monkeypatch.setattr(field, "update", lambda key=key: drawn.append(key))
    dialog.host_edit.setText("localhost:11434")
    dialog.data_edit.setText("Library")
    dialog.limit_edit.setText("abc")
    save(qtbot, dialog)
    assert sorted(drawn) == ["data_dir", "ollama_host", "summary_seconds_per_page"]


def test_fields_an_environment_variable_sets_are_named(
    qtbot: Any, fake: FakeEngine, drain: None, monkeypatch: Any
) -> None:
    """Unchecking LLM rerank seemed saved, and DOCENT_LLM_RERANK turned it on again at the
    next start (QA, session 26)."""
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert not dialog.env_label.isVisibleTo(dialog) and dialog.env_label.text() == ""
    monkeypatch.setenv("DOCENT_LLM_RERANK", "true")
    monkeypatch.setenv("DOCENT_OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")  # no field of the dialog's
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert dialog.env_label.isVisibleTo(dialog)
    text = dialog.env_label.text()
    # a change lasts until the next start, or (those that wait for a restart) never applies
    assert text.startswith("Set by environment variables, which win again when Docent starts")
    assert "Ollama host (DOCENT_OLLAMA_HOST)" in text and "LLM rerank (DOCENT_LLM_RERANK)" in text
    assert "EXTRACT" not in text


def test_the_dialog_shows_a_change_waiting_for_a_restart_and_saves_its_undo(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    """QA-79: OCR turned off (it waits for a restart), the dialog opened again showed it
    on (the running value), and ticking it back saved nothing."""
    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    dialog.ocr_check.setChecked(False)
    with qtbot.waitSignal(dialog.settings_applied, timeout=10_000) as done:
        save(qtbot, dialog)
    assert done.args[0].restart == ["ocr_enabled"] and fake.settings.ocr_enabled
    again = SettingsDialog(fake)
    qtbot.addWidget(again)
    assert not again.ocr_check.isChecked(), "the saved value, waiting for the restart"
    again.ocr_check.setChecked(True)
    with qtbot.waitSignal(again.settings_applied, timeout=10_000) as undone:
        save(qtbot, again)
    assert undone.args[0].changed == ["ocr_enabled"] and undone.args[0].restart == []
    assert fake.saved_settings.ocr_enabled


def test_the_qdrant_url_is_tested_before_it_is_saved(
    qtbot: Any, fake: FakeEngine, drain: None
) -> None:
    """QA-79: a wrong Qdrant URL was found only by a restart that failed. Test asks the
    server the unsaved URL and key name for its collections, in a worker."""
    from qdrant_standin import closed_port, qdrant_standin

    dialog = SettingsDialog(fake)
    qtbot.addWidget(dialog)
    assert not dialog.qdrant_test_button.isEnabled()  # empty: the embedded store

    def test(url: str, key: str = "") -> str:
        dialog.qdrant_edit.setText(url)
        dialog.qdrant_key_edit.setText(key)
        dialog.qdrant_test_button.click()
        assert not dialog.qdrant_test_button.isEnabled(), "Test ran on the GUI thread"
        qtbot.waitUntil(dialog.qdrant_test_button.isEnabled, timeout=20_000)
        return dialog.qdrant_test_label.text()

    with qdrant_standin() as server:
        said = test(server.url)
        assert said == f"✓ Qdrant answers at {server.url}; it holds no Docent library yet " + (
            "(one is made there when Docent starts with this URL)."
        )
        server.local.create_collection("chunks", vectors_config={})
        assert test(server.url) == f"✓ Qdrant answers at {server.url} and holds a Docent library."
        server.api_key = "right-key"
        refused = test(server.url, "wrong-key")
        assert refused.startswith("✗") and "refused the API key (HTTP 401)" in refused
    nothing = f"http://127.0.0.1:{closed_port()}"
    down = test(nothing)
    assert down.startswith("✗") and "cannot be reached" in down and nothing in down
    assert fake.applied == [], "testing applied the settings"
    dialog.qdrant_edit.setText("ftp://nowhere")
    dialog.qdrant_test_button.click()
    assert dialog.qdrant_test_label.text().startswith("✗ Not tested")
    dialog.qdrant_edit.setText("")
    assert not dialog.qdrant_test_button.isEnabled()
