"""ONNX-ML (`ai.onnx.ml`) op -> `ge` op conversion rules.

The classical machine-learning domain has its own opset; the driver looks
its nodes up here (`ML_CONVERTERS`) and checks their inputs against that
opset's schemas. What is a plain tensor op becomes one:

- Binarizer: `ge.binarizer` (elementwise);
- ArrayFeatureExtractor: `ge.gather` on the last axis of the flattened
  indices; a 1-D input gives one row `[1, k]`, as onnxruntime does;
- LabelEncoder: numbers to numbers, a chain of `ge.select`s the JIT runs
  (`lookup_by_selects`); with strings on either side `ge.label_encoder`, on
  the host (keys, values and default from the `*_strings`, `*_int64s`,
  `*_floats` or `*_tensor` attributes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ge_frontend.importing import Value, registrar
from ge_frontend.onnx_context import NodeContext

ML_DOMAIN = "ai.onnx.ml"

ML_CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""ONNX-ML op type -> converter."""

converts = registrar(ML_CONVERTERS)


@converts("Binarizer")
def convert_binarizer(ctx: NodeContext) -> list[Value]:
    return [ctx.op("binarizer", ctx.input(0), threshold=ctx.attr("threshold", 0.0))]


@converts("ArrayFeatureExtractor")
def convert_array_feature_extractor(ctx: NodeContext) -> list[Value]:
    x, shape = ctx.input(0), ctx.static_shape(0)
    count = math.prod(ctx.static_shape(1))
    indices = ctx.input(1)
    if len(ctx.shape(1)) != 1:
        indices = ctx.op("reshape", indices, shape=[count], suffix="indices")
    y = ctx.op("gather", x, indices, axis=len(shape) - 1)
    if len(shape) == 1:
        return [ctx.op("reshape", y, shape=[1, count], suffix="row")]
    return [y]


LABEL_KINDS = {"strings": "string", "int64s": "int64", "floats": "float32"}
"""LabelEncoder's attribute suffix -> the dtype of what it lists."""

LABEL_DEFAULTS = {"string": "_Unused", "int64": -1, "float32": -0.0}
"""LabelEncoder's default value per value dtype (ONNX's)."""


def label_list(ctx: NodeContext, role: str) -> tuple[list[Any], str]:
    """LabelEncoder's `keys` or `values`: the listed items and their dtype."""
    if (tensor := ctx.attr(f"{role}_tensor")) is not None:
        dtype = "string" if tensor.dtype == object else tensor.dtype.name
        return tensor.ravel().tolist(), dtype
    for suffix, dtype in LABEL_KINDS.items():
        if (items := ctx.attr(f"{role}_{suffix}")) is not None:
            return list(items), dtype
    raise ValueError(f"no {role}: set one of {role}_strings, _int64s, _floats, _tensor")


@converts("LabelEncoder")
def convert_label_encoder(ctx: NodeContext) -> list[Value]:
    keys, key_dtype = label_list(ctx, "keys")
    values, dtype = label_list(ctx, "values")
    if (key_dtype == "string") != (ctx.dtype(0) == "string"):
        raise ValueError(f"keys are {key_dtype}, x is {ctx.dtype(0)}")
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values")
    if ctx.opset < 4:  # NaN keys match NaN from opset 4 on (onnxruntime)
        kept = [i for i, key in enumerate(keys) if not is_nan(key)]
        keys, values = [keys[i] for i in kept], [values[i] for i in kept]
    if (tensor := ctx.attr("default_tensor")) is not None:
        default = tensor.ravel().tolist()[0]
    elif dtype in LABEL_DEFAULTS:
        suffix = next(s for s, d in LABEL_KINDS.items() if d == dtype)
        default = ctx.attr(f"default_{suffix[:-1]}", LABEL_DEFAULTS[dtype])
    else:  # a values_tensor's type: ONNX's default for its kind
        default = -1 if np.dtype(dtype).kind in "iu" else -0.0
    if dtype != "string":
        default = np.asarray(default, dtype).item()
    if "string" not in (key_dtype, dtype):
        return [lookup_by_selects(ctx, keys, values, default, dtype)]
    return [
        ctx.op(
            "label_encoder",
            ctx.input(0),
            keys=keys,
            values=values,
            default=default,
            dst_type=dtype,
        )
    ]


def lookup_by_selects(
    ctx: NodeContext,
    keys: Sequence[Any],
    values: Sequence[Any],
    default: Any,
    dtype: str,
) -> Value:
    """LabelEncoder over numbers as tensor ops the JIT runs: starting from
    the default, one `ge.select` per key where x equals it (`ge.is_nan` for
    a NaN key), the last key first so the first of equal keys wins. A key x's
    dtype cannot hold never matches."""
    x = ctx.input(0)
    y: Value = np.asarray(default, dtype)
    for index in range(len(keys) - 1, -1, -1):
        key = np.asarray(keys[index], ctx.dtype(0))
        if key.item() != keys[index] and not is_nan(keys[index]):
            continue
        found = (
            ctx.op("is_nan", x, suffix=f"key{index}")
            if is_nan(keys[index])
            else ctx.op("equal", x, key, suffix=f"key{index}")
        )
        value = np.asarray(values[index], dtype)
        y = ctx.op("select", found, value, y, suffix=f"value{index}")
    if isinstance(y, np.ndarray):  # no key can match
        return ctx.op("fill", np.asarray(ctx.static_shape(0), np.int64), y)
    return y


def is_nan(key: Any) -> bool:
    """Whether a LabelEncoder key is a float NaN."""
    return isinstance(key, float) and math.isnan(key)
