"""Parsing MLIR text into a verified module, errors as one located line.

`LocatedParser` records each op's `file:line:col`; `parse_module` turns
every parse or verification failure into a `GEError` at its source location.
"""

from __future__ import annotations

import bisect
import re

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import AttributeInvT
from xdsl.parser import UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind, StringLiteral

from ge_dialect.diagnostics import GEError, printable
from ge_dialect.ir_text import ResourceReadingParser
from ge_dialect.limits import MAX_NESTING, LimitError, over_budget, tensor_bytes
from ge_dialect.verification import verify_module


class LocatedParser(ResourceReadingParser):
    """A parser that records each op's `file:line:col` as its location (and reads
    resource-blob constants, see `ge_dialect.ir_text`).

    It also refuses what would exhaust the process: ops nested deeper than
    `MAX_NESTING`, and dense literals (a splat `dense<1.0>` is expanded)
    whose type is over the memory budget.
    """

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._line_offset = line_offset
        self._depth = 0
        self._first_use: dict[str, Span] = {}
        self._newlines: list[int] | None = None

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        name = operand.operand_name
        if name not in self.ssa_values:
            self._first_use.setdefault(name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """The module; a value used but never defined is an error at its use."""
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            undefined = [self._first_use[name] for name in self.forward_ssa_references]
            if not undefined:
                raise
            first = min(undefined, key=lambda span: span.start)
            raise ParseError(first, f"use of undefined value '{first.text}'") from None

    def parse_optional_str_literal(self) -> str | None:
        """A string literal, also one whose escapes spell non-ASCII UTF-8:
        xDSL prints `"零"` as `"\\E9\\9B\\B6"` and lexes that back as bytes
        (a `BytesAttr` where a `StringAttr` was printed), so a string attribute
        with non-ASCII text (a pattern, a stopword, a node name) would not
        read back. Bytes that are not UTF-8 stay bytes."""
        if (text := super().parse_optional_str_literal()) is not None:
            return text
        token = self._current_token
        if token.kind != MLIRTokenKind.BYTES_LIT:
            return None
        try:
            text = StringLiteral.from_span(token.span).bytes_contents.decode()
        except UnicodeDecodeError:
            return None
        self._consume_token()
        return text

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self._depth > MAX_NESTING:
            raise ParseError(span, f"ops nested deeper than {MAX_NESTING} levels")
        self._depth += 1
        try:
            op = super().parse_operation()
        except VerifyException as error:
            message = " ".join(str(error).split())
            name = _op_name_after(span.input.content[span.start :])
            prefix = f"'{name}' op " if name else ""
            raise ParseError(span, prefix + message) from None
        finally:
            self._depth -= 1
        if not isinstance(op.location, FileLineColLoc | NameLoc):
            line, column = self._line_and_column(span)
            op.location = FileLineColLoc(
                StringAttr(span.input.name),
                IntAttr(line + self._line_offset),
                IntAttr(column),
            )
        return op

    def _line_and_column(self, span: Span) -> tuple[int, int]:
        """1-based line and column where `span` starts (newlines indexed once,
        so locating every op of a large module stays linear)."""
        if self._newlines is None:
            content = span.input.content
            newline = "\n" if isinstance(content, str) else b"\n"
            self._newlines = [m.start() for m in re.finditer(newline, content)]
        line = bisect.bisect_left(self._newlines, span.start)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, span.start - start + 1

    def _parse_dense_literal_type(self):  # the type of `dense<...> : TYPE`
        start = self._current_token.span
        dense_type = super()._parse_dense_literal_type()
        self._check_dense_size(dense_type, start)
        return dense_type

    def parse_dense_int_or_fp_elements_attr(self, type) -> DenseIntOrFPElementsAttr:
        if type is not None:
            self._check_dense_size(type, self._current_token.span)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def _check_dense_size(self, dense_type, span) -> None:
        element = dense_type.element_type
        itemsize = getattr(element, "compile_time_size", 8)
        try:
            nbytes = tensor_bytes(dense_type.get_shape(), itemsize, "dense literal")
        except LimitError as error:
            raise ParseError(span, str(error)) from None
        if (reason := over_budget(nbytes, "dense literal")) is not None:
            raise ParseError(span, reason)


_OP_NAME = re.compile(r'\s*(?:%[^=]*=\s*)?"?([A-Za-z_][\w$]*\.[\w$.]+)"?')


def _op_name_after(text: str) -> str | None:
    """The op name at the start of an operation's text (`%r = ge.relu ...`)."""
    match = _OP_NAME.match(text)
    return match.group(1) if match else None


def parse_module(
    ctx: Context,
    text: str,
    name: str = "<stdin>",
    line_offset: int = 0,
    *,
    check_types: bool = True,
) -> ModuleOp:
    """Parse MLIR text into a verified module, or raise a one-line GEError.

    With `check_types`, each op's declared result types must be what its shape
    function gives (`shape_inference.check_declared_types`).
    """
    if not text.strip() or all(
        line.strip().startswith("//") or not line.strip() for line in text.splitlines()
    ):
        raise GEError(f"{name}:{line_offset + 1}:1: error: empty input (no operations)")
    try:
        parser = LocatedParser(ctx, text, name, line_offset)
        try:
            module = parser.parse_module()
        except RecursionError:  # attributes or types nested past Python's stack
            raise ParseError(
                parser._current_token.span,
                "attributes or types nested too deeply to parse",
            ) from None
    except ParseError as error:
        where = error.span.get_location()
        message = printable(error.msg.strip().splitlines()[0])
        raise GEError(
            f"{printable(where.file)}:{where.line + line_offset}:{where.col}: "
            f"error: {message}"
        ) from None
    if not isinstance(module.location, FileLineColLoc):  # implicit `builtin.module`
        module.location = FileLineColLoc(
            StringAttr(name), IntAttr(line_offset + 1), IntAttr(1)
        )
    verify_module(module, check_types=check_types)
    return module
