"""ONNX If, Loop and Scan as `ge.if` and `ge.while`.

ONNX subgraphs may read any value of the enclosing graphs; `ge` regions are
isolated from above, so the run-time values a subgraph reads (nested
subgraphs included) become operands of the control-flow op, mirrored by
`ge.data {parent_index = i}` in its regions, and the values known at import
become constants of the region.

`Loop` and `Scan` become one `ge.while` whose loop variables are

    [iteration, keep going (Loop only), carried..., scan buffers...,
     invariants...]

`iteration` is the int64 counter ONNX hands the body; the condition region
is `iteration < trip count` (Loop's `M` when given, the scanned length for
Scan) `and keep going`. The invariants are the captured run-time values,
a run-time trip count and Scan's scanned inputs: passed through unchanged.
A scan output (the per-iteration values ONNX stacks) is a loop variable of
its final shape, `[iterations, ...]` with the scan axis where the op puts
it, that starts as zeros; iteration t writes its row with
`select(iota == t, value, buffer)`, exact for every value. Scan reads its
inputs' row t with a `ge.gather` at the counter (reversed directions count
down: `length - 1 - t`).

Refused, with the reason: a loop variable whose type changes between
iterations, and a Loop scan output whose number of rows is unknown at
import (no constant `M`, or a body that may stop the loop early).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, SSAValue

from ge_dialect.builder import GraphBuilder, tensor_type
from ge_dialect.limits import over_budget, tensor_bytes
from ge_dialect.ops import IfOp, WhileOp
from ge_frontend.importing import (
    GraphEmitter,
    Unsupported,
    Value,
    dtype_name_of,
    normalize_axis,
    registrar,
    shape_of,
)
from ge_frontend.onnx_context import Downstream, NodeContext, free_names
from ge_frontend.onnx_sequences import (
    OptionalValue,
    RaggedSequence,
    RankMismatch,
    SequenceValue,
    Structured,
    as_carried,
    inline_body,
    is_structured,
    leaves,
    presence_differs,
    rebuild,
    structure_difference,
    to_ragged,
)

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""If, Loop, Scan -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)


def _captures(
    ctx: NodeContext, graphs: Sequence[onnx.GraphProto]
) -> dict[str, Structured]:
    """The enclosing values the graphs read, by name."""
    assert ctx.subgraphs is not None
    captured: dict[str, Structured] = {}
    for graph in graphs:
        for name in free_names(graph):
            value = ctx.subgraphs.lookup(name)
            if value is None:
                raise Downstream
            captured.setdefault(name, value)
    return captured


def _runtime(captured: dict[str, Structured]) -> list[str]:
    """The names of the captured values computed at run time (sequences and
    optionals among them: their tensors)."""
    return [n for n, v in captured.items() if not isinstance(v, np.ndarray)]


def _capture_operands(
    ctx: NodeContext, captured: dict[str, Structured], runtime: list[str]
) -> list[SSAValue]:
    """The operands carrying the captured run-time values into a region:
    their tensors, in order."""
    return [
        ctx.emitter.tensor(leaf, f"{ctx.name}/{name}")
        for name in runtime
        for leaf in leaves(captured[name])
    ]


def _rebound(
    captured: dict[str, Structured], runtime: list[str], data: Sequence[SSAValue]
) -> dict[str, Structured]:
    """The captured run-time values rebuilt from a region's `ge.data`."""
    tensors = iter(data)
    return {name: rebuild(captured[name], tensors) for name in runtime}


def _region(
    ctx: NodeContext,
    graph: onnx.GraphProto,
    captured: dict[str, Structured],
    runtime: list[str],
    shapes: list[list[Structured]],
    stand_ins: dict[int, list[np.ndarray]] | None = None,
) -> Callable[..., list[SSAValue]]:
    """A `GraphBuilder` subgraph function importing `graph`: its `ge.data`
    are the captured run-time values `runtime`; captured constants are
    constants of the region. Its outputs are tensors (a sequence's elements,
    a present optional's element); `shapes` receives the outputs' structure.
    An output in `stand_ins` is an optional whose presence the branch taken
    decides: its presence (a constant), then its element, or the stand-ins
    (zeros of the element's tensors) where this branch gives none."""
    assert ctx.subgraphs is not None
    subgraphs = ctx.subgraphs

    def build(builder: GraphBuilder, *data: SSAValue) -> list[SSAValue]:
        emitter = ctx.emitter.nested(builder)
        bound = {**captured, **_rebound(captured, runtime, data)}
        outputs = subgraphs.body(graph, emitter, bound)
        shapes.append(outputs)
        flat: list[Value] = []
        for index, value in enumerate(outputs):
            zeros = (stand_ins or {}).get(index)
            if zeros is None:
                flat += leaves(value)
                continue
            assert isinstance(value, OptionalValue)
            present = value.element is not None
            flat += [np.array(present), *(leaves(value) if present else zeros)]
        return [
            emitter.tensor(leaf, f"{ctx.name}/out{i}") for i, leaf in enumerate(flat)
        ]

    return build


@converts("If")
def convert_if(ctx: NodeContext) -> list[Value]:
    """`ge.if`; with a condition known at import, the branch taken is inlined."""
    assert ctx.subgraphs is not None
    cond = ctx.input(0)
    branches = [ctx.graph("then_branch"), ctx.graph("else_branch")]
    if isinstance(cond, np.ndarray):
        if cond.size != 1:
            raise ValueError(f"the condition has {cond.size} elements, not 1")
        taken = branches[0] if bool(cond.reshape(-1)[0]) else branches[1]
        return ctx.subgraphs.inline(taken, ctx.emitter)
    captured = _captures(ctx, branches)
    runtime = _runtime(captured)
    builder = ctx.emitter.builder
    stand_ins: dict[int, list[np.ndarray]] = {}
    while True:  # again with stand-ins, if an optional's presence differs
        structures: list[list[Structured]] = []
        results = builder.if_(
            cond,
            _capture_operands(ctx, captured, runtime),
            *(
                _region(ctx, g, captured, runtime, structures, stand_ins)
                for g in branches
            ),
            name=ctx.name,
        )
        op = builder.block.last_op
        assert isinstance(op, IfOp)
        then_outputs, else_outputs = structures
        if stand_ins or not any(
            presence_differs(a, b)
            for a, b in zip(then_outputs, else_outputs, strict=True)
        ):
            break
        builder.block.erase_op(op)
        stand_ins = _stand_ins(then_outputs, else_outputs)
    for index, (a, b) in enumerate(zip(then_outputs, else_outputs, strict=True)):
        if index in stand_ins:
            continue
        if (why := structure_difference(a, b)) is not None:
            builder.block.erase_op(op)
            raise Unsupported(f"whose branches give output #{index} {why}")
    then_types = [v.type for v in op.then_branch.block.last_op.operands]
    else_types = [v.type for v in op.else_branch.block.last_op.operands]
    for index, (a, b) in enumerate(zip(then_types, else_types, strict=True)):
        if a != b:
            builder.block.erase_op(op)
            raise Unsupported(
                f"whose branches give output #{index} different types ({a} and {b})"
            )
    tensors = iter(results)
    chosen = []
    for index, (a, b) in enumerate(zip(then_outputs, else_outputs, strict=True)):
        if index not in stand_ins:
            chosen.append(rebuild(a, tensors))
            continue
        present = a if a.element is not None else b  # type: ignore[union-attr]
        presence = next(tensors)
        element = rebuild(present.element, tensors)  # type: ignore[union-attr, arg-type]
        chosen.append(OptionalValue(element, present.element_type, presence))  # type: ignore[union-attr, arg-type]
    return chosen


def _stand_ins(
    then_outputs: Sequence[Structured], else_outputs: Sequence[Structured]
) -> dict[int, list[np.ndarray]]:
    """For each output that is an optional present in one branch only: zeros
    of its element's tensors (static shapes), for the other branch."""
    stand_ins = {}
    for index, (a, b) in enumerate(zip(then_outputs, else_outputs, strict=True)):
        if not presence_differs(a, b):
            continue
        present = a if a.element is not None else b  # type: ignore[union-attr]
        zeros = []
        for leaf in leaves(present):
            if -1 in shape_of(leaf):
                raise Unsupported(
                    f"whose output #{index} is an optional present in one branch "
                    "only, with dims known only at run time"
                )
            zeros.append(np.zeros(shape_of(leaf), dtype_name_of(leaf)))
        stand_ins[index] = zeros
    return stand_ins


# ---------------------------------------------------------------------------
# Loop and Scan: one `ge.while`
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScanInput:
    """A Scan input read one row per iteration along `axis`."""

    value: Value
    axis: int
    reverse: bool


@dataclass(frozen=True)
class ScanOutput:
    """A stacked output: iteration t's value is row t (from the end when
    `reverse`) along `axis` of the result (negative: from the end)."""

    axis: int = 0
    reverse: bool = False


@dataclass
class LoopSpec:
    """What one ONNX Loop or Scan node iterates.

    The body takes `[iteration, keep going]` (Loop: `has_keep`) or nothing,
    then the carried values, then (Scan) the scanned rows; it returns
    `[keep going]` (Loop), the carried values, then the scan outputs.
    """

    body: onnx.GraphProto
    carried: list[Value]
    has_keep: bool
    keep: Value | None = None
    """The first `keep going` (None: true)."""
    trip_count: Value | None = None
    """The iteration limit (None: none)."""
    scan_inputs: list[ScanInput] = field(default_factory=list)
    scan_outputs: list[ScanOutput] = field(default_factory=list)
    iterations: int | None = None
    """How many iterations run, when known at import (scan outputs need it)."""


@dataclass
class _Layout:
    """Where each group of loop variables sits in the `ge.while` state."""

    carried: int
    buffers: int
    invariants: int
    limit_is_variable: bool
    scan_inputs: int

    @property
    def first_carried(self) -> int:
        return 2

    @property
    def first_buffer(self) -> int:
        return 2 + self.carried

    @property
    def first_invariant(self) -> int:
        return self.first_buffer + self.buffers

    @property
    def limit(self) -> int:
        return self.first_invariant + self.invariants

    @property
    def first_scan_input(self) -> int:
        return self.limit + int(self.limit_is_variable)


def _as_tensor(emitter: GraphEmitter, value: Value, like: Value, key: str) -> SSAValue:
    """`value` as an SSA value of `like`'s shape (a 1-element `keep going`
    may be `[]` or `[1]`)."""
    if shape_of(value) != shape_of(like) and np.prod(shape_of(value)) == 1:
        shape = list(shape_of(like))
        if isinstance(value, np.ndarray):
            value = value.reshape(shape)
        else:
            value = emitter.emit("reshape", [value], {"shape": shape}, f"{key}/shape")
    return emitter.tensor(value, key)


def _iterate(ctx: NodeContext, spec: LoopSpec) -> tuple[list[Value], list[Value]]:
    """Emit the `ge.while` of `spec`: (final carried values, scan outputs)."""
    body = spec.body
    expected_inputs = 2 * spec.has_keep + len(spec.carried) + len(spec.scan_inputs)
    if len(body.input) != expected_inputs:
        raise ValueError(
            f"the body takes {len(body.input)} inputs, expected {expected_inputs}"
        )
    expected_outputs = spec.has_keep + len(spec.carried) + len(spec.scan_outputs)
    if len(body.output) != expected_outputs:
        raise ValueError(
            f"the body gives {len(body.output)} outputs, expected {expected_outputs}"
        )
    captured = _captures(ctx, [body])
    keep = np.array(True) if spec.keep is None else spec.keep
    start = [np.array(0, np.int64), keep]  # one array each: one ge.const each
    if not spec.scan_outputs:
        return _split_results(spec, _build_while(ctx, spec, start, captured, []))
    rows = _probe_scan_rows(ctx, spec, start, captured)
    buffers = []
    for index, ((row, dtype), out) in enumerate(
        zip(rows, spec.scan_outputs, strict=True)
    ):
        if -1 in row:
            raise Unsupported(f"whose scan output #{index} has dynamic dims")
        shape = _stacked_shape(row, spec.iterations or 0, out.axis)
        nbytes = tensor_bytes(shape, np.dtype(dtype).itemsize)
        if (reason := over_budget(nbytes, f"scan output #{index}")) is not None:
            raise ValueError(reason)
        buffers.append(np.zeros(shape, dtype))
    values = _build_while(ctx, spec, start, captured, buffers)
    return _split_results(spec, values)


def _split_results(
    spec: LoopSpec, values: Sequence[Value]
) -> tuple[list[Structured], list[Value]]:
    """The `ge.while`'s carried results (a sequence rebuilt from its
    tensors) and scan outputs."""
    tensors = iter(values)
    final = [rebuild(value, tensors) for value in spec.carried]
    return final, list(tensors)


def _stacked_shape(row: tuple[int, ...], iterations: int, axis: int) -> list[int]:
    """The shape of `iterations` rows `row` stacked along `axis`."""
    axis = normalize_axis(axis, len(row) + 1)
    return [*row[:axis], iterations, *row[axis:]]


def _probe_scan_rows(
    ctx: NodeContext, spec: LoopSpec, start: list[Value], captured: dict[str, Value]
) -> list[tuple[tuple[int, ...], str]]:
    """The shape and dtype of one row of each scan output: the body is built
    once without buffers, read and erased."""
    rows: list[tuple[tuple[int, ...], str]] = []
    _build_while(ctx, spec, start, captured, [], rows)
    ctx.emitter.builder.block.erase_op(ctx.emitter.builder.block.last_op)
    return rows


def _build_while(
    ctx: NodeContext,
    spec: LoopSpec,
    start: list[Value],
    captured: dict[str, Value],
    buffers: list[np.ndarray],
    rows: list[tuple[tuple[int, ...], str]] | None = None,
) -> list[Value]:
    """The `ge.while` of `spec` from the counter and condition `start`,
    with scan `buffers` (none: `rows` collects each scan output row's shape
    and dtype); its carried and buffer results."""
    assert ctx.subgraphs is not None
    subgraphs = ctx.subgraphs
    body, emitter = spec.body, ctx.emitter
    runtime = _runtime(captured)
    limit = spec.trip_count
    invariants = _capture_operands(ctx, captured, runtime)
    carried_leaves = [leaf for value in spec.carried for leaf in leaves(value)]
    layout = _Layout(
        carried=len(carried_leaves),
        buffers=len(buffers),
        invariants=len(invariants),
        limit_is_variable=limit is not None and not isinstance(limit, np.ndarray),
        scan_inputs=len(spec.scan_inputs),
    )
    state = [
        emitter.tensor(start[0], f"{ctx.name}/iteration"),
        emitter.tensor(start[1], f"{ctx.name}/keep_going"),
        *(
            emitter.tensor(v, f"{ctx.name}/carried{i}")
            for i, v in enumerate(carried_leaves)
        ),
        *(emitter.tensor(b, f"{ctx.name}/stacked{i}") for i, b in enumerate(buffers)),
        *invariants,
        *(
            [emitter.tensor(limit, f"{ctx.name}/trip_count")]
            if layout.limit_is_variable
            else []
        ),
        *(
            emitter.tensor(s.value, f"{ctx.name}/scanned{i}")
            for i, s in enumerate(spec.scan_inputs)
        ),
    ]

    def condition(builder: GraphBuilder, *data: SSAValue) -> SSAValue:
        inner = emitter.nested(builder)
        going: Value = data[1]
        if limit is not None:
            bound = data[layout.limit] if layout.limit_is_variable else limit
            below = inner.emit("less", [data[0], bound], {}, f"{ctx.name}/below")
            going = (
                inner.emit("logical_and", [below, going], {}, f"{ctx.name}/continue")
                if spec.has_keep
                else below
            )
        return inner.tensor(going, f"{ctx.name}/continue")

    def step(builder: GraphBuilder, *data: SSAValue) -> list[SSAValue]:
        inner = emitter.nested(builder)
        iteration = data[0]
        carried_data = iter(data[layout.first_carried : layout.first_buffer])
        carried = [rebuild(value, carried_data) for value in spec.carried]
        rows_read = [
            _scan_row(
                inner, ctx.name, i, scan, data[layout.first_scan_input + i], iteration
            )
            for i, scan in enumerate(spec.scan_inputs)
        ]
        inputs = [*(data[:2] if spec.has_keep else ()), *carried, *rows_read]
        bound = {
            **captured,
            **dict(zip([v.name for v in body.input], inputs, strict=True)),
        }
        bound.update(
            _rebound(captured, runtime, data[layout.first_invariant : layout.limit])
        )
        outputs = subgraphs.body(body, inner, bound)
        going = (
            _as_tensor(inner, outputs[0], data[1], f"{ctx.name}/keep_going")
            if spec.has_keep
            else data[1]
        )
        outputs = outputs[spec.has_keep :]
        count = len(spec.carried)
        produced = [
            leaf
            for i, (value, like) in enumerate(
                zip(outputs[:count], spec.carried, strict=True)
            )
            for leaf in leaves(as_carried(inner, value, like, f"{ctx.name}/out{i}"))
        ]
        declared = body.output[spec.has_keep + count :]
        stacked = [
            _as_declared(inner, v, d, f"{ctx.name}/scan_row{i}")
            for i, (v, d) in enumerate(zip(outputs[count:], declared, strict=True))
        ]
        if rows is not None:
            rows[:] = [(shape_of(v), dtype_name_of(v)) for v in stacked]
            new_buffers: list[Value] = []
        elif spec.iterations is None:
            new_buffers = [
                _append_row(inner, ctx.name, i, out, data[layout.first_buffer + i], v)
                for i, (out, v) in enumerate(
                    zip(spec.scan_outputs, stacked, strict=True)
                )
            ]
        else:
            new_buffers = [
                _write_row(
                    inner,
                    ctx.name,
                    i,
                    out,
                    data[layout.first_buffer + i],
                    value,
                    iteration,
                    spec.iterations,
                )
                for i, (out, value) in enumerate(
                    zip(spec.scan_outputs, stacked, strict=True)
                )
            ]
        following = inner.emit(
            "add", [iteration, np.array(1, np.int64)], {}, f"{ctx.name}/next"
        )
        updated = [following, going, *produced, *new_buffers]
        return [
            *(inner.tensor(v, f"{ctx.name}/out{i}") for i, v in enumerate(updated)),
            *data[layout.first_invariant :],
        ]

    builder = emitter.builder
    variable_types = [value.type for value in state]
    if spec.iterations is None and buffers:  # they grow by a row per iteration
        for i, (buffer, out) in enumerate(zip(buffers, spec.scan_outputs, strict=True)):
            axis = normalize_axis(out.axis, buffer.ndim)
            shape = [-1 if d == axis else n for d, n in enumerate(buffer.shape)]
            variable_types[layout.first_buffer + i] = tensor_type(
                shape, buffer.dtype.name
            )
    while True:  # loop variables whose dims the body changes become unknown
        results = builder.while_(
            state, condition, step, name=ctx.name, variable_types=variable_types
        )
        op = builder.block.last_op
        assert isinstance(op, WhileOp)
        produced = [v.type for v in op.body.block.last_op.operands]
        if produced == variable_types:
            break
        builder.block.erase_op(op)
        for index, (declared, given) in enumerate(
            zip(variable_types, produced, strict=True)
        ):
            if (merged := _merged_type(declared, given)) is None:
                raise Unsupported(
                    f"whose loop variable #{index} changes type ({declared} to {given})"
                )
            variable_types[index] = merged
    return results[2 : layout.first_invariant]


def _as_declared(
    emitter: GraphEmitter, value: Value, declared: onnx.ValueInfoProto, key: str
) -> Value:
    """A scan output row whose dims are unknown at import (a slice at run-time
    bounds) as the body declares it, when it declares every dim: a
    `ge.reshape`, which checks the element count at run time."""
    shape = shape_of(value)
    tensor = declared.type.tensor_type
    if -1 not in shape or not tensor.HasField("shape"):
        return value
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
    if len(dims) != len(shape) or -1 in dims:
        return value
    return emitter.emit("reshape", [value], {"shape": dims}, f"{key}/declared")


def _merged_type(a: Attribute, b: Attribute) -> TensorType | None:
    """`a` with the dims `b` has otherwise unknown (None: not one rank and
    element type)."""
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return None
    first, second = a.get_shape(), b.get_shape()
    if a.element_type != b.element_type or len(first) != len(second):
        return None
    dims = [x if x == y else DYNAMIC_INDEX for x, y in zip(first, second, strict=True)]
    return TensorType(a.element_type, dims, a.encoding)


def _scan_row(
    emitter: GraphEmitter,
    name: str,
    index: int,
    scan: ScanInput,
    value: SSAValue,
    iteration: SSAValue,
) -> Value:
    """Row `iteration` (from the end when reversed) of a scanned input."""
    position = _position(
        emitter,
        f"{name}/scan{index}",
        iteration,
        shape_of(value)[scan.axis],
        scan.reverse,
    )
    return emitter.emit(
        "gather", [value, position], {"axis": scan.axis}, f"{name}/scan{index}/row"
    )


def _position(
    emitter: GraphEmitter, key: str, iteration: SSAValue, length: int, reverse: bool
) -> Value:
    """`iteration`, or `length - 1 - iteration` when reversed."""
    if not reverse:
        return iteration
    last = np.array(length - 1, np.int64)
    return emitter.emit("sub", [last, iteration], {}, f"{key}/position")


def _append_row(
    emitter: GraphEmitter,
    name: str,
    index: int,
    out: ScanOutput,
    buffer: SSAValue,
    value: Value,
) -> Value:
    """`buffer` (the rows so far, a loop variable that grows) with `value`
    as one more row along the scan axis (first when reversed)."""
    key = f"{name}/stack{index}"
    axis = normalize_axis(out.axis, len(shape_of(buffer)))
    row = emitter.emit("unsqueeze", [value], {"axes": [axis]}, f"{key}/expand")
    rows = [row, buffer] if out.reverse else [buffer, row]
    return emitter.emit("concat", [rows], {"axis": axis}, f"{key}/append")


def _write_row(
    emitter: GraphEmitter,
    name: str,
    index: int,
    out: ScanOutput,
    buffer: SSAValue,
    value: Value,
    iteration: SSAValue,
    iterations: int | None,
) -> Value:
    """`buffer` with row `iteration` (from the end when reversed) along the
    scan axis replaced by `value`: `select(iota == position, value, buffer)`."""
    assert iterations is not None
    key = f"{name}/stack{index}"
    rank = len(shape_of(buffer))
    axis = normalize_axis(out.axis, rank)
    iota = np.arange(iterations, dtype=np.int64).reshape(
        [iterations if d == axis else 1 for d in range(rank)]
    )
    position = _position(emitter, key, iteration, iterations, out.reverse)
    mask = emitter.emit("equal", [iota, position], {}, f"{key}/row")
    row = emitter.emit("unsqueeze", [value], {"axes": [axis]}, f"{key}/expand")
    return emitter.emit("select", [mask, row, buffer], {}, f"{key}/write")


@converts("Loop")
def convert_loop(ctx: NodeContext) -> list[Value]:
    """`ge.while`: runs while `iteration < M` (when given) and the body's
    condition holds; scan outputs need a known trip count and a body that
    never stops the loop early."""
    body = ctx.graph("body")
    carried = [ctx.input(i) for i in range(2, len(ctx.node.input))]
    trip_count = ctx.optional_input(0)
    keep = ctx.optional_input(1)
    scans = len(body.output) - 1 - len(carried)
    spec = LoopSpec(
        body,
        carried,
        has_keep=True,
        keep=keep,
        trip_count=trip_count,
        scan_outputs=[ScanOutput() for _ in range(max(scans, 0))],
        iterations=_fixed_trip_count(body, trip_count, keep),
    )
    if any(is_structured(value) for value in carried):
        if spec.iterations is not None and spec.iterations <= MAX_UNROLLED:
            return _unroll(ctx, spec)
        return _grow_sequences(ctx, spec)
    final, stacked = _iterate(ctx, spec)
    return [*final, *stacked]


def _grow_sequences(ctx: NodeContext, spec: LoopSpec) -> list[Structured]:
    """A Loop carrying sequences over a trip count known only at run time:
    each is a run-time container (`RaggedSequence`: its elements' values and
    shapes, loop variables that grow), so the model is host-scheduled. The
    rank of a sequence that starts empty is that of what the body appends."""
    ranks: dict[int, int] = {}
    while True:
        carried = [
            _as_container(ctx, value, ranks.get(i), i)
            for i, value in enumerate(spec.carried)
        ]
        try:
            final, stacked = _iterate(ctx, dataclasses.replace(spec, carried=carried))
        except RankMismatch as mismatch:
            empty = [
                i
                for i, value in enumerate(carried)
                if any(isinstance(v, RaggedSequence) for v in _contents(value))
                and i not in ranks
            ]
            if not empty:
                raise Unsupported(
                    "appending tensors of different ranks to a sequence of "
                    "run-time length"
                ) from None
            ranks.update((i, mismatch.rank) for i in empty)
            continue
        return [*final, *stacked]


def _contents(value: Structured) -> list[Structured]:
    """`value` and, for a present optional, its element."""
    if isinstance(value, OptionalValue) and value.element is not None:
        return [value, value.element]
    return [value]


def _as_container(
    ctx: NodeContext, value: Structured, rank: int | None, index: int
) -> Structured:
    """A carried sequence (or present optional holding one) as a run-time
    container of rank-`rank` elements (None: its elements' rank, 0 when it
    has none); other values as they are."""
    if isinstance(value, OptionalValue):
        if value.element is None:
            raise Unsupported("carrying an absent optional over a run-time trip count")
        element = _as_container(ctx, value.element, rank, index)
        return OptionalValue(element, value.element_type)
    if not isinstance(value, SequenceValue):
        return value
    if rank is None:
        ranks = {len(shape_of(item)) for item in value.items}
        if len(ranks) > 1:
            raise Unsupported(
                "carrying a sequence of tensors of different ranks over a run-time "
                "trip count"
            )
        rank = ranks.pop() if ranks else 0
    try:
        return to_ragged(ctx.emitter, value, rank, f"{ctx.name}/carried{index}")
    except RankMismatch:
        raise Unsupported(
            "carrying a sequence of tensors of different ranks over a run-time "
            "trip count"
        ) from None


MAX_UNROLLED = 1024
"""The most iterations of a Loop carrying a sequence that are unrolled (more:
the sequence is a run-time container)."""


def _unroll(ctx: NodeContext, spec: LoopSpec) -> list[Structured]:
    """A Loop carrying a sequence or optional: the body once per iteration,
    inlined, so every sequence it builds has a length known at import (the
    number of iterations must be). Scan outputs are the rows stacked."""
    count = spec.iterations
    assert count is not None
    if count == 0 and spec.scan_outputs:
        raise Unsupported("with scan outputs and no iteration")
    carried: list[Structured] = list(spec.carried)
    rows: list[list[Value]] = [[] for _ in spec.scan_outputs]
    for iteration in range(count):
        arguments = [np.array(iteration, np.int64), np.array(True), *carried]
        outputs = inline_body(ctx, spec.body, arguments)
        carried = outputs[1 : 1 + len(carried)]
        for collected, value in zip(rows, outputs[1 + len(carried) :], strict=True):
            if is_structured(value):
                raise ValueError("a scan output must be a tensor")
            collected.append(value)  # type: ignore[arg-type]
    stacked = [
        ctx.op(
            "concat",
            [
                ctx.op("unsqueeze", v, axes=[0], suffix=f"scan{i}/row{t}")
                for t, v in enumerate(values)
            ],
            axis=0,
            suffix=f"scan{i}",
        )
        for i, values in enumerate(rows)
    ]
    return [*carried, *stacked]


def _fixed_trip_count(
    body: onnx.GraphProto, trip_count: Value | None, keep: Value | None
) -> int | None:
    """The Loop's number of iterations when known at import: a constant `M`,
    a first condition that is absent or true, and a body whose condition
    output is its condition input (through `Identity` nodes) or a constant
    true."""
    if not isinstance(trip_count, np.ndarray):
        return None
    if keep is not None and not (isinstance(keep, np.ndarray) and keep.all()):
        return None
    if len(body.input) < 2 or not _always_true(body, body.output[0].name):
        return None
    return max(int(trip_count.reshape(-1)[0]), 0)


def _always_true(body: onnx.GraphProto, name: str) -> bool:
    """Whether body value `name` is the body's condition input or a constant
    true, following `Identity` nodes."""
    producers = {output: node for node in body.node for output in node.output}
    while name in producers and producers[name].op_type == "Identity":
        name = producers[name].input[0]
    if name == body.input[1].name:
        return True
    initial = {t.name: t for t in body.initializer}.get(name)
    node = producers.get(name)
    if initial is None and node is not None and node.op_type == "Constant":
        initial = next((a.t for a in node.attribute if a.name == "value"), None)
    return initial is not None and bool(numpy_helper.to_array(initial).all())


@converts("Scan")
def convert_scan(ctx: NodeContext) -> list[Value]:
    """`ge.while` over the scanned axis (opset 9 and up; opset 8's batched
    Scan: `convert_batched_scan`)."""
    if ctx.opset < 9:
        return convert_batched_scan(ctx)
    body = ctx.graph("body")
    scanned = ctx.attr("num_scan_inputs")
    if scanned is None:
        raise ValueError("attribute 'num_scan_inputs' is missing")
    values = [ctx.input(i) for i in range(len(ctx.node.input))]
    carried, inputs = values[: len(values) - scanned], values[len(values) - scanned :]
    outputs = len(body.output) - len(carried)
    input_axes = ctx.attr("scan_input_axes", [0] * scanned)
    input_directions = ctx.attr("scan_input_directions", [0] * scanned)
    output_axes = ctx.attr("scan_output_axes", [0] * outputs)
    output_directions = ctx.attr("scan_output_directions", [0] * outputs)
    scan_inputs = [
        ScanInput(v, normalize_axis(a, len(shape_of(v))), bool(d))
        for v, a, d in zip(inputs, input_axes, input_directions, strict=True)
    ]
    lengths = {shape_of(s.value)[s.axis] for s in scan_inputs}
    if len(lengths) != 1:
        raise ValueError(f"the scanned inputs have different lengths {sorted(lengths)}")
    (length,) = lengths
    if length < 0:
        raise Unsupported("over a scanned axis of unknown length")
    spec = LoopSpec(
        body,
        carried,
        has_keep=False,
        trip_count=np.array(length, np.int64),
        scan_inputs=scan_inputs,
        scan_outputs=[
            ScanOutput(a, bool(d))
            for a, d in zip(output_axes, output_directions, strict=True)
        ],
        iterations=length,
    )
    final, stacked = _iterate(ctx, spec)
    return [*final, *stacked]


def convert_batched_scan(ctx: NodeContext) -> list[Value]:
    """Opset 8's Scan: every input has a leading batch axis (the scanned
    inputs' axis 1 is scanned); one `ge.while` per batch entry over its
    rows, stacked back along the batch axis. `sequence_lens` must be absent
    or known at import to be the full length."""
    body = ctx.graph("body")
    scanned = ctx.attr("num_scan_inputs")
    if scanned is None:
        raise ValueError("attribute 'num_scan_inputs' is missing")
    values = [ctx.input(i) for i in range(1, len(ctx.node.input))]
    carried, inputs = values[: len(values) - scanned], values[len(values) - scanned :]
    directions = ctx.attr("directions", [0] * scanned)
    batches = {shape_of(v)[0] for v in values if shape_of(v)}
    lengths = {shape_of(v)[1] for v in inputs if len(shape_of(v)) > 1}
    if len(batches) != 1 or len(lengths) != 1 or len(directions) != scanned:
        raise ValueError("the inputs' batch or scanned lengths differ")
    (batch,), (length,) = batches, lengths
    if batch < 0 or length < 0:
        raise Unsupported("of opset 8 over a batch or scanned axis of unknown length")
    lens = ctx.optional_input(0)
    if lens is not None and not (
        isinstance(lens, np.ndarray) and (lens == length).all()
    ):
        raise Unsupported("of opset 8 with sequence_lens shorter than the scan")
    outputs = len(body.output) - len(carried)
    per_batch = []
    for entry in range(batch):
        index = np.array(entry, np.int64)
        spec = LoopSpec(
            body,
            [
                ctx.op("gather", v, index, axis=0, suffix=f"batch{entry}")
                for v in carried
            ],
            has_keep=False,
            trip_count=np.array(length, np.int64),
            scan_inputs=[
                ScanInput(ctx.op("gather", v, index, axis=0), 0, bool(d))
                for v, d in zip(inputs, directions, strict=True)
            ],
            scan_outputs=[ScanOutput() for _ in range(outputs)],
            iterations=length,
        )
        final, stacked = _iterate(ctx, spec)
        per_batch.append([*final, *stacked])
    return [
        ctx.op(
            "concat",
            [
                ctx.op("unsqueeze", v, axes=[0], suffix=f"result{i}/batch{b}")
                for b, v in enumerate(entries)
            ],
            axis=0,
            suffix=f"result{i}",
        )
        for i, entries in enumerate(zip(*per_batch, strict=True))
    ]
