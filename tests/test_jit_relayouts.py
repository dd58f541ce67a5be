"""Merged copies reused from nest to nest (`ge_runtime.jit.emit.relayouts`).

Two nests read a C1HC0 buffer as (H, C) rows of 20 channels (`c floordiv
16`, `c mod 16`: a channel group that does not align with C0 = 16), so each
merges it. The second reuses the first's copy unless something that may
share the buffer's bytes is written in between; either way the results are
what NumPy computes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ge_runtime.jit.compiler import compile_graph, compile_module
from ge_runtime.jit.emit.scalar import CodeEnv


@pytest.fixture(autouse=True)
def numpy_calls(monkeypatch):
    """These tests read the NumPy vectoriser's code: no native kernels."""
    monkeypatch.setenv("GE_XDSL_KERNELS", "numpy")


TEMPLATE = """
func.func @f(%x: memref<2x3x16xf32>) -> (memref<3x20xf32>, memref<3x20xf32>) {
  %arena = memref.alloc() : memref<1024xi8>
  %s0 = arith.constant 0 : index
  %s1 = arith.constant SHIFT : index
  %buf = memref.view %arena[%s0][] : memref<1024xi8> to memref<2x3x16xf32>
  %other = memref.view %arena[%s1][] : memref<1024xi8> to memref<16xf32>
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  %y1 = memref.alloc() : memref<3x20xf32>
  %y2 = memref.alloc() : memref<3x20xf32>
  affine.for %i = 0 to 2 {
    affine.for %h = 0 to 3 {
      affine.for %k = 0 to 16 {
        %v = affine.load %x[%i, %h, %k] : memref<2x3x16xf32>
        affine.store %v, %buf[%i, %h, %k] : memref<2x3x16xf32>
      }
    }
  }
  affine.for %h = 0 to 3 {
    affine.for %c = 0 to 20 {
      %v = affine.load %buf[%c floordiv 16, %h, %c mod 16] : memref<2x3x16xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %y1[%h, %c] : memref<3x20xf32>
    }
  }
  BETWEEN
  affine.for %h = 0 to 3 {
    affine.for %c = 0 to 20 {
      %v = affine.load %buf[%c floordiv 16, %h, %c mod 16] : memref<2x3x16xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %y2[%h, %c] : memref<3x20xf32>
    }
  }
  func.return %y1, %y2 : memref<3x20xf32>, memref<3x20xf32>
}
"""

OVERWRITE_OTHER = """
  affine.for %k = 0 to 16 {
    affine.store %three, %other[%k] : memref<16xf32>
  }
"""

STORE_DIRECT = """
  affine.for %k = 0 to 16 {
    affine.store %three, %buf[1, 2, %k] : memref<2x3x16xf32>
  }
"""

STORE_MERGED = """
  affine.for %h = 0 to 3 {
    affine.for %c = 0 to 20 {
      %v = affine.load %buf[%c floordiv 16, %h, %c mod 16] : memref<2x3x16xf32>
      %w = arith.mulf %v, %three : f32
      affine.store %w, %buf[%c floordiv 16, %h, %c mod 16] : memref<2x3x16xf32>
    }
  }
"""

STORE_UNDER_IF = """
  %flag = arith.constant true
  scf.if %flag {
    affine.for %k = 0 to 16 {
      affine.store %three, %buf[0, 1, %k] : memref<2x3x16xf32>
    }
  }
"""


def rows(buf: np.ndarray) -> np.ndarray:
    """The (H, C) rows of the first 20 channels of a C1HC0 buffer."""
    return buf.transpose(1, 0, 2).reshape(3, 32)[:, :20]


def expected(between: str, shift: int, x: np.ndarray) -> tuple[np.ndarray, ...]:
    buf = x.copy()
    first = rows(buf) + np.float32(1)
    if between == OVERWRITE_OTHER:
        flat = buf.reshape(-1)
        start = shift // 4
        if start < flat.size:
            flat[start : start + 16] = 3
    elif between == STORE_DIRECT:
        buf[1, 2, :] = 3
    elif between == STORE_MERGED:
        merged = buf.transpose(1, 0, 2).reshape(3, 32)
        merged[:, :20] *= np.float32(3)
        buf = merged.reshape(3, 2, 16).transpose(1, 0, 2)
    elif between == STORE_UNDER_IF:
        buf[0, 1, :] = 3
    second = rows(buf) * rows(buf)
    return first, second


def reused(source: str) -> bool:
    """Whether a merged copy is bound to another one's name."""
    return re.search(r"^\s+m\d+ = m\d+$", source, re.MULTILINE) is not None


CASES = [
    pytest.param("", 0, True, id="nothing_between"),
    pytest.param(OVERWRITE_OTHER, 128, False, id="no_reuse_after_overlapping_view"),
    pytest.param(OVERWRITE_OTHER, 512, True, id="disjoint_view_keeps_it"),
    pytest.param(STORE_DIRECT, 0, False, id="no_reuse_after_direct_store"),
    pytest.param(STORE_MERGED, 0, True, id="store_through_the_copy_keeps_it"),
    pytest.param(STORE_UNDER_IF, 0, False, id="no_reuse_after_control_flow"),
]


@pytest.mark.parametrize("poison", [False, True])
@pytest.mark.parametrize(("between", "shift", "reuse"), CASES)
def test_merged_copy_is_reused_only_while_valid(between, shift, reuse, poison):
    text = TEMPLATE.replace("BETWEEN", between).replace("SHIFT", str(shift))
    compiled = compile_module(text, poison=poison)
    assert reused(compiled.source) == reuse, compiled.source
    x = np.random.default_rng(3).standard_normal((2, 3, 16)).astype(np.float32)
    x[0, 0, :3] = [np.nan, -0.0, np.inf]
    for _ in range(2):  # the kept copy lives from call to call
        got = compiled(x)
        for a, b in zip(got, expected(between, shift, x), strict=True):
            assert a.tobytes() == b.tobytes()


def test_kept_copies_share_bytes_only_when_no_nest_uses_both():
    """Kept scratch buffers move after the nests' scratch; two share bytes
    only if their lives (first to last nest) do not meet."""
    env = CodeEnv()
    slots = {}
    for nest, (name, size) in enumerate([("a", 17), ("b", 33), ("c", 100)], 1):
        env.begin_nest()
        env.scratch((7,), np.dtype(np.float32))  # the nest's own scratch
        env.scratch((size,), np.dtype(np.float32))
        slots[name] = len(env.workspace_specs) - 1
        assert nest == env._nests
    for _ in range(2):
        env.begin_nest()
    env.keep(slots["a"])  # nest 1 .. 5
    env.keep(slots["b"])  # nest 2 .. 5
    env.keep(slots["c"])  # nest 3 .. 5
    env.place_kept()
    placed = {n: env.workspace_specs[s][2] for n, s in slots.items()}
    assert min(placed.values()) >= 128  # after the largest nest's scratch
    assert len(set(placed.values())) == 3

    env = CodeEnv()
    for size in (17, 33):
        env.begin_nest()
        env.scratch((size,), np.dtype(np.float32))
        env.begin_nest()
        env.keep(len(env.workspace_specs) - 1)  # lives two nests, then dead
    env.place_kept()
    assert env.workspace_specs[0][2] == env.workspace_specs[1][2]
    assert env.scratch_size == 192 + 192  # the scratch (132 B, aligned), one copy


def conv_chain(cin: int, mid: int, cout: int, between: str | None):
    """conv 1x1 + bias + relu, (optionally an op on its result), then a second
    1x1 conv reading it: the format pipeline and fusion as ge-atc runs them."""
    from xdsl.context import Context

    from ge_dialect.builder import GraphBuilder
    from passes.format_pipeline import FormatPipelinePass
    from passes.fuse_ops import FuseOpsPass

    rng = np.random.default_rng(cin * 1000 + mid)
    b = GraphBuilder("main")
    x = b.data([1, cin, 5, 7], "float32", format="NCHW", name="x")

    def conv(value, cin, cout):
        w = b.const(rng.standard_normal((cout, cin, 1, 1)).astype(np.float32))
        bias = b.const(rng.standard_normal(cout).astype(np.float32))
        return b.conv2d(value, w, bias, data_format="NCHW")

    y = b.relu(conv(x, cin, mid))
    outputs = []
    if between == "sigmoid":  # another consumer, written in between: no effect
        outputs.append(b.sigmoid(y))
    elif between == "max_pool":
        y = b.max_pool(y, ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1], data_format="NCHW")
    b.output(conv(y, mid, cout), *outputs)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    FuseOpsPass().apply(Context(), module)
    return module


def held_products(source: str) -> int:
    """How many GEMM operands are an earlier product, not packed again."""
    return len(re.findall(r"^\s+g\d+ = s\d+\.reshape\(", source, re.MULTILINE))


@pytest.mark.parametrize(
    ("cin", "mid", "cout", "held"),
    [(3, 16, 5, 1), (8, 32, 33, 1), (17, 32, 33, 0), (33, 100, 3, 0), (16, 17, 17, 0)],
)
@pytest.mark.parametrize("between", [None, "sigmoid"])
def test_second_conv_reads_the_first_ones_product(
    cin, mid, cout, held, between, monkeypatch
):
    """The second 1x1 conv multiplies the first one's GEMM product (its
    result in the (H*W, C) order it needs) instead of packing NC1HWC0 again,
    when the first conv's nest is one GEMM and its epilogue (not so when
    its input or output channels leave a ragged C0 block, computed apart,
    or when the relu's result is stored for another consumer too); bit for
    bit what it computes packing, and the reference's numbers."""
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit import compiler as jit
    from ge_runtime.jit.compiler import run_graph
    from ge_runtime.jit.emit import relayouts as jit_relayouts

    module = conv_chain(cin, mid, cout, between)
    x = np.random.default_rng(5).standard_normal((1, cin, 5, 7)).astype(np.float32)
    x[0, 0, 0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    source = compile_graph(find_graph(module)).source
    assert held_products(source) == (held if between is None else 0), source
    got = run_graph(module, {"x": x})
    for a, b in zip(got, evaluate(module, {"x": x}), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    jit._CACHE.clear()
    jit._GRAPHS.clear()
    monkeypatch.setattr(jit_relayouts.RelayoutCache, "lookup", lambda self, key: None)
    assert held_products(compile_graph(find_graph(module)).source) == 0
    for a, b in zip(got, run_graph(module, {"x": x}), strict=True):
        assert a.tobytes() == b.tobytes()
