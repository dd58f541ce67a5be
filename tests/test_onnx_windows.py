"""Windowed and resampling ONNX ops end to end: `ge-atc`, then `ge-run` on
the JIT and on the reference evaluator, both against onnxruntime.

Each case is a one-node model over seeded random data with odd sizes (odd
channel counts leave a partly padded last C0 block in NC1HWC0) and special
values; it passes only if both runs match onnxruntime and `ge-run --trace`
shows every op on the JIT (the conformance harness's rule,
`tests/conformance/suite.py`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from conformance.suite import Case, Status, run_case
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view
from onnx.reference import ReferenceEvaluator
from onnx_jit import (
    assert_runs_on_the_jit,
    one_node_model,
    onnxruntime_outputs,
    with_output_types,
)
from xdsl.context import Context
from xdsl.dialects import affine

from ge_dialect.ops.windows import WindowAxis, pooled_size
from ge_frontend.onnx_import import import_onnx
from ge_runtime.graph_io import find_graph
from ge_runtime.jit.compiler import lowered_module
from passes.format_pipeline import FormatPipelinePass

RNG = np.random.default_rng(19)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def with_specials(x: np.ndarray) -> np.ndarray:
    """`x` with -0.0, +inf and -inf at its first elements."""
    flat = x.reshape(-1).copy()
    flat[: min(3, flat.size)] = np.array([-0.0, np.inf, -np.inf])[: flat.size]
    return flat.reshape(x.shape)


def refusal(model: onnx.ModelProto, x: np.ndarray, tmp_path: Path) -> str:
    """The one-line message `ge-atc` refuses `model` with (its output typed
    like `x`)."""
    case = Case("case", "op", with_output_types(model, [x]), (x,), ())
    outcome = run_case(case, tmp_path)
    assert outcome.status is Status.REFUSED, outcome
    assert "\n" not in outcome.message
    return outcome.message


# ---------------------------------------------------------------------------
# Pooling: dilations, N-D inputs, Lp pools
# ---------------------------------------------------------------------------

POOLS = {
    "max_3d_ceil_dilated": (
        "MaxPool",
        (1, 17, 5, 6, 7),
        12,
        dict(
            kernel_shape=[2, 3, 2],
            strides=[2, 1, 2],
            pads=[1, 0, 1, 0, 1, 1],
            dilations=[1, 2, 1],
            ceil_mode=1,
        ),
    ),
    "max_3d_3_cube_same_upper": (
        "MaxPool",
        (2, 3, 3, 3, 3),
        12,
        dict(kernel_shape=[2, 2, 2], auto_pad="SAME_UPPER"),
    ),
    "avg_3d_17_dilated_ceil": (
        "AveragePool",
        (1, 17, 7, 5, 6),
        19,
        dict(
            kernel_shape=[3, 2, 2],
            dilations=[2, 1, 2],
            strides=[1, 2, 2],
            pads=[1, 0, 1, 1, 1, 0],
            ceil_mode=1,
        ),
    ),
    "avg_3d_same_lower_include_pad": (
        "AveragePool",
        (2, 3, 5, 3, 17),
        11,
        dict(kernel_shape=[2, 3, 2], auto_pad="SAME_LOWER", count_include_pad=1),
    ),
    "max_2d_dilated": (
        "MaxPool",
        (2, 3, 17, 9),
        12,
        dict(kernel_shape=[3, 2], dilations=[2, 3], pads=[1, 1, 2, 0]),
    ),
    "avg_3d_include_pad": (
        "AveragePool",
        (2, 3, 5, 4, 7),
        11,
        dict(kernel_shape=[3, 2, 3], pads=[1, 1, 1, 1, 0, 2], count_include_pad=1),
    ),
    "avg_3d_ceil": (
        "AveragePool",
        (1, 17, 6, 5, 5),
        11,
        dict(
            kernel_shape=[2, 2, 3],
            strides=[2, 2, 2],
            pads=[0, 1, 1, 1, 0, 1],
            ceil_mode=1,
        ),
    ),
    "avg_2d_dilated": (
        "AveragePool",
        (1, 3, 9, 11),
        19,
        dict(kernel_shape=[3, 3], dilations=[2, 1], pads=[2, 1, 1, 0], strides=[1, 2]),
    ),
    "avg_1d_dilated": (
        "AveragePool",
        (2, 33, 17),
        19,
        dict(kernel_shape=[3], dilations=[3], pads=[2, 1], count_include_pad=1),
    ),
    "lp_2d_p3_pads_dilations": (
        "LpPool",
        (1, 17, 9, 8),
        18,
        dict(
            kernel_shape=[3, 2],
            p=3,
            pads=[1, 1, 2, 0],
            dilations=[1, 2],
            strides=[2, 1],
        ),
    ),
    "lp_2d_p1_ceil": (
        "LpPool",
        (2, 3, 7, 7),
        18,
        dict(kernel_shape=[2, 2], p=1, strides=[2, 2], ceil_mode=1),
    ),
    "lp_1d_p2": ("LpPool", (1, 5, 33), 11, dict(kernel_shape=[4], strides=[3])),
    "lp_3d_p2_same_lower": (
        "LpPool",
        (1, 3, 5, 4, 6),
        11,
        dict(kernel_shape=[2, 3, 2], auto_pad="SAME_LOWER"),
    ),
    "global_lp_p3": ("GlobalLpPool", (2, 17, 5, 3), 2, dict(p=3)),
    "global_lp_3d": ("GlobalLpPool", (1, 3, 4, 3, 5), 2, {}),
}


# ---------------------------------------------------------------------------
# 3-D convolutions: `ge.conv3d` and `ge.conv3d_transpose` in NDC1HWC0
# ---------------------------------------------------------------------------

CONVS_3D = {
    "conv_strided_dilated_bias": (
        "Conv",
        (2, 3, 5, 6, 7),
        (17, 3, 3, 2, 3),
        dict(pads=[1, 0, 1, 2, 1, 0], strides=[2, 1, 2], dilations=[1, 2, 1]),
    ),
    "conv_grouped_same": (
        "Conv",
        (1, 4, 7, 5, 3),
        (6, 2, 2, 3, 3),
        dict(group=2, auto_pad="SAME_UPPER"),
    ),
    "conv_pointwise_17_channels": ("Conv", (1, 17, 3, 4, 5), (3, 17, 1, 1, 1), {}),
    "conv_transpose_strided_bias": (
        "ConvTranspose",
        (2, 3, 4, 5, 3),
        (3, 17, 3, 2, 3),
        dict(strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 0], output_padding=[1, 0, 1]),
    ),
    "conv_transpose_grouped_dilated": (
        "ConvTranspose",
        (1, 4, 3, 3, 3),
        (4, 3, 2, 3, 2),
        dict(group=2, dilations=[2, 1, 2], strides=[3, 2, 1]),
    ),
    "conv_transpose_output_shape": (
        "ConvTranspose",
        (1, 3, 3, 4, 3),
        (3, 2, 3, 3, 3),
        dict(strides=[2, 2, 2], output_shape=[6, 8, 7]),
    ),
}


@pytest.mark.parametrize("name", sorted(CONVS_3D))
def test_3d_convolution_matches_onnxruntime_on_the_jit(
    name: str, tmp_path: Path
) -> None:
    op_type, x_shape, w_shape, attributes = CONVS_3D[name]
    x = with_specials(rand(*x_shape)) if "bias" in name else rand(*x_shape)
    initializers = {"w": rand(*w_shape)}
    if "bias" in name:
        group = attributes.get("group", 1)
        initializers["b"] = rand(
            w_shape[0] if op_type == "Conv" else w_shape[1] * group
        )
    model = one_node_model(
        op_type, {"x": x}, initializers=initializers, opset=17, **attributes
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize(
    ("op_type", "ge_op"),
    [("Conv", "ge.conv3d"), ("ConvTranspose", "ge.conv3d_transpose")],
)
def test_3d_convolutions_import_as_one_3d_op(op_type: str, ge_op: str) -> None:
    """A 3-D Conv or ConvTranspose imports as GE's 3-D op (Conv3D,
    Conv3DTranspose), none split into 2-D ones per depth tap."""
    x = rand(1, 4, 3, 5, 3)
    model = one_node_model(
        op_type, {"x": x}, initializers={"w": rand(4, 4, 2, 3, 2)}, opset=17
    )
    typed = with_output_types(model, onnxruntime_outputs(model, {"x": x}))
    ops = [op.name for op in import_onnx(typed).module.walk()]
    assert [name for name in ops if "conv" in name] == [ge_op], ops


COL2IM = {
    "one_block": ((1, 5, 5), [5, 5], [1, 5], {}),
    "strided_padded": (
        (2, 3 * 4, 9),
        [5, 6],
        [2, 2],
        dict(strides=[2, 2], pads=[0, 1, 1, 0]),
    ),
    "dilated": ((1, 17 * 9, 9), [7, 7], [3, 3], dict(dilations=[2, 2])),
    "1d": ((2, 3 * 3, 9), [17], [3], dict(strides=[2], pads=[1, 1])),
    "3d": ((1, 3 * 8, 8), [3, 4, 5], [2, 2, 2], dict(strides=[1, 2, 3])),
}


@pytest.mark.parametrize("name", sorted(COL2IM))
def test_col2im_is_a_one_hot_conv_transpose(name: str, tmp_path: Path) -> None:
    """Blocks summed back into the image (overlaps add up), against
    onnxruntime's Col2Im (the onnx reference for the 1-D and 3-D forms,
    which onnxruntime's kernel does not take)."""
    shape, image, block, attributes = COL2IM[name]
    x = with_specials(rand(*shape)) if name == "dilated" else rand(*shape)
    sizes = {"image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    model = one_node_model(
        "Col2Im", {"x": x}, initializers=sizes, opset=18, **attributes
    )
    expected = None
    if len(image) != 2:
        expected = ReferenceEvaluator(model).run(None, {"x": x})
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected)


# A window longer than the (padded) input by less than the stride gives one
# output (Hugging Face EfficientNet ends in AveragePool(kernel = hidden size,
# stride = kernel, ceil_mode = 1) on a small map: the spatial mean).
LARGE_WINDOWS = {
    "avg_ceil_efficientnet": (
        "AveragePool",
        (1, 17, 2, 2),
        19,
        dict(kernel_shape=[640, 640], strides=[640, 640], ceil_mode=1),
    ),
    "avg_floor_include_pad": (
        "AveragePool",
        (2, 3, 3, 3),
        19,
        dict(
            kernel_shape=[5, 7], strides=[7, 9], pads=[1, 0, 2, 1], count_include_pad=1
        ),
    ),
    "avg_ceil_pads": (
        "AveragePool",
        (1, 33, 3, 2),
        19,
        dict(kernel_shape=[17, 3], strides=[17, 3], pads=[1, 1, 0, 0], ceil_mode=1),
    ),
    "avg_one_axis": (
        "AveragePool",
        (1, 3, 17, 3),
        11,
        dict(kernel_shape=[3, 33], strides=[2, 33], ceil_mode=1),
    ),
    "max_ceil": (
        "MaxPool",
        (1, 17, 3, 3),
        12,
        dict(kernel_shape=[640, 640], strides=[640, 640], ceil_mode=1),
    ),
    "max_floor_pads": (
        "MaxPool",
        (2, 3, 3, 17),
        12,
        dict(kernel_shape=[4, 33], strides=[5, 40], pads=[0, 1, 2, 3]),
    ),
    "lp_floor": (
        "LpPool",
        (1, 3, 3, 3),
        18,
        dict(kernel_shape=[17, 17], strides=[17, 17], p=3),
    ),
    "lp_ceil_pads": (
        "LpPool",
        (1, 17, 2, 3),
        18,
        dict(kernel_shape=[33, 5], strides=[33, 5], pads=[1, 0, 1, 0], ceil_mode=1),
    ),
    "avg_3d_ceil": (
        "AveragePool",
        (1, 3, 2, 3, 2),
        19,
        dict(kernel_shape=[17, 17, 17], strides=[17, 17, 17], ceil_mode=1),
    ),
    "max_1d": ("MaxPool", (1, 17, 3), 12, dict(kernel_shape=[33], strides=[33])),
}


@pytest.mark.parametrize("name", sorted(LARGE_WINDOWS))
def test_window_larger_than_the_input_pools_it_whole(name: str, tmp_path: Path) -> None:
    op_type, shape, opset, attributes = LARGE_WINDOWS[name]
    x = with_specials(rand(*shape)) if op_type == "MaxPool" else rand(*shape)
    model = one_node_model(op_type, {"x": x}, opset=opset, **attributes)
    assert onnxruntime_outputs(model, {"x": x})[0].shape[-1] == 1
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_window_longer_than_the_input_by_the_stride_is_refused(
    tmp_path: Path,
) -> None:
    """No window then (onnxruntime gives an empty tensor): one clear line."""
    x = rand(1, 3, 2, 2)
    model = one_node_model(
        "AveragePool", {"x": x}, opset=19, kernel_shape=[5, 2], strides=[3, 1]
    )
    message = refusal(model, x, tmp_path)
    assert "window 5 is larger than the padded input 2 by at least the stride 3" in (
        message
    )


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pool_matches_onnxruntime_on_the_jit(name: str, tmp_path: Path) -> None:
    op_type, shape, opset, attributes = POOLS[name]
    x = with_specials(rand(*shape)) if op_type == "MaxPool" else rand(*shape)
    model = one_node_model(op_type, {"x": x}, opset=opset, **attributes)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_4d_max_pool_matches_a_direct_window_maximum(tmp_path: Path) -> None:
    """Four spatial axes (neither onnxruntime nor the onnx reference has them):
    against NumPy's maximum over every strided window."""
    x = with_specials(rand(1, 3, 4, 3, 5, 4))
    kernel, strides = (2, 2, 2, 3), (1, 2, 2, 1)
    windows = sliding_window_view(x, kernel, axis=(2, 3, 4, 5))
    expected = windows[:, :, :: strides[0], :: strides[1], :: strides[2], :: strides[3]]
    expected = expected.max(axis=(-4, -3, -2, -1))
    model = one_node_model(
        "MaxPool", {"x": x}, opset=12, kernel_shape=list(kernel), strides=list(strides)
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, [expected])


@pytest.mark.parametrize("position", range(4))
def test_max_pool_propagates_nan_wherever_it_is_in_the_window(
    position: int, tmp_path: Path
) -> None:
    """A window holding NaN pools to NaN (IEEE 754-2019 `maximum`, as PyTorch
    and NumPy): ONNX does not say, and onnxruntime's answer depends on where
    the NaN is (`docs/ONNX.md`, Dtypes). JIT and reference agree."""
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    x.reshape(-1)[position] = np.nan
    model = one_node_model("MaxPool", {"x": x}, opset=12, kernel_shape=[2, 2])
    expected = np.full((1, 1, 1, 1), np.nan, dtype=np.float32)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, [expected])


@pytest.mark.parametrize("position", range(8))
def test_3d_max_pool_propagates_nan_wherever_it_is_in_the_window(
    position: int, tmp_path: Path
) -> None:
    """`ge.max_pool3d` as the 2-D pool: a window holding NaN pools to NaN
    wherever the NaN is; the other windows keep their maximum."""
    x = np.arange(1, 28, dtype=np.float32).reshape(1, 1, 3, 3, 3)
    x[0, 0, position // 4, position // 2 % 2, position % 2] = np.nan
    model = one_node_model("MaxPool", {"x": x}, opset=12, kernel_shape=[2, 2, 2])
    windows = sliding_window_view(x, (2, 2, 2), axis=(2, 3, 4))
    expected = np.maximum.reduce(windows.reshape(*windows.shape[:5], 8), axis=-1)
    assert np.isnan(expected[0, 0, 0, 0, 0]) and np.isfinite(expected).sum() < 8
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, [expected])


@pytest.mark.parametrize("pads", [[0] * 6, [1, 0, 1, 1, 1, 0]])
def test_integer_3d_max_pool_runs_exactly(pads: list[int], tmp_path: Path) -> None:
    """An int8 `ge.max_pool3d`: pads hold the type's minimum, which never
    wins over an input (-128 is in it)."""
    x = RNG.integers(-128, 127, size=(1, 3, 5, 5, 5), dtype=np.int8)
    x[0, 0, 0, 0, 0] = -128
    model = one_node_model(
        "MaxPool",
        {"x": x},
        opset=12,
        kernel_shape=[3, 2, 3],
        strides=[2, 2, 1],
        pads=pads,
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


@pytest.mark.parametrize(
    ("op_type", "ge_op"),
    [("MaxPool", "ge.max_pool3d"), ("AveragePool", "ge.avg_pool3d")],
)
def test_3d_pools_import_as_one_3d_pool(op_type: str, ge_op: str) -> None:
    """A 3-D max or average pool imports as GE's 3-D pool (MaxPool3D,
    AvgPool3D), one op."""
    x = rand(1, 3, 4, 5, 6)
    model = one_node_model(op_type, {"x": x}, opset=11, kernel_shape=[2] * 3)
    typed = with_output_types(model, onnxruntime_outputs(model, {"x": x}))
    ops = [op.name for op in import_onnx(typed).module.walk()]
    pools = [name for name in ops if "pool" in name]
    assert pools == [ge_op], ops


def test_3d_lp_pools_are_separable_2d_pools() -> None:
    """GE has no 3-D Lp pool: a 3-D LpPool imports as a pool over (H, W) of
    the folded input, then one over D, and the JIT runs the 2-D ones on
    NC1HWC0."""
    x = rand(1, 3, 4, 5, 6)
    model = one_node_model("LpPool", {"x": x}, opset=11, kernel_shape=[2] * 3)
    typed = with_output_types(model, onnxruntime_outputs(model, {"x": x}))
    ops = [op.name for op in import_onnx(typed).module.walk()]
    pools = [name for name in ops if name.endswith("pool")]
    assert pools == ["ge.lp_pool", "ge.lp_pool"], ops


def test_lp_pool_needs_a_positive_p(tmp_path: Path) -> None:
    x = rand(1, 3, 4, 4)
    model = one_node_model("LpPool", {"x": x}, kernel_shape=[1, 1], p=0)
    assert "'p' must be positive, got 0.0" in refusal(model, x, tmp_path)


def test_pool_kernel_must_fit_the_input_rank(tmp_path: Path) -> None:
    x = rand(1, 3, 4, 4)
    model = one_node_model("MaxPool", {"x": x}, opset=12, kernel_shape=[2, 2, 2])
    message = refusal(model, x, tmp_path)
    assert "kernel_shape [2, 2, 2] does not fit an input of rank 4" in message


# ---------------------------------------------------------------------------
# GridSample
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("align_corners", [0, 1])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
def test_grid_sample_matches_onnxruntime_on_the_jit(
    mode: str, padding_mode: str, align_corners: int, tmp_path: Path
) -> None:
    """Coordinates reach beyond [-1, 1] (padding, several reflections); 17
    channels and odd spatial sizes. Cubic sampling with border padding
    follows the onnx reference, which clamps an outside coordinate before
    taking its four taps (onnxruntime, like PyTorch, clamps each tap)."""
    x = rand(2, 17, 5, 3)
    grid = RNG.uniform(-2.6, 2.6, size=(2, 7, 3, 2)).astype(np.float32)
    inputs = {"x": x, "grid": grid}
    model = one_node_model(
        "GridSample",
        inputs,
        opset=20,
        mode=mode,
        padding_mode=padding_mode,
        align_corners=align_corners,
    )
    expected = None
    if (mode, padding_mode) == ("cubic", "border"):
        expected = ReferenceEvaluator(model).run(None, inputs)
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_opset_16_grid_sample_modes(mode: str, tmp_path: Path) -> None:
    inputs = {
        "x": rand(1, 3, 4, 6),
        "grid": RNG.uniform(-1.2, 1.2, (1, 5, 3, 2)).astype(np.float32),
    }
    model = one_node_model("GridSample", inputs, opset=16, mode=mode)
    assert_runs_on_the_jit(model, inputs, tmp_path)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_volumetric_grid_sample(mode: str, padding_mode: str, tmp_path: Path) -> None:
    inputs = {
        "x": rand(1, 3, 3, 5, 4),
        "grid": RNG.uniform(-1.5, 1.5, (1, 2, 3, 5, 3)).astype(np.float32),
    }
    model = one_node_model(
        "GridSample", inputs, opset=20, mode=mode, padding_mode=padding_mode
    )
    assert_runs_on_the_jit(model, inputs, tmp_path)


def test_grid_sample_grid_must_match_the_spatial_rank(tmp_path: Path) -> None:
    x = rand(1, 3, 4, 4)
    grid = rand(1, 4, 4, 3)
    model = one_node_model("GridSample", {"x": x, "grid": grid}, opset=20)
    case = Case("case", "op", with_output_types(model, [x]), (x, grid), ())
    outcome = run_case(case, tmp_path)
    assert outcome.status is Status.REFUSED
    assert "grid's last dim must be 2, got 3" in outcome.message


# ---------------------------------------------------------------------------
# LpNormalization
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [((3, 17), 0), ((2, 33, 5), 1), ((100,), -1), ((2, 17, 3, 3), 1), ((4, 3), -1)],
)
def test_lp_normalization_matches_onnxruntime_on_the_jit(
    shape: tuple[int, ...], axis: int, p: int, tmp_path: Path
) -> None:
    """Zero vectors stay 0; -0.0 keeps its place."""
    x = rand(*shape)
    zero_vector = [slice(None)] * len(shape)
    zero_vector[axis] = slice(None)
    for other in range(len(shape)):
        if other != axis % len(shape):
            zero_vector[other] = 0
    x[tuple(zero_vector)] = 0.0
    x.reshape(-1)[-1] = -0.0
    model = one_node_model("LpNormalization", {"x": x}, opset=22, axis=axis, p=p)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_lp_normalization_p_must_be_1_or_2(tmp_path: Path) -> None:
    x = rand(2, 3)
    model = one_node_model("LpNormalization", {"x": x}, opset=1, p=3)
    assert "'p' must be 1 or 2, got 3" in refusal(model, x, tmp_path)


# ---------------------------------------------------------------------------
# DFT
# ---------------------------------------------------------------------------

DFTS = {
    # name: (input shape, opset, dft_length, attributes)
    "complex_axis1": ((2, 17, 3, 2), 17, None, dict(axis=1)),
    "real_padded": ((3, 7, 1), 17, 12, dict(axis=1)),
    "real_truncated_onesided": ((2, 33, 5, 1), 17, 17, dict(axis=1, onesided=1)),
    "complex_inverse_axis2": ((1, 3, 17, 2), 17, None, dict(axis=2, inverse=1)),
    "irfft_even": ((2, 9, 3, 2), 17, None, dict(axis=1, inverse=1, onesided=1)),
    "irfft_odd_length": ((2, 9, 3, 2), 17, 17, dict(axis=1, inverse=1, onesided=1)),
    "axis_input_negative": ((2, 5, 100, 1), 20, None, dict(axis=-2)),
}


def numpy_fft(
    x: np.ndarray, length: int | None, axis: int, inverse: int = 0, onesided: int = 0
) -> np.ndarray:
    """NumPy's float64 FFTs as the expected output (onnxruntime's float32
    FFT is off by ~1e-4 on bins whose exact value is 0)."""
    signal = x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]
    axis %= x.ndim
    if inverse and onesided:
        n = length or 2 * (x.shape[axis] - 1)
        return np.fft.irfft(signal, n=n, axis=axis)[..., None].astype(np.float32)
    transform = np.fft.ifft if inverse else np.fft.fft
    y = transform(signal, n=length or x.shape[axis], axis=axis)
    if onesided:
        y = np.take(y, np.arange(y.shape[axis] // 2 + 1), axis=axis)
    return np.stack([y.real, y.imag], axis=-1).astype(np.float32)


@pytest.mark.parametrize("name", sorted(DFTS))
def test_dft_matches_numpy_fft_on_the_jit(name: str, tmp_path: Path) -> None:
    shape, opset, length, attributes = DFTS[name]
    attributes = dict(attributes)
    x = rand(*shape)
    x.reshape(-1)[0] = -0.0
    constants = {"dft_length": np.array(length if length else [], np.int64)}
    if opset >= 20:
        constants["axis"] = np.array(attributes.pop("axis"), np.int64)
    constants = {n if v.size else "": v for n, v in constants.items()}
    names = {"x": x}
    model = one_node_model(
        "DFT", names, initializers=constants, opset=opset, **attributes
    )
    expected = numpy_fft(x, length, **DFTS[name][3])
    assert_runs_on_the_jit(model, names, tmp_path, [expected])


@pytest.mark.parametrize(("axis", "onesided"), [(1, 0), (-3, 0), (2, 1)])
def test_dft_with_a_run_time_axis_runs_on_the_jit(
    axis: int, onesided: int, tmp_path: Path
) -> None:
    """The axis a graph input (ge.dynamic_attrs): bound by the host, the
    transform along it compiled and run by the JIT."""
    x, given = rand(2, 5, 17, 2), np.array(axis, np.int64)
    model = one_node_model("DFT", {"x": x, "axis": given}, opset=20, onesided=onesided)
    model.graph.node[0].input[:] = ["x", "", "axis"]
    expected = numpy_fft(x, None, axis, onesided=onesided)
    assert_runs_on_the_jit(model, {"x": x, "axis": given}, tmp_path, [expected])


# ---------------------------------------------------------------------------
# MaxPool's Indices output
# ---------------------------------------------------------------------------

ARGMAX_POOLS = {
    "pads_dilations": ((2, 17, 7, 6), dict(pads=[1, 1, 2, 0], dilations=[1, 2])),
    "strides_ceil": ((1, 3, 9, 8), dict(strides=[2, 3], ceil_mode=1)),
    "column_major": ((2, 3, 5, 7), dict(storage_order=1, pads=[0, 1, 1, 0])),
    "one_d": ((2, 5, 17), dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
}


@pytest.mark.parametrize("name", sorted(ARGMAX_POOLS))
def test_max_pool_indices_match_onnxruntime_on_the_jit(
    name: str, tmp_path: Path
) -> None:
    """Ties keep the first maximum; an all -inf window its first element."""
    shape, attributes = ARGMAX_POOLS[name]
    attributes = {"kernel_shape": [3, 2], **attributes}
    x = np.round(rand(*shape) * 2) / 2  # many ties
    x.reshape(-1)[:3] = -np.inf
    model = one_node_model(
        "MaxPool", {"x": x}, ("y", "indices"), opset=12, **attributes
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def test_integer_max_pool_indices(tmp_path: Path) -> None:
    x = RNG.integers(-5, 5, size=(1, 3, 6, 5), dtype=np.int8)
    model = one_node_model(
        "MaxPool", {"x": x}, ("y", "indices"), opset=12, kernel_shape=[2, 3]
    )
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


# ---------------------------------------------------------------------------
# RoiAlign
# ---------------------------------------------------------------------------


def roi_inputs() -> dict[str, np.ndarray]:
    """Two images of 17 channels; rois inside, partly outside and degenerate."""
    rois = np.array(
        [
            [0.5, 1.0, 6.2, 7.7],
            [-3.0, -2.0, 4.0, 3.0],
            [5.0, 5.0, 12.0, 9.5],
            [2, 2, 2, 2],
        ],
        np.float32,
    )
    return {
        "x": rand(2, 17, 9, 7),
        "rois": rois,
        "batch_indices": np.array([0, 1, 1, 0], np.int64),
    }


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("transformation", ["half_pixel", "output_half_pixel"])
def test_roi_align_matches_onnxruntime_on_the_jit(
    mode: str, transformation: str, tmp_path: Path
) -> None:
    inputs = roi_inputs()
    model = one_node_model(
        "RoiAlign",
        inputs,
        opset=16,
        mode=mode,
        output_height=3,
        output_width=5,
        sampling_ratio=2,
        spatial_scale=0.75,
        coordinate_transformation_mode=transformation,
    )
    expected = None
    if mode == "max":  # onnxruntime's max takes the maximum before weighting
        expected = ReferenceEvaluator(model).run(None, inputs)
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


def test_adaptive_roi_align_sampling_is_reported_off_the_jit(tmp_path: Path) -> None:
    """sampling_ratio 0 samples as many points as each roi's bins are wide,
    a count the loops cannot have: the run says the reference computed it."""
    inputs = roi_inputs()
    model = one_node_model("RoiAlign", inputs, opset=16, output_height=2)
    expected = onnxruntime_outputs(model, inputs)
    typed = with_output_types(model, expected)
    case = Case("case", "op", typed, tuple(inputs.values()), tuple(expected))
    outcome = run_case(case, tmp_path)
    assert outcome.status is Status.NOT_JIT
    assert "sampling_ratio 0" in outcome.message


# ---------------------------------------------------------------------------
# MaxUnpool
# ---------------------------------------------------------------------------


def pooled_with_indices(shape: tuple[int, ...], **attributes: object) -> tuple:
    """onnxruntime's MaxPool values and positions of a random input."""
    x = rand(*shape)
    model = one_node_model("MaxPool", {"x": x}, ("y", "i"), opset=12, **attributes)
    return tuple(onnxruntime_outputs(model, {"x": x}))


@pytest.mark.parametrize(
    ("shape", "attributes", "output_shape"),
    [
        ((2, 17, 8, 6), dict(kernel_shape=[2, 2], strides=[2, 2]), None),
        ((2, 17, 7, 6), dict(kernel_shape=[2, 2], strides=[2, 2]), (2, 17, 7, 6)),
        (
            (1, 3, 9, 5),
            dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1]),
            None,
        ),
        ((1, 3, 7, 7), dict(kernel_shape=[2, 2], strides=[2, 2]), (1, 3, 7, 7)),
        ((2, 5, 17), dict(kernel_shape=[3], strides=[3]), (2, 5, 17)),
    ],
)
def test_max_unpool_matches_onnxruntime_on_the_jit(
    shape: tuple[int, ...],
    attributes: dict,
    output_shape: tuple[int, ...] | None,
    tmp_path: Path,
) -> None:
    """Odd sizes need `output_shape`: the default one is smaller than the
    pooled input, whose positions the indices are."""
    values, positions = pooled_with_indices(shape, **attributes)
    inputs = {"x": values, "i": positions}
    constants = {}
    if output_shape is not None:
        constants["output_shape"] = np.array(output_shape, np.int64)
    model = one_node_model(
        "MaxUnpool", inputs, initializers=constants, opset=11, **attributes
    )
    assert_runs_on_the_jit(model, inputs, tmp_path)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_grid_sample_reads_zeros_outside_an_edge_of_infinities(
    mode: str, tmp_path: Path
) -> None:
    """Under `zeros` padding a tap outside the input reads 0, as onnxruntime
    does, not 0 times the clamped edge pixel (NaN when that is infinite)."""
    x = rand(1, 2, 3, 17)
    x[:, :, :, -1] = np.inf
    x[:, 1, 0, :] = np.nan
    grid = np.random.default_rng(4).uniform(-1.3, 1.3, (1, 5, 7, 2)).astype(np.float32)
    grid[0, 0, :, 0] = 1.02  # just past the right edge: the corner beyond reads 0
    inputs = {"x": x, "grid": grid}
    model = one_node_model("GridSample", inputs, opset=20, mode=mode)
    assert_runs_on_the_jit(model, inputs, tmp_path)


# ---------------------------------------------------------------------------
# Windows reaching past their input: only the taps that can read it are lowered
# ---------------------------------------------------------------------------

# Every case has taps that read padding for every output (`WindowAxis.live_taps`).
PAST_THE_INPUT_CONVS = {
    "3x3_pads_on_1x1": ((1, 17, 1, 1), (33, 17, 3, 3), dict(pads=[1, 1, 1, 1])),
    "dilated_on_2x3": (
        (2, 3, 2, 3),
        (5, 3, 3, 3),
        dict(pads=[2, 3, 2, 3], dilations=[2, 2]),
    ),
    "grouped_strided_5x5_on_3x1": (
        (1, 6, 3, 1),
        (6, 2, 5, 5),
        dict(pads=[2, 2, 2, 2], group=3, strides=[2, 1]),
    ),
    "1d_kernel_past_the_input": ((1, 3, 4), (17, 3, 9), dict(pads=[4, 4])),
    "3d_one_axis_past": ((1, 3, 1, 4, 3), (3, 3, 3, 2, 2), dict(pads=[1, 0, 0] * 2)),
}


@pytest.mark.parametrize("name", sorted(PAST_THE_INPUT_CONVS))
def test_convolution_past_its_input_matches_onnxruntime_on_the_jit(
    name: str, tmp_path: Path
) -> None:
    shape, filters, attributes = PAST_THE_INPUT_CONVS[name]
    x = with_specials(rand(*shape)) if name.startswith("3x3") else rand(*shape)
    initializers = {"w": rand(*filters), "b": rand(filters[0])}
    model = one_node_model("Conv", {"x": x}, initializers=initializers, **attributes)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)


def stores_run(model: onnx.ModelProto, x: np.ndarray) -> int:
    """How many element stores the loop lowering of `model` runs (each
    `affine.store` times the trip counts of the loops around it)."""
    typed = with_output_types(model, onnxruntime_outputs(model, {"x": x}))
    module = import_onnx(typed).module
    FormatPipelinePass().apply(Context(), module)
    total = 0
    for store in lowered_module(find_graph(module)).walk():
        if not isinstance(store, affine.StoreOp):
            continue
        runs, loop = 1, store.parent_op()
        while loop is not None:
            if isinstance(loop, affine.ForOp):
                (low,) = loop.properties["lowerBoundMap"].data.eval([], [])
                (high,) = loop.properties["upperBoundMap"].data.eval([], [])
                runs *= max(0, (high - low) // loop.step.value.data)
            loop = loop.parent_op()
        total += runs
    return total


def test_pool_past_its_input_pads_only_what_its_live_taps_read() -> None:
    """EfficientNet's pooler (640 taps, ceil mode, on a 2x2 map) padded its
    input to 640x640 per channel and summed 409600 taps an output: now 4."""
    x = rand(1, 17, 2, 2)
    model = one_node_model(
        "AveragePool",
        {"x": x},
        opset=19,
        kernel_shape=[640, 640],
        strides=[640, 640],
        ceil_mode=1,
    )
    assert stores_run(model, x) < 5_000  # 13.9 million with every tap


def test_convolution_past_its_input_reads_only_its_live_taps() -> None:
    """A 3x3 convolution with pads 1 on a 1x1 map pads nothing and sums one
    tap (the centre) an input channel."""
    x = rand(1, 17, 1, 1)
    model = one_node_model(
        "Conv", {"x": x}, initializers={"w": rand(33, 17, 3, 3)}, pads=[1, 1, 1, 1]
    )
    assert stores_run(model, x) < 2_000  # 5285 with all nine taps


@settings(max_examples=400, deadline=None)
@given(
    size=st.integers(1, 9),
    k=st.integers(1, 12),
    s=st.integers(1, 4),
    d=st.integers(1, 3),
    pb=st.integers(0, 5),
    pe=st.integers(0, 5),
    ceil=st.booleans(),
)
def test_live_taps_are_exactly_the_taps_that_read_the_input(
    size, k, s, d, pb, pe, ceil
):
    """Brute force over every output and tap: the cut window keeps every
    tap that reads an input element for some output (at the same input
    element), drops only taps that never do, and its pads hold every read."""
    out = pooled_size(size, (k - 1) * d + 1, s, pb, pe, ceil)
    assume(out > 0)
    axis = WindowAxis(size, k, s, pb, pe, out, d)
    first, cut = axis.live_taps()
    assert cut.pb >= 0 and (cut.s, cut.d, cut.size, cut.out) == (s, d, size, out)
    reads = {t for o in range(out) for t in range(k) if pb <= o * s + t * d < pb + size}
    kept = set(range(first, first + cut.k))
    assert reads <= kept <= set(range(k))
    if reads and kept != set(range(k)):  # cut: at the last read, the first one
        assert max(kept) == max(reads) and first <= min(reads)
    for o in range(out):
        for t in range(cut.k):
            position = o * s + t * d  # in the cut axis's padded coordinates
            assert 0 <= position < cut.pb + size + cut.end_pad
            assert position - cut.pb == o * s + (t + first) * d - pb
