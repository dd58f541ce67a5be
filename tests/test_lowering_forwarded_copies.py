"""Copies of copies made one (`passes.lowering.forwarded_copies`): a copy
nest's readers that are copies read its source, and the copy goes, only
where the source still holds what it read."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import affine, func

from ge_dialect.builder import GraphBuilder
from ge_dialect.parsing import parse_module
from ge_runtime.jit.compiler import compile_module, loop_context
from passes.lowering.forwarded_copies import forward_copies

TWO_COPIES = """
func.func @main(%a: memref<2x5xf32>, %out: memref<5x2xf32>) {{
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<2x7xf32>
  affine.for %i = 0 to 2 {{
    affine.for %j = 0 to 5 {{
      %v = affine.load %a[%i, %j] : memref<2x5xf32>
      affine.store %v, %b[%i, %j + 1] : memref<2x7xf32>
    }}
  }}
  {between}
  affine.for %j = 0 to 5 {{
    affine.for %i = 0 to 2 {{
      %v = affine.load %b[%i, %j + 1] : memref<2x7xf32>
      affine.store %v, %out[%j, %i] : memref<5x2xf32>
    }}
  }}
  memref.dealloc %b : memref<2x7xf32>
  func.return
}}
"""

OVERWRITE = """
  affine.for %k = 0 to 5 {
    affine.store %zero, %a[1, %k] : memref<2x5xf32>
  }
"""

OVERWRITE_FROM_OUT = """
  affine.for %k = 0 to 5 {
    %w = affine.load %out[%k, 0] : memref<5x2xf32>
    affine.store %w, %a[1, %k] : memref<2x5xf32>
  }
"""


def forwarded(text: str) -> tuple[func.FuncOp, str]:
    module = parse_module(loop_context(), text, "<test>", check_types=False)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    forward_copies(function)
    return function, str(module)


def nests(function: func.FuncOp) -> list[affine.ForOp]:
    return [op for op in function.body.block.ops if isinstance(op, affine.ForOp)]


def test_a_copy_read_by_a_copy_is_one_nest_reading_its_source():
    """`b[i, j + 1] = a[i, j]` then `out[j, i] = b[i, j + 1]`: one nest
    `out[j, i] = a[i, j]` (the shift undone), the same result."""
    text = TWO_COPIES.format(between="")
    function, printed = forwarded(text)
    (nest,) = nests(function)
    assert "affine.load %a[" in printed and "affine.load %b" not in printed, printed
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    out = np.full((5, 2), np.nan, np.float32)
    compile_module(printed)(x, out)
    np.testing.assert_array_equal(out, x.T)


def test_a_nest_overwriting_the_source_moves_after_the_reader():
    """The source overwritten between the copy and its reader by a nest
    the reader does not depend on (the memory plan reusing the source's
    bytes): that nest runs after the reader, which reads the source as the
    copy did."""
    function, printed = forwarded(TWO_COPIES.format(between=OVERWRITE))
    reader, overwrite = nests(function)
    assert "affine.load %a[" in str(reader) and "%zero" in str(overwrite), printed
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    out = np.full((5, 2), np.nan, np.float32)
    a = x.copy()
    compile_module(printed)(a, out)
    np.testing.assert_array_equal(out, x.T)
    np.testing.assert_array_equal(a, [x[0], np.zeros(5, np.float32)])


def test_a_copy_whose_source_is_overwritten_from_the_readers_result_stays():
    """The overwriting nest reads what the reader writes: it cannot move
    after it, so nothing is forwarded."""
    function, printed = forwarded(TWO_COPIES.format(between=OVERWRITE_FROM_OUT))
    assert len(nests(function)) == 3, printed
    assert "affine.load %b" in printed, printed


def test_shuffle_between_relayouts_is_one_sweep_matching_the_reference():
    """NCHW -> NC1HWC0 -> channel shuffle -> NCHW (Ascend910, 16 lanes, 112
    channels in 4 groups): the three copies one nest over the origin
    index, equal to the reference."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_lowering import check, nc1hwc0_graph

    def body(b: GraphBuilder, x):
        return b.channel_shuffle(x, groups=4, result_types=[x.type])

    text = check(nc1hwc0_graph("float32", (1, 112, 3, 5), body), target="Ascend910")
    assert text.count("\n    affine.for") == 1, text
