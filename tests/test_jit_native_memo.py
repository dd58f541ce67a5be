"""Native kernels written once per nest structure (`emit.native_memo`): a
replayed nest is the code a new emission writes, and nests that differ in
anything the emitter reads never share an emission."""

from __future__ import annotations

import numpy as np
import pytest

from ge_runtime.jit import c_runtime
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.compiler import compile_module
from ge_runtime.jit.emit import native_memo
from ge_runtime.jit.emit.native import NativeNest

ARENA = "memref<4096xi8>"


def nest(
    source: str,
    target: str,
    *,
    offset: int = 0,
    extent: int = 17,
    bound: str = "%one",
    kind: str = "memref<3x17xf32>",
) -> str:
    """`target = min(source, bound)` over 3 x `extent`, reading `source` at
    column `j + offset`."""
    column = f"%j + {offset}" if offset else "%j"
    return f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to {extent} {{
      %v = affine.load {source}[%i, {column}] : {kind}
      %r = arith.minimumf %v, {bound} : f32
      affine.store %r, {target}[%i, %j] : memref<3x17xf32>
    }}
  }}"""


def module(*nests: str, kind: str = "memref<3x17xf32>") -> str:
    """A function over `%x` (of `kind`) with buffers `%y`, `%z`, views `%a`,
    `%b`, `%c` of one arena (`%b` overlaps `%a`, `%c` does not), constants
    `%one`, `%zero`, `%negative_zero`, running `nests`."""
    return f"""
func.func @main(%x: {kind}) -> (memref<3x17xf32>, memref<3x17xf32>) {{
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %negative_zero = arith.constant -0.0 : f32
  %s0 = arith.constant 0 : index
  %s1 = arith.constant 64 : index
  %s2 = arith.constant 1024 : index
  %arena = memref.alloc() : {ARENA}
  %a = memref.view %arena[%s0][] : {ARENA} to memref<3x17xf32>
  %b = memref.view %arena[%s1][] : {ARENA} to memref<3x17xf32>
  %c = memref.view %arena[%s2][] : {ARENA} to memref<3x17xf32>
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>{"".join(nests)}
  func.return %y, %z : memref<3x17xf32>, memref<3x17xf32>
}}
"""


STRIDED = "memref<3x17xf32, strided<[20, 1]>>"

VARIANTS = {
    "same": module(nest("%x", "%a"), nest("%x", "%c")),
    "offset": module(nest("%x", "%a"), nest("%x", "%c", offset=1, extent=16)),
    "extent": module(nest("%x", "%a"), nest("%x", "%c", extent=16)),
    "overlap": module(
        nest("%x", "%a"),
        nest("%a", "%c"),
        nest("%c", "%y"),
        nest("%a", "%b"),
        nest("%b", "%z"),
    ),
    "negative zero": module(
        nest("%x", "%a", bound="%zero"), nest("%x", "%c", bound="%negative_zero")
    ),
    "layout": module(nest("%x", "%a", kind=STRIDED), nest("%a", "%c"), kind=STRIDED),
    "chain": module(
        nest("%x", "%a"), nest("%a", "%c"), nest("%c", "%y"), nest("%y", "%z")
    ),
}
"""Modules whose nests are alike but for one thing the emitter reads."""


def library_source(compiled) -> str:
    """The C of a compiled function's kernels ("" without any)."""
    sources = {
        c_runtime._ORIGINS[id(v)][0]
        for v in compiled.function.__globals__.values()
        if id(v) in c_runtime._ORIGINS
    }
    return "".join(sources)


def fresh_compile(text: str, monkeypatch) -> object:
    """`text` compiled with C kernels, not from the in-memory cache."""
    monkeypatch.setattr(jit, "_CACHE", {})
    return compile_module(text, poison=True, kernels="c")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_replayed_nest_is_the_code_a_new_emission_writes(name, monkeypatch):
    """With the memo and without it (every nest emitted anew), the generated
    Python and C are the same text, names included."""
    text = VARIANTS[name]
    memoised = fresh_compile(text, monkeypatch)
    monkeypatch.setattr(native_memo, "nest_key", lambda root, env: None)
    fresh = fresh_compile(text, monkeypatch)
    assert memoised.native_nests == fresh.native_nests > 0
    assert memoised.source == fresh.source
    assert library_source(memoised) == library_source(fresh)
    if name == "layout":
        return  # a caller passes contiguous arrays: its code is what is compared
    x = np.linspace(-2, 2, 3 * 17, dtype=np.float32).reshape(3, 17)
    for got, want in zip(memoised(x), fresh(x), strict=True):
        np.testing.assert_array_equal(got, want)


def keys_of(text: str, monkeypatch) -> list:
    """The memo key of each nest of `text`, in order."""
    keys = []
    key_of = native_memo.nest_key

    def recording(root, env):
        keyed = key_of(root, env)
        keys.append(None if keyed is None else keyed[0])
        return keyed

    monkeypatch.setattr(native_memo, "nest_key", recording)
    fresh_compile(text, monkeypatch)
    return keys


def test_alike_nests_of_other_buffers_share_a_key(monkeypatch):
    """The same nest on other buffers of the same type and relations is one
    key: the second nest replays (the emitter runs once)."""
    emitted = []
    compile_nest = NativeNest.compile

    def counting(self, indent):
        emitted.append(self.root)
        return compile_nest(self, indent)

    monkeypatch.setattr(NativeNest, "compile", counting)
    first, second = keys_of(VARIANTS["same"], monkeypatch)
    assert first is not None and first == second
    assert len(emitted) == 1


@pytest.mark.parametrize("name", ["offset", "extent", "negative zero", "layout"])
def test_nests_differing_in_what_the_emitter_reads_differ_in_key(name, monkeypatch):
    """An index offset, a loop's extent, a constant's bits (-0.0 against
    0.0), a buffer's layout: another key."""
    first, second, *_ = keys_of(VARIANTS[name], monkeypatch)
    assert None not in (first, second)
    assert first != second


def test_buffers_that_may_share_a_byte_differ_in_key(monkeypatch):
    """`a -> c` (disjoint views) and `a -> b` (overlapping views of one
    arena: no `restrict`) are alike but for the overlap: other keys."""
    _, disjoint, _, overlapping, _ = keys_of(VARIANTS["overlap"], monkeypatch)
    assert disjoint != overlapping


GATHERS = """
"memref.global"() <{sym_name = "rows_a", type = memref<5xi64>,
  initial_value = dense<[3, 0, 4, 4, 1]> : tensor<5xi64>, sym_visibility = "private",
  constant}> : () -> ()
"memref.global"() <{sym_name = "rows_b", type = memref<5xi64>,
  initial_value = dense<[1, 2, 0, 3, 2]> : tensor<5xi64>, sym_visibility = "private",
  constant}> : () -> ()
func.func @main(%x: memref<5x17xf32>) -> (memref<5x17xf32>, memref<5x17xf32>) {
  %a = memref.get_global @rows_a : memref<5xi64>
  %b = memref.get_global @rows_b : memref<5xi64>
  %y = memref.alloc() : memref<5x17xf32>
  %z = memref.alloc() : memref<5x17xf32>
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 17 {
      %r = affine.load %a[%i] : memref<5xi64>
      %p = arith.index_cast %r : i64 to index
      %v = memref.load %x[%p, %j] : memref<5x17xf32>
      affine.store %v, %y[%i, %j] : memref<5x17xf32>
    }
  }
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 17 {
      %r = affine.load %b[%i] : memref<5xi64>
      %p = arith.index_cast %r : i64 to index
      %v = memref.load %x[%p, %j] : memref<5x17xf32>
      affine.store %v, %z[%i, %j] : memref<5x17xf32>
    }
  }
  func.return %y, %z : memref<5x17xf32>, memref<5x17xf32>
}
"""
"""Two gathers alike but for the constant table of rows they read (C kernels
bake such a table in)."""


def test_gathers_through_other_constant_tables_differ_in_key(monkeypatch):
    """The tables' values are part of the key: each gather is its own kernel
    and reads its own rows (a shared emission would give `z` the rows of
    `y`)."""
    first, second = keys_of(GATHERS, monkeypatch)
    assert None not in (first, second)
    assert first != second
    x = np.arange(5 * 17, dtype=np.float32).reshape(5, 17)
    compiled = fresh_compile(GATHERS, monkeypatch)
    assert compiled.native_nests == 2, compiled.source
    y, z = compiled(x)
    np.testing.assert_array_equal(y, x[[3, 0, 4, 4, 1]])
    np.testing.assert_array_equal(z, x[[1, 2, 0, 3, 2]])
