"""Attributes of the `ge` dialect: tensor formats and the tensor layout encoding.

```mlir
#ge.format<NC1HWC0>
tensor<8x3x224x224xf16, #ge.layout<NCHW, NC1HWC0>>     // origin NCHW, storage 5HD
tensor<64xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
tensor<8x3x5x5xf16, #ge.layout<NCHW, FRACTAL_Z, storage_shape = [25, 1, 16, 16]>>
tensor<1x3x8x8xf32, #ge.layout<NCHW>>                   // storage == origin
#ge.external<"conv1.weight">                            // weights kept out of the IR
tensor<3x!ge.string>                                    // UTF-8 strings
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Position

from ge_dialect import float_literals  # noqa: F401  (MLIR's float literals in xDSL)
from ge_dialect.formats import INTERNAL_FORMATS, Format


@irdl_attr_definition
class FormatAttr(EnumAttribute[Format]):
    """A tensor format: `#ge.format<NC1HWC0>`."""

    name = "ge.format"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Format:
        with parser.in_angle_brackets():
            return parse_format_keyword(parser)

    @property
    def format(self) -> Format:
        """The format enumeration value."""
        return self.data


def parse_format_keyword(parser: AttrParser) -> Format:
    """Parse a bare format name such as `NC1HWC0`, with a clear error if unknown."""
    pos = parser.pos
    return format_from_name(
        parser, parser.parse_identifier(context_msg=" (format)"), pos
    )


def format_from_name(parser: AttrParser, name: str, pos: Position) -> Format:
    """The format called `name`, or a parse error pointing at `pos`."""
    try:
        return Format(name)
    except ValueError:
        valid = ", ".join(f.value for f in Format)
        parser.raise_error(
            f"unknown format '{name}' (expected one of {valid})", pos, parser.pos
        )


@irdl_attr_definition
class LayoutAttr(ParametrizedAttribute):
    """The (origin, storage) format pair of a tensor, used as its encoding.

    `storage_shape` optionally pins the storage shape (otherwise it is derived
    with `ge_dialect.relayout.transfer_shape`); `reshape_type` says how a
    tensor of lower rank than its origin format expands to full rank.
    """

    name = "ge.layout"

    origin: FormatAttr
    storage: FormatAttr
    storage_shape: ArrayAttr[IntAttr] | NoneAttr = param_def(
        ArrayAttr[IntAttr] | NoneAttr
    )
    reshape_type: StringAttr | NoneAttr = param_def(StringAttr | NoneAttr)

    def __init__(
        self,
        origin: Format | str,
        storage: Format | str | None = None,
        *,
        storage_shape: Sequence[int] | None = None,
        reshape_type: str | None = None,
    ):
        origin_format = Format(origin)
        storage_format = origin_format if storage is None else Format(storage)
        super().__init__(
            FormatAttr(origin_format),
            FormatAttr(storage_format),
            NoneAttr()
            if storage_shape is None
            else ArrayAttr(IntAttr(d) for d in storage_shape),
            NoneAttr() if reshape_type is None else StringAttr(reshape_type),
        )

    @property
    def origin_format(self) -> Format:
        """The format the framework meant."""
        return self.origin.data

    @property
    def storage_format(self) -> Format:
        """The format of the bytes in memory."""
        return self.storage.data

    @property
    def explicit_storage_shape(self) -> tuple[int, ...] | None:
        """The user-given storage shape, if any."""
        if isinstance(self.storage_shape, NoneAttr):
            return None
        return tuple(d.data for d in self.storage_shape.data)

    @property
    def explicit_reshape_type(self) -> str | None:
        """The reshape type, if any."""
        if isinstance(self.reshape_type, NoneAttr):
            return None
        return self.reshape_type.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            origin = parse_format_keyword(parser)
            storage = origin
            storage_shape: Attribute = NoneAttr()
            reshape_type: Attribute = NoneAttr()
            position = 0
            seen: set[str] = set()
            while parser.parse_optional_punctuation(",") is not None:
                position += 1
                pos = parser.pos
                word = parser.parse_identifier(context_msg=" (format or parameter)")
                if word in seen:
                    parser.raise_error(
                        f"layout parameter '{word}' is given twice", pos, parser.pos
                    )
                seen.add(word)
                if parser.parse_optional_punctuation("=") is None:
                    if position != 1:
                        parser.raise_error(
                            "the storage format must follow the origin format",
                            pos,
                            parser.pos,
                        )
                    storage = format_from_name(parser, word, pos)
                elif word == "storage_shape":
                    dims = parser.parse_comma_separated_list(
                        parser.Delimiter.SQUARE, parser.parse_integer
                    )
                    storage_shape = ArrayAttr(IntAttr(d) for d in dims)
                elif word == "reshape_type":
                    reshape_type = StringAttr(parser.parse_str_literal())
                else:
                    parser.raise_error(
                        f"unknown layout parameter '{word}' (expected "
                        "'storage_shape' or 'reshape_type')",
                        pos,
                        parser.pos,
                    )
            return (
                FormatAttr(origin),
                FormatAttr(storage),
                storage_shape,
                reshape_type,
            )

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.origin_format.value)
            if self.storage_format != self.origin_format or not (
                isinstance(self.storage_shape, NoneAttr)
                and isinstance(self.reshape_type, NoneAttr)
            ):
                printer.print_string(f", {self.storage_format.value}")
            if (shape := self.explicit_storage_shape) is not None:
                printer.print_string(
                    f", storage_shape = [{', '.join(str(d) for d in shape)}]"
                )
            if (reshape_type := self.explicit_reshape_type) is not None:
                printer.print_string(", reshape_type = ")
                printer.print_string_literal(reshape_type)

    def verify(self) -> None:
        if self.origin_format in INTERNAL_FORMATS:
            raise VerifyException(
                f"internal format {self.origin_format.value} cannot be an origin format"
            )
        if self.origin_format == Format.RESERVED:
            raise VerifyException("RESERVED is not a valid origin format")


@irdl_attr_definition
class ExternalDataAttr(ParametrizedAttribute):
    """A reference to constant data kept outside the IR text: `#ge.external<"w0">`.

    The key names an array in the module's weight file (an `.npz` next to the
    `.mlir`, named by the module attribute `ge.weights`).
    """

    name = "ge.external"

    key: StringAttr

    def __init__(self, key: str):
        super().__init__(StringAttr(key))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_literal(" (weight key)")),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.key.data)


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """The element type of string tensors, `!ge.string` (dtype name
    `string`; ONNX's STRING, TensorFlow's DT_STRING): each element a Unicode
    string of any length, held as NumPy's `StringDType`. String values live
    outside the arena; the ops that read or make them say how they run."""

    name = "ge.string"
