"""Lowerings of data-movement ops: transdata, transpose, the reshape family,
concat, split, slice, pad and tile.

All are copies `y[i] = x[f(i)]` with `f` affine in the origin index. Storage
layouts need nothing special: `ge.transdata` NCHW -> NC1HWC0 is the copy
`y[i] = x[i]` where the two buffers index differently; padding stays zero
(the new buffer's zero fill) and is never read. Reshapes map through the
flat offset, which block splitting turns back into affine indices:

```mlir
// flatten 1x8x2x2 -> 1x32 iterates k = 4 * c + 2 * h + w
affine.store %v, %y[0, %c * 4 + %h * 2 + %w] ...
```
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, IntegerType
from xdsl.ir import Operation, SSAValue

from ge_dialect.constants import dense_to_numpy
from ge_dialect.numpy_helpers import pad_reach_error
from ge_dialect.ops import (
    ConcatOp,
    ConfusionTransposeOp,
    ConstOp,
    ExpandDimsOp,
    FlattenOp,
    GatherElementsOp,
    GatherNdOp,
    GatherOp,
    IdentityOp,
    PadOp,
    ReshapeOp,
    ShapeOfOp,
    SizeOp,
    SliceOp,
    SplitOp,
    SqueezeOp,
    TileOp,
    TransDataOp,
    TriluOp,
    UnsqueezeOp,
)
from ge_dialect.ops.movement import ChannelShuffleOp, slice_bounds
from ge_dialect.ops.trans import PermutationOp
from passes.lowering.context import LoweringContext
from passes.lowering.domain import probe_variables
from passes.lowering.emitter import Buffer, Nest, is_float
from passes.lowering.index import Ix
from passes.lowering.layouts import Layout, plain_layout
from passes.lowering.registry import lowers


def copy(
    ctx: LoweringContext,
    source: Buffer,
    target: Buffer,
    sizes: tuple[int, ...],
    source_index=lambda index: index,
    target_index=lambda index: index,
) -> None:
    """`target[target_index(i)] = source[source_index(i)]` for i over `sizes`."""

    def body(nest: Nest, index: list[Ix]) -> None:
        value = nest.load(source, source_index(index), raw=True)
        nest.store(value, target, target_index(index))

    ctx.emitter.for_each(sizes, body)


@lowers(TransDataOp)
def lower_transdata(ctx: LoweringContext, op: Operation) -> None:
    """Relayout: the same origin element, another storage position. A
    TransData with `perm` (it absorbed a transpose) also transposes."""
    if op.attributes.get("perm") is not None:
        lower_transpose(ctx, op)
        return
    (x,) = ctx.operands()
    y = ctx.result()
    copy(ctx, x, y, y.layout.origin_shape)


@lowers(IdentityOp)
def lower_identity(ctx: LoweringContext, op: Operation) -> None:
    """No data moves: the result shares the operand's buffer."""
    (x,) = ctx.operands()
    if ctx.layout(op.results[0]) != x.layout:
        lower_transdata(ctx, op)
        return
    ctx.alias(op.results[0], x)


def _permutation(ctx: LoweringContext, op: Operation) -> list[int]:
    if isinstance(op, PermutationOp):
        return op.permutation()
    assert isinstance(op, TransDataOp)
    return list(op.origin_permutation())


IndexMap = Callable[[list[Ix]], list[Ix]]


def transposed_index(perm: Sequence[int]) -> IndexMap:
    """Source index of a transpose by `perm`: j[perm[k]] = i[k]."""

    def source_index(index: list[Ix]) -> list[Ix]:
        result = [Ix.of(0)] * len(perm)
        for k, p in enumerate(perm):
            result[p] = index[k]
        return result

    return source_index


@lowers(PermutationOp)
def lower_transpose(ctx: LoweringContext, op: Operation) -> None:
    """`y = x.transpose(perm)`: y[i] = x[j] with j[perm[k]] = i[k]."""
    (x,) = ctx.operands()
    y = ctx.result()
    perm = _permutation(ctx, op)
    copy(ctx, x, y, y.layout.origin_shape, transposed_index(perm))


def _row_major_strides(shape: tuple[int, ...]) -> list[int]:
    return [int(np.prod(shape[k + 1 :], dtype=np.int64)) for k in range(len(shape))]


def reshaped_index(in_shape: Sequence[int], out_shape: Sequence[int]) -> IndexMap:
    """Source index of a reshape from `in_shape` to `out_shape` (row-major)."""
    out_strides = _row_major_strides(tuple(out_shape))
    in_strides = _row_major_strides(tuple(in_shape))

    def source_index(index: list[Ix]) -> list[Ix]:
        flat = Ix.of(0)
        for position, stride in zip(index, out_strides, strict=True):
            flat = flat + position * stride
        return [
            flat.floordiv(stride).mod(size)
            for stride, size in zip(in_strides, in_shape, strict=True)
        ]

    return source_index


@lowers(ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ExpandDimsOp)
def lower_reshape(ctx: LoweringContext, op: Operation) -> None:
    """Reshape, flatten, squeeze, unsqueeze, expand_dims: same row-major order."""
    (x,) = ctx.operands()
    y = ctx.result()
    in_shape, out_shape = x.layout.origin_shape, y.layout.origin_shape
    copy(ctx, x, y, out_shape, reshaped_index(in_shape, out_shape))


@lowers(ConfusionTransposeOp)
def lower_confusion_transpose(ctx: LoweringContext, op: Operation) -> None:
    """Reshape then transpose (or the other way round): one copy whose source
    index composes the two maps; the layouts (FRACTAL_NZ in and out) are
    read and written through their index maps."""
    assert isinstance(op, ConfusionTransposeOp)
    (x,) = ctx.operands()
    y = ctx.result()
    attrs = op.transpose_attributes()
    perm, shape = attrs["perm"], tuple(attrs["shape"])
    in_shape = x.layout.origin_shape
    if attrs["transpose_first"]:
        middle = tuple(in_shape[p] for p in perm)
        outer, inner = reshaped_index(middle, shape), transposed_index(perm)
    else:
        outer, inner = transposed_index(perm), reshaped_index(in_shape, shape)
    copy(ctx, x, y, y.layout.origin_shape, lambda index: inner(outer(index)))


def _axis(ctx: LoweringContext, rank: int) -> int:
    return int(ctx.attr("axis")) % rank


def _shifted(index: list[Ix], axis: int, offset: int) -> list[Ix]:
    return [ix + offset if k == axis else ix for k, ix in enumerate(index)]


@lowers(ConcatOp)
def lower_concat(ctx: LoweringContext, op: Operation) -> None:
    """Copy each input to its offset on the axis (C1-aligned offsets stay affine)."""
    inputs = ctx.operands()
    y = ctx.result()
    axis = _axis(ctx, len(y.layout.origin_shape))
    offset = 0
    for x in inputs:
        copy(
            ctx,
            x,
            y,
            x.layout.origin_shape,
            target_index=lambda index, o=offset: _shifted(index, axis, o),
        )
        offset += x.layout.origin_shape[axis]


@lowers(SplitOp)
def lower_split(ctx: LoweringContext, op: Operation) -> None:
    """Each result copies its slice of the input along the axis."""
    (x,) = ctx.operands()
    axis = _axis(ctx, len(x.layout.origin_shape))
    offset = 0
    for index in range(len(op.results)):
        y = ctx.result(index)
        copy(
            ctx,
            x,
            y,
            y.layout.origin_shape,
            source_index=lambda i, o=offset: _shifted(i, axis, o),
        )
        offset += y.layout.origin_shape[axis]


@lowers(ChannelShuffleOp)
def lower_channel_shuffle(ctx: LoweringContext, op: Operation) -> None:
    """`y[n, c, ...] = x[n, (c % g) * (C / g) + c // g, ...]`: one copy whose
    channel index is affine in `c % g` and `c // g` (any layout, NC1HWC0
    included: the index goes through the layout's map)."""
    (x,) = ctx.operands()
    y = ctx.result()
    groups = int(ctx.attr("groups"))
    per_group = x.layout.origin_shape[1] // groups

    def source_index(index: list[Ix]) -> list[Ix]:
        channel = index[1]
        shuffled = channel.mod(groups) * per_group + channel.floordiv(groups)
        return [index[0], shuffled, *index[2:]]

    copy(ctx, x, y, y.layout.origin_shape, source_index)


@lowers(SliceOp)
def lower_slice(ctx: LoweringContext, op: Operation) -> None:
    """ONNX Slice: per axis `start + step * i` (clamped as the host kernel does)."""
    (x,) = ctx.operands()
    y = ctx.result()
    shape = x.layout.origin_shape
    begins, ends = ctx.attr("begins"), ctx.attr("ends")
    axes = op.attributes.get("axes") and ctx.attr("axes") or list(range(len(begins)))
    steps = op.attributes.get("steps") and ctx.attr("steps") or [1] * len(begins)
    starts, strides = [0] * len(shape), [1] * len(shape)
    for begin, end, axis, step in zip(begins, ends, axes, steps, strict=True):
        axis %= len(shape)
        start, stop = slice_bounds(shape[axis], begin, end, step)
        if (stop - start) * step > 0:
            starts[axis], strides[axis] = start, step

    def source_index(index: list[Ix]) -> list[Ix]:
        return [i * s + b for i, s, b in zip(index, strides, starts, strict=True)]

    copy(ctx, x, y, y.layout.origin_shape, source_index)


@lowers(PadOp)
def lower_pad(ctx: LoweringContext, op: Operation) -> None:
    """Padding (ONNX Pad; negative amounts crop). `constant`: fill with the
    value, then copy the kept input region. `edge` / `reflect` / `wrap`: per
    axis the output splits into the left border, the interior and the right
    border, each an affine function of the input index (`edge`: the first or
    last element; `reflect`: `b - i` and `n - 2 - i`, the edge not repeated;
    `wrap`: runs of consecutive input elements, one per turn around the
    axis); one copy nest per combination of regions."""
    mode = ctx.attr("mode")
    (x,) = ctx.operands()
    y = ctx.result()
    rank = len(x.layout.origin_shape)
    paddings = list(ctx.attr("paddings"))
    begins, ends = paddings[:rank], paddings[rank:]
    first = [max(-b, 0) for b in begins]
    sizes = tuple(
        size - max(-b, 0) - max(-e, 0)
        for size, b, e in zip(x.layout.origin_shape, begins, ends, strict=True)
    )
    if mode != "constant":
        _pad_by_regions(ctx, x, y, str(mode), first, sizes, begins, ends)
        return
    value = float(ctx.attr("value"))

    def fill(nest: Nest, index: list[Ix]) -> None:
        nest.store(nest.const(value, y.layout.element_type), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, fill)
    copy(
        ctx,
        x,
        y,
        sizes,
        source_index=lambda index: [i + f for i, f in zip(index, first, strict=True)],
        target_index=lambda index: [
            i + max(b, 0) for i, b in zip(index, begins, strict=True)
        ],
    )


Region = tuple[int, int, Callable[[Ix], Ix]]
"""Along one axis: output start, length, input index of the i-th element."""


def _wrapped_regions(first: int, size: int, start: int, length: int, at: int):
    """`length` outputs from `at` on reading the kept input (`size` from
    `first`) around from its element `start`: one region per turn."""
    regions: list[Region] = []
    while length > 0:
        run = min(size - start, length)
        regions.append((at, run, lambda i, s=first + start: i + s))
        at, length, start = at + run, length - run, 0
    return regions


def _pad_regions(mode: str, first: int, size: int, before: int, after: int):
    """The regions of one padded axis (`first`: where the kept input starts)."""
    regions: list[Region] = [(before, size, lambda i: i + first)]
    if mode == "wrap":
        regions += _wrapped_regions(first, size, -before % size, before, 0)
        regions += _wrapped_regions(first, size, 0, after, before + size)
        return regions
    if before:
        left = (
            (lambda i: Ix.of(first))
            if mode == "edge"
            else (lambda i: Ix.of(first + before) - i)
        )
        regions.append((0, before, left))
    if after:
        right = (
            (lambda i: Ix.of(first + size - 1))
            if mode == "edge"
            else (lambda i: Ix.of(first + size - 2) - i)
        )
        regions.append((before + size, after, right))
    return regions


def _pad_by_regions(
    ctx: LoweringContext,
    x: Buffer,
    y: Buffer,
    mode: str,
    first: Sequence[int],
    sizes: Sequence[int],
    begins: Sequence[int],
    ends: Sequence[int],
) -> None:
    """`edge` / `reflect` / `wrap` padding (see `lower_pad`)."""
    if mode not in ("edge", "reflect", "wrap"):
        raise ctx.error(f"has no loop lowering for mode '{mode}'")
    pairs = list(zip(begins, ends, strict=True))
    if (reason := pad_reach_error(x.layout.origin_shape, pairs, mode)) is not None:
        raise ctx.error(reason)
    grown = [(max(b, 0), max(e, 0)) for b, e in pairs]
    axes = [
        _pad_regions(mode, f, n, before, after)
        for f, n, (before, after) in zip(first, sizes, grown, strict=True)
    ]
    for combination in itertools.product(*axes):
        lengths = tuple(length for _, length, _ in combination)
        if 0 in lengths:
            continue
        copy(
            ctx,
            x,
            y,
            lengths,
            source_index=lambda index, c=combination: [
                source(i) for i, (_, _, source) in zip(index, c, strict=True)
            ],
            target_index=lambda index, c=combination: [
                i + start for i, (start, _, _) in zip(index, c, strict=True)
            ],
        )


@lowers(TileOp)
def lower_tile(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = x[i mod shape(x)]`."""
    (x,) = ctx.operands()
    y = ctx.result()
    shape = x.layout.origin_shape
    copy(
        ctx,
        x,
        y,
        y.layout.origin_shape,
        lambda index: [i.mod(s) for i, s in zip(index, shape, strict=True)],
    )


def is_row_major(layout: Layout) -> bool:
    """Whether origin index `i` is storage index `i` (a plain buffer)."""
    index = probe_variables(layout.origin_shape)
    return (
        layout.storage_shape == layout.origin_shape
        and layout.storage_index(index) == index
    )


@lowers(GatherOp)
def lower_gather(ctx: LoweringContext, op: Operation) -> None:
    """`y[a, j, b] = x[a, indices[j], b]` along `axis`: the index is loaded,
    made non-negative (`i < 0`: `i + size`) and used by a `memref.load`
    (data-dependent: `x` is read row-major, see `_gather_operands`).
    Constant indices that are an affine function of their position (one
    position, a strided range) are a slice: an affine copy from `x` in its
    own layout (BLOOM's query, key and value taken from the fused
    projection)."""
    rank = len(ctx.operands()[0].layout.origin_shape)
    axis = int(ctx.attr("axis")) % rank
    size = ctx.operands()[0].layout.origin_shape[axis]
    table = affine_table(constant_integers(op.operands[1]), size)
    if table is not None:
        _gather_slice(ctx, axis, table)
        return
    x, indices = _gather_operands(ctx)
    y = ctx.result()
    count = len(indices.layout.origin_shape)

    def body(nest: Nest, index: list[Ix]) -> None:
        raw = nest.load(indices, index[axis : axis + count], raw=True)
        at = [
            *(nest.index_value(ix) for ix in index[:axis]),
            wrapped_index(ctx, nest, raw, size, axis),
            *(nest.index_value(ix) for ix in index[axis + count :]),
        ]
        nest.store(nest.load_at(x, at), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def constant_integers(indices: SSAValue) -> np.ndarray | None:
    """The values of inline constant integer `indices` (None when they are
    not such a constant)."""
    owner = indices.owner
    if not isinstance(owner, ConstOp) or not isinstance(
        owner.value, DenseIntOrFPElementsAttr
    ):
        return None
    values = dense_to_numpy(owner.value)
    return values if values.dtype.kind in "iu" else None


AffineTable = tuple[int, tuple[int, ...]]
"""Constant indices as `offset + sum(slopes[d] * position[d])` over the
positions of their table."""


def affine_table(values: np.ndarray | None, size: int) -> AffineTable | None:
    """`values`, constant indices into an axis of `size` made non-negative as
    a gather's (`i < 0`: `i + size`), as an affine function of their
    position in the table: (offset, slope per table axis); None unless
    every value is in range and they are exactly that (an out-of-range
    index stays a run-time check, with its message)."""
    if values is None or not values.size:
        return None
    if ((values < -size) | (values >= size)).any():
        return None
    wrapped = np.where(values < 0, values + size, values).astype(np.int64)
    origin = wrapped[(0,) * wrapped.ndim]
    slopes = tuple(
        int(wrapped[tuple(int(a == d) for a in range(wrapped.ndim))] - origin)
        if extent > 1
        else 0
        for d, extent in enumerate(wrapped.shape)
    )
    expected = np.asarray(origin, np.int64)
    for d, slope in enumerate(slopes):  # broadcast: no table of positions per axis
        along = np.arange(wrapped.shape[d], dtype=np.int64) * slope
        expected = expected + along.reshape(
            [-1 if a == d else 1 for a in range(wrapped.ndim)]
        )
    if not np.array_equal(wrapped, expected):
        return None
    return int(origin), slopes


def affine_index(table: AffineTable, positions: Sequence[Ix]) -> Ix:
    """The index `table` holds at `positions` (one per table axis)."""
    offset, slopes = table
    index = Ix.of(offset)
    for slope, position in zip(slopes, positions, strict=True):
        if slope:
            index = index + position * slope
    return index


def _gather_slice(ctx: LoweringContext, axis: int, table: AffineTable) -> None:
    """`y[a, j.., b] = x[a, table(j..), b]`: a gather of affine constant
    indices (`affine_table`)."""
    x, _ = ctx.operands()
    y = ctx.result()
    count = len(y.layout.origin_shape) - len(x.layout.origin_shape) + 1

    def source(index: list[Ix]) -> list[Ix]:
        position = affine_index(table, index[axis : axis + count])
        return [*index[:axis], position, *index[axis + count :]]

    copy(ctx, x, y, y.layout.origin_shape, source)


@lowers(GatherElementsOp)
def lower_gather_elements(ctx: LoweringContext, op: Operation) -> None:
    """`y[i] = x[i with i[axis] = indices[i]]` over the indices' shape (the
    index made non-negative as for `ge.gather`)."""
    x, indices = _gather_operands(ctx)
    y = ctx.result()
    axis = int(ctx.attr("axis")) % len(x.layout.origin_shape)
    size = x.layout.origin_shape[axis]

    def body(nest: Nest, index: list[Ix]) -> None:
        raw = nest.load(indices, index, raw=True)
        at = [nest.index_value(ix) for ix in index]
        at[axis] = wrapped_index(ctx, nest, raw, size, axis)
        nest.store(nest.load_at(x, at), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


@lowers(GatherNdOp)
def lower_gather_nd(ctx: LoweringContext, op: Operation) -> None:
    """`y[B, I, T] = x[B, indices[B, I, 0..k-1], T]`: per result element the
    k entries of its index tuple are loaded and made non-negative."""
    x, indices = _gather_operands(ctx)
    y = ctx.result()
    batch = int(ctx.attr("batch_dims"))
    index_rank = len(indices.layout.origin_shape)
    depth = indices.layout.origin_shape[-1]
    sizes = x.layout.origin_shape[batch : batch + depth]

    def body(nest: Nest, index: list[Ix]) -> None:
        leading = index[: index_rank - 1]
        tuple_entries = [
            wrapped_index(
                ctx,
                nest,
                nest.load(indices, [*leading, Ix.of(j)], raw=True),
                size,
                batch + j,
            )
            for j, size in enumerate(sizes)
        ]
        at = [
            *(nest.index_value(ix) for ix in index[:batch]),
            *tuple_entries,
            *(nest.index_value(ix) for ix in index[index_rank - 1 :]),
        ]
        nest.store(nest.load_at(x, at), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


def _gather_operands(ctx: LoweringContext) -> tuple[Buffer, Buffer]:
    """A gather's `x`, row-major (its loads are data-dependent: an `x` in
    another layout, NC1HWC0, FRACTAL_NZ, ..., is first copied into a
    row-major scratch buffer), and its integer `indices`."""
    x, indices = ctx.operands()
    if not isinstance(indices.layout.element_type, IntegerType):
        raise ctx.error("indices must be integers")
    if not is_row_major(x.layout):
        x = row_major_copy(ctx, x)
    return x, indices


def row_major_copy(ctx: LoweringContext, x: Buffer) -> Buffer:
    """`x` copied into a row-major scratch buffer (for data-dependent loads)."""
    plain = ctx.temporary(plain_layout(x.layout.origin_shape, x.layout.element_type))
    copy(ctx, x, plain, x.layout.origin_shape)
    return plain


def wrapped_index(
    ctx: LoweringContext, nest: Nest, raw: SSAValue, size: int, axis: int
) -> SSAValue:
    """Index value `raw` (an integer) as an index, `+ size` when negative;
    outside `[-size, size)` the run fails with a diagnostic at the op."""
    position = nest.op(arith.IndexCastOp, raw, IndexType())
    zero = nest.const(0, IndexType())
    bound = nest.const(size, IndexType())
    wrapped = nest.op(arith.AddiOp, position, bound)
    above = nest.op(arith.CmpiOp, position, nest.const(-size, IndexType()), "sge")
    below = nest.op(arith.CmpiOp, position, bound, "slt")
    message = f"index out of range [{-size}, {size - 1}] on axis {axis}"
    nest.check(nest.op(arith.AndIOp, above, below), str(ctx.error(message)))
    negative = nest.op(arith.CmpiOp, position, zero, "slt")
    return nest.op(arith.SelectOp, negative, wrapped, position)


@lowers(TriluOp)
def lower_trilu(ctx: LoweringContext, op: Operation) -> None:
    """`y[..., i, j] = x[..., i, j] if j >= i + k else 0` (upper; lower:
    `j <= i + k`), `k` read from its 0-d buffer when given."""
    x, *offset = ctx.operands()
    y = ctx.result()
    compare = "sge" if ctx.attr("upper") else "sle"
    element = x.layout.element_type
    zero = 0.0 if is_float(element) else 0

    def body(nest: Nest, index: list[Ix]) -> None:
        value = nest.load(x, index, raw=True)
        diagonal = nest.index_value(index[-2])
        if offset:
            (k,) = offset
            raw = nest.load(k, [Ix.of(0)] * len(k.layout.origin_shape), raw=True)
            shift = nest.op(arith.IndexCastOp, raw, IndexType())
            diagonal = nest.op(arith.AddiOp, diagonal, shift)
        keep = nest.op(arith.CmpiOp, nest.index_value(index[-1]), diagonal, compare)
        chosen = nest.op(arith.SelectOp, keep, value, nest.const(zero, element))
        nest.store(chosen, y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


@lowers(ShapeOfOp, SizeOp)
def lower_static_value(ctx: LoweringContext, op: Operation) -> None:
    """`ge.shape`/`ge.size` of a static shape (the only kind a lowered graph
    has): the int64 value copied from a constant table."""
    value = op.static_value()  # type: ignore[attr-defined]
    if value is None:
        raise ctx.error("reads a dynamic shape, which only the host knows")
    y = ctx.result()
    if np.size(value) == 0:
        return  # an empty selection of dims: nothing to store
    table = ctx.table(np.asarray(value, np.int64))
    copy(ctx, table, y, y.layout.origin_shape)
