"""`ge.conv3d`, `ge.max_pool3d` and `ge.avg_pool3d` (ge_dialect/ops/volume.py)
on the JIT after the format pipeline (NDC1HWC0 activations, a FRACTAL_Z_3D
filter), and the reference evaluator, against a direct sum or window over
the definition (float64): both data formats, groups, strides, dilations,
asymmetric pads, ceil mode, both average-pool divisors, channel counts
that leave the last C0 block partly padded, NaN and infinities in the
input. ONNX networks are in test_onnx_windows.py and test_real_exports.py
(`video_net`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.context import Context

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import compile_graph, run_graph
from passes.format_pipeline import FormatPipelinePass


def direct_conv3d(x, w, bias, strides, pads, dilations, groups):
    """NCDHW convolution by the definition, in float64."""
    x = np.pad(
        x.astype(np.float64), [(0, 0), (0, 0), *zip(pads[::2], pads[1::2], strict=True)]
    )
    n, _, depth, height, width = x.shape
    cout, cg, kd, kh, kw = w.shape
    out = [
        (size - (k - 1) * d - 1) // s + 1
        for size, k, s, d in zip(
            (depth, height, width), (kd, kh, kw), strides, dilations, strict=True
        )
    ]
    y = np.zeros((n, cout, *out))
    per_group = cout // groups
    for o, i, a, b, c in itertools.product(
        range(cout), range(cg), range(kd), range(kh), range(kw)
    ):
        channel = (o // per_group) * cg + i
        window = x[
            :, channel,
            a * dilations[0] :: strides[0],
            b * dilations[1] :: strides[1],
            c * dilations[2] :: strides[2],
        ][:, : out[0], : out[1], : out[2]]  # fmt: skip
        y[:, o] += window * w[o, i, a, b, c]
    return y + (0 if bias is None else bias.reshape(1, -1, 1, 1, 1))


CASES = {
    "padded_strided_dilated": ((2, 5, 6, 7, 5), (17, 5, 3, 2, 3), (2, 1, 2),
                               (1, 0, 2, 1, 0, 1), (1, 2, 1), 1),
    "grouped": ((1, 6, 4, 5, 6), (9, 2, 2, 3, 2), (1, 2, 1), (0, 1, 1, 1, 0, 0),
                (1, 1, 2), 3),
    "pointwise_33_channels": ((1, 33, 2, 3, 4), (7, 33, 1, 1, 1), (1, 1, 1),
                              (0, 0, 0, 0, 0, 0), (1, 1, 1), 1),
}  # fmt: skip


@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_conv3d_matches_a_direct_sum(name, data_format):
    x_shape, w_shape, strides, pads, dilations, groups = CASES[name]
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    bias = rng.standard_normal(w_shape[0]).astype(np.float32)
    expected = direct_conv3d(x, w, bias, strides, pads, dilations, groups)
    order = [("N", "C", "D", "H", "W").index(a) for a in data_format]
    b = GraphBuilder("g")
    y = b.conv3d(
        b.data(list(x.transpose(order).shape), "float32"),
        b.const(w),
        b.const(bias),
        data_format=data_format,
        strides=[{"N": 1, "C": 1, **dict(zip("DHW", strides, strict=True))}[a]
                 for a in data_format],
        dilations=[{"N": 1, "C": 1, **dict(zip("DHW", dilations, strict=True))}[a]
                   for a in data_format],
        pads=list(pads),
        groups=groups,
    )  # fmt: skip
    b.output(y)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    text = str(module)
    assert f"#ge.layout<{data_format}, NDC1HWC0>" in text
    assert "FRACTAL_Z_3D>" in text
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    feeds = {0: np.ascontiguousarray(x.transpose(order))}
    (got,) = run_graph(module, feeds, poison=True)
    (reference,) = evaluate(module, feeds)
    back = np.argsort(order)
    np.testing.assert_allclose(got.transpose(back), expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(
        reference.transpose(back), expected, rtol=1e-5, atol=1e-4
    )


def test_conv3d_carries_nan_and_infinity_to_its_window():
    """A NaN poisons exactly the outputs whose window holds it; an infinity
    makes its windows infinite."""
    x = np.ones((1, 2, 4, 4, 4), np.float32)
    x[0, 0, 0, 0, 0], x[0, 1, 3, 3, 3] = np.nan, np.inf
    w = np.ones((1, 2, 2, 2, 2), np.float32)
    b = GraphBuilder("g")
    b.output(b.conv3d(b.data([1, 2, 4, 4, 4], "float32"), b.const(w),
                      data_format="NCDHW"))  # fmt: skip
    (got,) = run_graph(b.build(), {0: x}, poison=True)
    assert np.isnan(got[0, 0, 0, 0, 0]) and np.isinf(got[0, 0, 2, 2, 2])
    assert np.isfinite(got).sum() == 27 - 2 and got[0, 0, 1, 1, 1] == 16


def direct_pool3d(x, kind, ksize, strides, pads, dilations, ceil_mode, include_pad):
    """NCDHW max or average pooling by the definition, in float64: each
    window's taps listed one by one (a NaN tap makes a max NaN)."""
    n, c, *sizes = x.shape
    outs = []
    for size, k, s, d, begin, end in zip(
        sizes, ksize, strides, dilations, pads[::2], pads[1::2], strict=True
    ):
        span = (k - 1) * d + 1
        count = (size + begin + end - span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (count - 1) * s >= size + begin:
            count -= 1
        outs.append(count)
    y = np.zeros((n, c, *outs))
    for o in itertools.product(*(range(k) for k in outs)):
        taps, padded = [], 0
        for t in itertools.product(*(range(k) for k in ksize)):
            at = [
                o[a] * strides[a] - pads[2 * a] + t[a] * dilations[a] for a in range(3)
            ]
            if all(0 <= p < s for p, s in zip(at, sizes, strict=True)):
                taps.append(x[:, :, at[0], at[1], at[2]].astype(np.float64))
            elif all(
                -pads[2 * a] <= at[a] < sizes[a] + pads[2 * a + 1] for a in range(3)
            ):
                padded += 1
        stack = np.stack(taps)
        if kind == "max":
            y[:, :, o[0], o[1], o[2]] = np.maximum.reduce(stack)
        else:
            divisor = len(taps) + (padded if include_pad else 0)
            y[:, :, o[0], o[1], o[2]] = stack.sum(axis=0) / divisor
    return y


POOLS = {
    "max_ceil_dilated_17": ("max", (1, 17, 5, 6, 7), (2, 3, 2), (2, 1, 2),
                            (1, 0, 1, 0, 1, 1), (1, 2, 1), True, False),
    "max_3_cube": ("max", (2, 3, 3, 3, 3), (2, 2, 2), (1, 1, 1),
                   (0, 0, 0, 0, 0, 0), (1, 1, 1), False, False),
    "avg_include_pad_17": ("avg", (2, 17, 5, 4, 7), (3, 2, 3), (1, 1, 1),
                           (1, 1, 1, 1, 0, 2), (1, 1, 1), False, True),
    "avg_ceil_excluding_pad": ("avg", (1, 3, 6, 5, 5), (2, 2, 3), (2, 2, 2),
                               (0, 1, 1, 1, 0, 1), (1, 1, 1), True, False),
}  # fmt: skip


@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("name", sorted(POOLS))
def test_pool3d_matches_the_definition_in_ndc1hwc0(name, data_format):
    """JIT (on NDC1HWC0, 3 and 17 channels leaving the C0 block partly
    padded) and reference evaluator against the window definition; the
    input holds NaN, +inf and -inf."""
    kind, x_shape, ksize, strides, pads, dilations, ceil_mode, include_pad = POOLS[name]
    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape).astype(np.float32)
    x[0, 0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
    x[-1, -1, -1, -1, -1] = -np.inf
    expected = direct_pool3d(
        x, kind, ksize, strides, pads, dilations, ceil_mode, include_pad
    )
    order = [("N", "C", "D", "H", "W").index(a) for a in data_format]

    def per_axis(values):
        return [{"N": 1, "C": 1, **dict(zip("DHW", values, strict=True))}[a]
                for a in data_format]  # fmt: skip

    b = GraphBuilder("g")
    attrs = dict(
        data_format=data_format,
        ksize=per_axis(ksize),
        strides=per_axis(strides),
        dilations=per_axis(dilations),
        pads=list(pads),
        ceil_mode=ceil_mode,
    )
    x_value = b.data(list(x.transpose(order).shape), "float32")
    if kind == "max":
        y = b.max_pool3d(x_value, **attrs)
    else:
        y = b.avg_pool3d(x_value, count_include_pad=include_pad, **attrs)
    b.output(y)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    assert f"ge.{kind}_pool3d" in str(module)
    assert f"#ge.layout<{data_format}, NDC1HWC0>" in str(module)
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    feeds = {0: np.ascontiguousarray(x.transpose(order))}
    (got,) = run_graph(module, feeds, poison=True)
    (reference,) = evaluate(module, feeds)
    back = np.argsort(order)
    for result in (got, reference):
        np.testing.assert_allclose(
            result.transpose(back), expected, rtol=1e-5, atol=1e-5
        )


def test_max_pool3d_makes_exactly_the_windows_holding_nan_nan():
    """A NaN poisons the max of every window holding it and no other; a
    window of -inf pools to -inf, padding never wins."""
    x = np.full((1, 3, 3, 3, 3), -np.inf, np.float32)
    x[0, 1] = np.arange(27, dtype=np.float32).reshape(3, 3, 3)
    x[0, 1, 0, 0, 0] = np.nan
    b = GraphBuilder("g")
    pool = b.max_pool3d(
        b.data([1, 3, 3, 3, 3], "float32"),
        data_format="NCDHW",
        ksize=[1, 1, 2, 2, 2],
        pads=[1, 0, 0, 0, 0, 0],
    )
    b.output(pool)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    (got,) = run_graph(module, {0: x}, poison=True)
    assert got.shape == (1, 3, 3, 2, 2)
    assert np.all(got[0, 0] == -np.inf) and np.all(got[0, 2] == -np.inf)
    nan = np.isnan(got[0, 1])
    assert nan[0, 0, 0] and nan[1, 0, 0] and nan.sum() == 2
    assert got[0, 1, 2, 1, 1] == 26


def direct_conv3d_transpose(x, w, bias, strides, pads, dilations, groups, extra):
    """NCDHW transposed convolution by the definition, in float64: input
    element `i` adds `x[i] * w[t]` at output `i * stride + t * dilation -
    pad_begin` (outputs outside are dropped)."""
    n, cin, *sizes = x.shape
    _, per_group, *kernel = w.shape
    out = [
        s * (size - 1) + e + d * (k - 1) + 1 - pads[2 * a] - pads[2 * a + 1]
        for a, (size, k, s, d, e) in enumerate(
            zip(sizes, kernel, strides, dilations, extra, strict=True)
        )
    ]
    y = np.zeros((n, per_group * groups, *out))
    cin_g = cin // groups
    for c, i, t in itertools.product(
        range(cin),
        itertools.product(*(range(size) for size in sizes)),
        itertools.product(*(range(k) for k in kernel)),
    ):
        at = [i[a] * strides[a] + t[a] * dilations[a] - pads[2 * a] for a in range(3)]
        if not all(0 <= p < o for p, o in zip(at, out, strict=True)):
            continue
        g = c // cin_g
        channels = slice(g * per_group, (g + 1) * per_group)
        y[:, channels, at[0], at[1], at[2]] += (
            x[:, c, i[0], i[1], i[2], None].astype(np.float64) * w[c, :, *t]
        )
    return y + (0 if bias is None else bias.reshape(1, -1, 1, 1, 1))


TRANSPOSED = {
    "strided_padded_17": ((2, 3, 3, 4, 3), (3, 17, 3, 2, 3), (2, 1, 2),
                          (1, 0, 1, 0, 1, 0), (1, 1, 1), 1, (1, 0, 1)),
    "grouped_dilated": ((1, 4, 3, 3, 3), (4, 3, 2, 3, 2), (3, 2, 1),
                        (0, 1, 1, 0, 0, 2), (2, 1, 2), 2, (2, 1, 0)),
    # stride = dilation: half the output phases get no tap (bias only)
    "phases_without_taps": ((1, 3, 3, 3, 4), (3, 5, 2, 3, 2), (2, 2, 3),
                            (2, 0, 0, 3, 1, 1), (2, 2, 1), 1, (1, 0, 2)),
}  # fmt: skip


@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("name", sorted(TRANSPOSED))
def test_conv3d_transpose_matches_the_definition(name, data_format):
    """JIT (NDC1HWC0 activations, a FRACTAL_Z_3D filter) and reference
    evaluator against the scatter definition; the input holds NaN and
    infinities, which reach exactly the outputs they touch."""
    x_shape, w_shape, strides, pads, dilations, groups, extra = TRANSPOSED[name]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(np.float32)
    x[0, 0, 0, 0, 0], x[-1, -1, -1, -1, -1] = np.nan, np.inf
    w = rng.standard_normal(w_shape).astype(np.float32)
    bias = rng.standard_normal(w_shape[1] * groups).astype(np.float32)
    expected = direct_conv3d_transpose(
        x, w, bias, strides, pads, dilations, groups, extra
    )
    order = [("N", "C", "D", "H", "W").index(a) for a in data_format]

    def per_axis(values):
        return [{"N": 1, "C": 1, **dict(zip("DHW", values, strict=True))}[a]
                for a in data_format]  # fmt: skip

    b = GraphBuilder("g")
    y = b.conv3d_transpose(
        b.data(list(x.transpose(order).shape), "float32"),
        b.const(w),
        b.const(bias),
        data_format=data_format,
        strides=per_axis(strides),
        dilations=per_axis(dilations),
        pads=list(pads),
        groups=groups,
        output_padding=list(extra),
    )
    b.output(y)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    text = str(module)
    assert f"#ge.layout<{data_format}, NDC1HWC0>" in text
    assert "FRACTAL_Z_3D>" in text
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    feeds = {0: np.ascontiguousarray(x.transpose(order))}
    (got,) = run_graph(module, feeds, poison=True)
    (reference,) = evaluate(module, feeds)
    back = np.argsort(order)
    assert np.isnan(expected).any() and np.isinf(expected).any()
    for result in (got, reference):
        np.testing.assert_allclose(
            result.transpose(back), expected, rtol=1e-5, atol=1e-4
        )
