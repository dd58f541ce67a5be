"""`select-storage-format`: choose storage formats from the op-information library.

GE's format selection plus FE's heavy-format spread, split into a **policy**
(`FormatPolicy`: which placements an op may take, best first, from
`ge_dialect/opinfo.py` and the target's C0) and a **mechanism**
(`BlockSelection`: heavy ops first, then the spread, then origin for the
rest).

1. Heavy ops (conv, matmul, pooling, batch norm) take their most preferred
   applicable combination, e.g. conv2d: x NC1HWC0, filter FRACTAL_Z.
2. Spread (option `spread`, default true): breadth-first from heavy ops,
   from ops already placed in an internal format (a previous run, a
   `ge.transdata`) and from `ge.data` with `is_heavy_op = true`. A consumer
   of an internal-format result takes the first combination that accepts
   that format on that operand (forward); a producer feeding an internal
   operand takes the first combination that writes it, if every use of that
   result reads the format (backward: a LayerNorm feeding the Q, K and V
   products, each in FRACTAL_NZ, runs in FRACTAL_NZ). Only non-heavy ops
   with op info and an internal combination are reached, so the spread never
   crosses an op that cannot take the format (softmax, reshape, gemm, ...).
3. Everything else runs in origin format.

A combination applies to an op only if every tensor fits: NC1HWC0 needs an
NCHW/NHWC origin (rank < 4 expands by the op info's reshape type, or for
broadcast ops by NumPy alignment: [C,1,1] is "CHW"), FRACTAL_Z a 4-D
NCHW/NHWC/HWCN origin, FRACTAL_NZ rank >= 2; the dtypes must be in the op
info; a broadcast op needs every non-scalar operand to span the result's C
(NC1HWC0) or last two dims (FRACTAL_NZ); a `channel_aligned` op (concat,
LRN) needs C % C0 == 0, and the op itself may refuse a placement
(`accepts_layouts`: a `ge.confusion_transpose` takes FRACTAL_NZ only where
whole fractals move; a pad or a reduction takes NC1HWC0 only when it leaves
C alone). A one-element operand of a broadcast op keeps its
layout and broadcasts by value (scalars never get a TransData); one-element
results are never internal.

**Representation.** The chosen result layouts become the result types (how
the producer writes the value). What each op needs of its operands is
recorded as `input_layouts` (see `passes/insert_transdata.py`) on the ops
where some operand differs, e.g. a conv fed by an origin-format input:

```mlir
%y = ge.conv2d %x, %w {data_format = "NCHW", input_layouts = [
       #ge.layout<NCHW, NC1HWC0>, #ge.layout<NCHW, FRACTAL_Z>]}
   : (tensor<1x3x8x8xf16, #ge.layout<NCHW>>, tensor<4x3x3x3xf16, #ge.layout<NCHW>>)
     -> tensor<1x4x6x6xf16, #ge.layout<NCHW, NC1HWC0>>
```

Graph inputs keep their layout (origin unless `refine-running-format` set a
user storage format) and the root `ge.netoutput` asks for origin layouts
(or the user's `storage_formats`), so the graph interface is preserved.
Subgraphs are selected on their own; their inputs and outputs mirror the
parent op's operands and results.

Option `target` (a target name from `ge_dialect/data/targets/`) sets the C0
the layouts use and is recorded on the module as `ge.target`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue, Use
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import (
    INTERNAL_FORMATS,
    Format,
    FormatError,
    expand_dims_to_full_rank,
    full_rank,
)
from ge_dialect.layout import (
    check_tensor_type,
    is_scalar,
    layout_attr,
    origin_layout,
    retyped,
    shape_of,
    stored_layout,
)
from ge_dialect.opinfo import OpInfo, TensorInfo, find_op_info
from ge_dialect.ops import (
    CONTROL_FLOW_OPS,
    TARGET_ATTRIBUTE,
    ConstOp,
    DataOp,
    GEOperation,
    GraphOp,
    NetOutputOp,
    TransDataOp,
    VariableOp,
    enclosing_target,
)
from ge_dialect.targets import c0_for, get_target
from passes.layout_requirements import (
    boundary_layouts,
    required_layouts,
    set_required_layouts,
)
from passes.options import check_target_option
from passes.refine_running_format import HEAVY_ATTR
from passes.transdata_report import describe, recording, refuse

STRUCTURAL_OPS = (
    DataOp,
    ConstOp,
    VariableOp,
    NetOutputOp,
    TransDataOp,
    GraphOp,
    *CONTROL_FLOW_OPS,
)
"""Ops whose layouts are given by the graph's structure, never chosen here."""

ORIGINS_FOR: dict[Format, tuple[Format, ...]] = {
    Format.NC1HWC0: (Format.NCHW, Format.NHWC),
    Format.FRACTAL_Z: (Format.NCHW, Format.NHWC, Format.HWCN),
    Format.NDC1HWC0: (Format.NCDHW, Format.NDHWC),
    Format.FRACTAL_Z_3D: (Format.NCDHW, Format.NDHWC, Format.DHWCN),
}
"""Origin formats each internal format can be derived from (NZ: any)."""


def is_internal(layout: LayoutAttr) -> bool:
    """Whether a layout stores the tensor in an internal (cube) format."""
    return layout.storage_format in INTERNAL_FORMATS


@dataclass(frozen=True)
class Placement:
    """One way to run an op: the layout each operand needs, each result gets."""

    operands: tuple[LayoutAttr, ...]
    results: tuple[LayoutAttr, ...]

    @property
    def is_internal(self) -> bool:
        """Whether any tensor of the op is in an internal format."""
        return any(is_internal(x) for x in (*self.operands, *self.results))


def current_placement(op: Operation) -> Placement:
    """How `op` runs now: its `input_layouts` (or operand types) and result types."""
    operands = required_layouts(op) or [layout_attr(v.type) for v in op.operands]
    return Placement(tuple(operands), tuple(layout_attr(r.type) for r in op.results))


def tensor_groups(op: Operation, kind: str) -> Iterator[tuple[str, Sequence[SSAValue]]]:
    """(IRDL name, values) of each operand or result group of `op`."""
    assert isinstance(op, IRDLOperation)
    definition = op.get_irdl_definition()
    for name, _ in definition.operands if kind == "operand" else definition.results:
        values = getattr(op, name)
        if values is None:
            yield name, ()
        elif isinstance(values, SSAValue):
            yield name, (values,)
        else:
            yield name, tuple(values)


@dataclass(frozen=True)
class FormatPolicy:
    """Which placements an op may take, best first (op info and target)."""

    target: str | None

    def placements(self, op: Operation, info: OpInfo) -> list[Placement]:
        """The applicable combinations of `info`, then the origin placement."""
        found: list[Placement] = []
        for index in range(info.num_combinations):
            placement = self._combination(op, info, index)
            if isinstance(placement, Placement) and placement not in found:
                found.append(placement)
        origin = self.origin_placement(op)
        if origin not in found:
            found.append(origin)
        return found

    @staticmethod
    def origin_placement(op: Operation) -> Placement:
        """Every tensor of `op` in its origin format."""
        return Placement(
            tuple(origin_layout(v.type) for v in op.operands),
            tuple(origin_layout(r.type) for r in op.results),
        )

    def refused_formats(self, op: Operation, info: OpInfo) -> dict[Format, str]:
        """Why `op` cannot run in each internal format no placement of it uses."""
        listed: dict[Format, list[str]] = {}
        usable: set[Format] = set()
        for index in range(info.num_combinations):
            formats = {
                f
                for t in (*info.inputs, *info.outputs)
                if index < len(t.formats)
                for f in (t.formats[index],)
                if f in INTERNAL_FORMATS
            }
            placement = self._combination(op, info, index)
            for storage in formats:
                if isinstance(placement, Placement):
                    usable.add(storage)
                else:
                    listed.setdefault(storage, []).append(placement)
        refused = {
            storage: f"its op information lists no {storage.name} combination"
            for storage in INTERNAL_FORMATS
            if storage not in listed and storage not in usable
        }
        for storage, reasons in listed.items():
            if storage not in usable:
                refused[storage] = "; ".join(dict.fromkeys(reasons))
        return refused

    def _combination(self, op: Operation, info: OpInfo, index: int) -> Placement | str:
        """Combination `index` of `info` for `op`, or why it does not apply."""
        operands: list[LayoutAttr] = []
        for name, values in tensor_groups(op, "operand"):
            for value in values:
                layout = self._operand_layout(op, info, info.input(name), index, value)
                if isinstance(layout, str):
                    return f"operand {name}: {layout}"
                operands.append(layout)
        results: list[LayoutAttr] = []
        for name, values in tensor_groups(op, "result"):
            for value in values:
                layout = self._layout(info, info.output(name), index, value)
                if isinstance(layout, str):
                    return f"result {name}: {layout}"
                results.append(layout)
        placement = Placement(tuple(operands), tuple(results))
        if placement.is_internal and (misfit := self._misfit(op, info, placement)):
            return misfit
        return placement

    def _operand_layout(
        self,
        op: Operation,
        info: OpInfo,
        tensor_info: TensorInfo | None,
        index: int,
        value: SSAValue,
    ) -> LayoutAttr | str:
        """Like `_layout`; a broadcast op's one-element operand keeps its layout,
        so does an operand that broadcasts over a FRACTAL_NZ result's matrix
        (a bias `[N]`, a column `[M, 1]`: the lowering reads it through its
        own layout), and an ND constant operand adopts the result's origin
        format."""
        wanted = tensor_info.formats[index] if tensor_info else None
        if wanted not in INTERNAL_FORMATS or not info.broadcast:
            return self._layout(info, tensor_info, index, value)
        if is_scalar(value.type):
            return layout_attr(value.type)
        if wanted is Format.FRACTAL_NZ and not self._spans_matrix(op, value):
            return layout_attr(value.type)
        origin = layout_attr(value.type).origin_format
        if origin is Format.ND and isinstance(value.owner, ConstOp):
            origin = layout_attr(op.results[0].type).origin_format
        return self._layout(info, tensor_info, index, value, origin)

    def _layout(
        self,
        info: OpInfo,
        tensor_info: TensorInfo | None,
        index: int,
        value: SSAValue,
        origin: Format | None = None,
    ) -> LayoutAttr | str:
        """The layout `value` has in combination `index`, or why it cannot.

        `origin` overrides the value's origin format (an ND constant adopts
        its broadcast consumer's).
        """
        tensor = value.type
        assert isinstance(tensor, TensorType)
        wanted = tensor_info.formats[index] if tensor_info else None
        if wanted is None:
            return origin_layout(tensor)
        if is_scalar(tensor):
            return f"a scalar is never {wanted.name}"
        if wanted not in INTERNAL_FORMATS:
            return f"{wanted.name} is not an internal format"
        origin = origin or layout_attr(tensor).origin_format
        rank = tensor.get_num_dims()
        if wanted is Format.FRACTAL_NZ:
            if rank < 2:
                return f"rank {rank} is below FRACTAL_NZ's 2"
            return self._checked(tensor, stored_layout(origin, wanted))
        if origin not in ORIGINS_FOR.get(wanted, ()):
            return f"origin format {origin.name} has no {wanted.name} layout"
        reshape_type = None
        if rank < (full_rank(origin) or 0):
            reshape_type = tensor_info.reshape_type if tensor_info else None
            if info.broadcast:
                reshape_type = origin.value[len(origin.value) - rank :]
            if reshape_type is None:
                return f"rank {rank} below {origin.name} and no reshape type"
        return self._checked(tensor, stored_layout(origin, wanted, reshape_type))

    def _checked(self, tensor: TensorType, layout: LayoutAttr) -> LayoutAttr | str:
        try:
            check_tensor_type(retyped(tensor, layout))
        except (VerifyException, FormatError) as error:
            return f"no {layout.storage_format.name} layout: {error}"
        return layout

    def _misfit(self, op: Operation, info: OpInfo, placement: Placement) -> str | None:
        """Which dtype, broadcast or channel-alignment condition of a placement
        fails (None: it fits)."""
        tensors = [v.type for v in (*op.operands, *op.results)]
        layouts = (*placement.operands, *placement.results)
        dtypes = {dtype_name(t.element_type) for t in tensors}
        if missing := sorted(d for d in dtypes if not info.supports_dtype(d)):
            return f"dtype {', '.join(missing)} is not in its op information"
        if info.broadcast and not all(
            self._spans_result(op, t, layout)
            for t, layout in zip(tensors, layouts, strict=True)
            if is_internal(layout)
        ):
            return "a broadcast operand does not span the result's blocked axes"
        if info.channel_aligned and not all(
            self._channel_aligned(t, layout)
            for t, layout in zip(tensors, layouts, strict=True)
            if layout.storage_format is Format.NC1HWC0
        ):
            return "C is not a multiple of C0 (the op needs whole channel blocks)"
        if isinstance(op, GEOperation) and not op.accepts_layouts(
            placement.operands, placement.results, self.target
        ):
            return f"{op.name} refuses the layouts (accepts_layouts)"
        return None

    @staticmethod
    def _spans_matrix(op: Operation, value: SSAValue) -> bool:
        """Whether `value` has the last two dims of `op`'s result."""
        full = shape_of(op.results[0].type)  # type: ignore[arg-type]
        shape = shape_of(value.type)  # type: ignore[arg-type]
        return len(shape) >= 2 and shape[-2:] == full[-2:]

    @staticmethod
    def _spans_result(op: Operation, tensor: TensorType, layout: LayoutAttr) -> bool:
        result = op.results[0].type
        assert isinstance(result, TensorType)
        shape, full = shape_of(tensor), shape_of(result)
        if layout.storage_format is Format.FRACTAL_NZ:
            return shape[-2:] == full[-2:]
        origin = layout.origin_format
        expanded = expand_dims_to_full_rank(
            shape, origin, layout.storage_format, layout.explicit_reshape_type
        )
        channel = origin.value.index("C")
        return len(full) == len(expanded) and expanded[channel] == full[channel]

    def _channel_aligned(self, tensor: TensorType, layout: LayoutAttr) -> bool:
        shape = expand_dims_to_full_rank(
            shape_of(tensor),
            layout.origin_format,
            layout.storage_format,
            layout.explicit_reshape_type,
        )
        channels = shape[layout.origin_format.value.index("C")]
        c0 = c0_for(dtype_name(tensor.element_type), self.target)
        return channels > 0 and channels % c0 == 0


@dataclass
class BlockSelection:
    """Chooses a placement for every op of one (sub)graph body; records the
    layouts each op refused (`passes/transdata_report.py`)."""

    pass_name: ClassVar[str] = "select-storage-format"
    policy: FormatPolicy
    spread: bool
    chosen: dict[Operation, Placement] = field(default_factory=dict)
    options: dict[Operation, list[Placement]] = field(default_factory=dict)

    def run(self, block: Block) -> None:
        """Decide every op of `block`, then retype results and record needs."""
        for op in block.ops:
            self._start(op)
        if self.spread:
            self._spread(block)
        for op, options in self.options.items():
            self.chosen.setdefault(op, options[-1])
        self._record_unreached()
        self._apply(block)

    def _start(self, op: Operation) -> None:
        info = None if isinstance(op, STRUCTURAL_OPS) else find_op_info(op)
        if info is None:
            self._record_fixed(op)
            return
        if any(is_internal(layout_attr(r.type)) for r in op.results):
            self.chosen[op] = current_placement(op)
            return
        options = self.policy.placements(op, info)
        if recording():
            for storage, why in self.policy.refused_formats(op, info).items():
                refuse(op, storage, self.pass_name, why)
        if info.heavy:
            self.chosen[op] = options[0]
            refuse(
                op, None, self.pass_name, "a heavy op runs in its preferred combination"
            )
        elif len(options) > 1:
            self.options[op] = options
        else:
            self.chosen[op] = options[0]

    def _record_fixed(self, op: Operation) -> None:
        """Record why an op without a choice keeps its layouts."""
        if not recording() or isinstance(op, TransDataOp):
            return
        if isinstance(op, (DataOp, NetOutputOp)):
            why = "the graph interface keeps its layout"
        elif isinstance(op, STRUCTURAL_OPS):
            return
        else:
            why = "it has no op information"
        for storage in INTERNAL_FORMATS:
            refuse(op, storage, self.pass_name, why)

    def _record_unreached(self) -> None:
        """Record the ops left in origin layouts although a placement applied."""
        if not recording():
            return
        for op, options in self.options.items():
            if self.chosen[op] is not options[-1]:
                continue
            for placement in options[:-1]:
                for layout in (*placement.operands, *placement.results):
                    if is_internal(layout):
                        refuse(
                            op,
                            layout.storage_format,
                            self.pass_name,
                            "it could run so, but the spread did not reach it "
                            "(no neighbour moved it there)",
                        )

    def _sources(self, block: Block) -> Iterator[Operation]:
        for op in block.ops:
            placement = self.chosen.get(op)
            heavy_data = isinstance(op, DataOp) and op.attributes.get(HEAVY_ATTR)
            if (placement is not None and placement.is_internal) or (
                isinstance(op, TransDataOp) or (heavy_data and heavy_data.value.data)
            ):
                yield op

    def _spread(self, block: Block) -> None:
        queue = deque(self._sources(block))
        while queue:
            op = queue.popleft()
            for result in op.results:
                have = self._result_layout(op, result.index)
                if is_internal(have):
                    queue.extend(self._spread_forward(result, have))
            placement = self.chosen.get(op)
            if placement is None:
                continue
            for operand, need in zip(op.operands, placement.operands, strict=True):
                if is_internal(need):
                    queue.extend(self._spread_backward(operand, need))

    def _result_layout(self, op: Operation, index: int) -> LayoutAttr:
        placement = self.chosen.get(op)
        if placement is None:
            return layout_attr(op.results[index].type)
        return placement.results[index]

    def _spread_forward(self, value: SSAValue, have: LayoutAttr) -> Iterator[Operation]:
        for use in list(value.uses):
            user = use.operation
            if user in self.chosen or user not in self.options:
                continue
            for placement in self.options[user]:
                need = placement.operands[use.index]
                if placement.is_internal and need.storage_format == have.storage_format:
                    self.chosen[user] = placement
                    self._record_spread(user, have, value.owner)
                    yield user
                    break

    def _spread_backward(
        self, value: SSAValue, need: LayoutAttr
    ) -> Iterator[Operation]:
        producer = value.owner
        if (
            not isinstance(producer, Operation)
            or producer in self.chosen
            or producer not in self.options
        ):
            return
        readers = [self._operand_layout(use) for use in value.uses]
        if not all(
            r is not None and r.storage_format == need.storage_format for r in readers
        ):
            users = len({use.operation for use in value.uses})
            refuse(
                producer,
                need.storage_format,
                self.pass_name,
                f"its result has {users} users; the spread moves a producer "
                f"only when every user reads {need.storage_format.name}",
            )
            return
        index = value.index  # type: ignore[attr-defined]
        for placement in self.options[producer]:
            if placement.results[index].storage_format == need.storage_format:
                self.chosen[producer] = placement
                self._record_spread(producer, need, next(iter(value.uses)).operation)
                yield producer
                return

    def _operand_layout(self, use: Use) -> LayoutAttr | None:
        """The layout the user of `use` reads it in (None: not decided yet)."""
        placement = self.chosen.get(use.operation)
        return None if placement is None else placement.operands[use.index]

    def _record_spread(
        self, op: Operation, layout: LayoutAttr, neighbour: Operation | SSAValue
    ) -> None:
        """Record that the spread moved `op` out of its origin layout."""
        if recording():
            source = describe(neighbour) if isinstance(neighbour, Operation) else "?"
            why = f"the spread put it in {layout.storage_format.name} next to {source}"
            refuse(op, None, self.pass_name, why)

    def _apply(self, block: Block) -> None:
        for op, placement in self.chosen.items():
            for result, layout in zip(op.results, placement.results, strict=True):
                if layout_attr(result.type) != layout:
                    Rewriter.replace_value_with_new_type(
                        result, retyped(result.type, layout)
                    )
        for op in block.ops:
            if not op.operands:
                continue
            placement = self.chosen.get(op)
            needs = placement.operands if placement else boundary_layouts(op)
            set_required_layouts(op, needs)


def graph_blocks(module: ModuleOp) -> Iterator[Block]:
    """The body of every graph and subgraph in `module`."""
    for op in module.walk():
        if isinstance(op, (GraphOp, *CONTROL_FLOW_OPS)):
            for region in op.regions:
                yield from region.blocks


@dataclass(frozen=True)
class SelectStorageFormatPass(ModulePass):
    """Choose storage formats: heavy ops first, then spread to their neighbours."""

    name = "select-storage-format"

    spread: bool = True
    """Spread heavy formats to ops that can take them (GE's heavy-format spread)."""

    target: str | None = None
    """Target (SoC) whose C0 the layouts use; recorded as module attribute ge.target."""

    def __post_init__(self) -> None:
        check_target_option(self, "target", self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target is not None:
            name = get_target(self.target).name
            op.attributes[TARGET_ATTRIBUTE] = StringAttr(name)
        policy = FormatPolicy(enclosing_target(op))
        for block in list(graph_blocks(op)):
            BlockSelection(policy, self.spread).run(block)
