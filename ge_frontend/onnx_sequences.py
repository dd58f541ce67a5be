"""ONNX sequences and optionals, resolved at import into the tensors they hold.

A compiler that knows a sequence's length and its elements' types at compile
time needs no run-time container: a sequence is the list of its tensors'
values (`SequenceValue`), an optional the value it holds or nothing
(`OptionalValue`). The ops on them are then bookkeeping at import and leave
tensor ops only, so what reaches the backend is a tensor graph and the copies
run on the JIT:

    seq = SequenceConstruct(a, b)       # [a, b]: nothing emitted
    seq2 = SequenceInsert(seq, c, 0)    # [c, a, b]
    y = SequenceAt(seq2, 1)             # a
    z = ConcatFromSequence(seq2, axis=0)  # ge.concat(c, a, b)

Positions must be known at import (a `SequenceAt` at a run-time position
reads a stacked copy when the elements share one shape: `ge.concat` of the
elements, `ge.gather` at the position). `SplitToSequence` is a `ge.split`,
`SequenceMap` its body once per element. Graph inputs and outputs that are
sequences or optionals become their tensors (`ge_dialect.structured_io`:
their element shapes come from `--input_shape x:([2,3],[4])`, an absent
optional from `x:none`).

What is refused, with the reason: a position, a scalar split (the number of
pieces) or a presence known only at run time, and sequences that grow at run
time (a `Loop` appending over a trip count unknown at import).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from ge_dialect.dtype_names import numpy_dtype
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


@dataclass(frozen=True)
class SequenceValue:
    """An ONNX sequence of known length: its tensors, and the element dtype
    (an empty sequence has one too)."""

    items: tuple[Value, ...]
    dtype: str


@dataclass(frozen=True)
class OptionalValue:
    """An ONNX optional: its element (None: absent) and the ONNX type of the
    element (`tensor(float)`, `seq(tensor(int64))`). Its presence is known at
    import, or (`presence`, a run-time bool: an `If` whose branches differ)
    only at run time, the element then a stand-in of its type where absent."""

    element: Value | SequenceValue | None
    element_type: str
    presence: Value | None = None


@dataclass(frozen=True)
class RaggedSequence:
    """A sequence whose length is known only at run time (it grows in a
    `Loop` of run-time trip count): a run-time container as two tensors,
    its elements flattened one after the other (`values`, 1-D), their
    shapes (`shapes`, `[length, rank]` int64) and its `length` (an int64
    scalar, counted as elements are appended). Its elements share a rank
    (`ge_dialect.structured_io.split_ragged` takes it apart)."""

    values: Value
    shapes: Value
    length: Value
    dtype: str
    rank: int


class RankMismatch(Exception):
    """An element of another rank met a `RaggedSequence` (its rank)."""

    def __init__(self, rank: int):
        super().__init__(rank)
        self.rank = rank


Structured = Value | SequenceValue | OptionalValue | RaggedSequence
"""Any imported ONNX value."""

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Structured]]] = {}
"""Sequence and optional ops -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)


# ---------------------------------------------------------------------------
# Types and structure
# ---------------------------------------------------------------------------


def onnx_dtype(dtype: str) -> str:
    """ONNX's spelling of a dtype name (`float32` -> `float`)."""
    if dtype == "string":
        return "string"
    number = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(numpy_dtype(dtype)))
    return onnx.TensorProto.DataType.Name(number).lower()


def type_string(value: Structured) -> str | None:
    """ONNX's type string of a value (`seq(tensor(float))`; None: a dtype
    ONNX does not name)."""
    try:
        if isinstance(value, SequenceValue | RaggedSequence):
            return f"seq(tensor({onnx_dtype(value.dtype)}))"
        if isinstance(value, OptionalValue):
            return f"optional({value.element_type})"
        return f"tensor({onnx_dtype(dtype_name_of(value))})"
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def type_proto_string(proto: onnx.TypeProto) -> str:
    """ONNX's type string of a `TypeProto` (its element types only)."""
    kind = proto.WhichOneof("value")
    if kind == "tensor_type":
        name = onnx.TensorProto.DataType.Name(proto.tensor_type.elem_type)
        return f"tensor({name.lower()})"
    if kind == "sequence_type":
        return f"seq({type_proto_string(proto.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({type_proto_string(proto.optional_type.elem_type)})"
    raise ValueError(f"type {kind or 'untyped'} is not a tensor, sequence or optional")


def element_dtype(proto: onnx.TypeProto) -> str:
    """The NumPy dtype name of a tensor or sequence-of-tensor `TypeProto`."""
    if proto.HasField("sequence_type"):
        proto = proto.sequence_type.elem_type
    if not proto.HasField("tensor_type"):
        raise ValueError("a sequence of sequences or maps is not supported")
    elem = proto.tensor_type.elem_type
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem)).name


def describe(value: Structured) -> str:
    """What a value is, for messages (`a sequence of 2 tensors`)."""
    if isinstance(value, SequenceValue):
        return f"a sequence of {len(value.items)} tensors"
    if isinstance(value, RaggedSequence):
        return "a sequence of run-time length"
    if isinstance(value, OptionalValue):
        if value.presence is not None:
            return "an optional present at run time"
        return "an absent optional" if value.element is None else "a present optional"
    return "a tensor"


def leaves(value: Structured) -> list[Value]:
    """The tensors a value holds, in order."""
    if isinstance(value, SequenceValue):
        return list(value.items)
    if isinstance(value, RaggedSequence):
        return [value.values, value.shapes, value.length]
    if isinstance(value, OptionalValue):
        held = [] if value.element is None else leaves(value.element)
        return held if value.presence is None else [value.presence, *held]
    return [value]


def rebuild(like: Structured, tensors: Iterator[Value]) -> Structured:
    """A value of `like`'s structure holding the next tensors of `tensors`."""
    if isinstance(like, SequenceValue):
        return SequenceValue(tuple(next(tensors) for _ in like.items), like.dtype)
    if isinstance(like, RaggedSequence):
        parts = (next(tensors), next(tensors), next(tensors))
        return RaggedSequence(*parts, like.dtype, like.rank)
    if isinstance(like, OptionalValue):
        presence = None if like.presence is None else next(tensors)
        if like.element is None:
            return like
        element = rebuild(like.element, tensors)
        return OptionalValue(element, like.element_type, presence)  # type: ignore[arg-type]
    return next(tensors)


def structure_difference(a: Structured, b: Structured) -> str | None:
    """Why `a` and `b` cannot be one value chosen at run time (None: they
    hold the same number of tensors the same way)."""
    if type(a) is not type(b) and not (
        not isinstance(a, SequenceValue | OptionalValue)
        and not isinstance(b, SequenceValue | OptionalValue)
    ):
        return f"{describe(a)} and {describe(b)}"
    if isinstance(a, SequenceValue) and isinstance(b, SequenceValue):
        if len(a.items) != len(b.items):
            return f"{describe(a)} and {describe(b)}"
    if isinstance(a, RaggedSequence) and isinstance(b, RaggedSequence):
        if a.rank != b.rank:
            return f"sequences of rank-{a.rank} and rank-{b.rank} tensors"
    if isinstance(a, OptionalValue) and isinstance(b, OptionalValue):
        if (a.presence is None) != (b.presence is None) or (a.element is None) != (
            b.element is None
        ):
            return f"{describe(a)} and {describe(b)}"
        if a.element is not None and b.element is not None:
            return structure_difference(a.element, b.element)
    return None


def presence_differs(a: Structured, b: Structured) -> bool:
    """Whether `a` and `b` are optionals of known presence, one present and
    the other absent (an `If` makes that a run-time presence)."""
    return (
        isinstance(a, OptionalValue)
        and isinstance(b, OptionalValue)
        and a.presence is None
        and b.presence is None
        and (a.element is None) != (b.element is None)
    )


def is_structured(value: object) -> bool:
    """Whether `value` is a sequence or an optional."""
    return isinstance(value, SequenceValue | OptionalValue | RaggedSequence)


def tensor(value: Structured | None, what: str) -> Value:
    """`value`, which must be a tensor."""
    if value is None or is_structured(value):
        got = "missing" if value is None else describe(value)  # type: ignore[arg-type]
        raise ValueError(f"{what} must be a tensor, got {got}")
    return value  # type: ignore[return-value]


def sequence(value: Structured | None, what: str) -> SequenceValue:
    """`value`, which must be a sequence of known length."""
    if isinstance(value, RaggedSequence):
        raise Unsupported("on a sequence of run-time length")
    if not isinstance(value, SequenceValue):
        got = "missing" if value is None else describe(value)
        raise ValueError(f"{what} must be a sequence, got {got}")
    return value


def known_position(ctx: NodeContext, index: int, length: int, *, insert: bool) -> int:
    """Input `index` as a position into a sequence of `length` (past the end
    allowed when inserting), known at import; absent: the end."""
    value = ctx.optional_input(index)
    if value is None:
        return length if insert else length - 1
    if not isinstance(value, np.ndarray):
        raise Unsupported("with a position known only at run time")
    position = int(value.reshape(-1)[0])
    last = length if insert else length - 1
    if not -length <= position <= last:
        raise ValueError(
            f"position {position} is out of range for a sequence of {length} tensors"
        )
    return position + length if position < 0 else position


# ---------------------------------------------------------------------------
# Sequence ops
# ---------------------------------------------------------------------------


@converts("SequenceEmpty")
def convert_sequence_empty(ctx: NodeContext) -> list[Structured]:
    dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(ctx.attr("dtype", 1)))
    return [SequenceValue((), dtype.name)]


@converts("SequenceConstruct")
def convert_sequence_construct(ctx: NodeContext) -> list[Structured]:
    items = [tensor(v, f"input #{i}") for i, v in enumerate(ctx.inputs)]
    if not items:
        raise ValueError("SequenceConstruct needs at least one tensor")
    return [SequenceValue(tuple(items), dtype_name_of(items[0]))]


@converts("SequenceInsert")
def convert_sequence_insert(ctx: NodeContext) -> list[Structured]:
    given = ctx.optional_input(0)
    if isinstance(given, RaggedSequence):
        if ctx.optional_input(2) is not None:
            raise Unsupported("into a sequence of run-time length at a position")
        return [append(ctx, given, tensor(ctx.optional_input(1), "input #1"))]
    seq = sequence(given, "input #0")
    item = tensor(ctx.optional_input(1), "input #1")
    if dtype_name_of(item) != seq.dtype:
        raise ValueError(
            f"inserting a {dtype_name_of(item)} tensor into a sequence of {seq.dtype}"
        )
    position = ctx.optional_input(2)
    if position is not None and not isinstance(position, np.ndarray):
        return [_insert_at_run_time(ctx, seq, item, position)]
    at = known_position(ctx, 2, len(seq.items), insert=True)
    return [SequenceValue((*seq.items[:at], item, *seq.items[at:]), seq.dtype)]


def _insert_at_run_time(
    ctx: NodeContext, seq: SequenceValue, item: Value, position: Value
) -> RaggedSequence:
    """`item` inserted into `seq` at a run-time `position`: which tensor sits
    where is a run-time fact, so the result is a run-time container. With
    static shapes its tensors are static too: the values and shape rows are
    `ge.gather`s of the old ones and the item's at indices computed from the
    position (`j < offset: j; inside the item: from the item; after: j -
    item size`), all on the JIT."""
    rank, n = len(shape_of(item)), len(seq.items)
    if any(-1 in shape_of(v) for v in (*seq.items, item)):
        raise Unsupported("at a run-time position among tensors of run-time shapes")
    if any(len(shape_of(v)) != rank for v in seq.items):
        raise Unsupported("at a run-time position among tensors of different ranks")
    container = to_ragged(ctx.emitter, seq, rank, f"{ctx.name}/sequence")
    if dtype_name_of(position) != "int64":
        position = ctx.op("cast", position, dst_type="int64")
    at = ctx.op("reshape", position, shape=[])
    negative = ctx.op(
        "cast", ctx.op("less", at, np.array(0, np.int64)), dst_type="int64"
    )
    at = ctx.op("add", at, ctx.op("mul", negative, np.array(n, np.int64)), suffix="at")
    sizes = [int(np.prod(shape_of(v))) for v in seq.items]
    offsets = np.cumsum([0, *sizes]).astype(np.int64)
    offset = ctx.op("gather", offsets, at, axis=0, suffix="offset")
    size, total = int(np.prod(shape_of(item))), int(offsets[-1])
    values = _spliced(
        ctx,
        container.values,
        _flat(ctx.emitter, item, ctx.name),
        offset,
        total,
        size,
        "values",
    )
    shapes = _spliced(
        ctx,
        container.shapes,
        _shape_row(ctx.emitter, item, ctx.name),
        at,
        n,
        1,
        "shapes",
    )
    return RaggedSequence(values, shapes, np.array(n + 1, np.int64), seq.dtype, rank)


def _spliced(
    ctx: NodeContext,
    old: Value,
    new: Value,
    at: Value,
    length: int,
    size: int,
    what: str,
) -> Value:
    """`old` (`length` rows) with `new` (`size` rows) spliced in before row
    `at` (run time): one `ge.gather` of their concatenation."""
    rows = np.arange(length + size, dtype=np.int64)
    before = ctx.op("less", rows, at, suffix=f"{what}/before")
    inside = ctx.op("less", rows, ctx.op("add", at, np.array(size, np.int64)))
    from_new = ctx.op("add", ctx.op("sub", rows, at), np.array(length, np.int64))
    index = ctx.op(
        "select",
        before,
        rows,
        ctx.op("select", inside, from_new, rows - size),
        suffix=f"{what}/index",
    )
    joined = ctx.op("concat", [old, new], axis=0, suffix=f"{what}/joined")
    return ctx.op("gather", joined, index, axis=0, suffix=what)


@converts("SequenceErase")
def convert_sequence_erase(ctx: NodeContext) -> list[Structured]:
    seq = sequence(ctx.optional_input(0), "input #0")
    if not seq.items:
        raise ValueError("erasing from an empty sequence")
    at = known_position(ctx, 1, len(seq.items), insert=False)
    return [SequenceValue((*seq.items[:at], *seq.items[at + 1 :]), seq.dtype)]


@converts("SequenceAt")
def convert_sequence_at(ctx: NodeContext) -> list[Structured]:
    """The element itself; at a run-time position, a `ge.gather` of the
    stacked elements (which must share one shape)."""
    seq = sequence(ctx.optional_input(0), "input #0")
    if not seq.items:
        raise ValueError("reading from an empty sequence")
    position = ctx.optional_input(1)
    if isinstance(position, np.ndarray) or position is None:
        return [seq.items[known_position(ctx, 1, len(seq.items), insert=False)]]
    shapes = {shape_of(item) for item in seq.items}
    if len(shapes) != 1 or -1 in next(iter(shapes)):
        raise Unsupported(
            "at a run-time position into a sequence whose elements differ in shape"
        )
    stacked = _stack(ctx, seq.items)
    length = np.array(len(seq.items), np.int64)
    wrapped = ctx.op("mod", ctx.op("cast", position, dst_type="int64"), length)
    index = ctx.op("reshape", wrapped, shape=[], suffix="index")
    return [ctx.op("gather", stacked, index, axis=0, suffix="element")]


def _stack(ctx: NodeContext, items: Sequence[Value]) -> Value:
    """The items stacked along a new leading axis."""
    rows = [
        ctx.op("unsqueeze", v, axes=[0], suffix=f"row{i}") for i, v in enumerate(items)
    ]
    return ctx.op("concat", rows, axis=0, suffix="stacked")


@converts("SequenceLength")
def convert_sequence_length(ctx: NodeContext) -> list[Structured]:
    """A constant; of a sequence of run-time length, its shapes' row count."""
    given = ctx.optional_input(0)
    if isinstance(given, RaggedSequence):
        return [given.length]
    seq = sequence(given, "input #0")
    return [np.array(len(seq.items), np.int64)]


@converts("ConcatFromSequence")
def convert_concat_from_sequence(ctx: NodeContext) -> list[Structured]:
    """`ge.concat` of the elements (each unsqueezed first with `new_axis`)."""
    seq = sequence(ctx.optional_input(0), "input #0")
    if not seq.items:
        raise ValueError("concatenating an empty sequence")
    rank = len(shape_of(seq.items[0]))
    new_axis = bool(ctx.attr("new_axis", 0))
    axis = normalize_axis(ctx.attr("axis"), rank + new_axis)
    items = list(seq.items)
    if new_axis:
        items = [
            ctx.op("unsqueeze", v, axes=[axis], suffix=f"expand{i}")
            for i, v in enumerate(items)
        ]
    if len(items) == 1:
        return [ctx.op("identity", items[0])]
    return [ctx.op("concat", items, axis=axis)]


@converts("SplitToSequence")
def convert_split_to_sequence(ctx: NodeContext) -> list[Structured]:
    """`ge.split`: pieces of one element along `axis` (squeezed unless
    `keepdims`), a scalar `split`'s pieces, or a 1-D `split`'s sizes (known
    at import, or only their number)."""
    data = tensor(ctx.optional_input(0), "input #0")
    shape = shape_of(data)
    axis = normalize_axis(ctx.attr("axis", 0), len(shape))
    dtype = dtype_name_of(data)
    split = ctx.optional_input(1)
    if split is not None and len(shape_of(split)) == 1:
        if ctx.is_run_time(1):
            pieces = shape_of(split)[0]
            if pieces < 0:
                raise Unsupported("with a split of run-time length")
            results = ctx.parameterized_op(
                "split", [data], {"split": 1}, axis=axis, num_outputs=pieces
            )
            items = results if isinstance(results, list) else [results]
            return [SequenceValue(tuple(items), dtype)]
        sizes = [int(s) for s in np.asarray(split)]
    else:
        if shape[axis] < 0:
            raise Unsupported("along an axis of run-time length")
        if split is None:
            step = 1
        elif isinstance(split, np.ndarray):
            step = int(split.reshape(-1)[0])
        else:
            raise Unsupported("with a scalar split known only at run time")
        if step <= 0:
            raise ValueError(f"split {step} is not positive")
        sizes = [step] * (shape[axis] // step) + [shape[axis] % step] * bool(
            shape[axis] % step
        )
    if sum(sizes) != shape[axis] or any(s < 0 for s in sizes):
        raise ValueError(f"split sizes {sizes} do not add up to dim {shape[axis]}")
    if not sizes:
        return [SequenceValue((), dtype)]
    pieces = (
        ctx.parameterized_op(
            "split", [data], {}, axis=axis, split=sizes, num_outputs=len(sizes)
        )
        if len(sizes) > 1
        else [data]
    )
    pieces = pieces if isinstance(pieces, list) else [pieces]
    if split is None and not ctx.attr("keepdims", 1):
        pieces = [
            ctx.op("squeeze", p, axes=[axis], suffix=f"squeeze{i}")
            for i, p in enumerate(pieces)
        ]
    return [SequenceValue(tuple(pieces), dtype)]


@converts("SequenceMap")
def convert_sequence_map(ctx: NodeContext) -> list[Structured]:
    """The body once per element, inlined: element i of every sequence input
    (the tensor inputs as they are) in, element i of every output out."""
    body = ctx.graph("body")
    inputs = list(ctx.inputs)
    if any(isinstance(v, RaggedSequence) for v in inputs):
        raise Unsupported("over a sequence of run-time length")
    lengths = {len(v.items) for v in inputs if isinstance(v, SequenceValue)}
    if not isinstance(inputs[0], SequenceValue) or len(lengths) != 1:
        raise ValueError("the sequence inputs must be sequences of one length")
    if len(body.input) != len(inputs) or len(body.output) != ctx.num_outputs:
        raise ValueError("the body's inputs and outputs do not match the node's")
    (length,) = lengths
    outputs: list[list[Value]] = [[] for _ in body.output]
    for index in range(length):
        arguments = [
            v.items[index] if isinstance(v, SequenceValue) else tensor(v, "an input")
            for v in inputs
        ]
        for collected, value in zip(
            outputs, inline_body(ctx, body, arguments), strict=True
        ):
            collected.append(tensor(value, "a SequenceMap body output"))
    return [
        SequenceValue(tuple(items), element_dtype(output.type))
        for items, output in zip(outputs, body.output, strict=True)
    ]


def inline_body(
    ctx: NodeContext, graph: onnx.GraphProto, arguments: Sequence[Structured]
) -> list[Structured]:
    """`graph`'s nodes inlined into the current graph with its inputs bound
    to `arguments` (and the enclosing values it reads): its outputs."""
    assert ctx.subgraphs is not None
    bound: dict[str, Structured] = {}
    for name in free_names(graph):
        value = ctx.subgraphs.lookup(name)
        if value is None:
            raise Downstream
        bound[name] = value
    bound.update(zip((v.name for v in graph.input), arguments, strict=True))
    return ctx.subgraphs.body(graph, ctx.emitter, bound)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Sequences of run-time length
# ---------------------------------------------------------------------------


def _shape_row(emitter: GraphEmitter, item: Value, key: str) -> Value:
    """`item`'s shape as a `[1, rank]` int64 row (dims known only at run
    time read by `ge.shape`, GE's host op)."""
    dims = shape_of(item)
    if -1 not in dims:
        return np.array([dims], np.int64).reshape(1, len(dims))
    shape = emitter.emit("shape", [item], {}, f"{key}/shape")
    return emitter.emit("unsqueeze", [shape], {"axes": [0]}, f"{key}/shape_row")


def _flat(emitter: GraphEmitter, item: Value, key: str) -> Value:
    return emitter.emit("reshape", [item], {"shape": [-1]}, f"{key}/flat")


def to_ragged(
    emitter: GraphEmitter, seq: SequenceValue, rank: int, key: str
) -> RaggedSequence:
    """A sequence of known length as a run-time container of rank-`rank`
    elements (RankMismatch if one has another rank)."""
    for item in seq.items:
        if len(shape_of(item)) != rank:
            raise RankMismatch(len(shape_of(item)))
    values: Value = np.zeros(0, numpy_dtype(seq.dtype))
    shapes: Value = np.zeros((0, rank), np.int64)
    if seq.items:
        flats = [_flat(emitter, v, f"{key}/{i}") for i, v in enumerate(seq.items)]
        rows = [_shape_row(emitter, v, f"{key}/{i}") for i, v in enumerate(seq.items)]
        values = emitter.emit("concat", [flats], {"axis": 0}, f"{key}/values")
        shapes = emitter.emit("concat", [rows], {"axis": 0}, f"{key}/shapes")
    length = np.array(len(seq.items), np.int64)
    return RaggedSequence(values, shapes, length, seq.dtype, rank)


def append(ctx: NodeContext, seq: RaggedSequence, item: Value) -> RaggedSequence:
    """`seq` with `item` at its end: its elements and its shape appended."""
    if len(shape_of(item)) != seq.rank:
        raise RankMismatch(len(shape_of(item)))
    if dtype_name_of(item) != seq.dtype:
        raise ValueError(
            f"inserting a {dtype_name_of(item)} tensor into a sequence of {seq.dtype}"
        )
    emitter, key = ctx.emitter, ctx.name
    values = emitter.emit(
        "concat",
        [[seq.values, _flat(emitter, item, key)]],
        {"axis": 0},
        f"{key}/values",
    )
    row = _shape_row(emitter, item, key)
    shapes = emitter.emit("concat", [[seq.shapes, row]], {"axis": 0}, f"{key}/shapes")
    length = emitter.emit(
        "add", [seq.length, np.array(1, np.int64)], {}, f"{key}/length"
    )
    return RaggedSequence(values, shapes, length, seq.dtype, seq.rank)


def as_carried(
    emitter: GraphEmitter, value: Structured, like: Structured, key: str
) -> Structured:
    """A loop body's output `value` in the form of its loop variable `like`
    (a sequence of known length becomes a run-time container)."""
    if isinstance(like, OptionalValue) and like.element is not None:
        if isinstance(value, OptionalValue) and value.element is not None:
            value = value.element
        inner = as_carried(emitter, value, like.element, key)
        return OptionalValue(inner, like.element_type)  # type: ignore[arg-type]
    if isinstance(like, RaggedSequence) and isinstance(value, SequenceValue):
        return to_ragged(emitter, value, like.rank, key)
    return value


# ---------------------------------------------------------------------------
# Optional ops (and Identity, which passes any value through)
# ---------------------------------------------------------------------------


@converts("Optional")
def convert_optional(ctx: NodeContext) -> list[Structured]:
    value = ctx.optional_input(0)
    if value is not None:
        return [OptionalValue(value, type_string(value) or "")]
    declared = ctx.attr("type")
    if declared is None:
        raise ValueError("an empty Optional needs attribute 'type'")
    return [OptionalValue(None, type_proto_string(declared))]


@converts("OptionalHasElement")
def convert_optional_has_element(ctx: NodeContext) -> list[Structured]:
    """Known at import (an absent input or optional has none), or the
    run-time presence of an optional an `If` chose."""
    value = ctx.optional_input(0)
    if isinstance(value, OptionalValue) and value.presence is not None:
        return [value.presence]
    present = value is not None and not (
        isinstance(value, OptionalValue) and value.element is None
    )
    return [np.array(present)]


@converts("OptionalGetElement")
def convert_optional_get_element(ctx: NodeContext) -> list[Structured]:
    value = ctx.optional_input(0)
    if isinstance(value, OptionalValue):
        if value.presence is not None:
            raise Unsupported("of an optional whose presence is known only at run time")
        if value.element is None:
            raise ValueError("the optional input is empty")
        return [value.element]
    if value is None:
        raise ValueError("input #0 is missing")
    return [value]


@converts("Identity")
def convert_identity(ctx: NodeContext) -> list[Structured]:
    """`ge.identity` of a tensor; a sequence or optional is itself."""
    value = ctx.input(0)
    return [value if is_structured(value) else ctx.op("identity", value)]
