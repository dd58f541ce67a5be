"""What an op lowering sees: buffers of its operands, new buffers, temporaries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, StringAttr, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue

from ge_dialect.constants import dense_from_numpy
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import element_type
from ge_dialect.locations import error_at
from ge_dialect.ops import attribute_value
from ge_dialect.value_layout import value_layout
from passes.lowering.emitter import Buffer, Emitter
from passes.lowering.index import Ix
from passes.lowering.layouts import Layout, plain_layout, tensor_layout


@dataclass
class LoweringContext:
    """State shared by the lowerings of one graph's ops."""

    emitter: Emitter
    target: str | None = None
    buffers: dict[SSAValue, Buffer] = field(default_factory=dict)
    temporaries: list[Buffer] = field(default_factory=list)
    op: Operation | None = None
    arena: SSAValue | None = None
    """The i8 memref of the graph's memory plan (`plan-memory`), if any."""
    arena_offsets: dict[SSAValue, int] = field(default_factory=dict)
    """Planned values: byte offset of their buffer in `arena`."""
    tables: list[memref.GlobalOp] = field(default_factory=list)
    """Constant `memref.global`s the lowerings made (`table`), for the module."""
    table_prefix: str = "table"
    """How their names start (the graph's name)."""

    def table(self, array: np.ndarray) -> Buffer:
        """A constant row-major buffer holding `array` (a constant
        `memref.global` of the module, e.g. precomputed indices and weights)."""
        element = element_type(array.dtype.name)
        memref_type = MemRefType(element, array.shape)
        name = f"{self.table_prefix}_table{len(self.tables)}"
        value = dense_from_numpy(array, TensorType(element, array.shape))
        self.tables.append(
            memref.GlobalOp.get(
                StringAttr(name), memref_type, value, constant=UnitAttr()
            )
        )
        get = self.emitter.add(memref.GetGlobalOp(name, memref_type))
        return Buffer(get.results[0], plain_layout(array.shape, element))

    def error(self, message: str) -> GEError:
        """A diagnostic at the op being lowered."""
        assert self.op is not None
        return error_at(self.op, message)

    def layout(self, value: SSAValue) -> Layout:
        """The layout of a tensor value.

        FRACTAL_Z groups follow the reference evaluator (`value_layout`): the
        `groups` of a `ge.transdata` producing or reading the value, else 1.
        """
        tensor = value.type
        assert isinstance(tensor, TensorType)
        groups = value_layout(value, self.target).groups
        try:
            return tensor_layout(tensor, self.target, groups)
        except GEError as error:
            raise self.error(str(error)) from None

    def buffer(self, value: SSAValue) -> Buffer:
        """The buffer holding an already lowered value."""
        return self.buffers[value]

    def operands(self) -> list[Buffer]:
        """Buffers of the current op's operands, in order."""
        assert self.op is not None
        return [self.buffers[v] for v in self.op.operands]

    def result(self, index: int = 0) -> Buffer:
        """A new buffer for result `index` of the current op (a view at its
        planned offset in the arena, when the graph has a memory plan)."""
        assert self.op is not None
        value = self.op.results[index]
        offset = self.arena_offsets.get(value)
        arena = None if self.arena is None or offset is None else (self.arena, offset)
        buffer = self.emitter.alloc(self.layout(value), arena=arena)
        self.buffers[value] = buffer
        return buffer

    def alias(self, result: SSAValue, buffer: Buffer) -> None:
        """Let `result` share `buffer` (ops that do not move data)."""
        self.buffers[result] = buffer

    def temporary(
        self, layout: Layout, fill: float | None = None, *, zero_padding: bool = True
    ) -> Buffer:
        """A scratch buffer (filled with `fill` if given, see `Emitter.alloc`),
        freed after the op."""
        buffer = self.emitter.alloc(layout, fill, zero_padding=zero_padding)
        self.temporaries.append(buffer)
        return buffer

    def free_temporaries(self) -> None:
        """Deallocate the current op's scratch buffers."""
        for buffer in self.temporaries:
            self.emitter.dealloc(buffer)
        self.temporaries.clear()

    def attr(self, name: str) -> object:
        """Attribute `name` of the current op as a Python value (with default)."""
        assert self.op is not None
        return attribute_value(self.op, name)

    @staticmethod
    def shape(value: SSAValue) -> tuple[int, ...]:
        """The origin shape of a tensor value."""
        tensor = value.type
        assert isinstance(tensor, TensorType)
        return tuple(tensor.get_shape())


def broadcast_index(index: Sequence[Ix], in_shape: Sequence[int]) -> list[Ix]:
    """NumPy broadcasting: the operand index of output `index` (size-1 dims: 0)."""
    offset = len(index) - len(in_shape)
    return [
        Ix.of(0) if size == 1 else index[offset + i] for i, size in enumerate(in_shape)
    ]
