"""Lowerings of reducing ops: convolution, pooling, matrix products, softmax,
LRN, normalisations and reductions.

They share one shape: an accumulator (the result buffer when it is float32,
else a float32 scratch buffer in the result's layout) is initialised, then a
loop nest over output and reduction axes stores `acc[out] = acc[out] (+|max) v`,
then a final nest writes the result. Convolution on NC1HWC0 / FRACTAL_Z:

```mlir
affine.for %n, %c1o, %ho, %wo, %c0o, %c1i, %kh, %kw, %c0i {
  %x = affine.load %xpad[%n, %c1i, %ho * 2 + %kh, %wo * 2 + %kw, %c0i]
  %w = affine.load %w[%c1i * 9 + %kh * 3 + %kw, %c1o, %c0o, %c0i]
  %a = affine.load %acc[%n, %c1o, %ho, %wo, %c0o]
  affine.store (%a + %x * %w), %acc[%n, %c1o, %ho, %wo, %c0o]
}
```

Spatial padding is a scratch copy of the input with a border of zeros (or
-inf for max pooling), so no loop needs a condition.

Convolution and windowed pooling take their per-axis geometry from
`ge_dialect.ops.windows` and serve the 2-D and the 3-D ops alike (H W, or
D H W). Convolution, pooling and the matrix products are described once as a
`Reduction` (`conv_reduction`, ...): `reduce_to_result` emits it as the
three nests above, and a fused group (`passes/lowering/fused.py`) emits it
as one nest with the group's epilogue after the reduction loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, f32, f64, i64
from xdsl.ir import Attribute, Operation

from ge_dialect.formats import Format
from ge_dialect.ops import (
    Conv2DOp,
    InstanceNormOp,
    LogSoftmaxOp,
    LRNOp,
)
from ge_dialect.ops.matmul import MatrixProductOp
from ge_dialect.ops.nn import (
    GlobalPoolOp,
    MaxPoolWithArgmaxOp,
    MaxUnpoolOp,
    PoolOp,
)
from ge_dialect.ops.reduce import ArgReduceOp, AxisOp, LpNormOp, ReduceOp
from ge_dialect.ops.volume import Conv3DOp, Pool3DOp
from ge_dialect.ops.windows import (
    WindowAxis,
    result_axes,
    spatial_letters,
    spatial_values,
)
from passes.lowering.context import LoweringContext, broadcast_index
from passes.lowering.emitter import Buffer, Nest, Value, is_float
from passes.lowering.index import Ix, Var, blocks_needed
from passes.lowering.layouts import Layout, plain_layout
from passes.lowering.movement import copy, is_row_major
from passes.lowering.registry import heads_groups, lowers

Combine = Callable[[Nest, Value, Value], Value]


def _add(nest: Nest, a: Value, b: Value) -> Value:
    return nest.op(arith.AddfOp, a, b)


def _multiply(nest: Nest, a: Value, b: Value) -> Value:
    return nest.op(arith.MulfOp, a, b)


def _max(nest: Nest, a: Value, b: Value) -> Value:
    return nest.op(arith.MaximumfOp, a, b)


@dataclass(frozen=True)
class MaxOf:
    """How to take a maximum (or minimum) over values of one element type:
    the combine, and the identity (-inf, or the integer type's minimum)."""

    combine: Combine
    identity: float | int
    element_type: Attribute


def max_of(ctx: LoweringContext, buffer: Buffer) -> MaxOf:
    """The maximum over a float buffer (in float32) or an integer one."""
    return extreme_of(ctx, buffer, largest=True)


def accumulator_type(element: Attribute) -> Attribute:
    """What a reduction into `element` accumulates in: float32 for floats,
    the integer type itself for integers (exact, wrapping as it does)."""
    return f32 if is_float(element) else element


def accumulator(ctx: LoweringContext, y: Buffer) -> Buffer:
    """`y` itself when it has its accumulator type, else a scratch buffer of
    that type like it (its padding not zeroed: only valid elements are read)."""
    acc_type = accumulator_type(y.layout.element_type)
    if y.layout.element_type == acc_type:
        return y
    return ctx.temporary(y.layout.retyped(acc_type), zero_padding=False)


@dataclass(frozen=True)
class ProductArithmetic:
    """How a sum of products over operands of one element type runs: in
    float32 for floats, in the integer type itself for integers (int32
    ConvInteger/MatMulInteger sums are exact at any length)."""

    multiply: Combine
    add: Combine
    zero: Callable[[Nest, list[Ix]], Value]


def product_arithmetic(
    ctx: LoweringContext, y: Layout, *operands: Buffer
) -> ProductArithmetic:
    """The arithmetic of a product into `y` of `operands` (all floats, or
    integers no wider than y's integer type, widened to it: an int8
    convolution sums in int32)."""
    element = y.element_type
    if all(is_float(b.layout.element_type) for b in operands) and is_float(element):
        return ProductArithmetic(_multiply, _add, lambda nest, _: nest.const(0.0))
    if (
        not isinstance(element, IntegerType)
        or element.width.data == 1
        or not all(narrower_integer(b.layout.element_type, element) for b in operands)
    ):
        types = ", ".join(str(b.layout.element_type) for b in operands)
        raise ctx.error(f"has no loop lowering for products of {types} into {element}")

    def multiply(nest: Nest, a: Value, b: Value) -> Value:
        wide = (nest.convert(a, element), nest.convert(b, element))
        return nest.op(arith.MuliOp, *wide)

    return ProductArithmetic(
        multiply,
        lambda nest, a, b: nest.op(arith.AddiOp, a, b),
        lambda nest, _: nest.const(0, element),
    )


def narrower_integer(element: Attribute, wide: IntegerType) -> bool:
    """Whether `element` is an integer type (not i1) no wider than `wide`."""
    return (
        isinstance(element, IntegerType) and 1 < element.width.data <= wide.width.data
    )


def initialise(
    ctx: LoweringContext,
    acc: Buffer,
    value: float | Callable[[Nest, list[Ix]], Value],
) -> None:
    """Store a constant (or `value(nest, index)`) at every valid element of `acc`."""

    def body(nest: Nest, index: list[Ix]) -> None:
        v = nest.const(value) if isinstance(value, float) else value(nest, index)
        nest.store(v, acc, index)

    ctx.emitter.for_each(acc.layout.origin_shape, body)


def accumulate(
    ctx: LoweringContext,
    acc: Buffer,
    sizes: Sequence[int],
    acc_index: Callable[[list[Ix]], list[Ix]],
    term: Callable[[Nest, list[Ix]], Value],
    combine: Combine = _add,
    gathered: frozenset[int] = frozenset(),
) -> None:
    """`acc[acc_index(i)] = combine(acc[...], term(i))` for i over `sizes`
    (the axes `gathered` one loop each: `Reduction.gathered`)."""

    def body(nest: Nest, index: list[Ix]) -> None:
        value = term(nest, index)
        target = acc_index(index)
        nest.store(combine(nest, nest.load(acc, target), value), acc, target)

    ctx.emitter.for_each(sizes, body, gathered)


def finish(
    ctx: LoweringContext,
    y: Buffer,
    value: Callable[[Nest, list[Ix]], Value] | None,
    acc: Buffer,
) -> None:
    """Write `value(i)` (default: the accumulator) to the result, if needed."""
    if value is None:
        if acc is y:
            return

        def value(nest: Nest, index: list[Ix]) -> Value:
            return nest.load(acc, index)

    def body(nest: Nest, index: list[Ix]) -> None:
        nest.store(value(nest, index), y, index)

    ctx.emitter.for_each(y.layout.origin_shape, body)


Init = float | Callable[[Nest, list[Ix]], Value]
Final = Callable[[Nest, Value, list[Ix]], Value]


@dataclass(frozen=True)
class Reduction:
    """A reducing op: `acc[o] = init(o)` for each output element `o`, then
    `acc[at(i)] = combine(acc[at(i)], term(i))` for `i` over `sizes`, then
    `y[o] = final(acc[o], o)` (no `final`: `y = acc`).

    The axes of `sizes` in `reduced` are reduced; the others pick the output
    element `at(i)` (an origin index of the result). The axes in `gathered`
    stay one loop each, their accesses through `floordiv`/`mod` (a native
    kernel's gather) rather than split into a nest per block they cross.
    """

    sizes: tuple[int, ...]
    reduced: frozenset[int]
    at: Callable[[list[Ix]], list[Ix]]
    term: Callable[[Nest, list[Ix]], Value]
    init: Init = 0.0
    combine: Combine = _add
    final: Final | None = None
    gathered: frozenset[int] = frozenset()


def reduce_to_result(
    ctx: LoweringContext, reduction: Reduction, y: Buffer, acc: Buffer
) -> None:
    """Emit `reduction` as three nests: initialise `acc`, accumulate, write `y`."""
    initialise(ctx, acc, reduction.init)
    accumulate(
        ctx,
        acc,
        reduction.sizes,
        reduction.at,
        reduction.term,
        reduction.combine,
        reduction.gathered,
    )
    final = reduction.final
    if final is None:
        finish(ctx, y, None, acc)
        return
    finish(ctx, y, lambda nest, index: final(nest, nest.load(acc, index), index), acc)


def place(letters: str, **positions: Ix) -> list[Ix]:
    """An index in the axis order `letters` from per-letter values."""
    return [positions[letter] for letter in letters]


def padded_input(
    ctx: LoweringContext,
    x: Buffer,
    data_format: str,
    pads: Sequence[tuple[int, int]],
    fill: float,
) -> Buffer:
    """`x` copied into a scratch buffer with `pads` (begin, end) of `fill`
    around each spatial axis of `data_format` (x itself without pads).

    Only the border is filled (per spatial axis, the slabs before and after
    the copy, within the copy along the axes before it), not the whole
    buffer first.
    """
    shape = list(x.layout.origin_shape)
    axes = [data_format.index(a) for a in spatial_letters(data_format)]
    extents = [shape[a] for a in axes]
    if not any(begin or end for begin, end in pads):
        return x
    for a, (begin, end) in zip(axes, pads, strict=True):
        shape[a] += begin + end
    padded = ctx.temporary(x.layout.resized(shape))
    for k, (a, (begin, end)) in enumerate(zip(axes, pads, strict=True)):
        inner = {b: (pads[j][0], extents[j]) for j, b in enumerate(axes[:k])}
        for first, count in ((0, begin), (begin + extents[k], end)):
            if count <= 0 or any(size <= 0 for _, size in inner.values()):
                continue
            start = {a: first} | {b: at for b, (at, _) in inner.items()}
            extent = list(shape)
            extent[a] = count
            for b, (_, size) in inner.items():
                extent[b] = size
            fill_region(ctx, padded, start, tuple(extent), fill)
    offsets = {a: begin for a, (begin, _) in zip(axes, pads, strict=True)}

    def shifted(index: list[Ix]) -> list[Ix]:
        return [ix + offsets.get(k, 0) for k, ix in enumerate(index)]

    copy(ctx, x, padded, x.layout.origin_shape, target_index=shifted)
    return padded


def fill_region(
    ctx: LoweringContext,
    buffer: Buffer,
    start: dict[int, int],
    sizes: tuple[int, ...],
    value: float,
) -> None:
    """Store `value` at the origin elements of a box (`start` per axis, 0 if
    not given; `sizes`) of `buffer`."""

    def body(nest: Nest, index: list[Ix]) -> None:
        at = [ix + start.get(k, 0) for k, ix in enumerate(index)]
        nest.store(nest.const(value, buffer.layout.element_type), buffer, at)

    ctx.emitter.for_each(sizes, body)


def window_geometry(
    ctx: LoweringContext, x: Buffer, result: Sequence[int], kernel: Sequence[int]
) -> list[tuple[int, WindowAxis]]:
    """Position and geometry of each spatial axis of the window op at
    `ctx.op` from `x` to a result of shape `result`: `kernel` taps per
    spatial axis, the op's strides, dilations and pads."""
    data_format = str(ctx.attr("data_format"))
    return result_axes(
        x.layout.origin_shape,
        result,
        data_format,
        kernel,
        spatial_values(ctx.attr("strides"), data_format),
        spatial_values(ctx.attr("dilations"), data_format),
        list(ctx.attr("pads")),
    )


def live_window(
    axes: Sequence[tuple[int, WindowAxis]],
) -> tuple[list[int], list[tuple[int, WindowAxis]]]:
    """Per axis of `axes`, the first tap that can read the input and the
    axis cut to such taps (`WindowAxis.live_taps`)."""
    cuts = [g.live_taps() for _, g in axes]
    live = [(a, g) for (a, _), (_, g) in zip(axes, cuts, strict=True)]
    return [first for first, _ in cuts], live


def window_pads(axes: Sequence[tuple[int, WindowAxis]]) -> list[tuple[int, int]]:
    """The (begin, end) pads each window of `axes` fits in."""
    return [(g.pb, g.end_pad) for _, g in axes]


def require_float(ctx: LoweringContext, *buffers: Buffer) -> None:
    """Refuse, with the op's location, a lowering over non-float buffers."""
    if not all(is_float(b.layout.element_type) for b in buffers):
        raise ctx.error("has no loop lowering for non-float element types")


@lowers(Conv2DOp, Conv3DOp)
def lower_conv(ctx: LoweringContext, op: Operation) -> None:
    """Grouped, strided, dilated 2-D or 3-D convolution (cross-correlation)
    plus bias."""
    y = ctx.result()
    reduce_to_result(ctx, conv_reduction(ctx, y.layout), y, accumulator(ctx, y))


@heads_groups(Conv2DOp)
def conv_reduction(ctx: LoweringContext, y: Layout) -> Reduction:
    """The convolution at `ctx.op` with result layout `y`.

    Loops: N, groups, output channels per group, the output's spatial axes;
    reduction over input channels per group and the filter's spatial axes.
    Works for any activation/filter layouts. Where the channels of a group
    start inside a storage block (34 per group in blocks of 16), the loops
    of groups and of input channels are `gathered`: one nest (two with the
    output channels' last, partial block) reads them through
    `floordiv`/`mod`, rather than a nest per group and per block its
    channels cross, each with its own reduction's cuts. The output
    channels keep blocks from the group's start: whole vectors.
    """
    x, w, *bias = ctx.operands()
    arithmetic = product_arithmetic(ctx, y, x, w, *bias)
    data_format = str(ctx.attr("data_format"))
    letters = spatial_letters(data_format)
    filter_format = w.layout.origin_format
    w_letters = "NC" + letters if filter_format == Format.ND else filter_format.value
    groups = int(ctx.attr("groups"))
    n = x.layout.origin_shape[data_format.index("N")]
    cout, cin_g, *kernel = (
        w.layout.origin_shape[w_letters.index(a)] for a in "NC" + letters
    )
    firsts, axes = live_window(window_geometry(ctx, x, y.origin_shape, kernel))
    source = padded_input(ctx, x, data_format, window_pads(axes), 0.0)
    c_axis = data_format.index("C")
    per_group = cout // groups
    rank = len(letters)

    def bias_at(nest: Nest, index: list[Ix]) -> Value:
        return nest.load(bias[0], [index[c_axis]])

    def term(nest: Nest, index: list[Ix]) -> Value:
        b, g, o = index[:3]
        out, i, taps = index[3 : 3 + rank], index[3 + rank], index[4 + rank :]
        spatial = {
            letter: q * geometry.s + t * geometry.d
            for letter, q, t, (_, geometry) in zip(
                letters, out, taps, axes, strict=True
            )
        }
        xv = nest.load(source, place(data_format, N=b, C=g * cin_g + i, **spatial))
        filter_taps = {
            letter: t + first
            for letter, t, first in zip(letters, taps, firsts, strict=True)
        }
        wv = nest.load(w, place(w_letters, N=g * per_group + o, C=i, **filter_taps))
        return arithmetic.multiply(nest, xv, wv)

    def acc_index(index: list[Ix]) -> list[Ix]:
        b, g, o, *out = index[: 3 + rank]
        spatial = dict(zip(letters, out, strict=True))
        return place(data_format, N=b, C=g * per_group + o, **spatial)

    sizes = (
        n,
        groups,
        per_group,
        *(g.out for _, g in axes),
        cin_g,
        *(g.k for _, g in axes),
    )
    init = bias_at if bias else arithmetic.zero
    reduced = frozenset(range(3 + rank, 4 + 2 * rank))
    misaligned = groups > 1 and any(
        width % block and block % width
        for width, blocks in (
            (cin_g, channel_blocks(source.layout, c_axis)),
            (per_group, channel_blocks(y, c_axis)),
            (per_group, channel_blocks(w.layout, w_letters.index("N"))),
        )
        for block in blocks
    )
    gathered = frozenset({1, 3 + rank}) if misaligned else frozenset()
    return Reduction(
        sizes, reduced, acc_index, term, init, arithmetic.add, gathered=gathered
    )


def channel_blocks(layout: Layout, axis: int) -> set[int]:
    """The blocks the storage of `layout` splits origin axis `axis` into
    (NC1HWC0's C0; FRACTAL_Z's N0 and C0)."""
    shape = layout.origin_shape
    index = [Ix.of(Var(a, 0, size - 1)) for a, size in enumerate(shape)]
    return {
        block
        for ix in layout.storage_index(index)
        for var, block in blocks_needed(ix)
        if var.id == axis
    }


def window_counts(
    ctx: LoweringContext,
    extent: int,
    first: int,
    end: int,
    geometry: tuple[int, int, int, int],
) -> Buffer:
    """Per output position along one axis: the window taps in `first..end-1`
    (`geometry`: taps, stride, dilation, outputs)."""
    k, s, d, out = geometry
    mask = ctx.temporary(plain_layout((extent,), f32), fill=0.0)

    def one(nest: Nest, index: list[Ix]) -> None:
        nest.store(nest.const(1.0), mask, [index[0] + first])

    ctx.emitter.for_each((end - first,), one)
    counts = ctx.temporary(plain_layout((out,), f32), fill=0.0)
    accumulate(
        ctx,
        counts,
        (out, k),
        lambda index: [index[0]],
        lambda nest, index: nest.load(mask, [index[0] * s + index[1] * d]),
    )
    return counts


@lowers(PoolOp, Pool3DOp)
def lower_pool(ctx: LoweringContext, op: Operation) -> None:
    """Max / average / Lp pooling, 2-D or 3-D; padding never wins a max, is
    counted by the rule in an average and adds nothing to an Lp norm. An
    integer max pool accumulates in its own type (exact)."""
    y = ctx.result()
    reduce_to_result(ctx, pool_reduction(ctx, y.layout), y, accumulator(ctx, y))


def typed_constant(maximum: MaxOf) -> Callable[[Nest, list[Ix]], Value]:
    """An initial value: the maximum's identity in its element type."""
    return lambda nest, _: nest.const(maximum.identity, maximum.element_type)


def lp_power(nest: Nest, x: Value, p: float) -> Value:
    """`|x| ^ p` (p = 1: abs, p = 2: a square, as the reference computes)."""
    if p == 2:
        return nest.op(arith.MulfOp, x, x)
    magnitude = nest.op(math.AbsFOp, x)
    if p == 1:
        return magnitude
    return nest.op(math.PowFOp, magnitude, nest.const(p))


def lp_root(nest: Nest, total: Value, p: float) -> Value:
    """`total ^ (1/p)` (p = 1: itself, p = 2: a square root)."""
    if p == 1:
        return total
    if p == 2:
        return nest.op(math.SqrtOp, total)
    return nest.op(math.PowFOp, total, nest.const(1 / p))


@heads_groups(PoolOp)
def pool_reduction(ctx: LoweringContext, y: Layout) -> Reduction:
    """The max, average or Lp pooling at `ctx.op` with result layout `y`."""
    assert ctx.op is not None
    (x,) = ctx.operands()
    data_format = str(ctx.attr("data_format"))
    reduction = ctx.op.REDUCTION
    maximum = max_of(ctx, x) if reduction == "max" else None
    if maximum is None:
        require_float(ctx, x)
    axes = window_geometry(
        ctx, x, y.origin_shape, spatial_values(ctx.attr("ksize"), data_format)
    )
    _, live = live_window(axes)
    pad_value = maximum.identity if maximum is not None else 0.0
    source = padded_input(ctx, x, data_format, window_pads(live), pad_value)
    rank = len(y.origin_shape)

    def tap(nest: Nest, index: list[Ix]) -> Value:
        source_index = list(index[:rank])
        for k, (a, g) in enumerate(live):
            source_index[a] = index[a] * g.s + index[rank + k] * g.d
        return nest.load(source, source_index)

    sizes = (*y.origin_shape, *(g.k for _, g in live))
    reduced = frozenset(range(rank, len(sizes)))

    def at(index: list[Ix]) -> list[Ix]:
        return index[:rank]

    if maximum is not None:
        init = typed_constant(maximum)
        return Reduction(sizes, reduced, at, tap, init, maximum.combine)
    if reduction == "lp":
        p = float(ctx.attr("p"))
        return Reduction(
            sizes,
            reduced,
            at,
            lambda nest, index: lp_power(nest, tap(nest, index), p),
            final=lambda nest, total, _: lp_root(nest, total, p),
        )
    include_pad = bool(ctx.attr("count_include_pad"))
    counts = [
        window_counts(
            ctx,
            g.pb + g.size + g.end_pad,
            0 if include_pad else g.pb,
            g.pb + g.size + (g.pe if include_pad else 0),
            (g.k, g.s, g.d, g.out),
        )
        for _, g in axes
    ]

    def average(nest: Nest, total: Value, index: list[Ix]) -> Value:
        count, *others = (
            nest.load(c, [index[a]]) for c, (a, _) in zip(counts, axes, strict=True)
        )
        for other in others:
            count = nest.op(arith.MulfOp, count, other)
        return nest.op(arith.DivfOp, total, count)

    return Reduction(sizes, reduced, at, tap, final=average)


@lowers(MaxPoolWithArgmaxOp)
def lower_max_pool_with_argmax(ctx: LoweringContext, op: Operation) -> None:
    """Max pooling keeping, beside each running maximum, its flat NCHW
    position: a tap replaces both when it is larger, or when none is held
    yet (-1) and the tap lies inside the input (so padding never wins and
    an all -inf window keeps its first element)."""
    (x,) = ctx.operands()
    y, argmax = ctx.result(0), ctx.result(1)
    maximum = max_of(ctx, x)
    n, c, h, width = x.layout.origin_shape
    kh, kw = spatial_values(ctx.attr("ksize"), "NCHW")
    axes = window_geometry(ctx, x, y.layout.origin_shape, (kh, kw))
    (_, rows), (_, columns) = axes
    sh, sw, dh, dw = rows.s, columns.s, rows.d, columns.d
    top, left, ho, wo = rows.pb, columns.pb, rows.out, columns.out
    source = padded_input(ctx, x, "NCHW", window_pads(axes), maximum.identity)
    acc = accumulator(ctx, y)
    initialise(ctx, acc, typed_constant(maximum))
    initialise(ctx, argmax, lambda nest, _: nest.const(-1, i64))
    column_major = bool(ctx.attr("storage_order"))

    def body(nest: Nest, index: list[Ix]) -> None:
        b, ch, oh, ow, ih, iw = index
        at, out = [b, ch, oh * sh + ih * dh, ow * sw + iw * dw], index[:4]
        row, column = at[2] - top, at[3] - left
        plane = (b * c + ch) * (h * width)
        flat = plane + (row + column * h if column_major else row * width + column)
        tap, best = nest.load(source, at), nest.load(acc, out)
        held = nest.load(argmax, out, raw=True)
        inside = [
            nest.op(
                arith.CmpiOp,
                nest.index_value(ix),
                nest.const(bound, IndexType()),
                how,
            )
            for ix, bound, how in (
                (row, 0, "sge"),
                (row, h, "slt"),
                (column, 0, "sge"),
                (column, width, "slt"),
            )
        ]
        first = nest.op(arith.CmpiOp, held, nest.const(-1, i64), "eq")
        for condition in inside:
            first = nest.op(arith.AndIOp, first, condition)
        larger = maximum.combine(nest, tap, best)
        if is_float(larger.type):
            changed = nest.op(arith.CmpfOp, larger, best, "une")
        else:
            changed = nest.op(arith.CmpiOp, larger, best, "ne")
        take = nest.op(arith.OrIOp, first, changed)
        nest.store(nest.op(arith.SelectOp, take, tap, best), acc, out)
        position = nest.op(arith.IndexCastOp, nest.index_value(flat), i64)
        nest.store(nest.op(arith.SelectOp, take, position, held), argmax, out)

    ctx.emitter.for_each((n, c, ho, wo, kh, kw), body)
    finish(ctx, y, None, acc)


@lowers(MaxUnpoolOp)
def lower_max_unpool(ctx: LoweringContext, op: Operation) -> None:
    """Zeros, then one in-order nest over x storing each element at its
    flat position, split into the result's axes (`memref.store`)."""
    x, indices = ctx.operands()
    y = ctx.result()
    if not is_row_major(y.layout):
        raise ctx.error("scatters into a row-major result only")
    element = y.layout.element_type
    zero = 0.0 if is_float(element) else 0
    initialise(ctx, y, lambda nest, _: nest.const(zero, element))
    sizes = y.layout.origin_shape

    def body(nest: Nest, index: list[Ix]) -> None:
        raw = nest.load(indices, index, raw=True)
        flat = nest.op(arith.IndexCastOp, raw, IndexType())
        at = []
        for size in reversed(sizes):
            extent = nest.const(size, IndexType())
            at.append(nest.op(arith.RemUIOp, flat, extent))
            flat = nest.op(arith.DivUIOp, flat, extent)
        nest.store_at(nest.load(x, index, raw=True), y, at[::-1])

    ctx.emitter.for_each(x.layout.origin_shape, body)


@lowers(GlobalPoolOp)
def lower_global_pool(ctx: LoweringContext, op: Operation) -> None:
    """Mean or max over H and W."""
    y = ctx.result()
    reduction = global_pool_reduction(ctx, y.layout)
    reduce_to_result(ctx, reduction, y, accumulator(ctx, y))


@heads_groups(GlobalPoolOp)
def global_pool_reduction(ctx: LoweringContext, y: Layout) -> Reduction:
    """The global pooling at `ctx.op` (result layout `y`: H = W = 1)."""
    assert ctx.op is not None
    (x,) = ctx.operands()
    require_float(ctx, x)
    data_format = str(ctx.attr("data_format"))
    reduction = ctx.op.REDUCTION
    spatial = [data_format.index(a) for a in "HW"]
    sizes, reduced, at = x.layout.origin_shape, frozenset(spatial), keep_dims(spatial)

    def value(nest: Nest, index: list[Ix]) -> Value:
        return nest.load(x, index)

    if reduction == "max":
        return Reduction(sizes, reduced, at, value, float("-inf"), _max)
    if reduction == "lp":
        p = float(ctx.attr("p"))
        return Reduction(
            sizes,
            reduced,
            at,
            lambda nest, index: lp_power(nest, value(nest, index), p),
            final=lambda nest, total, _: lp_root(nest, total, p),
        )
    count = float(sizes[spatial[0]] * sizes[spatial[1]])

    def mean(nest: Nest, total: Value, index: list[Ix]) -> Value:
        return nest.op(arith.DivfOp, total, nest.const(count))

    return Reduction(sizes, reduced, at, value, final=mean)


def reduce_into(
    ctx: LoweringContext,
    x: Buffer,
    axes: Sequence[int],
    init: Init,
    term: Callable[[Nest, list[Ix]], Value],
    combine: Combine,
    element_type: Attribute = f32,
) -> Buffer:
    """A scratch buffer (float32 unless given) of x's shape with `axes` kept
    as size 1, reduced."""
    shape = tuple(1 if k in axes else d for k, d in enumerate(x.layout.origin_shape))
    acc = ctx.temporary(plain_layout(shape, element_type))
    initialise(ctx, acc, init)
    accumulate(ctx, acc, x.layout.origin_shape, keep_dims(axes), term, combine)
    return acc


def keep_dims(axes: Sequence[int]) -> Callable[[list[Ix]], list[Ix]]:
    """The index with the reduced axes set to 0."""
    return lambda index: [Ix.of(0) if k in axes else ix for k, ix in enumerate(index)]


@lowers(AxisOp)
def lower_softmax(ctx: LoweringContext, op: Operation) -> None:
    """softmax = exp(x - max) / sum(exp(x - max)), each exponential computed
    once: written to the result, summed from there in float64, divided in
    place (the result's type is the input's, so the stored exponentials are
    the values the sum and the quotient read).

    log_softmax = (x - max) - log(sum(exp(x - max))).
    """
    (x,) = ctx.operands()
    require_float(ctx, x)
    y = ctx.result()
    axes = [int(ctx.attr("axis")) % len(x.layout.origin_shape)]
    reduced = keep_dims(axes)
    peak = reduce_into(ctx, x, axes, float("-inf"), lambda n, i: n.load(x, i), _max)

    def shifted(nest: Nest, index: list[Ix]) -> Value:
        return nest.op(
            arith.SubfOp, nest.load(x, index), nest.load(peak, reduced(index))
        )

    if isinstance(op, LogSoftmaxOp) or y.layout.element_type != x.layout.element_type:

        def wide_exp(nest: Nest, index: list[Ix]) -> Value:
            return nest.convert(nest.op(math.ExpOp, shifted(nest, index)), f64)

        total = reduce_into(ctx, x, axes, 0.0, wide_exp, _add, f64)

        def from_input(nest: Nest, index: list[Ix]) -> Value:
            s = nest.load(total, reduced(index))
            if isinstance(op, LogSoftmaxOp):
                z = nest.convert(shifted(nest, index), f64)
                return nest.op(arith.SubfOp, z, nest.op(math.LogOp, s))
            return nest.op(arith.DivfOp, wide_exp(nest, index), s)

        finish(ctx, y, from_input, y)
        return
    finish(ctx, y, lambda nest, index: nest.op(math.ExpOp, shifted(nest, index)), y)

    def stored_exp(nest: Nest, index: list[Ix]) -> Value:
        return nest.convert(nest.load(y, index), f64)

    total = reduce_into(ctx, y, axes, 0.0, stored_exp, _add, f64)

    def quotient(nest: Nest, index: list[Ix]) -> Value:
        s = nest.load(total, reduced(index))
        return nest.op(arith.DivfOp, stored_exp(nest, index), s)

    finish(ctx, y, quotient, y)


@lowers(LpNormOp)
def lower_lp_norm(ctx: LoweringContext, op: Operation) -> None:
    """`x / norm` (0 where the norm is 0): the norm along `axis` reduced
    into a scratch buffer (`|x|` or `x * x` summed, then the root), then one
    elementwise nest."""
    (x,) = ctx.operands()
    require_float(ctx, x)
    y = ctx.result()
    axes = [int(ctx.attr("axis")) % len(x.layout.origin_shape)]
    p = float(ctx.attr("p"))
    reduced = keep_dims(axes)
    total = reduce_into(
        ctx, x, axes, 0.0, lambda n, i: lp_power(n, n.load(x, i), p), _add
    )

    def normalised(nest: Nest, index: list[Ix]) -> Value:
        norm = lp_root(nest, nest.load(total, reduced(index)), p)
        quotient = nest.op(arith.DivfOp, nest.load(x, index), norm)
        zero = nest.const(0.0)
        is_zero = nest.op(arith.CmpfOp, norm, zero, "oeq")
        return nest.op(arith.SelectOp, is_zero, zero, quotient)

    finish(ctx, y, normalised, y)


@lowers(ReduceOp)
def lower_reduce(ctx: LoweringContext, op: Operation) -> None:
    """reduce_sum / _mean / _max / _min / _prod over `axes` (all when empty)."""
    (x,) = ctx.operands()
    y = ctx.result()
    rank = len(x.layout.origin_shape)
    axes = sorted({a % rank for a in ctx.attr("axes")}) or list(range(rank))
    reduction = op.REDUCTION
    if reduction in ("max", "min"):
        extreme = extreme_of(ctx, x, largest=reduction == "max")
        acc = reduce_into(
            ctx,
            x,
            axes,
            typed_constant(extreme),
            lambda n, i: n.load(x, i),
            extreme.combine,
            extreme.element_type,
        )
    elif reduction == "prod":
        require_float(ctx, x)
        acc = reduce_into(ctx, x, axes, 1.0, lambda n, i: n.load(x, i), _multiply)
    elif reduction == "sum" and not is_float(x.layout.element_type):
        sums = product_arithmetic(ctx, y.layout, x)  # exact in the integer type
        acc = reduce_into(
            ctx, x, axes, sums.zero, lambda n, i: n.load(x, i), sums.add,
            y.layout.element_type,
        )  # fmt: skip
    else:
        require_float(ctx, x)
        acc = reduce_into(ctx, x, axes, 0.0, lambda n, i: n.load(x, i), _add)
    count = 1.0
    for a in axes:
        count *= x.layout.origin_shape[a]
    acc_index = kept_dims_index(rank, axes, len(y.layout.origin_shape) == rank)

    def value(nest: Nest, index: list[Ix]) -> Value:
        v = nest.load(acc, acc_index(index))
        if reduction == "mean":
            v = nest.op(arith.DivfOp, v, nest.const(count))
        return v

    finish(ctx, y, value, acc)


def kept_dims_index(
    rank: int, axes: Sequence[int], keep: bool
) -> Callable[[list[Ix]], list[Ix]]:
    """A result index (the reduced `axes` kept as size 1 or dropped) as the
    index of a rank-`rank` accumulator that kept them."""
    if keep:
        return lambda index: index
    kept = [k for k in range(rank) if k not in axes]

    def acc_index(index: list[Ix]) -> list[Ix]:
        full = [Ix.of(0)] * rank
        for k, ix in zip(kept, index, strict=True):
            full[k] = ix
        return full

    return acc_index


def extreme_of(ctx: LoweringContext, buffer: Buffer, largest: bool) -> MaxOf:
    """The maximum (`largest`) or minimum over a float buffer (in float32) or
    an integer one (signed; unsigned and i1 compare unsigned)."""
    element = buffer.layout.element_type
    if is_float(element):
        combine = arith.MaximumfOp if largest else arith.MinimumfOp
        return MaxOf(
            lambda nest, a, b: nest.op(combine, a, b),
            float("-inf") if largest else float("inf"),
            f32,
        )
    if not isinstance(element, IntegerType):
        raise ctx.error(f"has no loop lowering for an extreme over {element}")
    width = element.width.data
    if width == 1 or element.signedness.data == Signedness.UNSIGNED:
        ops, bounds = (arith.MaxUIOp, arith.MinUIOp), (0, (1 << width) - 1)
    else:
        ops = (arith.MaxSIOp, arith.MinSIOp)
        bounds = (-(1 << (width - 1)), (1 << (width - 1)) - 1)
    chosen = ops[0] if largest else ops[1]
    return MaxOf(
        lambda nest, a, b: nest.op(chosen, a, b),
        bounds[0] if largest else bounds[1],
        element,
    )


@lowers(ArgReduceOp)
def lower_arg_reduce(ctx: LoweringContext, op: Operation) -> None:
    """arg_max / arg_min along `axis`, as two reductions: the extreme, then
    the smallest (largest, with `select_last_index`) position holding it.

    A position holds the extreme when it equals it, or when both are NaN
    (NaN propagates through the extreme, so it is the extreme wherever it
    occurs, as NumPy's `argmax` says).
    """
    (x,) = ctx.operands()
    y = ctx.result()
    rank = len(x.layout.origin_shape)
    axis = int(ctx.attr("axis")) % rank
    extreme = extreme_of(ctx, x, op.REDUCTION == "max")
    peak = reduce_into(
        ctx,
        x,
        [axis],
        typed_constant(extreme),
        lambda n, i: n.load(x, i),
        extreme.combine,
        extreme.element_type,
    )
    last = bool(ctx.attr("select_last_index"))
    size = x.layout.origin_shape[axis]
    none = -1 if last else size
    reduced = keep_dims([axis])

    def position(nest: Nest, index: list[Ix]) -> Value:
        v, m = nest.load(x, index), nest.load(peak, reduced(index))
        if is_float(extreme.element_type):
            holds = nest.op(
                arith.OrIOp,
                nest.op(arith.CmpfOp, v, m, "oeq"),
                nest.op(arith.CmpfOp, v, v, "uno"),
            )
        else:
            holds = nest.op(arith.CmpiOp, v, m, "eq")
        at = nest.op(arith.IndexCastOp, nest.index_value(index[axis]), i64)
        return nest.op(arith.SelectOp, holds, at, nest.const(none, i64))

    found = reduce_into(
        ctx,
        x,
        [axis],
        lambda nest, _: nest.const(none, i64),
        position,
        lambda nest, a, b: nest.op(arith.MaxSIOp if last else arith.MinSIOp, a, b),
        i64,
    )
    acc_index = kept_dims_index(rank, [axis], len(y.layout.origin_shape) == rank)
    finish(ctx, y, lambda nest, index: nest.load(found, acc_index(index)), found)


@lowers(LRNOp)
def lower_lrn(ctx: LoweringContext, op: Operation) -> None:
    """x / (bias + alpha / size * sum of squares over a channel window) ** beta."""
    (x,) = ctx.operands()
    require_float(ctx, x)
    y = ctx.result()
    size = int(ctx.attr("size"))
    alpha, beta, bias = (float(ctx.attr(a)) for a in ("alpha", "beta", "bias"))
    axis = str(ctx.attr("data_format")).index("C")
    shape = list(x.layout.origin_shape)
    lo = (size - 1) // 2
    shape[axis] += size - 1
    squares = ctx.temporary(plain_layout(shape, f32), fill=0.0)

    def shifted(index: list[Ix], by: Ix | int) -> list[Ix]:
        return [ix + by if k == axis else ix for k, ix in enumerate(index)]

    def square(nest: Nest, index: list[Ix]) -> None:
        v = nest.load(x, index)
        nest.store(nest.op(arith.MulfOp, v, v), squares, shifted(index, lo))

    ctx.emitter.for_each(x.layout.origin_shape, square)
    sums = ctx.temporary(plain_layout(x.layout.origin_shape, f32))
    initialise(ctx, sums, 0.0)
    accumulate(
        ctx,
        sums,
        (*x.layout.origin_shape, size),
        lambda index: index[:-1],
        lambda nest, index: nest.load(squares, shifted(index[:-1], index[-1])),
    )

    def value(nest: Nest, index: list[Ix]) -> Value:
        scaled = nest.op(arith.MulfOp, nest.load(sums, index), nest.const(alpha / size))
        base = nest.op(arith.AddfOp, scaled, nest.const(bias))
        return nest.op(
            arith.DivfOp,
            nest.load(x, index),
            nest.op(math.PowFOp, base, nest.const(beta)),
        )

    finish(ctx, y, value, y)


@lowers(InstanceNormOp)
def lower_instance_norm(ctx: LoweringContext, op: Operation) -> None:
    """(x - mean) / sqrt(var + eps) * gamma + beta, statistics over H and W."""
    x, gamma, beta = ctx.operands()
    require_float(ctx, x)
    y = ctx.result()
    data_format = str(ctx.attr("data_format"))
    epsilon = float(ctx.attr("epsilon"))
    spatial = [data_format.index(a) for a in "HW"]
    c_axis = data_format.index("C")
    count = float(x.layout.origin_shape[spatial[0]] * x.layout.origin_shape[spatial[1]])
    reduced = keep_dims(spatial)
    total = reduce_into(ctx, x, spatial, 0.0, lambda n, i: n.load(x, i), _add)

    def centred(nest: Nest, index: list[Ix]) -> Value:
        mean = nest.op(
            arith.DivfOp, nest.load(total, reduced(index)), nest.const(count)
        )
        return nest.op(arith.SubfOp, nest.load(x, index), mean)

    squares = reduce_into(
        ctx,
        x,
        spatial,
        0.0,
        lambda n, i: n.op(arith.MulfOp, centred(n, i), centred(n, i)),
        _add,
    )

    def value(nest: Nest, index: list[Ix]) -> Value:
        var = nest.op(
            arith.DivfOp, nest.load(squares, reduced(index)), nest.const(count)
        )
        scale = nest.op(math.SqrtOp, nest.op(arith.AddfOp, var, nest.const(epsilon)))
        normed = nest.op(arith.DivfOp, centred(nest, index), scale)
        c = [index[c_axis]]
        return nest.op(
            arith.AddfOp,
            nest.op(arith.MulfOp, normed, nest.load(gamma, c)),
            nest.load(beta, c),
        )

    finish(ctx, y, value, y)


@lowers(MatrixProductOp)
def lower_matmul(ctx: LoweringContext, op: Operation) -> None:
    """matmul / batch_matmul / gemm: `alpha * op(a) @ op(b) + beta * c`."""
    y = ctx.result()
    reduction = matmul_reduction(ctx, y.layout)
    acc = (
        accumulator(ctx, y)
        if reduction.final is None
        else ctx.temporary(y.layout.retyped(accumulator_type(y.layout.element_type)))
    )
    reduce_to_result(ctx, reduction, y, acc)


@heads_groups(MatrixProductOp)
def matmul_reduction(ctx: LoweringContext, y: Layout) -> Reduction:
    """The matmul, batch_matmul or gemm at `ctx.op` with result layout `y`."""
    assert ctx.op is not None
    a, b, *extra = ctx.operands()
    arithmetic = product_arithmetic(ctx, y, a, b)
    assert isinstance(ctx.op, MatrixProductOp)
    trans_a, trans_b, alpha, beta = ctx.op.product_form()
    a_shape, b_shape = a.layout.origin_shape, b.layout.origin_shape
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise ctx.error("has no loop lowering for rank-1 operands")
    k = a_shape[-2] if trans_a else a_shape[-1]
    out_shape = y.origin_shape

    def operand_index(
        shape: tuple[int, ...], batch: list[Ix], row: Ix, col: Ix, swap: bool
    ):
        return [
            *broadcast_index(batch, shape[:-2]),
            *((col, row) if swap else (row, col)),
        ]

    def term(nest: Nest, index: list[Ix]) -> Value:
        *batch, m, n, kk = index
        av = nest.load(a, operand_index(a_shape, batch, m, kk, trans_a))
        bv = nest.load(b, operand_index(b_shape, batch, kk, n, trans_b))
        return arithmetic.multiply(nest, av, bv)

    sizes = (*out_shape, k)
    reduced = frozenset({len(out_shape)})

    def at(index: list[Ix]) -> list[Ix]:
        return index[:-1]

    if alpha == 1.0 and not extra:
        return Reduction(sizes, reduced, at, term, arithmetic.zero, arithmetic.add)
    if not is_float(y.element_type):
        if alpha != 1.0 or beta != 1.0:
            raise ctx.error("has no loop lowering for integer products with alpha")
        (c,) = extra
        product_arithmetic(ctx, y, c)  # c has y's integer type
        c_shape = c.layout.origin_shape

        def c_at(nest: Nest, index: list[Ix]) -> Value:
            return nest.load(c, broadcast_index(index, c_shape))

        return Reduction(sizes, reduced, at, term, c_at, arithmetic.add)

    def value(nest: Nest, v: Value, index: list[Ix]) -> Value:
        if alpha != 1.0:
            v = nest.op(arith.MulfOp, nest.const(alpha), v)
        if extra:
            c = nest.load(
                extra[0], broadcast_index(index, extra[0].layout.origin_shape)
            )
            if beta != 1.0:
                c = nest.op(arith.MulfOp, nest.const(beta), c)
            v = nest.op(arith.AddfOp, v, c)
        return v

    return Reduction(sizes, reduced, at, term, final=value)
