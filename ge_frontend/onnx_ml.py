"""ONNX-ML (`ai.onnx.ml`) op -> `ge` op conversion rules.

The classical machine-learning domain has its own opset; the driver looks
its nodes up here (`ML_CONVERTERS`) and checks their inputs against that
opset's schemas. What is a plain tensor op becomes one:

- Binarizer: `ge.binarizer` (elementwise);
- ArrayFeatureExtractor: `ge.gather` on the last axis of the flattened
  indices; a 1-D input gives one row `[1, k]`, as onnxruntime does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

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
