"""Nests whose accesses depend on the data run as C kernels, in order.

A gather or a scatter through indices a nest computes (`memref.load`,
`memref.store`) and the checks on them (`cf.assert`) make a C kernel that
runs the nest's loops as they are written, one element at a time
(`emit.native.NativeNest.in_order`): duplicate positions combine in the
order they come, the last write wins, every computed index is checked
against its axis, and a failed check is the call's one-line error. Loop
IR against the scalar path bit for bit; ONNX models against onnxruntime
(or the reference where onnxruntime differs), with no nest left to the
scalar path.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest
from onnx_jit import one_node_model, onnxruntime_outputs, with_output_types

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit import c_runtime
from ge_runtime.jit.compiler import compile_graph, compile_module, run_graph
from ge_runtime.jit.ops import JITError
from tools import ge_run

pytestmark = pytest.mark.skipif(
    c_runtime.kernel_choice(None) != "c", reason="runs with C kernels"
)

RNG = np.random.default_rng(12)

SCATTER = """
func.func @main(%x: memref<3x17xf32>, %pos: memref<5xi64>, %u: memref<5x17xf32>)
    -> memref<3x17xf32> {
  %y = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 17 {
      %v = affine.load %x[%i, %j] : memref<3x17xf32>
      affine.store %v, %y[%i, %j] : memref<3x17xf32>
    }
  }
  affine.for %k = 0 to 5 {
    affine.for %j = 0 to 17 {
      %p = affine.load %pos[%k] : memref<5xi64>
      %q = arith.index_cast %p : i64 to index
      %old = memref.load %y[%q, %j] : memref<3x17xf32>
      %new = affine.load %u[%k, %j] : memref<5x17xf32>
      %s = COMBINE
      memref.store %s, %y[%q, %j] : memref<3x17xf32>
    }
  }
  func.return %y : memref<3x17xf32>
}
"""
"""A scatter of rows `u` into a copy of `x` at the rows `pos` names, with no
check of its own (`COMBINE`: how an update meets the element)."""

COMBINES = {
    "add": ("arith.addf %old, %new : f32", np.add),
    "max": ("arith.maximumf %old, %new : f32", np.maximum),
    "last": ("arith.addf %new, %new : f32", lambda old, new: new + new),
}


def special(shape: tuple[int, ...]) -> np.ndarray:
    """Normal values with NaN, +-inf and -0.0 among them."""
    x = RNG.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::13], flat[5::17], flat[7::19], flat[3::11] = np.nan, np.inf, -np.inf, -0.0
    return x


def scatter_definition(x, pos, u, combine):
    """One update after the other, in order."""
    y = x.copy()
    for k, row in enumerate(pos):
        y[row] = combine(y[row], u[k])
    return y


def checked_kernels(compiled) -> list[str]:
    """The C source of the kernels of `compiled` that return a status and
    run loops (not those calling a run of kernels)."""
    (source,) = {
        c_runtime._ORIGINS[id(v)][0]
        for v in compiled.function.__globals__.values()
        if id(v) in c_runtime._ORIGINS
    }
    kernels = re.findall(r"^int k\d+\(.*?^}", source, re.S | re.M)
    return [kernel for kernel in kernels if "for (" in kernel]


@pytest.mark.parametrize("combine", sorted(COMBINES))
def test_a_scatter_with_duplicates_combines_them_in_order(combine):
    """Rows 2 and 0 are written twice: added, maxed, or the last one kept,
    as the scalar path computes it, bit for bit (NaN, infinities, -0.0)."""
    text = SCATTER.replace("COMBINE", COMBINES[combine][0])
    x, u = special((3, 17)), special((5, 17))
    pos = np.array([2, 0, 2, 1, 0])
    compiled = compile_module(text, poison=True, kernels="c")
    assert compiled.native_nests == 2 and compiled.scalar_nests == []
    (got,) = compiled(x, pos, u)
    (scalar,) = compile_module(text, poison=True, vectorize=False)(x, pos, u)
    np.testing.assert_array_equal(got, scalar)
    assert np.array_equal(np.signbit(got), np.signbit(scalar))
    with np.errstate(invalid="ignore"):
        want = scatter_definition(x, pos, u, COMBINES[combine][1])
    np.testing.assert_array_equal(got, want)
    (kernel,) = checked_kernels(compiled)
    assert "omp" not in kernel and "GCC unroll" in kernel  # one at a time


@pytest.mark.parametrize("bad", [3, -1, 1 << 40])
def test_a_computed_index_out_of_its_axis_is_an_error_not_a_write(bad):
    """The IR checks nothing: the kernel's own check stops it before the
    store (a negative index is not wrapped), the call raises one line."""
    text = SCATTER.replace("COMBINE", COMBINES["add"][0])
    compiled = compile_module(text, kernels="c")
    x, u = np.zeros((3, 17), np.float32), np.ones((5, 17), np.float32)
    pos = np.array([0, 1, bad, 1, 0])
    message = "error: 'memref.load' index out of range [0, 2] on axis 0"
    with pytest.raises(JITError, match=re.escape(message)):
        compiled(x, pos, u)


GATHERS = """
func.func @main(%x: memref<3x17xf32>, %pos: memref<5xi64>, %far: memref<5xi64>)
    -> memref<5x17xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<5x17xf32>
  %w = memref.alloc() : memref<5x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 17 {
      %v = affine.load %x[%i, %j] : memref<3x17xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %y[%i, %j] : memref<3x17xf32>
    }
  }
  affine.for %k = 0 to 5 {
    affine.for %j = 0 to 17 {
      %p = affine.load %pos[%k] : memref<5xi64>
      %q = arith.index_cast %p : i64 to index
      %v = memref.load %y[%q, %j] : memref<3x17xf32>
      affine.store %v, %z[%k, %j] : memref<5x17xf32>
    }
  }
  affine.for %k = 0 to 5 {
    affine.for %j = 0 to 17 {
      %p = affine.load %far[%k] : memref<5xi64>
      %q = arith.index_cast %p : i64 to index
      %three = arith.constant 3 : index
      %in = arith.cmpi slt, %q, %three : index
      cf.assert %in, "x.onnx:1:1: error: 'ge.gather' op index past the end"
      %v = memref.load %z[%q, %j] : memref<5x17xf32>
      %s = arith.addf %v, %v : f32
      affine.store %s, %w[%k, %j] : memref<5x17xf32>
    }
  }
  func.return %w : memref<5x17xf32>
}
"""
"""A ReLU, a gather of its rows, and a gather of those (its indices checked
by the IR below 3, and by the kernel in 0..4): three kernel calls in a row."""


def test_checked_kernels_merge_and_say_which_check_failed():
    """The three nests are one call; whichever check fails, the call raises
    its own diagnostic, and the results are the scalar path's."""
    compiled = compile_module(GATHERS, kernels="c")
    jitted = compiled.source.split("def jitted")[1].splitlines()
    calls = [line.strip() for line in jitted if re.search(r"\bk\d+\(", line)]
    assert len(calls) == 1 and calls[0].startswith("checked("), compiled.source
    x = special((3, 17))
    pos, far = np.array([2, 0, 1, 2, 0]), np.array([4, 1, 0, 2, 3])
    far_ok = np.array([2, 1, 0, 2, 0])
    (got,) = compiled(x, pos, far_ok)
    scalar = compile_module(GATHERS, vectorize=False)
    np.testing.assert_array_equal(got, scalar(x, pos, far_ok)[0])
    with pytest.raises(JITError, match="'ge.gather' op index past the end"):
        compiled(x, pos, far)
    with pytest.raises(JITError, match=re.escape("'memref.load' index out of")):
        compiled(x, np.array([0, 0, 3, 0, 0]), far_ok)
    with pytest.raises(JITError, match="'ge.gather' op index past the end"):
        scalar(x, pos, far)


def test_repeated_nests_with_checks_replay_their_messages():
    """Two nests of one structure (the second replays the first's emission)
    each check their indices and raise."""
    head = "  affine.for %k = 0 to 5 {\n"
    before, gather, rest = GATHERS.split(head, 2)
    twice = before + (head + gather) * 2 + head + rest
    compiled = compile_module(twice, kernels="c")
    assert compiled.native_nests == 4, compiled.source
    x = special((3, 17))
    pos, far = np.array([2, 0, 1, 2, 0]), np.array([2, 1, 0, 2, 0])
    (got,) = compiled(x, pos, far)
    np.testing.assert_array_equal(
        got, compile_module(GATHERS, kernels="c")(x, pos, far)[0]
    )
    with pytest.raises(JITError, match=re.escape("'memref.load' index out of")):
        compiled(x, np.array([0, 0, 5, 0, 0]), far)


CONVERT = """
func.func @main(%x: memref<4x16xf32>) -> memref<4x16xTYPE> {
  %y = memref.alloc() : memref<4x16xTYPE>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 {
      %v = affine.load %x[%i, %j] : memref<4x16xf32>
      %r = arith.fptosi %v : f32 to TYPE
      affine.store %r, %y[%i, %j] : memref<4x16xTYPE>
    }
  }
  func.return %y : memref<4x16xTYPE>
}
"""


@pytest.mark.parametrize("type_", ["i64", "i32", "i8", "i1"])
def test_float_to_integer_in_c_is_numpys_on_every_value(type_):
    """NaN, infinities and values out of range convert as NumPy's `astype`
    does (the processor's conversion), not as undefined C."""
    x = special((4, 16)) * 1e4
    x.reshape(-1)[-8:] = [3e9, -3e9, 1e20, -1e20, 2.0**31, -(2.0**31), 300.7, -129.5]
    text = CONVERT.replace("TYPE", type_)
    compiled = compile_module(text, kernels="c")
    assert compiled.native_nests == 1
    with np.errstate(invalid="ignore"):
        (want,) = compile_module(text, kernels="numpy")(x)
    np.testing.assert_array_equal(compiled(x)[0], want)


# ---------------------------------------------------------------------------
# ONNX models: onnxruntime's results, no nest element by element
# ---------------------------------------------------------------------------


def run_onnx(
    model: onnx.ModelProto, inputs: dict[str, np.ndarray], like: list | None = None
) -> tuple:
    """The model's outputs on the JIT (C kernels), after checking every
    nest runs as a kernel or NumPy calls, none element by element; and
    onnxruntime's (its outputs typed `like` these arrays instead, if
    given: onnxruntime refuses the inputs), and the imported module."""
    expected = like or onnxruntime_outputs(model, inputs)
    imported = import_onnx(with_output_types(model, expected))
    graph = imported.module.body.block.first_op
    compiled = compile_graph(graph)
    assert compiled.scalar_nests == [], compiled.scalar_nests
    assert compiled.native_nests > 0 or compiled.vectorised == 0  # C kernels
    got = run_graph(imported.module, inputs, imported.weights)
    return got, expected, imported.module


def assert_matches(outputs: tuple) -> None:
    """`run_onnx`'s outputs are onnxruntime's."""
    got, want, _ = outputs
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def assert_reference(outputs: tuple, inputs: dict[str, np.ndarray]) -> None:
    """`run_onnx`'s outputs are the reference evaluator's, NaN for NaN
    (where onnxruntime's max and min drop a NaN NumPy's propagate)."""
    got, _, module = outputs
    with np.errstate(invalid="ignore", over="ignore"):
        want = evaluate(module, inputs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def finite(x: np.ndarray) -> np.ndarray:
    """`x` with its NaNs and infinities made ordinary numbers."""
    return np.nan_to_num(x, nan=0.5, posinf=4.0, neginf=-4.0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_nd_with_run_time_duplicate_indices(reduction):
    """33 rows of 17 into 3x17x33 data through 2-deep indices, some rows
    repeated and negative; special values in data and updates."""
    data = special((3, 17, 33))
    rows = np.stack([RNG.integers(-3, 3, 33), RNG.integers(-17, 17, 33)], -1)
    rows[5], rows[9] = rows[2], rows[2]  # duplicates
    updates = special((33, 33))
    inputs = {"data": data, "indices": rows, "updates": updates}
    model = one_node_model("ScatterND", inputs, opset=18, reduction=reduction)
    with np.errstate(invalid="ignore", over="ignore"):
        assert_reference(run_onnx(model, inputs), inputs)
    ordinary = {**inputs, "data": finite(data), "updates": finite(updates)}
    assert_matches(run_onnx(model, ordinary))


def test_scatter_nd_of_no_rows_and_past_the_end():
    data = rand(3, 17)
    empty = {"data": data, "indices": np.zeros((0, 1), np.int64),
             "updates": np.zeros((0, 17), np.float32)}  # fmt: skip
    model = one_node_model("ScatterND", empty, opset=18)
    (got,), _, _ = run_onnx(model, empty)
    np.testing.assert_array_equal(got, data)
    bad = {"data": data, "indices": np.array([[1], [3]]), "updates": rand(2, 17)}
    model = one_node_model("ScatterND", bad, opset=18)
    with pytest.raises(GEError, match=r"index out of range \[-3, 2\]") as info:
        run_onnx(model, bad, like=[data])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_elements_with_run_time_duplicates(reduction):
    data = special((3, 33))
    indices = RNG.integers(-3, 3, (17, 33))
    if reduction == "none":  # distinct positions: duplicates are unspecified
        indices = np.stack([RNG.permutation(3) - 3 * (c % 2) for c in range(33)], 1)
    updates = special(indices.shape)
    inputs = {"data": data, "indices": indices, "updates": updates}
    model = one_node_model(
        "ScatterElements", inputs, opset=18, axis=0, reduction=reduction
    )
    with np.errstate(invalid="ignore", over="ignore"):
        assert_reference(run_onnx(model, inputs), inputs)
    ordinary = {**inputs, "data": finite(data), "updates": finite(updates)}
    assert_matches(run_onnx(model, ordinary))


def test_gathers_through_run_time_indices():
    """GatherElements and GatherND with negative indices, odd sizes, an
    empty index tensor, and an index past the end as a one-line error."""
    t = special((17, 33))
    g = RNG.integers(-17, 17, (5, 33))
    inputs = {"t": t, "g": g}
    model = one_node_model("GatherElements", inputs, opset=18, axis=0)
    assert_matches(run_onnx(model, inputs))
    t3 = special((5, 7, 3))
    nd = {
        "t": t3,
        "g": np.stack([RNG.integers(-5, 5, 17), RNG.integers(-7, 7, 17)], -1),
    }
    model = one_node_model("GatherND", nd, opset=18)
    assert_matches(run_onnx(model, nd))
    empty = {"t": t3, "g": np.zeros((0, 2), np.int64)}
    model = one_node_model("GatherND", empty, opset=18)
    (got,), _, _ = run_onnx(model, empty)
    assert got.shape == (0, 3)
    bad = {"t": t, "g": np.where(g == g.max(), 17, g)}
    model = one_node_model("GatherElements", bad, opset=18, axis=0)
    with pytest.raises(GEError, match=r"index out of range \[-17, 16\] on axis 0"):
        run_onnx(model, bad, like=[t[:5]])


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_of_odd_sizes(mode, padding_mode):
    x = rand(1, 3, 33, 33)
    grid = RNG.uniform(-1.3, 1.3, (1, 17, 17, 2)).astype(np.float32)
    inputs = {"x": x, "grid": grid}
    model = one_node_model(
        "GridSample", inputs, opset=20, mode=mode, padding_mode=padding_mode
    )
    outputs = run_onnx(model, inputs)
    if (mode, padding_mode) == ("cubic", "border"):  # the onnx reference's rule
        (want,) = evaluate(outputs[2], inputs)
        np.testing.assert_allclose(outputs[0][0], want, rtol=1e-5, atol=1e-5)
    else:
        assert_matches(outputs)


def test_grid_sample_of_special_values_is_the_references():
    """NaN and infinities in the image and in the grid: the reference's
    results (onnxruntime and the ONNX reference disagree there)."""
    x = special((1, 3, 5, 7))
    grid = RNG.uniform(-1.3, 1.3, (1, 3, 17, 2)).astype(np.float32)
    grid[0, 0, :4] = [[np.nan, 0], [np.inf, 0.5], [-np.inf, -np.inf], [-0.0, 0.0]]
    inputs = {"x": x, "grid": grid}
    model = one_node_model("GridSample", inputs, opset=20)
    with np.errstate(invalid="ignore"):
        (got,), _, module = run_onnx(model, inputs)
        (want,) = evaluate(module, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_roi_align_max_unpool_and_max_pool_indices():
    """RoiAlign (avg), MaxUnpool of MaxPool's indices and MaxPool's Indices
    output itself (ties, -inf), odd sizes."""
    rois = np.array([[0.5, 1.0, 6.2, 7.7], [-3, -2, 4, 3], [5, 5, 12, 9.5]], np.float32)
    inputs = {"x": rand(2, 17, 9, 7), "rois": rois, "b": np.array([0, 1, 1])}
    model = one_node_model(
        "RoiAlign", inputs, opset=16, output_height=3, output_width=5,
        sampling_ratio=2, spatial_scale=0.75,
    )  # fmt: skip
    assert_matches(run_onnx(model, inputs))
    x = np.round(rand(2, 3, 9, 17) * 2) / 2
    x.reshape(-1)[:3] = -np.inf
    pool = one_node_model(
        "MaxPool", {"x": x}, ("y", "i"), opset=12, kernel_shape=[3, 2], strides=[3, 2]
    )
    pooled = run_onnx(pool, {"x": x})
    assert_matches(pooled)
    unpool_inputs = {"values": pooled[0][0], "positions": pooled[0][1]}
    shape = {"s": np.array(x.shape, np.int64)}
    unpool = one_node_model(
        "MaxUnpool", unpool_inputs, initializers=shape, opset=11,
        kernel_shape=[3, 2], strides=[3, 2],
    )  # fmt: skip
    assert_matches(run_onnx(unpool, unpool_inputs))


def test_the_trace_says_a_scatter_runs_on_the_jit(tmp_path, capsys):
    """`ge-run --trace --check` of a scatter at run-time positions: the part
    is `jit`, with no nest element by element, and the check passes."""
    b = GraphBuilder("main")
    data = b.data([3, 17], "float32", name="data")
    positions = b.data([2, 1], "int64", name="positions")
    updates = b.data([2, 17], "float32", name="updates")
    b.output(b.scatter_nd(data, positions, updates, reduction="add"))
    graph = tmp_path / "scatter.mlir"
    graph.write_text(str(b.build()))
    np.save(tmp_path / "positions.npy", np.array([[2], [-1]]))
    argv = [str(graph), f"--input=positions={tmp_path / 'positions.npy'}"]
    assert ge_run.main([*argv, "--random-inputs", "--trace", "--check"]) == 0
    out = capsys.readouterr().out
    assert "sunk (part 0, jit)" in out and "element by element" not in out, out
