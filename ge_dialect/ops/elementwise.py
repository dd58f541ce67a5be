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
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerType, TensorType, f64
from xdsl.ir import Operation
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
    element_type_of,
    real,
)
from ge_dialect.scalar import (
    ScalarBuilder,
    clamp,
    compare,
    elu,
    is_bool,
    is_float,
    select_by,
    truth,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    broadcast,
    broadcast_all,
    broadcast_shapes,
    same_dtype,
    same_shape,
)
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

    traits = traits_def(Pure(), Elementwise(), FormatAgnostic(), KeepsLayout())

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

    traits = traits_def(MayRunInPlace())

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


@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    """The error function, 2/√π ∫₀ˣ exp(-t²) dt (exact GELU is x·(1 + erf(x/√2))/2)."""

    name = "ge.erf"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        from scipy.special import erf

        return erf(x)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.ErfOp, x)


@irdl_op_definition
class Relu6Op(UnaryElementwiseOp):
    """min(max(x, 0), 6) (TensorFlow Relu6; -0.0 becomes +0.0, NaN stays)."""

    name = "ge.relu6"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(x, 0), 6)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        rectified = b.op(arith.MaximumfOp, x, b.const(0.0, x.type))
        return b.op(arith.MinimumfOp, rectified, b.const(6.0, x.type))


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    """1 / sqrt(x) (TensorFlow Rsqrt)."""

    name = "ge.rsqrt"

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.reciprocal(np.sqrt(x))

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(math.RsqrtOp, x)


# ---------------------------------------------------------------------------
# Binary ops
# ---------------------------------------------------------------------------


class BinaryElementwiseOp(ElementwiseOp):
    """Base of elementwise ops with two broadcast inputs (NumPy rules)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting(), MayRunInPlace())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    shape_function = staticmethod(broadcast)

    def verify_(self) -> None:
        check_same_element_type(self)
        check_broadcast_result(self)


def check_broadcast_result(op: Operation) -> None:
    """The result's shape is the NumPy broadcast of the operands' shapes."""
    expected = broadcast_shapes(*(shape_of(v.type) for v in op.operands))
    if expected is None:
        shown = " and ".join(str(list(shape_of(v.type))) for v in op.operands)
        raise VerifyException(f"shapes {shown} do not broadcast")
    if tuple(shape_of(op.results[0].type)) != expected:
        raise VerifyException(
            f"result shape {list(shape_of(op.results[0].type))} does not match "
            f"the broadcast shape {list(expected)}"
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

    scalar = _arith(arith.DivfOp, arith.DivSIOp)  # divsi truncates toward zero


@irdl_op_definition
class SquaredDifferenceOp(BinaryElementwiseOp):
    """(x1 - x2) * (x1 - x2) (TensorFlow SquaredDifference)."""

    name = "ge.squared_difference"

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        difference = np.subtract(x1, x2)
        return np.multiply(difference, difference)

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        if is_float(a.type):
            difference = b.op(arith.SubfOp, a, c)
            return b.op(arith.MulfOp, difference, difference)
        if is_bool(a.type):
            return None
        difference = b.op(arith.SubiOp, a, c)
        return b.op(arith.MuliOp, difference, difference)


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

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        """powf on floats; on integers in float64, truncated back (as the
        kernel computes in the float type NumPy picks, then casts)."""
        if is_float(a.type):
            return b.op(math.PowFOp, a, c)
        if is_bool(a.type):
            return None
        wide = b.op(math.PowFOp, b.convert(a, f64), b.convert(c, f64))
        return b.convert(wide, a.type)


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

    traits = traits_def(Broadcasting(), MayRunInPlace(), ZeroPreserving())
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


# ---------------------------------------------------------------------------
# Comparisons, logic and selection: results and conditions are booleans
# ---------------------------------------------------------------------------


class PredicateOp(ElementwiseOp):
    """Base of broadcasting ops with a boolean result (comparisons, logic).

    Operands of any dtype (they share one); a non-zero value is true where
    an operand is read as a truth value, as in NumPy and torch.
    """

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """NumPy broadcasting of the inputs (one dtype); a bool result."""
        same_dtype(dtypes)
        return [(broadcast_all(shapes), "bool")]

    def verify_(self) -> None:
        if element_type_of(self.x1) != element_type_of(self.x2):
            raise VerifyException(
                f"operands must share one dtype, got {element_type_of(self.x1)} "
                f"and {element_type_of(self.x2)}"
            )
        if not is_bool(element_type_of(self.y)):
            raise VerifyException(f"result must be i1, got {element_type_of(self.y)}")
        check_broadcast_result(self)


def _comparison(kind: str, ufunc: Any, doc: str) -> Any:
    """The kernel and scalar body of comparison `kind` ("lt", "eq", ...)."""

    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(ufunc(x1, x2))

    numpy_kernel.__doc__ = doc

    def scalar(self: Any, b: ScalarBuilder, a: Any, c: Any) -> Any:
        return compare(b, kind, a, c)

    return staticmethod(numpy_kernel), scalar


@irdl_op_definition
class EqualOp(PredicateOp):
    """x1 == x2 (NaN equals nothing)."""

    name = "ge.equal"

    numpy_kernel, scalar = _comparison("eq", np.equal, "x1 == x2")


@irdl_op_definition
class NotEqualOp(PredicateOp):
    """x1 != x2 (NaN differs from everything)."""

    name = "ge.not_equal"

    numpy_kernel, scalar = _comparison("ne", np.not_equal, "x1 != x2")


@irdl_op_definition
class LessOp(PredicateOp):
    """x1 < x2 (false when either is NaN)."""

    name = "ge.less"

    numpy_kernel, scalar = _comparison("lt", np.less, "x1 < x2")


@irdl_op_definition
class LessEqualOp(PredicateOp):
    """x1 <= x2 (false when either is NaN)."""

    name = "ge.less_equal"

    numpy_kernel, scalar = _comparison("le", np.less_equal, "x1 <= x2")


@irdl_op_definition
class GreaterOp(PredicateOp):
    """x1 > x2 (false when either is NaN)."""

    name = "ge.greater"

    numpy_kernel, scalar = _comparison("gt", np.greater, "x1 > x2")


@irdl_op_definition
class GreaterEqualOp(PredicateOp):
    """x1 >= x2 (false when either is NaN)."""

    name = "ge.greater_equal"

    numpy_kernel, scalar = _comparison("ge", np.greater_equal, "x1 >= x2")


def _logic(ufunc: Any, arith_op: Any, doc: str) -> Any:
    """The kernel and scalar body of a logical op on truth values."""

    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(ufunc(x1.astype(bool), x2.astype(bool)))

    numpy_kernel.__doc__ = doc

    def scalar(self: Any, b: ScalarBuilder, a: Any, c: Any) -> Any:
        return b.op(arith_op, truth(b, a), truth(b, c))

    return staticmethod(numpy_kernel), scalar


@irdl_op_definition
class LogicalAndOp(PredicateOp):
    """x1 and x2, on truth values (non-zero is true)."""

    name = "ge.logical_and"

    traits = traits_def(ZeroPreserving())

    numpy_kernel, scalar = _logic(np.logical_and, arith.AndIOp, "x1 and x2")


@irdl_op_definition
class LogicalOrOp(PredicateOp):
    """x1 or x2, on truth values (non-zero is true)."""

    name = "ge.logical_or"

    traits = traits_def(ZeroPreserving())

    numpy_kernel, scalar = _logic(np.logical_or, arith.OrIOp, "x1 or x2")


@irdl_op_definition
class LogicalXorOp(PredicateOp):
    """x1 xor x2, on truth values (non-zero is true)."""

    name = "ge.logical_xor"

    traits = traits_def(ZeroPreserving())

    numpy_kernel, scalar = _logic(np.logical_xor, arith.XOrIOp, "x1 xor x2")


@irdl_op_definition
class LogicalNotOp(ElementwiseOp):
    """not x, on truth values (non-zero is true); a bool result."""

    name = "ge.logical_not"

    x = operand_def(TensorType)
    y = result_def(TensorType)

    FORMAT_RULE = staticmethod(default_rule)

    assembly_format = UNARY_FORMAT

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The input's shape, a bool result."""
        return [(tuple(shapes[0]), "bool")]

    def verify_(self) -> None:
        if shape_of(self.x.type) != shape_of(self.y.type):
            raise VerifyException("result shape must equal the input shape")
        if not is_bool(element_type_of(self.y)):
            raise VerifyException(f"result must be i1, got {element_type_of(self.y)}")

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.logical_not(x)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.XOrIOp, truth(b, x), b.const(1, IntegerType(1)))


@irdl_op_definition
class SelectOp(ElementwiseOp):
    """x1 where `condition` is true (non-zero), else x2; all three broadcast
    (ONNX Where, torch.where, GE Select)."""

    name = "ge.select"

    condition = operand_def(TensorType)
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting(), ZeroPreserving())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """NumPy broadcasting of the three inputs; the dtype of x1 and x2."""
        return [(broadcast_all(shapes), same_dtype(dtypes[1:]))]

    def verify_(self) -> None:
        types = {element_type_of(v) for v in (self.x1, self.x2, self.y)}
        if len(types) > 1:
            names = ", ".join(sorted(str(t) for t in types))
            raise VerifyException(
                f"x1, x2 and the result must share one dtype, got {names}"
            )
        check_broadcast_result(self)

    @staticmethod
    def numpy_kernel(
        condition: np.ndarray, x1: np.ndarray, x2: np.ndarray
    ) -> np.ndarray:
        return np.asarray(np.where(condition.astype(bool), x1, x2), dtype=x1.dtype)

    def scalar(self, b: ScalarBuilder, condition: Any, a: Any, c: Any) -> Any:
        return b.op(arith.SelectOp, truth(b, condition), a, c)
