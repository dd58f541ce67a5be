"""Mapping between MLIR element types and the dtype names the format library uses."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from ge_dialect.attributes import StringType

_INT_NAMES = {
    1: "bool",
    2: "int2",
    4: "int4",
    8: "int8",
    16: "int16",
    32: "int32",
    64: "int64",
}

_FLOAT_TYPES: dict[str, type[AnyFloat]] = {
    "float16": Float16Type,
    "bfloat16": BFloat16Type,
    "float32": Float32Type,
    "float64": Float64Type,
    "float8_e4m3fn": Float8E4M3FNType,
    "float8_e4m3fnuz": Float8E4M3FNUZType,
    "float8_e5m2": Float8E5M2Type,
    "float8_e5m2fnuz": Float8E5M2FNUZType,
    "float8_e8m0fnu": Float8E8M0FNUType,
    "float4_e2m1fn": Float4E2M1FNType,
}
"""Float dtype name (ml_dtypes' spelling) -> MLIR type (`f8E4M3FN`, ...)."""

FLOAT_DTYPES = frozenset(_FLOAT_TYPES)
"""The float dtype names."""

FLOAT8_DTYPES = frozenset(name for name in _FLOAT_TYPES if name.startswith("float8"))
"""The 8-bit float dtypes."""

SATURATING_DTYPES = FLOAT8_DTYPES - {"float8_e8m0fnu"}
"""The float8 types ONNX Cast's `saturate` clamps to their largest finite value."""

NARROW_FLOAT_DTYPES = FLOAT8_DTYPES | {"float4_e2m1fn"}
"""The float dtypes narrower than float16 (ml_dtypes' types; no arithmetic is
done in them: kernels and lowerings compute in float32)."""


def dtype_name(element_type: Attribute) -> str:
    """The dtype name ("float16", "int8", ...) of an MLIR element type."""
    for name, float_type in _FLOAT_TYPES.items():
        if isinstance(element_type, float_type):
            return name
    match element_type:
        case StringType():
            return "string"
        case IntegerType() if element_type.width.data in _INT_NAMES:
            width = element_type.width.data
            if element_type.signedness.data == Signedness.UNSIGNED and width > 1:
                return f"uint{width}"
            return _INT_NAMES[width]
    raise ValueError(f"unsupported element type {element_type}")


def element_type(dtype: str) -> Attribute:
    """The MLIR element type for a dtype name (also accepts NumPy dtype names)."""
    name = str(dtype)
    if name in _FLOAT_TYPES:
        return _FLOAT_TYPES[name]()
    if name == "bool":
        return IntegerType(1)
    if name == "string":
        return StringType()
    for width, int_name in _INT_NAMES.items():
        if name == int_name:
            return IntegerType(width)
        if name == f"u{int_name}":
            return IntegerType(width, Signedness.UNSIGNED)
    raise ValueError(f"unsupported dtype '{dtype}'")
