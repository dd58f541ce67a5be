"""The JIT's loop analysis on small nests, without generating code
(`ge_runtime.jit.analysis.loop_nest`): values, dependences, injectivity,
bounds."""

from __future__ import annotations

import pytest
from xdsl.dialects import affine
from xdsl.parser import Parser

from ge_runtime.jit.analysis.loop_nest import LoopNest, Unsupported, unblocked
from ge_runtime.jit.compiler import loop_context
from ge_runtime.jit.ops import JITError
from passes.lowering.index import Ix, Var


def loop_nest(body: str, arguments: str) -> LoopNest:
    """The analysis of the one top-level nest of `func.func @f(arguments)`."""
    text = f"func.func @f({arguments}) {{\n{body}\n  func.return\n}}"
    module = Parser(loop_context(), text).parse_module()
    (root,) = [op for op in module.walk() if isinstance(op, affine.ForOp)][:1]
    return LoopNest(root, {}, lambda memref: memref)


def stores(nest: LoopNest) -> list[affine.StoreOp]:
    return [s.op for s in nest.statements if isinstance(s.op, affine.StoreOp)]


ROW_SUM = """
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 5 {
      %v = affine.load %x[%i, %j] : memref<3x5xf32>
      %a = affine.load %acc[%i] : memref<3xf32>
      %s = arith.addf %a, %v : f32
      affine.store %s, %acc[%i] : memref<3xf32>
    }
  }"""


def test_values_vary_over_the_loops_their_indices_use():
    nest = loop_nest(ROW_SUM, "%x: memref<3x5xf32>, %acc: memref<3xf32>")
    nest.analyse_values()
    i, j = 0, 1  # axes in nesting order
    assert [a.extent for a in nest.axes] == [3, 5] and nest.ndim == 2
    load_x, load_acc, add, _ = (s.op for s in nest.statements)
    assert nest.live(load_x.result) == {i, j}
    assert nest.live(load_acc.result) == {i}
    assert nest.live(add.results[0]) == {i, j}  # the union of its operands'
    assert nest.shape(nest.live(load_acc.result)) == (3, 1)


def test_a_sum_over_a_loop_its_store_does_not_index_is_an_accumulation():
    nest = loop_nest(ROW_SUM, "%x: memref<3x5xf32>, %acc: memref<3xf32>")
    nest.analyse_values()
    (store,) = stores(nest)
    accumulations = nest.check_dependences()
    assert list(accumulations) == [store]
    accumulation = accumulations[store]
    assert accumulation.reduced == {1}  # over %j
    assert accumulation.combine.name == "arith.addf"


def test_a_loop_carried_dependence_forbids_running_the_grid_at_once():
    """y[i] = y[i - 1] + x[i]: a prefix sum reads what the previous
    iteration wrote."""
    nest = loop_nest(
        """
  affine.for %i = 1 to 6 {
    %p = affine.load %y[%i - 1] : memref<6xf32>
    %v = affine.load %x[%i] : memref<6xf32>
    %s = arith.addf %p, %v : f32
    affine.store %s, %y[%i] : memref<6xf32>
  }""",
        "%x: memref<6xf32>, %y: memref<6xf32>",
    )
    nest.analyse_values()
    with pytest.raises(Unsupported, match="accessed at different indices"):
        nest.check_dependences()


def test_a_reset_inside_the_reduction_loop_interleaves():
    nest = loop_nest(
        """
  %zero = arith.constant 0.0 : f32
  affine.for %r = 0 to 3 {
    affine.for %p = 0 to 4 {
      affine.store %zero, %acc[%p] : memref<4xf32>
      %v = affine.load %x[%r, %p] : memref<3x4xf32>
      %a = affine.load %acc[%p] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      affine.store %s, %acc[%p] : memref<4xf32>
    }
  }""",
        "%x: memref<3x4xf32>, %acc: memref<4xf32>",
    )
    nest.analyse_values()
    with pytest.raises(Unsupported, match="interleave"):
        nest.check_dependences()


def copy_nest(index: str, size: int):
    """`y[index] = x[i, j]` over a 3x4 `x` into a `size`-element `y`."""
    return loop_nest(
        f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 4 {{
      %v = affine.load %x[%i, %j] : memref<3x4xf32>
      affine.store %v, %y[{index}] : memref<{size}xf32>
    }}
  }}""",
        f"%x: memref<3x4xf32>, %y: memref<{size}xf32>",
    )


@pytest.mark.parametrize(
    "index, size, injective",
    [
        ("%i * 4 + %j", 12, True),  # row-major: every element once
        ("%j * 3 + %i", 12, True),  # column-major: also once each
        ("%i + %j", 6, False),  # a diagonal hits elements twice
        ("(%i * 4 + %j) floordiv 2", 6, False),  # floordiv: pairs collide
        ("(%i * 4 + %j) mod 12", 12, True),  # evaluated: still injective
    ],
)
def test_a_store_is_injective_over_the_loops_it_uses_or_rejected(
    index, size, injective
):
    nest = copy_nest(index, size)
    nest.analyse_values()
    (store,) = stores(nest)
    index_expressions = nest.access_index(store)
    used = nest.ix_deps(index_expressions)
    if injective:
        nest.check_injective(store, index_expressions, used)
        assert nest.check_dependences() == {}
    else:
        with pytest.raises(Unsupported, match="not injective"):
            nest.check_injective(store, index_expressions, used)


def same_memref(a, b) -> bool:
    return a is b


@pytest.mark.parametrize(
    "index, size, independent",
    [
        ("%i * 4 + %j", 12, (True, True)),  # every element once: both loops
        ("%j", 4, (False, True)),  # each row writes all of y: not over %i
        ("(%i * 4 + %j) floordiv 2", 6, (False, False)),  # pairs collide
    ],
)
def test_a_loop_runs_on_threads_when_its_iterations_write_apart(
    index, size, independent
):
    nest = copy_nest(index, size)
    found = tuple(nest.carries_no_dependence(a, same_memref) for a in (0, 1))
    assert found == independent


def test_a_reduction_loop_and_an_aliased_buffer_carry_dependences():
    nest = loop_nest(ROW_SUM, "%x: memref<3x5xf32>, %acc: memref<3xf32>")
    assert nest.carries_no_dependence(0, same_memref)  # rows
    assert not nest.carries_no_dependence(1, same_memref)  # the sum's loop
    assert not nest.carries_no_dependence(0, lambda a, b: True)  # x may be acc


def test_an_access_outside_its_buffer_is_an_error_of_the_program():
    nest = loop_nest(
        """
  affine.for %i = 0 to 4 {
    %v = affine.load %x[%i + 1] : memref<4xf32>
    affine.store %v, %y[%i] : memref<4xf32>
  }""",
        "%x: memref<4xf32>, %y: memref<4xf32>",
    )
    load, store = (s.op for s in nest.statements)
    nest.check_bounds(store, nest.access_index(store), [4])
    with pytest.raises(JITError, match="accesses index 1..4 of a dimension of size 4"):
        nest.check_bounds(load, nest.access_index(load), [4])


def test_statements_in_a_loop_that_never_runs_are_dropped():
    nest = loop_nest(
        """
  affine.for %i = 0 to 4 {
    %v = affine.load %x[%i] : memref<4xf32>
    affine.store %v, %y[%i] : memref<4xf32>
    affine.for %k = 0 to 0 {
      affine.store %v, %y[%i] : memref<4xf32>
    }
  }""",
        "%x: memref<4xf32>, %y: memref<4xf32>",
    )
    assert len(nest.statements) == 3
    nest.drop_empty()
    assert len(nest.statements) == 2


def test_loop_bounds_given_by_values_are_not_analysed():
    with pytest.raises(Unsupported, match="loop with operands"):
        loop_nest(
            """
  affine.for %i = 0 to %n {
    %v = affine.load %x[%i] : memref<4xf32>
    affine.store %v, %x[%i] : memref<4xf32>
  }""",
            "%x: memref<4xf32>, %n: index",
        )


SCATTER_ADD = """
  affine.for %k = 0 to 4 {
    affine.for %j = 0 to 5 {
      %p = affine.load %pos[%k] : memref<4xi64>
      %q = arith.index_cast %p : i64 to index
      %fits = arith.cmpi slt, %q, %three : index
      cf.assert %fits, "error: past the end"
      %old = memref.load %y[%q, %j] : memref<3x5xf32>
      %new = affine.load %u[%k, %j] : memref<4x5xf32>
      %s = arith.addf %old, %new : f32
      memref.store %s, %y[%q, %j] : memref<3x5xf32>
    }
  }"""


def test_a_scatter_is_exact_only_in_the_nests_own_order():
    """A store through computed indices may write one element twice: the
    grid cannot run statement by statement (NumPy), no loop's iterations
    are independent (threads), and its gather, check and scatter are the
    nest's data-dependent ops, in program order."""
    arguments = (
        "%pos: memref<4xi64>, %y: memref<3x5xf32>, %u: memref<4x5xf32>, %three: index"
    )
    nest = loop_nest(SCATTER_ADD, arguments)
    nest.analyse_values()
    names = [op.name for op in nest.data_dependent()]
    assert names == ["cf.assert", "memref.load", "memref.store"]
    assert [op.name for op in nest.computed_stores()] == ["memref.store"]
    with pytest.raises(Unsupported, match=r"computed indices \(a scatter\)"):
        nest.check_dependences()
    assert not any(
        nest.carries_no_dependence(axis, lambda a, b: a is b) for axis in (0, 1)
    )


def test_a_blocked_pair_unblocks_to_its_channel():
    """`[o1 + (34 g + o0) floordiv 16, h, (34 g + o0) mod 16]` (NC1HWC0's
    channel `34 g + 16 o1 + o0`) is injective as `[16 o1 + 34 g + o0, h]`;
    a `floordiv` without its `mod` stays as it is."""
    g, o1, o0, h = (Var(0, 0, 3), Var(1, 0, 1), Var(2, 0, 15), Var(3, 0, 6))
    channel = Ix.of(g) * 34 + Ix.of(o0)
    index = (Ix.of(o1) + channel.floordiv(16), Ix.of(h), channel.mod(16))
    merged, row = unblocked(index)
    assert row == Ix.of(h) and merged.const == 0
    assert dict(merged.terms) == {g: 34, o0: 1, o1: 16}
    assert unblocked(index[:2]) == index[:2]
