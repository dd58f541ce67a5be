"""Mapping between MLIR element types and the dtype names the format library uses."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

_INT_NAMES = {1: "bool", 4: "int4", 8: "int8", 16: "int16", 32: "int32", 64: "int64"}


def dtype_name(element_type: Attribute) -> str:
    """The dtype name ("float16", "int8", ...) of an MLIR element type."""
    match element_type:
        case Float16Type():
            return "float16"
        case BFloat16Type():
            return "bfloat16"
        case Float32Type():
            return "float32"
        case Float64Type():
            return "float64"
        case IntegerType() if element_type.width.data in _INT_NAMES:
            width = element_type.width.data
            if element_type.signedness.data == Signedness.UNSIGNED and width > 1:
                return f"uint{width}"
            return _INT_NAMES[width]
    raise ValueError(f"unsupported element type {element_type}")


def element_type(dtype: str) -> Attribute:
    """The MLIR element type for a dtype name (also accepts NumPy dtype names)."""
    name = str(dtype)
    floats: dict[str, AnyFloat] = {
        "float16": Float16Type(),
        "bfloat16": BFloat16Type(),
        "float32": Float32Type(),
        "float64": Float64Type(),
    }
    if name in floats:
        return floats[name]
    if name == "bool":
        return IntegerType(1)
    for width, int_name in _INT_NAMES.items():
        if name == int_name:
            return IntegerType(width)
        if name == f"u{int_name}":
            return IntegerType(width, Signedness.UNSIGNED)
    raise ValueError(f"unsupported dtype '{dtype}'")


def numpy_dtype(dtype: str):
    """The NumPy dtype holding values of `dtype`.

    bfloat16, int4 and uint4 are ml_dtypes' types; NumPy holds one int4/uint4
    value per byte (storage formats count them as 4 bits, `formats.element_bits`).
    """
    import ml_dtypes  # noqa: F401  (registers its dtype names with NumPy)
    import numpy as np

    return np.dtype(dtype)
