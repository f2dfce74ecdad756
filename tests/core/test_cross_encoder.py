"""The optional cross-encoder: a folder the user provides, checked with a clear message,
loaded by fastembed from that folder only, and its scores as the model gives them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from cross_encoder_files import cross_encoder_folder
from docent.core.config import Settings
from docent.core.cross_encoder import CrossEncoder, CrossEncoderError, check_folder


def test_its_scores_are_the_models(tmp_path: Path) -> None:
    model = CrossEncoder(cross_encoder_folder(tmp_path / "ce"))
    texts = ["A zebra and another zebra.", "A horse.", "One zebra here."]
    assert model.scores("Which animal is striped?", texts) == [2.0, 0.0, 1.0]
    assert model.scores("Anything?", []) == []


def test_the_model_file_is_found_where_exports_put_it(tmp_path: Path) -> None:
    assert check_folder(cross_encoder_folder(tmp_path / "a")) == "model.onnx"
    nested = cross_encoder_folder(tmp_path / "b", "onnx/model.onnx")
    assert check_folder(nested) == "onnx/model.onnx"
    assert CrossEncoder(nested).scores("q", ["zebra"]) == [1.0]
    odd = cross_encoder_folder(tmp_path / "c", "reranker-int8.onnx")
    assert check_folder(odd) == "reranker-int8.onnx"


def empty(folder: Path) -> None:
    folder.mkdir()


def no_tokenizer(folder: Path) -> None:
    cross_encoder_folder(folder)
    (folder / "tokenizer.json").unlink()


def two_models(folder: Path) -> None:
    cross_encoder_folder(folder, "one.onnx")
    (folder / "two.onnx").write_bytes(b"")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (empty, "holds no ONNX model"),
        (no_tokenizer, "has no tokenizer.json"),
        (two_models, "several ONNX files (one.onnx, two.onnx)"),
    ],
    ids=["empty", "no tokenizer", "two models"],
)
def test_a_folder_that_cannot_serve_says_why(
    tmp_path: Path, make: Callable[[Path], None], says: str
) -> None:
    folder = tmp_path / "ce"
    make(folder)
    with pytest.raises(CrossEncoderError) as raised:
        check_folder(folder)
    assert says in str(raised.value)
    # as a setting: it names the setting and the reason
    with pytest.raises(ValidationError) as bad:
        Settings(rerank_model_dir=str(folder))
    assert "rerank_model_dir" in str(bad.value) and says in str(bad.value)


def test_no_folder_and_a_broken_model(tmp_path: Path) -> None:
    with pytest.raises(CrossEncoderError, match="is not a folder"):
        check_folder(tmp_path / "missing")
    folder = cross_encoder_folder(tmp_path / "ce")
    (folder / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(CrossEncoderError, match="Could not load the cross-encoder"):
        CrossEncoder(folder).scores("q", ["zebra"])
    assert Settings().rerank_model_dir == ""  # off by default
