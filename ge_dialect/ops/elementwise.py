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
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType, f64
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

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.format_rules import default_rule, same_rank_rule
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import erf, float32_compute, is_int
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    UNARY_FORMAT,
    GEOperation,
    check_same_element_type,
    integer,
    real,
    string,
)
from ge_dialect.scalar import (
    RemFOp,
    ScalarBuilder,
    clamp,
    elu,
    floored_remainder,
    is_bool,
    is_float,
    is_unsigned,
    select_by,
    sigmoid,
    softplus,
)
from ge_dialect.shape_functions import (
    Result,
    Shape,
    ShapeError,
    Unbound,
    broadcast,
    broadcast_shapes,
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


def through_float64(body: Any) -> Any:
    """A float scalar body that takes integers and bool too as the op's
    kernel does: converted to float64 (NumPy's result for an integer array
    and a Python float), computed, and converted back (truncated)."""

    @functools.wraps(body)
    def wrapper(self: Any, b: ScalarBuilder, x: Any) -> Any:
        if is_float(x.type):
            return body(self, b, x)
        return b.convert(body(self, b, b.convert(x, f64)), x.type)

    return wrapper


def signed_or_unsigned(
    b: ScalarBuilder, signed: Any, unsigned: Any, *values: Any
) -> Any:
    """`signed` applied to integer `values`, or `unsigned` when their type is."""
    return b.op(unsigned if is_unsigned(values[0].type) else signed, *values)


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    """max(x, 0)."""

    name = "ge.relu"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """Integers: `max(x, 0)` signed (an unsigned x is its own relu)."""
        if is_float(x.type):
            return b.op(arith.MaximumfOp, x, b.const(0.0, x.type))
        if is_bool(x.type):
            return None  # NumPy's maximum(bool, 0) is an int64, not x's type
        if is_unsigned(x.type):
            return x
        return b.op(arith.MaxSIOp, x, b.const(0, x.type))


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
        return sigmoid(b, x)


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
        return softplus(b, x)


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """-x."""

    name = "ge.neg"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.negative(x)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """Integers: `0 - x`, wrapping as NumPy's (the minimum stays, an
        unsigned x becomes 2**n - x); NumPy negates no bool."""
        if is_float(x.type):
            return b.op(arith.NegfOp, x)
        if is_bool(x.type):
            return None
        return b.op(arith.SubiOp, b.const(0, x.type), x)


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """|x|."""

    name = "ge.abs"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.absolute(x)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """Integers: `math.absi` (the minimum stays, as NumPy's); unsigned
        values and bools are their own absolute value."""
        if is_float(x.type):
            return b.op(math.AbsFOp, x)
        if is_bool(x.type) or is_unsigned(x.type):
            return x
        return b.op(math.AbsIOp, x)


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

    NO_SCALAR_BODY: ClassVar[dict[str, str]] = {
        kind: "NumPy's integer reciprocal of 0 is the platform's (0 for 8-bit "
        "types, the minimum for 32- and 64-bit ones): no defined value to "
        "lower (ONNX Reciprocal takes floats only)"
        for kind in ("i", "u")
    }
    """Why integers have no scalar body (dtype kind -> reason)."""

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


def integer_bounds(low: float, high: float, dtype: np.dtype) -> tuple[int, int]:
    """Float clip bounds as integers of `dtype`: rounded inwards, and taken
    inside its range exactly (an infinite bound clamps nothing, also for the
    64-bit types, whose extremes a float64 cannot hold)."""
    info = np.iinfo(dtype)

    def inside(bound: float, rounded: Any) -> int:
        if bound <= info.min:
            return int(info.min)
        if bound >= info.max:
            return int(info.max)
        return int(rounded(bound))

    return inside(low, np.ceil), inside(high, np.floor)


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

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("min", "max")
    """ONNX Clip's bounds (opset 11 on: scalar inputs, absent: no bound)."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """Each given bound's one element as a float."""
        bounds = {}
        for name in cls.RUN_TIME_PARAMETERS:
            if (value := values.get(name)) is None:
                continue
            array = np.asarray(value).reshape(-1)
            if array.size != 1:
                raise ShapeError(f"'{name}' must hold one value, got {array.size}")
            bounds[name] = float(array[0])
        return cls, bounds

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """x's shape and dtype, whatever the bounds."""
        return [(known.shapes[0], known.dtypes[0])]

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, min: float, max: float) -> np.ndarray:
        """The result keeps x's dtype: on integers the bounds are taken inside
        the dtype's range (an infinite bound clamps nothing)."""
        if is_int(x):
            low, high = integer_bounds(min, max, x.dtype)
            return np.clip(x, x.dtype.type(low), x.dtype.type(high))
        return np.clip(x, min, max)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        low, high = self.value_of("min"), self.value_of("max")
        if is_float(x.type):
            return clamp(b, x, low, high)
        if is_bool(x.type):
            return None
        low, high = integer_bounds(low, high, numpy_dtype(dtype_name(x.type)))
        unsigned = is_unsigned(x.type)
        bigger = b.op(
            arith.MaxUIOp if unsigned else arith.MaxSIOp, x, b.const(low, x.type)
        )
        return b.op(
            arith.MinUIOp if unsigned else arith.MinSIOp, bigger, b.const(high, x.type)
        )


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


class MathOp(UnaryElementwiseOp):
    """A float op that is one `math` op of its input (`MATH`); its kernel is
    the matching NumPy (or SciPy) function."""

    MATH: ClassVar[type]

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """Integers and bools: in the float type NumPy's function computes
        them in (float16 for int8, float64 for int32, ...), then converted
        back, as the kernel does."""
        if is_float(x.type):
            return b.op(self.MATH, x)
        function = type(self).numpy_kernel.function  # type: ignore[attr-defined]
        sample = np.zeros(1, numpy_dtype(dtype_name(x.type)))
        computed = element_type(np.asarray(function(sample)).dtype.name)
        return b.convert(b.op(self.MATH, b.convert(x, computed)), x.type)


def _float_kernel(function: Any) -> Any:
    """A reference kernel applying `function` (float16/bfloat16 in float32)."""

    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return np.asarray(function(x)).astype(x.dtype, copy=False)

    numpy_kernel.function = function  # type: ignore[attr-defined]  # MathOp.scalar
    return staticmethod(numpy_kernel)


@irdl_op_definition
class ErfOp(MathOp):
    """erf(x), the Gauss error function."""

    name = "ge.erf"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.ErfOp
    numpy_kernel = _float_kernel(erf)


@irdl_op_definition
class SinOp(MathOp):
    """sin(x)."""

    name = "ge.sin"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.SinOp
    numpy_kernel = _float_kernel(np.sin)


@irdl_op_definition
class CosOp(MathOp):
    """cos(x)."""

    name = "ge.cos"
    MATH: ClassVar[type] = math.CosOp
    numpy_kernel = _float_kernel(np.cos)


@irdl_op_definition
class TanOp(MathOp):
    """tan(x)."""

    name = "ge.tan"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.TanOp
    numpy_kernel = _float_kernel(np.tan)


@irdl_op_definition
class AsinOp(MathOp):
    """asin(x) (NaN outside [-1, 1])."""

    name = "ge.asin"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.AsinOp
    numpy_kernel = _float_kernel(np.arcsin)


@irdl_op_definition
class AcosOp(MathOp):
    """acos(x) (NaN outside [-1, 1])."""

    name = "ge.acos"
    MATH: ClassVar[type] = math.AcosOp
    numpy_kernel = _float_kernel(np.arccos)


@irdl_op_definition
class AtanOp(MathOp):
    """atan(x)."""

    name = "ge.atan"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.AtanOp
    numpy_kernel = _float_kernel(np.arctan)


@irdl_op_definition
class SinhOp(MathOp):
    """sinh(x)."""

    name = "ge.sinh"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.SinhOp
    numpy_kernel = _float_kernel(np.sinh)


@irdl_op_definition
class CoshOp(MathOp):
    """cosh(x)."""

    name = "ge.cosh"
    MATH: ClassVar[type] = math.CoshOp
    numpy_kernel = _float_kernel(np.cosh)


@irdl_op_definition
class AsinhOp(MathOp):
    """asinh(x)."""

    name = "ge.asinh"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.AsinhOp
    numpy_kernel = _float_kernel(np.arcsinh)


@irdl_op_definition
class AcoshOp(MathOp):
    """acosh(x) (NaN below 1)."""

    name = "ge.acosh"
    MATH: ClassVar[type] = math.AcoshOp
    numpy_kernel = _float_kernel(np.arccosh)


@irdl_op_definition
class AtanhOp(MathOp):
    """atanh(x) (NaN outside [-1, 1])."""

    name = "ge.atanh"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.AtanhOp
    numpy_kernel = _float_kernel(np.arctanh)


@irdl_op_definition
class CeilOp(MathOp):
    """The smallest integer >= x."""

    name = "ge.ceil"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.CeilOp
    numpy_kernel = _float_kernel(np.ceil)


@irdl_op_definition
class FloorOp(MathOp):
    """The largest integer <= x."""

    name = "ge.floor"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.FloorOp
    numpy_kernel = _float_kernel(np.floor)


@irdl_op_definition
class RoundOp(MathOp):
    """x rounded to the nearest integer, halves to even (ONNX Round)."""

    name = "ge.round"
    traits = traits_def(ZeroPreserving())
    MATH: ClassVar[type] = math.RoundEvenOp
    numpy_kernel = _float_kernel(np.rint)


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    """-1, 0 or 1 by the sign of x (NaN stays NaN)."""

    name = "ge.sign"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.sign(x)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        if is_bool(x.type):
            return None
        one, zero = b.const(1, x.type), b.const(0, x.type)
        if is_float(x.type):
            positive = b.op(arith.CmpfOp, x, zero, "ogt")
            negative = b.op(arith.CmpfOp, x, zero, "olt")
            rest = b.op(arith.SelectOp, negative, b.const(-1, x.type), x)
            return b.op(arith.SelectOp, positive, one, rest)
        positive = b.op(arith.CmpiOp, x, zero, "ugt" if is_unsigned(x.type) else "sgt")
        if is_unsigned(x.type):
            return b.op(arith.SelectOp, positive, one, zero)
        negative = b.op(arith.CmpiOp, x, zero, "slt")
        rest = b.op(arith.SelectOp, negative, b.const(-1, x.type), zero)
        return b.op(arith.SelectOp, positive, one, rest)


GELU_APPROXIMATIONS = ("none", "tanh")


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """x * Phi(x): 0.5 x (1 + erf(x / sqrt 2)), or with `approximate` =
    "tanh" 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (ONNX Gelu)."""

    name = "ge.gelu"

    approximate = attr_def(StringAttr, default_value=string("none"))

    traits = traits_def(ZeroPreserving())

    def verify_(self) -> None:
        super().verify_()
        if self.value_of("approximate") not in GELU_APPROXIMATIONS:
            raise VerifyException(
                f"approximate must be one of {', '.join(GELU_APPROXIMATIONS)}, got "
                f"'{self.value_of('approximate')}'"
            )

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, approximate: str) -> np.ndarray:
        if approximate == "tanh":
            inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)
            return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
        return (0.5 * x * (1 + erf(x / np.sqrt(2)))).astype(x.dtype, copy=False)

    @through_float64
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        if self.value_of("approximate") == "tanh":
            cube = b.op(arith.MulfOp, b.op(arith.MulfOp, x, x), x)
            inner = b.op(
                arith.AddfOp, x, b.op(arith.MulfOp, cube, b.const(0.044715, x.type))
            )
            scaled = b.op(
                arith.MulfOp, inner, b.const(float(np.sqrt(2 / np.pi)), x.type)
            )
            phi = b.op(math.TanhOp, scaled)
        else:
            scaled = b.op(arith.MulfOp, x, b.const(float(1 / np.sqrt(2)), x.type))
            phi = b.op(math.ErfOp, scaled)
        half = b.op(arith.MulfOp, x, b.const(0.5, x.type))
        return b.op(arith.MulfOp, half, b.op(arith.AddfOp, phi, b.const(1.0, x.type)))


@irdl_op_definition
class SwishOp(UnaryElementwiseOp):
    """x * sigmoid(alpha x) (ONNX Swish; SiLU with alpha = 1)."""

    name = "ge.swish"

    alpha = attr_def(FloatAttr, default_value=real(1.0))

    traits = traits_def(ZeroPreserving())

    NO_SCALAR_BODY: ClassVar[dict[str, str]] = {
        kind: "the kernel computes integers as exp(-logaddexp(0, -alpha * x)) in "
        "float64 and truncates: 1 - 1e-16 where the float body's sigmoid rounds "
        "to 1, so the truncated results differ (ONNX Swish takes floats only)"
        for kind in ("i", "u", "bool")
    }
    """Why integers and bools have no scalar body (dtype kind -> reason)."""

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float) -> np.ndarray:
        return (x * np.exp(-np.logaddexp(0, -alpha * x))).astype(x.dtype, copy=False)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        scaled = b.op(arith.MulfOp, x, b.const(self.value_of("alpha"), x.type))
        return b.op(arith.MulfOp, x, sigmoid(b, scaled))


@irdl_op_definition
class MishOp(UnaryElementwiseOp):
    """x * tanh(softplus(x)) (ONNX Mish)."""

    name = "ge.mish"

    traits = traits_def(ZeroPreserving())

    NO_SCALAR_BODY: ClassVar[dict[str, str]] = {
        kind: "the kernel computes integers through logaddexp in NumPy's float "
        "for them (float16 for 8-bit ones, rounded at each step), which a "
        "float body does not reproduce (ONNX Mish takes floats only)"
        for kind in ("i", "u", "bool")
    }
    """Why integers and bools have no scalar body (dtype kind -> reason)."""

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return (x * np.tanh(np.logaddexp(0, x))).astype(x.dtype, copy=False)

    @float_only
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        return b.op(arith.MulfOp, x, b.op(math.TanhOp, softplus(b, x)))


@irdl_op_definition
class CeluOp(UnaryElementwiseOp):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (ONNX Celu)."""

    name = "ge.celu"

    alpha = attr_def(FloatAttr, default_value=real(1.0))

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float) -> np.ndarray:
        negative = alpha * np.expm1(np.minimum(x, 0) / alpha)
        return (np.maximum(x, 0) + negative).astype(x.dtype, copy=False)

    @through_float64
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        alpha = b.const(self.value_of("alpha"), x.type)
        zero = b.const(0.0, x.type)
        tail = b.op(
            math.ExpM1Op, b.op(arith.DivfOp, b.op(arith.MinimumfOp, x, zero), alpha)
        )
        return b.op(
            arith.AddfOp,
            b.op(arith.MaximumfOp, x, zero),
            b.op(arith.MulfOp, tail, alpha),
        )


@irdl_op_definition
class ThresholdedReluOp(UnaryElementwiseOp):
    """x where x > alpha, else 0 (ONNX ThresholdedRelu)."""

    name = "ge.thresholded_relu"

    alpha = attr_def(FloatAttr, default_value=real(1.0))

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, alpha: float) -> np.ndarray:
        return np.where(x > alpha, x, 0).astype(x.dtype, copy=False)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        """Integers and bools compare in float64 (NumPy's `x > alpha`) and
        keep their own value."""
        alpha = self.value_of("alpha")
        if is_float(x.type):
            return select_by(b, "ogt", x, alpha, x, b.const(0.0, x.type))
        zero = b.const(0, x.type)
        return select_by(b, "ogt", b.convert(x, f64), alpha, x, zero)


@irdl_op_definition
class ShrinkOp(UnaryElementwiseOp):
    """x + bias below -lambd, x - bias above lambd, 0 between (ONNX Shrink)."""

    name = "ge.shrink"

    bias = attr_def(FloatAttr, default_value=real(0.0))
    lambd = attr_def(FloatAttr, default_value=real(0.5))

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray, *, bias: float, lambd: float) -> np.ndarray:
        shrunk = np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0))
        return shrunk.astype(x.dtype, copy=False)

    @through_float64
    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        bias, lambd = self.value_of("bias"), self.value_of("lambd")
        above = b.op(arith.SubfOp, x, b.const(bias, x.type))
        below = b.op(arith.AddfOp, x, b.const(bias, x.type))
        upper = select_by(b, "ogt", x, lambd, above, b.const(0.0, x.type))
        return select_by(b, "olt", x, -lambd, below, upper)


@irdl_op_definition
class Relu6Op(UnaryElementwiseOp):
    """min(max(x, 0), 6) (TensorFlow Relu6; -0.0 becomes +0.0, NaN stays)."""

    name = "ge.relu6"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(x, 0), 6)

    def scalar(self, b: ScalarBuilder, x: Any) -> Any:
        if is_float(x.type):
            rectified = b.op(arith.MaximumfOp, x, b.const(0.0, x.type))
            return b.op(arith.MinimumfOp, rectified, b.const(6.0, x.type))
        if is_bool(x.type):
            return None  # NumPy's maximum(bool, 0) is an int64, not x's type
        if not is_unsigned(x.type):
            x = b.op(arith.MaxSIOp, x, b.const(0, x.type))
        return signed_or_unsigned(
            b, arith.MinSIOp, arith.MinUIOp, x, b.const(6, x.type)
        )


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


def _arith(
    float_op: Any,
    int_op: Any | None,
    unsigned_op: Any | None = None,
    bool_op: Any | None = None,
) -> Any:
    """A binary scalar body: `float_op` on floats, `int_op` on integers
    (None: integers are not lowered), `unsigned_op` instead on unsigned ones
    when the sign matters, `bool_op` on booleans (None: not lowered)."""

    def scalar(self: Any, b: ScalarBuilder, a: Any, c: Any) -> Any:
        if is_float(a.type):
            return b.op(float_op, a, c)
        if is_bool(a.type):
            return None if bool_op is None else b.op(bool_op, a, c)
        if int_op is None:
            return None
        if unsigned_op is not None and is_unsigned(a.type):
            return b.op(unsigned_op, a, c)
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

    scalar = _arith(arith.AddfOp, arith.AddiOp, bool_op=arith.OrIOp)


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

    scalar = _arith(arith.MulfOp, arith.MuliOp, bool_op=arith.AndIOp)


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

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        if is_float(a.type):
            return b.op(arith.DivfOp, a, c)
        if is_bool(a.type):
            return None
        return b.op(arith.DivUIOp if is_unsigned(a.type) else arith.DivSIOp, a, c)


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
        """Integers are raised in float64 (exact below 2**53) and truncated."""
        compute = np.float64 if is_int(x1) else np.result_type(x1, x2, np.float32)
        return np.power(x1, x2, dtype=compute).astype(x1.dtype, copy=False)

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        """Integers: in float64, truncated back (as the kernel computes)."""
        if is_float(a.type):
            return b.op(math.PowFOp, a, c)
        power = b.op(math.PowFOp, b.convert(a, f64), b.convert(c, f64))
        return b.convert(power, a.type)


@irdl_op_definition
class ModOp(BinaryElementwiseOp):
    """The remainder of x1 / x2: with `fmod` = 1 it has x1's sign (C fmod),
    with 0 x2's (Python's %, floored division) (ONNX Mod)."""

    name = "ge.mod"

    fmod = attr_def(IntegerAttr, default_value=integer(0))

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray, *, fmod: int) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.fmod if fmod else np.mod)(x1, x2)

    def scalar(self, b: ScalarBuilder, a: Any, c: Any) -> Any:
        if is_bool(a.type):
            return None
        if is_float(a.type):
            remainder = b.op(RemFOp, a, c)
        else:
            remainder = b.op(
                arith.RemUIOp if is_unsigned(a.type) else arith.RemSIOp, a, c
            )
        if self.value_of("fmod") or is_unsigned(a.type):
            return remainder
        return floored_remainder(b, remainder, c)


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """max(x1, x2)."""

    name = "ge.maximum"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.maximum(x1, x2)

    scalar = _arith(arith.MaximumfOp, arith.MaxSIOp, arith.MaxUIOp, arith.OrIOp)


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """min(x1, x2)."""

    name = "ge.minimum"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.minimum(x1, x2)

    scalar = _arith(arith.MinimumfOp, arith.MinSIOp, arith.MinUIOp, arith.AndIOp)


@irdl_op_definition
class PReluOp(BinaryElementwiseOp):
    """x1 if x1 >= 0 else x2 * x1 (x2 is the slope, broadcast to x1)."""

    name = "ge.prelu"

    traits = traits_def(ZeroPreserving())

    @staticmethod
    @float32_compute
    def numpy_kernel(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.where(x1 >= 0, x1, x2 * x1).astype(x1.dtype, copy=False)

    def scalar(self, b: ScalarBuilder, x: Any, slope: Any) -> Any:
        """Integers: `slope * x` (wrapping) where x < 0; unsigned values and
        bools are never negative."""
        if is_float(x.type):
            return select_by(b, "oge", x, 0.0, x, b.op(arith.MulfOp, slope, x))
        if is_bool(x.type) or is_unsigned(x.type):
            return x
        negative = b.op(arith.CmpiOp, x, b.const(0, x.type), "slt")
        return b.op(arith.SelectOp, negative, b.op(arith.MuliOp, slope, x), x)


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

    def scalar(self, b: ScalarBuilder, *values: Any) -> Any:
        """Integers wrap; bools add as NumPy's, an `or`."""
        first = values[0].type
        add = (
            arith.AddfOp
            if is_float(first)
            else arith.OrIOp
            if is_bool(first)
            else arith.AddiOp
        )
        total = values[0]
        for value in values[1:]:
            total = b.op(add, total, value)
        return total
