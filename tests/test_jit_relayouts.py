"""Merged copies reused from nest to nest (`ge_runtime.jit_relayouts`).

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

from ge_runtime.jit import compile_module
from ge_runtime.jit_scalar import CodeEnv

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
