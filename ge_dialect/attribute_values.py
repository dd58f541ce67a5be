"""Attributes as plain Python values, with the defaults the op definitions state.

Optional attributes have their default stated once, in the op definition
(`attr_def(..., default_value=...)`); xDSL fills it in when an op is built or
parsed. An op may also derive values of absent attributes from its types
(`derived_attributes()`, e.g. the target shape of a reshape).
"""

from __future__ import annotations

import functools
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.irdl import IRDLOperation

from ge_dialect.attributes import FormatAttr
from ge_dialect.dtypes import dtype_name


def _derived(op: Operation) -> dict[str, Any]:
    derive = getattr(op, "derived_attributes", None)
    return derive() if derive is not None else {}


def attribute_to_python(attr: Attribute) -> Any:
    """Convert an attribute to a plain Python value (lists, ints, floats, str)."""
    match attr:
        case DenseArrayBase():
            return list(attr.get_values())
        case IntegerAttr() if attr.type.width.data == 1:
            return bool(attr.value.data)
        case IntegerAttr():
            return attr.value.data
        case FloatAttr():
            return attr.value.data
        case StringAttr():
            return attr.data
        case FormatAttr():
            return attr.data.value
        case ArrayAttr():
            return [attribute_to_python(a) for a in attr.data]
        case TypeAttribute():
            return dtype_name(attr)
    return attr


@functools.cache
def default_attributes(op_class: type[Operation]) -> dict[str, Any]:
    """The Python values of the defaults an op definition states (do not mutate)."""
    if not issubclass(op_class, IRDLOperation):
        return {}
    return {
        name: attribute_to_python(definition.default_value)
        for name, definition in op_class.get_irdl_definition().attributes.items()
        if definition.default_value is not None
    }


def attribute_value(op: Operation, name: str) -> Any:
    """Attribute `name` of `op` as a Python value, or the op's default for it."""
    if (attr := op.attributes.get(name)) is not None:
        return attribute_to_python(attr)
    defaults = default_attributes(type(op))
    if name in defaults:
        return defaults[name]
    derived = _derived(op)
    if name in derived:
        return derived[name]
    raise KeyError(f"'{op.name}' has no attribute '{name}'")


def python_attributes(op: Operation) -> dict[str, Any]:
    """All attributes of `op` as Python values, defaults and derived ones included."""
    derived = _derived(op)
    return {
        **derived,
        **default_attributes(type(op)),
        **{k: attribute_to_python(v) for k, v in op.attributes.items()},
    }
