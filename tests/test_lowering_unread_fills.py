"""Fills no load reads are erased after lowering
(`passes.lowering.unread_fills`), and only those: results stay exact, every
other fill still runs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_lowering import check, nc1hwc0_graph, to
from xdsl.dialects import affine, func

from ge_dialect.builder import GraphBuilder
from ge_dialect.parsing import parse_module
from ge_runtime.jit import c_runtime
from ge_runtime.jit.compiler import compile_module, loop_context, lowered_module
from passes.lowering import convert_ge_to_loops, emitter
from passes.lowering.unread_fills import drop_unread_fills, unread_fill

NO_CC = pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")
KERNELS = ["numpy", pytest.param("c", marks=NO_CC)]

LANES = """
func.func @lanes(%x: memref<{n}x{w}xf32>) -> memref<{n}x{w}xf32> {{
  %zero = arith.constant 0.0 : f32
  %arena = memref.alloc() : memref<{bytes}xi8>
  %c0 = arith.constant 0 : index
  %y = memref.view %arena[%c0][] : memref<{bytes}xi8> to memref<{n}x{w}x16xf32>
  affine.for %n = 0 to {n} {{
    affine.for %w = 0 to {w} {{
      affine.for %c = 0 to 15 {{
        affine.store %zero, %y[%n, %w, %c + 1] : memref<{n}x{w}x16xf32>
      }}
    }}
  }}
  affine.for %n = 0 to {n} {{
    affine.for %w = 0 to {w} {{
      %v = affine.load %x[%n, %w] : memref<{n}x{w}xf32>
      affine.store %v, %y[%n, %w, 0] : memref<{n}x{w}x16xf32>
    }}
  }}
  %out = memref.alloc() : memref<{n}x{w}xf32>
  affine.for %n = 0 to {n} {{
    affine.for %w = 0 to {w} {{
      %v = affine.load %y[%n, %w, {lane}] : memref<{n}x{w}x16xf32>
      %s = arith.addf %v, %v : f32
      affine.store %s, %out[%n, %w] : memref<{n}x{w}xf32>
    }}
  }}
  func.return %out : memref<{n}x{w}xf32>
}}
"""
"""A 1-channel NC1HWC0-like buffer: lanes 1-15 zero-filled, lane 0 copied
from `x`, lane `lane` read back doubled."""


def lanes(n: int, w: int, lane: int | str) -> str:
    return LANES.format(n=n, w=w, bytes=n * w * 64, lane=lane)


def dropped(text: str) -> str:
    """The module of `text` after `drop_unread_fills`."""
    module = parse_module(loop_context(), text, "<test>")
    for function in module.ops:
        assert isinstance(function, func.FuncOp)
        drop_unread_fills(function)
    return str(module)


def fills(text: str) -> list[bool]:
    """`unread_fill` of each outermost nest storing a constant."""
    module = parse_module(loop_context(), text, "<test>")
    return [
        unread_fill(op)
        for op in module.walk()
        if isinstance(op, affine.ForOp)
        and not isinstance(op.parent_op(), affine.ForOp)
        and isinstance(next(iter(op.walk())), affine.ForOp)
        and any(isinstance(o, affine.StoreOp) for o in op.walk())
        and not any(isinstance(o, affine.LoadOp) for o in op.walk())
    ]


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize(("n", "w"), [(3, 17), (1, 33), (2, 100)])
def test_a_fill_of_lanes_no_load_reads_is_skipped(kernels, n, w):
    text = lanes(n, w, 0)
    assert fills(text) == [True]
    x = np.random.default_rng(n * w).standard_normal((n, w)).astype(np.float32)
    x[0, 0], x[-1, -1] = np.inf, np.nan
    compiled = compile_module(dropped(text), poison=True, kernels=kernels)
    (out,) = compiled(x)
    np.testing.assert_array_equal(out, x + x)
    assert compiled.vectorised == 2  # the copy and the sum: no fill


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("lane", [1, 15, "%w mod 16"])
def test_a_fill_a_load_may_read_runs(kernels, lane):
    """A load of a filled lane, or of lanes over a range that meets them
    (the box of `%w mod 16`), keeps the fill: the zeros are read."""
    text = lanes(3, 17, lane)
    assert fills(text) == [False]
    x = np.ones((3, 17), np.float32)
    compiled = compile_module(dropped(text), poison=True, kernels=kernels)
    assert compiled.vectorised == 3
    (out,) = compiled(x)
    expected = np.zeros((3, 17), np.float32)
    if lane == "%w mod 16":
        expected[:, [0, 16]] = 2.0
    np.testing.assert_array_equal(out, expected)


def test_a_fill_of_a_returned_or_passed_buffer_runs():
    """A buffer the function returns, or uses other than by affine loads and
    stores, may be read where the analysis cannot see."""
    returned = """
func.func @f() -> memref<3x16xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<3x16xf32>
  affine.for %i = 0 to 3 {
    affine.for %c = 1 to 16 {
      affine.store %zero, %y[%i, %c] : memref<3x16xf32>
    }
  }
  func.return %y : memref<3x16xf32>
}
"""
    gathered = """
func.func @f(%k: index) -> f32 {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<3x16xf32>
  affine.for %i = 0 to 3 {
    affine.for %c = 1 to 16 {
      affine.store %zero, %y[%i, %c] : memref<3x16xf32>
    }
  }
  %v = memref.load %y[%k, %k] : memref<3x16xf32>
  func.return %v : f32
}
"""
    assert fills(returned) == [False]
    assert fills(gathered) == [False]


def zero_stores(text: str) -> int:
    """How many stores of the constant 0.0 the loop IR holds."""
    zeros = re.findall(r"(%\w+) = arith.constant 0.000000e\+00 : f32", text)
    return sum(len(re.findall(rf"affine.store {z}, ", text)) for z in zeros)


@pytest.mark.parametrize("cin", [1, 3, 17])
def test_a_convolution_reads_no_padding_lane_of_its_input(cin):
    """A convolution reads its input's real channels only: the padding
    lanes' fill of the transdata's result is erased, the results exact
    (NaN-filled fresh buffers: `poison`)."""

    def body(b, x, w):
        conv = b.conv2d(x, to(b, w, "FRACTAL_Z"), pads=[1, 1, 1, 1], data_format="NCHW")
        return b.relu(conv)

    extra = [([5, cin, 3, 3], {"format": "NCHW"})]
    module = nc1hwc0_graph("float32", (2, cin, 3, 17), body, extra)
    text = check(module)
    graph = module.body.block.first_op
    assert zero_stores(text) < zero_stores(_without_dropping(graph))


@pytest.mark.parametrize("rows", [2, 3, 17])
def test_a_matmul_reads_no_padding_row_of_fractal_nz(rows):
    """FRACTAL_NZ's padding is two boxes (rows, columns past the matrix);
    a matmul over 16-row blocks reads the matrix's rows only."""
    b = GraphBuilder("g")
    a = b.data([rows, 33], "float32")
    w = b.data([33, 100], "float32")
    y = b.matmul(to(b, a, "FRACTAL_NZ"), to(b, w, "FRACTAL_NZ"))
    b.output(to(b, b.relu(y), "ND"))
    module = b.build()
    text = check(module)
    assert zero_stores(text) < zero_stores(
        _without_dropping(module.body.block.first_op)
    )


def test_padding_no_load_reads_is_never_filled():
    """`alloc` leaves padding fills to the function's end, and
    `fill_read_padding` builds only those whose box a load may read:
    without `drop_unread_fills`, a matmul's FRACTAL_NZ padding rows still
    get no fill, and the results stay exact (rows no other test uses: the
    JIT's caches hold no lowering of this graph)."""
    b = GraphBuilder("g")
    a = b.data([5, 33], "float32")
    w = b.data([33, 100], "float32")
    y = b.matmul(to(b, a, "FRACTAL_NZ"), to(b, w, "FRACTAL_NZ"))
    b.output(to(b, b.relu(y), "ND"))
    module = b.build()
    graph = module.body.block.first_op
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(convert_ge_to_loops, "drop_unread_fills", lambda function: None)
        check(module)
        built = str(lowered_module(graph))
    assert zero_stores(built) < zero_stores(_without_dropping(graph))


def _without_dropping(graph) -> str:
    """The loop IR of `graph` with every fill kept."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(convert_ge_to_loops, "drop_unread_fills", lambda function: None)
        patch.setattr(emitter, "unread_box", lambda *_: False)
        return str(lowered_module(graph))
