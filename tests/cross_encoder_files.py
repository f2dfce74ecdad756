"""A cross-encoder folder as a user would provide one: the stand-in model of
``tests/data/cross_encoder`` (it scores a passage by how often it says "zebra") with the
bundled MiniLM's tokenizer files beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

from docent.core.config import resources_dir

HERE = Path(__file__).parent / "data" / "cross_encoder"
TOKENIZER_FILES = (
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
)


def cross_encoder_folder(dest: Path, model_name: str = "model.onnx") -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    (dest / model_name).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "model.onnx", dest / model_name)
    tokenizer = resources_dir() / "models" / "all-MiniLM-L6-v2-int8"
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer / name, dest / name)
    return dest
