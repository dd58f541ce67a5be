"""What the importer knows of run-time shape vectors, entry by entry.

On a dynamic batch an exporter's `Shape(x) -> Gather -> Concat -> Reshape`
is a run-time value, but only its batch entry is unknown: `[?, 11, 4, 16]`.
The importer keeps these partial values (`Entries`, None for an unknown
entry) for the small integer vectors the shape ops compute, so that:

- a `Reshape` whose target has exactly one unknown entry (and no -1) is an
  ordinary `ge.reshape` with -1 there (exact: the element count fixes it);
- a target with more unknown entries, an `Expand` or a `ConstantOfShape`
  on a run-time shape get the known entries as static dims of their
  `ge.dynamic_reshape` / `ge.broadcast_to` / `ge.fill` result, so that the
  ops after them (an LSTM's sequence length, a matmul's K) stay static.

`ENTRY_RULES` maps an ONNX op type to how its result's entries follow from
its inputs'; the driver applies it after converting a node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import SSAValue

from ge_frontend.importing import Value, shape_of
from ge_frontend.onnx_context import NodeContext

Entries = tuple[int | None, ...]
"""A 1-D (or scalar) integer value's entries, None where only the run knows."""

MAX_ENTRIES = 64
"""Longer vectors are not shapes: not tracked."""


def entries_of(ctx: NodeContext, index: int) -> Entries | None:
    """The entries of input `index`: an import-time integer vector's values,
    a run-time value's tracked entries, or None."""
    value = ctx.optional_input(index)
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iu" or value.ndim > 1 or value.size > MAX_ENTRIES:
            return None
        return tuple(int(v) for v in value.reshape(-1))
    return ctx.emitter.entries.get(value)


def _shape(ctx: NodeContext) -> Entries | None:
    dims = shape_of(ctx.input(0))
    start, end = ctx.attr("start", 0), ctx.attr("end", len(dims))
    return tuple(None if d == -1 else d for d in dims[start:end])


def _concat(ctx: NodeContext) -> Entries | None:
    parts = [entries_of(ctx, i) for i in range(len(ctx.node.input))]
    if any(part is None for part in parts):
        return None
    return tuple(entry for part in parts for entry in part)  # type: ignore[union-attr]


def _same(ctx: NodeContext) -> Entries | None:
    """Unsqueeze, Squeeze, Reshape, Identity, integer Cast of a vector."""
    if len(shape_of(ctx.input(0))) > 1:
        return None
    return entries_of(ctx, 0)


def _gather(ctx: NodeContext) -> Entries | None:
    data, indices = entries_of(ctx, 0), ctx.input(1)
    if data is None or not isinstance(indices, np.ndarray):
        return None
    size = len(data)
    picked = [int(i) + size if int(i) < 0 else int(i) for i in indices.reshape(-1)]
    if not all(0 <= i < size for i in picked):
        return None
    return tuple(data[i] for i in picked)


def _slice(ctx: NodeContext) -> Entries | None:
    data = entries_of(ctx, 0)
    bounds = [ctx.optional_input(i) for i in range(1, 5)]
    if data is None or ctx.opset < 10:
        return None
    if not all(b is None or isinstance(b, np.ndarray) for b in bounds):
        return None
    starts, ends, _, steps = bounds  # 1-D: the one axis
    if starts is None or ends is None:
        return None
    step = 1 if steps is None else int(steps.reshape(-1)[0])
    window = slice(int(starts.reshape(-1)[0]), int(ends.reshape(-1)[0]), step)
    return tuple(data[window])


def _arithmetic(operation: Callable[[int, int], int]):
    def rule(ctx: NodeContext) -> Entries | None:
        a, b = entries_of(ctx, 0), entries_of(ctx, 1)
        if a is None or b is None or 1 not in (len(a), len(b)) and len(a) != len(b):
            return None
        width = max(len(a), len(b))
        a, b = a * width if len(a) == 1 else a, b * width if len(b) == 1 else b
        return tuple(
            None if x is None or y is None else operation(x, y)
            for x, y in zip(a, b, strict=True)
        )

    return rule


ENTRY_RULES: dict[str, Callable[[NodeContext], Entries | None]] = {
    "Shape": _shape,
    "Concat": _concat,
    "Unsqueeze": _same,
    "Squeeze": _same,
    "Reshape": _same,
    "Identity": _same,
    "Cast": _same,
    "Gather": _gather,
    "Slice": _slice,
    "Mul": _arithmetic(lambda x, y: x * y),
    "Add": _arithmetic(lambda x, y: x + y),
    "Sub": _arithmetic(lambda x, y: x - y),
}
"""ONNX op type -> the entries of its first result."""


def track_entries(ctx: NodeContext, results: Sequence[Value]) -> None:
    """Record the entries of the node's first result when it is a run-time
    value of at most one dim that `ENTRY_RULES` knows."""
    rule = ENTRY_RULES.get(ctx.node.op_type)
    if rule is None or not results or not isinstance(results[0], SSAValue):
        return
    if len(shape_of(results[0])) > 1:
        return
    entries = rule(ctx)
    if entries is not None and len(entries) <= MAX_ENTRIES:
        ctx.emitter.entries[results[0]] = entries
