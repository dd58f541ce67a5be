"""NumPy semantics of the scalar `arith`/`math` ops, shared by both JIT paths.

Every function works elementwise on NumPy arrays and on NumPy scalars alike,
so the vectorised path (arrays over a loop nest) and the scalar fallback
(one element at a time) compute bit-identical results. Float comparisons
follow MLIR's ordered/unordered predicates.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    IndexType,
    MemRefType,
)
from xdsl.ir import Attribute, Operation

from ge_dialect import dtypes
from ge_dialect.diagnostics import GEError
from ge_dialect.ops.elementwise import erf
from passes.lowering.signless import ELEMENT_TYPE_ATTR


class JITError(Exception):
    """The module cannot be compiled (an unsupported op or an invalid access)."""


class LocatedJITError(JITError):
    """A JITError whose text is a whole diagnostic, located at the source op
    the failing loop-level op was lowered from (`FILE:LINE:COL: error: ...`)."""


def jit_failure(error: JITError) -> GEError:
    """The one-line diagnostic of a JIT failure."""
    if isinstance(error, LocatedJITError):
        return GEError(str(error))
    return GEError(f"error: {error}")


def numpy_dtype(type_: Attribute) -> np.dtype:
    """The NumPy dtype holding values of an MLIR scalar (or memref) type."""
    if isinstance(type_, MemRefType):
        return numpy_dtype(type_.element_type)
    if isinstance(type_, IndexType):
        return np.dtype(np.int64)
    try:
        return dtypes.numpy_dtype(dtypes.dtype_name(type_))
    except ValueError:
        raise JITError(f"unsupported element type {type_}") from None


def caller_dtype(memref_type: MemRefType, attrs: dict[str, Any]) -> np.dtype:
    """The dtype of a function argument's or result's arrays as callers see
    them: its memref's, or the unsigned one `{ge.element_type = ui8}` names
    (loop IR holds unsigned data in signless memrefs, `passes.lowering.signless`)."""
    element = attrs.get(ELEMENT_TYPE_ATTR)
    dtype = numpy_dtype(memref_type)
    if element is None:
        return dtype
    named = dtypes.numpy_dtype(element)
    if named != unsigned_dtype(dtype):
        raise JITError(f"{ELEMENT_TYPE_ATTR} = {element} does not fit {memref_type}")
    return named


def unsigned_dtype(dtype: np.dtype) -> np.dtype:
    """The unsigned integer dtype of a signed one's width (`int4` -> ml_dtypes'
    `uint4`, held one per byte in the low bits as `int4` is); others as they are."""
    if dtype.name.startswith("int"):
        return dtypes.numpy_dtype("u" + dtype.name)
    return dtype


def unsigned_array(x: Any) -> np.ndarray:
    """`x`'s bits read as the unsigned integer of its width (bool and floats
    unchanged), an array viewing `x`'s memory."""
    x = np.asarray(x)
    return x.view(unsigned_dtype(x.dtype))


def unsigned_view(x: Any) -> Any:
    """`unsigned_array(x)`, 0-d as a scalar: what the `ui` variants of arith
    ops compute on."""
    return unsigned_array(x)[()]


def _nan(a: Any, b: Any) -> Any:
    return np.isnan(a) | np.isnan(b)


_CMPF: dict[int, Callable[[Any, Any], Any]] = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_)[()],
    1: np.equal,
    2: np.greater,
    3: np.greater_equal,
    4: np.less,
    5: np.less_equal,
    6: lambda a, b: np.not_equal(a, b) & ~_nan(a, b),
    7: lambda a, b: ~_nan(a, b),
    8: lambda a, b: np.equal(a, b) | _nan(a, b),
    9: lambda a, b: np.greater(a, b) | _nan(a, b),
    10: lambda a, b: np.greater_equal(a, b) | _nan(a, b),
    11: lambda a, b: np.less(a, b) | _nan(a, b),
    12: lambda a, b: np.less_equal(a, b) | _nan(a, b),
    13: np.not_equal,
    14: _nan,
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_)[()],
}
"""arith.cmpf predicate number -> comparison."""


def _unsigned(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`op` on the operands' bits read as unsigned (a comparison)."""

    def compare(a: Any, b: Any) -> Any:
        a = np.asarray(a)
        return op(unsigned_view(a), unsigned_view(np.asarray(b).astype(a.dtype)))

    return compare


def _unsigned_value(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`op` on the operands read as unsigned, the result in their dtype."""
    compare = _unsigned(op)
    return lambda a, b: np.asarray(compare(a, b)).view(np.asarray(a).dtype)[()]


_CMPI: dict[int, Callable[[Any, Any], Any]] = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
    6: _unsigned(np.less),
    7: _unsigned(np.less_equal),
    8: _unsigned(np.greater),
    9: _unsigned(np.greater_equal),
}
"""arith.cmpi predicate number -> comparison."""


def _divsi(a: Any, b: Any) -> Any:
    """Signed division rounding toward zero."""
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)[()]


ELEMENTWISE: dict[str, Callable[..., Any]] = {
    "arith.addf": np.add,
    "arith.addi": np.add,
    "arith.subf": np.subtract,
    "arith.subi": np.subtract,
    "arith.mulf": np.multiply,
    "arith.muli": np.multiply,
    "arith.divf": np.divide,
    "arith.divsi": _divsi,
    "arith.floordivsi": np.floor_divide,
    "arith.remsi": np.fmod,
    "arith.remui": _unsigned_value(np.remainder),
    "arith.remf": np.fmod,
    "arith.divui": _unsigned_value(np.floor_divide),
    "arith.negf": np.negative,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.maxui": _unsigned_value(np.maximum),
    "arith.minui": _unsigned_value(np.minimum),
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.shli": np.left_shift,
    "arith.shrui": _unsigned_value(np.right_shift),
    "arith.shrsi": np.right_shift,
    "arith.select": lambda c, a, b: np.where(c, a, b)[()],
    "math.absf": np.abs,
    "math.absi": np.abs,
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: np.reciprocal(np.sqrt(x)),
    "math.tanh": np.tanh,
    "math.erf": erf,
    "math.asin": np.arcsin,
    "math.acos": np.arccos,
    "math.atan": np.arctan,
    "math.sinh": np.sinh,
    "math.cosh": np.cosh,
    "math.asinh": np.arcsinh,
    "math.acosh": np.arccosh,
    "math.atanh": np.arctanh,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.floor": np.floor,
    "math.ceil": np.ceil,
    "math.powf": np.power,
    "math.copysign": np.copysign,
    "math.trunc": np.trunc,
    "math.roundeven": np.rint,
}
"""Ops computed by one NumPy function of their operands."""


def cast(x: Any, dtype: np.dtype) -> Any:
    """`x` converted to `dtype` (NumPy `astype` semantics), 0-d as a scalar."""
    return np.asarray(x).astype(dtype)[()]


def cast_unsigned(x: Any, dtype: np.dtype) -> Any:
    """`x`'s bits read as unsigned, converted to `dtype` (`extui`, `uitofp`)."""
    return cast(unsigned_view(x), dtype)


def cast_to_unsigned(x: Any, dtype: np.dtype) -> Any:
    """`x` converted to the unsigned integer of `dtype`'s width, held in
    `dtype` (`fptoui`)."""
    return np.asarray(cast(x, unsigned_dtype(dtype))).view(dtype)[()]


def bitcast(x: Any, dtype: np.dtype) -> Any:
    """`x`'s bits read as `dtype` (`arith.bitcast`; same width), 0-d as a scalar."""
    return np.asarray(x).view(dtype)[()]


CASTS: dict[str, Callable[[Any, np.dtype], Any]] = {
    "arith.bitcast": bitcast,
    "arith.extf": cast,
    "arith.truncf": cast,
    "arith.sitofp": cast,
    "arith.uitofp": cast_unsigned,
    "arith.fptosi": cast,
    "arith.fptoui": cast_to_unsigned,
    "arith.extsi": cast,
    "arith.extui": cast_unsigned,
    "arith.trunci": cast,
    "arith.index_cast": cast,
    "arith.index_castui": cast_unsigned,
}
"""Ops converting to their result type, by how they read their operand."""

CONVERSIONS = frozenset(CASTS)
"""Ops of one operand computed by `scalar_function` from their result type:
the casts and `arith.bitcast` (a NumPy `view`)."""

REDUCTIONS: dict[str, np.ufunc] = {
    "arith.addf": np.add,
    "arith.addi": np.add,
    "arith.mulf": np.multiply,
    "arith.muli": np.multiply,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.maxui": np.maximum,
    "arith.minui": np.minimum,
}
"""Associative, commutative combiners an accumulation may use; those of
`UNSIGNED_COMBINERS` run on the operands' `unsigned_view`."""

UNSIGNED_COMBINERS = frozenset({"arith.maxui", "arith.minui"})
"""Combiners of `REDUCTIONS` that compare their operands as unsigned."""


TABLES: dict[str, dict[Any, Callable[..., Any]]] = {
    "cmpf": _CMPF,
    "cmpi": _CMPI,
    "elementwise": ELEMENTWISE,
}
"""The function tables, by name (`jit_cache` saves their functions by key)."""


def scalar_function(op: Operation) -> Callable[..., Any]:
    """The NumPy function computing `op` from its operand values."""
    if op.name in ELEMENTWISE:
        return ELEMENTWISE[op.name]
    if op.name in CASTS:
        return functools.partial(CASTS[op.name], dtype=numpy_dtype(op.results[0].type))
    if op.name in ("arith.cmpf", "arith.cmpi"):
        predicate = op.properties["predicate"].value.data  # type: ignore[union-attr]
        return (_CMPF if op.name == "arith.cmpf" else _CMPI)[predicate]
    raise JITError(f"unsupported op '{op.name}'")


def constant_value(op: Operation) -> Any:
    """The value of an `arith.constant` (NumPy scalar; Python int for index)."""
    attr = op.properties["value"]
    result_type = op.results[0].type
    if isinstance(result_type, IndexType):
        return int(attr.value.data)  # type: ignore[union-attr]
    dtype = numpy_dtype(result_type)
    if not hasattr(attr, "value"):
        raise JITError(f"unsupported constant {attr}")
    value = attr.value.data  # type: ignore[union-attr]
    if dtype.kind == "i" and value > np.iinfo(dtype).max:  # `255 : i8`: its bits
        value -= 1 << (8 * dtype.itemsize)
    return dtype.type(value)
