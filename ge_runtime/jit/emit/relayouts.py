"""Relayouts the generated code already holds: a merge not made twice.

A nest whose accesses split a dim (`c = c1 * C0 + c0` read as channel
groups that do not align with C0) reads and writes its buffer through a
copy with the split dims merged (`merge_dims`, see `numpy_nest`). The
next nest merging the same buffer the same way finds the same bytes if
nothing wrote the buffer in between (a nest that wrote it through the merged
copy wrote that copy back, so both still agree). This cache, consulted at
compile time, remembers which merged copies are still valid at the current
point of the top-level code:

    m259 = merge_dims(v249, (0, 2, 3, 1, 4), (1, 56, 56, 112), _workspace[12])
    ...                                          # stores into m259
    copy_into(v249.transpose((0, 2, 3, 1, 4)), m259.reshape(...))
    ...                                          # nothing writes v249's bytes
    m276 = m259                                  # was: a second merge_dims

A copy that is reused later is moved out of the nest's scratch into a buffer
of its own (scratch is overwritten by the next nest). Validity is decided on
bytes, not names: a write to any buffer whose bytes may overlap the merged
one's source (views of one arena at constant offsets are compared by range;
anything else of the same allocation overlaps) forgets the copy, and so does
any top-level op other than a vectorised nest or a buffer definition
(control flow, calls: everything is forgotten).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue

from ge_runtime.jit.ops import numpy_dtype

ARGUMENTS = "arguments"
"""The base of every function argument: a caller may pass one array twice."""


@dataclass(frozen=True)
class Footprint:
    """The bytes a buffer occupies: of which allocation, and where (None:
    anywhere in it)."""

    base: Any
    start: int | None = None
    end: int | None = None

    def overlaps(self, other: Footprint) -> bool:
        """Whether the two may share a byte."""
        if self.base != other.base:
            return False
        if None in (self.start, self.end, other.start, other.end):
            return True
        return self.start < other.end and other.start < self.end  # type: ignore[operator]


def footprint(value: SSAValue, constants: dict[SSAValue, Any]) -> Footprint:
    """Where the buffer `value` lives: a `memref.view` at a constant byte
    shift is a range of its source's allocation, any other view all of it;
    an argument may alias any other argument; an allocation is its own."""
    owner = value.owner
    if isinstance(owner, memref.ViewOp):
        source = footprint(owner.source, constants)
        shift = constants.get(owner.byte_shift)
        memref_type = value.type
        if (
            shift is None
            or not isinstance(memref_type, MemRefType)
            or source.start is not None
        ):
            return Footprint(source.base)
        size = int(np.prod(memref_type.get_shape())) * numpy_dtype(memref_type).itemsize
        return Footprint(source.base, int(shift), int(shift) + size)
    if isinstance(value, BlockArgument):
        return Footprint(ARGUMENTS)
    if isinstance(owner, Operation):
        for operand in owner.operands:  # another view (subview, reshape, cast)
            if isinstance(operand.type, MemRefType):
                return Footprint(footprint(operand, constants).base)
    return Footprint(value)


def stored_buffers(op: Operation) -> list[SSAValue] | None:
    """The buffers `op` writes (its stores, at any depth); None when it may
    write anything it is given (a call, an op of unknown effect)."""
    written: list[SSAValue] = []
    for inner in op.walk():
        if isinstance(inner, affine.StoreOp | memref.StoreOp):
            written.append(inner.memref)
        elif isinstance(inner, memref.CopyOp):
            written.append(inner.destination)
        elif not isinstance(
            inner, affine.LoadOp | memref.LoadOp | memref.DeallocOp | memref.ViewOp
        ) and any(isinstance(v.type, MemRefType) for v in inner.operands):
            return None
    return written


Key = tuple[SSAValue, tuple[int, ...], tuple[int, ...]]
"""A merge: the buffer, the permutation of its dims, the merged shape."""


@dataclass
class Merge:
    """A merged copy a nest made: its name and workspace slot (None: not in
    the scratch), and whether the nest wrote the buffer other than through it."""

    key: Key
    name: str
    slot: int | None
    stale: bool = False


@dataclass
class RelayoutCache:
    """The merged copies valid at the current point of the top-level code."""

    enabled: bool = True
    valid: dict[Key, Merge] = field(default_factory=dict)
    pending: list[Merge] = field(default_factory=list)
    """What the nest being compiled made (kept if it compiles)."""
    reused: int = 0

    def lookup(self, key: Key) -> Merge | None:
        """The valid copy of `key`, if any."""
        return self.valid.get(key) if self.enabled else None

    def commit(self, op: Operation, constants: dict[SSAValue, Any]) -> None:
        """After the top-level `op`: forget what it may have overwritten,
        then remember the copies it made (`pending`) that stay valid."""
        if not self.valid and not self.pending:
            return  # nothing to forget, nothing to keep (C kernels: no copies)
        written = stored_buffers(op) if self.enabled else None
        if written is None:
            self.valid.clear()
        else:
            self.forget(written, constants)
            for merge in self.pending:
                if not merge.stale:
                    self.valid[merge.key] = merge
        self.pending = []

    def forget(
        self, written: Iterable[SSAValue], constants: dict[SSAValue, Any]
    ) -> None:
        """Drop every copy whose buffer may share a byte with a written one."""
        touched = [footprint(v, constants) for v in written]
        for key in list(self.valid):
            where = footprint(key[0], constants)
            if any(where.overlaps(t) for t in touched):
                del self.valid[key]
