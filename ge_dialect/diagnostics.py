"""One-line diagnostics with source locations, for every tool and pass.

Every user-facing error in the project is a `GEError` whose message is a
single line `FILE:LINE:COL: error: ...`. The tools print it and exit 1.
"""

from __future__ import annotations

import bisect
import re
from difflib import get_close_matches

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
from xdsl.irdl import AttributeInvT, IRDLOperation
from xdsl.parser import UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

from ge_dialect.ir_text import ResourceReadingParser
from ge_dialect.limits import MAX_NESTING, LimitError, over_budget, tensor_bytes
from ge_dialect.validation import check_values


class GEError(Exception):
    """A user-facing error whose `str` is one complete diagnostic line."""


def location_text(op: Operation | None) -> str:
    """`file:line:col` (or node name) of the nearest located op, else `<unknown>`."""
    while op is not None:
        location = op.location
        if isinstance(location, FileLineColLoc):
            return (
                f"{printable(location.filename.data)}:{location.line.data}:"
                f"{location.column.data}"
            )
        if isinstance(location, NameLoc):
            return f"node '{location.desc.data}'"
        if (name := op.attributes.get("name")) is not None and isinstance(
            name, StringAttr
        ):
            return f"node '{name.data}'"
        op = op.parent_op()
    return "<unknown>"


def error_at(op: Operation, message: str) -> GEError:
    """A diagnostic about `op` at its source location."""
    return GEError(f"{location_text(op)}: error: '{op.name}' op {message}")


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


MODULE_ATTRIBUTES = ("ge.target", "ge.weights")
"""Module attributes the `ge` dialect reads: the target (SoC) the layouts
are for, and the weights file next to the graph."""


def _check_module(module: ModuleOp) -> None:
    """`ge.*` module attributes are strings, the target a known one; every
    symbol is defined once (the error at its second definition)."""
    for name in MODULE_ATTRIBUTES:
        attr = module.attributes.get(name)
        if attr is not None and not isinstance(attr, StringAttr):
            raise error_at(module, f"attribute '{name}' must be a string, got {attr}")
    target = module.attributes.get("ge.target")
    if isinstance(target, StringAttr):
        from ge_dialect.formats import FormatError, get_target  # reports here

        try:
            get_target(target.data)
        except FormatError as error:
            raise error_at(module, f"attribute 'ge.target': {error}") from None
    first: dict[str, Operation] = {}
    for op in module.ops:
        symbol = op.attributes.get("sym_name")
        if not isinstance(symbol, StringAttr):
            continue
        if symbol.data in first:
            raise error_at(
                op,
                f"redefines symbol @{symbol.data} (first defined at "
                f"{location_text(first[symbol.data])})",
            )
        first[symbol.data] = op


def printable(text: str) -> str:
    """`text` with control characters escaped (`\\x00`), safe to print."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def verify_module(module: Operation, *, check_types: bool = False) -> None:
    """Verify every op, raising a GEError located at the first invalid one
    (or at the op a verifier names, e.g. the first op of a dataflow cycle).

    With `check_types` (what parsing does, not the checks between passes),
    each op's declared result types are also checked against its shape
    function (`shape_inference.check_declared_types`).
    """
    for op in module.walk():
        if isinstance(op, ModuleOp):
            _check_module(op)
        if (misspelled := misspelled_attribute(op)) is not None:
            raise error_at(op, misspelled)
        try:
            op.verify(verify_nested_ops=False)
            check_values(op)  # what the definitions alone do not check
        except VerifyException as error:
            message = " ".join(str(error).split())
            raise error_at(getattr(error, "op", op), message) from None
        if check_types and op.dialect_name() != "builtin":
            from ge_dialect.shape_inference import check_declared_types

            check_declared_types(op)


_SUGGESTIONS: dict[tuple[type[Operation], str], str | None] = {}


def misspelled_attribute(op: Operation) -> str | None:
    """`unknown attribute 'X' (did you mean 'Y'?)` when `op` has an attribute
    its definition lacks that is close to a defined one `op` does not set (or
    sets to its default)."""
    if not isinstance(op, IRDLOperation):
        return None
    for name in op.attributes:
        key = (type(op), name)
        if key not in _SUGGESTIONS:
            definition = op.get_irdl_definition()
            known = [*definition.attributes, *definition.properties]
            close = get_close_matches(name, known, n=1, cutoff=0.8)
            _SUGGESTIONS[key] = None if name in known or not close else close[0]
        suggestion = _SUGGESTIONS[key]
        if suggestion is not None and not _set_by_user(op, suggestion):
            return f"unknown attribute '{name}' (did you mean '{suggestion}'?)"
    return None


def _set_by_user(op: IRDLOperation, name: str) -> bool:
    """Whether `op` carries attribute `name` with other than its default (which
    xDSL fills in for an absent attribute)."""
    value = op.attributes.get(name)
    definition = op.get_irdl_definition().attributes.get(name)
    default = definition.default_value if definition is not None else None
    return value is not None and value != default
