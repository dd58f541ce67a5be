"""MLIR's rules for float elements of dense attributes, installed into xDSL.

MLIR prints a float element that has no exact decimal form it can read back
(±inf and NaN) as a hexadecimal integer literal holding the element's bits,
and reads such a literal back as those bits:

    dense<[0xFF800000, 1.000000e+00, 0x7FC00000]> : tensor<3xf32>  // -inf, 1, NaN
    dense<0xFC00> : tensor<4xf16>                                   // splat -inf

xDSL 0.75 prints them that way but reads the literal inside `dense<...>` as an
integer *value* (`0xFF800000` becomes 4286578688.0), so every ±inf/NaN constant
silently changed when IR text was read back (xDSL issue #3370 fixed this for
`FloatAttr` only). It also decides whether a dense attribute is a splat by
comparing element *values*, so `[0.0, -0.0]` printed as the splat `0.0` and an
all-NaN tensor never printed as a splat.

Importing this module (`ge_dialect.attributes` does, so every module that
builds, parses or prints `ge` IR has it) installs MLIR's behaviour:

- a hexadecimal literal for a float element is its bit pattern; a leading minus
  or more bits than the type has is an error, with MLIR's messages;
- a dense attribute is a splat when every element has the same *bits*;
- ±inf and NaN print in MLIR's spelling (`0xFF800000`, upper-case digits);
- a float8/float4 NaN keeps its sign bit (xDSL decodes E4M3FN's 0xFF as +NaN).

Values pass through Python floats, as in the rest of xDSL: a NaN keeps its
sign, but a signalling NaN becomes quiet (its payload may change).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    ReducedPrecisionFloatType,
)
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer

_TensorLiteralElement = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]


def float_from_bits(bits: int, float_type: AnyFloat) -> float:
    """The value of the `float_type` element whose bit pattern is `bits`."""
    raw = bits.to_bytes(float_type.compile_time_size, "little")
    return float_type.unpack(raw, 1)[0]


def float_bits(value: float, float_type: AnyFloat) -> int:
    """The bit pattern of `value` stored as a `float_type` element."""
    return int.from_bytes(float_type.pack((value,)), "little")


def _is_hexadecimal(spelling: str) -> bool:
    return spelling.lstrip("-")[:2] in ("0x", "0X")


_xdsl_to_type = _TensorLiteralElement.to_type


def _element_to_type(self: _TensorLiteralElement, parser: AttrParser, type):  # noqa: ANN001
    """A tensor-literal element as a value of `type`; hex floats are bit patterns."""
    if not isinstance(type, AnyFloat) or not _is_hexadecimal(self.span.text):
        return _xdsl_to_type(self, parser, type)
    if self.is_negative:
        parser.raise_error(
            "hexadecimal float literal should not have a leading minus",
            at_position=self.span,
        )
    bits = int(self.span.text, 16)
    if bits.bit_length() > type.bitwidth:
        parser.raise_error(
            "hexadecimal float constant out of range for type", at_position=self.span
        )
    return float_from_bits(bits, type)


def _is_splat(self: DenseIntOrFPElementsAttr) -> bool:
    """Whether every element has the same bits (so `-0.0` differs from `0.0`)."""
    data = self.data.data
    size = self.get_element_type().compile_time_size
    if not data:
        return False
    return data == data[:size] * (len(data) // size)


_xdsl_print_float = Printer.print_float


def _print_float(self: Printer, value: float, type: AnyFloat) -> None:
    """Print a float as xDSL does, but ±inf and NaN as MLIR spells their bits."""
    if math.isnan(value) or math.isinf(value):
        self.print_string(f"0x{float_bits(value, type):X}")
        return
    _xdsl_print_float(self, value, type)


_xdsl_decode_bits = ReducedPrecisionFloatType.decode_bits


def _decode_bits(self: ReducedPrecisionFloatType, bits: int) -> float:
    """A float8/float4 element's value, as xDSL decodes it but a NaN with its
    sign bit set negative (E4M3FN's 0xFF is -NaN, 0x7F +NaN)."""
    value = _xdsl_decode_bits(self, bits)
    semantics = self.SEMANTICS
    if math.isnan(value) and semantics.has_sign and bits >> semantics.sign_shift & 1:
        return -value
    return value


_TensorLiteralElement.to_type = _element_to_type  # type: ignore[method-assign]
DenseIntOrFPElementsAttr.is_splat = _is_splat  # type: ignore[method-assign]
Printer.print_float = _print_float  # type: ignore[method-assign]
ReducedPrecisionFloatType.decode_bits = _decode_bits  # type: ignore[method-assign]
