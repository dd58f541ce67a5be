"""The semantics of the scalar `arith`/`math` ops: one table every code
generator and the interpreter render (`OPS`, `CMPF`, `CMPI`).

Each op's entry gives its NumPy function (which works elementwise on
arrays and on scalars alike, so the NumPy emitter and the scalar path
compute bit-identical results), its C expression or why C kernels leave it
to NumPy, the interpreter's pure-Python function where xDSL's is missing,
the element types it takes and its rule for special values. Every arith/math
op name the runtime knows is written here, nowhere else; a new op is one
entry (`tests/test_jit_ops.py` checks every generator takes each entry).
Float comparisons follow MLIR's ordered/unordered predicates.

Generated code calls the table's functions, so a process that only runs
compiled code (`engines.served`) imports this module: it imports no xDSL,
and its helpers that read IR types and ops (`numpy_dtype`, `caller_dtype`,
`constant_value`) import what they read when called, as code generation does.
"""

from __future__ import annotations

import functools
import math as pymath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ge_dialect import dtype_names
from ge_dialect.diagnostics import GEError
from ge_dialect.numpy_helpers import erf

if TYPE_CHECKING:
    from xdsl.dialects.builtin import MemRefType
    from xdsl.ir import Attribute, Operation


class JITError(Exception):
    """The module cannot be compiled (an unsupported op or an invalid access)."""


class UnusableSetup(GEError):
    """The JIT cannot run here as set up (the kernels asked for, the cache
    folder): an error of the run, not of a graph, so the scheduler does not
    fall back to the reference for it."""


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
    from xdsl.dialects.builtin import MemRefType

    if isinstance(type_, MemRefType):
        return numpy_dtype(type_.element_type)
    return _scalar_dtype(type_)


@functools.cache
def _scalar_dtype(type_: Attribute) -> np.dtype:
    """`numpy_dtype` of a scalar type, found once per type (the C emitter
    asks it of every operand of every op of every nest: 110,000 times for
    ShuffleNet)."""
    from xdsl.dialects.builtin import IndexType

    from ge_dialect.dtypes import dtype_name

    if isinstance(type_, IndexType):
        return np.dtype(np.int64)
    try:
        return dtype_names.numpy_dtype(dtype_name(type_))
    except ValueError:
        raise JITError(f"unsupported element type {type_}") from None


def caller_dtype(memref_type: MemRefType, attrs: dict[str, Any]) -> np.dtype:
    """The dtype of a function argument's or result's arrays as callers see
    them: its memref's, or the unsigned one `{ge.element_type = ui8}` names
    (loop IR holds unsigned data in signless memrefs, `passes.lowering.signless`)."""
    from passes.lowering.signless import ELEMENT_TYPE_ATTR

    element = attrs.get(ELEMENT_TYPE_ATTR)
    dtype = numpy_dtype(memref_type)
    if element is None:
        return dtype
    named = dtype_names.numpy_dtype(element)
    if named != unsigned_dtype(dtype):
        raise JITError(f"{ELEMENT_TYPE_ATTR} = {element} does not fit {memref_type}")
    return named


def unsigned_dtype(dtype: np.dtype) -> np.dtype:
    """The unsigned integer dtype of a signed one's width (`int4` -> ml_dtypes'
    `uint4`, held one per byte in the low bits as `int4` is); others as they are."""
    if dtype.name.startswith("int"):
        return dtype_names.numpy_dtype("u" + dtype.name)
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


def _divsi(a: Any, b: Any) -> Any:
    """Signed division rounding toward zero."""
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)[()]


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


def _python_divf(a: float, b: float) -> float:
    """IEEE division of Python floats (Python raises on a zero divisor)."""
    if b != 0:
        return a / b
    if a == 0 or pymath.isnan(a):
        return float("nan")
    return pymath.copysign(float("inf"), a) * pymath.copysign(1, b)


def _python_exp(x: float) -> float:
    return pymath.exp(x) if x < 709 else float("inf")


def _python_expm1(x: float) -> float:
    return pymath.expm1(x) if x < 709 else float("inf")


CAST = "cast"
"""`Semantics.c` of a conversion C writes as its cast to the result type."""

NOT_IN_C = "not written for C (no bench model's nest uses it): NumPy calls run it"
DIVIDES = "an integer division by zero traps in C (NumPy's gives 0)"
UNSIGNED = "reads signless integers as unsigned: C kernels take signed ones only"
SHIFTS = "a shift by the width or more is undefined in C (NumPy's is 0 or -1)"


@dataclass(frozen=True)
class Semantics:
    """What one `arith`/`math` op computes, as every code generator writes it.

    The NumPy emitter applies `numpy` to arrays, the scalar path to scalars
    (bit-identical results); C kernels write `c`; the interpreter (the
    tests' oracle) runs `python` where xDSL's own is missing or rounds
    otherwise.
    """

    numpy: Callable[..., Any]
    """The NumPy function of the operand values (a conversion's: and of the
    result dtype)."""
    dtypes: str
    """The element types it takes: `float`, `integer` (i1 among them) or `any`."""
    c: str | None = None
    """The C expression over `{0}`, `{1}`, ... (double precision; `CAST`: the
    cast to the result type; `{type}` the operands' C type, `{unsigned}` the
    unsigned one of its width); None: C kernels leave it to NumPy
    (`c_missing`)."""
    c_float32: str | None = None
    """The C expression for float32, where it differs."""
    c_missing: str = ""
    """Why C kernels do not take it (when `c` is None)."""
    c_divisor: str = ""
    """How its second operand divides, if it does (`signed`, `unsigned`): C
    kernels take it only where that is a constant C divides by as NumPy
    does (`DIVIDES`): not 0, and for a signed division not -1 (the least
    integer's quotient overflows)."""
    c_exact: bool = True
    """Whether C computes it bit for bit as NumPy does (else: the C library's
    function, within a few ULP of NumPy's)."""
    python: Callable[..., Any] | None = None
    """The interpreter's function of Python scalars (None: xDSL's own)."""
    special: str = ""
    """Its rule for special values where it is not IEEE's default."""
    reduce: np.ufunc | None = None
    """As the combiner of an accumulation, the ufunc that reduces it."""
    unsigned: bool = False
    """Whether it compares its operands as unsigned (`unsigned_view`)."""
    converts: bool = False
    """Whether it is a conversion (`numpy` takes the result dtype too)."""


@dataclass(frozen=True)
class Predicate:
    """One predicate of `arith.cmpf`/`arith.cmpi`: NumPy's and C's."""

    numpy: Callable[[Any, Any], Any]
    c: str | None
    c_missing: str = ""


POISON = "NaN and out-of-range values are poison (MLIR): the generators differ"
NAN_MAX = "NaN propagates; the second operand on a tie (max(0.0, -0.0) is -0.0)"
NUM_MAX = "a NaN operand yields the other; the second operand on a tie"
LIBM = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
)  # fmt: skip
"""`math` ops C computes with the C library's function of the same name
(float32 `exp`, `log` and `log1p` with their own, `_C_FLOAT32`): within
its documented error (1-2 ULP in glibc), not bit for bit NumPy's own SIMD
functions; `tests/test_jit_c.py` bounds the difference."""

_LIBM_NUMPY = {
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "erf": erf,
}  # fmt: skip
_LIBM_PYTHON = {
    "exp": _python_exp,
    "expm1": _python_expm1,
    "log1p": pymath.log1p,
    "tanh": pymath.tanh,
    "erf": pymath.erf,
}


_C_FLOAT32 = {"exp": "ge_expf({0})", "log": "ge_logf({0})", "log1p": "ge_log1pf({0})"}
"""float32 functions C kernels compute with their own code, not the C
library's (`emit.c.PRELUDE`: what a loop calling it vectorises)."""


def _libm(name: str) -> Semantics:
    return Semantics(
        _LIBM_NUMPY[name],
        "float",
        f"{name}({{0}})",
        _C_FLOAT32.get(name, f"{name}f({{0}})"),
        c_exact=False,
        python=_LIBM_PYTHON.get(name),
    )


OPS: dict[str, Semantics] = {
    "arith.addf": Semantics(np.add, "float", "({0} + {1})", reduce=np.add),
    "arith.addi": Semantics(np.add, "integer", "({0} + {1})", reduce=np.add),
    "arith.subf": Semantics(np.subtract, "float", "({0} - {1})"),
    "arith.subi": Semantics(np.subtract, "integer", "({0} - {1})"),
    "arith.mulf": Semantics(np.multiply, "float", "({0} * {1})", reduce=np.multiply),
    "arith.muli": Semantics(np.multiply, "integer", "({0} * {1})", reduce=np.multiply),
    "arith.divf": Semantics(
        np.divide,
        "float",
        "({0} / {1})",
        python=_python_divf,
        special="x / 0 is an infinity of the signs' product, 0 / 0 NaN",
    ),
    "arith.divsi": Semantics(_divsi, "integer", "({0} / {1})", c_divisor="signed"),
    "arith.floordivsi": Semantics(np.floor_divide, "integer", c_missing=DIVIDES),
    "arith.remsi": Semantics(np.fmod, "integer", "({0} % {1})", c_divisor="signed"),
    "arith.remui": Semantics(
        _unsigned_value(np.remainder),
        "integer",
        "(({type}) (({unsigned}) {0} % ({unsigned}) {1}))",
        c_divisor="unsigned",
    ),
    "arith.remf": Semantics(np.fmod, "float", c_missing=NOT_IN_C),
    "arith.divui": Semantics(
        _unsigned_value(np.floor_divide),
        "integer",
        "(({type}) (({unsigned}) {0} / ({unsigned}) {1}))",
        c_divisor="unsigned",
    ),
    "arith.negf": Semantics(np.negative, "float", "(-{0})", python=lambda x: -x),
    "arith.maximumf": Semantics(
        np.maximum,
        "float",
        "(({0} > {1} | {0} != {0}) ? {0} : {1})",
        special=NAN_MAX,
        reduce=np.maximum,
    ),
    "arith.minimumf": Semantics(
        np.minimum,
        "float",
        "(({0} < {1} | {0} != {0}) ? {0} : {1})",
        special=NAN_MAX,
        reduce=np.minimum,
    ),
    "arith.maxnumf": Semantics(
        np.fmax,
        "float",
        "(({0} > {1} | {1} != {1}) ? {0} : {1})",
        special=NUM_MAX,
        reduce=np.fmax,
    ),
    "arith.minnumf": Semantics(
        np.fmin,
        "float",
        "(({0} < {1} | {1} != {1}) ? {0} : {1})",
        special=NUM_MAX,
        reduce=np.fmin,
    ),
    "arith.maxsi": Semantics(
        np.maximum, "integer", "({0} > {1} ? {0} : {1})", reduce=np.maximum
    ),
    "arith.minsi": Semantics(
        np.minimum, "integer", "({0} < {1} ? {0} : {1})", reduce=np.minimum
    ),
    "arith.maxui": Semantics(
        _unsigned_value(np.maximum),
        "integer",
        c_missing=UNSIGNED,
        reduce=np.maximum,
        unsigned=True,
    ),
    "arith.minui": Semantics(
        _unsigned_value(np.minimum),
        "integer",
        c_missing=UNSIGNED,
        reduce=np.minimum,
        unsigned=True,
    ),
    "arith.andi": Semantics(np.bitwise_and, "integer", "({0} & {1})"),
    "arith.ori": Semantics(np.bitwise_or, "integer", "({0} | {1})"),
    "arith.xori": Semantics(np.bitwise_xor, "integer", "({0} ^ {1})"),
    "arith.shli": Semantics(np.left_shift, "integer", c_missing=SHIFTS),
    "arith.shrui": Semantics(
        _unsigned_value(np.right_shift), "integer", c_missing=SHIFTS
    ),
    "arith.shrsi": Semantics(np.right_shift, "integer", c_missing=SHIFTS),
    "arith.select": Semantics(
        lambda c, a, b: np.where(c, a, b)[()], "any", "({0} ? {1} : {2})"
    ),
    "math.absf": Semantics(
        np.abs, "float", "__builtin_fabs({0})", "__builtin_fabsf({0})", python=abs
    ),
    "math.absi": Semantics(
        np.abs, "integer", c_missing="abs of the least integer is undefined in C"
    ),
    **{f"math.{name}": _libm(name) for name in LIBM},
    "math.sqrt": Semantics(
        np.sqrt, "float", "__builtin_sqrt({0})", "__builtin_sqrtf({0})"
    ),
    "math.rsqrt": Semantics(
        lambda x: np.reciprocal(np.sqrt(x)),
        "float",
        "(1.0 / __builtin_sqrt({0}))",
        "(1.0f / __builtin_sqrtf({0}))",
    ),
    "math.floor": Semantics(
        np.floor, "float", "__builtin_floor({0})", "__builtin_floorf({0})"
    ),
    "math.ceil": Semantics(
        np.ceil, "float", "__builtin_ceil({0})", "__builtin_ceilf({0})"
    ),
    "math.powf": Semantics(
        np.power,
        "float",
        "pow({0}, {1})",
        "ge_powf({0}, {1})",
        c_exact=False,
        python=pymath.pow,
    ),
    "math.copysign": Semantics(np.copysign, "float", c_missing=NOT_IN_C),
    "math.trunc": Semantics(
        np.trunc, "float", "__builtin_trunc({0})", "__builtin_truncf({0})"
    ),
    "math.roundeven": Semantics(
        np.rint,
        "float",
        "__builtin_rint({0})",
        "__builtin_rintf({0})",
        special="halfway cases to even",
    ),
    "arith.bitcast": Semantics(
        bitcast,
        "any",
        "((union {{ {source} a; {result} b; }}){{{0}}}).b",
        converts=True,
        special="the operand's bits as the result type (of the same width)",
    ),
    "arith.extf": Semantics(cast, "float", CAST, converts=True, python=float),
    "arith.truncf": Semantics(cast, "float", CAST, converts=True, python=float),
    "arith.sitofp": Semantics(cast, "integer", CAST, converts=True, python=float),
    "arith.uitofp": Semantics(
        cast_unsigned, "integer", c_missing=UNSIGNED, converts=True
    ),
    "arith.fptosi": Semantics(
        cast,
        "float",
        "ge_fptosi_{result}({0})",
        converts=True,
        python=int,
        special=POISON + "; C and NumPy both give the processor's conversion "
        "(x86: the least integer of 32 or 64 bits, a narrower type its low bits)",
    ),
    "arith.fptoui": Semantics(
        cast_to_unsigned, "float", c_missing=UNSIGNED, converts=True, special=POISON
    ),
    "arith.extsi": Semantics(cast, "integer", CAST, converts=True),
    "arith.extui": Semantics(
        cast_unsigned, "integer", c_missing=UNSIGNED, converts=True
    ),
    "arith.trunci": Semantics(
        cast, "integer", CAST, converts=True, special="the low bits (i1: nonzero)"
    ),
    "arith.index_cast": Semantics(cast, "integer", CAST, converts=True),
}
"""Every scalar `arith`/`math` op the JIT computes, by name."""

ORDERED = "ordered predicates are false on NaN, unordered ones true"
CMPF: dict[int, Predicate] = {
    0: Predicate(lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_)[()], "0"),
    1: Predicate(np.equal, "({0} == {1})"),
    2: Predicate(np.greater, "({0} > {1})"),
    3: Predicate(np.greater_equal, "({0} >= {1})"),
    4: Predicate(np.less, "({0} < {1})"),
    5: Predicate(np.less_equal, "({0} <= {1})"),
    6: Predicate(
        lambda a, b: np.not_equal(a, b) & ~_nan(a, b), "({0} < {1} | {0} > {1})"
    ),
    7: Predicate(lambda a, b: ~_nan(a, b), "({0} == {0} & {1} == {1})"),
    8: Predicate(
        lambda a, b: np.equal(a, b) | _nan(a, b), "(!({0} < {1} | {0} > {1}))"
    ),
    9: Predicate(lambda a, b: np.greater(a, b) | _nan(a, b), "(!({0} <= {1}))"),
    10: Predicate(lambda a, b: np.greater_equal(a, b) | _nan(a, b), "(!({0} < {1}))"),
    11: Predicate(lambda a, b: np.less(a, b) | _nan(a, b), "(!({0} >= {1}))"),
    12: Predicate(lambda a, b: np.less_equal(a, b) | _nan(a, b), "(!({0} > {1}))"),
    13: Predicate(np.not_equal, "({0} != {1})"),
    14: Predicate(_nan, "({0} != {0} | {1} != {1})"),
    15: Predicate(lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_)[()], "1"),
}
"""`arith.cmpf` predicates by number (`ORDERED`)."""

CMPI: dict[int, Predicate] = {
    0: Predicate(np.equal, "({0} == {1})"),
    1: Predicate(np.not_equal, "({0} != {1})"),
    2: Predicate(np.less, "({0} < {1})"),
    3: Predicate(np.less_equal, "({0} <= {1})"),
    4: Predicate(np.greater, "({0} > {1})"),
    5: Predicate(np.greater_equal, "({0} >= {1})"),
    6: Predicate(_unsigned(np.less), None, UNSIGNED),
    7: Predicate(_unsigned(np.less_equal), None, UNSIGNED),
    8: Predicate(_unsigned(np.greater), None, UNSIGNED),
    9: Predicate(_unsigned(np.greater_equal), None, UNSIGNED),
}
"""`arith.cmpi` predicates by number (signed, and the unsigned ones)."""

COMPARISONS: dict[str, dict[int, Predicate]] = {"arith.cmpf": CMPF, "arith.cmpi": CMPI}
"""The comparison ops: their predicates."""

ELEMENTWISE: dict[str, Callable[..., Any]] = {
    name: s.numpy for name, s in OPS.items() if not s.converts
}
"""Ops computed by one NumPy function of their operands."""

CONVERSIONS = frozenset(name for name, s in OPS.items() if s.converts)
"""Ops of one operand computed by `scalar_function` from their result type:
the casts and `arith.bitcast` (a NumPy `view`)."""

REDUCTIONS: dict[str, np.ufunc] = {
    name: s.reduce for name, s in OPS.items() if s.reduce is not None
}
"""Associative, commutative combiners an accumulation may use; those of
`UNSIGNED_COMBINERS` run on the operands' `unsigned_view`."""

UNSIGNED_COMBINERS = frozenset(name for name, s in OPS.items() if s.unsigned)
"""Combiners of `REDUCTIONS` that compare their operands as unsigned."""

SUMS = {"arith.addf": "arith.mulf", "arith.addi": "arith.muli"}
"""An accumulation's add -> the multiply whose products it may sum (a
contraction: a matrix product or a depthwise window)."""

FUSED_MULTIPLY_ADD = ("arith.mulf", "arith.addf")
"""The float multiply and add a native kernel may fuse into one rounding."""

TABLES: dict[str, dict[Any, Callable[..., Any]]] = {
    "cmpf": {p: s.numpy for p, s in CMPF.items()},
    "cmpi": {p: s.numpy for p, s in CMPI.items()},
    "elementwise": ELEMENTWISE,
}
"""The function tables, by name (`cache.entries` saves their functions by key)."""


def predicate(op: Operation) -> Predicate | None:
    """A comparison's predicate (None for any other op)."""
    predicates = COMPARISONS.get(op.name)
    if predicates is None:
        return None
    return predicates[op.properties["predicate"].value.data]  # type: ignore[union-attr]


def scalar_function(op: Operation) -> Callable[..., Any]:
    """The NumPy function computing `op` from its operand values."""
    semantics = OPS.get(op.name)
    if semantics is not None and semantics.converts:
        dtype = numpy_dtype(op.results[0].type)
        return functools.partial(semantics.numpy, dtype=dtype)
    if semantics is not None:
        return semantics.numpy
    compare = predicate(op)
    if compare is not None:
        return compare.numpy
    raise JITError(f"unsupported op '{op.name}'")


def constant_value(op: Operation) -> Any:
    """The value of an `arith.constant` (NumPy scalar; Python int for index)."""
    from xdsl.dialects.builtin import IndexType

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
