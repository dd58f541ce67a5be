"""Where an op comes from, for diagnostics: its `file:line:col` or node name."""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc, NameLoc, StringAttr
from xdsl.ir import Operation

from ge_dialect.diagnostics import GEError, printable


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
