"""Which embedding models Docent can load on this machine, without the network.

Apart from embedding.py so that the settings can check ``embedding_model`` when it is
saved (config.py), without importing the embedder, which imports the settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docent.core.errors import DocentError

BUNDLED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class EmbeddingError(DocentError):
    """The embedding model could not be loaded or run."""


#: What ``embedding_model`` accepts, for the messages that refuse a value.
ACCEPTED = (
    f"the bundled model '{BUNDLED_MODEL}', or a folder holding a sentence-transformers "
    "model in ONNX (model.onnx or onnx/model.onnx, with tokenizer.json beside it)"
)


def model_folder(name: str) -> Path | None:
    """The folder ``name`` points at, when it is written as a path (absolute, ``~``, ``.``)
    or names a folder that exists here; None for a model name such as
    ``BAAI/bge-small-en-v1.5``. The settings refuse a relative one (config._full_path)."""
    path = Path(name).expanduser()
    if path.is_dir() or path.is_absolute() or name.startswith(("~", ".")):
        return path
    return None


def check_model(name: str, cache_dir: Path | None, *, files: bool = True) -> None:
    """Return when ``name`` can be loaded on this machine without a download; else an
    EmbeddingError saying why, in words a user reads (the caller names the setting).

    Cheap: files are looked at, no model is loaded (the settings check a new value).
    ``files`` False: only whether it names a model Docent could load at all (a folder,
    the bundled model, one fastembed knows), not whether its files are here: settings
    read at start accept a folder on a drive not plugged in, so the app starts and says
    so when it loads the model, rather than refusing to start.
    """
    if name == BUNDLED_MODEL:
        return
    folder = model_folder(name)
    if folder is not None:
        if files:
            _check_folder(folder)
        return
    from fastembed import TextEmbedding

    known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    if name.lower() not in known:
        raise EmbeddingError(f"'{name}' is not a model Docent can load: use {ACCEPTED}")
    if files and not _cached(name, cache_dir):
        where = f" in {cache_dir}" if cache_dir else ""
        raise EmbeddingError(
            f"'{name}' is a fastembed model, but its files are not on this machine{where}, "
            f"and Docent never downloads a model (it works offline): use {ACCEPTED}"
        )


def _check_folder(folder: Path) -> None:
    from docent.core.cross_encoder import TOKENIZER, CrossEncoderError, model_file

    try:
        model_file(folder)
    except CrossEncoderError as exc:
        raise EmbeddingError(f"{exc}: use {ACCEPTED}") from None
    if not (folder / TOKENIZER).is_file():
        raise EmbeddingError(f"{folder} has no {TOKENIZER} beside its model: use {ACCEPTED}")


def _cached(name: str, cache_dir: Path | None) -> bool:
    """Whether fastembed finds ``name``'s files without the network."""
    from fastembed import TextEmbedding

    kwargs: dict[str, Any] = {"cache_dir": str(cache_dir)} if cache_dir else {}
    try:
        TextEmbedding(name, lazy_load=True, local_files_only=True, **kwargs)
    except Exception:  # noqa: BLE001 - fastembed raises ValueError, OSError, HF errors
        return False
    return True
