"""Elementwise ops: unary activations and math, broadcasting binary ops, add_n.

Each op is one class holding everything the compiler knows about it: its
traits (all are `Pure`, `Elementwise`, `MayRunInPlace`, `FormatAgnostic`;
`ZeroPreserving` where f(0) == 0), its shape function (from the base class),
its format rule (`FORMAT_RULE`), its NumPy reference kernel (`numpy_kernel`)
and its scalar loop body (`scalar`, see `ge_dialect.scalar`), from which the
loop lowering and fused epilogues are generated. Adding an elementwise op is
one class here (plus an importer mapping):

```python
@irdl_op_definition
class HardSwishOp(UnaryElementwiseOp):
    name = "ge.hard_swish"
    traits = traits_def(ZeroPreserving())
    @staticmethod
    def numpy_kernel(x): ...
    def scalar(self, b, x): ...
```
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import default_rule, same_rank_rule
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import float32_compute, is_int
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    check_same_element_type,
    real,
)
from ge_dialect.scalar import ScalarBuilder, clamp, elu, is_bool, is_float, select_by
from ge_dialect.shape_functions import broadcast, broadcast_shapes, same_shape
from ge_dialect.traits import (
    Broadcasting,
    Elementwise,
    FormatAgnostic,
    KeepsLayout,
    MayRunInPlace,
    ViewOp,
    ZeroPreserving,
)


class ElementwiseOp(GEOperation):
    """Base of elementwise ops.

    `operand_axes(i)` says where operand i is read: for each of its axes,
    the result axis it follows, or None where it is read at 0 (a size-1
    broadcast axis). The default is NumPy broadcasting.
    """

    traits = traits_def(
        Pure(), Elementwise(), MayRunInPlace(), FormatAgnostic(), KeepsLayout()
    )

    def operand_axes(self, position: int) -> tuple[int | None, ...]:
        """Result axis per axis of operand `position` (None: read at 0)."""
        shape = shape_of(self.operands[position].type)
        rank = len(shape_of(self.results[0].type))
        offset = rank - len(shape)
        return tuple(
            None if dim == 1 else offset + axis for axis, dim in enumerate(shape)
        )


# ---------------------------------------------------------------------------
# Unary ops
# ---------------------------------------------------------------------------


class UnaryElementwiseOp(ElementwiseOp):
    """Base of elementwise ops with one input."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    FORMAT_RULE = staticmethod(default_rule)

    assembly_format = UNARY_FORMAT

    shape_function = staticmethod(same_shape)

    def verify_(self) -> None:
        check_same_element_type(self)
        if shape_of(self.x.type) != shape_of(self.y.type):
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} must equal the input "
                f"shape {list(shape_of(self.x.type))}"
            )


def float_only(body: Any) -> Any:
    """A scalar body for floats only (None for other element types)."""

    @functools.wraps(body)
    def wrapper(self: Any, b: ScalarBuilder, *values: Any) -> Any:
        if not all(is_float(v.type) for v in values):
            return None
        return body(self, b, *values)

    return wrapper


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    """max(x, 0)."""

    name = "ge.relu"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.MaximumfOp, x, b.const(0.0, x.type))


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    """1 / (1 + exp(-x))."""

    name = "ge.sigmoid"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        """Overflow-free: exp(-log(1 + exp(-x)))."""
        return np.exp(-np.logaddexp(0, -x))

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        one = b.const(1.0, x.type)
        denominator = b.op(arith.AddfOp, one, b.op(math.ExpOp, b.op(arith.NegfOp, x)))
        return b.op(arith.DivfOp, one, denominator)


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    """tanh(x)."""

    name = "ge.tanh"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.tanh(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.TanhOp, x)


@irdl_op_definition
class SoftplusOp(UnaryElementwiseOp):
    """log(1 + exp(x))."""

    name = "ge.softplus"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        """Overflow-free."""
        return np.logaddexp(0, x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """max(x, 0) + log1p(exp(-|x|)), which cannot overflow."""
        tail = b.op(
            math.Log1pOp, b.op(math.ExpOp, b.op(arith.NegfOp, b.op(math.AbsFOp, x)))
        )
        return b.op(arith.AddfOp, b.op(arith.MaximumfOp, x, b.const(0.0, x.type)), tail)


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """-x."""

    name = "ge.neg"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.negative(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.NegfOp, x)


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """|x|."""

    name = "ge.abs"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.absolute(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.AbsFOp, x)


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    """exp(x)."""

    name = "ge.exp"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.exp(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.ExpOp, x)


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    """sqrt(x)."""

    name = "ge.sqrt"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.sqrt(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.SqrtOp, x)


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    """log(x)."""

    name = "ge.log"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.log(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.LogOp, x)


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    """1 / x."""

    name = "ge.reciprocal"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.reciprocal(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.DivfOp, b.const(1.0, x.type), x)


@irdl_op_definition
class IdentityOp(UnaryElementwiseOp):
    """x (also inference-mode Dropout). Its result is a view of its operand."""

    name = "ge.identity"

    traits = traits_def(ZeroPreserving(), ViewOp())

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return x

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return x


@irdl_op_definition
class LeakyReluOp(UnaryElementwiseOp):
    """x if x >= 0 else alpha * x."""

    name = "ge.leaky_relu"

    alpha = attr_def(FloatAttr, default_value=real(0.01))

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float) -> np.ndarray:
        return np.where(x >= 0, x, alpha * x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        scaled = b.op(arith.MulfOp, x, b.const(self.value_of("alpha"), x.type))
        return select_by(b, "oge", x, 0.0, x, scaled)


@irdl_op_definition
class EluOp(UnaryElementwiseOp):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    name = "ge.elu"

    alpha = attr_def(FloatAttr, default_value=real(1.0))

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float) -> np.ndarray:
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return elu(b, x, self.value_of("alpha"))


@irdl_op_definition
class SeluOp(UnaryElementwiseOp):
    """gamma * (x if x > 0 else alpha * (exp(x) - 1)) (ONNX Selu)."""

    name = "ge.selu"

    alpha = attr_def(FloatAttr, default_value=real(1.67326319217681884765625))
    gamma = attr_def(FloatAttr, default_value=real(1.05070102214813232421875))

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float, gamma: float) -> np.ndarray:
        return gamma * EluOp.numpy_kernel(x, alpha=alpha)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        value = elu(b, x, self.value_of("alpha"))
        return b.op(arith.MulfOp, value, b.const(self.value_of("gamma"), x.type))


@irdl_op_definition
class ClipOp(UnaryElementwiseOp):
    """min(max(x, min), max); an infinite bound is no bound (ONNX Clip)."""

    name = "ge.clip"

    min = attr_def(FloatAttr, default_value=real(float("-inf")))
    max = attr_def(FloatAttr, default_value=real(float("inf")))

    traits = traits_def(ZeroPreserving())

    def preserves_zero(self) -> bool:
        """Zero stays zero only when the range holds it."""
        return self.value_of("min") <= 0 <= self.value_of("max")

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, min: float, max: float) -> np.ndarray:
        """The result keeps x's dtype: on integers the bounds are taken inside
        the dtype's range (an infinite bound clamps nothing)."""
        if is_int(x):
            info = np.iinfo(x.dtype)
            min = x.dtype.type(np.ceil(np.clip(min, info.min, info.max)))
            max = x.dtype.type(np.floor(np.clip(max, info.min, info.max)))
        return np.clip(x, min, max)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return clamp(b, x, self.value_of("min"), self.value_of("max"))


@irdl_op_definition
class HardSwishOp(UnaryElementwiseOp):
    """x * max(0, min(1, x / 6 + 1 / 2)) (ONNX HardSwish)."""

    name = "ge.hard_swish"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return x * np.clip(x / np.float32(6) + np.float32(0.5), 0, 1)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        scaled = b.op(arith.DivfOp, x, b.const(6.0, x.type))
        gate = clamp(b, b.op(arith.AddfOp, scaled, b.const(0.5, x.type)), 0.0, 1.0)
        return b.op(arith.MulfOp, x, gate)


# ---------------------------------------------------------------------------
# Binary ops
# ---------------------------------------------------------------------------


class BinaryElementwiseOp(ElementwiseOp):
    """Base of elementwise ops with two broadcast inputs (NumPy rules)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    shape_function = staticmethod(broadcast)

    def verify_(self) -> None:
        check_same_element_type(self)
        expected = broadcast_shapes(shape_of(self.x1.type), shape_of(self.x2.type))
        if expected is None:
            raise VerifyException(
                f"shapes {list(shape_of(self.x1.type))} and "
                f"{list(shape_of(self.x2.type))} do not broadcast"
            )
        if tuple(shape_of(self.y.type)) != expected:
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} does not match the "
                f"broadcast shape {list(expected)}"
            )


def _arith(float_op: Any, int_op: Any | None) -> Any:
    """A binary scalar body: `float_op` on floats, `int_op` on integers
    (None: integers are not lowered); booleans are not lowered."""

    def scalar(self: Any, b: ScalarBuilder, a: Any, c: Any) -> Any:
        if is_float(a.type):
            return b.op(float_op, a, c)
        if int_op is None or is_bool(a.type):
            return None
        return b.op(int_op, a, c)

    return scalar


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """x1 + x2."""

    name = "ge.add"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.add(x1, x2)

    scalar = _arith(arith.AddfOp, arith.AddiOp)


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """x1 - x2."""

    name = "ge.sub"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.subtract(x1, x2)

    scalar = _arith(arith.SubfOp, arith.SubiOp)


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """x1 * x2."""

    name = "ge.mul"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.multiply(x1, x2)

    scalar = _arith(arith.MulfOp, arith.MuliOp)


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """x1 / x2; integer division truncates toward zero (ONNX Div)."""

    name = "ge.div"

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        if not (is_int(x1) and is_int(x2)):
            return np.divide(x1, x2)
        q, r = np.divmod(x1, x2)
        return np.where((r != 0) & ((x1 < 0) != (x2 < 0)), q + 1, q)

    scalar = _arith(arith.DivfOp, None)


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """x1 ** x2; the result has x1's dtype (ONNX Pow)."""

    name = "ge.pow"

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.power(x1, x2, dtype=np.result_type(x1, x2, np.float32)).astype(
            x1.dtype, copy=False
        )

    scalar = _arith(math.PowFOp, None)


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """max(x1, x2)."""

    name = "ge.maximum"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.maximum(x1, x2)

    scalar = _arith(arith.MaximumfOp, arith.MaxSIOp)


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """min(x1, x2)."""

    name = "ge.minimum"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.minimum(x1, x2)

    scalar = _arith(arith.MinimumfOp, arith.MinSIOp)


@irdl_op_definition
class PReluOp(BinaryElementwiseOp):
    """x1 if x1 >= 0 else x2 * x1 (x2 is the slope, broadcast to x1)."""

    name = "ge.prelu"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.where(x1 >= 0, x1, x2 * x1).astype(x1.dtype, copy=False)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any, slope: Any) -> Any:
        return select_by(b, "oge", x, 0.0, x, b.op(arith.MulfOp, slope, x))


@irdl_op_definition
class AddNOp(ElementwiseOp):
    """Sum of all inputs (broadcast)."""

    name = "ge.add_n"

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting(), ZeroPreserving())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    shape_function = staticmethod(broadcast)

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'ge.add_n' needs at least one input")
        check_same_element_type(self)

    @staticmethod
    @float32_compute
    def numpy_kernel(inputs: Sequence[np.ndarray]) -> np.ndarray:
        """Sum of all inputs with NumPy broadcasting (ONNX Sum)."""
        return functools.reduce(np.add, inputs)

    @float_only
    def scalar(self, b: ScalarBuilder, *values: Any) -> Any:
        total = values[0]
        for value in values[1:]:
            total = b.op(arith.AddfOp, total, value)
        return total
