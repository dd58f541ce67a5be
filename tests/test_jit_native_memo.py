"""Native kernels written once per nest structure (`emit.native_memo`): a
replayed nest is the code a new emission writes, and nests that differ in
anything the emitter reads never share an emission."""

from __future__ import annotations

import numpy as np
import pytest

from ge_runtime.jit import c_runtime
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.compiler import JITError, compile_module
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


def gathers(tables: dict[str, list[int]], nests: str) -> str:
    """A function of x (5 x 17) returning y and z, which `nests` compute
    through constant globals of 5 row numbers (`tables`, bound to `%a`,
    then `%b`)."""
    globals_ = "".join(
        f"""
"memref.global"() <{{sym_name = "{name}", type = memref<5xi64>,
  initial_value = dense<{rows}> : tensor<5xi64>, sym_visibility = "private",
  constant}}> : () -> ()"""
        for name, rows in tables.items()
    )
    gets = "".join(
        f"\n  {value} = memref.get_global @{name} : memref<5xi64>"
        for value, name in zip(["%a", "%b"], tables, strict=False)
    )
    return f"""{globals_}
func.func @main(%x: memref<5x17xf32>) -> (memref<5x17xf32>, memref<5x17xf32>) {{{gets}
  %y = memref.alloc() : memref<5x17xf32>
  %z = memref.alloc() : memref<5x17xf32>{nests}
  func.return %y, %z : memref<5x17xf32>, memref<5x17xf32>
}}
"""


def gather_rows(table: str, target: str, columns: int, shift: int = 0) -> str:
    """`target[i, j + shift] = x[table[i], j]` over 5 x `columns`: a gather
    of x's rows through a constant table."""
    column = f"%j + {shift}" if shift else "%j"
    return f"""
  affine.for %i = 0 to 5 {{
    affine.for %j = 0 to {columns} {{
      %r = affine.load {table}[%i] : memref<5xi64>
      %p = arith.index_cast %r : i64 to index
      %v = memref.load %x[%p, %j] : memref<5x17xf32>
      affine.store %v, {target}[%i, {column}] : memref<5x17xf32>
    }}
  }}"""


GATHERS = gathers(
    {"rows_a": [3, 0, 4, 4, 1], "rows_b": [1, 2, 0, 3, 2]},
    gather_rows("%a", "%y", 17) + gather_rows("%b", "%z", 17),
)
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


def pair(source: str, target: str, first: int, second: int) -> str:
    """`target = min(source[j + first], source[j + second])` over 3 x 15:
    one buffer read at two constant offsets."""
    return f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 15 {{
      %v = affine.load {source}[%i, %j + {first}] : memref<3x17xf32>
      %w = affine.load {source}[%i, %j + {second}] : memref<3x17xf32>
      %r = arith.minimumf %v, %w : f32
      affine.store %r, {target}[%i, %j] : memref<3x17xf32>
    }}
  }}"""


WEIGHTED = """
func.func @main(%x: memref<3x17xf32>, %w: memref<3x17xf32> {ge.weight = "w"})
    -> (memref<3x17xf32>, memref<3x17xf32>) {
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 16 {
      %v = affine.load %x[%i, %j] : memref<3x17xf32>
      %u = affine.load %w[%i, %j] : memref<3x17xf32>
      %r = arith.minimumf %v, %u : f32
      affine.store %r, %y[%i, %j] : memref<3x17xf32>
    }
  }
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 16 {
      %v = affine.load %x[%i, %j + 1] : memref<3x17xf32>
      %u = affine.load %w[%i, %j + 1] : memref<3x17xf32>
      %r = arith.minimumf %v, %u : f32
      affine.store %r, %z[%i, %j] : memref<3x17xf32>
    }
  }
  func.return %y, %z : memref<3x17xf32>, memref<3x17xf32>
}
"""
"""Two nests alike but for the block of the input and of the weight they
read (the weight packed into the order the kernel reads it: the offset is
in the packing line)."""


def starting(source: str, target: str, start: int, read: str = "%j") -> str:
    """`target[i, j - start] = source[i, read]` over 3 x 16, the loop of `j`
    from `start`."""
    return f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = {start} to {start + 16} {{
      %v = affine.load {source}[%i, {read}] : memref<3x17xf32>
      affine.store %v, {target}[%i, %j - {start}] : memref<3x17xf32>
    }}
  }}"""


OFFSET_ONLY = {
    "block": module(nest("%x", "%y", extent=16), nest("%x", "%z", offset=1, extent=16)),
    "blocks of a weight": WEIGHTED,
    "pairs": module(pair("%x", "%y", 0, 1), pair("%x", "%z", 1, 2)),
    "a loop's start": module(starting("%x", "%y", 0), starting("%x", "%z", 1)),
}
"""Modules of two nests alike but for the constant offsets of their accesses,
each buffer's moved by one vector (or by where a loop starts, whose variable
only indices read): `%y` from column 0, `%z` from column 1."""


def emitting(monkeypatch) -> list:
    """The nests the emitter writes from now (not replayed), in order."""
    emitted = []
    compile_nest = NativeNest.compile

    def counting(self, indent):
        emitted.append(self.root)
        return compile_nest(self, indent)

    monkeypatch.setattr(NativeNest, "compile", counting)
    return emitted


@pytest.mark.parametrize("name", list(OFFSET_ONLY))
def test_nests_differing_only_in_offsets_share_an_emission(name, monkeypatch):
    """One emission serves both nests, each call with its own offsets: the
    code is what two emissions write, and each nest reads its own block."""
    text = OFFSET_ONLY[name]
    emitted = emitting(monkeypatch)
    memoised = fresh_compile(text, monkeypatch)
    assert len(emitted) == 1
    monkeypatch.setattr(native_memo, "nest_key", lambda root, env: None)
    fresh = fresh_compile(text, monkeypatch)
    assert len(emitted) == 3
    assert memoised.native_nests == fresh.native_nests == 2
    assert memoised.source == fresh.source
    assert library_source(memoised) == library_source(fresh)
    x = np.linspace(-2, 2, 3 * 17, dtype=np.float32).reshape(3, 17)
    w = np.cos(np.arange(3 * 17, dtype=np.float32)).reshape(3, 17)
    inputs = (x, w) if name == "blocks of a weight" else (x,)
    y, z = memoised(*inputs)
    if name == "block":
        want_y, want_z = np.minimum(x[:, :16], 1), np.minimum(x[:, 1:], 1)
    elif name == "a loop's start":
        want_y, want_z = x[:, :16], x[:, 1:]
    elif name == "pairs":
        want_y = np.minimum(x[:, :15], x[:, 1:16])
        want_z = np.minimum(x[:, 1:16], x[:, 2:])
    else:
        want_y, want_z = (
            np.minimum(x[:, :16], w[:, :16]),
            np.minimum(x[:, 1:], w[:, 1:]),
        )
    columns = want_y.shape[1]
    np.testing.assert_array_equal(y[:, :columns], want_y)
    np.testing.assert_array_equal(z[:, :columns], want_z)


def halves(source: str, target: str, shift: int) -> str:
    """`target[i, j] = source[i, (j + shift) floordiv 2]` over 3 x 16."""
    return f"""
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 16 {{
      %v = affine.load {source}[%i, (%j + {shift}) floordiv 2] : memref<3x17xf32>
      affine.store %v, {target}[%i, %j] : memref<3x17xf32>
    }}
  }}"""


SHIFTED_GATHERS = gathers(
    {"rows": [3, 0, 4, 4, 1]},
    gather_rows("%a", "%y", 16) + gather_rows("%a", "%z", 16, shift=1),
)
"""Two gathers alike but for the offset of the block they write."""

OFFSET_INSIDE = {
    "another gap between two reads of a buffer": module(
        pair("%x", "%y", 0, 1), pair("%x", "%z", 0, 2)
    ),
    "inside a floordiv": module(halves("%x", "%y", 0), halves("%x", "%z", 1)),
    "a loop's start a floordiv rounds": module(
        starting("%x", "%y", 0, "%j floordiv 2"),
        starting("%x", "%z", 1, "%j floordiv 2"),
    ),
}
"""Modules of two nests alike but for constants that are in the kernel (not
only in its call): the distance between two reads of one buffer, an offset
a `floordiv` rounds (the index's or the start of the loop of its
variable)."""


@pytest.mark.parametrize("name", list(OFFSET_INSIDE))
def test_nests_whose_offsets_are_in_the_kernel_do_not_share(name, monkeypatch):
    """Each nest is its own key and emission, and computes its own result."""
    text = OFFSET_INSIDE[name]
    emitted = emitting(monkeypatch)
    first, second = keys_of(text, monkeypatch)
    assert None not in (first, second)
    assert first != second
    assert len(emitted) == 2
    compiled = fresh_compile(text, monkeypatch)
    x = np.linspace(-2, 2, 3 * 17, dtype=np.float32).reshape(3, 17)
    y, z = compiled(x)
    if name != "another gap between two reads of a buffer":
        np.testing.assert_array_equal(y[:, :16], np.repeat(x[:, :8], 2, axis=1))
        np.testing.assert_array_equal(z[:, :16], x[:, (np.arange(16) + 1) // 2])
    else:
        np.testing.assert_array_equal(y[:, :15], np.minimum(x[:, :15], x[:, 1:16]))
        np.testing.assert_array_equal(z[:, :15], np.minimum(x[:, :15], x[:, 2:]))


def test_a_gather_keeps_its_offsets_in_its_key(monkeypatch):
    """A nest that gathers (its computed element's offset counts from the
    buffer's start) is another key when only an access's offset differs."""
    first, second = keys_of(SHIFTED_GATHERS, monkeypatch)
    assert None not in (first, second)
    assert first != second
    x = np.arange(5 * 17, dtype=np.float32).reshape(5, 17)
    y, z = fresh_compile(SHIFTED_GATHERS, monkeypatch)(x)
    np.testing.assert_array_equal(y[:, :16], x[[3, 0, 4, 4, 1], :16])
    np.testing.assert_array_equal(z[:, 1:], x[[3, 0, 4, 4, 1], :16])


def test_a_replayed_nest_checks_its_own_bounds(monkeypatch):
    """A nest sharing an emission, but for an offset that takes it outside
    its buffer, raises the error a new emission of it raises."""
    text = module(nest("%x", "%y", extent=16), nest("%x", "%z", offset=2, extent=16))
    with pytest.raises(JITError) as replayed:
        fresh_compile(text, monkeypatch)
    monkeypatch.setattr(native_memo, "nest_key", lambda root, env: None)
    with pytest.raises(JITError) as emitted:
        fresh_compile(text, monkeypatch)
    assert "accesses index 2..17 of a dimension of size 17" in str(replayed.value)
    assert str(replayed.value) == str(emitted.value)


def concatenated(rows: int, start: int) -> str:
    """`%y[i, j] = %p[0, i + start, j]` (3 x 17), `%p` of `rows` rows: a
    block of a concatenation."""
    kind = f"memref<1x{rows}x17xf32>"
    return f"""
func.func @main(%x: memref<1x3x17xf32>, %p: {kind})
    -> (memref<3x17xf32>, memref<3x17xf32>) {{
  %y = memref.alloc() : memref<3x17xf32>
  %z = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 17 {{
      %v = affine.load %x[0, %i, %j] : memref<1x3x17xf32>
      affine.store %v, %y[%i, %j] : memref<3x17xf32>
    }}
  }}
  affine.for %i = 0 to 3 {{
    affine.for %j = 0 to 17 {{
      %v = affine.load %p[0, %i + {start}, %j] : {kind}
      affine.store %v, %z[%i, %j] : memref<3x17xf32>
    }}
  }}
  func.return %y, %z : memref<3x17xf32>, memref<3x17xf32>
}}
"""


def test_buffers_of_other_sizes_but_the_same_strides_share_an_emission(monkeypatch):
    """Two buffers of 3 and 5 rows of 17 (the strides of their axes of more
    than one element the same): one emission, each nest reading its own
    rows; a block beyond the larger one's rows raises the error a new
    emission raises."""
    text = concatenated(5, 2)
    emitted = emitting(monkeypatch)
    memoised = fresh_compile(text, monkeypatch)
    assert len(emitted) == 1
    x = np.arange(3 * 17, dtype=np.float32).reshape(1, 3, 17)
    p = -np.arange(5 * 17, dtype=np.float32).reshape(1, 5, 17)
    y, z = memoised(x, p)
    np.testing.assert_array_equal(y, x[0])
    np.testing.assert_array_equal(z, p[0, 2:])
    monkeypatch.setattr(native_memo, "nest_key", lambda root, env: None)
    assert memoised.source == fresh_compile(text, monkeypatch).source
    monkeypatch.undo()
    with pytest.raises(JITError) as replayed:
        fresh_compile(concatenated(5, 3), monkeypatch)
    assert "accesses index 3..5 of a dimension of size 5" in str(replayed.value)
