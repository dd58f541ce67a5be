"""Native kernels written once per nest structure: a repeated nest replays.

A network repeats its units: ShuffleNet's 1019 top-level nests are 439
structures and 243 distinct kernels. `NativeMemo` writes a nest the first
time its key (`nest_key`) is seen, then answers the same key by replaying
what that emission did: the same requests of the function's code in the
same order (`NativeNest.tape`: new names, values' names, namespace
bindings), so the generated Python and C are the text a new emission would
write, names included, at a fraction of the cost.

The key is the emitter's whole input in a canonical form: the nest's ops
(names, properties, attributes, result and block argument types, where each
sits, its operands numbered: the nest's own values by definition, the
others by first use), and what the emitter asks about each value from
outside: its type, its constant (bit for bit) or constant global's values
(a kernel bakes a gather's index table in: `NativeNest._constant_gathers`), which
other outside values view the same buffer, whether it is a weight, whether
no op outside the nest uses it, and which of them may share a byte
(`relayouts.footprint`). A nest reading a value computed outside (not a
constant, not a buffer) is written anew each time.

    affine.for %i = 0 to 16 { %x = affine.load %a[%i + 4] ... }   (view v12)
    affine.for %i = 0 to 16 { %x = affine.load %a[%i + 4] ... }   (view v40)

are one key when `v12` and `v40` have one type and the same relations to the
nests' other buffers: the second nest's call is the first one's lines with
`v40` for `v12` and its own pointer names.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import affine
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, SSAValue

from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.emit.native import NativeNest, Request, only_used_by
from ge_runtime.jit.emit.relayouts import footprint
from ge_runtime.jit.emit.scalar import CodeEnv

NAME = re.compile(r"\b[A-Za-z_]\w*\b")
"""An identifier of the generated Python."""


Replayed = tuple[str, Any]
"""A request of `NativeNest.tape` without its name, a value as its position
among the nest's outside values."""


@dataclass(frozen=True)
class Emission:
    """What writing a nest did, in terms of its outside values' positions."""

    tape: tuple[Replayed, ...]
    """The emission's requests, in order."""
    lines: tuple[str, ...]
    """The call's lines without their indentation, each name a request gave
    a `str.format` field (the request's position in `tape`)."""
    kernel: tuple[str, tuple[int, ...]] | None
    """The kernel's name and the arguments it writes (`CNest.kernel`)."""
    unsupported: str | None
    """Why the nest is not a kernel (then no lines)."""


@dataclass
class NativeMemo:
    """The nests one function's native emitter wrote, by key."""

    emissions: dict[Hashable, Emission]

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
        key, outside = keyed
        try:
            known = self.emissions.get(key)
        except TypeError:  # an attribute that does not hash
            return make(root, env).compile(indent)
        if known is not None:
            return _replay(known, outside, env, indent)
        nest: NativeNest | None = None
        try:
            nest = make(root, env)
            lines = nest.compile(indent)
        except Unsupported as reason:
            tape = nest.tape if nest is not None else []
            self.emissions[key] = Emission(
                _positions(tape, outside), (), None, str(reason)
            )
            raise
        kernel = getattr(nest, "kernel", None)
        self.emissions[key] = Emission(
            _positions(nest.tape, outside),
            _templates(nest.tape, lines, indent),
            kernel,
            None,
        )
        return lines


def _replay(
    known: Emission, outside: list[SSAValue], env: CodeEnv, indent: str
) -> list[str]:
    """The requests of `known` made again for the nest of `outside` values,
    and its lines with the names they give."""
    names: list[str] = []
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
    return [indent + line.format(*names) for line in known.lines]


def _positions(tape: list[Request], outside: list[SSAValue]) -> tuple[Replayed, ...]:
    """`tape` without its names, each value as its position in `outside`."""
    position = {value: i for i, value in enumerate(outside)}
    return tuple(
        (request, position[argument] if request == "name" else argument)
        for request, argument, _ in tape
    )


def _templates(tape: list[Request], lines: list[str], indent: str) -> tuple[str, ...]:
    """`lines` without `indent`, each name a request of `tape` gave as the
    field of that request's position."""
    fields: dict[str, int] = {}
    for number, (_, _, name) in enumerate(tape):
        if name:
            fields.setdefault(name, number)

    def template(line: str) -> str:
        assert line.startswith(indent)
        text = line[len(indent) :].replace("{", "{{").replace("}", "}}")
        return NAME.sub(
            lambda m: f"{{{fields[m[0]]}}}" if m[0] in fields else m[0], text
        )

    return tuple(map(template, lines))


def nest_key(
    root: affine.ForOp, env: CodeEnv
) -> tuple[Hashable, list[SSAValue]] | None:
    """The key of nest `root` and its outside values (by first use), or
    None when it reads a value computed outside (neither a constant nor a
    buffer)."""
    inside: dict[SSAValue, int] = {}
    outside: dict[SSAValue, int] = {}
    blocks: dict[Block | None, int] = {}
    ops = []
    for op in root.walk():
        operands = []
        for value in op.operands:
            local = inside.get(value)
            if local is None:
                local = -1 - outside.setdefault(value, len(outside))
            operands.append(local)
        arguments = []
        for region in op.regions:
            for block in region.blocks:
                blocks[block] = len(blocks)
                for argument in block.args:
                    inside[argument] = len(inside)
                    arguments.append(argument.type)
        for result in op.results:
            inside[result] = len(inside)
        ops.append(
            (
                op.name,
                blocks.get(op.parent_block(), -1),
                tuple(sorted(op.properties.items())),
                tuple(sorted(op.attributes.items())),
                tuple(operands),
                tuple(result.type for result in op.results),
                tuple(arguments),
            )
        )
    values = list(outside)
    facts = _facts(values, root, env)
    return None if facts is None else ((tuple(ops), facts), values)


def _facts(values: list[SSAValue], root: affine.ForOp, env: CodeEnv) -> Hashable:
    """What the native emitter asks about the nest's outside `values`
    (None if one is computed outside)."""
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
        facts.append(
            (
                "buffer",
                value.type,
                buffers.setdefault(buffer, len(buffers)),
                buffer in env.invariant,
                None if scalar is None else _exact(scalar),
                None if table is None else _exact(table),
                only_used_by(value, root, env, viewed),
            )
        )
        memrefs.append(value)
    places = [footprint(value, env.constants) for value in memrefs]
    overlaps = tuple(a.overlaps(b) for a in places for b in places)
    return tuple(facts), overlaps


def _exact(value: Any) -> Hashable:
    """A constant's type and bits (-0.0 and 0.0, NaNs of either sign apart)."""
    if isinstance(value, np.generic | np.ndarray):
        return value.dtype.str, np.asarray(value).tobytes()
    if isinstance(value, float):
        return "float", struct.pack("<d", value)
    return type(value).__name__, repr(value)
