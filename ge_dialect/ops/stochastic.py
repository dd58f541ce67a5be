"""Ops whose results ONNX draws at random: `ge.dropout` (ONNX Dropout with a
run-time `ratio` or `training_mode`).

Only the deterministic cases are computed: in inference (`training_mode`
false) or with `ratio` 0, Dropout is the identity and keeps every element
(its mask all true). With `training_mode` true and a `ratio` above 0 the
mask is random (ONNX fixes no generator, so no implementation's values
can be reproduced): the run stops with an error at the op, never a made-up
mask.

```mlir
%y, %mask = ge.dropout %x, %ratio, %training
    : (tensor<3x5xf32>, tensor<f32>, tensor<i1>) -> (tensor<3x5xf32>, tensor<3x5xi1>)
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType, i1
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import full_rank_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    element_count,
    element_type_of,
)
from ge_dialect.shape_functions import Result, Shape, ShapeError

RANDOM_MASK = (
    "Dropout in training mode with a ratio above 0 draws a random mask, which "
    "no generator reproduces: only ratio 0 or training_mode false is computed"
)
"""Why a training-mode Dropout with a ratio above 0 is not computed."""


@irdl_op_definition
class DropoutOp(GEOperation):
    """ONNX Dropout with run-time `ratio` (float scalar) and `training_mode`
    (bool scalar): `y = x` and an all-true `mask` where that is what ONNX
    defines (module docstring); a random mask is a run-time error."""

    name = "ge.dropout"

    x = operand_def(TensorType)
    ratio = operand_def(TensorType)
    training_mode = operand_def(TensorType)
    y = result_def(TensorType)
    mask = result_def(TensorType)

    # Not Pure: a run that would need a random mask must stop (not be erased).
    traits = traits_def()
    FORMAT_RULE = staticmethod(full_rank_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if element_count(self.ratio) != 1 or element_count(self.training_mode) != 1:
            raise VerifyException("ratio and training_mode hold one element")
        if element_type_of(self.training_mode) != i1:
            raise VerifyException("training_mode must be bool")
        if element_type_of(self.y) != element_type_of(self.x):
            raise VerifyException("y must have the dtype of x")
        if element_type_of(self.mask) != i1:
            raise VerifyException("mask must be bool")
        x = shape_of(self.x.type)
        if shape_of(self.y.type) != x or shape_of(self.mask.type) != x:
            raise VerifyException("y and mask have the shape of x")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y like x, a bool mask of x's shape."""
        x, ratio, training = shapes
        if int(np.prod(ratio)) != 1 or int(np.prod(training)) != 1:
            raise ShapeError("ratio and training_mode hold one element")
        return [(x, dtypes[0]), (x, "bool")]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, ratio: np.ndarray, training_mode: np.ndarray
    ) -> list[np.ndarray]:
        """The identity and an all-true mask; ValueError for a random mask."""
        value = float(ratio.reshape(-1)[0])
        if bool(training_mode.reshape(-1)[0]) and value != 0:
            raise ValueError(f"{RANDOM_MASK} (ratio {value:g})")
        return [x.copy(), np.ones(x.shape, bool)]
