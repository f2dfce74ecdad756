"""An optional cross-encoder rerank, from a model folder the user provides.

Off by default: no cross-encoder can ship with Docent offline (none was found whose
weights install from PyPI), so the user points ``rerank_model_dir`` at a folder holding
one in ONNX, as exported for fastembed or sentence-transformers: an ``.onnx`` file
(``model.onnx`` or ``onnx/model.onnx``; a quantized one is taken when it is the only
one) and ``tokenizer.json`` beside it (``config.json``, ``special_tokens_map.json`` and
``tokenizer_config.json`` too, when the export has them). For example
``Xenova/ms-marco-MiniLM-L-6-v2``, downloaded once on a machine with network.

fastembed's ``TextCrossEncoder`` runs it (``specific_model_path``: never a download). The
retriever gives it the question and its best candidates (their context line and text)
and re-sorts them by its scores (``Retriever._cross_rerank``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docent.core.errors import DocentError

#: Names of the model file looked for, in order, before any other single ``.onnx``.
MODEL_FILES = ("model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx")
#: Files the tokenizer needs (the others are optional).
TOKENIZER = "tokenizer.json"

_registered: set[str] = set()
_register_lock = threading.Lock()


class CrossEncoderError(DocentError):
    """The cross-encoder folder cannot be used (the message says which file and why)."""


def model_file(folder: Path) -> str:
    """The ONNX model's path inside ``folder``; CrossEncoderError says what is missing."""
    if not folder.is_dir():
        raise CrossEncoderError(f"{folder} is not a folder")
    for name in MODEL_FILES:
        if (folder / name).is_file():
            return name
    found = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.onnx"))
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(found[:4])
        raise CrossEncoderError(
            f"{folder} holds several ONNX files ({names}); name the one to use model.onnx"
        )
    raise CrossEncoderError(f"{folder} holds no ONNX model (model.onnx or onnx/model.onnx)")


def check_folder(folder: Path) -> str:
    """The model file when ``folder`` holds a usable cross-encoder, else CrossEncoderError."""
    name = model_file(folder)
    if not (folder / TOKENIZER).is_file():
        raise CrossEncoderError(f"{folder} has no {TOKENIZER} beside its model")
    return name


class CrossEncoder:
    """Scores (question, passage) pairs with the model in ``folder``; loaded on first use
    (off the GUI thread: searches run in workers)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._model: Any = None
        self._lock = threading.Lock()

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        model = self._loaded()
        try:
            return [float(s) for s in model.rerank(query, list(texts), batch_size=len(texts))]
        except Exception as exc:  # onnxruntime raises its own kinds
            raise CrossEncoderError(f"The cross-encoder in {self.folder} failed: {exc}") from exc

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load(self.folder)
            return self._model


def _load(folder: Path) -> Any:
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    name_in_folder = check_folder(folder)
    # fastembed knows models by name: each folder (and model file) is registered once,
    # under a name of its own, as a local model (never downloaded: specific_model_path).
    digest = hashlib.sha1(f"{folder.resolve()}|{name_in_folder}".encode()).hexdigest()[:12]
    name = f"docent-local/cross-encoder-{digest}"
    with _register_lock:
        if name not in _registered:
            TextCrossEncoder.add_custom_model(
                name,
                sources=ModelSource(url=folder.resolve().as_uri()),
                model_file=name_in_folder,
                description=f"the user's cross-encoder in {folder}",
            )
            _registered.add(name)
    try:
        return TextCrossEncoder(name, specific_model_path=str(folder))
    except Exception as exc:  # fastembed and onnxruntime raise many kinds
        raise CrossEncoderError(f"Could not load the cross-encoder in {folder}: {exc}") from exc
