"""onnxruntime's `com.microsoft` quantized ops as a decomposition into `ge` ops.

onnxruntime's quantization tool writes these (`quantize_static` in the
QOperator format: the QLinear* ops and QGemm; `quantize_dynamic`:
DynamicQuantizeLSTM); its graph optimizer writes MatMulIntegerToFloat and
DynamicQuantizeMatMul. Each becomes the arithmetic onnxruntime's CPU kernels
compute (`x~` is x - x_zero_point, integer products in int32, exact):

    QLinearAdd      y = sat(round(a~ * (s_a / s_y) + b~ * (s_b / s_y)) + y_zp)
    QLinearMul      y = sat(round(a~ * b~ * (s_a * s_b / s_y)) + y_zp)
    QLinearSigmoid  y = sat(round(sigmoid(x~ * s_x) / s_y) + y_zp)
    QLinearConcat   each input sat(round(x~ * s_x / s_y) + y_zp), concatenated
    QLinearGlobalAveragePool
                    y = sat(round(sum(x~) * (s_x / (s_y * n))) + y_zp)
    QLinearSoftmax  y = sat(round(softmax(x~ * s_x) * floor(1 / s_y)) + y_zp)
    QGemm           acc = a~ @ b~ + C (int32); y = sat(round(acc * (alpha
                    s_a s_b / s_y)) + y_zp), or acc * (alpha s_a s_b) in float
    MatMulIntegerToFloat  a~ @ b~ * (s_a * s_b) + bias
    DynamicQuantizeMatMul A quantized as DynamicQuantizeLinear, then the above
    DynamicQuantizeLSTM   ONNX's LSTM on the dequantized weights (W and R
                    stored transposed, [dirs, input, 4 hidden]), X and every
                    step's H quantized to uint8 and back before their
                    matmuls, as onnxruntime's kernel quantizes them

`sat` clips to the output dtype's range; `round` halves to even. The float
arithmetic is float32, in onnxruntime's order (its lookup tables for
Sigmoid and Concat tabulate exactly this per input value; its vectorised
QLinearAdd fuses the multiply-adds, which can move a result sitting on a
rounding tie by one step).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ge_frontend.importing import Unsupported, Value, registrar, shape_of
from ge_frontend.onnx_context import NodeContext
from ge_frontend.onnx_quantize import (
    QUANTIZED_INTEGERS,
    as_float,
    integer_product,
    integer_range,
)
from ge_frontend.onnx_recurrent import Recurrence, lstm

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value | None]]] = {}
"""com.microsoft op type -> converter (`onnx_ops.DOMAIN_CONVERTERS`)."""

converts = registrar(CONVERTERS)

SMALLEST_SCALE = float(np.finfo(np.float32).tiny)
"""The scale of an all-zero tensor quantized dynamically (any positive
scale gives zeros)."""


def f32(value: float) -> np.ndarray:
    """A float32 import-time scalar."""
    return np.array(value, np.float32)


def scalar(ctx: NodeContext, index: int, dtype: str, what: str) -> Value:
    """Input `index` (a per-tensor scale or zero point: one element) as a
    `dtype` scalar."""
    shape = ctx.shape(index)
    if int(np.prod(shape)) != 1:
        raise Unsupported(f"with a {what} of shape {list(shape)} (not per tensor)")
    value = as_float(ctx, ctx.input(index), dtype, f"{what}/wide")
    if not shape:
        return value
    return ctx.op("reshape", value, shape=[], suffix=f"{what}/scalar")


def centred(ctx: NodeContext, index: int, zero_index: int, dtype: str) -> Value:
    """Input `index` minus its per-tensor zero point (input `zero_index`,
    absent: 0) in `dtype`."""
    value = as_float(ctx, ctx.input(index), dtype, f"in{index}/wide")
    if ctx.optional_input(zero_index) is None:
        return value
    zero_point = scalar(ctx, zero_index, dtype, f"in{zero_index}")
    return ctx.op("sub", value, zero_point, suffix=f"in{index}/centred")


def output_dtype(ctx: NodeContext, zero_index: int, like: int) -> str:
    """The quantized output's dtype: its zero point's, else input `like`'s."""
    has_zero_point = ctx.optional_input(zero_index) is not None
    dtype = ctx.dtype(zero_index if has_zero_point else like)
    if dtype not in QUANTIZED_INTEGERS:
        raise Unsupported(f"to {dtype}")
    return dtype


def saturated(
    ctx: NodeContext, value: Value, zero_index: int, dtype: str, what: str = ""
) -> Value:
    """`sat(round(value) + zero point)` as `dtype` (zero point: input
    `zero_index`, absent: 0)."""
    y = ctx.op("round", value, suffix=f"{what}rounded")
    if ctx.optional_input(zero_index) is not None:
        zero_point = scalar(ctx, zero_index, "float32", f"{what}y_zero_point")
        y = ctx.op("add", y, zero_point, suffix=f"{what}shifted")
    low, high = integer_range(dtype)
    y = ctx.op("clip", y, min=low, max=high, suffix=f"{what}clipped")
    suffix = f"{what}quantized" if what else None
    return ctx.op("cast", y, dst_type=dtype, suffix=suffix)


def ratio(ctx: NodeContext, numerators: Sequence[int], denominator: int) -> Value:
    """The product of the scalar scales `numerators` over `denominator`'s,
    in float32 (as onnxruntime computes its scale ratios)."""
    product = scalar(ctx, numerators[0], "float32", f"scale{numerators[0]}")
    for index in numerators[1:]:
        factor = scalar(ctx, index, "float32", f"scale{index}")
        product = ctx.op("mul", product, factor, suffix=f"scale{index}/product")
    divisor = scalar(ctx, denominator, "float32", f"scale{denominator}")
    return ctx.op("div", product, divisor, suffix="scale_ratio")


@converts("QLinearAdd")
def convert_qlinear_add(ctx: NodeContext) -> list[Value]:
    """A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp (broadcasting)."""
    a = ctx.op("mul", centred(ctx, 0, 2, "float32"), ratio(ctx, [1], 6), suffix="a")
    b = ctx.op("mul", centred(ctx, 3, 5, "float32"), ratio(ctx, [4], 6), suffix="b")
    total = ctx.op("add", a, b, suffix="sum")
    return [saturated(ctx, total, 7, output_dtype(ctx, 7, 0))]


@converts("QLinearMul")
def convert_qlinear_mul(ctx: NodeContext) -> list[Value]:
    """A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp (broadcasting)."""
    product = ctx.op(
        "mul", centred(ctx, 0, 2, "int32"), centred(ctx, 3, 5, "int32"), suffix="ab"
    )
    wide = as_float(ctx, product, "float32", "ab/wide")
    scaled = ctx.op("mul", wide, ratio(ctx, [1, 4], 6), suffix="scaled")
    return [saturated(ctx, scaled, 7, output_dtype(ctx, 7, 0))]


@converts("QLinearSigmoid")
def convert_qlinear_sigmoid(ctx: NodeContext) -> list[Value]:
    """X, X_scale, X_zp, Y_scale, Y_zp."""
    x_scale = scalar(ctx, 1, "float32", "x_scale")
    x = ctx.op("mul", centred(ctx, 0, 2, "float32"), x_scale, suffix="x")
    y = ctx.op("sigmoid", x, suffix="sigmoid")
    y_scale = scalar(ctx, 3, "float32", "y_scale")
    scaled = ctx.op("div", y, y_scale, suffix="scaled")
    return [saturated(ctx, scaled, 4, output_dtype(ctx, 4, 0))]


@converts("QLinearConcat")
def convert_qlinear_concat(ctx: NodeContext) -> list[Value]:
    """Y_scale, Y_zp, then (X, X_scale, X_zp) per input; attribute `axis`."""
    count, rest = divmod(len(ctx.inputs) - 2, 3)
    if rest or count < 1:
        raise ValueError("inputs must be Y_scale, Y_zero_point, then (X, scale, zp)s")
    dtype = output_dtype(ctx, 1, 2)
    y_scale = scalar(ctx, 0, "float32", "y_scale")
    parts = []
    for k in range(count):
        first = 2 + 3 * k
        x_scale = scalar(ctx, first + 1, "float32", f"x{k}_scale")
        x = ctx.op("mul", centred(ctx, first, first + 2, "float32"), x_scale,
                   suffix=f"x{k}")  # fmt: skip
        scaled = ctx.op("div", x, y_scale, suffix=f"x{k}/scaled")
        parts.append(saturated(ctx, scaled, 1, dtype, f"x{k}/"))
    return [ctx.op("concat", parts, axis=ctx.attr("axis"))]


@converts("QLinearGlobalAveragePool")
def convert_qlinear_global_average_pool(ctx: NodeContext) -> list[Value]:
    """X, x_scale, x_zp, y_scale, y_zp; `channels_last` puts C last. The
    int32 sum of each channel's centred values, requantized."""
    shape = ctx.static_shape(0)
    rank = len(shape)
    if rank < 3:
        raise ValueError(f"X has rank {rank}, at least 3 expected")
    axes = (
        list(range(1, rank - 1))
        if ctx.attr("channels_last", 0)
        else list(range(2, rank))
    )
    count = int(np.prod([shape[a] for a in axes]))
    total = ctx.op(
        "reduce_sum", centred(ctx, 0, 2, "int32"), axes=axes, keep_dims=True,
        suffix="sum",
    )  # fmt: skip
    x_scale = scalar(ctx, 1, "float32", "x_scale")
    y_scale = scalar(ctx, 3, "float32", "y_scale")
    denominator = ctx.op("mul", y_scale, f32(count), suffix="y_scale_n")
    multiplier = ctx.op("div", x_scale, denominator, suffix="scale_ratio")
    wide = as_float(ctx, total, "float32", "sum/wide")
    scaled = ctx.op("mul", wide, multiplier, suffix="scaled")
    return [saturated(ctx, scaled, 4, output_dtype(ctx, 4, 0))]


@converts("QLinearSoftmax")
def convert_qlinear_softmax(ctx: NodeContext) -> list[Value]:
    """X, X_scale, x_zp, Y_scale, y_zp; `axis`, `opset` (below 13: over the
    dims from `axis` on, default 1; else one axis, default -1). onnxruntime
    tabulates exp of the centred input shifted by its maximum; its output
    scale is `floor(1 / Y_scale)`, which is kept: y = sat(round(softmax(x~
    s_x) * floor(1 / s_y)) + y_zp)."""
    opset = ctx.attr("opset")
    if opset is None:
        raise ValueError("attribute 'opset' is missing")
    shape = ctx.shape(0)
    rank = len(shape)
    axis = ctx.attr("axis", 1 if opset < 13 else -1)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    x_scale = scalar(ctx, 1, "float32", "x_scale")
    x = ctx.op("mul", centred(ctx, 0, 2, "float32"), x_scale, suffix="x")
    if opset < 13 and axis < rank - 1:
        if -1 in shape[axis:]:
            raise Unsupported("on dynamic dims after the axis (opset < 13)")
        rows = ctx.op(
            "reshape", x, shape=[*shape[:axis], int(np.prod(shape[axis:]))],
            suffix="rows",
        )  # fmt: skip
        y = ctx.op("softmax", rows, axis=axis, suffix="softmax_rows")
        y = ctx.op("reshape", y, shape=list(shape), suffix="softmax")
    else:
        y = ctx.op("softmax", x, axis=axis, suffix="softmax")
    y_scale = scalar(ctx, 3, "float32", "y_scale")
    steps = ctx.op("div", f32(1.0), y_scale, suffix="steps_raw")
    steps = ctx.op("floor", steps, suffix="steps")
    scaled = ctx.op("mul", y, steps, suffix="scaled")
    return [saturated(ctx, scaled, 4, output_dtype(ctx, 4, 0))]


def per_column(ctx: NodeContext, index: int, dtype: str, what: str) -> Value:
    """A scale or zero point of B (input `index`): a scalar, or a vector
    with one entry per column of the product."""
    if int(np.prod(ctx.shape(index))) == 1:
        return scalar(ctx, index, dtype, what)
    return as_float(ctx, ctx.input(index), dtype, f"{what}/wide")


def integer_matmul(
    ctx: NodeContext, a: Value, b: int, b_zero: int | None, transpose_b: bool = False
) -> Value:
    """`a` (int32, centred) @ (input `b` - its zero point, per column) in
    int32; B transposed first when `transpose_b`."""
    matrix = as_float(ctx, ctx.input(b), "int32", "b/wide")
    if transpose_b:
        matrix = ctx.op("transpose", matrix, perm=[1, 0], suffix="b/transposed")
    if b_zero is not None and ctx.optional_input(b_zero) is not None:
        zero_point = per_column(ctx, b_zero, "int32", "b_zero_point")
        matrix = ctx.op("sub", matrix, zero_point, suffix="b/centred")
    return integer_product(ctx, "MatMul", [a, matrix])


@converts("QGemm")
def convert_qgemm(ctx: NodeContext) -> list[Value]:
    """A, a_scale, a_zp, B, b_scale, b_zp, C (int32), y_scale, y_zp;
    `alpha`, `transA`, `transB`. Without y_scale the result is float."""
    if len(ctx.shape(0)) != 2 or len(ctx.shape(3)) != 2:
        raise ValueError("A and B must be matrices")
    a = centred(ctx, 0, 2, "int32")
    if ctx.attr("transA", 0):
        a = ctx.op("transpose", a, perm=[1, 0], suffix="a/transposed")
    acc = integer_matmul(ctx, a, 3, 5, transpose_b=bool(ctx.attr("transB", 0)))
    if ctx.optional_input(6) is not None:
        bias = as_float(ctx, ctx.input(6), "int32", "c/wide")
        acc = ctx.op("add", acc, bias, suffix="biased")
    a_scale = scalar(ctx, 1, "float32", "a_scale")
    alpha = ctx.op("mul", a_scale, f32(ctx.attr("alpha", 1.0)), suffix="alpha")
    multiplier = ctx.op(
        "mul", alpha, per_column(ctx, 4, "float32", "b_scale"), suffix="scale_product"
    )
    wide = as_float(ctx, acc, "float32", "acc/wide")
    if ctx.optional_input(7) is None:
        return [ctx.op("mul", wide, multiplier)]
    y_scale = scalar(ctx, 7, "float32", "y_scale")
    multiplier = ctx.op("div", multiplier, y_scale, suffix="scale_ratio")
    scaled = ctx.op("mul", wide, multiplier, suffix="scaled")
    return [saturated(ctx, scaled, 8, output_dtype(ctx, 8, 0))]


def integer_to_float(
    ctx: NodeContext, product: Value, a_scale: Value, b_scale: int, bias: int
) -> Value:
    """product (int32) * (a_scale * b_scale) + bias (input `bias`, absent:
    none), in float32."""
    multiplier = ctx.op(
        "mul", a_scale, per_column(ctx, b_scale, "float32", "b_scale"),
        suffix="scale_product",
    )  # fmt: skip
    wide = as_float(ctx, product, "float32", "product/wide")
    y = ctx.op("mul", wide, multiplier, suffix="scaled")
    if ctx.optional_input(bias) is None:
        return y
    return ctx.op("add", y, ctx.input(bias))


@converts("MatMulIntegerToFloat")
def convert_matmul_integer_to_float(ctx: NodeContext) -> list[Value]:
    """A, B, a_scale, b_scale, a_zp, b_zp, bias."""
    product = integer_matmul(ctx, centred(ctx, 0, 4, "int32"), 1, 5)
    a_scale = scalar(ctx, 2, "float32", "a_scale")
    return [integer_to_float(ctx, product, a_scale, 3, 6)]


def dynamically_quantized(
    ctx: NodeContext, x: Value, suffix: str
) -> tuple[Value, Value, Value]:
    """ONNX's DynamicQuantizeLinear of float `x` to uint8: (q as float32,
    scale, zero point as float32), the range [min(x, 0), max(x, 0)] over 255
    steps (an all-zero x gets the smallest scale: zeros)."""
    axes = list(range(len(shape_of(x))))
    low = ctx.op("reduce_min", x, axes=axes, keep_dims=False, suffix=f"{suffix}/min")
    high = ctx.op("reduce_max", x, axes=axes, keep_dims=False, suffix=f"{suffix}/max")
    low = ctx.op("minimum", low, f32(0), suffix=f"{suffix}/low")
    high = ctx.op("maximum", high, f32(0), suffix=f"{suffix}/high")
    span = ctx.op("sub", high, low, suffix=f"{suffix}/span")
    scale = ctx.op("div", span, f32(255), suffix=f"{suffix}/scale_raw")
    scale = ctx.op("maximum", scale, f32(SMALLEST_SCALE), suffix=f"{suffix}/scale")
    zero_point = ctx.op("div", low, scale, suffix=f"{suffix}/low_steps")
    zero_point = ctx.op("sub", f32(0), zero_point, suffix=f"{suffix}/zp_raw")
    zero_point = ctx.op(
        "clip", zero_point, min=0.0, max=255.0, suffix=f"{suffix}/zp_sat"
    )
    zero_point = ctx.op("round", zero_point, suffix=f"{suffix}/zero_point")
    q = ctx.op("div", x, scale, suffix=f"{suffix}/steps")
    q = ctx.op("round", q, suffix=f"{suffix}/rounded")
    q = ctx.op("add", q, zero_point, suffix=f"{suffix}/shifted")
    q = ctx.op("clip", q, min=0.0, max=255.0, suffix=f"{suffix}/q")
    return q, scale, zero_point


@converts("DynamicQuantizeMatMul")
def convert_dynamic_quantize_matmul(ctx: NodeContext) -> list[Value]:
    """A (float), B, b_scale, b_zp, bias: A quantized to uint8 dynamically."""
    a = as_float(ctx, ctx.input(0), "float32", "a/float")
    q, scale, zero_point = dynamically_quantized(ctx, a, "a")
    centred_a = as_float(ctx, ctx.op("sub", q, zero_point, suffix="a/centred"),
                         "int32", "a/int")  # fmt: skip
    product = integer_matmul(ctx, centred_a, 1, 3)
    return [integer_to_float(ctx, product, scale, 2, 4)]


def dequantized_weights(ctx: NodeContext, index: int, scale: int, what: str) -> Value:
    """DynamicQuantizeLSTM's W or R (input `index`, `[dirs, in, 4 hidden]`;
    its scale and zero point inputs `scale`, `scale + 1`: per direction or
    per column) dequantized and transposed to ONNX LSTM's `[dirs, 4 hidden,
    in]`."""
    weights = as_float(ctx, ctx.input(index), "float32", f"{what}/float")
    per_column = len(ctx.shape(scale)) > 1
    dims = [-1, 1, ctx.shape(index)[2]] if per_column else [-1, 1, 1]
    zero_point = as_float(ctx, ctx.input(scale + 1), "float32", f"{what}_zp/float")
    zero_point = ctx.op("reshape", zero_point, shape=dims, suffix=f"{what}_zp/dirs")
    factor = as_float(ctx, ctx.input(scale), "float32", f"{what}_scale/float")
    factor = ctx.op("reshape", factor, shape=dims, suffix=f"{what}_scale/dirs")
    centred_w = ctx.op("sub", weights, zero_point, suffix=f"{what}/centred")
    dequantized = ctx.op("mul", centred_w, factor, suffix=f"{what}/dequantized")
    return ctx.op("transpose", dequantized, perm=[0, 2, 1], suffix=f"{what}/rows")


@converts("DynamicQuantizeLSTM")
def convert_dynamic_quantize_lstm(ctx: NodeContext) -> list[Value | None]:
    """X, W, R, B, sequence_lens, initial_h, initial_c, P, W_scale,
    W_zero_point, R_scale, R_zero_point; ONNX LSTM's attributes."""
    if len(ctx.inputs) < 12:
        raise ValueError("inputs must reach R_zero_point (input #11)")
    weights = [
        dequantized_weights(ctx, 1, 8, "w"),
        dequantized_weights(ctx, 2, 10, "r"),
    ]
    float_inputs = [ctx.input(0), *weights, *ctx.inputs[3:8]]
    lstm_ctx = dataclasses.replace(ctx, inputs=float_inputs)

    def quantize(x: Value, suffix: str) -> Value:
        q, scale, zero_point = dynamically_quantized(lstm_ctx, x, suffix)
        steps = lstm_ctx.op("sub", q, zero_point, suffix=f"{suffix}/centred")
        return lstm_ctx.op("mul", steps, scale, suffix=suffix)

    return lstm(Recurrence(lstm_ctx, gates=4, quantize=quantize))
