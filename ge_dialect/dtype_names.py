"""Canonical dtype names and their bit widths (pure Python/NumPy, no xDSL).

The names the format library and the runtime use ("float16", "int4", ...),
read from NumPy dtypes, GE names (`DT_FLOAT16`) or MLIR names (`f16`, `i8`).
An MLIR element type's name is `ge_dialect.dtypes.dtype_name`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from ge_dialect.formats import FormatError

_DTYPE_BITS: Mapping[str, int] = {
    "float16": 16,
    "bfloat16": 16,
    "float32": 32,
    "float64": 64,
    "int8": 8,
    "uint8": 8,
    "int16": 16,
    "uint16": 16,
    "int32": 32,
    "uint32": 32,
    "int64": 64,
    "uint64": 64,
    "bool": 8,
    "int4": 4,
    "uint4": 4,
    "int2": 2,
    "uint2": 2,
    "float8_e4m3fn": 8,
    "float8_e4m3fnuz": 8,
    "float8_e5m2": 8,
    "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8,
    "float4_e2m1fn": 4,
}

DTYPE_NAMES = frozenset(_DTYPE_BITS)
"""The canonical names of the numeric and boolean dtypes (strings are
"string", which has no bit width)."""

_DTYPE_ALIASES: Mapping[str, str] = {
    "half": "float16",
    "fp16": "float16",
    "f16": "float16",
    "bf16": "bfloat16",
    "float": "float32",
    "fp32": "float32",
    "f32": "float32",
    "double": "float64",
    "fp64": "float64",
    "f64": "float64",
    "i1": "bool",
    "i2": "int2",
    "ui2": "uint2",
    "i4": "int4",
    "ui4": "uint4",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2": "float8_e5m2",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
    "f4e2m1fn": "float4_e2m1fn",
    "i8": "int8",
    "ui8": "uint8",
    "i16": "int16",
    "ui16": "uint16",
    "i32": "int32",
    "ui32": "uint32",
    "i64": "int64",
    "ui64": "uint64",
}


def canonical_dtype(dtype: str | npt.DTypeLike) -> str:
    """The canonical dtype name ("float16", "int4", ...) of a name or NumPy dtype.

    Strings may also be GE names (`DT_FLOAT16`) or MLIR names (`f16`, `i8`).
    """
    if isinstance(dtype, str):
        key = dtype.strip().lower().removeprefix("dt_")
        name = _DTYPE_ALIASES.get(key, key)
    elif dtype is None:
        name = "None"
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = repr(dtype)
    if name not in _DTYPE_BITS:
        raise FormatError(
            f"unsupported dtype '{dtype}'; supported: {', '.join(_DTYPE_BITS)}"
        )
    return name


def element_bits(dtype: str | npt.DTypeLike) -> int:
    """The size of one element of `dtype` in bits (int4: 4, bool: 8)."""
    return _DTYPE_BITS[canonical_dtype(dtype)]


def numpy_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype holding values of `dtype`.

    bfloat16, the float8/float4 types and int2/uint2/int4/uint4 are ml_dtypes'
    types; NumPy holds one sub-byte value (int2, int4, float4) per byte
    (storage formats count them as 2 or 4 bits, `element_bits`);
    strings are NumPy's variable-width `StringDType`.
    """
    if dtype == "string":
        return np.dtypes.StringDType()
    try:
        return np.dtype(dtype)
    except TypeError:  # not NumPy's: ml_dtypes' (imported only then: ~1 s)
        import ml_dtypes  # noqa: F401  (registers its dtype names with NumPy)

        return np.dtype(dtype)
