"""`ai.onnx.preview.FlexAttention` imports as the function body ONNX defines
for it (its `score_mod`/`prob_mod` subgraphs inlined) and runs on the JIT.

Against the ONNX reference evaluator (onnxruntime has no FlexAttention), at
odd sizes: grouped query heads, head sizes that differ between Q/K and V,
masked scores (-inf), a fully masked row (NaN, as the reference gives),
float16/bfloat16 inputs with a float32 softmax, and float64.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, atc_error

PREVIEW = "ai.onnx.preview"

B, HQ, HKV, L, S, E, EV = 2, 6, 3, 5, 7, 3, 5
"""Batch, query heads, key/value heads (GQA groups of 2), query and key
lengths, Q/K head size and V head size."""


def modifier(name: str, nodes: list[onnx.NodeProto], dtype: int) -> onnx.GraphProto:
    """A `score_mod`/`prob_mod` subgraph: `(x) -> y` of one rank-4 dtype."""
    return helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", dtype, ["B", "H", "L", "S"])],
        [helper.make_tensor_value_info("y", dtype, ["B", "H", "L", "S"])],
    )


def flex_model(
    dtype: np.dtype, opset: int | None = 1, **attributes: object
) -> onnx.ModelProto:
    """One FlexAttention node over Q, K, V of `dtype` (opset None: the model
    does not import the preview domain)."""
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node(
        "FlexAttention", ["Q", "K", "V"], ["Y"], domain=PREVIEW, **attributes
    )
    graph = helper.make_graph(
        [node],
        "flex",
        [
            helper.make_tensor_value_info("Q", elem, [B, HQ, L, E]),
            helper.make_tensor_value_info("K", elem, [B, HKV, S, E]),
            helper.make_tensor_value_info("V", elem, [B, HKV, S, EV]),
        ],
        [helper.make_tensor_value_info("Y", elem, [B, HQ, L, EV])],
    )
    opsets = [helper.make_opsetid("", 26)]
    if opset is not None:
        opsets.append(helper.make_opsetid(PREVIEW, opset))
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def qkv(dtype: np.dtype, seed: int = 0) -> dict[str, np.ndarray]:
    """Random Q, K, V: in [-2, 2), or [0, 1) for a dtype coarser than float32
    (no cancellation in the output sums, which the harness's absolute
    tolerance of 1e-4 could not allow for in float16/bfloat16)."""
    rng = np.random.default_rng(seed)
    low, high = (-2, 2) if np.dtype(dtype).itemsize >= 4 else (0, 1)
    shapes = {"Q": (B, HQ, L, E), "K": (B, HKV, S, E), "V": (B, HKV, S, EV)}
    return {
        name: rng.uniform(low, high, shape).astype(np.float32).astype(dtype)
        for name, shape in shapes.items()
    }


def causal_mask_mod(masked_row: bool) -> onnx.GraphProto:
    """score_mod: -inf above the diagonal (and on every key of row 0)."""
    allowed = np.tril(np.ones((L, S), bool))
    if masked_row:
        allowed[0] = False
    nodes = [
        helper.make_node(
            "Constant", [], ["allowed"], value=numpy_helper.from_array(allowed)
        ),
        helper.make_node(
            "Constant",
            [],
            ["minus_inf"],
            value=numpy_helper.from_array(np.array(-np.inf, np.float32)),
        ),
        helper.make_node("Where", ["allowed", "x", "minus_inf"], ["y"]),
    ]
    return modifier("causal", nodes, TensorProto.FLOAT)


def soft_cap_mod(dtype: int) -> onnx.GraphProto:
    """score_mod: 3 * tanh(x / 3) in `dtype`."""
    cap = helper.make_tensor("cap", dtype, [], [3.0])
    nodes = [
        helper.make_node("Constant", [], ["cap"], value=cap),
        helper.make_node("Div", ["x", "cap"], ["scaled"]),
        helper.make_node("Tanh", ["scaled"], ["t"]),
        helper.make_node("Mul", ["t", "cap"], ["y"]),
    ]
    return modifier("soft_cap", nodes, dtype)


def halve_mod() -> onnx.GraphProto:
    """prob_mod: probabilities halved."""
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    nodes = [
        helper.make_node("Constant", [], ["half"], value=half),
        helper.make_node("Mul", ["x", "half"], ["y"]),
    ]
    return modifier("halve", nodes, TensorProto.FLOAT)


CASES = {
    "plain": (np.float32, {}),
    "scaled": (np.float32, {"scale": 0.3}),
    "causal": (np.float32, {"score_mod": causal_mask_mod(masked_row=False)}),
    "fully_masked_row": (np.float32, {"score_mod": causal_mask_mod(masked_row=True)}),
    "soft_cap_and_prob_mod": (
        np.float32,
        {"score_mod": soft_cap_mod(TensorProto.FLOAT), "prob_mod": halve_mod()},
    ),
    "float16": (np.float16, {"score_mod": causal_mask_mod(masked_row=False)}),
    "bfloat16": (np.dtype(ml_dtypes.bfloat16), {"prob_mod": halve_mod()}),
    "float64": (np.float64, {"score_mod": soft_cap_mod(TensorProto.DOUBLE)}),
    "float16_softmax_in_float16": (
        np.float16,
        {"softmax_precision": TensorProto.FLOAT16},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_flex_attention_matches_the_reference_on_the_jit(
    name: str, tmp_path: Path
) -> None:
    dtype, attributes = CASES[name]
    model = flex_model(dtype, **attributes)
    inputs = qkv(dtype)
    expected = ReferenceEvaluator(model).run(None, inputs)
    if name == "fully_masked_row":
        assert np.isnan(expected[0][:, :, 0]).all()
        assert not np.isnan(expected[0][:, :, 1:]).any()
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


def test_an_op_of_a_domain_without_a_function_is_refused(
    tmp_path: Path, capsys
) -> None:
    """An op of another domain that ONNX defines no function for stays an
    unsupported op, named with its domain."""
    model = flex_model(np.float32)
    model.graph.node[0].domain = "com.example"
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    err = atc_error(model, tmp_path, capsys)
    assert err.endswith("unsupported ONNX ops: com.example.FlexAttention (nodes: Y)")
