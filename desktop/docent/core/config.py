"""Settings: a pydantic model loaded from ``settings.toml`` with ``DOCENT_*`` overrides.

Where things live:
- ``DOCENT_HOME`` set: everything (settings, store, text cache, logs) under that folder.
- otherwise the platform's config and data folders (platformdirs).

Every key is declared with bounds and ``extra="forbid"``, so a typo or a bad value in the
file or the environment fails at load with a message naming the key and saying why.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import ErrorDetails

from docent.core.datafolder import existing_parent
from docent.core.errors import SettingsError
from docent.core.model_files import BUNDLED_MODEL, EmbeddingError, check_model, model_folder

APP_NAME = "docent"
ENV_PREFIX = "DOCENT_"
#: The password in ``scheme://user:password@host``.
_PASSWORD = re.compile(r"^([^:/?#]*://[^:/?#@]*:)[^/?#]*@")
REPO_ROOT = Path(__file__).resolve().parents[3]


def resources_dir() -> Path:
    """The bundled resources (models, samples): DOCENT_RESOURCES (the desktop bundle sets
    it), else the source tree's (a clone, ``pip install -e``), else those that ``pip
    install .`` and pipx put under ``<prefix>/share/docent`` (pyproject's data-files)."""
    env = os.environ.get("DOCENT_RESOURCES")
    if env:
        return Path(env)
    tree = REPO_ROOT / "resources"
    if tree.is_dir():
        return tree
    return Path(sys.prefix) / "share" / "docent" / "resources"


#: The port each service listens on by default: a message's example uses the right one.
OLLAMA_PORT = 11434
QDRANT_PORT = 6333


def _loopback(url: str) -> bool:
    return (urlparse(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def _scheme(url: str) -> str:
    """``url``'s scheme in lower case: it is case-insensitive, and "HTTP://host" compared
    as text let an API key go unencrypted and refused a CA file for "HTTPS://host"."""
    return urlparse(url).scheme.lower()


def _url_problem(value: str, port: int, path_allowed: bool) -> str | None:
    """What is wrong with ``value`` as a server's http(s) URL, or None."""
    example = f"http://127.0.0.1:{port}"
    if "::" in value and "[" not in value:
        return f"an IPv6 address goes in brackets, like http://[::1]:{port}"
    try:
        parsed = urlparse(value)
        bad_port = parsed.port == 0
    except ValueError:  # a port that is not a number, or past 65535
        bad_port = True
    if not bad_port and parsed.netloc.endswith(":"):
        return f"its port is missing after the ':', like {example}"
    if bad_port:
        given = urlparse(value).netloc.rpartition("@")[2].rpartition(":")[2]
        return f"its port {given} is not a number from 1 to 65535, like {example}"
    if parsed.scheme not in ("http", "https") or not parsed.hostname or " " in value:
        return f"must start with http:// or https:// and name a host, like {example}"
    if (parsed.path.strip("/") and not path_allowed) or "?" in value or "#" in value:
        return f"give the server's address without a path, like {example}"
    return None


def with_port(url: str, port: int) -> str:
    """``url`` with ``port`` when it names none: "localhost" typed for a server means its
    service's port (as OLLAMA_HOST takes it), and "http://localhost" is port 80."""
    try:
        parsed = urlparse(url)
        if parsed.port is not None or not parsed.hostname:
            return url
    except ValueError:  # a bad port: said by the check
        return url
    return parsed._replace(netloc=f"{parsed.netloc}:{port}").geturl()


def _check_url(value: str, port: int, path_allowed: bool = False) -> str:
    """``value`` as an http(s) URL naming a host; the error's example uses ``port``.

    ``path_allowed``: a server behind a proxy at a path (Qdrant's client takes it as
    its prefix). Ollama's client adds ``/api/...`` itself, so there a path such as
    ``/api`` would post to ``/api/api/chat`` and every request would fail.
    """
    problem = _url_problem(value, port, path_allowed)
    if problem and "://" not in value and " " not in value.strip():
        # A scheme is missing: suggest it only when adding it is all that is needed.
        meant = with_port(f"http://{value.strip()}", port)
        other = _url_problem(meant, port, path_allowed)
        if other is None:
            problem += f" (did you mean {meant}?)"
        else:  # say both, so that adding the scheme is not followed by another refusal
            problem = f"must start with http:// or https://, and {other}"
    if problem:
        raise ValueError(problem)
    return value.rstrip("/")


def _full_path(value: str) -> str:
    """``value`` unless it is a relative path, which would name another folder for each
    folder Docent is started from (`docent list` in ~/a and in ~/b opened two libraries,
    the window started from a menu a third): refused, asking for a full one."""
    if not Path(value).expanduser().is_absolute():
        raise ValueError(
            f"give a full path ({value} is relative, so it would depend on the folder "
            "Docent is started from), like ~/Documents/Docent or /home/you/Docent"
        )
    return value


class Settings(BaseModel):
    # TOML has nan and inf: no limit is either ("nan" was refused as "must be at most 3600").
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    # Where the data lives. Empty: the platform default (or DOCENT_HOME).
    data_dir: str = ""
    # Qdrant server/cluster. Empty: the embedded Qdrant Edge store under data_dir.
    # https:// in the URL means TLS; qdrant_ca_file trusts a server's own CA (PEM).
    qdrant_url: str = ""
    qdrant_api_key: str = ""
    qdrant_ca_file: str = ""
    qdrant_timeout: int = Field(10, ge=1, le=600)  # seconds for one request to the server
    # Collections Docent creates on a server: shards, copies of each shard, and how many
    # copies must take a write before the server acknowledges it. Existing ones keep theirs.
    qdrant_shards: int = Field(1, ge=1, le=256)
    qdrant_replicas: int = Field(1, ge=1, le=16)
    qdrant_write_consistency: int = Field(1, ge=1, le=16)

    embedding_model: str = BUNDLED_MODEL
    # Texts the model embeds in one run. A question's search waits for the run under way
    # (embedding.QueriesFirst): 4 since session 33, as fast as 16 (19.2 against 18.8
    # chunks/s, 32: 17.0) and a search beside indexing waited 0.25 s, not 1.6 s
    # (benchmarks/search_while_indexing.py).
    embed_batch_size: int = Field(4, ge=1, le=64)
    # onnxruntime threads for embedding; 0: automatic (the desktop app leaves one core for
    # the window, the command line uses them all).
    embed_threads: int = Field(0, ge=0, le=256)
    # Extraction in a separate process so parsing uses the second core, and so a file
    # that runs past these limits can be stopped (the limits hold only in that process).
    extract_in_subprocess: bool = True
    # Read PDF pages that have no usable text layer (scans) by OCR, in the extraction
    # process. Off: such pages are skipped and a scan-only PDF fails with "no text".
    ocr_enabled: bool = True
    extract_page_timeout: float = Field(30.0, gt=0, le=3600)  # seconds for one PDF page
    extract_ocr_page_timeout: float = Field(180.0, gt=0, le=3600)  # one page read by OCR
    # Seconds for a whole file, plus a tenth of it per MB, outside its pages read by OCR
    # (those have their own limit each): a file whose every page stays just under the page
    # limit must still end.
    extract_file_timeout: float = Field(600.0, gt=0, le=86400)
    extract_memory_mb: int = Field(2048, ge=64, le=65536)
    max_text_file_mb: int = Field(10, ge=1, le=10000)

    ollama_host: str = ""  # empty: OLLAMA_HOST, else http://127.0.0.1:11434
    ollama_model: str = "llama3.2:3b"
    llm_connect_timeout: float = Field(2.0, gt=0, le=60)
    llm_first_token_timeout: float = Field(120.0, gt=0, le=3600)
    llm_total_timeout: float = Field(600.0, gt=0, le=7200)
    llm_context_tokens: int = Field(4096, ge=512, le=262144)
    # Tokens an answer may take (num_predict); 0: sized to the question (192 for a fact,
    # 384 for how/why), so no answer runs for minutes.
    llm_answer_tokens: int = Field(0, ge=0, le=8192)
    llm_max_requests_per_question: int = Field(3, ge=1, le=10)
    # When no sentence of an answer is supported by the passages it was given, ask the
    # model again with another seed, at most this many times (and within
    # llm_max_requests_per_question); 0: never.
    llm_answer_retries: int = Field(2, ge=0, le=5)
    # Before the answer, ask the model which of the search's best passages answer the
    # question and put those first (llm_rerank.py): one more request per answer, within
    # llm_max_requests_per_question (so one retry fewer). Off: measured with no effect
    # (README, issue 16).
    llm_rerank: bool = False
    domain_preamble: str = ""

    results_k: int = Field(0, ge=0, le=100)  # 0: adaptive
    # A folder holding a cross-encoder in ONNX, tokenizer.json beside it, that reranks
    # every search's best candidates (cross_encoder.py); empty: off (none ships).
    rerank_model_dir: str = ""
    max_chunks_per_document: int = Field(3, ge=1, le=100)

    max_words_per_section: int = Field(1500, ge=100, le=100000)
    summary_type: Literal["brief", "detailed", "bullets"] = "brief"
    summary_timeout_per_call: float = Field(300.0, gt=0, le=7200)
    summary_timeout_total: float = Field(3600.0, gt=0, le=86400)
    # A summary estimated (from its first model call) to take longer than this many
    # seconds per page offers an extractive summary now and the model's in the
    # background: ~2 minutes for 30 pages; never under 30 s (summary_budget.LIMIT_FLOOR).
    # 0: never offer.
    summary_seconds_per_page: float = Field(4.0, ge=0, le=3600)

    watched_folders: list[str] = Field(default_factory=list)
    sweep_interval_minutes: float = Field(10.0, ge=0, le=1440)  # 0: no periodic sweep

    @field_validator("data_dir")
    @classmethod
    def _data_dir(cls, v: str) -> str:
        return _full_path(v) if v else v

    @field_validator("watched_folders")
    @classmethod
    def _watched_folders(cls, v: list[str]) -> list[str]:
        """Each folder as Docent spells it (absolute, ``~`` expanded, no trailing slash),
        once: "~/Notes" was "missing" for good, "/x/Papers/" could not be unwatched. A
        relative one is refused (``_full_path``)."""
        spelled = (os.path.abspath(os.path.expanduser(_full_path(f))) for f in v if f.strip())
        return list(dict.fromkeys(spelled))

    @field_validator("rerank_model_dir")
    @classmethod
    def _rerank_model_dir(cls, v: str) -> str:
        if not v:
            return v
        _full_path(v)
        from docent.core.cross_encoder import CrossEncoderError, check_folder

        try:
            check_folder(Path(v).expanduser())
        except CrossEncoderError as exc:
            raise ValueError(str(exc)) from None
        return v

    @field_validator("qdrant_url")
    @classmethod
    def _qdrant_url(cls, v: str) -> str:
        return _check_url(v, QDRANT_PORT, path_allowed=True) if v else v

    @field_validator("qdrant_api_key")
    @classmethod
    def _api_key_over_tls(cls, v: str, info: ValidationInfo) -> str:
        url = str(info.data.get("qdrant_url") or "")
        if v and _scheme(url) == "http" and not _loopback(url):
            raise ValueError(
                f"would be sent unencrypted to {redact_url(url)}: use an https:// server URL "
                "(a key goes over http:// only to this machine)"
            )
        return v

    @field_validator("qdrant_ca_file")
    @classmethod
    def _ca_file(cls, v: str, info: ValidationInfo) -> str:
        if not v:
            return v
        if not Path(v).expanduser().is_file():
            raise ValueError(f"{v} is not a file (a PEM file of the CA that signed the server)")
        url = str(info.data.get("qdrant_url") or "")
        if url and _scheme(url) != "https":
            raise ValueError("is only used with an https:// server URL")
        return v

    @field_validator("qdrant_write_consistency")
    @classmethod
    def _write_consistency(cls, v: int, info: ValidationInfo) -> int:
        replicas = info.data.get("qdrant_replicas")
        if isinstance(replicas, int) and v > replicas:
            raise ValueError(
                f"must be at most qdrant_replicas ({replicas}): a write cannot wait for "
                "more copies than there are"
            )
        return v

    @field_validator("ollama_host")
    @classmethod
    def _ollama_host(cls, v: str) -> str:
        """A URL. "http://gpu-box" is port 80, as the ollama client takes it: a proxy's, or
        a slip for Ollama's 11434, which the message when nothing answers there names
        (``OllamaClient._unavailable``); refused, a settings file that worked behind a
        proxy stopped Docent from starting (review s21)."""
        if not v:
            return v
        return _check_url(v, OLLAMA_PORT)

    @field_validator("embedding_model", "ollama_model")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()

    @field_validator("embedding_model")
    @classmethod
    def _embedding_model(cls, v: str) -> str:
        """A name no model has is refused wherever it comes from; whether a folder's or a
        fastembed model's files are here is checked when the value changes
        (``validate_change``), so a folder on a drive not plugged in does not keep Docent
        from starting."""
        if v == BUNDLED_MODEL:
            return v  # the default: no import of fastembed at startup
        if model_folder(v) is not None:
            _full_path(v)
        try:
            check_model(v, None, files=False)
        except EmbeddingError as exc:
            raise ValueError(str(exc)) from None
        return v

    # Derived locations -------------------------------------------------------

    def effective_ollama_host(self) -> str:
        return (
            self.ollama_host
            or os.environ.get("OLLAMA_HOST", "")
            or f"http://127.0.0.1:{OLLAMA_PORT}"
        )

    @property
    def data_path(self) -> Path:
        if self.data_dir:
            return Path(self.data_dir).expanduser()
        return default_data_dir()

    @property
    def store_path(self) -> Path:
        return self.data_path / "qdrant"

    @property
    def text_cache_path(self) -> Path:
        return self.data_path / "text"

    @property
    def log_path(self) -> Path:
        return self.data_path / "logs"

    @property
    def catalog_path(self) -> Path:
        return self.data_path / "catalog.sqlite3"

    @property
    def model_cache_path(self) -> Path:
        return self.data_path / "models"


def _home() -> Path | None:
    home = os.environ.get("DOCENT_HOME")
    if not home:
        return None
    try:  # a relative one opened a library under each folder Docent started in (QA-77)
        _full_path(home)
    except ValueError as exc:
        raise SettingsError(f"Bad settings: environment variable DOCENT_HOME: {exc}.") from None
    return Path(home).expanduser()


def default_data_dir() -> Path:
    home = _home()
    if home:
        return home
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    home = _home()
    if home:
        return home
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def settings_file() -> Path:
    return config_dir() / "settings.toml"


def _plain(e: ErrorDetails) -> str:
    """What pydantic found wrong, in words a user reads ("must be a number", not
    "Input should be a valid number, unable to parse string as a number")."""
    kind, ctx = e["type"], e.get("ctx") or {}
    if kind == "value_error":
        return str(ctx.get("error", e["msg"]))
    if kind == "extra_forbidden":
        return "is not a known setting (check the spelling)"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "must be a whole number"
    if kind in ("float_parsing", "float_type", "finite_number"):
        return "must be a number"
    if kind in ("bool_parsing", "bool_type"):
        return "must be true or false"
    if kind == "literal_error":
        return "must be one of " + str(ctx.get("expected", "")).replace("'", "")
    bounds = {
        "greater_than": "more than",
        "greater_than_equal": "at least",
        "less_than": "less than",
        "less_than_equal": "at most",
    }
    if kind in bounds:
        limit = next(iter(ctx.values()), "")
        shown = f"{limit:g}" if isinstance(limit, float) else limit  # "0", not "0.0"
        return f"must be {bounds[kind]} {shown}"
    if kind in ("string_type", "list_type"):
        return "must be " + ("text" if kind == "string_type" else "a list")
    return str(e["msg"])


def _problems(err: ValidationError) -> dict[str, str]:
    """Each bad key and what is wrong with it, in plain words."""
    out: dict[str, str] = {}
    for e in err.errors():
        key = str(e["loc"][0]) if e["loc"] else "(settings)"
        problem = _plain(e)
        if e["type"] == "extra_forbidden":
            meant = difflib.get_close_matches(
                key.lower(), list(Settings.model_fields), n=1, cutoff=0.8
            )
            if meant:  # "ollama_modle" (QA, session 32)
                problem = f"is not a known setting (did you mean {meant[0]}?)"
        out.setdefault(key, problem)
    return out


def _format_errors(err: ValidationError, source: str, env: dict[str, str] | None = None) -> str:
    """One sentence naming each bad key, and where it came from: an environment variable
    (``env``: key -> variable) or ``source``; what is wrong in plain words."""
    env = env or {}
    lines = []
    in_source = False
    for key, msg in _problems(err).items():
        variable = env.get(key)
        name = f"environment variable {variable}" if variable else f"setting '{key}'"
        in_source = in_source or variable is None
        lines.append(f"{name} {msg}" if msg.startswith("is ") else f"{name}: {msg}")
    where = f" in {source}" if in_source else ""
    return f"Bad settings{where}: " + "; ".join(lines)


def settings_error(
    err: ValidationError, source: str, env: dict[str, str] | None = None
) -> SettingsError:
    return SettingsError(_format_errors(err, source, env), _problems(err))


def _env_overrides() -> tuple[dict[str, Any], dict[str, str]]:
    """Settings from DOCENT_* variables, and which variable gave each key."""
    names = env_overridden()  # other DOCENT_* variables (test switches etc.) are not settings
    out: dict[str, Any] = {
        key: _watched_from_env(name, os.environ[name])
        if key == "watched_folders"
        else os.environ[name]
        for key, name in names.items()
    }
    return out, names


def env_overridden() -> dict[str, str]:
    """The settings a DOCENT_* variable sets, and its name: a change made elsewhere
    lasts until the next start, when the variable wins again."""
    fields = Settings.model_fields
    return {
        name[len(ENV_PREFIX) :].lower(): name
        for name in os.environ
        if name.startswith(ENV_PREFIX)
        and name not in _NOT_SETTINGS
        and name[len(ENV_PREFIX) :].lower() in fields
    }


def _check_env_names() -> None:
    """A ``DOCENT_*`` variable that is no setting but nearly names one is a typo: refused
    as an unknown key of settings.toml is (QA-77: DOCENT_OLAMA_MODEL was ignored, and
    the default model used). Others (a test's switch) are left alone."""
    fields = list(Settings.model_fields)
    for name in sorted(os.environ):
        key = name[len(ENV_PREFIX) :].lower()
        if not name.startswith(ENV_PREFIX) or key in fields or name in _NOT_SETTINGS:
            continue
        if meant := difflib.get_close_matches(key, fields, n=1, cutoff=0.8):
            right = ENV_PREFIX + meant[0].upper()
            raise SettingsError(
                f"Bad settings: environment variable {name} is not a setting (did you mean "
                f"{right}?).",
                {meant[0]: f"{name} is not a setting (did you mean {right}?)"},
            )


#: DOCENT_* variables that are no settings (where the data and the resources are).
_NOT_SETTINGS = frozenset({"DOCENT_HOME", "DOCENT_RESOURCES"})


def _watched_from_env(name: str, value: str) -> list[str]:
    if not value.startswith("["):
        return [f for f in value.split(os.pathsep) if f]  # "" is no folder (review)
    try:
        folders = json.loads(value)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"Bad settings: environment variable {name} is not a JSON list of folders "
            f'({exc.msg} at character {exc.pos}); write it as ["/a", "/b"] or as '
            f"folders separated by '{os.pathsep}'."
        ) from exc
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise SettingsError(
            f"Bad settings: environment variable {name} is not a JSON list of folders."
        )
    return folders


def redact_url(url: str) -> str:
    """``url`` without the password of its user part (for messages and logs); works on
    malformed URLs too, which are the ones error messages quote."""
    return _PASSWORD.sub(r"\1***@", url)


def check_ollama_host_env() -> None:
    """OLLAMA_HOST is Ollama's own variable: held to what the ollama client accepts
    (``host``, ``host:port``, an http(s) URL), named when it is not. Checked before
    anything imports ``ollama``, whose module-level client fails on a bad value."""
    value = os.environ.get("OLLAMA_HOST", "")
    if not value:
        return
    url = value if "://" in value else f"http://{value}"
    try:
        parsed = urlparse(url)
        ok = parsed.scheme in ("http", "https") and bool(parsed.hostname)
        parsed.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        ok = False
    if not ok:
        raise SettingsError(
            f"Bad settings: environment variable OLLAMA_HOST={redact_url(value)!r} is not an "
            "http(s) URL or host:port such as http://127.0.0.1:11434."
        )


def _read_file(path: Path) -> dict[str, Any]:
    """The settings file's keys as written ({} when there is none). Read as UTF-8 with or
    without a byte-order mark: Notepad before 2019 and some editors write one, and it was
    refused as "Invalid statement (at line 1, column 1)". One that cannot be read is a
    SettingsError naming it and why (every command, and the window, say those)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (FileNotFoundError, NotADirectoryError):  # none (its folder a file: said later)
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path} is not valid TOML: {exc}") from exc
    except OSError as exc:  # a folder, no permission, an I/O error: not a traceback
        raise SettingsError(f"{path} cannot be read: {exc.strerror or exc}.") from exc


def load_settings(path: Path | None = None, **overrides: Any) -> Settings:
    """Read the settings file (if any), then DOCENT_* variables, then ``overrides``."""
    path = path or settings_file()
    data = _read_file(path)
    in_file = dict(data)
    _check_env_names()
    from_env, env_names = _env_overrides()
    data.update(from_env)
    data.update(overrides)
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        named = {k: v for k, v in env_names.items() if k not in overrides}
        error = settings_error(exc, str(path), named)
        if also := _file_values_also_bad(in_file, set(error.problems) & set(named)):
            said = str(error).rstrip(".")
            raise SettingsError(
                f"{said}. In {path}, which it overrides, {also}", error.problems
            ) from exc
        raise error from exc
    if not settings.ollama_host:
        check_ollama_host_env()
    return settings


def _file_values_also_bad(in_file: dict[str, Any], keys: set[str]) -> str:
    """What is wrong with the settings file's own values of ``keys``, which environment
    variables override, when they are bad too: fixed by unsetting the variable, the file's
    error came next (QA, session 32)."""
    try:
        Settings(**{k: v for k, v in in_file.items() if k in keys})
    except ValidationError as exc:
        bad = {k: why for k, why in _problems(exc).items() if k in keys}
        if bad:
            return "; ".join(f"'{k}' is bad too: {why}" for k, why in bad.items()) + "."
    return ""


def validate_change(settings: Settings, **changes: Any) -> Settings:
    """A copy of ``settings`` with ``changes`` applied, or SettingsError naming the key.
    A new embedding model must be loadable here and now, and a new data folder no file:
    saved, either would fail every question (or the window's opening) after the next
    start."""
    try:
        wanted = Settings(**{**settings.model_dump(), **changes})
    except ValidationError as exc:
        raise settings_error(exc, "the new values") from exc
    if wanted.data_dir and wanted.data_dir != settings.data_dir:
        # Saved, a file here kept the next start (and the window) from opening at all.
        there = existing_parent(wanted.data_path)
        if not there.is_dir():
            why = f"{there} is a file, not a folder"
            raise SettingsError(f"setting 'data_dir': {why}", {"data_dir": why})
    model = wanted.embedding_model
    if model != settings.embedding_model and model != BUNDLED_MODEL:
        try:
            check_model(model, wanted.data_path / "models")
        except EmbeddingError as exc:
            raise SettingsError(
                f"setting 'embedding_model': {exc}", {"embedding_model": str(exc)}
            ) from None
    return wanted


#: Settings a running engine cannot take over: it has the store, the embedding model, the
#: extraction process and the watcher's timers open. They apply when Docent starts again.
RESTART_KEYS = frozenset(
    {
        "data_dir",
        "qdrant_url",
        "qdrant_api_key",
        "qdrant_ca_file",
        "qdrant_timeout",
        "qdrant_shards",
        "qdrant_replicas",
        "qdrant_write_consistency",
        "embedding_model",
        "embed_batch_size",
        "embed_threads",
        "extract_in_subprocess",
        "ocr_enabled",
        "sweep_interval_minutes",
    }
)


@dataclass(frozen=True, slots=True)
class SettingsChange:
    """What a change of settings amounts to (``plan_change``)."""

    #: Every value as the user wants it (what is saved).
    wanted: Settings
    #: What a running engine uses now: the wanted values, except those needing a restart.
    live: Settings
    #: Keys whose value changed, and those of them that wait for a restart.
    changed: list[str]
    restart: list[str]


def plan_change(current: Settings, changes: Mapping[str, Any]) -> SettingsChange:
    """Validate ``changes`` against ``current`` and sort them into live and restart keys.

    Raises SettingsError naming the key and why.
    """
    wanted = validate_change(current, **changes)
    changed = [k for k in Settings.model_fields if getattr(wanted, k) != getattr(current, k)]
    restart = [k for k in changed if k in RESTART_KEYS]
    live = current.model_copy(
        update={k: getattr(wanted, k) for k in changed if k not in RESTART_KEYS}
    )
    return SettingsChange(wanted, live, changed, restart)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    # A JSON string is a TOML basic string but for two things: TOML has no surrogate-pair
    # escapes (an emoji in a folder's name made the file unreadable: review), so characters
    # are written as they are, and DEL, which JSON leaves raw, must be escaped.
    return json.dumps(str(value), ensure_ascii=False).replace("\x7f", "\\u007f")


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings that differ from the defaults (atomically)."""
    path = path or settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    defaults = Settings().model_dump()
    lines = ["# Docent settings. Unknown keys are refused; see README for each key.\n"]
    for key, value in settings.model_dump().items():
        if value != defaults[key]:
            lines.append(f"{key} = {_toml_value(value)}\n")
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text("".join(lines), encoding="utf-8")
    os.replace(tmp, path)
    return path


def saved_value(key: str, path: Path | None = None) -> Any:
    """``key`` as the settings file has it (no DOCENT_* override); None when it has none."""
    return _read_file(path or settings_file()).get(key)


def update_settings_file(changes: Mapping[str, Any], path: Path | None = None) -> Path:
    """Change ``changes`` in the settings file, keeping its other keys as written.

    Unlike ``save_settings(settings)``, DOCENT_* overrides and values passed in code are
    not written to the file (e.g. the watched folders change, nothing else does).
    """
    path = path or settings_file()
    data = _read_file(path)
    data.update(changes)
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        raise settings_error(exc, str(path)) from exc
    return save_settings(settings, path)
