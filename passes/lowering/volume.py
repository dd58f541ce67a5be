"""Lowering `ge.conv3d`, `ge.conv3d_transpose`, `ge.max_pool3d` and
`ge.avg_pool3d` to loops.

The input is copied into a scratch volume with the pads around it (D, H
and W at once; zeros, or the lowest value for a max pool), then one
reduction. A convolution loops N, groups, output channels per group, Do,
Ho, Wo, summing input channels per group, kd, kh, kw; a pool loops over
the result's axes and combines kd, kh, kw (an average divides by the
product of per-axis tap counts). A transposed convolution adds one such
sum per output phase (the outputs `q * stride + r` of each axis take only
the taps that divide), so it never multiplies a stride's zeros. Loads go
through the operands' layouts, so NDC1HWC0 activations and FRACTAL_Z_3D
filters are read in place.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import Operation

from ge_dialect.ops.volume import Conv3DOp, Conv3DTransposeOp, Pool3DOp
from ge_dialect.ops.windows import pool_axes
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value
from passes.lowering.index import Ix
from passes.lowering.movement import copy
from passes.lowering.nn import (
    Reduction,
    accumulate,
    accumulator,
    finish,
    initialise,
    max_of,
    place,
    product_arithmetic,
    reduce_to_result,
    require_float,
    typed_constant,
    window_counts,
)
from passes.lowering.registry import lowers


def padded_volume(
    ctx: LoweringContext,
    x: Buffer,
    data_format: str,
    pads: list[int],
    fill: float = 0.0,
) -> tuple[Buffer, list[int]]:
    """`x` in a scratch buffer filled with `fill`, with `pads` ([front,
    back, top, bottom, left, right]) around D, H and W (x itself without
    pads); the sizes of its D, H and W."""
    shape = list(x.layout.origin_shape)
    axes = [data_format.index(a) for a in "DHW"]
    if not any(pads):
        return x, [shape[a] for a in axes]
    before = {a: pads[2 * k] for k, a in enumerate(axes)}
    for k, a in enumerate(axes):
        shape[a] += pads[2 * k] + pads[2 * k + 1]
    padded = ctx.temporary(x.layout.resized(shape), fill=fill)

    def shifted(index: list[Ix]) -> list[Ix]:
        return [ix + before.get(k, 0) for k, ix in enumerate(index)]

    copy(ctx, x, padded, x.layout.origin_shape, target_index=shifted)
    return padded, [shape[a] for a in axes]


@lowers(Conv3DOp)
def lower_conv3d(ctx: LoweringContext, op: Operation) -> None:
    """Grouped, strided, dilated 3-D convolution plus bias."""
    x, w, *bias = ctx.operands()
    y = ctx.result()
    arithmetic = product_arithmetic(ctx, y.layout, x, w, *bias)
    data_format = str(ctx.attr("data_format"))
    groups = int(ctx.attr("groups"))
    strides = [ctx.attr("strides")[data_format.index(a)] for a in "DHW"]
    dilations = [ctx.attr("dilations")[data_format.index(a)] for a in "DHW"]
    source, _ = padded_volume(ctx, x, data_format, list(ctx.attr("pads")))
    cout, cin_g, kd, kh, kw = w.layout.origin_shape
    n = x.layout.origin_shape[data_format.index("N")]
    od, oh, ow = (y.layout.origin_shape[data_format.index(a)] for a in "DHW")
    per_group = cout // groups

    def term(nest: Nest, index: list[Ix]) -> Value:
        b, g, o, d, h, wi, i, td, th, tw = index
        xv = nest.load(
            source,
            place(
                data_format,
                N=b,
                C=g * cin_g + i,
                D=d * strides[0] + td * dilations[0],
                H=h * strides[1] + th * dilations[1],
                W=wi * strides[2] + tw * dilations[2],
            ),
        )
        wv = nest.load(w, [g * per_group + o, i, td, th, tw])
        return arithmetic.multiply(nest, xv, wv)

    def at(index: list[Ix]) -> list[Ix]:
        b, g, o, d, h, wi = index[:6]
        return place(data_format, N=b, C=g * per_group + o, D=d, H=h, W=wi)

    def bias_at(nest: Nest, index: list[Ix]) -> Value:
        return nest.load(bias[0], [index[data_format.index("C")]])

    sizes = (n, groups, per_group, od, oh, ow, cin_g, kd, kh, kw)
    reduction = Reduction(
        sizes,
        frozenset({6, 7, 8, 9}),
        at,
        term,
        bias_at if bias else arithmetic.zero,
        arithmetic.add,
    )
    reduce_to_result(ctx, reduction, y, accumulator(ctx, y))


@dataclass(frozen=True)
class Phase:
    """The outputs `q * stride + residue` (q < `count`) of one transposed-
    convolution axis and the taps that reach them: `first + j * step` for
    j < `taps`, reading input `q + offset - j * shift`."""

    stride: int
    residue: int
    count: int
    first: int
    step: int
    taps: int
    offset: int
    shift: int


def phases(
    size: int, out: int, kernel: int, stride: int, dilation: int, begin: int
) -> tuple[list[Phase], int]:
    """The phases of one axis (those with outputs and taps), and the zeros
    to put before the input so every read is in the padded input.

    Output `o` takes tap `t` from input `(o + begin - t * dilation) /
    stride` when that divides: for `o = q * stride + r` the taps are an
    arithmetic progression of step `stride / gcd(stride, dilation)`.
    """
    step = stride // math.gcd(stride, dilation)
    found = []
    for residue in range(min(stride, out)):
        taps = [
            t for t in range(kernel) if (residue + begin - t * dilation) % stride == 0
        ]
        if taps:
            found.append(
                Phase(
                    stride,
                    residue,
                    (out - residue + stride - 1) // stride,
                    taps[0],
                    step,
                    len(taps),
                    (residue + begin - taps[0] * dilation) // stride,
                    step * dilation // stride,
                )
            )
    lowest = min((p.offset - (p.taps - 1) * p.shift for p in found), default=0)
    return found, max(0, -lowest)


@lowers(Conv3DTransposeOp)
def lower_conv3d_transpose(ctx: LoweringContext, op: Operation) -> None:
    """ONNX ConvTranspose as a convolution per output phase: along each axis
    the outputs `q * stride + r` take only the taps whose input position
    divides (sub-pixel decomposition), so no product with a stride's zeros
    is formed. The input is padded with zeros so every read is inside it;
    the accumulator starts at the bias, each phase (D, H, W residues) adds
    its taps, then the result is written."""
    x, w, *bias = ctx.operands()
    y = ctx.result()
    arithmetic = product_arithmetic(ctx, y.layout, x, w, *bias)
    data_format = str(ctx.attr("data_format"))
    groups = int(ctx.attr("groups"))
    axes = [data_format.index(a) for a in "DHW"]
    pads = list(ctx.attr("pads"))
    cin, per_group, *kernel = w.layout.origin_shape
    cin_g = cin // groups
    per_axis = [
        phases(
            x.layout.origin_shape[a],
            y.layout.origin_shape[a],
            kernel[k],
            ctx.attr("strides")[a],
            ctx.attr("dilations")[a],
            pads[2 * k],
        )
        for k, a in enumerate(axes)
    ]
    before = [zeros for _, zeros in per_axis]
    after = [
        max(0, max((p.count - 1 + p.offset for p in found), default=0) - size + 1)
        for (found, _), size in zip(
            per_axis, (x.layout.origin_shape[a] for a in axes), strict=True
        )
    ]
    source, _ = padded_volume(
        ctx,
        x,
        data_format,
        [pad for pair in zip(before, after, strict=True) for pad in pair],
    )
    acc = accumulator(ctx, y)
    c_axis = data_format.index("C")

    def bias_at(nest: Nest, index: list[Ix]) -> Value:
        return nest.load(bias[0], [index[c_axis]])

    initialise(ctx, acc, bias_at if bias else arithmetic.zero)
    n = x.layout.origin_shape[data_format.index("N")]
    for phase in itertools.product(*(found for found, _ in per_axis)):

        def term(
            nest: Nest, index: list[Ix], phase: tuple[Phase, ...] = phase
        ) -> Value:
            b, g, o, qd, qh, qw, i, jd, jh, jw = index
            reads = [
                q + p.offset + zeros - j * p.shift
                for q, j, p, zeros in zip(
                    (qd, qh, qw), (jd, jh, jw), phase, before, strict=True
                )
            ]
            d, h, wi = reads
            xv = nest.load(
                source, place(data_format, N=b, C=g * cin_g + i, D=d, H=h, W=wi)
            )
            taps = [
                p.first + j * p.step for j, p in zip((jd, jh, jw), phase, strict=True)
            ]
            wv = nest.load(w, [g * cin_g + i, o, *taps])
            return arithmetic.multiply(nest, xv, wv)

        def at(index: list[Ix], phase: tuple[Phase, ...] = phase) -> list[Ix]:
            b, g, o, *q = index[:6]
            d, h, wi = (
                qi * p.stride + p.residue for qi, p in zip(q, phase, strict=True)
            )
            return place(data_format, N=b, C=g * per_group + o, D=d, H=h, W=wi)

        counts = [p.count for p in phase]
        sizes = (n, groups, per_group, *counts, cin_g, *(p.taps for p in phase))
        accumulate(ctx, acc, sizes, at, term, arithmetic.add)
    finish(ctx, y, None, acc)


@lowers(Pool3DOp)
def lower_pool3d(ctx: LoweringContext, op: Operation) -> None:
    """Max or average 3-D pooling; padding never wins a max and is counted
    by the rule in an average. An integer max pool runs in its own type
    (exact)."""
    assert isinstance(op, Pool3DOp)
    (x,) = ctx.operands()
    y = ctx.result()
    data_format = str(ctx.attr("data_format"))
    maximum = max_of(ctx, x) if op.REDUCTION == "max" else None
    if maximum is None:
        require_float(ctx, x)
    window = {n: list(ctx.attr(n)) for n in ("ksize", "strides", "dilations", "pads")}
    axes = pool_axes(
        x.layout.origin_shape,
        data_format,
        **window,
        ceil_mode=bool(ctx.attr("ceil_mode")),
    )
    pads = [pad for _, g in axes for pad in (g.pb, g.end_pad)]
    fill = maximum.identity if maximum is not None else 0.0
    source, extents = padded_volume(ctx, x, data_format, pads, fill)

    def tap(nest: Nest, index: list[Ix]) -> Value:
        source_index = list(index[:5])
        for k, (a, g) in enumerate(axes):
            source_index[a] = index[a] * g.s + index[5 + k] * g.d
        return nest.load(source, source_index)

    loops = (*y.layout.origin_shape, *(g.k for _, g in axes))
    reduced = frozenset({5, 6, 7})

    def at(index: list[Ix]) -> list[Ix]:
        return index[:5]

    if maximum is not None:
        reduction = Reduction(
            loops, reduced, at, tap, typed_constant(maximum), maximum.combine
        )
        reduce_to_result(ctx, reduction, y, accumulator(ctx, y))
        return
    include_pad = bool(ctx.attr("count_include_pad"))
    counts = [
        window_counts(
            ctx,
            extent,
            0 if include_pad else g.pb,
            g.pb + g.size + (g.pe if include_pad else 0),
            (g.k, g.s, g.d, g.out),
        )
        for extent, (_, g) in zip(extents, axes, strict=True)
    ]

    def average(nest: Nest, total: Value, index: list[Ix]) -> Value:
        depth, height, width = (
            nest.load(c, [index[a]]) for c, (a, _) in zip(counts, axes, strict=True)
        )
        count = nest.op(arith.MulfOp, nest.op(arith.MulfOp, depth, height), width)
        return nest.op(arith.DivfOp, total, count)

    reduction = Reduction(loops, reduced, at, tap, final=average)
    reduce_to_result(ctx, reduction, y, accumulator(ctx, y))
