"""Writes model.onnx here: a stand-in cross-encoder for the tests (needs ``pip install onnx``).

Not a trained model: its score of a (question, passage) pair is the number of times the
passage holds the word "zebra" (token 29145 of the bundled MiniLM's tokenizer, whose
tokenizer.json the tests copy beside it). It has a real cross-encoder's inputs and output
(``input_ids``, ``attention_mask``, ``token_type_ids`` -> ``logits`` [batch, 1]), so
fastembed's ``TextCrossEncoder`` loads and runs it as it would a real one, and a test
knows which passage it ranks first.

    python tests/data/cross_encoder/make_model.py
"""

from pathlib import Path

import onnx
from onnx import TensorProto, helper

ZEBRA = 29145


def build() -> onnx.ModelProto:
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])
    types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    zebra = helper.make_tensor("zebra", TensorProto.INT64, [], [ZEBRA])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [
        helper.make_node("Equal", ["input_ids", "zebra"], ["is_zebra"]),
        helper.make_node("Cast", ["is_zebra"], ["zebra_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["token_type_ids", "attention_mask"], ["passage"]),
        helper.make_node("Cast", ["passage"], ["passage_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["zebra_f", "passage_f"], ["in_passage"]),
        helper.make_node("ReduceSum", ["in_passage", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes, "zebra-counter", [ids, mask, types], [logits], initializer=[zebra, axes]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    onnx.save(build(), Path(__file__).with_name("model.onnx"))
