"""Comparisons, logic, bit operations and selection.

Elementwise ops whose operands or results are not floats, one shared
definition per kind, so an op is its name, its NumPy function and its
`arith` building block:

- comparisons (`ge.equal`, `ge.not_equal`, `ge.less`, `ge.less_equal`,
  `ge.greater`, `ge.greater_equal`): two broadcast operands of one dtype, a
  bool result; lowered to `arith.cmpf` (ordered predicates: NaN compares
  unequal and unordered) or `arith.cmpi` (signed or unsigned by the
  operand type);
- logic on truth values of any dtype, non-zero is true as in NumPy and
  torch (`ge.logical_and`, `ge.logical_or`, `ge.logical_xor`,
  `ge.logical_not`: bool results) and bit operations on integers (`ge.bitwise_and`,
  `ge.bitwise_or`, `ge.bitwise_xor`, `ge.bitwise_not`, `ge.left_shift`,
  `ge.right_shift`);
- float predicates with bool results (`ge.is_nan`, `ge.is_inf`);
- `ge.select`: `x1 where condition else x2`, the three broadcast against
  each other, the condition read as a truth value (ONNX Where, torch.where,
  TensorFlow SelectV2).

```mlir
%m = ge.less %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
%y = ge.select %m, %a, %z : (tensor<3x17xi1>, tensor<3x17xf32>, tensor<f32>)
                           -> tensor<3x17xf32>
```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import default_rule, same_rank_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    element_type_of,
    integer,
)
from ge_dialect.ops.elementwise import ElementwiseOp, check_broadcast_result
from ge_dialect.scalar import (
    ScalarBuilder,
    compare,
    is_bool,
    is_float,
    is_integer,
    is_unsigned,
    truth,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    broadcast_all,
    same_dtype,
)
from ge_dialect.traits import Broadcasting, ZeroPreserving

Kernel = Callable[..., np.ndarray]


def _check_element_types(
    op: ElementwiseOp, values: Sequence[Any], allowed: Callable[[Any], bool], what: str
) -> None:
    """`values` share one element type, which `allowed` accepts."""
    types = {element_type_of(v) for v in values}
    if len(types) > 1:
        listed = ", ".join(sorted(str(t) for t in types))
        raise VerifyException(f"operands must share one dtype, got {listed}")
    (element,) = types
    if not allowed(element):
        raise VerifyException(f"operands must be {what}, got {element}")


def _any_type(type_: Any) -> bool:
    return True


def _binary_kernel(function: np.ufunc) -> Kernel:
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.asarray(function(x1, x2))

    numpy_kernel.__doc__ = f"`np.{function.__name__}` with NumPy broadcasting."
    return numpy_kernel


def _unary_kernel(function: np.ufunc) -> Kernel:
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(function(x))

    numpy_kernel.__doc__ = f"`np.{function.__name__}`."
    return numpy_kernel


def _bool_result(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """The broadcast shape of the operands (one dtype), a bool result."""
    same_dtype(dtypes)
    return [(broadcast_all(shapes), "bool")]


# ---------------------------------------------------------------------------
# Binary ops
# ---------------------------------------------------------------------------


class BinaryLogicOp(ElementwiseOp):
    """Base of broadcasting binary ops here: `x1`, `x2` of one dtype (which
    `accepts`), result `y` (bool for comparisons, else the operands' dtype)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Broadcasting())
    FORMAT_RULE = staticmethod(same_rank_rule)

    assembly_format = COMPUTE_FORMAT

    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (_any_type, "tensors")
    """Which operand element types the op takes, and how to say it."""
    BOOL_RESULT: ClassVar[bool] = False

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """NumPy broadcasting of both operands (one dtype), their dtype."""
        return [(broadcast_all(shapes), same_dtype(dtypes))]

    def verify_(self) -> None:
        allowed, what = self.ACCEPTS
        _check_element_types(self, self.operands, allowed, what)
        check_broadcast_result(self)
        result = element_type_of(self.y)
        if self.BOOL_RESULT and not is_bool(result):
            raise VerifyException(f"result must be bool (i1), got {result}")
        if not self.BOOL_RESULT and result != element_type_of(self.x1):
            raise VerifyException(
                f"result dtype {result} must be the operands' "
                f"{element_type_of(self.x1)}"
            )


class ComparisonOp(BinaryLogicOp):
    """`x1 <op> x2` elementwise: a bool result (NaN is unordered: only
    `not_equal` holds for it)."""

    BOOL_RESULT: ClassVar[bool] = True
    shape_function = staticmethod(_bool_result)

    KIND: ClassVar[str]
    """The comparison `ge_dialect.scalar.compare` makes: eq, ne, lt, le, gt, ge."""

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        return compare(b, self.KIND, a, c)


@irdl_op_definition
class EqualOp(ComparisonOp):
    """x1 == x2."""

    name = "ge.equal"
    KIND: ClassVar[str] = "eq"
    numpy_kernel = staticmethod(_binary_kernel(np.equal))


@irdl_op_definition
class NotEqualOp(ComparisonOp):
    """x1 != x2 (true where either is NaN)."""

    name = "ge.not_equal"
    KIND: ClassVar[str] = "ne"
    numpy_kernel = staticmethod(_binary_kernel(np.not_equal))


@irdl_op_definition
class LessOp(ComparisonOp):
    """x1 < x2."""

    name = "ge.less"
    traits = traits_def(ZeroPreserving())  # 0 < 0 is false
    KIND: ClassVar[str] = "lt"
    numpy_kernel = staticmethod(_binary_kernel(np.less))


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    """x1 <= x2."""

    name = "ge.less_equal"
    KIND: ClassVar[str] = "le"
    numpy_kernel = staticmethod(_binary_kernel(np.less_equal))


@irdl_op_definition
class GreaterOp(ComparisonOp):
    """x1 > x2."""

    name = "ge.greater"
    traits = traits_def(ZeroPreserving())
    KIND: ClassVar[str] = "gt"
    numpy_kernel = staticmethod(_binary_kernel(np.greater))


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    """x1 >= x2."""

    name = "ge.greater_equal"
    KIND: ClassVar[str] = "ge"
    numpy_kernel = staticmethod(_binary_kernel(np.greater_equal))


class IntegerBinaryOp(BinaryLogicOp):
    """A binary op computed by one `arith` op on integer (or bool) elements."""

    ARITH: ClassVar[type]

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        return b.op(self.ARITH, a, c)


class LogicalBinaryOp(BinaryLogicOp):
    """A binary op on the operands' truth values (non-zero, NaN included, is
    true): one `arith` op on i1, a bool result."""

    BOOL_RESULT: ClassVar[bool] = True
    shape_function = staticmethod(_bool_result)

    ARITH: ClassVar[type]

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        return b.op(self.ARITH, truth(b, a), truth(b, c))


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """x1 and x2, on truth values."""

    name = "ge.logical_and"
    traits = traits_def(ZeroPreserving())
    ARITH: ClassVar[type] = arith.AndIOp
    numpy_kernel = staticmethod(_binary_kernel(np.logical_and))


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """x1 or x2, on truth values."""

    name = "ge.logical_or"
    traits = traits_def(ZeroPreserving())
    ARITH: ClassVar[type] = arith.OrIOp
    numpy_kernel = staticmethod(_binary_kernel(np.logical_or))


@irdl_op_definition
class LogicalXorOp(LogicalBinaryOp):
    """x1 xor x2, on truth values."""

    name = "ge.logical_xor"
    traits = traits_def(ZeroPreserving())
    ARITH: ClassVar[type] = arith.XOrIOp
    numpy_kernel = staticmethod(_binary_kernel(np.logical_xor))


def _integer_or_bool(type_: Any) -> bool:
    return isinstance(type_, IntegerType)


@irdl_op_definition
class BitwiseAndOp(IntegerBinaryOp):
    """x1 & x2 (integers, bools)."""

    name = "ge.bitwise_and"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (
        _integer_or_bool,
        "integers or bools",
    )
    ARITH: ClassVar[type] = arith.AndIOp
    numpy_kernel = staticmethod(_binary_kernel(np.bitwise_and))


@irdl_op_definition
class BitwiseOrOp(IntegerBinaryOp):
    """x1 | x2 (integers, bools)."""

    name = "ge.bitwise_or"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (
        _integer_or_bool,
        "integers or bools",
    )
    ARITH: ClassVar[type] = arith.OrIOp
    numpy_kernel = staticmethod(_binary_kernel(np.bitwise_or))


@irdl_op_definition
class BitwiseXorOp(IntegerBinaryOp):
    """x1 ^ x2 (integers, bools)."""

    name = "ge.bitwise_xor"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (
        _integer_or_bool,
        "integers or bools",
    )
    ARITH: ClassVar[type] = arith.XOrIOp
    numpy_kernel = staticmethod(_binary_kernel(np.bitwise_xor))


@irdl_op_definition
class LeftShiftOp(IntegerBinaryOp):
    """x1 << x2 (integers; a shift by the bit width or more gives 0)."""

    name = "ge.left_shift"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (is_integer, "integers")
    ARITH: ClassVar[type] = arith.ShLIOp
    numpy_kernel = staticmethod(_binary_kernel(np.left_shift))


@irdl_op_definition
class RightShiftOp(IntegerBinaryOp):
    """x1 >> x2 (integers: logical on unsigned, arithmetic on signed)."""

    name = "ge.right_shift"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (is_integer, "integers")
    numpy_kernel = staticmethod(_binary_kernel(np.right_shift))

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        shift = arith.ShRUIOp if is_unsigned(a.type) else arith.ShRSIOp
        return b.op(shift, a, c)


# ---------------------------------------------------------------------------
# Unary ops
# ---------------------------------------------------------------------------


class UnaryLogicOp(ElementwiseOp):
    """Base of the unary ops here: `x` (which `ACCEPTS` says), result `y`
    (bool for predicates, else `x`'s dtype)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    FORMAT_RULE = staticmethod(default_rule)

    assembly_format = UNARY_FORMAT

    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (_any_type, "tensors")
    BOOL_RESULT: ClassVar[bool] = False

    @classmethod
    def shape_function(
        cls, shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Input 0's shape; bool for predicates, else its dtype."""
        return [(shapes[0], "bool" if cls.BOOL_RESULT else dtypes[0])]

    def verify_(self) -> None:
        allowed, what = self.ACCEPTS
        _check_element_types(self, [self.x], allowed, what)
        if shape_of(self.x.type) != shape_of(self.y.type):
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} must equal the input "
                f"shape {list(shape_of(self.x.type))}"
            )
        result = element_type_of(self.y)
        expected = IntegerType(1) if self.BOOL_RESULT else element_type_of(self.x)
        if result != expected:
            raise VerifyException(f"result dtype must be {expected}, got {result}")


def _all_ones(b: ScalarBuilder, type_: Any) -> Any:
    """The constant with every bit set (true for bools)."""
    width = type_.width.data
    return b.const((1 << width) - 1 if is_unsigned(type_) else -1, type_)


@irdl_op_definition
class LogicalNotOp(UnaryLogicOp):
    """not x, on its truth value (non-zero, NaN included, is true)."""

    name = "ge.logical_not"
    BOOL_RESULT: ClassVar[bool] = True
    numpy_kernel = staticmethod(_unary_kernel(np.logical_not))

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.XOrIOp, truth(b, x), b.const(1, IntegerType(1)))


@irdl_op_definition
class BitwiseNotOp(UnaryLogicOp):
    """~x (integers, bools)."""

    name = "ge.bitwise_not"
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (
        _integer_or_bool,
        "integers or bools",
    )
    numpy_kernel = staticmethod(_unary_kernel(np.invert))

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.XOrIOp, x, _all_ones(b, x.type))


@irdl_op_definition
class IsNanOp(UnaryLogicOp):
    """Whether x is NaN (floats)."""

    name = "ge.is_nan"
    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (is_float, "floats")
    BOOL_RESULT: ClassVar[bool] = True
    numpy_kernel = staticmethod(_unary_kernel(np.isnan))

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.CmpfOp, x, x, "uno")


@irdl_op_definition
class IsInfOp(UnaryLogicOp):
    """Whether x is +inf (with `detect_positive`) or -inf (with
    `detect_negative`) (floats; ONNX IsInf)."""

    name = "ge.is_inf"
    detect_positive = attr_def(IntegerAttr, default_value=integer(1))
    detect_negative = attr_def(IntegerAttr, default_value=integer(1))

    traits = traits_def(ZeroPreserving())
    ACCEPTS: ClassVar[tuple[Callable[[Any], bool], str]] = (is_float, "floats")
    BOOL_RESULT: ClassVar[bool] = True

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, detect_positive: int, detect_negative: int
    ) -> np.ndarray:
        positive = np.isposinf(x) if detect_positive else np.zeros(x.shape, bool)
        negative = np.isneginf(x) if detect_negative else np.zeros(x.shape, bool)
        return positive | negative

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        found = b.const(0, IntegerType(1))
        for attribute, bound in (
            ("detect_positive", "inf"),
            ("detect_negative", "-inf"),
        ):
            if self.value_of(attribute):
                hit = b.op(arith.CmpfOp, x, b.const(float(bound), x.type), "oeq")
                found = b.op(arith.OrIOp, found, hit)
        return found


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


@irdl_op_definition
class SelectOp(ElementwiseOp):
    """x1 where condition else x2; the three broadcast, the condition is
    read as a truth value (ONNX Where, torch.where)."""

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
        """The broadcast of all three; the dtype of x1 and x2."""
        return [(broadcast_all(shapes), same_dtype(dtypes[1:]))]

    def verify_(self) -> None:
        _check_element_types(self, [self.x1, self.x2, self.y], _any_type, "tensors")
        check_broadcast_result(self)

    @staticmethod
    def numpy_kernel(
        condition: np.ndarray, x1: np.ndarray, x2: np.ndarray
    ) -> np.ndarray:
        return np.asarray(np.where(condition.astype(bool), x1, x2), dtype=x1.dtype)

    def scalar(self, b: ScalarBuilder, condition: Any, a: Any, c: Any) -> Any:
        return b.op(arith.SelectOp, truth(b, condition), a, c)
