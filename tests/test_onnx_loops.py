"""ONNX Loop and Scan -> `ge.while`: imported models against onnxruntime,
through the reference evaluator and the JIT-compiled runtime, and the
refusals (`ge_frontend/onnx_control_flow.py`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import compile_model

ort = pytest.importorskip("onnxruntime")

TOLERANCE = 1e-5
INT64 = TensorProto.INT64
FLOAT = TensorProto.FLOAT
BOOL = TensorProto.BOOL


def info(name: str, elem: int, shape: Sequence[int] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: dict[str, np.ndarray] | None = None,
    opset: int = 17,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "loops",
        inputs,
        outputs,
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(made, full_check=True)
    return made


def check(made: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Reference evaluator and JIT runtime both match onnxruntime."""
    session = ort.InferenceSession(
        made.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, feeds)
    imported = import_onnx(made)
    evaluated = evaluate(imported.module, feeds, weights=imported.weights)
    compiled = compile_model(imported.module, imported.weights).run(feeds)
    for ours in (evaluated, compiled):
        assert len(ours) == len(expected)
        for mine, ref in zip(ours, expected, strict=True):
            assert mine.shape == ref.shape and mine.dtype == ref.dtype
            np.testing.assert_allclose(mine, ref, rtol=TOLERANCE, atol=TOLERANCE)
    return expected


def loop_body(scan_outputs: int = 1) -> onnx.GraphProto:
    """`h = tanh(h * w + x) ; i-th row = h + i` with the condition passed
    through; `w` is an outer constant, `x` an outer run-time input."""
    nodes = [
        helper.make_node("Mul", ["h_in", "w"], ["hw"]),
        helper.make_node("Add", ["hw", "x"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["h_out"]),
        helper.make_node("Cast", ["i"], ["i_float"], to=FLOAT),
        helper.make_node("Add", ["h_out", "i_float"], ["row"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ]
    outputs = [info("cond_out", BOOL, []), info("h_out", FLOAT, [3, 17])]
    if scan_outputs:
        outputs.append(info("row", FLOAT, [3, 17]))
    return helper.make_graph(
        nodes,
        "body",
        [info("i", INT64, []), info("cond_in", BOOL, []), info("h_in", FLOAT, [3, 17])],
        outputs,
    )


def feeds_for(*names: str, shape: Sequence[int] = (3, 17)) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(len(names))
    return {n: rng.standard_normal(shape).astype(np.float32) for n in names}


W = np.linspace(-0.9, 0.9, 3 * 17, dtype=np.float32).reshape(3, 17)


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_loop_with_a_constant_trip_count_stacks_its_scan_output(trips: int):
    made = model(
        [helper.make_node("Loop", ["M", "", "h0"], ["h", "rows"], body=loop_body())],
        [info("x", FLOAT, [3, 17]), info("h0", FLOAT, [3, 17])],
        [info("h", FLOAT, [3, 17]), info("rows", FLOAT, [trips, 3, 17])],
        {"M": np.array(trips, np.int64), "w": W},
    )
    check(made, feeds_for("x", "h0"))
    ops = [op.name for op in import_onnx(made).module.walk()]
    assert ops.count("ge.while") == 1 and "ge.select" in ops


def test_loop_with_a_runtime_trip_count_and_condition():
    made = model(
        [helper.make_node("Loop", ["M", "c", "h0"], ["h"], body=loop_body(0))],
        [
            info("M", INT64, []),
            info("c", BOOL, []),
            info("x", FLOAT, [3, 17]),
            info("h0", FLOAT, [3, 17]),
        ],
        [info("h", FLOAT, [3, 17])],
        {"w": W},
    )
    for trips, going in ((4, True), (3, False), (0, True)):
        feeds = {"M": np.array(trips, np.int64), "c": np.array(going)}
        check(made, {**feeds, **feeds_for("x", "h0")})


def scan_body() -> onnx.GraphProto:
    """A running sum `s += a_row * b_row`; per step `s` and `a_row - b_row`."""
    return helper.make_graph(
        [
            helper.make_node("Mul", ["a_row", "b_row"], ["ab"]),
            helper.make_node("Add", ["s_in", "ab"], ["s_out"]),
            helper.make_node("Sub", ["a_row", "b_row"], ["diff"]),
            helper.make_node("Identity", ["s_out"], ["s_seen"]),
        ],
        "scan_body",
        [
            info("s_in", FLOAT, [5]),
            info("a_row", FLOAT, [5]),
            info("b_row", FLOAT, [5]),
        ],
        [
            info("s_out", FLOAT, [5]),
            info("s_seen", FLOAT, [5]),
            info("diff", FLOAT, [5]),
        ],
    )


@pytest.mark.parametrize(
    ("input_axes", "input_directions", "output_axes", "output_directions"),
    [
        ([0, 0], [0, 0], [0, 0], [0, 0]),
        ([0, 1], [1, 0], [1, -1], [0, 1]),
        ([1, 1], [1, 1], [0, 1], [1, 1]),
    ],
)
def test_scan_matches_onnxruntime(
    input_axes, input_directions, output_axes, output_directions
):
    length = 7
    a_shape = [length, 5] if input_axes[0] == 0 else [5, length]
    b_shape = [length, 5] if input_axes[1] == 0 else [5, length]
    made = model(
        [
            helper.make_node(
                "Scan",
                ["s0", "a", "b"],
                ["s", "seen", "diffs"],
                body=scan_body(),
                num_scan_inputs=2,
                scan_input_axes=input_axes,
                scan_input_directions=input_directions,
                scan_output_axes=output_axes,
                scan_output_directions=output_directions,
            )
        ],
        [info("s0", FLOAT, [5]), info("a", FLOAT, a_shape), info("b", FLOAT, b_shape)],
        [
            info("s", FLOAT, [5]),
            *(
                info(name, FLOAT, [length, 5] if axis == 0 else [5, length])
                for name, axis in zip(("seen", "diffs"), output_axes, strict=True)
            ),
        ],
    )
    rng = np.random.default_rng(3)
    feeds = {
        "s0": rng.standard_normal(5).astype(np.float32),
        "a": rng.standard_normal(a_shape).astype(np.float32),
        "b": rng.standard_normal(b_shape).astype(np.float32),
    }
    check(made, feeds)


def test_special_values_cross_the_scan_output_unchanged():
    """Rows are written with a select, never arithmetic: inf, NaN and -0.0
    reach the stacked output as they are."""
    made = model(
        [helper.make_node("Loop", ["M", "", "h0"], ["h", "rows"], body=loop_body())],
        [info("x", FLOAT, [3, 17]), info("h0", FLOAT, [3, 17])],
        [info("h", FLOAT, [3, 17]), info("rows", FLOAT, [3, 3, 17])],
        {"M": np.array(3, np.int64), "w": W},
    )
    feeds = feeds_for("x", "h0")
    feeds["x"][0, :4] = [np.inf, -np.inf, np.nan, -0.0]
    check(made, feeds)


def test_a_loop_variable_that_grows_is_a_dynamic_loop_variable():
    """`v = concat(v, v)` per iteration: the loop variable's dim is unknown
    (`ge.while` typed `tensor<?xf32>` from a `tensor<3xf32>` first value),
    so the model runs host-scheduled and matches onnxruntime."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            helper.make_node("Concat", ["v_in", "v_in"], ["v_out"], axis=0),
        ],
        "grows",
        [info("i", INT64, []), info("c_in", BOOL, []), info("v_in", FLOAT, [None])],
        [info("c_out", BOOL, []), info("v_out", FLOAT, [None])],
    )
    made = model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body, name="grow")],
        [info("M", INT64, []), info("v0", FLOAT, [3])],
        [info("v", FLOAT, [None])],
    )
    (loop,) = [op for op in import_onnx(made).module.walk() if op.name == "ge.while"]
    assert str(loop.result_types[2]) == "tensor<?xf32>"  # [i, going, v, M]
    assert str(loop.operands[2].type) == "tensor<3xf32>"
    v0 = np.array([1.0, -0.0, np.inf], np.float32)
    for trips in (0, 1, 3):
        check(made, {"M": np.array(trips, np.int64), "v0": v0})


@pytest.mark.parametrize("trips", [0, 1, 4])
def test_scan_outputs_of_a_loop_of_unknown_length_grow_a_row_per_iteration(
    trips: int,
):
    """A greedy decoder's shape: a run-time trip count (and condition) with a
    scan output; the stacked rows are a loop variable that grows."""
    made = model(
        [
            helper.make_node(
                "Loop", ["M", "c", "h0"], ["h", "rows"], body=loop_body(), name="loop"
            )
        ],
        [
            info("M", INT64, []),
            info("c", BOOL, []),
            info("x", FLOAT, [3, 17]),
            info("h0", FLOAT, [3, 17]),
        ],
        [info("h", FLOAT, [3, 17]), info("rows", FLOAT, ["n", 3, 17])],
        {"w": W},
    )
    for going in (True, False):
        feeds = {"M": np.array(trips, np.int64), "c": np.array(going)}
        check(made, {**feeds, **feeds_for("x", "h0")})


@pytest.mark.parametrize("directions", [[0, 0], [1, 0]])
def test_opset_8_batched_scan_matches_onnxruntime(directions: list[int]):
    """Opset 8's Scan: a leading batch axis on every input (3 entries, one
    `ge.while` each), the rows on axis 1, no `sequence_lens`."""
    made = model(
        [
            helper.make_node(
                "Scan",
                ["", "s0", "a", "b"],
                ["s", "seen", "diffs"],
                body=scan_body(),
                num_scan_inputs=2,
                directions=directions,
            )
        ],
        [
            info("s0", FLOAT, [3, 5]),
            info("a", FLOAT, [3, 7, 5]),
            info("b", FLOAT, [3, 7, 5]),
        ],
        [
            info("s", FLOAT, [3, 5]),
            info("seen", FLOAT, [3, 7, 5]),
            info("diffs", FLOAT, [3, 7, 5]),
        ],
        opset=8,
    )
    rng = np.random.default_rng(8)
    feeds = {
        "s0": rng.standard_normal((3, 5)).astype(np.float32),
        "a": rng.standard_normal((3, 7, 5)).astype(np.float32),
        "b": rng.standard_normal((3, 7, 5)).astype(np.float32),
    }
    feeds["a"][1, 2, :3] = [np.inf, np.nan, -0.0]
    check(made, feeds)
