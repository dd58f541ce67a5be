"""Lowering `ge.conv2d_transpose` and `ge.conv3d_transpose` to loops.

A transposed convolution is one convolution per output phase (the outputs
`q * stride + r` of each spatial axis take only the taps that divide), so
it never multiplies a stride's zeros. The input is padded with zeros so
every read is inside it; loads go through the operands' layouts, so
NC1HWC0 / NDC1HWC0 activations and FRACTAL_Z / FRACTAL_Z_3D filters are
read in place.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from xdsl.ir import Operation

from ge_dialect.ops.nn import Conv2DTransposeOp
from ge_dialect.ops.volume import Conv3DTransposeOp
from ge_dialect.ops.windows import spatial_letters
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Nest, Value
from passes.lowering.index import Ix
from passes.lowering.nn import (
    accumulate,
    accumulator,
    finish,
    initialise,
    padded_input,
    place,
    product_arithmetic,
)
from passes.lowering.registry import lowers


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


@lowers(Conv2DTransposeOp, Conv3DTransposeOp)
def lower_conv_transpose(ctx: LoweringContext, op: Operation) -> None:
    """ONNX ConvTranspose as a convolution per output phase: along each axis
    the outputs `q * stride + r` take only the taps whose input position
    divides (sub-pixel decomposition), so no product with a stride's zeros
    is formed. The input is padded with zeros so every read is inside it;
    the accumulator starts at the bias, each phase (D, H, W residues) adds
    its taps, then the result is written. 2-D or 3-D (H W, or D H W)."""
    x, w, *bias = ctx.operands()
    y = ctx.result()
    arithmetic = product_arithmetic(ctx, y.layout, x, w, *bias)
    data_format = str(ctx.attr("data_format"))
    groups = int(ctx.attr("groups"))
    letters = spatial_letters(data_format)
    axes = [data_format.index(a) for a in letters]
    rank = len(axes)
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
    source = padded_input(
        ctx, x, data_format, list(zip(before, after, strict=True)), 0.0
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
            b, g, o = index[:3]
            q, i, j = index[3 : 3 + rank], index[3 + rank], index[4 + rank :]
            reads = {
                letter: qi + p.offset + zeros - ji * p.shift
                for letter, qi, ji, p, zeros in zip(
                    letters, q, j, phase, before, strict=True
                )
            }
            xv = nest.load(source, place(data_format, N=b, C=g * cin_g + i, **reads))
            taps = [p.first + ji * p.step for ji, p in zip(j, phase, strict=True)]
            wv = nest.load(w, [g * cin_g + i, o, *taps])
            return arithmetic.multiply(nest, xv, wv)

        def at(index: list[Ix], phase: tuple[Phase, ...] = phase) -> list[Ix]:
            b, g, o, *q = index[: 3 + rank]
            outputs = {
                letter: qi * p.stride + p.residue
                for letter, qi, p in zip(letters, q, phase, strict=True)
            }
            return place(data_format, N=b, C=g * per_group + o, **outputs)

        counts = [p.count for p in phase]
        sizes = (n, groups, per_group, *counts, cin_g, *(p.taps for p in phase))
        accumulate(ctx, acc, sizes, at, term, arithmetic.add)
    finish(ctx, y, None, acc)
