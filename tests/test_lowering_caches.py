"""The lowering's caches and memos: equal inputs give the cached result, a
changed input does not, and what a cache keeps is what the uncached
computation gives."""

from __future__ import annotations

from collections import Counter

from xdsl.dialects import affine, func
from xdsl.dialects.builtin import IntegerType, MemRefType, Signedness, f16, f32
from xdsl.ir import Block

from ge_dialect.parsing import parse_module
from ge_runtime.jit.compiler import loop_context
from passes.lowering.emitter import (
    Buffer,
    Emitter,
    Nest,
    access_map,
    index_order,
    loop_order,
    memref_type,
)
from passes.lowering.forwarded_copies import Nests
from passes.lowering.index import Div, Ix, Mod, Var
from passes.lowering.layouts import make_layout
from passes.lowering.signless import _Signless


def test_index_values_compare_and_hash_by_their_fields():
    c, c_again = Var(0, 0, 33), Var(0, 0, 33)
    assert c == c_again and hash(c) == hash(c_again) == hash((0, 0, 33))
    assert c != Var(0, 0, 15)
    ix = Ix.of(c) * 2 + 1
    assert ix == Ix(((c_again, 2),), 1)
    assert hash(ix) == hash((((c, 2),), 1))
    assert Div(ix, 16) != Mod(ix, 16)  # same fields, different atoms
    assert Div(ix, 16) == Div(Ix(((c_again, 2),), 1), 16)
    assert ix != Ix(((c, 2),), 0)


def test_index_variables_are_a_fresh_list_each_time():
    i, j = Var(0, 0, 3), Var(1, 0, 15)
    ix = (Ix.of(i) * 16 + Ix.of(j)).floordiv(8)
    first = ix.variables()
    first.append(Var(9, 0, 1))
    assert ix.variables() == [i, j]


def test_access_map_is_cached_by_index_value():
    i, j = Var(0, 0, 3), Var(1, 0, 15)
    index = (Ix.of(i), Ix.of(j) + 1)
    variables, map_attr = access_map(index)
    assert variables == (i, j)
    assert str(map_attr) == "affine_map<(d0, d1) -> (d0, (d1 + 1))>"
    same = (Ix.of(Var(0, 0, 3)), Ix.of(Var(1, 0, 15)) + 1)
    assert access_map(same) is access_map(index)
    _, other = access_map((Ix.of(i), Ix.of(j) + 2))
    assert other != map_attr


def test_index_order_is_cached_and_ordered_by_coefficient():
    i, j = Var(0, 0, 3), Var(1, 0, 15)
    ix = Ix.of(j) + Ix.of(i) * 16
    assert index_order(ix) == (i, j)
    assert index_order(Ix.of(j) + Ix.of(i) * 16) is index_order(ix)
    assert index_order(Ix.of(j) * 16 + Ix.of(i)) == (j, i)


def test_loop_order_puts_stores_first_then_loads():
    i, j = Var(0, 0, 3), Var(1, 0, 15)
    block = Block(arg_types=[MemRefType(f32, [4, 16]), MemRefType(f32, [16, 4])])
    layout = make_layout((4, 16), f32)
    x, y = (Buffer(arg, layout) for arg in block.args)
    accesses = [(False, x, [Ix.of(i), Ix.of(j)]), (True, y, [Ix.of(j), Ix.of(i)])]
    assert loop_order(accesses, [i, j]) == [j, i]


def test_memref_type_is_made_once_per_type_and_shape():
    made = memref_type(f32, (2, 3))
    assert made == MemRefType(f32, [2, 3])
    assert memref_type(f32, (2, 3)) is made
    assert memref_type(f32, (3, 2)) != made
    assert memref_type(f16, (2, 3)) != made


def test_make_layout_is_made_once_per_argument():
    layout = make_layout((1, 17, 4, 4), f32, "NCHW", "NC1HWC0")
    assert make_layout((1, 17, 4, 4), f32, "NCHW", "NC1HWC0") is layout
    assert layout.storage_shape == (1, 3, 4, 4, 8)
    wider = make_layout((1, 33, 4, 4), f32, "NCHW", "NC1HWC0")
    assert wider.storage_shape == (1, 5, 4, 4, 8)


def test_signless_converts_each_attribute_object_once():
    convert = _Signless()
    unsigned = IntegerType(8, Signedness.UNSIGNED)
    assert convert(unsigned) == IntegerType(8)
    assert convert(unsigned) is convert(unsigned)
    assert convert(f32) == f32
    assert convert(IntegerType(16, Signedness.UNSIGNED)) == IntegerType(16)


def test_for_each_probes_each_piece_index_once():
    """A concat's second input at channel 17 of NC1HWC0: refining splits the
    channels (probing pieces), ordering each piece's loops asks for the
    probe of the same index again: the body runs once per index."""
    layout = make_layout((1, 40, 2, 2), f32, "NCHW", "NC1HWC0")
    plain = make_layout((1, 23, 2, 2), f32)
    block = Block(
        arg_types=[
            memref_type(f32, plain.storage_shape),
            memref_type(f32, layout.storage_shape),
        ]
    )
    source, target = Buffer(block.args[0], plain), Buffer(block.args[1], layout)
    probed: Counter[tuple[Ix, ...]] = Counter()

    def body(nest: Nest, index: list[Ix]) -> None:
        if nest.block is None:
            probed[tuple(index)] += 1
        n, c, h, w = index
        nest.store(nest.load(source, index), target, [n, c + 17, h, w])

    Emitter(block).for_each(plain.origin_shape, body)
    assert len(probed) > 2  # the whole domain and its pieces
    assert set(probed.values()) == {1}
    loops = [op for op in block.ops if isinstance(op, affine.ForOp)]
    assert len(loops) > 1  # split at channel 17's block boundary


COPY_NEST = """
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %v = affine.load %a[%i] : memref<4xf32>
    affine.store %v, %b[%i] : memref<4xf32>
  }
  func.return
}
"""


def test_nests_keep_copies_until_rewritten():
    module = parse_module(loop_context(), COPY_NEST, "<test>", check_types=False)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    a, b = function.body.block.args
    nest = next(op for op in function.body.block.ops if isinstance(op, affine.ForOp))
    nests = Nests()
    copy = nests.copy(nest)
    assert copy is not None and copy.load.memref is a and copy.store.memref is b
    assert nests.copy(nest) is copy
    nests.rewritten(nest)
    again = nests.copy(nest)
    assert again is not copy and again == copy
    assert nests.stores(nest) == {b}


def test_quotients_are_the_floordivs_and_mods_of_an_index():
    c = Var(0, 0, 33)
    shifted = Ix.of(c) + 17
    ix = shifted.floordiv(16) * 16 + shifted.mod(16)
    quotients = ix.quotients()
    rest = Ix.of(c) + 1  # 17 = 16 + 1: the 16 leaves the floordiv
    assert quotients == (Div(rest, 16), Mod(rest, 16))
    assert ix.quotients() is quotients
    assert (Ix.of(c) * 16).floordiv(16).quotients() == ()
