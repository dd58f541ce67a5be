"""Ops of ONNX's classical machine-learning domain (`ai.onnx.ml`) that are
plain tensor ops: Binarizer.

ArrayFeatureExtractor is a `ge.gather` on the last axis and LabelEncoder on
numbers a lookup: the importer builds them from existing ops
(`ge_frontend/onnx_ml.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, f64
from xdsl.irdl import attr_def, irdl_op_definition, traits_def

from ge_dialect.ops.base import real
from ge_dialect.ops.elementwise import UnaryElementwiseOp
from ge_dialect.scalar import ScalarBuilder, is_float
from ge_dialect.traits import ZeroPreserving


@irdl_op_definition
class BinarizerOp(UnaryElementwiseOp):
    """1 where x > threshold, else 0, in x's type (ONNX-ML Binarizer; NaN: 0).

    ```mlir
    %y = ge.binarizer %x {threshold = 0.5 : f32} : (tensor<3x5xf32>) -> tensor<3x5xf32>
    ```
    """

    name = "ge.binarizer"

    threshold = attr_def(FloatAttr, default_value=real(0.0))

    traits = traits_def(ZeroPreserving())

    def preserves_zero(self) -> bool:
        """Zero stays zero unless the threshold is below it."""
        return self.value_of("threshold") >= 0

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, threshold: float) -> np.ndarray:
        return (x > threshold).astype(x.dtype)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        # Integers compare as float64, as NumPy compares them with a float.
        value = x if is_float(x.type) else b.convert(x, f64)
        above = b.op(
            arith.CmpfOp, value, b.const(self.value_of("threshold"), value.type), "ogt"
        )
        return b.op(arith.SelectOp, above, b.const(1, x.type), b.const(0, x.type))
