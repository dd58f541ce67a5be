"""ONNX DeformConv (2-D) as `ge` ops the JIT runs: ONNX's reference
definition, a bilinear sample per kernel tap at its offset position, then
a grouped convolution of the samples.

    position   h = oh * stride_h - pad_top + kh * dilation_h + offset_h
               (w likewise), normalised as the reference does for GridSample
               with align_corners: h / (H - 1) * 2 - 1
    samples    ge.grid_sample(X of offset group g, [N, kH * kW * oH, oW, 2])
               (bilinear, zeros outside) -> [N, C / G, kH * kW * oH, oW],
               times the mask when given
    result     per group: W [oC / group, C / group * kH * kW] times the
               samples [C / group * kH * kW, oH * oW] (ge.batch_matmul), plus B

offset is [N, G * kH * kW * 2, oH, oW] ((h, w) pairs per tap), mask [N, G *
kH * kW, oH, oW]. An input of height or width 1 is refused: the reference's
normalisation divides by H - 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ge_frontend.importing import Unsupported, Value, registrar
from ge_frontend.onnx_context import NodeContext

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""DeformConv -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)


@converts("DeformConv")
def convert_deform_conv(ctx: NodeContext) -> list[Value]:
    """Samples at the offset taps, then the grouped product (module doc)."""
    if ctx.rank(0) != 4:
        raise Unsupported(f"of rank {ctx.rank(0)} (2-D only)")
    n, channels, height, width = ctx.static_shape(0)
    out_channels, group_channels, *kernel = ctx.static_shape(1)
    _, offset_channels, out_h, out_w = ctx.static_shape(2)
    kernel = [int(k) for k in ctx.attr("kernel_shape", kernel)]
    group = int(ctx.attr("group", 1))
    offset_groups = int(ctx.attr("offset_group", 1))
    strides = ctx.per_axis("strides", 2, 1)
    dilations = ctx.per_axis("dilations", 2, 1)
    pads = ctx.per_axis("pads", 2, 0)
    taps = math.prod(kernel)
    if min(height, width) < 2:
        raise Unsupported("on an input of height or width 1")
    if group_channels * group != channels or out_channels % group:
        raise ValueError(
            f"W {list(ctx.static_shape(1))} does not fit {channels} channels "
            f"in {group} groups"
        )
    if channels % offset_groups or offset_channels != offset_groups * taps * 2:
        raise ValueError(
            f"offset has {offset_channels} channels, {offset_groups} offset groups "
            f"of {kernel} taps need {offset_groups * taps * 2}"
        )
    points = taps * out_h
    offsets = ctx.op(
        "reshape",
        ctx.input(2),
        shape=[n, offset_groups, *kernel, 2, out_h, out_w],
        suffix="offsets",
    )
    coordinates = []
    for axis, length in ((1, width), (0, height)):  # GridSample takes (x, y)
        along = ctx.op(
            "slice",
            offsets,
            begins=[axis],
            ends=[axis + 1],
            axes=[4],
            suffix=f"offset{axis}",
        )
        along = ctx.op(
            "reshape", along, shape=[n, offset_groups, *kernel, out_h, out_w]
        )
        start = _tap_starts(axis, kernel, (out_h, out_w), strides, dilations, pads)
        position = ctx.op(
            "add", along, start.astype(ctx.dtype(2)), suffix=f"position{axis}"
        )
        scale = ctx.array(2 / (length - 1), like=2)
        scaled = ctx.op("mul", position, scale, suffix=f"scaled{axis}")
        normalised = ctx.op("sub", scaled, ctx.array(1, like=2), suffix=f"grid{axis}")
        coordinates.append(
            ctx.op("reshape", normalised, shape=[n, offset_groups, points, out_w, 1])
        )
    grid = ctx.op("concat", coordinates, axis=4, suffix="grid")
    per_group = channels // offset_groups
    samples = []
    for g in range(offset_groups):
        x = ctx.op(
            "slice",
            ctx.input(0),
            begins=[g * per_group],
            ends=[(g + 1) * per_group],
            axes=[1],
            suffix=f"group{g}/x",
        )
        grid_g = ctx.op("slice", grid, begins=[g], ends=[g + 1], axes=[1])
        grid_g = ctx.op("reshape", grid_g, shape=[n, points, out_w, 2])
        samples.append(
            ctx.op(
                "grid_sample",
                x,
                grid_g,
                mode="linear",
                padding_mode="zeros",
                align_corners=True,
                suffix=f"group{g}/samples",
            )
        )
    columns = samples[0] if len(samples) == 1 else ctx.op("concat", samples, axis=1)
    if (mask := ctx.optional_input(4)) is not None:
        grouped = [n, offset_groups, per_group, points, out_w]
        columns = ctx.op("reshape", columns, shape=grouped, suffix="by_offset_group")
        mask = ctx.op("reshape", mask, shape=[n, offset_groups, 1, points, out_w])
        columns = ctx.op("mul", columns, mask, suffix="masked")
    depth = group_channels * taps
    columns = ctx.op(
        "reshape", columns, shape=[n, group, depth, out_h * out_w], suffix="columns"
    )
    weights = ctx.op(
        "reshape", ctx.input(1), shape=[1, group, out_channels // group, depth]
    )
    y = ctx.op("batch_matmul", weights, columns, suffix="product")
    y = ctx.op("reshape", y, shape=[n, out_channels, out_h, out_w], suffix="result")
    if (bias := ctx.optional_input(3)) is not None:
        bias = ctx.op("reshape", bias, shape=[1, out_channels, 1, 1], suffix="bias")
        y = ctx.op("add", y, bias, suffix="biased")
    return [y]


def _tap_starts(
    axis: int,
    kernel: Sequence[int],
    out: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> np.ndarray:
    """[kH, kW, oH, oW]: each tap's position along `axis` (0: h, 1: w)
    before its offset, `o * stride - pad + k * dilation`."""
    tap = np.arange(kernel[axis]) * dilations[axis]
    origin = np.arange(out[axis]) * strides[axis] - pads[axis]
    if axis == 0:
        return (
            tap[:, None, None, None]
            + origin[None, None, :, None]
            + np.zeros((1, kernel[1], 1, out[1]))
        )
    return (
        tap[None, :, None, None]
        + origin[None, None, None, :]
        + np.zeros((kernel[0], 1, out[0], 1))
    )
