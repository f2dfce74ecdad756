from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docent.core.config import (
    Settings,
    load_settings,
    save_settings,
    saved_value,
    settings_file,
    update_settings_file,
    validate_change,
)
from docent.core.errors import SettingsError


def test_docent_home_puts_everything_under_one_folder(_isolated_home: Path) -> None:
    s = load_settings()
    for p in (s.data_path, s.store_path, s.text_cache_path, s.log_path, s.catalog_path):
        assert p.is_relative_to(_isolated_home)


def test_env_override_and_file_roundtrip(
    _isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = validate_change(Settings(), ollama_model="qwen2.5:7b", watched_folders=["/tmp/a"])
    path = save_settings(s)
    assert path.parent == _isolated_home
    assert load_settings().ollama_model == "qwen2.5:7b"
    monkeypatch.setenv("DOCENT_OLLAMA_MODEL", "phi3")
    loaded = load_settings()
    assert loaded.ollama_model == "phi3"
    assert loaded.watched_folders == ["/tmp/a"]


def test_any_text_a_setting_holds_is_saved_so_it_loads_again(
    _isolated_home: Path, tmp_path: Path
) -> None:
    """An emoji was saved as a JSON surrogate pair, which TOML refuses: the settings file
    no longer loaded and no command started (review)."""
    shelf = tmp_path / '📚 Reading, "quoted" & back\\slash'
    shelf.mkdir()
    preamble = "Tab\there, a new line\nthen DEL \x7f and ü, 日本語, 🦙."
    s = validate_change(Settings(), watched_folders=[str(shelf)], domain_preamble=preamble)
    save_settings(s)
    loaded = load_settings()
    assert loaded.watched_folders == [str(shelf)] and loaded.domain_preamble == preamble
    update_settings_file({"domain_preamble": preamble + " 🐚"})
    assert load_settings().domain_preamble == preamble + " 🐚"


def test_bad_value_names_the_key_and_why(_isolated_home: Path) -> None:
    (_isolated_home).mkdir(parents=True, exist_ok=True)
    (_isolated_home / "settings.toml").write_text(
        'embed_batch_size = 500\nqdrant_url = "ftp://x"\n'
    )
    with pytest.raises(SettingsError) as err:
        load_settings()
    msg = str(err.value)
    assert "embed_batch_size" in msg and "must be at most 64" in msg
    assert "qdrant_url" in msg and "http" in msg
    # each key's problem in plain words, for a form to show next to its field; a
    # server's example uses its own port (Qdrant's, not Ollama's)
    assert err.value.problems == {
        "embed_batch_size": "must be at most 64",
        "qdrant_url": "must start with http:// or https:// and name a host, like "
        "http://127.0.0.1:6333",
    }


def test_problems_are_said_in_plain_words() -> None:
    from docent.core.config import Settings, validate_change

    with pytest.raises(SettingsError) as err:
        validate_change(
            Settings(),
            ollama_host="localhost:11434",
            llm_context_tokens="lots",
            summary_type="long",
            extract_in_subprocess="perhaps",
        )
    assert err.value.problems == {
        "ollama_host": "must start with http:// or https:// and name a host, like "
        "http://127.0.0.1:11434 (did you mean http://localhost:11434?)",
        "llm_context_tokens": "must be a whole number",
        "summary_type": "must be one of brief, detailed or bullets",
        "extract_in_subprocess": "must be true or false",
    }
    assert "Input should" not in str(err.value) and "Value error" not in str(err.value)


def test_unknown_key_is_refused(_isolated_home: Path) -> None:
    (_isolated_home).mkdir(parents=True, exist_ok=True)
    (_isolated_home / "settings.toml").write_text("ollama_modle = 'x'\n")
    with pytest.raises(SettingsError, match="ollama_modle.*not a known setting") as err:
        load_settings()
    assert "did you mean ollama_model?" in str(err.value)  # (QA, session 32)
    (_isolated_home / "settings.toml").write_text("colour_scheme = 'dark'\n")
    with pytest.raises(SettingsError, match="colour_scheme.*not a known setting") as err:
        load_settings()
    assert "did you mean" not in str(err.value)  # nothing near


def test_a_mistyped_variable_is_refused_and_a_relative_home_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """QA-77: DOCENT_OLAMA_MODEL was ignored (the default model used), and a relative
    DOCENT_HOME opened a library under each folder Docent was started in."""
    monkeypatch.setenv("DOCENT_OLAMA_MODEL", "x")
    with pytest.raises(SettingsError, match="DOCENT_OLAMA_MODEL is not a setting") as err:
        load_settings()
    assert "did you mean DOCENT_OLLAMA_MODEL?" in str(err.value)
    monkeypatch.delenv("DOCENT_OLAMA_MODEL")
    monkeypatch.setenv("DOCENT_CORPUS", "/elsewhere")  # a test's switch: nothing near
    assert load_settings().ollama_model
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCENT_HOME", "rel-home")
    with pytest.raises(SettingsError, match="DOCENT_HOME: give a full path"):
        load_settings()
    assert not (tmp_path / "rel-home").exists()


def test_env_bad_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCENT_EMBED_BATCH_SIZE", "lots")
    with pytest.raises(SettingsError, match="environment variable DOCENT_EMBED_BATCH_SIZE"):
        load_settings()


def test_a_bad_value_in_the_file_and_its_variable_are_both_said(
    _isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the variable's was said; unset, the file's error came next (QA, session 32)."""
    _isolated_home.mkdir(parents=True, exist_ok=True)
    settings_file().write_text('results_k = "lots"\n')
    monkeypatch.setenv("DOCENT_RESULTS_K", "-3")
    with pytest.raises(SettingsError) as err:
        load_settings()
    said = str(err.value)
    assert said.startswith(
        "Bad settings: environment variable DOCENT_RESULTS_K: must be at least 0."
    )
    assert f"In {settings_file()}, which it overrides, 'results_k' is bad too: must be" in said
    settings_file().write_text("results_k = 5\n")  # a good file value: not mentioned
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "bad too" not in str(err.value)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("key", ["extract_page_timeout", "summary_seconds_per_page"])
def test_nan_or_inf_in_a_setting_is_said_to_be_no_number(
    _isolated_home: Path, key: str, value: str
) -> None:
    """TOML has ``nan`` and ``inf``: ``extract_page_timeout = nan`` was refused as "must be
    at most 3600", which it is not about (the value is not a number at all)."""
    _isolated_home.mkdir(parents=True, exist_ok=True)
    settings_file().write_text(f"{key} = {value}\n")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert err.value.problems == {key: "must be a number"}


def test_invalid_toml_says_so(_isolated_home: Path) -> None:
    (_isolated_home).mkdir(parents=True, exist_ok=True)
    (_isolated_home / "settings.toml").write_text("this is = = not toml")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings()


def test_a_settings_file_with_a_byte_order_mark_loads(_isolated_home: Path) -> None:
    """Notepad (before 2019) and some editors save UTF-8 with a BOM: the file was refused
    as "not valid TOML: Invalid statement (at line 1, column 1)", naming nothing wrong."""
    _isolated_home.mkdir(parents=True, exist_ok=True)
    settings_file().write_bytes(
        b'\xef\xbb\xbfollama_model = "qwen2.5:3b"\r\nsummary_type = "bullets"\r\n'
    )
    s = load_settings()
    assert s.ollama_model == "qwen2.5:3b" and s.summary_type == "bullets"
    # and the writers that read the file first (the dialog's Save, `docent watch DIR`)
    assert saved_value("ollama_model") == "qwen2.5:3b"
    update_settings_file({"summary_type": "brief"})
    assert load_settings().ollama_model == "qwen2.5:3b"


def test_a_settings_file_that_cannot_be_read_is_said_in_a_sentence(
    _isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """settings.toml a folder (or unreadable: permission denied, an I/O error): every
    command ended in an IsADirectoryError traceback, and the window did not open (it
    says a SettingsError only)."""
    from docent.cli import main

    settings_file().mkdir(parents=True)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(settings_file()) in str(err.value) and "Is a directory" in str(err.value)
    assert main(["list", "--json"]) == 1
    out, said = capsys.readouterr()
    assert out == "" and said.startswith("docent: ") and "settings.toml" in said


def test_a_data_folder_that_is_a_file_is_refused_when_saved(tmp_path: Path) -> None:
    """Settings ▸ Data folder set to a file (a slip in Browse…) was saved without a word;
    the next start refused to open the library, and the window with it, until
    settings.toml was edited by hand. Save and Test go through ``validate_change``."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    for data_dir in (a_file, a_file / "Library"):
        with pytest.raises(SettingsError) as err:
            validate_change(Settings(), data_dir=str(data_dir))
        assert err.value.problems == {"data_dir": f"{a_file} is a file, not a folder"}
    fresh = tmp_path / "new" / "Library"  # a folder still to be made is fine
    assert validate_change(Settings(), data_dir=str(fresh)).data_path == fresh


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("data_dir", "Library"),
        ("watched_folders", ["Notes"]),
        ("rerank_model_dir", "models/reranker"),
        ("embedding_model", "./models/mine"),
    ],
)
def test_a_relative_folder_is_refused_asking_for_a_full_path(
    _isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, value: object
) -> None:
    """``data_dir = "Library"`` was taken relative to the folder Docent was started from:
    `docent list` in ~/a and in ~/b opened two libraries (each made empty on first use),
    the window started from a menu a third; watched folders and model folders alike."""
    monkeypatch.chdir(tmp_path)
    for folder in ("Library", "Notes", "models/reranker", "models/mine"):
        (tmp_path / folder).mkdir(parents=True)  # they exist here, and only here
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), **{key: value})
    assert "give a full path" in err.value.problems[key]
    _isolated_home.mkdir(parents=True, exist_ok=True)
    line = f"{key} = {json.dumps(value)}\n"
    settings_file().write_text(line)
    with pytest.raises(SettingsError, match=f"setting '{key}': give a full path"):
        load_settings()
    settings_file().write_text('data_dir = "~/Library"\n')  # ~ is a full path
    assert load_settings().data_path == Path.home() / "Library"


def test_a_url_scheme_in_capitals_is_checked_as_the_same_scheme(tmp_path: Path) -> None:
    """The scheme is case-insensitive (qdrant-client connects to HTTP://... over http),
    but the checks compared text: an API key was accepted for, and sent unencrypted to,
    "HTTP://qdrant.example.org", and a CA file was refused for "HTTPS://..."."""
    with pytest.raises(SettingsError) as err:
        validate_change(
            Settings(), qdrant_url="HTTP://qdrant.example.org:6333", qdrant_api_key="s3cr3t"
        )
    assert "would be sent unencrypted" in err.value.problems["qdrant_api_key"]
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    s = validate_change(
        Settings(), qdrant_url="HTTPS://qdrant.example.org:6333", qdrant_ca_file=str(ca)
    )
    assert s.qdrant_ca_file == str(ca)


def test_an_ollama_host_with_a_path_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ollama's client adds /api/chat itself: /api here posted to /api/api/chat, a 404
    # the app read as "model not installed"
    monkeypatch.setenv("DOCENT_OLLAMA_HOST", "http://127.0.0.1:11500/api")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "environment variable DOCENT_OLLAMA_HOST" in str(err.value)
    assert err.value.problems == {
        "ollama_host": "give the server's address without a path, like http://127.0.0.1:11434"
    }
    monkeypatch.setenv("DOCENT_OLLAMA_HOST", "http://127.0.0.1:11500/")
    assert load_settings().ollama_host == "http://127.0.0.1:11500"


def test_a_qdrant_url_keeps_its_path_for_a_server_behind_a_proxy() -> None:
    s = validate_change(Settings(), qdrant_url="https://db.example.org:443/qdrant/")
    assert s.qdrant_url == "https://db.example.org:443/qdrant"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("::1", "an IPv6 address goes in brackets, like http://[::1]:11434"),
        ("http://host:11434/#", "without a path"),  # saved with its '#', posted to '/'
        ("http://host:11434?x=1", "without a path"),
        ("http://host:/", "its port is missing after the ':'"),  # saved as 'http://host:'
    ],
)
def test_an_ollama_address_that_would_misroute_is_refused(value: str, problem: str) -> None:
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), ollama_host=value)
    assert problem in err.value.problems["ollama_host"]
    assert "port 1 " not in err.value.problems["ollama_host"]
    assert validate_change(Settings(), ollama_host="http://[::1]:11434").ollama_host == (
        "http://[::1]:11434"
    )


@pytest.mark.parametrize("typed", ["localhost", "127.0.0.1", "gpu-box", "[::1]"])
def test_the_ollama_host_docent_suggests_reaches_ollamas_port(typed: str) -> None:
    """Ollama host "localhost" (what OLLAMA_HOST takes, meaning port 11434) was refused
    "(did you mean http://localhost?)"; the suggestion was accepted, and the ollama
    client sent every request to port 80: the banner said Ollama was not running."""
    from docent.core.llm import OllamaClient

    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), ollama_host=typed)
    suggested = re.search(r"did you mean (\S+)\?", err.value.problems["ollama_host"])
    assert suggested is not None and suggested.group(1) == f"http://{typed}:11434"
    client = OllamaClient.from_settings(validate_change(Settings(), ollama_host=suggested[1]))
    try:
        url = client._stream_client._client.base_url  # where requests go
        assert url.port == 11434
    finally:
        client.close()
    proxied = validate_change(Settings(), ollama_host=f"https://{typed}")  # TLS: a proxy's 443
    assert proxied.ollama_host == f"https://{typed}"


def test_a_portless_http_ollama_host_loads_and_its_failure_names_port_80_and_11434() -> None:
    """ "http://gpu-box" means port 80: a proxy's, or a slip for Ollama's 11434. Refused when
    loaded, a settings file that worked behind a proxy stopped Docent from starting (review
    s21); taken without a word, the banner said Ollama was not running when it was, on
    11434. It loads, and when nothing answers there the message says port 80 and 11434."""
    from docent.core.llm import OllamaClient

    host = "http://127.0.0.1"  # nothing listens on port 80 here
    settings = validate_change(Settings(), ollama_host=host)
    assert settings.ollama_host == host
    client = OllamaClient.from_settings(settings)
    try:
        health = client.health(timeout=2.0)
    finally:
        client.close()
    assert not health.ok
    assert "port 80" in health.message and "http://127.0.0.1:11434" in health.message, (
        health.message
    )


@pytest.mark.parametrize("key, port", [("ollama_host", 11434), ("qdrant_url", 6333)])
def test_a_port_out_of_range_is_named(key: str, port: int) -> None:
    out_of_range = f"its port 99999 is not a number from 1 to 65535, like http://127.0.0.1:{port}"
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), **{key: "http://localhost:99999"})
    assert err.value.problems == {key: out_of_range}
    # without the scheme: both problems at once, not a suggestion refused in turn
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), **{key: "localhost:99999"})
    assert err.value.problems == {key: "must start with http:// or https://, and " + out_of_range}
    with pytest.raises(SettingsError, match="its port 0 is not a number from 1 to 65535"):
        validate_change(Settings(), **{key: "http://localhost:0"})


ACCEPTED = (
    "use the bundled model 'sentence-transformers/all-MiniLM-L6-v2', or a folder holding "
    "a sentence-transformers model in ONNX (model.onnx or onnx/model.onnx, with "
    "tokenizer.json beside it)"
)


def test_an_unknown_embedding_model_is_refused_when_saved() -> None:
    # it was saved, and after the restart every question failed
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), embedding_model="-5")
    assert err.value.problems == {
        "embedding_model": f"'-5' is not a model Docent can load: {ACCEPTED}"
    }
    assert "list_supported_models" not in str(err.value)


def test_an_unknown_embedding_model_is_refused_at_load(
    _isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _isolated_home.mkdir(parents=True, exist_ok=True)
    (_isolated_home / "settings.toml").write_text('embedding_model = "-5"\n')
    with pytest.raises(SettingsError, match=r"setting 'embedding_model': '-5' is not a model"):
        load_settings()
    monkeypatch.setenv("DOCENT_EMBEDDING_MODEL", "no/such-model")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "environment variable DOCENT_EMBEDDING_MODEL" in str(err.value)
    assert "'no/such-model' is not a model Docent can load" in str(err.value)


def test_a_model_folder_missing_at_start_does_not_keep_docent_from_starting(
    _isolated_home: Path, tmp_path: Path
) -> None:
    """A folder on a drive not plugged in: the settings load (the model's load says what
    is wrong, in a window the user can fix it from); saved anew, it is refused."""
    unplugged = tmp_path / "usb" / "my-model"
    _isolated_home.mkdir(parents=True, exist_ok=True)
    (_isolated_home / "settings.toml").write_text(f'embedding_model = "{unplugged}"\n')
    loaded = load_settings()
    assert loaded.embedding_model == str(unplugged)
    assert validate_change(loaded, ollama_model="qwen2.5:3b").ollama_model == "qwen2.5:3b"
    with pytest.raises(SettingsError, match="setting 'embedding_model'.*is not a folder"):
        validate_change(Settings(), embedding_model=str(unplugged))


def test_a_fastembed_model_not_on_this_machine_is_refused(_isolated_home: Path) -> None:
    # fastembed knows it, but Docent never downloads: it could not load at the next start
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), embedding_model="BAAI/bge-small-en-v1.5")
    problem = err.value.problems["embedding_model"]
    assert problem.startswith("'BAAI/bge-small-en-v1.5' is a fastembed model, but its files")
    assert str(_isolated_home / "models") in problem and "never downloads" in problem


def test_an_embedding_model_folder_is_accepted_when_it_holds_a_model(tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx" / "model.onnx").write_bytes(b"onnx")
    with pytest.raises(SettingsError) as err:
        validate_change(Settings(), embedding_model=str(folder))
    assert err.value.problems == {
        "embedding_model": f"{folder} has no tokenizer.json beside its model: {ACCEPTED}"
    }
    (folder / "tokenizer.json").write_text("{}")
    assert validate_change(Settings(), embedding_model=str(folder)).embedding_model == str(folder)
    with pytest.raises(SettingsError, match="is not a folder"):
        validate_change(Settings(), embedding_model=str(tmp_path / "gone"))


def test_a_web_server_on_port_80_is_not_taken_for_ollama_missing_a_model() -> None:
    """Ollama host "http://gpu-box" (port 80), where a web server answers 404 in HTML: the
    chat said "Model 'llama3.2' is not installed — run ollama pull", which is false
    (review s21). Ollama's own 404 names the model, and still says that."""
    import ollama

    from docent.core.errors import ModelNotFound, NotOllama
    from docent.core.llm import OllamaClient

    client = OllamaClient.from_settings(validate_change(Settings(), ollama_host="http://gpu-box"))
    try:
        web = client._map_error(ollama.ResponseError("<html>Not Found</html>", 404), "m", 1.0)
        own = client._map_error(
            ollama.ResponseError('model "m" not found, try pulling it first', 404), "m", 1.0
        )
        proxied = client._map_error(
            ollama.ResponseError("llama runner process has terminated", 500), "m", 1.0
        )
    finally:
        client.close()
    assert isinstance(web, NotOllama)  # its kind picks the advice: none, the message says it
    assert not isinstance(proxied, NotOllama)
    assert "port 80" not in str(proxied), str(proxied)  # Ollama behind a proxy, failing
    assert "port 80" in str(web) and "http://gpu-box:11434" in str(web), str(web)
    assert isinstance(own, ModelNotFound)


@pytest.mark.parametrize("variable", ["DOCENT_DATA_DIR", "DOCENT_HOME"])
def test_a_bad_data_folder_names_the_variable_that_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """`DOCENT_DATA_DIR=/proc/foo docent list` said "cannot create its data folder
    /proc/foo" and not where that came from; DOCENT_HOME's said it (QA, session 27)."""
    from docent.core.datafolder import check_data_folder
    from docent.core.errors import DataFolderError

    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    monkeypatch.setenv(variable, str(not_a_folder))
    with pytest.raises(DataFolderError, match=rf"{not_a_folder} \({variable}\) is a file"):
        check_data_folder(not_a_folder)
    monkeypatch.delenv(variable)
    with pytest.raises(DataFolderError) as plain:
        check_data_folder(not_a_folder)  # from settings.toml: no variable named
    assert "(DOCENT_" not in str(plain.value)
