"""Operator parameters given as run-time tensors (`ge.dynamic_attrs`).

ONNX models whose reduce axes, slice bounds, pads, clip bounds, split
sizes, squeeze/unsqueeze axes, tile repeats, cumulative axis or resize
scales/sizes are graph inputs import as `ge.dynamic_attrs`; the graph runs
under host scheduling, which binds the parameter values to the static op
(the op's own `bind_parameters`) and runs that op on the JIT. Each model
is checked against onnxruntime and NumPy on odd sizes and special values;
the trace must show the JIT, kernels are cached per parameter value, the
same parameters known at import fold to the static op, and invalid values
fail with one located error.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from ge_dialect.diagnostics import GEError
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.scheduler import Executor, compile_model

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 17, 5)).astype(np.float32)
SPECIAL = X.copy()
SPECIAL[0, 0, :3] = [np.inf, -np.inf, np.nan]
SPECIAL[2, 16, 4] = -0.0
INFINITE = np.where(np.isnan(SPECIAL), 1.0, SPECIAL).astype(np.float32)
"""SPECIAL without its NaN (onnxruntime's ReduceMax skips NaN, NumPy's keeps it)."""
DTYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64}


def node_model(
    op_type: str,
    inputs: Mapping[str, np.ndarray],
    outputs: int = 1,
    opset: int = 18,
    initializers: Mapping[str, np.ndarray] | None = None,
    **attrs,
) -> onnx.ModelProto:
    """One `op_type` node; `inputs` are graph inputs, `initializers` constants."""
    initializers = dict(initializers or {})
    node = helper.make_node(
        op_type,
        [*inputs, *initializers],
        [f"y{i}" for i in range(outputs)],
        **attrs,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                name, DTYPES[array.dtype.type], list(array.shape)
            )
            for name, array in inputs.items()
        ],
        [
            helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None)
            for i in range(outputs)
        ],
        [onnx.numpy_helper.from_array(a, n) for n, a in initializers.items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return with_output_ranks(made, inputs)


def with_output_ranks(made: onnx.ModelProto, feeds: Mapping[str, np.ndarray]):
    """`made` with its outputs declared of the rank onnxruntime computes for
    `feeds`, every dim symbolic (what an exporter of run-time shapes says)."""
    results = session_of(made).run(None, dict(feeds))
    for output, result in zip(made.graph.output, results, strict=True):
        output.CopyFrom(
            helper.make_tensor_value_info(
                output.name,
                DTYPES[result.dtype.type],
                [f"{output.name}_{axis}" for axis in range(result.ndim)],
            )
        )
    return made


def session_of(made: onnx.ModelProto):
    """An onnxruntime session of `made`."""
    return ort.InferenceSession(
        made.SerializeToString(), providers=["CPUExecutionProvider"]
    )


def run_ours(made: onnx.ModelProto, feeds: Mapping[str, np.ndarray]):
    """The host-scheduled model's outputs and its last trace."""
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    assert model.mode == "host"
    assert model.describe() == "host scheduling (run-time parameters): op by op"
    return model.run(dict(feeds)), model


def assert_matches_onnxruntime(made: onnx.ModelProto, feeds: Mapping[str, np.ndarray]):
    """Ours equals onnxruntime (NaN where NaN, infinities, -0.0 as 0.0) and
    every op ran on the JIT."""
    ours, model = run_ours(made, feeds)
    expected = session_of(made).run(None, dict(feeds))
    for got, want in zip(ours, expected, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert all(entry.executor is Executor.JIT for entry in model.trace)
    assert all("jit kernel for" in entry.detail for entry in model.trace)
    return ours, model


CASES = {
    "reduce_sum_axes": (
        "ReduceSum",
        {"x": X, "axes": np.array([-2], np.int64)},
        {"keepdims": 0},
    ),
    "reduce_max_two_axes_special": (
        "ReduceMax",
        {"x": INFINITE, "axes": np.array([0, 2], np.int64)},
        {},
    ),
    "reduce_mean_noop_axes_given": (
        "ReduceMean",
        {"x": X, "axes": np.array([1], np.int64)},
        {"noop_with_empty_axes": 1},
    ),
    "slice_bounds_and_steps": (
        "Slice",
        {
            "x": SPECIAL,
            "starts": np.array([16, 1], np.int64),
            "ends": np.array([-100, 4], np.int64),
            "axes": np.array([1, -1], np.int64),
            "steps": np.array([-3, 2], np.int64),
        },
        {},
    ),
    "pad_pads_and_value": (
        "Pad",
        {
            "x": X,
            "pads": np.array([0, 2, -1, 1, 0, 3], np.int64),
            "value": np.array(-0.0, np.float32),
        },
        {},
    ),
    "tile_repeats": ("Tile", {"x": X, "repeats": np.array([1, 3, 2], np.int64)}, {}),
    "unsqueeze_axes": ("Unsqueeze", {"x": X, "axes": np.array([3, 0], np.int64)}, {}),
    "cumsum_axis": ("CumSum", {"x": X, "axis": np.array(-2, np.int64)}, {"reverse": 1}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_time_parameters_match_onnxruntime(name):
    op_type, feeds, attrs = CASES[name]
    assert_matches_onnxruntime(node_model(op_type, feeds, **attrs), feeds)


def test_split_sizes_at_run_time_give_every_piece():
    feeds = {"x": X, "split": np.array([4, 0, 13], np.int64)}
    made = node_model("Split", feeds, outputs=3, axis=1)
    ours, _ = assert_matches_onnxruntime(made, feeds)
    assert [o.shape for o in ours] == [(3, 4, 5), (3, 0, 5), (3, 13, 5)]


def test_squeeze_axes_at_run_time():
    x = RNG.standard_normal((1, 17, 1, 3)).astype(np.float32)
    feeds = {"x": x, "axes": np.array([-2, 0], np.int64)}
    ours, _ = assert_matches_onnxruntime(node_model("Squeeze", feeds), feeds)
    assert ours[0].shape == (17, 3)


def resize_model(
    x: np.ndarray,
    parameter: str,
    value: np.ndarray,
    *,
    initializer: bool = False,
    **attrs,
) -> onnx.ModelProto:
    """Resize of `x` by `scales` or `sizes` (a graph input, or an initializer)."""
    inputs = ["x", "", "scales" if parameter == "scales" else "", "sizes"][
        : 3 if parameter == "scales" else 4
    ]
    graph = helper.make_graph(
        [helper.make_node("Resize", inputs, ["y0"], **attrs)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))]
        + (
            []
            if initializer
            else [
                helper.make_tensor_value_info(
                    parameter, DTYPES[value.dtype.type], list(value.shape)
                )
            ]
        ),
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(value, parameter)] if initializer else [],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"x": x} if initializer else {"x": x, parameter: value}
    return with_output_ranks(made, feeds)


def test_resize_scales_and_sizes_at_run_time():
    x = RNG.standard_normal((1, 2, 5, 7)).astype(np.float32)
    for parameter, value, mode in [
        ("scales", np.array([1, 1, 2.0, 1.5], np.float32), "linear"),
        ("scales", np.array([1, 1, 0.6, 0.5], np.float32), "cubic"),
        ("sizes", np.array([1, 2, 3, 17], np.int64), "nearest"),
    ]:
        made = resize_model(x, parameter, value, mode=mode)
        assert_matches_onnxruntime(made, {"x": x, parameter: value})


def test_reduce_matches_numpy_on_each_axis_and_compiles_once_per_value():
    """One model, every axis value: NumPy's sums; a kernel per axis value,
    reused when the value comes again."""
    made = node_model(
        "ReduceSum", {"x": X, "axes": np.array([0], np.int64)}, keepdims=0
    )
    imported = import_onnx(made)
    model = compile_model(imported.module, imported.weights)
    for axis in [0, 1, 2, -1, 1]:
        (y,) = model.run({"x": X, "axes": np.array([axis], np.int64)})
        np.testing.assert_allclose(y, X.sum(axis=axis), rtol=1e-5, atol=1e-5)
        (entry,) = model.trace
        assert entry.executor is Executor.JIT
        assert f"as ge.reduce_sum axes=[{axis % 3}]" in entry.detail
    assert model.evaluator.kernels.compiled == 3


def test_reduce_empty_axes_at_run_time_reduce_all_or_nothing():
    """Empty run-time axes fold at import (no elements to wait for): every
    axis, or with noop_with_empty_axes the input itself."""
    empty = np.zeros(0, np.int64)
    for noop, expected in [(0, X.sum(keepdims=True)), (1, X)]:
        made = node_model(
            "ReduceSum", {"x": X, "axes": empty}, noop_with_empty_axes=noop
        )
        imported = import_onnx(made)
        assert "ge.dynamic_attrs" not in str(imported.module)
        model = compile_model(imported.module, imported.weights)
        (y,) = model.run({"x": X, "axes": empty})
        np.testing.assert_allclose(y, expected, rtol=1e-5)


def test_known_parameters_fold_to_the_static_op():
    """The same parameters as initializers: the static op, no dynamic_attrs,
    sink scheduling."""
    made = node_model(
        "Slice",
        {"x": X},
        initializers={
            "starts": np.array([1], np.int64),
            "ends": np.array([3], np.int64),
        },
    )
    imported = import_onnx(made)
    text = str(imported.module)
    assert "ge.dynamic_attrs" not in text and "ge.slice" in text
    model = compile_model(imported.module, imported.weights)
    assert model.mode == "sink"
    (y,) = model.run({"x": X})
    np.testing.assert_array_equal(y, X[1:3])


def test_sizes_on_a_dynamic_dim_bind_at_run_time():
    """Resize to sizes known at import of an input with a dynamic batch:
    sizes on the batch axis read its dim, so the host binds them at run
    time; sizes on the other axes bind at import (the static op)."""
    x = RNG.standard_normal((1, 2, 5, 7)).astype(np.float32)
    on_batch = resize_model(
        x, "sizes", np.array([2, 2, 10, 3], np.int64), initializer=True
    )
    off_batch = resize_model(
        x, "sizes", np.array([2, 10, 3], np.int64), initializer=True, axes=[1, 2, 3]
    )
    for made, dynamic in [(on_batch, True), (off_batch, False)]:
        made.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
        imported = import_onnx(made)
        assert ("ge.dynamic_attrs" in str(imported.module)) is dynamic
        model = compile_model(imported.module, imported.weights)
        for batch in (1, 3):
            x = RNG.standard_normal((batch, 2, 5, 7)).astype(np.float32)
            (y,) = model.run({"x": x})
            (want,) = session_of(made).run(None, {"x": x})
            np.testing.assert_allclose(y, want, rtol=1e-6)
            assert y.shape == ((2,) if dynamic else (batch,)) + (2, 10, 3)
            assert all(e.executor is Executor.JIT for e in model.trace)


@pytest.mark.parametrize(
    ("op_type", "feeds", "bad", "message"),
    [
        (
            "ReduceSum",
            {"x": X, "axes": np.array([1], np.int64)},
            {"axes": np.array([3], np.int64)},
            "with axes=[3]: axes: axis 3 is out of range for rank 3",
        ),
        (
            "Slice",
            {
                "x": X,
                "starts": np.array([0], np.int64),
                "ends": np.array([2], np.int64),
                "axes": np.array([0], np.int64),
                "steps": np.array([1], np.int64),
            },
            {"steps": np.array([0], np.int64)},
            "'steps' cannot contain 0",
        ),
        (
            "Tile",
            {"x": X, "repeats": np.array([1, 2, 1], np.int64)},
            {"repeats": np.array([1, -2, 1], np.int64)},
            "'repeats' [1, -2, 1] has a negative entry",
        ),
        (
            "Unsqueeze",
            {"x": X, "axes": np.array([1, 2], np.int64)},
            {"axes": np.array([1, 1], np.int64)},
            "axes: axis 1 appears twice",
        ),
    ],
)
def test_invalid_run_time_parameters_fail_at_the_op(op_type, feeds, bad, message):
    imported = import_onnx(node_model(op_type, feeds))
    model = compile_model(imported.module, imported.weights)
    with pytest.raises(GEError) as caught:
        model.run({**feeds, **bad})
    text = str(caught.value)
    assert len(text.splitlines()) == 1
    assert "error: 'ge.dynamic_attrs' op at run time, with " in text
    assert text.endswith(message)


def test_reshape_to_a_run_time_shape_runs_ge_reshape_on_the_jit():
    """`ge.dynamic_reshape` binds its target like `ge.dynamic_attrs`: a 0
    copies the input dim, -1 is inferred; a target of another size fails
    at the op."""
    feeds = {"x": X, "shape": np.array([0, -1], np.int64)}
    ours, model = assert_matches_onnxruntime(node_model("Reshape", feeds), feeds)
    assert ours[0].shape == (3, 85)
    assert "as ge.reshape shape=[0, -1]" in model.trace[0].detail
    with pytest.raises(GEError) as caught:
        model.run({**feeds, "shape": np.array([4, -1], np.int64)})
    assert "'ge.dynamic_reshape' op at run time, with shape=[4, -1]" in str(
        caught.value
    )
