"""Native kernels written once per nest structure: a repeated nest replays.

A network repeats its units: ShuffleNet's 771 nests that C takes are 236
distinct calls of 241 kernels. `NativeMemo` writes a nest the first time its key
(`nest_key`) is seen, then answers the same key by replaying what that
emission did: the same requests of the function's code in the same order
(`NativeNest.tape`: new names, values' names, namespace bindings), and the
offsets of the buffers' blocks the nest reaches (`NativeNest.offset_lines`:
the key holds its accesses' constants only relative to each other), so the
generated Python and C are the text a new emission would write, names
included, at a fraction of the cost (ShuffleNet: 236 emissions, 663 with
the constants in the key).

The key is the emitter's whole input in a canonical form: the nest's ops
(names, properties, attributes, result and block argument types, where each
sits, its operands numbered: the nest's own values by definition, the
others by first use), and what the emitter asks about each value from
outside: its type, its constant (bit for bit) or, for a nest that gathers,
constant global's values (a kernel bakes a gather's index table in:
`NativeNest._constant_gathers`), which other outside values view the same
buffer, whether it is a weight, whether
no op outside the nest uses it, and which of them may share a byte
(`relayouts.footprint`). A nest reading a value computed outside (not a
constant, not a buffer) is written anew each time.

    affine.for %i = 0 to 16 { %x = affine.load %a[%i + 4] ... }   (view v12)
    affine.for %i = 0 to 16 { %x = affine.load %a[%i + 4] ... }   (view v40)

are one key when `v12` and `v40` have one type and the same relations to the
nests' other buffers: the second nest's call is the first one's lines with
`v40` for `v12` and its own pointer names; with `%a[%i + 20]`, its own
offset too (16 elements further: 64 more bytes in its address).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from xdsl.dialects import affine, cf
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from ge_runtime.jit.analysis.loop_nest import (
    Unsupported,
    check_within,
    element_strides,
)
from ge_runtime.jit.emit.native import NativeNest, Request, only_used_by
from ge_runtime.jit.emit.relayouts import Footprint, footprint
from ge_runtime.jit.emit.scalar import CodeEnv

NAME = re.compile(r"\b[A-Za-z_]\w*\b")
"""An identifier of the generated Python."""


ZERO = AffineConstantExpr(0)

FIRST_INDEX = {affine.LoadOp.name: 1, affine.StoreOp.name: 2}
"""The position of an affine access's first index among its operands (after
its memref, and a store's value)."""
LOOP = affine.ForOp.name
GATHER = memref_dialect.LoadOp.name
DATA_DEPENDENT = frozenset({GATHER, memref_dialect.StoreOp.name, cf.AssertOp.name})
"""Ops whose nest keeps its accesses' constants in its key: a gather, a
scatter, a check on the data."""

Replayed = tuple[str, Any]
"""A request of `NativeNest.tape` without its name, a value as its position
among the nest's outside values."""

Access = tuple[int, tuple[int, ...]]
"""An affine access of a nest (in walk order): its buffer's position among
the nest's outside values, and the constants its map adds to each index
(`_split_constant`)."""

Offset = tuple[int, int, tuple[int, ...]]
"""An offset a call's line writes (`NativeNest.offset_lines`): the first
access of its buffer, the offset, and what one more of each of that
access's constants adds to it."""

Bounds = tuple[str, tuple[tuple[int, int], ...]]
"""An access checked within its buffer (`NativeNest.bounds`): its op's
name and, on each axis, its least and greatest index less the constant its
map adds there."""


@dataclass(frozen=True)
class Emission:
    """What writing a nest did, in terms of its outside values' positions."""

    tape: tuple[Replayed, ...]
    """The emission's requests, in order."""
    lines: tuple[str, ...]
    """The call's lines without their indentation, each name a request gave
    a `str.format` field (the request's position in `tape`), each offset of
    `offsets` the field after those (its position in `offsets` after the
    tape's)."""
    kernel: tuple[str, tuple[int, ...]] | None
    """The kernel's name and the arguments it writes (`CNest.kernel`)."""
    unsupported: str | None
    """Why the nest is not a kernel (then no lines)."""
    constants: tuple[tuple[int, ...], ...]
    """The constants of the nest's accesses (`Access`)."""
    offsets: tuple[Offset, ...]
    """The offsets the lines write."""
    bounds: tuple[Bounds | None, ...] | None
    """Per access, its bounds (None in a loop that does not run), once the
    emission checked them."""


@dataclass
class NativeMemo:
    """The nests one function's native emitter wrote, by key."""

    emissions: dict[Hashable, Emission]
    footprints: dict[SSAValue, Footprint] = field(default_factory=dict)
    """The footprint of each buffer a key asked about (`relayouts.footprint`:
    a buffer's view and its constant shift are written before a nest reads
    it, and stay)."""
    indexed: dict[SSAValue, Hashable] = field(default_factory=dict)
    """`_indexed` of each buffer's type a key asked about."""

    @staticmethod
    def of(env: CodeEnv) -> NativeMemo:
        """The memo of `env`'s function (made on first use)."""
        found = env.extensions.get(NativeMemo)
        if found is None:
            found = env.extensions[NativeMemo] = NativeMemo({})
        return found

    def compile(
        self,
        root: affine.ForOp,
        env: CodeEnv,
        indent: str,
        make: Callable[[affine.ForOp, CodeEnv], NativeNest],
    ) -> list[str]:
        """The lines calling the kernel of nest `root` (`make(root,
        env).compile(indent)`, or the replay of a nest of the same key);
        `Unsupported` as that nest raised it."""
        keyed = nest_key(root, env)
        if keyed is None:
            return make(root, env).compile(indent)
        key, outside, accesses = keyed
        try:
            known = self.emissions.get(key)
        except TypeError:  # an attribute that does not hash
            return make(root, env).compile(indent)
        if known is not None:
            return _replay(known, outside, accesses, env, indent)
        constants = tuple(c for _, c in accesses)
        nest: NativeNest | None = None
        try:
            nest = make(root, env)
            lines = nest.compile(indent)
        except Unsupported as reason:
            tape = nest.tape if nest is not None else []
            bounds = _bounds(nest, root, constants) if nest is not None else None
            self.emissions[key] = Emission(
                _positions(tape, outside), (), None, str(reason), constants, (), bounds
            )
            raise
        offsets, fields = _offsets(nest, outside, accesses)
        self.emissions[key] = Emission(
            _positions(nest.tape, outside),
            _templates(nest.tape, lines, indent, fields),
            getattr(nest, "kernel", None),
            None,
            constants,
            offsets,
            _bounds(nest, root, constants),
        )
        return lines


def _offsets(
    nest: NativeNest, outside: list[SSAValue], accesses: list[Access]
) -> tuple[tuple[Offset, ...], dict[int, tuple[int, int, int]]]:
    """The offsets the lines of `nest` write (`NativeNest.offset_lines`),
    and by line where each is: its column, its value and its field."""
    first: dict[int, int] = {}
    for number, (position, _) in enumerate(accesses):
        first.setdefault(position, number)
    position = {value: i for i, value in enumerate(outside)}
    offsets: list[Offset] = []
    fields = {}
    for line, column, buffer, offset, unit in nest.offset_lines:
        access = first.get(position[buffer])
        if access is not None:
            fields[line] = (column, offset, len(nest.tape) + len(offsets))
            weights = tuple(stride * unit for stride in _strides(buffer))
            offsets.append((access, offset, weights))
    return tuple(offsets), fields


def _strides(buffer: SSAValue) -> list[int]:
    """The element strides of memref `buffer` (`NativeOperands._argument`'s)."""
    memref_type = buffer.type
    assert isinstance(memref_type, MemRefType)
    shape = tuple(memref_type.get_shape())
    return list(memref_type.get_strides() or element_strides(shape))


def _bounds(
    nest: NativeNest, root: affine.ForOp, constants: tuple[tuple[int, ...], ...]
) -> tuple[Bounds | None, ...] | None:
    """The bounds of each access of `nest` (of those `constants`) it
    checked (`NativeNest.bounds`), less its constants; None if it did not
    get to check them."""
    if nest.bounds is None:
        return None
    ops = [o for o in root.walk() if isinstance(o, affine.LoadOp | affine.StoreOp)]
    found: list[Bounds | None] = []
    for op, shifts in zip(ops, constants, strict=True):
        if op not in nest.bounds:
            found.append(None)
            continue
        axes = zip(nest.bounds[op], shifts, strict=True)
        found.append((op.name, tuple((lo - c, hi - c) for (lo, hi), c in axes)))
    return tuple(found)


def _replay(
    known: Emission,
    outside: list[SSAValue],
    accesses: list[Access],
    env: CodeEnv,
    indent: str,
) -> list[str]:
    """The requests of `known` made again for the nest of `outside` values
    and `accesses` (its bounds checked first, as an emission does), and its
    lines with the names they give and its own offsets."""
    if known.bounds is not None:
        for (position, constants), checked in zip(accesses, known.bounds, strict=True):
            if checked is not None:
                name, axes = checked
                reached = [
                    (lo + c, hi + c)
                    for (lo, hi), c in zip(axes, constants, strict=True)
                ]
                shape = outside[position].type.get_shape()  # type: ignore[attr-defined]
                check_within(name, reached, shape)
    names: list[Any] = []
    for request, argument in known.tape:
        if request == "fresh":
            names.append(env.fresh(argument))
        elif request == "name":
            names.append(env.name(outside[argument]))
        else:
            env.namespace[argument[0]] = argument[1]
            names.append("")
    if known.unsupported is not None:
        raise Unsupported(known.unsupported)
    if known.kernel is not None:
        env.writes[known.kernel[0]] = known.kernel[1]
    for access, offset, weights in known.offsets:
        moved = zip(accesses[access][1], known.constants[access], weights, strict=True)
        names.append(offset + sum((now - then) * w for now, then, w in moved))
    return [indent + line.format(*names) for line in known.lines]


def _positions(tape: list[Request], outside: list[SSAValue]) -> tuple[Replayed, ...]:
    """`tape` without its names, each value as its position in `outside`."""
    position = {value: i for i, value in enumerate(outside)}
    return tuple(
        (request, position[argument] if request == "name" else argument)
        for request, argument, _ in tape
    )


def _templates(
    tape: list[Request],
    lines: list[str],
    indent: str,
    offsets: dict[int, tuple[int, int, int]],
) -> tuple[str, ...]:
    """`lines` without `indent`, each name a request of `tape` gave as the
    field of that request's position, and the offset line `n` of `offsets`
    has at a column (`offsets[n]`: the column, the offset, its field) as
    that field."""
    fields: dict[str, int] = {}
    for number, (_, _, name) in enumerate(tape):
        if name:
            fields.setdefault(name, number)

    def template(number: int, line: str) -> str:
        assert line.startswith(indent)
        text = line[len(indent) :]
        offset = offsets.get(number)
        if offset is not None:
            column, value, _ = offset
            end = column + len(str(value))
            assert text[column:end] == str(value)
            text = f"{text[:column]}\0{text[end:]}"
        text = text.replace("{", "{{").replace("}", "}}")
        text = NAME.sub(
            lambda m: f"{{{fields[m[0]]}}}" if m[0] in fields else m[0], text
        )
        return text if offset is None else text.replace("\0", f"{{{offset[2]}}}")

    return tuple(map(template, range(len(lines)), lines))


def nest_key(
    root: affine.ForOp, env: CodeEnv
) -> tuple[Hashable, list[SSAValue], list[Access]] | None:
    """The key of nest `root`, its outside values (by first use) and its
    affine accesses, or None when it reads a value computed outside
    (neither a constant nor a buffer).

    The key holds each access's map without the constants it adds to its
    indices (`_split_constant`), and those constants less the ones of the
    first access to the same buffer (`_shifts`): nests that read and write
    other blocks of their buffers (ShuffleNet's channel groups) are one key
    when each buffer's accesses move by one constant vector. A loop whose
    variable only accesses' indices read, adding a multiple of it, is keyed
    by its extent and step, where it starts counted in those constants
    (`_start`: ShuffleNet's loops over the lanes of a channel block). The
    emitter
    reads such a constant only in the offset of an element from the
    buffer's first one the kernel reaches (`NativeOperands._element`), which
    the call's lines write (an argument's address, a packed weight's view:
    `NativeNest.offset_lines`), each replayed with the nest's own. Loop
    bounds, tiling, vector spans, parallel loops, dependences, `restrict`
    and offset tables read the terms of the indices (which stay in the
    key with the constants inside a `floordiv`, `mod` or product and
    `affine.apply`'s), the buffers' footprints and the constants' relations
    within a buffer, not the constants; the bounds an access reaches move
    with its constants and are checked again on replay
    (`NativeNest.bounds`). A nest that gathers, scatters or checks its data
    keeps its constants whole (a computed element's offset is from the
    buffer's start: `NativeNest._computed_element`)."""
    inside: dict[SSAValue, int] = {}
    outside: dict[SSAValue, int] = {}
    block_count = 0
    ops = []
    indexed: list[tuple[SSAValue, tuple[SSAValue, ...], SplitMap]] = []
    read: dict[Operation, tuple[int, dict[int, list[int]]]] = {}
    loops: list[tuple[affine.ForOp, int, tuple[int, int] | None]] = []
    data_dependent = gathers = False
    stack: list[tuple[Operation, int]] = [(root, -1)]  # `root.walk()`'s order
    while stack:
        op, parent = stack.pop()
        given = op.operands
        operands = []
        for value in given:
            local = inside.get(value)
            if local is None:
                local = -1 - outside.setdefault(value, len(outside))
            operands.append(local)
        arguments = []
        nested: list[tuple[Operation, int]] = []
        for region in op.regions:
            for block in region.blocks:
                nested += [(inner, block_count) for inner in block.ops]
                block_count += 1
                for argument in block.args:
                    inside[argument] = len(inside)
                    arguments.append(argument.type)
        stack += reversed(nested)
        results = op.results
        for result in results:
            inside[result] = len(inside)
        properties: dict[str, Any] = op.properties
        name = op.name  # cheaper than `isinstance` on an operation's class
        first = FIRST_INDEX.get(name)
        if first is not None:
            memref = given[first - 1]
            if memref not in outside:
                return None  # a buffer the nest defines
            split = _split_map(properties["map"].data)
            indexed.append((memref, given[first:], split))
            read[op] = first, split.multiples
            properties = {**properties, "map": split.rest}
        elif name == LOOP:
            bounds = _constant_bounds(properties)
            loops.append((op, len(ops), bounds))  # type: ignore[arg-type]
        elif name in DATA_DEPENDENT:
            data_dependent = True
            gathers |= name == GATHER
        ops.append(
            (
                name,
                parent,
                tuple(sorted(properties.items())),
                tuple(sorted(op.attributes.items())),
                tuple(operands),
                tuple([result.type for result in results]),
                tuple(arguments),
            )
        )
    starts: dict[SSAValue, int] = {}
    for loop, entry, bounds in loops:
        start = _start(loop, bounds, read)
        if start is not None:
            starts[loop.body.block.args[0]] = start
            extent = bounds[1] - start  # type: ignore[index]
            extents = {"lowerBoundMap": 0, "upperBoundMap": extent}
            name, block, _, *rest = ops[entry]
            ops[entry] = (
                name,
                block,
                tuple(sorted({**loop.properties, **extents}.items())),
                *rest,
            )
    accesses = [
        (outside[memref], _moved(indices, split, starts))
        for memref, indices, split in indexed
    ]
    values = list(outside)
    whole = data_dependent or not all(_runs(bounds) for _, _, bounds in loops)
    whole = whole or not all(_at_zero(memref, split) for memref, _, split in indexed)
    facts = _facts(values, root, env, gathers=gathers, whole=whole)
    if facts is None:
        return None
    shifts = _shifts(accesses, whole=data_dependent)
    return (tuple(ops), facts, shifts), values, accesses


class SplitMap(NamedTuple):
    """An access's map taken apart (`_split_map`)."""

    rest: AffineMap
    """The map without the constants it adds to its results."""
    constants: tuple[int, ...]
    """Those constants, by result."""
    multiples: dict[int, list[int]]
    """The operands (dimensions, then symbols) the map's results each add a
    multiple of, of the operand or of its product with a constant, and
    read nowhere else, with those multiples (by result)."""


@lru_cache(maxsize=4096)
def _split_map(map_: AffineMap) -> SplitMap:
    """`map_` taken apart.

    `(d0, d1) -> (d0 * 4 + d1 + 8, d1 floordiv 2)` is `(d0 * 4 + d1, d1
    floordiv 2)`, constants (8, 0), d0 a multiple [4, 0] (not d1: it is
    in a floordiv)."""
    rests, constants = [], []
    found: dict[int, list[int]] = {}
    elsewhere: set[int] = set()
    dims = map_.num_dims
    for number, result in enumerate(map_.results):
        rest, constant = _split_constant(result)
        rests.append(rest)
        constants.append(constant)
        for term in _terms(rest):
            operand, factor = _scaled_operand(term, dims)
            if operand is None:
                elsewhere.update(_operands(term, dims))
            else:
                found.setdefault(operand, [0] * len(map_.results))[number] += factor
    multiples = {p: factors for p, factors in found.items() if p not in elsewhere}
    rest_map = AffineMap(dims, map_.num_symbols, tuple(rests))
    return SplitMap(rest_map, tuple(constants), multiples)


def _runs(bounds: tuple[int, int] | None) -> bool:
    """Whether a loop of these bounds (`_constant_bounds`) runs (constant
    bounds, at least one iteration): the accesses in it are checked within
    their buffers (`NativeNest.bounds`)."""
    return bounds is not None and bounds[1] > bounds[0]


def _constant_bounds(properties: dict[str, Any]) -> tuple[int, int] | None:
    """The constant lower and upper bound of an `affine.for` (of its
    `properties`), if its bounds are constants."""
    lower = properties["lowerBoundMap"].data.results
    upper = properties["upperBoundMap"].data.results
    if (
        len(lower) == len(upper) == 1
        and isinstance(lower[0], AffineConstantExpr)
        and isinstance(upper[0], AffineConstantExpr)
    ):
        return lower[0].value, upper[0].value
    return None


def _at_zero(memref: SSAValue, split: SplitMap) -> bool:
    """Whether an access of `memref` (its map `split`) indexes each axis of
    at most one element by a constant (0, checked within it: no stride of
    such an axis reaches the kernel)."""
    shape = memref.type.get_shape()  # type: ignore[attr-defined]
    results = split.rest.results
    return all(n > 1 or rest == ZERO for n, rest in zip(shape, results, strict=True))


def _start(
    loop: affine.ForOp,
    bounds: tuple[int, int] | None,
    read: dict[Operation, tuple[int, dict[int, list[int]]]],
) -> int | None:
    """Where `loop` starts when only the indices of the nest's affine
    accesses read its variable, each adding a multiple of it (`read`, by
    access: the position of its first index among its operands, and the
    multiples its map adds, `SplitMap.multiples`): then the start is in the
    constants of their indices (`Ix.const`, `LoopNest` making the variable
    `start + step * t`), not in the kernel, which counts `t`; `bounds` are
    its constant bounds (`_constant_bounds`)."""
    if loop.operands or bounds is None:
        return None
    for use in loop.body.block.args[0].uses:
        found = read.get(use.operation)
        if found is None or use.index - found[0] not in found[1]:
            return None
    return bounds[0]


def _moved(
    indices: tuple[SSAValue, ...], split: SplitMap, starts: dict[SSAValue, int]
) -> tuple[int, ...]:
    """The constants of an access's indices: its map's (`split`), and the
    multiples it adds of the loop variables (`indices`) from their loops'
    `starts`."""
    moved = [
        (factors, start)
        for position, factors in split.multiples.items()
        if (start := starts.get(indices[position]))
    ]
    if not moved:
        return split.constants
    constants = list(split.constants)
    for factors, start in moved:
        for result, factor in enumerate(factors):
            constants[result] += factor * start
    return tuple(constants)


def _terms(expr: AffineExpr) -> list[AffineExpr]:
    """What `expr` adds up, its additions opened."""
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind is AffineBinaryOpKind.Add:
        return _terms(expr.lhs) + _terms(expr.rhs)
    return [expr]


def _scaled_operand(term: AffineExpr, dims: int) -> tuple[int | None, int]:
    """The operand `term` is a multiple of, and the factor (None: not one)."""
    factor = 1
    if isinstance(term, AffineBinaryOpExpr) and term.kind is AffineBinaryOpKind.Mul:
        if isinstance(term.rhs, AffineConstantExpr):
            term, factor = term.lhs, term.rhs.value
        elif isinstance(term.lhs, AffineConstantExpr):
            term, factor = term.rhs, term.lhs.value
    if isinstance(term, AffineDimExpr):
        return term.position, factor
    if isinstance(term, AffineSymExpr):
        return dims + term.position, factor
    return None, 0


def _operands(expr: AffineExpr, dims: int) -> set[int]:
    """The operands (dimensions, then symbols) `expr` reads."""
    return {
        e.position if isinstance(e, AffineDimExpr) else dims + e.position
        for e in expr.dfs()
        if isinstance(e, AffineDimExpr | AffineSymExpr)
    }


def _split_constant(expr: AffineExpr) -> tuple[AffineExpr, int]:
    """`expr` as `rest + constant`: its constants reached from the top
    through additions alone taken out of `rest` (0 if nothing is left),
    and their sum (which the index `LoopNest` makes of `expr` has as its
    `Ix.const`: the rest is its terms).

    `d0 * 16 + d1 + 32` is `d0 * 16 + d1` and 32, `d0` is `d0` and 0, `4` is
    `0` and 4; `(d0 + 2) floordiv 4` is itself and 0."""
    if isinstance(expr, AffineConstantExpr):
        return ZERO, expr.value
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind is AffineBinaryOpKind.Add:
        lhs, a = _split_constant(expr.lhs)
        rhs, b = _split_constant(expr.rhs)
        if lhs == ZERO:
            return rhs, a + b
        if rhs == ZERO:
            return lhs, a + b
        if lhs is not expr.lhs or rhs is not expr.rhs:
            return AffineBinaryOpExpr(AffineBinaryOpKind.Add, lhs, rhs), a + b
    return expr, 0


def _shifts(accesses: list[Access], *, whole: bool) -> tuple[tuple[int, ...], ...]:
    """The constants of each access's map the key keeps: less those of the
    first access to its buffer (all of them with `whole`)."""
    first: dict[int, tuple[int, ...]] = {}
    shifts = []
    for position, constants in accesses:
        base = first.setdefault(position, constants)
        if whole:
            shifts.append(constants)
        else:
            shifts.append(tuple(c - b for c, b in zip(constants, base, strict=True)))
    return tuple(shifts)


def _facts(
    values: list[SSAValue],
    root: affine.ForOp,
    env: CodeEnv,
    *,
    gathers: bool,
    whole: bool,
) -> Hashable:
    """What the native emitter asks about the nest's outside `values`
    (None if one is computed outside): a constant global's values only
    for a nest that `gathers` (`memref.load`: the emitter reads no others,
    `NativeNest._constant_gathers`), a buffer's type as `_indexed` unless
    `whole`."""
    memo = NativeMemo.of(env)
    viewed = set(env.roots.values())
    buffers: dict[SSAValue, int] = {}
    memrefs = []
    facts = []
    for value in values:
        if value in env.constants:
            facts.append(("constant", value.type, _exact(env.constants[value])))
            continue
        if not isinstance(value.type, MemRefType):
            return None
        buffer = env.root(value)
        scalar = env.scalars.get(value)
        table = env.constant_arrays.get(buffer)
        if whole:
            seen = value.type
        elif (seen := memo.indexed.get(value)) is None:
            seen = memo.indexed[value] = _indexed(value.type)
        facts.append(
            (
                "buffer",
                seen,
                buffers.setdefault(buffer, len(buffers)),
                buffer in env.invariant,
                None if scalar is None else _exact(scalar),
                None if table is None or not gathers else _exact(table),
                only_used_by(value, root, env, viewed),
            )
        )
        memrefs.append(value)
    places = []
    for value in memrefs:
        if (place := memo.footprints.get(value)) is None:
            place = memo.footprints[value] = footprint(value, env.constants)
        places.append(place)
    overlaps = tuple(a.overlaps(b) for a in places for b in places)
    return tuple(facts), overlaps


def _indexed(memref_type: MemRefType) -> Hashable:
    """What the emitter reads of a buffer's type, when every access of the
    nest is checked within its buffer (`NativeNest.bounds`: the nest's
    loops all run) and indexes an axis of one element by a constant
    (`_at_zero`): its element type, and the strides of its axes of more
    than one element (`CNest._indexed_axes`: no other stride reaches the
    kernel); the sizes of those axes only in the bounds, checked again on
    replay. DenseNet's concatenations: `memref<1x6x56x56x16xf32>` and
    `memref<1x8x56x56x16xf32>` are one. A layout other than the default is
    kept whole."""
    shape = memref_type.get_shape()
    if not isinstance(memref_type.layout, NoneAttr) or any(n < 0 for n in shape):
        return memref_type
    axes = zip(shape, memref_type.get_strides(), strict=True)
    return (
        memref_type.element_type,
        memref_type.memory_space,
        tuple((None, s) if n > 1 else (n, None) for n, s in axes),
    )


def _exact(value: Any) -> Hashable:
    """A constant's type and bits (-0.0 and 0.0, NaNs of either sign apart)."""
    if isinstance(value, np.generic | np.ndarray):
        return value.dtype.str, np.asarray(value).tobytes()
    if isinstance(value, float):
        return "float", struct.pack("<d", value)
    return type(value).__name__, repr(value)
