"""Running shape functions: the result shapes, dtypes and types of an op.

Every `ge` op declares its shape function with its definition (the static
method `shape_function`, see `ge_dialect.shape_functions`); the same function
types the graphs the builder makes, runs in `infer-shape`, and runs at
execution time on concrete shapes (host scheduling):

```python
infer_shapes(Conv2DOp, [(1, 3, 8, 8), (4, 3, 3, 3)], ["float32"] * 2,
             {"data_format": "NCHW", "pads": [1, 1, 1, 1]})
# [((1, 4, 8, 8), "float32")]
```

Attributes the caller leaves out take the op's defaults. Ops defined outside
the `ge` dialect (plugins) register theirs by name with
`@register_shape_function("mydialect.op")`. Structural ops (graph, data,
control flow) have none: drivers type them from their operands and regions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.adapters import operand_format_keywords
from ge_dialect.attribute_values import default_attributes, python_attributes
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.layout import check_tensor_type, kept_layout, shape_of
from ge_dialect.locations import error_at
from ge_dialect.ops import OPS_BY_NAME, Structural
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    ShapeFunction,
)
from ge_dialect.traits import KeepsLayout

__all__ = [
    "UNKNOWN",
    "Result",
    "Shape",
    "ShapeError",
    "ShapeFunction",
    "has_shape_function",
    "infer_result_types",
    "infer_shapes",
    "register_shape_function",
    "shape_function_attributes",
]

OpRef = str | type[Operation] | Operation
"""An op name, op class or op."""

PLUGIN_SHAPE_FUNCTIONS: dict[str, ShapeFunction] = {}
"""Op name -> shape function of ops defined outside the `ge` dialect."""

PLUGIN_LAYOUT_KEEPING: set[str] = set()
"""Plugin ops whose results keep the layout of a same-rank operand."""

PLUGIN_DEFAULTS: dict[str, dict[str, Any]] = {}
"""Plugin op name -> values of its absent attributes."""


def register_shape_function(
    *op_names: str,
    defaults: Mapping[str, Any] | None = None,
    keeps_layout: bool = False,
) -> Callable[[ShapeFunction], ShapeFunction]:
    """Decorator registering a shape function for ops defined outside `ge`.

    `defaults` gives values of absent attributes; `keeps_layout` makes
    `infer_result_types` give results their input's `#ge.layout` (what the
    `ge` ops' definitions and `KeepsLayout` trait say for them).
    """

    def register(function: ShapeFunction) -> ShapeFunction:
        for name in op_names:
            PLUGIN_SHAPE_FUNCTIONS[name] = function
            PLUGIN_DEFAULTS[name] = dict(defaults or {})
            if keeps_layout:
                PLUGIN_LAYOUT_KEEPING.add(name)
        return function

    return register


def _name_and_class(op: OpRef) -> tuple[str, type[Operation] | None]:
    if isinstance(op, str):
        return op, OPS_BY_NAME.get(op)
    op_class = op if isinstance(op, type) else type(op)
    return op_class.name, op_class


def shape_function_of(op: OpRef) -> ShapeFunction | None:
    """The shape function of an op (a registered one first), if it has one."""
    name, op_class = _name_and_class(op)
    if name in PLUGIN_SHAPE_FUNCTIONS:
        return PLUGIN_SHAPE_FUNCTIONS[name]
    if op_class is None or op_class.has_trait(Structural):
        return None
    return getattr(op_class, "shape_function", None)


def has_shape_function(op: OpRef) -> bool:
    """Whether `infer_shapes` can type `op`."""
    return shape_function_of(op) is not None


def infer_shapes(
    op: OpRef,
    input_shapes: Sequence[Sequence[int]],
    input_dtypes: Sequence[str],
    attributes: Mapping[str, Any],
) -> list[Result]:
    """(shape, dtype) of each result of `op` (raises ShapeError)."""
    function = shape_function_of(op)
    name, op_class = _name_and_class(op)
    if function is None:
        raise ShapeError(f"no shape function is registered for '{name}'")
    attrs = dict(PLUGIN_DEFAULTS.get(name, {}))
    if op_class is not None:
        attrs.update(default_attributes(op_class))
    attrs.update((k, v) for k, v in attributes.items() if v is not None)
    shapes = [tuple(int(d) for d in shape) for shape in input_shapes]
    return function(shapes, list(input_dtypes), attrs)


def shape_function_attributes(op: Operation) -> dict[str, Any]:
    """What `op`'s shape function reads: its attributes (defaults and derived
    values included) and the origin formats of its operands."""
    return {
        **operand_format_keywords(type(op), [v.type for v in op.operands]),
        **python_attributes(op),
    }


def infer_result_types(
    op: OpRef,
    operand_types: Sequence[TensorType],
    attributes: Mapping[str, Any],
) -> list[TensorType]:
    """The result types of `op` applied to `operand_types`.

    Results carry no encoding, except for ops that keep their input layout
    (`KeepsLayout`: elementwise, convolutions, ...) and ops that say their
    result layout themselves (`result_layout(operand_types, attrs)`, as
    `ge.transdata` does).
    """
    name, op_class = _name_and_class(op)
    attrs = dict(attributes)
    if op_class is not None:
        for key, value in operand_format_keywords(op_class, operand_types).items():
            attrs.setdefault(key, value)
    shapes = [shape_of(t) for t in operand_types]
    dtypes = [dtype_name(t.element_type) for t in operand_types]
    keeps_layout = name in PLUGIN_LAYOUT_KEEPING or (
        op_class is not None and op_class.has_trait(KeepsLayout)
    )
    return [
        _result_type(op_class, keeps_layout, operand_types, attrs, shape, dtype)
        for shape, dtype in infer_shapes(op, shapes, dtypes, attrs)
    ]


def _result_type(
    op_class: type[Operation] | None,
    keeps_layout: bool,
    operand_types: Sequence[TensorType],
    attrs: Mapping[str, Any],
    shape: Shape,
    dtype: str,
) -> TensorType:
    dims = [DYNAMIC_INDEX if d == UNKNOWN else d for d in shape]
    plain = TensorType(element_type(dtype), dims)
    if (own_layout := getattr(op_class, "result_layout", None)) is not None:
        layout = own_layout(operand_types, attrs)
    elif keeps_layout:
        layout = kept_layout(operand_types, len(shape))
    else:
        layout = None
    if layout is None:
        return plain
    typed = TensorType(plain.element_type, dims, layout)
    try:
        check_tensor_type(typed)
    except VerifyException:
        return plain
    return typed


def check_declared_types(op: Operation) -> None:
    """A `GEError` at `op` if its declared result types are not what its shape
    function gives for its (fully known) operands.

    Ops whose operands have unknown dims, and results declared with unknown
    dims (placeholders `infer-shape` fills in), are not compared; so a
    mistyped result is reported at its op, not at the consumer that first
    trips over it.
    """
    if op.regions or not has_shape_function(op):
        return
    operands = [v.type for v in op.operands]
    if not all(
        isinstance(t, TensorType) and UNKNOWN not in shape_of(t) for t in operands
    ):
        return
    shapes = [shape_of(t) for t in operands]  # type: ignore[arg-type]
    dtypes = [dtype_name(t.element_type) for t in operands]  # type: ignore[union-attr]
    try:
        results = infer_shapes(op, shapes, dtypes, shape_function_attributes(op))
    except ShapeError as error:
        raise error_at(op, str(error)) from None
    for index, (value, (shape, dtype)) in enumerate(
        zip(op.results, results, strict=False)
    ):
        declared = value.type
        if not isinstance(declared, TensorType) or UNKNOWN in shape_of(declared):
            continue
        if _compatible(shape_of(declared), shape) and dtype == dtype_name(
            declared.element_type
        ):
            continue
        inferred = TensorType(
            element_type(dtype), [DYNAMIC_INDEX if d == UNKNOWN else d for d in shape]
        )
        raise error_at(
            op,
            f"inferred type {inferred} is incompatible with result #{index} type "
            f"{TensorType(declared.element_type, declared.shape)}",
        )


def _compatible(declared: Sequence[int], inferred: Sequence[int]) -> bool:
    return len(declared) == len(inferred) and all(
        d == UNKNOWN or i == UNKNOWN or d == i
        for d, i in zip(declared, inferred, strict=True)
    )
