"""ONNX-ML (`ai.onnx.ml`) op -> `ge` op conversion rules.

The classical machine-learning domain has its own opset; the driver looks
its nodes up here (`ML_CONVERTERS`) and checks their inputs against that
opset's schemas. What is a plain tensor op becomes one:

- Binarizer: `ge.binarizer` (elementwise);
- ArrayFeatureExtractor: `ge.gather` on the last axis of the flattened
  indices; a 1-D input gives one row `[1, k]`, as onnxruntime does;
- LabelEncoder: `ge.label_encoder` (keys, values and default from the
  `*_strings`, `*_int64s`, `*_floats` or `*_tensor` attributes).
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
    if (tensor := ctx.attr("default_tensor")) is not None:
        default = tensor.ravel().tolist()[0]
    elif dtype in LABEL_DEFAULTS:
        suffix = next(s for s, d in LABEL_KINDS.items() if d == dtype)
        default = ctx.attr(f"default_{suffix[:-1]}", LABEL_DEFAULTS[dtype])
    else:  # a values_tensor's type: ONNX's default for its kind
        default = -1 if np.dtype(dtype).kind in "iu" else -0.0
    if dtype != "string":
        default = np.asarray(default, dtype).item()
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
