"""C kernels (`jit.emit.c`): what the C computes is what NumPy and the scalar
path compute, bit for bit, including the loops `native_tiling` moves; a sum of
products term by term in the same order, each multiply-add rounded once
(`fused`), and the C library's transcendental functions within a few ULP."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from ge_dialect.builder import GraphBuilder
from ge_runtime.jit import c_runtime
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.compiler import JITError, compile_graph, compile_module
from ge_runtime.jit.emit import c as jit_c
from ge_runtime.jit.emit import native_operands
from ge_runtime.jit.emit.native_tiling import balanced_block
from ge_runtime.jit.ops import OPS
from ge_runtime.jit.schedule.kernel_calls import shared_addresses

pytestmark = pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def avx2_registers(monkeypatch):
    """Register tiles as on AVX2 (16 registers of 8 floats: tiles of 64
    sums), whatever this machine has, so the tiles these tests expect do
    not depend on it (`test_c_register_tiles_follow_the_vector_registers`
    takes AVX-512's)."""
    monkeypatch.setattr(jit_c, "vector_registers", lambda: (16, 8))


def special(shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:
    """Normal values with NaN, +-inf and -0.0 sprinkled in."""
    x = RNG.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::29], flat[7::31], flat[11::37] = np.nan, np.inf, -np.inf
    flat[3::5] = -0.0
    return x


def same_signs(got: np.ndarray, want: np.ndarray) -> bool:
    """Whether the signs agree off NaN (the sign of a NaN an operation makes
    is the hardware's, and no NumPy result promises one either)."""
    numbers = ~np.isnan(want)
    return np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def fused(start: np.ndarray, *terms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """`start + a0 * b0 + a1 * b1 + ...` from the left, each multiply-add
    rounded once to float32 (a fused multiply-add: the float64 product of
    two float32 is exact)."""
    acc = np.asarray(start, np.float32)
    with np.errstate(all="ignore"):
        for a, b in terms:
            exact = a.astype(np.float64) * b.astype(np.float64)
            acc = (exact + acc.astype(np.float64)).astype(np.float32)
    return acc


def library_source(compiled) -> str:
    """The C translation unit of a compiled function's kernels."""
    sources = {
        c_runtime._ORIGINS[id(v)][0]
        for v in compiled.function.__globals__.values()
        if id(v) in c_runtime._ORIGINS
    }
    (source,) = sources
    return source


def kernel_calls(compiled) -> list[str]:
    """The lines of a compiled function's per-call code calling a kernel."""
    jitted = compiled.source.split("def jitted")[1].splitlines()
    return [line for line in jitted if line.lstrip().startswith("k")]


def c_body(compiled, call: str) -> str:
    """The body of the C function the kernel call line `call` calls."""
    source = library_source(compiled)
    name = call.split("(")[0].strip()
    body = re.search(rf"(?:void|int) {name}\([^)]*\) {{\n(.*?)\n}}", source, re.S)
    assert body is not None, source
    return body[1]


def three_ways(text: str, *args: np.ndarray):
    """Results of the C kernels, NumPy calls and the scalar path."""
    c = compile_module(text, poison=True, kernels="c")
    assert c.native_nests > 0, c.source
    numpy_path = compile_module(text, poison=True, kernels="numpy")
    scalar = compile_module(text, poison=True, vectorize=False)
    return c, c(*args), numpy_path(*args), scalar(*args)


# A product small enough for C loops: y[i, c] = relu(b[c] + sum_j x[i, j] w[j, c]).
DENSE_RELU = """
func.func @main(%x: memref<17x33xf32>, %w: memref<33x16xf32>, %b: memref<16xf32>)
    -> memref<17x16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<17x16xf32>
  %y = memref.alloc() : memref<17x16xf32>
  affine.for %i = 0 to 17 {
    affine.for %c = 0 to 16 {
      %bv = affine.load %b[%c] : memref<16xf32>
      affine.store %bv, %acc[%i, %c] : memref<17x16xf32>
      affine.for %j = 0 to 33 {
        %xv = affine.load %x[%i, %j] : memref<17x33xf32>
        %wv = affine.load %w[%j, %c] : memref<33x16xf32>
        %p = arith.mulf %xv, %wv : f32
        %av = affine.load %acc[%i, %c] : memref<17x16xf32>
        %s = arith.addf %av, %p : f32
        affine.store %s, %acc[%i, %c] : memref<17x16xf32>
      }
      %v = affine.load %acc[%i, %c] : memref<17x16xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %y[%i, %c] : memref<17x16xf32>
    }
  }
  func.return %y : memref<17x16xf32>
}
"""


def test_c_runs_the_channel_loop_inside_the_reduction_in_register_tiles():
    """The 16-wide loop around a 33-long sum runs innermost over a local
    array (vectorised), with 4 rows at a time (4 strips and a last row),
    the sum's order unchanged: equal to the scalar path bit for bit, NaN
    and -0.0 included."""
    x, w = special((17, 33)), RNG.standard_normal((33, 16)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    b[5] = -0.0
    compiled, (got,), _, (scalar,) = three_ways(DENSE_RELU, x, w, b)
    sums = fused(np.broadcast_to(b, (17, 16)), *((x[:, [j]], w[j]) for j in range(33)))
    want = np.maximum(sums, np.float32(0))
    np.testing.assert_array_equal(got, want)
    assert same_signs(got, want)
    assert np.isnan(got).any()
    np.testing.assert_allclose(got, scalar, rtol=1e-5, atol=1e-5)  # two roundings
    source = library_source(compiled)
    assert "float m0[64] __attribute__((aligned(64)));" in source, source
    assert "__builtin_fmaf(" in source, source
    assert "for (int64_t s0 = 0; s0 < 4; ++s0) {" in source, source
    assert "int64_t t0 = s0 * 4 + u0;" in source, source
    assert "int64_t t0 = 16 + u0;" in source, source  # the last row
    assert '_Pragma("GCC unroll 4")' in source, source
    assert '_Pragma("GCC unroll 1")' in source, source


def dense_relu_c(rows: int, channels: int) -> str:
    """The C library of `DENSE_RELU` at `rows` x `channels` (33 products a
    sum; a new module for each size), its outputs checked first: each
    row's sum as before, bit for bit."""
    x = special((rows, 33))
    w = RNG.standard_normal((33, channels)).astype(np.float32)
    b = RNG.standard_normal(channels).astype(np.float32)
    text = DENSE_RELU.replace("17", str(rows)).replace("x16", f"x{channels}")
    text = text.replace("to 16", f"to {channels}").replace("<16x", f"<{channels}x")
    compiled, (got,), _, _ = three_ways(text, x, w, b)
    biases = np.broadcast_to(b, (rows, channels))
    sums = fused(biases, *((x[:, [j]], w[j]) for j in range(33)))
    np.testing.assert_array_equal(got, np.maximum(sums, np.float32(0)))
    return library_source(compiled)


def test_c_register_tiles_follow_the_vector_registers(monkeypatch):
    """With AVX-512's 32 registers of 16 floats a tile holds 256 sums: 16
    rows of 16 channels (34 rows: two strips of 16 and the last 2, no
    divisor of 34 near 16), each row's sum as before, bit for bit."""
    monkeypatch.setattr(jit_c, "vector_registers", lambda: (32, 16))
    assert jit_c.tile_elements() == 256
    assert jit_c.tiled_sum() == jit_c.WIDE_TILED_SUM
    source = dense_relu_c(34, 16)
    assert "float m0[256] __attribute__((aligned(64)));" in source, source
    assert '_Pragma("GCC unroll 16")' in source, source
    assert "int64_t t0 = 32 + u0;" in source, source  # the last rows


def test_c_register_tiles_of_narrow_rows_count_registers_not_sums(monkeypatch):
    """A row of 2 channels takes a register as one of 16 does: with AVX-512
    a tile holds 16 such rows, not 128 (GCC spent seconds on each such
    unrolled tile); 40 rows are 4 strips of 10 (a divisor of the rows
    within 16 and above 8: no shorter last strip, the tile's code written
    once); the sums are as before, bit for bit."""
    monkeypatch.setattr(jit_c, "vector_registers", lambda: (32, 16))
    assert [jit_c.tile_rows(n) for n in (2, 16, 17, 32)] == [16, 16, 8, 8]
    source = dense_relu_c(40, 2)
    assert "float m0[20] __attribute__((aligned(64)));" in source, source
    assert "for (int64_t s0 = 0; s0 < 4; ++s0) {" in source, source
    assert "+ u0;" not in source.replace("s0 * 10 + u0;", ""), source  # no tail


def test_register_tile_strips_divide_the_rows_when_one_is_near_the_budget():
    """`balanced_block`: the largest divisor of the rows within the budget
    when it is at least half of it, else the budget (and a last strip)."""
    assert balanced_block(1, 9) == 1 and balanced_block(0, 9) == 0
    assert [balanced_block(16, n) for n in (9, 16, 18, 28, 40, 49, 34, 17)] == [
        9,
        16,
        9,
        14,
        10,
        16,
        16,
        16,
    ]


def test_c_sunk_loops_run_their_whole_vectors_then_the_rest():
    """A tile of rows of 14 channels runs channels 0-11 (whole vectors), then
    12-13 in a loop of their own (no scalar epilogue for GCC to gather back
    into vectors over the unrolled rows); each sum as before, bit for bit."""
    assert [jit_c.vector_spans(n) for n in (2, 12, 14)] == [
        [(0, 2)],
        [(0, 12)],
        [(0, 12), (12, 14)],
    ]
    source = dense_relu_c(17, 14)
    assert "for (int64_t t1 = 0; t1 < 12; ++t1) {" in source, source
    assert "for (int64_t t1 = 12; t1 < 14; ++t1) {" in source, source
    assert "t1 < 14; ++t1) {" not in source.replace("t1 = 12; t1 < 14", ""), source


def pointwise_conv(n: int, h: int, w: int, k: int) -> str:
    """y[n, h, w, c] = x[n, h, w, :] . f[:, c] + b[c], 16 channels (a 1x1
    convolution's loops over NHWC0)."""
    x, y = f"memref<{n}x{h}x{w}x{k}xf32>", f"memref<{n}x{h}x{w}x16xf32>"
    return f"""
func.func @main(%x: {x}, %f: memref<{k}x16xf32>, %b: memref<16xf32>) -> {y} {{
  %y = memref.alloc() : {y}
  affine.for %i = 0 to {n} {{
    affine.for %j = 0 to {h} {{
      affine.for %l = 0 to {w} {{
        affine.for %c = 0 to 16 {{
          %bv = affine.load %b[%c] : memref<16xf32>
          affine.store %bv, %y[%i, %j, %l, %c] : {y}
          affine.for %r = 0 to {k} {{
            %xv = affine.load %x[%i, %j, %l, %r] : {x}
            %fv = affine.load %f[%r, %c] : memref<{k}x16xf32>
            %p = arith.mulf %xv, %fv : f32
            %a = affine.load %y[%i, %j, %l, %c] : {y}
            %s = arith.addf %a, %p : f32
            affine.store %s, %y[%i, %j, %l, %c] : {y}
          }}
        }}
      }}
    }}
  }}
  func.return %y : {y}
}}"""


@pytest.mark.parametrize(
    "shape, tile",
    [
        ((2, 2, 2, 17), "whole"),  # 2 x 2 pixels: both loops in the tile
        ((2, 3, 7, 33), "strips"),  # 7 = 4 + 3
        ((1, 1, 1, 3), "none"),  # one pixel
    ],
)
def test_c_register_tiles_of_a_pointwise_convolution(shape, tile):
    n, h, w, k = shape
    x = special((n, h, w, k))
    f = RNG.standard_normal((k, 16)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    compiled, (got,), _, _ = three_ways(pointwise_conv(*shape), x, f, b)
    want = fused(
        np.broadcast_to(b, (n, h, w, 16)), *((x[..., [r]], f[r]) for r in range(k))
    )
    np.testing.assert_array_equal(got, want)
    assert same_signs(got, want)
    source = library_source(compiled)
    if tile == "whole":
        assert "m0[((t1) * 2 + t2) * 16 + t3]" in source, source
    elif tile == "strips":
        assert "int64_t t2 = s2 * 4 + u2;" in source, source
        assert "int64_t t2 = 4 + u2;" in source, source
    else:
        assert "m0[t3]" in source, source


def transposed_product(m: int, n: int, k: int) -> str:
    """y[i, c] = b[c] + sum_j x[i, j] * r[c, j]: a product whose right
    operand is read across its rows (attention's scores, q . k^T)."""
    x, r, y = f"memref<{m}x{k}xf32>", f"memref<{n}x{k}xf32>", f"memref<{m}x{n}xf32>"
    return f"""
func.func @main(%x: {x}, %r: {r}, %b: memref<{n}xf32>) -> {y} {{
  %y = memref.alloc() : {y}
  affine.for %i = 0 to {m} {{
    affine.for %c = 0 to {n} {{
      %bv = affine.load %b[%c] : memref<{n}xf32>
      affine.store %bv, %y[%i, %c] : {y}
      affine.for %j = 0 to {k} {{
        %xv = affine.load %x[%i, %j] : {x}
        %rv = affine.load %r[%c, %j] : {r}
        %p = arith.mulf %xv, %rv : f32
        %a = affine.load %y[%i, %c] : {y}
        %s = arith.addf %a, %p : f32
        affine.store %s, %y[%i, %c] : {y}
      }}
    }}
  }}
  func.return %y : {y}
}}"""


@pytest.mark.parametrize(
    "m, n, k",
    [(3, 17, 33), (17, 33, 3), (100, 16, 17), (33, 3, 100), (5, 16, 0), (22, 100, 64)],
)
def test_c_copies_a_product_operand_read_across_its_rows(m, n, k):
    """The right operand, read at stride `k` along the vectorised loop of
    `n` outputs, is copied where the loop's region starts into a local
    array with that loop's elements adjacent; the sums,
    in their order, bit for bit with NaN, infinities and -0.0 among the
    operands."""
    x, r = special((m, k)), special((n, k))
    b = RNG.standard_normal(n).astype(np.float32)
    b[0] = -0.0
    compiled, (got,), _, _ = three_ways(transposed_product(m, n, k), x, r, b)
    want = fused(np.broadcast_to(b, (m, n)), *((x[:, [j]], r[:, j]) for j in range(k)))
    np.testing.assert_array_equal(got, want)
    assert same_signs(got, want)
    source = library_source(compiled)
    copied = f"float q0[{n * k}] __attribute__((aligned(64)));"
    assert (copied in source) == (k > 0), source
    if k > 0:
        copy = rf"q0\[\(t2\) \* {n} \+ t1\] = a\d\[\(t1\) \* {k} \+ \(t2\)\];"
        assert re.search(copy, source), source
        assert f"q0[(t2) * {n} + t1];" in source, source  # read in the sum


# 24 input channels as a block of 16 and one of 8 (a padded C0 block's
# real channels): two reductions into each output, then a ReLU.
TWO_REDUCTIONS = """
func.func @main(%x: memref<5x2x16xf32>, %w: memref<2x16x16xf32>, %b: memref<16xf32>)
    -> memref<5x16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<5x16xf32>
  %y = memref.alloc() : memref<5x16xf32>
  affine.for %i = 0 to 5 {
    affine.for %c = 0 to 16 {
      %bv = affine.load %b[%c] : memref<16xf32>
      affine.store %bv, %acc[%i, %c] : memref<5x16xf32>
      affine.for %k = 0 to 16 {
        %xv = affine.load %x[%i, 0, %k] : memref<5x2x16xf32>
        %wv = affine.load %w[0, %k, %c] : memref<2x16x16xf32>
        %p = arith.mulf %xv, %wv : f32
        %a = affine.load %acc[%i, %c] : memref<5x16xf32>
        %s = arith.addf %a, %p : f32
        affine.store %s, %acc[%i, %c] : memref<5x16xf32>
      }
      affine.for %k = 0 to 8 {
        %xv = affine.load %x[%i, 1, %k] : memref<5x2x16xf32>
        %wv = affine.load %w[1, %k, %c] : memref<2x16x16xf32>
        %p = arith.mulf %xv, %wv : f32
        %a = affine.load %acc[%i, %c] : memref<5x16xf32>
        %s = arith.addf %a, %p : f32
        affine.store %s, %acc[%i, %c] : memref<5x16xf32>
      }
      %v = affine.load %acc[%i, %c] : memref<5x16xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %y[%i, %c] : memref<5x16xf32>
    }
  }
  func.return %y : memref<5x16xf32>
}
"""


def test_c_sinks_the_channel_loop_into_each_of_two_reductions():
    """The channel loop runs innermost in both sums (and the bias and ReLU
    loops between), bit for bit the scalar path."""
    x = special((5, 2, 16))
    w = RNG.standard_normal((2, 16, 16)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    compiled, (got,), _, _ = three_ways(TWO_REDUCTIONS, x, w, b)
    terms = [(x[:, 0, [k]], w[0, k]) for k in range(16)]
    terms += [(x[:, 1, [k]], w[1, k]) for k in range(8)]
    want = np.maximum(fused(np.broadcast_to(b, (5, 16)), *terms), np.float32(0))
    np.testing.assert_array_equal(got, want)
    assert same_signs(got, want)
    source = library_source(compiled)
    assert source.count('_Pragma("GCC unroll 4")') == 2, source  # a tile in each
    assert "m0[(u0) * 16 + t1]" in source, source


def test_no_sinking_when_a_value_crosses_from_one_segment_to_another():
    """The bias, loaded before the sums, is a factor in the second: the
    channel loop stays outside them (each sum in a local)."""
    head, tail = TWO_REDUCTIONS.rsplit("%p = arith.mulf %xv, %wv : f32", 1)
    times_bias = (
        "%p0 = arith.mulf %xv, %wv : f32\n        %p = arith.mulf %p0, %bv : f32"
    )
    crossing = head + times_bias + tail
    assert crossing != TWO_REDUCTIONS
    x = special((5, 2, 16))
    w = RNG.standard_normal((2, 16, 16)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    compiled, (got,), _, _ = three_ways(crossing, x, w, b)
    terms = [(x[:, 0, [k]], w[0, k]) for k in range(16)]
    terms += [(x[:, 1, [k]] * w[1, k], b) for k in range(8)]  # (x w) b: one fused
    want = np.maximum(fused(np.broadcast_to(b, (5, 16)), *terms), np.float32(0))
    np.testing.assert_array_equal(got, want)
    assert "m0[" not in library_source(compiled)


ONE_ROW_SUMS = """
func.func @main(%x: memref<6x5xf32>, %w: memref<5x16xf32>) -> memref<16xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<16xf32>
  affine.for %c = 0 to 16 {
    affine.store %zero, %y[%c] : memref<16xf32>
  }
  affine.for %i = 0 to 6 {
    affine.for %c = 0 to 16 {
      affine.for %k = 0 to 5 {
        %xv = affine.load %x[%i, %k] : memref<6x5xf32>
        %wv = affine.load %w[%k, %c] : memref<5x16xf32>
        %p = arith.mulf %xv, %wv : f32
        %a = affine.load %y[%c] : memref<16xf32>
        %s = arith.addf %a, %p : f32
        affine.store %s, %y[%c] : memref<16xf32>
      }
    }
  }
  func.return %y : memref<16xf32>
}
"""


def test_no_register_tile_of_rows_that_store_one_element():
    """Every row adds into the same 16 sums: a tile of rows would reorder
    their terms, so the rows stay a loop around the sunk channel loop."""
    x = special((6, 5))
    w = RNG.standard_normal((5, 16)).astype(np.float32)
    compiled, (got,), _, _ = three_ways(ONE_ROW_SUMS, x, w)
    terms = [(x[i, [k]], w[k]) for i in range(6) for k in range(5)]
    want = fused(np.zeros(16, np.float32), *terms)
    np.testing.assert_array_equal(got, want)
    source = library_source(compiled)
    assert "float m0[16] __attribute__((aligned(64)));" in source, source
    assert "u1" not in source and "s1" not in source, source


NEGATIVE_INDEX = """
func.func @main(%x: memref<3x4xf32>) -> memref<12xf32> {
  %y = memref.alloc() : memref<12xf32>
  affine.for %i = 0 to 12 {
    %v = affine.load %x[(%i - 4) floordiv 4 + 1, (%i - 3) mod 4] : memref<3x4xf32>
    affine.store %v, %y[%i] : memref<12xf32>
  }
  func.return %y : memref<12xf32>
}
"""


def test_c_floordiv_and_mod_of_negative_indices_round_down():
    """`(i - 4) floordiv 4` is -1 at i = 0 and `(i - 3) mod 4` is 1, as in
    Python, not C's truncation."""
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    _, (got,), (numpy_result,), (want,) = three_ways(NEGATIVE_INDEX, x)
    i = np.arange(12)
    np.testing.assert_array_equal(want, x[(i - 4) // 4 + 1, (i - 3) % 4])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(numpy_result, want)


# A channel shuffle of 51 channels (3 groups of 17) over 5 pixels, both
# buffers in blocks of 16 lanes (C1 = 4, the last block's lanes 3..15 padding).
SHUFFLE = """
func.func @main(%x: memref<4x5x16xf32>) -> memref<4x5x16xf32> {
  %y = memref.alloc() : memref<4x5x16xf32>
  affine.for %c = 0 to 51 {
    affine.for %p = 0 to 5 {
      %v = affine.load %x[((%c mod 3) * 17 + %c floordiv 3) floordiv 16, %p,
                          ((%c mod 3) * 17 + %c floordiv 3) mod 16] : memref<4x5x16xf32>
      affine.store %v, %y[%c floordiv 16, %p, %c mod 16] : memref<4x5x16xf32>
    }
  }
  func.return %y : memref<4x5x16xf32>
}
"""


def shuffled(x: np.ndarray) -> np.ndarray:
    """`SHUFFLE`'s 51 channels by pixel (5x51): channel c reads channel
    (c mod 3) * 17 + c // 3 of `x`."""
    channels = x.transpose(1, 0, 2).reshape(5, 64)[:, :51]
    c = np.arange(51)
    return channels[:, (c % 3) * 17 + c // 3]


def channels(y: np.ndarray) -> np.ndarray:
    """The 51 channels of a blocked (4x5x16) result by pixel (its padding
    lanes are never written: poisoned)."""
    return y.transpose(1, 0, 2).reshape(5, 64)[:, :51]


def test_c_reads_wrapping_indices_from_a_table_of_offsets():
    """Each access through `floordiv`/`mod` takes that part of its offset
    from a constant table over the loop variables it divides (one per
    distinct table), the rest of it affine: no division per element; NaN,
    infinities and -0.0 copied bit for bit, the three paths equal."""
    x = special((4, 5, 16))
    compiled, (got,), (numpy_result,), (scalar,) = three_ways(SHUFFLE, x)
    want = shuffled(x)
    np.testing.assert_array_equal(channels(got).view(np.int32), want.view(np.int32))
    np.testing.assert_array_equal(channels(numpy_result), want)
    np.testing.assert_array_equal(channels(scalar), want)
    source = library_source(compiled)
    assert "static const int32_t g0[51] = {0, 81, 162, 1, 82, " in source, source
    assert "static const int32_t g1[51] = {0, 1, 2, " in source, source
    assert "floordiv(t" not in source and "floormod(t" not in source, source


def test_c_keeps_the_division_where_the_table_would_be_large(monkeypatch):
    """Past `TABLE_ENTRIES` entries the index is divided where it is used."""
    monkeypatch.setattr(native_operands, "TABLE_ENTRIES", 50)
    monkeypatch.setattr(jit, "_CACHE", {})  # not the code made with tables
    x = special((4, 5, 16))
    compiled, (got,), _, _ = three_ways(SHUFFLE, x)
    np.testing.assert_array_equal(
        channels(got).view(np.int32), shuffled(x).view(np.int32)
    )
    source = library_source(compiled)
    assert "static const int" not in source and "floordiv(t0, 16)" in source, source


# Nearest upsampling of rows: the source row of each output row read from a
# constant table (as the resize lowering writes it).
ROW_TABLE = """
"memref.global"() <{{sym_name = "rows", type = memref<6xi64>,
  initial_value = dense<[{rows}]> : tensor<6xi64>, sym_visibility = "private",
  constant}}> : () -> ()
func.func @main(%x: memref<3x17xf32>) -> memref<6x17xf32> {{
  %rows = memref.get_global @rows : memref<6xi64>
  %y = memref.alloc() : memref<6x17xf32>
  affine.for %i = 0 to 6 {{
    affine.for %j = 0 to 17 {{
      %r = affine.load %rows[%i] : memref<6xi64>
      %ri = arith.index_cast %r : i64 to index
      %v = memref.load %x[%ri, %j] : memref<3x17xf32>
      affine.store %v, %y[%i, %j] : memref<6x17xf32>
    }}
  }}
  func.return %y : memref<6x17xf32>
}}
"""


def test_c_gathers_through_a_constant_table_of_indices():
    """A gather whose index is read from a constant global: a C kernel
    reading the offsets from a table made at compile time (no index
    computed per element), every value copied bit for bit."""
    x = special((3, 17))
    compiled, (got,), (numpy_result,), (scalar,) = three_ways(
        ROW_TABLE.format(rows="0, 0, 1, 1, 2, 2"), x
    )
    want = x[[0, 0, 1, 1, 2, 2]]
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    np.testing.assert_array_equal(numpy_result, want)
    np.testing.assert_array_equal(scalar, want)
    source = library_source(compiled)
    assert "static const int32_t g0[6] = {0, 0, 17, 17, 34, 34};" in source, source


def test_c_leaves_a_table_of_indices_outside_its_axis_to_numpy():
    """A table entry outside the gathered axis (-1): no C kernel takes the
    nest (NumPy's rule for it applies, as before)."""
    text = ROW_TABLE.format(rows="0, 0, 1, 1, 2, -1")
    assert compile_module(text, kernels="c").native_nests == 0


INTEGERS = """
func.func @main(%x: memref<5x7xi32>, %y: memref<5x7xi32>) -> memref<5x7xi32> {
  %z = memref.alloc() : memref<5x7xi32>
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 7 {
      %a = affine.load %x[%i, %j] : memref<5x7xi32>
      %b = affine.load %y[%i, %j] : memref<5x7xi32>
      %m = arith.muli %a, %b : i32
      %s = arith.maxsi %m, %a : i32
      %c = arith.cmpi slt, %s, %b : i32
      %t = arith.xori %s, %b : i32
      %r = arith.select %c, %t, %m : i32
      affine.store %r, %z[%i, %j] : memref<5x7xi32>
    }
  }
  func.return %z : memref<5x7xi32>
}
"""


def test_c_integer_arithmetic_wraps_as_numpy():
    """i32 products that overflow wrap (`-fwrapv`), as NumPy's do."""
    info = np.iinfo(np.int32)
    x = RNG.integers(info.min, info.max, (5, 7), dtype=np.int32)
    y = RNG.integers(info.min, info.max, (5, 7), dtype=np.int32)
    _, (got,), (numpy_result,), (want,) = three_ways(INTEGERS, x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(numpy_result, want)


SELECTS = """
func.func @main(%x: memref<3x17xf32>, %y: memref<3x17xf32>) -> memref<3x17xf32> {
  %z = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 17 {
      %a = affine.load %x[%i, %j] : memref<3x17xf32>
      %b = affine.load %y[%i, %j] : memref<3x17xf32>
      %lo = arith.minimumf %a, %b : f32
      %hi = arith.maxnumf %a, %b : f32
      %u = arith.cmpf uno, %a, %b : f32
      %d = arith.divf %hi, %lo : f32
      %q = math.sqrt %d : f32
      %n = arith.negf %q : f32
      %r = arith.select %u, %n, %d : f32
      affine.store %r, %z[%i, %j] : memref<3x17xf32>
    }
  }
  func.return %z : memref<3x17xf32>
}
"""


def test_c_float_ops_keep_nan_inf_and_signed_zero():
    x, y = special((3, 17)), special((3, 17))[::-1].copy()
    _, (got,), (numpy_result,), (want,) = three_ways(SELECTS, x, y)
    for other in (want, numpy_result):
        np.testing.assert_array_equal(got, other)
        assert same_signs(got, other)


def unary_module(op: str, dtype: str) -> str:
    """y = op(x) elementwise over a 4x100 buffer of `dtype`."""
    return f"""
func.func @main(%x: memref<4x100x{dtype}>) -> memref<4x100x{dtype}> {{
  %y = memref.alloc() : memref<4x100x{dtype}>
  affine.for %i = 0 to 4 {{
    affine.for %j = 0 to 100 {{
      %v = affine.load %x[%i, %j] : memref<4x100x{dtype}>
      %r = {op} %v : {dtype}
      affine.store %r, %y[%i, %j] : memref<4x100x{dtype}>
    }}
  }}
  func.return %y : memref<4x100x{dtype}>
}}"""


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many representable values lie between `a` and `b` (finite)."""
    bits = np.dtype(f"i{a.itemsize}")
    sign = np.int64(np.iinfo(bits).max)

    def ordered(x: np.ndarray) -> np.ndarray:
        i = x.view(bits).astype(np.int64)
        return np.where(i < 0, -(i & sign), i)

    return np.abs(ordered(a) - ordered(b))


LIBM_ULPS = 4
"""How far a C library function may be from NumPy's (glibc and NumPy's SIMD
functions each stay within 1-3 ULP of the exact result)."""


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize(
    "op",
    sorted(
        name
        for name, s in OPS.items()
        if s.dtypes == "float" and s.c and "{1}" not in s.c and not s.converts
    ),
)
def test_c_unary_ops_are_numpy_within_a_few_ulp(op, dtype):
    """Rounding and square roots bit for bit; the C library's functions
    within `LIBM_ULPS` of NumPy's, with its NaNs, infinities and zero signs
    (inputs from 0.01 to 300 in magnitude, so overflow and domain errors
    are among them)."""
    scales = np.repeat([0.01, 1.0, 10.0, 300.0], 100).reshape(4, 100)
    x = (special((4, 100), np.float64) * scales).astype(
        np.float32 if dtype == "f32" else np.float64
    )
    compiled = compile_module(unary_module(op, dtype), kernels="c")
    assert compiled.native_nests == 1
    numpy_path = compile_module(unary_module(op, dtype), kernels="numpy")
    with np.errstate(all="ignore"):
        (got,), (want,) = compiled(x), numpy_path(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    assert same_signs(got, want)
    finite = np.isfinite(want)
    bound = 0 if OPS[op].c_exact else LIBM_ULPS
    assert ulps(got[finite], want[finite]).max() <= bound


def assert_within_one_ulp(op: str, function: str, exact, x: np.ndarray) -> None:
    """The C kernel of float32 `op` over `x` calls the prelude's `function`
    and is at most 1 ULP from `exact` computed in float64 and rounded, with
    its infinities, NaNs, zeros and zero signs."""
    x = x.astype(np.float32).reshape(1, -1)
    text = unary_module(op, "f32").replace("4x100", f"1x{x.size}")
    text = text.replace("to 4 ", "to 1 ").replace("to 100 ", f"to {x.size} ")
    compiled = compile_module(text, kernels="c")
    assert compiled.native_nests == 1
    source = library_source(compiled)
    assert source.count(f"{function}(") >= 2, source  # defined and called
    assert f"always_inline)) float {function}(" in source  # so the loop vectorises
    (got,) = compiled(x)
    with np.errstate(all="ignore"):
        want = exact(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_array_equal(got == 0, want == 0)
    assert same_signs(got, want)
    finite = np.isfinite(want)
    assert ulps(got[finite], want[finite]).max() <= 1


def test_c_exp_of_float32_is_within_one_ulp_of_the_exact_result():
    """`ge_expf` (double-precision reduction and polynomial, rounded once)
    on a sweep over every exponent's range, the overflow and underflow
    thresholds, subnormal results, signed zeros, infinities and NaN: at most
    1 ULP from exp computed in float64 and rounded, the same infinities,
    zeros and NaNs."""
    sweep = np.linspace(-110.0, 95.0, 20001, dtype=np.float32)
    edges = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, 88.72284, -87.33655,
         -103.97207, -103.97208, -150.0, 128.0, 1e-8, -1e-8, 3.0e38, -3.0e38],
        np.float32,
    )  # fmt: skip
    x = np.concatenate([sweep, edges])
    assert_within_one_ulp("math.exp", "ge_expf", np.exp, x)


def test_c_log_of_float32_is_within_one_ulp_of_the_exact_result():
    """`ge_logf` (double-precision atanh series, rounded once) on every
    binade from the least subnormal to the greatest float, values next to
    1 (results near 0), the square-root-of-2 split, zeros, negatives,
    infinities and NaN: at most 1 ULP from log computed in float64 and
    rounded, the same infinities, NaNs and zeros."""
    rng = np.random.default_rng(5)
    sweep = np.exp2(rng.uniform(-149.0, 128.0, 30000)).astype(np.float32)
    near_one = (1.0 + np.linspace(-1e-3, 1e-3, 2001)).astype(np.float32)
    edges = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -1e-30, 1.0, 2.0, 0.5,
         1.4142135, 1.4142137, 0.70710677, 0.7071068, 1e-45, 1.1754942e-38,
         1.1754944e-38, 3.4028235e38, np.nextafter(np.float32(1), np.float32(0)),
         np.nextafter(np.float32(1), np.float32(2))],
        np.float32,
    )  # fmt: skip
    x = np.concatenate([sweep[np.isfinite(sweep)], near_one, edges])
    assert_within_one_ulp("math.log", "ge_logf", np.log, x)


def test_c_log1p_of_float32_is_within_one_ulp_of_the_exact_result():
    """`ge_log1pf` (1 + x in double, the logarithm of `ge_logf` corrected by
    x / (u - 1)) from just above -1 to the greatest float, around 0 where
    1 + x rounds (down to subnormals), -1, below it, signed zeros,
    infinities and NaN: at most 1 ULP from log1p computed in float64 and
    rounded, the same infinities, NaNs, zeros and zero signs."""
    rng = np.random.default_rng(6)
    large = np.exp2(rng.uniform(-30.0, 128.0, 20000)).astype(np.float32)
    above_minus_one = (-1.0 + np.exp2(rng.uniform(-24.0, 0.0, 5000))).astype(np.float32)
    tiny = np.exp2(rng.uniform(-149.0, -20.0, 5000)) * rng.choice([-1, 1], 5000)
    near_zero = np.linspace(-1e-3, 1e-3, 2001)
    edges = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -1.5, -1e30, 1e-45, -1e-45,
         np.nextafter(np.float32(-1), np.float32(0)), 3.4028235e38, 1.0, -0.5],
        np.float32,
    )  # fmt: skip
    parts = [large[np.isfinite(large)], above_minus_one, tiny, near_zero, edges]
    x = np.concatenate([p.astype(np.float32) for p in parts])
    assert_within_one_ulp("math.log1p", "ge_log1pf", np.log1p, x)


def test_c_kernels_without_the_vector_math_library_call_the_scalar_functions(
    monkeypatch,
):
    """A C library without `libmvec` (`vector_math` false): no vector
    variant declared, none linked, the same results (the scalar functions
    are as accurate)."""
    monkeypatch.setattr(c_runtime, "vector_math", lambda: False)
    assert c_runtime.libraries() == ("-lm",)
    x = special((3, 100))
    text = unary_module("math.tanh", "f32").replace("4x100", "3x100")
    text = text.replace("to 4 ", "to 3 ")
    compiled = compile_module(text, kernels="c")
    source = library_source(compiled)
    assert "simd" not in source, source
    (got,) = compiled(x)
    with np.errstate(all="ignore"):
        want = np.tanh(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    assert ulps(got[finite], want[finite]).max() <= LIBM_ULPS


POW = """
func.func @main(%x: memref<{n}xf32>, %y: memref<{n}xf32>) -> memref<{n}xf32> {{
  %z = memref.alloc() : memref<{n}xf32>
  affine.for %i = 0 to {n} {{
    %a = affine.load %x[%i] : memref<{n}xf32>
    %b = affine.load %y[%i] : memref<{n}xf32>
    %r = math.powf %a, %b : f32
    affine.store %r, %z[%i] : memref<{n}xf32>
  }}
  func.return %z : memref<{n}xf32>
}}"""

POW_SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, -2.5, 7.0, -7.0,
     np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30, 2.0**24, -(2.0**24 + 2)],
    np.float32,
)  # fmt: skip


SQUARE = """
"memref.global"() <{sym_name = "two", type = memref<1xf32>, sym_visibility = "private",
  initial_value = dense<2.0> : tensor<1xf32>, constant}> : () -> ()
func.func @main(%x: memref<3x17xf32>) -> memref<3x17xf32> {
  %e = memref.get_global @two : memref<1xf32>
  %z = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 17 {
      %a = affine.load %x[%i, %j] : memref<3x17xf32>
      %b = affine.load %e[0] : memref<1xf32>
      %r = math.powf %a, %b : f32
      affine.store %r, %z[%i, %j] : memref<3x17xf32>
    }
  }
  func.return %z : memref<3x17xf32>
}
"""


def test_a_constant_exponent_is_a_literal_the_c_compiler_folds():
    """A one-element constant global (an RMS norm's exponent 2) is read as a
    literal: the kernel takes no buffer for it, and `powf(x, 2)` folds into
    the square, rounded once (glibc's vector `powf` ran at every element);
    a cube is `x * x * x`, as onnxruntime computes it."""
    x = special((3, 17))
    compiled = compile_module(SQUARE, kernels="c")
    assert compiled.native_nests == 1, compiled.source
    source = library_source(compiled)
    assert re.search(r"ge_powf\(x0, \(0x1\.0+p\+1f\)\)", source), source
    assert re.search(r"void k\d+\(float \* restrict a0, float \* restrict a1\)", source)
    (got,) = compiled(x)
    np.testing.assert_array_equal(got, x * x)
    cube = compile_module(SQUARE.replace("dense<2.0>", "dense<3.0>"), kernels="c")
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(cube(x)[0], x * x * x)  # as onnxruntime


def test_c_powf_is_c99_pow_on_every_pair_of_special_values():
    """`ge_powf` (the power of the magnitude, the sign put back) agrees with
    NumPy on pairs of special values (signed zeros, infinities, NaN,
    negative bases to odd, even and fractional powers, integers beyond
    float32's odd ones): the same NaNs, signs, infinities, zeros and ones,
    the rest within `LIBM_ULPS`, as on random pairs."""
    x, y = (a.ravel() for a in np.meshgrid(POW_SPECIAL, POW_SPECIAL))
    rng = np.random.default_rng(0)
    count = 1000
    x = np.concatenate([x, (rng.standard_normal(count) * 4).astype(np.float32)])
    y = np.concatenate([y, rng.integers(-5, 6, count).astype(np.float32)])
    y[-(count // 3) :] += rng.standard_normal(count // 3).astype(np.float32)
    compiled = compile_module(POW.format(n=x.size), kernels="c")
    assert compiled.native_nests == 1
    with np.errstate(all="ignore"):
        (got,), want = compiled(x, y), np.power(x, y)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    number = ~np.isnan(want)
    assert same_signs(got[number], want[number])
    exact = number & (~np.isfinite(want) | (want == 0) | (np.abs(want) == 1))
    np.testing.assert_array_equal(got[exact], want[exact])
    finite = np.isfinite(want)
    assert ulps(got[finite], want[finite]).max() <= LIBM_ULPS


EMPTY = """
func.func @main(%x: memref<0x5xf32>) -> memref<0x5xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<0x5xf32>
  affine.for %i = 0 to 0 {
    affine.for %j = 0 to 5 {
      %v = affine.load %x[%i, %j] : memref<0x5xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %y[%i, %j] : memref<0x5xf32>
    }
  }
  func.return %y : memref<0x5xf32>
}
"""


def test_c_kernel_of_an_empty_tensor_does_nothing():
    compiled = compile_module(EMPTY, kernels="c")
    (y,) = compiled(np.zeros((0, 5), np.float32))
    assert y.shape == (0, 5)


def test_c_kernel_refuses_a_buffer_of_other_strides():
    array = np.zeros((4, 3), np.float32).T  # strides (4, 12), not (16, 4)
    assert c_runtime.address(np.zeros((3, 4), np.float32), (0, 1), (16, 4), 0) > 0
    with pytest.raises(JITError, match="compiled for"):
        c_runtime.address(array, (0, 1), (16, 4), 0)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@pytest.mark.parametrize(
    "array",
    [
        np.arange(60, dtype=np.float32).reshape(3, 4, 5),
        np.arange(60, dtype=np.float32).reshape(3, 4, 5)[1:, 2:],  # a view inside
        np.arange(60, dtype=np.float32).reshape(3, 4, 5)[:, ::2],  # strided
        np.arange(60, dtype=np.float32).reshape(3, 4, 5).T,
        np.array(3.0, np.float32),
        np.zeros((0, 4), np.float32),
        np.zeros(17, bool),
        _read_only(np.arange(17, dtype=np.int64)),
    ],
    ids=["plain", "view", "strided", "transposed", "0-d", "empty", "bool", "read-only"],
)
def test_a_buffer_address_is_its_first_element_plus_the_offset(array):
    """Whichever way the address is read (a writable contiguous buffer's
    directly, any other through NumPy's ctypes interface), it is the
    first element's, and the address keeps the array alive."""
    pointer = c_runtime.address(array, (), (), 12)
    assert int(pointer) == array.ctypes.data + 12
    assert pointer.owner is array


def test_c_compiler_errors_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    with pytest.raises(JITError, match="the C compiler failed on generated code"):
        c_runtime.library("void k(float *a0) { a0[0] = undeclared; }\n")


def test_c_library_is_read_back_without_compiling(tmp_path, monkeypatch):
    """A second process finds the shared library in the cache folder."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    source = jit_c.PRELUDE + jit_c.THREADS + "void k(float *a0) { a0[0] = 1.5f; }\n"
    c_runtime.library(source)
    assert len(list((tmp_path / "c").glob("lib*.so"))) == 1
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})

    def no_compiler(*_):
        raise AssertionError("compiled again")

    monkeypatch.setattr(c_runtime, "_compile", no_compiler)
    kernel = c_runtime.kernel(source, "k", 1)
    out = np.zeros(1, np.float32)
    kernel(out.ctypes.data)
    assert out[0] == 1.5


RELU_THEN_COMBINE = """\
affine.for %i = 0 to 3 {
  affine.for %j = 0 to 17 {
    %v = affine.load %x[%i, %j] : memref<3x17xf32>
    %r = arith.maximumf %v, %zero : f32
    affine.store %r, %y[%i, %j] : memref<3x17xf32>
  }
}
affine.for %j = 0 to 17 {
  affine.for %i = 0 to 3 {
    %v = affine.load %y[%i, %j] : memref<3x17xf32>
    %w = affine.load %x[%i, %j] : memref<3x17xf32>
    %p = arith.mulf %v, %two : f32
    %s = arith.subf %p, %w : f32
    affine.store %s, %z[%i, %j] : memref<3x17xf32>
  }
}
"""
"""`y = max(x, 0)`, then `z = 2 y - x`: two nests in a row (`%x`, `%y`, `%z`,
`%zero` and `%two` from around them)."""

TWO_NESTS = (
    """
func.func @main(%x: memref<3x17xf32>) -> memref<3x17xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>
"""
    + textwrap.indent(RELU_THEN_COMBINE, "  ")
    + """\
  func.return %z : memref<3x17xf32>
}
"""
)


def test_consecutive_c_kernels_are_one_call():
    """Two nests in a row: one Python call of a C function calling both."""
    x = special((3, 17))
    compiled, (got,), (numpy_result,), (want,) = three_ways(TWO_NESTS, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(numpy_result, want)
    calls = kernel_calls(compiled)
    assert len(calls) == 1, compiled.source
    sequence = c_body(compiled, calls[0])
    assert sequence.count(");") == 2, sequence  # it calls the two kernels


BRANCHED_NESTS = (
    """
func.func @main(%x: memref<3x17xf32>, %flag: memref<1xf32>) -> memref<3x17xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c0 = arith.constant 0 : index
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>
  %f = memref.load %flag[%c0] : memref<1xf32>
  %positive = arith.cmpf ogt, %f, %zero : f32
  scf.if %positive {
"""
    + textwrap.indent(RELU_THEN_COMBINE, "    ")
    + """\
  } else {
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 17 {
        %v = affine.load %x[%i, %j] : memref<3x17xf32>
        %p = arith.mulf %v, %two : f32
        affine.store %p, %z[%i, %j] : memref<3x17xf32>
      }
    }
  }
  func.return %z : memref<3x17xf32>
}
"""
)


def branched(text: str):
    """`text` (`BRANCHED_NESTS`'s signature) compiled with C kernels, run
    on both branches: each as the NumPy path computes it."""
    x = special((3, 17))
    compiled, _, _, _ = three_ways(text, x, np.ones(1, np.float32))
    numpy_path = compile_module(text, kernels="numpy")
    for flag in (1.0, -1.0):
        flags = np.full(1, flag, np.float32)
        (want,) = numpy_path(x, flags)
        np.testing.assert_array_equal(compiled(x, flags)[0], want)
    return compiled


def test_a_branch_and_its_kernels_are_one_call():
    """A condition and two branches of C kernels: one C function (the
    comparison, the branches and their kernels: `c_regions`), called once;
    both branches as the NumPy path computes them."""
    compiled = branched(BRANCHED_NESTS)
    calls = kernel_calls(compiled)
    assert len(calls) == 1 and calls[0].startswith("    k"), calls
    jitted = compiled.source.split("def jitted")[1].splitlines()
    assert not any(line.lstrip().startswith("if ") for line in jitted)
    region = c_body(compiled, calls[0])
    assert "if (" in region, region
    assert len(re.findall(r"\bk\d+\(", region)) == 3, region


def test_consecutive_c_kernels_in_a_python_branch_are_one_call():
    """A branch Python runs (its other branch has an op C kernels leave to
    NumPy, `arith.remf`): its two C kernels in a row are one call, at the
    branch's indentation."""
    then, otherwise = BRANCHED_NESTS.rsplit("arith.mulf %v, %two", 1)
    compiled = branched(then + "arith.remf %v, %two" + otherwise)
    calls = kernel_calls(compiled)
    assert len(calls) == 1 and calls[0].startswith("        k"), calls
    sequence = c_body(compiled, calls[0])
    assert sequence.count(");") == 2, sequence  # it calls the two kernels


def test_addresses_of_the_threads_buffers_are_one_table():
    """The merged call reads the addresses of the thread's buffers (made
    once per thread with the views) from one table and takes only those
    computed per call (the input's): the same results, on every call and
    in another thread (its own buffers, its own table)."""
    compiled = compile_module(TWO_NESTS, kernels="c")
    numpy_path = compile_module(TWO_NESTS, kernels="numpy")
    jitted = compiled.source.split("def jitted")[1]
    (call,) = kernel_calls(compiled)
    name, arguments = call.strip().rstrip(")").split("(")
    table, *given = arguments.split(", ")
    assert table == f"{name}_table", compiled.source
    assert f"{table} = address_table(" in compiled.source.split("def jitted")[0]
    assert all(f"{p} = address(v1," in jitted for p in given), compiled.source
    assert re.search(rf"void {name}\(void \*const \*t, ", library_source(compiled))
    for x in (special((3, 17)), special((3, 17))):
        (want,) = numpy_path(x)
        np.testing.assert_array_equal(compiled(x)[0], want)
        with ThreadPoolExecutor(1) as pool:
            (other,) = pool.submit(compiled, x).result()
        np.testing.assert_array_equal(other, want)


def test_packed_weights_addresses_are_one_table_of_each_binding():
    """Two products with weights (external constants: arguments the
    function binds): the merged call reads the packed weights' addresses
    from one table `prepare` makes per binding, so two bindings of one
    compiled function give their own weights' results."""
    b = GraphBuilder("g")
    x = b.data([3, 17], "float32")
    w1 = b.external_const("w1", [17, 17], "float32")
    w2 = b.external_const("w2", [17, 17], "float32")
    b.output(b.tanh(b.matmul(b.tanh(b.matmul(x, w1)), w2)))
    module = b.build()
    compiled = compile_graph(module.body.block.first_op)
    prepare, jitted = compiled.source.split("def jitted")
    (table,) = re.findall(r"(k\d+_weights) = address_table\(", prepare)
    assert table in jitted
    rng = np.random.default_rng(7)
    x_value = rng.standard_normal((3, 17)).astype(np.float32)
    x_value[0, :3] = [np.inf, -0.0, np.nan]
    positions = compiled.invariant_args
    assert len(positions) == 2
    for seed in (8, 9):
        weights = np.random.default_rng(seed).standard_normal((2, 17, 17))
        weights = weights.astype(np.float32) / 4
        bound = compiled.bind(dict(zip(positions, weights, strict=True)))
        (got,) = bound(x_value)
        want = np.tanh(np.tanh(x_value @ weights[0]) @ weights[1])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_buffers_address_is_computed_once_at_the_top_level():
    """The same address of the same buffer computed again at the top level
    is dropped and read under the first name, in branches too; another
    offset, a buffer bound twice or an address inside a block are kept."""
    body = [
        "    p1 = address(x, (0, 1), (68, 4), 0)",
        "    k2(p1, p3)",
        "    p4 = address(x, (0, 1), (68, 4), 0)",
        "    p5 = address(x, (0, 1), (68, 4), 4)",
        "    v6 = w7",
        "    p8 = address(v6, (0,), (4,), 0)",
        "    v6 = w9",
        "    p10 = address(v6, (0,), (4,), 0)",
        "    if c:",
        "        p11 = address(x, (0, 1), (68, 4), 0)",
        "        k12(p4, p11)",
        "    k13(p4, p5, p8, p10)",
    ]
    assert shared_addresses(body) == [
        *body[:2],
        *body[3:9],
        body[9],
        "        k12(p1, p11)",
        "    k13(p1, p5, p8, p10)",
    ]


def test_an_address_table_holds_the_addresses_and_keeps_their_buffers():
    buffers = [np.full(4, i, np.float32) for i in range(3)]
    addresses = [c_runtime.address(b, (0,), (4,), 4) for b in buffers]
    want = [int(a) for a in addresses]
    table = c_runtime.address_table(*addresses)
    del buffers, addresses
    held = (ctypes.c_void_p * 3).from_address(table)
    assert list(held) == want
    assert [ctypes.c_float.from_address(a).value for a in held] == [0, 1, 2]


def clamp_nest(source: str, target: str) -> str:
    """`target = min(source, 1)` over 3 x 17, as a nest."""
    return f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 17 {{
      %v = affine.load {source}[%i, %j] : memref<3x17xf32>
      %r = arith.minimumf %v, %one : f32
      affine.store %r, {target}[%i, %j] : memref<3x17xf32>
    }}
  }}"""


# The same nest twice (a repeated block), on x and on its result.
REPEATED_NEST = f"""
func.func @main(%x: memref<3x17xf32>) -> memref<3x17xf32> {{
  %one = arith.constant 1.0 : f32
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>{clamp_nest("%x", "%y")}{clamp_nest("%y", "%z")}
  func.return %z : memref<3x17xf32>
}}
"""


def test_nests_of_the_same_code_are_one_kernel():
    """Two nests whose C is the same but for their buffers: one kernel,
    called for each."""
    x = special((3, 17))
    compiled, (got,), _, (want,) = three_ways(REPEATED_NEST, x)
    np.testing.assert_array_equal(got, want)
    source = library_source(compiled)
    definitions = re.findall(r"^void (k\d+)\(float \*", source, re.M)
    assert len(set(definitions)) == 1, source
    (kernel,) = set(definitions)
    assert source.count(f"    {kernel}(") == 2, source  # called twice


def clamp_rows(rows: tuple[int, ...]) -> str:
    """`min(x, 1)` over the first `rows[k]` rows of x (20 x 17), one nest
    each, into results of those rows."""
    results = ", ".join(f"memref<{n}x17xf32>" for n in rows)
    nests = "".join(
        f"""
  %y{k} = memref.alloc() : memref<{n}x17xf32>
  affine.for %i = 0 to {n} {{
    affine.for %j = 0 to 17 {{
      %v = affine.load %x[%i, %j] : memref<20x17xf32>
      %r = arith.minimumf %v, %one : f32
      affine.store %r, %y{k}[%i, %j] : memref<{n}x17xf32>
    }}
  }}"""
        for k, n in enumerate(rows)
    )
    names = ", ".join(f"%y{k}" for k in range(len(rows)))
    return f"""
func.func @main(%x: memref<20x17xf32>) -> ({results}) {{
  %one = arith.constant 1.0 : f32{nests}
  func.return {names} : {results}
}}
"""


@pytest.mark.parametrize("part_size", [16, 1])
def test_nests_alike_but_for_their_outer_trip_count_share_one_body(
    part_size, tmp_path, monkeypatch
):
    """Three nests whose C differs only in how many rows their outer loop
    runs call one kernel holding the body with the count a parameter (the
    rows' strides, 17 in each, stay literals), each passing its own; the
    first too while its part is not written yet, else it is written out
    (parts of one kernel). Every result is the reference's."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))  # not the code made before
    monkeypatch.setattr(jit, "_CACHE", {})
    monkeypatch.setattr(jit_c, "PART_SIZE", part_size)
    x = special((20, 17))
    rows = (12, 20, 9)
    compiled, got, numpy_results, scalar = three_ways(clamp_rows(rows), x)
    for n, mine, theirs, want in zip(rows, got, numpy_results, scalar, strict=True):
        assert mine.shape == (n, 17)
        np.testing.assert_array_equal(mine, want)
        np.testing.assert_array_equal(theirs, want)
    source = library_source(compiled)
    holders = re.findall(r"^void (k\d+)\([^)]*int64_t n0\) \{", source, re.M)
    assert len(holders) == 1, source
    (holder,) = holders
    assert "t0 < n0;" in source, source
    assert "a1[(t0) * 17 + (t1)]" in source, source
    calls = re.findall(rf"^    {holder}\(a0, a1, (\d+)\);$", source, re.M)
    if part_size == 1:
        assert "t0 < 12;" in source, source  # the first, written out
        assert sorted(calls) == ["20", "9"], source
    else:
        assert "t0 < 12;" not in source, source
        assert sorted(calls) == ["12", "20", "9"], source


def clamp_columns(columns: tuple[int, ...]) -> str:
    """`min(x, 1)` over the first `columns[k]` columns of x (20 x 17), one
    nest each, into results of those columns."""
    results = ", ".join(f"memref<20x{n}xf32>" for n in columns)
    nests = "".join(
        f"""
  %y{k} = memref.alloc() : memref<20x{n}xf32>
  affine.for %i = 0 to 20 {{
    affine.for %j = 0 to {n} {{
      %v = affine.load %x[%i, %j] : memref<20x17xf32>
      %r = arith.minimumf %v, %one : f32
      affine.store %r, %y{k}[%i, %j] : memref<20x{n}xf32>
    }}
  }}"""
        for k, n in enumerate(columns)
    )
    names = ", ".join(f"%y{k}" for k in range(len(columns)))
    return f"""
func.func @main(%x: memref<20x17xf32>) -> ({results}) {{
  %one = arith.constant 1.0 : f32{nests}
  func.return {names} : {results}
}}
"""


def test_no_shared_body_of_nests_whose_inner_loop_the_compiler_unrolls():
    """Innermost loops keep their literal count: those of at most
    `UNROLLED` trips the compiler unrolls (and vectorises the loop around
    them), the others vectorise."""
    x = special((20, 17))
    compiled, got, _, want = three_ways(clamp_columns((4, 6)), x)
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    source = library_source(compiled)
    assert "int64_t n0" not in source, source
    assert "t1 < 4;" in source and "t1 < 6;" in source, source


def middle_rows(rows: tuple[int, ...]) -> str:
    """`x * 2` over the first `rows[k]` rows of each of x's 3 planes
    (3 x 20 x 17), one nest each, into results of those rows."""
    results = ", ".join(f"memref<3x{n}x17xf32>" for n in rows)
    nests = "".join(
        f"""
  %y{k} = memref.alloc() : memref<3x{n}x17xf32>
  affine.for %p = 0 to 3 {{
    affine.for %i = 0 to {n} {{
      affine.for %j = 0 to 17 {{
        %v = affine.load %x[%p, %i, %j] : memref<3x20x17xf32>
        %r = arith.mulf %v, %two : f32
        affine.store %r, %y{k}[%p, %i, %j] : memref<3x{n}x17xf32>
      }}
    }}
  }}"""
        for k, n in enumerate(rows)
    )
    names = ", ".join(f"%y{k}" for k in range(len(rows)))
    return f"""
func.func @main(%x: memref<3x20x17xf32>) -> ({results}) {{
  %two = arith.constant 2.0 : f32{nests}
  func.return {names} : {results}
}}
"""


def test_nests_alike_but_for_an_inner_trip_count_and_strides_share_one_body():
    """Nests whose C differs in the trip count of a loop between the
    outermost and the one that vectorises, and in the stride of the
    outermost (a plane of their results: 17 times their rows), share one
    body taking both (the outermost's 3 trips, the same in each, stay a
    literal, and so do the strides all have alike); every result is the
    reference's."""
    x = special((3, 20, 17))
    rows = (12, 20, 9, 15)
    compiled, got, numpy_results, scalar = three_ways(middle_rows(rows), x)
    for n, mine, theirs, want in zip(rows, got, numpy_results, scalar, strict=True):
        assert mine.shape == (3, n, 17)
        np.testing.assert_array_equal(mine, want)
        np.testing.assert_array_equal(theirs, want)
    source = library_source(compiled)
    holders = re.findall(r"^void (k\d+)\([^)]*int64_t n\d+\) \{", source, re.M)
    assert len(holders) == 1, source
    (holder,) = holders
    assert "t0 < 3;" in source and "t1 < n" in source, source
    assert "a0[(t0) * 340 + (t1) * 17 + (t2)]" in source, source
    calls = re.findall(rf"^    {holder}\(a0, a1, (\d+), (\d+)\);$", source, re.M)
    assert calls == [(str(n), str(n * 17)) for n in rows], source


def test_no_merged_call_of_more_buffers_than_ctypes_passes(tmp_path, monkeypatch):
    """A run of calls whose buffers together are more than a `ctypes` call
    takes is cut into calls that each take few enough (an unrolled GRU made
    one of 1641)."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))  # not the code made before
    monkeypatch.setattr(jit, "_CACHE", {})
    monkeypatch.setattr(jit_c, "MAX_ARGUMENTS", 3)
    # each nest's own address of x, as unshared: four addresses
    monkeypatch.setattr(jit, "shared_addresses", lambda body: list(body))
    x = special((3, 17))
    compiled, (got,), (numpy_result,), (want,) = three_ways(TWO_NESTS, x)
    np.testing.assert_array_equal(got, want)
    calls = kernel_calls(compiled)
    assert len(calls) == 2, compiled.source  # x, y | y, x, z: four would be one


MATVEC = """
func.func @main(%a: memref<300x80xf32>, %x: memref<80xf32>) -> memref<300xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<300xf32>
  affine.for %i = 0 to 300 {
    affine.store %zero, %y[%i] : memref<300xf32>
    affine.for %j = 0 to 80 {
      %av = affine.load %a[%i, %j] : memref<300x80xf32>
      %xv = affine.load %x[%j] : memref<80xf32>
      %p = arith.mulf %av, %xv : f32
      %yv = affine.load %y[%i] : memref<300xf32>
      %s = arith.addf %yv, %p : f32
      affine.store %s, %y[%i] : memref<300xf32>
    }
  }
  func.return %y : memref<300xf32>
}
"""


def test_no_c_kernel_for_a_long_dot_product_it_cannot_vectorise():
    """300 outputs (more than `SUNK_EXTENT`: too many to run innermost) of
    80-term dot products: the sum would run one term at a time in C, so
    BLAS takes it."""
    a = RNG.standard_normal((300, 80)).astype(np.float32)
    x = RNG.standard_normal(80).astype(np.float32)
    compiled = compile_module(MATVEC, kernels="c")
    assert compiled.native_nests == 0 and "np.dot(" in compiled.source
    (y,) = compiled(a, x)
    np.testing.assert_allclose(y, a @ x, rtol=1e-5, atol=1e-5)


def test_a_library_in_parts_compiles_them_in_parallel_and_links(tmp_path, monkeypatch):
    """One kernel per part, each compiling from when it is written: the
    parts link into one library (the sequence declares the kernels of
    other parts it calls), whose kernels compute what one unit's did."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    monkeypatch.setattr(jit_c, "PART_SIZE", 1)
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})
    monkeypatch.setattr(c_runtime, "_PARTS", {})  # none left by other tests
    monkeypatch.setattr(jit, "_CACHE", {})  # compiled anew, not remembered
    started = []
    start = c_runtime.start_part
    monkeypatch.setattr(
        c_runtime,
        "start_part",
        lambda cc, text: (started.append(text), start(cc, text)),
    )
    x = special((3, 17))
    compiled, (got,), _, (want,) = three_ways(TWO_NESTS, x)
    np.testing.assert_array_equal(got, want)
    source = library_source(compiled)
    head, *parts = source.split(c_runtime.PART)
    assert len(parts) == 3, source  # two kernels, then the sequence of both
    assert started == [head + part for part in parts[:2]]
    assert not c_runtime._PARTS  # each started part was taken and linked
    sequence = parts[2]
    assert sequence.count(");") == 2 + 2, sequence  # two declarations, two calls


def test_a_library_in_parts_is_found_again_by_its_source(tmp_path, monkeypatch):
    """The parts a function's kernels fall into depend on nothing but its
    code: compiled again from scratch, the same source (the cache's key),
    and the library is read back, not compiled."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    monkeypatch.setattr(jit_c, "PART_SIZE", 1)
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})
    monkeypatch.setattr(c_runtime, "_PARTS", {})  # none left by other tests
    monkeypatch.setattr(jit, "_CACHE", {})
    x = special((3, 17))
    first = compile_module(TWO_NESTS, kernels="c")
    source = library_source(first)
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})
    monkeypatch.setattr(jit, "_CACHE", {})

    def no_compiler(*_):
        raise AssertionError("compiled again")

    monkeypatch.setattr(c_runtime, "_compile", no_compiler)
    compiled = compile_module(TWO_NESTS, kernels="c")
    assert library_source(compiled) == source
    np.testing.assert_array_equal(compiled(x)[0], first(x)[0])
    assert not c_runtime._PARTS  # the parts started again are dropped


# Two blocks of x's columns, each clamped into a buffer of its own.
BLOCKS = """
func.func @main(%x: memref<3x16xf32>) -> (memref<3x8xf32>, memref<3x8xf32>) {
  %one = arith.constant 1.0 : f32
  %y = memref.alloc() : memref<3x8xf32>
  %z = memref.alloc() : memref<3x8xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 8 {
      %v = affine.load %x[%i, %j] : memref<3x16xf32>
      %r = arith.minimumf %v, %one : f32
      affine.store %r, %y[%i, %j] : memref<3x8xf32>
    }
  }
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 8 {
      %v = affine.load %x[%i, %j + 8] : memref<3x16xf32>
      %r = arith.minimumf %v, %one : f32
      affine.store %r, %z[%i, %j] : memref<3x8xf32>
    }
  }
  func.return %y, %z : memref<3x8xf32>, memref<3x8xf32>
}
"""


def test_nests_reading_other_blocks_of_a_buffer_are_one_kernel():
    """Two nests that differ only in the constant offset of an index (a
    channel group of a buffer): one kernel, each call passing the address
    of its block."""
    x = special((3, 16))
    compiled, got, _, want = three_ways(BLOCKS, x)
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    source = library_source(compiled)
    definitions = set(re.findall(r"^void (k\d+)\(float \*", source, re.M))
    assert len(definitions) == 1, source
    assert "+ 8]" not in source, source  # the offset is in the address
    assert ", 32)" in compiled.source  # 8 floats into x


@pytest.mark.parametrize("k", [0, 1, 2])
def test_sunk_local_arrays_are_aligned_for_vector_stores(k):
    """Top-k's rank count over 2 rows holds 6 int64 per row in a local array
    (48 bytes): GCC put such an array 8 bytes off alignment in a leaf
    function's red zone and crashed on its vector store, unless the array
    asks for its alignment."""
    from ge_dialect.builder import GraphBuilder
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.jit.compiler import run_graph

    b = GraphBuilder("g")
    x = b.data([2, 6, 6], "float32")
    b.output(*b.top_k(x, k=k, axis=0))
    module = b.build()
    x_value = RNG.integers(-3, 3, (2, 6, 6)).astype(np.float32)
    got = run_graph(module, {0: x_value}, poison=True)
    for g, want in zip(got, evaluate(module, {0: x_value}), strict=True):
        np.testing.assert_array_equal(g, want)


def test_the_openmp_probe_is_kept_beside_the_kernels(tmp_path, monkeypatch):
    """`openmp_missing` starts the compiler once per compiler and cache
    folder: a later process (a served run) reads the answer it kept."""
    if c_runtime.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path / "cache"))
    probed = []
    real = c_runtime.probe
    monkeypatch.setattr(
        c_runtime,
        "probe",
        lambda cc, *args, **kwargs: probed.append(cc) or real(cc, *args, **kwargs),
    )
    answers = []
    for _ in range(2):  # two processes: nothing cached in memory
        c_runtime.openmp_missing.cache_clear()
        answers.append(c_runtime.openmp_missing())
    c_runtime.openmp_missing.cache_clear()
    assert probed == [c_runtime.compiler()] and answers[0] == answers[1]
    (record,) = (tmp_path / "cache" / "c").glob("openmp-*.txt")
    assert record.read_text() == (answers[0] or "")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_compiles_its_own_parts(tmp_path, monkeypatch):
    """A child forked after the parent's compilers ran starts its own (the
    parent's threads do not exist in it) and leaves the parent's object
    folder alone."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    monkeypatch.setattr(jit_c, "PART_SIZE", 1)
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})
    monkeypatch.setattr(c_runtime, "_PARTS", {})  # none left by other tests
    monkeypatch.setattr(jit, "_CACHE", {})
    compile_module(TWO_NESTS, kernels="c")  # the parent's compilers ran
    parent_objects = c_runtime._objects()
    child = os.fork()
    if child == 0:  # the child: compile anew, report by exit status
        status = 1
        signal.alarm(60)  # a child waiting on the parent's threads dies
        try:
            c_runtime._LIBRARIES.clear()
            jit._CACHE.clear()
            monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path / "child"))
            x = special((3, 17))
            compiled = compile_module(TWO_NESTS, kernels="c")
            status = 0 if np.isfinite(compiled(x)[0]).any() else 2
            shutil.rmtree(c_runtime._objects())  # os._exit runs no exit handlers
        finally:
            os._exit(status)
    _, status = os.waitpid(child, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert parent_objects.is_dir() and c_runtime._objects() == parent_objects


def test_object_folders_of_processes_gone_are_removed_when_a_new_one_is_made(
    tmp_path,
):
    """A process killed by a signal (or leaving by `os._exit`) leaves its
    object folder: the next process's removes it once it has been left
    unchanged long enough, and leaves a live process's, a recent one's and
    names without a process id alone."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folders = {
        "dead": tmp_path / f"{c_runtime.PARTS_FOLDER}{gone.pid}-abc",
        "dead_recent": tmp_path / f"{c_runtime.PARTS_FOLDER}{gone.pid}-new",
        "alive": tmp_path / f"{c_runtime.PARTS_FOLDER}{os.getppid()}-abc",
        "old_name": tmp_path / f"{c_runtime.PARTS_FOLDER}abcdefgh",
    }
    for folder in folders.values():
        folder.mkdir()
        (folder / "x.o").write_bytes(b"")
    old = time.time() - 2 * c_runtime.ORPHAN_SECONDS
    for name in ("dead", "alive", "old_name"):
        os.utime(folders[name], (old, old))
    c_runtime.remove_orphaned_parts(tmp_path)
    assert not folders["dead"].exists()
    assert all(folders[name].is_dir() for name in ("dead_recent", "alive", "old_name"))


@pytest.mark.parametrize(
    ("op", "source", "result"),
    [
        ("arith.extsi", "i8", "i32"),
        ("arith.extsi", "i32", "i64"),
        ("arith.trunci", "i64", "i32"),
        ("arith.trunci", "i32", "i8"),
        ("arith.index_cast", "i32", "index"),
        ("arith.trunci", "i64", "i8"),
    ],
)
def test_c_integer_casts_are_numpy_bit_for_bit(op, source, result):
    """Sign extension, truncation (wrapping: out-of-range values keep their
    low bits, as NumPy's `astype`) and index casts in a C kernel, on the
    extremes of the source type and values past the result's."""
    through = "i64" if result == "index" else result
    cast = f"%c = {op} %v : {source} to {result}"
    if result == "index":
        cast += "\n      %r = arith.index_cast %c : index to i64"
    else:
        cast = cast.replace("%c =", "%r =")
    text = f"""
func.func @main(%x: memref<3x33x{source}>) -> memref<3x33x{through}> {{
  %y = memref.alloc() : memref<3x33x{through}>
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 33 {{
      %v = affine.load %x[%i, %j] : memref<3x33x{source}>
      {cast}
      affine.store %r, %y[%i, %j] : memref<3x33x{through}>
    }}
  }}
  func.return %y : memref<3x33x{through}>
}}"""
    dtype = np.dtype({"i8": np.int8, "i32": np.int32, "i64": np.int64}[source])
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, -1, 1, 127, 128, -129, 2**31, -(2**31) - 1]
    values = np.array([v for v in edges if info.min <= v <= info.max], np.int64)
    rng = np.random.default_rng(9)
    x = rng.integers(info.min, info.max, (3, 33), dtype, endpoint=True)
    x.reshape(-1)[: values.size] = values
    compiled = compile_module(text, kernels="c")
    assert compiled.native_nests == 1
    (got,) = compiled(x)
    (want,) = compile_module(text, kernels="numpy")(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, x.astype(np.dtype(got.dtype)))
