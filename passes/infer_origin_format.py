"""`infer-origin-format`: GE's FormatRefiner (origin-format inference).

Anchor diffusion (docs/research/ge_behaviour.md §1). Ops that carry format meaning
are anchors; from each anchor, in IR order, a breadth-first queue infers
backward (into producers) and forward (into consumers). A value receives a
format only while it is ND (first writer wins); each op reached runs its
infer rule (`ge_dialect/format_rules.py`, the policy; this file is the
mechanism), which fills its other ND tensors:

```mlir
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %r = ge.relu %x : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %r, %w {data_format = "NHWC"} : (...) -> tensor<1x6x6x4xf32>
  ge.netoutput %y : tensor<1x6x6x4xf32>
}
// after: %x, %r, %y : tensor<..., #ge.layout<NHWC>>, %w : #ge.layout<NCHW>
```

Propagation stops at ops with the `_format_locked` unit attribute, scalars,
`ge.permute`/`ge.expand_dims`/`ge.squeeze` on tensors of rank < 4, ops whose
rule writes nothing, and the root `ge.netoutput` (its operands are reached,
nothing goes further). Conflicts never raise: a tensor keeps the first format
that reached it. Subgraphs: a `ge.if`/`ge.case`/`ge.partitioned_call`/`ge.fused`
operand i, every subgraph `ge.data` with parent_index i form one reflection
group; parent result j with every subgraph `ge.netoutput` operand j another;
`ge.while` ties operand i, result i, cond/body data i and body output i (plus
GE's crossed-loop-variable rule); same-named `ge.variable`s form a group when
the graph has subgraphs. Reaching a group overwrites every member, as in GE.
Finally, with option `data-format`, `ge.data` values still ND of rank >= 4
take it and propagate (ND or an internal format do nothing).

**Two ends per edge.** GE keeps a descriptor at each end of an edge. Here a
result's descriptor is its value's type (the producer's end) and each
operand's descriptor is kept by the driver (the consumer's end, ND until a
walk or the op's own rule writes it), so walks cross edges exactly as GE's
do: a rule reads its op's own input descriptors, an anchor's refresh writes
only its own, and reflection writes a parent operand's or subgraph output's
descriptor, never the value feeding it. Where the two ends end up with
different formats, the consumer reads a relabelling `ge.identity` typed with
its own descriptor (no data moves), so an op's types always agree with its
own format and a user-declared layout is never rewritten:

```mlir
%c1 = ge.conv2d ... {data_format = "NCHW"} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
%c2 = ge.conv2d ... {data_format = "NHWC"} -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
%s = ge.add %c2, %c1   // the NCHW conv's walk reaches the add first
// after:
%0 = ge.identity %c2 : tensor<..., #ge.layout<NHWC>> -> tensor<..., #ge.layout<NCHW>>
%s = ge.add %0, %c1 : (..NCHW.., ..NCHW..) -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
```

An operand whose format the op reads (a conv filter) is never relabelled.
This and the other places where the IR differs from GE (locked ops, rank
barriers, ties through `ge.transdata`, one run instead of two) are listed,
with their reasons and tests, in docs/GE_DEVIATIONS.md.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, UnitAttr, f32
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from ge_dialect.adapters import operands_whose_format_is_read
from ge_dialect.attributes import LayoutAttr
from ge_dialect.diagnostics import GEError
from ge_dialect.format_rules import LOCK_ATTR, FormatRule, infer_rule, refresh_rule
from ge_dialect.formats import (
    ORIGIN_FORMATS,
    Format,
    parse_format,
)
from ge_dialect.layout import check_rank_fits, layout_of
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    DataOp,
    GEOperation,
    GraphOp,
    IdentityOp,
    NetOutputOp,
    VariableOp,
    WhileOp,
)
from ge_dialect.traits import RankBarrier, SameOriginFormat
from passes.options import check_data_format_option

Cell = tuple[Operation, bool, int]
"""One end of an edge: (op, is_result, index) — GE's tensor descriptor."""


@dataclass(frozen=True)
class InferOriginFormatPass(ModulePass):
    """Infer origin formats by anchor diffusion (GE's FormatRefiner)."""

    name = "infer-origin-format"

    data_format: str = "ND"
    """Format for `ge.data` of rank >= 4 that stay ND (GE's input format): ND
    (none) or an origin format."""

    def __post_init__(self) -> None:
        check_data_format_option(self, "data_format", self.data_format)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fmt = parse_format(self.data_format)
        fallback = None if fmt is Format.ND else fmt
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                FormatRefiner(graph).run(fallback)


# ---------------------------------------------------------------------------
# Reflection groups (GE's RefRelations)
# ---------------------------------------------------------------------------


def reflection_groups(graph: GraphOp) -> dict[Cell, list[Cell]]:
    """Every cell that must share its format with others -> its whole group.

    A cell in several groups keeps the first (GE inserts with emplace).
    """
    groups: list[list[Cell]] = []
    variables: dict[str, list[Cell]] = {}
    has_subgraphs = False
    for op in graph.body.walk():
        if op.regions:  # if/case/while/partitioned_call, and fused groups
            has_subgraphs = True
            groups.extend(_control_flow_groups(op))
        elif isinstance(op, VariableOp):
            variables.setdefault(op.var_name.data, []).append((op, True, 0))
    if has_subgraphs:
        groups.extend(variables.values())
    table: dict[Cell, list[Cell]] = {}
    for group in groups:
        for cell in group:
            table.setdefault(cell, group)
    return table


Subgraph = tuple[dict[int, list[Cell]], NetOutputOp]
"""A subgraph's data cells by parent_index, and its terminator."""


def _subgraphs(op: Operation) -> list[Subgraph]:
    subgraphs = []
    for region in op.regions:
        data: dict[int, list[Cell]] = {}
        for inner in region.block.ops:
            if isinstance(inner, DataOp):
                data.setdefault(inner.index_value, []).append((inner, True, 0))
        terminator = region.block.last_op
        assert isinstance(terminator, NetOutputOp)
        subgraphs.append((data, terminator))
    return subgraphs


def _control_flow_groups(op: Operation) -> list[list[Cell]]:
    """Branch ops: operand i with data i; result j with every output j."""
    subgraphs = _subgraphs(op)
    if isinstance(op, WhileOp):
        return _while_groups(op, subgraphs)
    groups = []
    for index in range(len(op.operands)):
        group: list[Cell] = [(op, False, index)]
        for data, _ in subgraphs:
            group.extend(data.get(index, []))
        groups.append(group)
    for index in range(len(op.results)):
        group = [(op, True, index)]
        group.extend((output, False, index) for _, output in subgraphs)
        groups.append(group)
    return groups


def _while_groups(op: WhileOp, subgraphs: list[Subgraph]) -> list[list[Cell]]:
    """Loop variable i: operand, result, cond/body data, body output i.

    GE's crossed-variable rule: a body output fed directly by a body data of
    another index merges the two variables' groups.
    """
    body_output = subgraphs[-1][1]
    groups: list[list[Cell]] = []
    for index in range(len(op.operands)):
        group: list[Cell] = [(op, False, index), (op, True, index)]
        for data, _ in subgraphs:
            group.extend(data.get(index, []))
        if index < len(body_output.operands):
            group.append((body_output, False, index))
        groups.append(group)
    for output_index, value in enumerate(body_output.operands):
        source = value.owner
        if isinstance(source, DataOp) and output_index < len(groups):
            data_index = source.index_value
            if data_index < len(groups):
                groups[data_index] += groups[output_index]
                groups[output_index] += groups[data_index]
    return [list(dict.fromkeys(group)) for group in groups]


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------


@functools.cache
def _rank_fits(rank: int, fmt: Format) -> bool:
    """Whether the dialect accepts a rank-`rank` tensor labelled `fmt`."""
    if fmt not in ORIGIN_FORMATS or fmt == Format.ND or rank <= 0:
        return False
    try:
        check_rank_fits(TensorType(f32, [1] * rank), LayoutAttr(fmt))
    except VerifyException:
        return False
    return True


def _rank(value: SSAValue) -> int:
    tensor = value.type
    return tensor.get_num_dims() if isinstance(tensor, TensorType) else -1


def _origin(value: SSAValue) -> Format:
    tensor = value.type
    return layout_of(tensor)[0] if isinstance(tensor, TensorType) else Format.ND


def _is_locked(op: Operation) -> bool:
    attr = op.attributes.get(LOCK_ATTR)
    return isinstance(attr, UnitAttr) or (
        isinstance(attr, IntegerAttr) and bool(attr.value.data)
    )


def _producer(value: SSAValue) -> Operation | None:
    return value.op if isinstance(value, OpResult) else None


@functools.cache
def _relabelled(tensor: TensorType, fmt: Format) -> TensorType:
    """`tensor` with origin `fmt`; a storage already chosen apart is kept.

    Cached: graphs repeat a few types many times, and building one verifies it.
    """
    layout = tensor.encoding
    if not isinstance(layout, LayoutAttr):
        return TensorType(tensor.element_type, tensor.get_shape(), LayoutAttr(fmt))
    storage = layout.storage_format
    if storage == layout.origin_format:
        storage = fmt
    new_layout = LayoutAttr(
        fmt,
        storage,
        storage_shape=layout.explicit_storage_shape,
        reshape_type=layout.explicit_reshape_type,
    )
    return TensorType(tensor.element_type, tensor.get_shape(), new_layout)


class _View:
    """The `FormatView` a rule gets: reads and writes go through the refiner.

    `input(i)` is the op's own input descriptor (GE's consumer end of the
    edge), ND until a walk or the op's own rule wrote it, never the
    producer's format.
    """

    __slots__ = ("op", "_refiner")

    def __init__(self, refiner: FormatRefiner, op: Operation):
        self.op = op
        self._refiner = refiner

    def input(self, index: int) -> Format:
        return self._refiner.input_format((self.op, False, index))

    def output(self, index: int) -> Format:
        return self._refiner.format_of(self.op.results[index])

    def set_input(self, index: int, fmt: Format) -> None:
        self._refiner.write_input((self.op, False, index), fmt)

    def set_output(self, index: int, fmt: Format) -> None:
        self._refiner.write((self.op, True, index), self.op.results[index], fmt)


class FormatRefiner:
    """Origin-format inference over one `ge.graph` and its subgraphs.

    GE keeps two descriptors per edge. Here a result's descriptor is its
    value's format (`formats`, the producer's end) and an operand's is kept
    apart (`inputs`, the consumer's end), so walks cross edges exactly as
    GE's do. Formats go into the IR types at the end; an edge whose two ends
    disagree gets a relabelling `ge.identity` (docs/GE_DEVIATIONS.md).
    """

    def __init__(self, graph: GraphOp):
        self.graph = graph
        self.formats: dict[SSAValue, Format] = {}
        self.inputs: dict[Cell, Format] = {}
        self.reached: set[Cell] = set()
        self.queue: deque[Operation] = deque()
        self.groups = reflection_groups(graph)
        self.ties = _same_origin_ties(graph.body.walk())

    def run(self, fallback: Format | None) -> None:
        """Refresh anchors, diffuse from each, apply the Data fallback, write types."""
        ops = list(self.graph.body.walk())
        anchors = [op for op in ops if self._refresh(op)]
        for anchor in anchors:
            self._diffuse(anchor)
        if fallback is not None:
            self._data_fallback(ops, fallback)
        self._write_types()
        self._relabel_conflicting_edges()

    # -- reading and writing formats ------------------------------------------

    def format_of(self, value: SSAValue) -> Format:
        """The current origin format of `value` (its producer's descriptor)."""
        fmt = self.formats.get(value)
        return _origin(value) if fmt is None else fmt

    def input_format(self, cell: Cell) -> Format:
        """The consumer's descriptor at operand `cell` (ND until written)."""
        return self.inputs.get(cell, Format.ND)

    def write(self, cell: Cell, value: SSAValue, fmt: Format) -> None:
        """A write into a result cell: reached; the value changes only if ND."""
        self.reached.add(cell)
        if fmt != Format.ND and self.format_of(value) == Format.ND:
            self._assign(value, fmt, overwrite=False)

    def write_input(self, cell: Cell, fmt: Format) -> None:
        """A write into an operand cell, only while it is ND (first writer wins)."""
        if fmt != Format.ND and cell not in self.inputs:
            self._set_input(cell, fmt)

    def _set_input(self, cell: Cell, fmt: Format) -> None:
        if _rank_fits(_rank(_cell_value(cell)), fmt):
            self.inputs[cell] = fmt

    def _assign(self, value: SSAValue, fmt: Format, *, overwrite: bool) -> None:
        """Give `value` (and values tied to it) `fmt`, unless one may not change.

        Without `overwrite` a tied value holding another format blocks it.
        """
        members = self.ties.get(value, (value,))
        if not all(self._writable(member, fmt) for member in members):
            return
        if not overwrite and any(
            self.format_of(member) not in (Format.ND, fmt) for member in members
        ):
            return
        for member in members:
            self.formats[member] = fmt

    def _writable(self, value: SSAValue, fmt: Format) -> bool:
        """Whether `value` may take `fmt` (its type belongs to its producer)."""
        rank = _rank(value)
        if not _rank_fits(rank, fmt):
            return False  # scalars, and ranks the format cannot describe
        producer = _producer(value)
        if producer is None:
            return True
        if _is_locked(producer):
            return False
        return not (producer.has_trait(RankBarrier) and rank < 4)

    def _descriptor(self, cell: Cell) -> Format:
        """GE's descriptor at `cell`: ND unless reached, explicit, or written."""
        _, is_result, _ = cell
        if not is_result:
            return self.input_format(cell)
        value = _cell_value(cell)
        if cell in self.reached or _origin(value) != Format.ND:
            return self.format_of(value)
        return Format.ND

    # -- anchors ----------------------------------------------------------------

    def _refresh(self, op: Operation) -> bool:
        """Run the op's refresh; True if the op is an anchor."""
        if not _is_locked(op):
            for index, result in enumerate(op.results):
                storage = _ungiven_origin(result.type)
                if storage is not None:
                    self.write((op, True, index), result, storage)
            if (rule := refresh_rule(op)) is not None:
                self._apply(rule, op)
        return any(self._descriptor(cell) != Format.ND for cell in _cells(op))

    def _diffuse(self, anchor: Operation) -> None:
        """GE's AnchorProcess: breadth-first backward then forward inference."""
        self.queue.append(anchor)
        while self.queue:
            op = self.queue.popleft()
            for index, value in enumerate(op.operands):
                fmt = self.input_format((op, False, index))
                if fmt != Format.ND and (producer := _producer(value)) is not None:
                    assert isinstance(value, OpResult)
                    self._cross(fmt, (producer, True, value.index))
            for index, value in enumerate(op.results):
                if (fmt := self._descriptor((op, True, index))) != Format.ND:
                    for use in reversed(list(value.uses)):
                        self._cross(fmt, (use.operation, False, use.index))

    def _cross(self, fmt: Format, cell: Cell) -> None:
        """Carry `fmt` from one end of an edge into the other end, `cell`."""
        op, is_result, _ = cell
        if self._descriptor(cell) != Format.ND:
            return  # first writer wins
        if _is_locked(op):
            return
        value = _cell_value(cell)
        rank = _rank(value)
        if rank <= 0:
            return  # scalars stop propagation
        if op.has_trait(RankBarrier) and rank < 4:
            return  # permute/expand_dims/squeeze below rank 4
        if (group := self.groups.get(cell)) is not None:
            self._reflect(group, fmt)
            return
        if is_result:
            self.write(cell, value, fmt)
        else:
            self._set_input(cell, fmt)
            if op is self.graph.output:
                return  # the root output is written, not passed through
        self._apply(infer_rule(op), op)
        self.queue.append(op)

    def _reflect(self, group: list[Cell], fmt: Format) -> None:
        """GE's ReflectionProcess: overwrite every member, enqueue its op.

        Operand members are the consumer's descriptor only: the value they
        read keeps its producer's format (a user-declared layout included).
        """
        for cell in group:
            op, is_result, _ = cell
            if is_result:
                self.reached.add(cell)
                self._assign(_cell_value(cell), fmt, overwrite=True)
            else:
                self._set_input(cell, fmt)
            self.queue.append(op)

    def _apply(self, rule: FormatRule, op: Operation) -> None:
        try:
            rule(_View(self, op))
        except GEError:
            raise
        except Exception as error:
            raise error_at(op, f"infer-format rule failed: {error}") from None

    # -- Data fallback and the final types -------------------------------------

    def _data_fallback(self, ops: Iterable[Operation], fmt: Format) -> None:
        """GE's DataNodeFormatProcess: ND inputs of rank >= 4 take `fmt`."""
        updated = []
        for op in ops:
            if not isinstance(op, DataOp) or self.format_of(op.output) != Format.ND:
                continue
            if _rank(op.output) < 4 or not self._writable(op.output, fmt):
                continue
            self.write((op, True, 0), op.output, fmt)
            updated.append(op)
        for op in updated:
            self._diffuse(op)

    def _write_types(self) -> None:
        """Write the formats into the types; then resync attributes naming them."""
        touched: dict[GEOperation, None] = {}
        for value, fmt in self.formats.items():
            tensor = value.type
            if not isinstance(tensor, TensorType) or _origin(value) == fmt:
                continue
            new_value = Rewriter.replace_value_with_new_type(
                value, _relabelled(tensor, fmt)
            )
            for op in _neighbours(new_value):
                if isinstance(op, GEOperation):
                    touched[op] = None
        for op in touched:
            op.refresh_format_attributes()

    def _relabel_conflicting_edges(self) -> None:
        """Give each edge whose ends disagree (both not ND) a `ge.identity`.

        GE leaves the producer's and the consumer's descriptors different; one
        SSA value has one type, so the consumer reads a relabelled copy (one
        per value and format, right after the producer) typed with its own
        descriptor (in that format's plain storage; storage is chosen later).
        It holds the same values: origin shape and dtype are unchanged.
        """
        relabelled: dict[tuple[SSAValue, Format], SSAValue] = {}
        for (op, _, index), fmt in self.inputs.items():
            value = op.operands[index]
            have = _origin(value)
            if have in (Format.ND, fmt) or not isinstance(value, OpResult):
                continue
            if index in operands_whose_format_is_read(op):
                continue  # the op reads this operand's format: it means it
            copy = relabelled.get((value, fmt))
            if copy is None:
                tensor = value.type
                assert isinstance(tensor, TensorType)
                relabelled_type = TensorType(
                    tensor.element_type, tensor.get_shape(), LayoutAttr(fmt)
                )
                identity = IdentityOp.create(
                    operands=[value], result_types=[relabelled_type]
                )
                Rewriter.insert_op(identity, InsertPoint.after(value.op))
                copy = relabelled[(value, fmt)] = identity.results[0]
            op.operands[index] = copy


def _cells(op: Operation) -> Iterator[Cell]:
    for index in range(len(op.operands)):
        yield (op, False, index)
    for index in range(len(op.results)):
        yield (op, True, index)


def _neighbours(value: SSAValue) -> Iterator[Operation]:
    """The producer and the consumers of `value`."""
    if (producer := _producer(value)) is not None:
        yield producer
    for use in value.uses:
        yield use.operation


def _cell_value(cell: Cell) -> SSAValue:
    op, is_result, index = cell
    return op.results[index] if is_result else op.operands[index]


def _ungiven_origin(tensor: Attribute) -> Format | None:
    """GE's anchor refresh: an ND origin over a non-internal storage means it."""
    if not isinstance(tensor, TensorType):
        return None
    origin, storage = layout_of(tensor)
    if origin == Format.ND and storage != Format.ND and storage in ORIGIN_FORMATS:
        return storage
    return None


def _same_origin_ties(ops: Iterable[Operation]) -> dict[SSAValue, tuple[SSAValue, ...]]:
    """Values chained through `SameOriginFormat` ops -> all values of their chain.

    A TransData that absorbed a transpose (`perm`) relates two different
    origin formats by its permutation: it ties nothing.
    """
    parent: dict[SSAValue, SSAValue] = {}

    def root(value: SSAValue) -> SSAValue:
        while (up := parent.get(value, value)) is not value:
            value = up
        return value

    for op in ops:
        if op.has_trait(SameOriginFormat) and op.operands and op.results:
            if op.attributes.get("perm") is not None:
                continue
            parent[root(op.results[0])] = root(op.operands[0])
    chains: dict[SSAValue, list[SSAValue]] = {}
    for value in list(parent):
        chains.setdefault(root(value), []).append(value)
    ties: dict[SSAValue, tuple[SSAValue, ...]] = {}
    for head, members in chains.items():
        chain = (head, *members)
        ties.update(dict.fromkeys(chain, chain))
    return ties
