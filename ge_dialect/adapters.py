"""Calling an op's NumPy reference kernel from the IR: arguments derived, never
written per op.

Each op class carries its kernel (`numpy_kernel`, a static method); the
bridge between the IR and that kernel comes from the op's IRDL definition:

- positional arguments follow the op's operand definitions (one array per
  operand, `None` for an absent optional operand, a list for a variadic one);
- keyword arguments are the op's attributes as Python values (defaults and
  derived values included, `python_attributes`) that the kernel's signature
  accepts;
- a kernel keyword `<operand>_format` receives that operand's origin format
  (e.g. `filter_format` of `ge.conv2d`), unless the origin is ND.

Results are checked against the op's result types (count, shape with -1 as
a wildcard, dtype); every failure is a one-line `GEError` at the op.

```python
arrays = run_numpy_kernel(conv_op, [x, w])  # Conv2DOp.numpy_kernel(x, w, None, ...)
ReluOp.numpy_kernel(x)                      # or called directly
call_kernel(Conv2DOp, x, w, None, data_format="NCHW")  # defaults filled in
```
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, OptOperandDef, VarOperandDef

from ge_dialect.attribute_values import default_attributes, python_attributes
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format, shape_matches
from ge_dialect.layout import layout_of
from ge_dialect.locations import error_at


@dataclass(frozen=True)
class KernelSignature:
    """What a kernel accepts as keywords."""

    keywords: frozenset[str]
    required: frozenset[str]
    positional: int


def numpy_kernel_of(op: Operation | type[Operation]) -> Callable[..., Any] | None:
    """The NumPy reference kernel an op class declares, if any."""
    return getattr(op, "numpy_kernel", None)


def numpy_kernel(op: Operation) -> Callable[..., Any]:
    """The kernel of `op`, or a GEError saying it has none."""
    kernel = numpy_kernel_of(op)
    if kernel is None:
        raise error_at(op, "has no NumPy reference kernel (unsupported op)")
    return kernel


@functools.cache
def kernel_signature(kernel: Callable[..., Any]) -> KernelSignature:
    """The keyword-only parameters and positional count of `kernel` (through
    decorators)."""
    parameters = inspect.signature(kernel).parameters.values()
    params = [p for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return KernelSignature(
        keywords=frozenset(p.name for p in params),
        required=frozenset(p.name for p in params if p.default is p.empty),
        positional=sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters),
    )


def positional_arguments(op: Operation, arrays: Sequence[Any]) -> list[Any]:
    """Group the op's flat operand arrays by its IRDL operand definitions."""
    if len(arrays) != len(op.operands):
        raise error_at(op, f"expects {len(op.operands)} operands, got {len(arrays)}")
    if not isinstance(op, IRDLOperation):
        return list(arrays)
    arguments: list[Any] = []
    position = 0
    for name, operand_def in type(op).get_irdl_definition().operands:
        value = getattr(op, name)
        if isinstance(operand_def, OptOperandDef):
            arguments.append(None if value is None else arrays[position])
            position += value is not None
        elif isinstance(operand_def, VarOperandDef):
            arguments.append(list(arrays[position : position + len(value)]))
            position += len(value)
        else:
            arguments.append(arrays[position])
            position += 1
    return arguments


def operand_format_keywords(
    op_class: type[Operation], operand_types: Sequence[Attribute]
) -> dict[str, str]:
    """`<operand>_format` -> origin format name of each single operand whose
    origin is not ND (what kernels and shape functions read of a layout)."""
    if not issubclass(op_class, IRDLOperation):
        return {}
    definitions = op_class.get_irdl_definition().operands
    optional = sum(isinstance(d, OptOperandDef) for _, d in definitions)
    missing = len(definitions) - len(operand_types)
    if (
        any(
            isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef)
            for _, d in definitions
        )
        or not 0 <= missing <= optional
    ):
        return {}
    keywords: dict[str, str] = {}
    types = iter(operand_types)
    for index, (name, definition) in enumerate(definitions):
        if (
            isinstance(definition, OptOperandDef)
            and len(definitions) - index <= missing
        ):
            continue
        tensor = next(types)
        if isinstance(tensor, TensorType):
            origin, _ = layout_of(tensor)
            if origin != Format.ND:
                keywords[f"{name}_format"] = origin.value
    return keywords


def operands_whose_format_is_read(op: Operation) -> frozenset[int]:
    """Positions of the operands whose origin format the op's kernel reads
    (`<operand>_format` keywords: the format is part of what the op means)."""
    kernel = numpy_kernel_of(op)
    if kernel is None or not isinstance(op, IRDLOperation):
        return frozenset()
    keywords = kernel_signature(kernel).keywords
    positions = []
    for name, value in _named_operands(op).items():
        if f"{name}_format" in keywords:
            positions.append(next(i for i, v in enumerate(op.operands) if v is value))
    return frozenset(positions)


def _named_operands(op: IRDLOperation) -> dict[str, Any]:
    """The op's present single and optional operands by IRDL name."""
    named = {}
    for name, definition in type(op).get_irdl_definition().operands:
        value = getattr(op, name)
        if value is not None and not (
            isinstance(definition, VarOperandDef)
            and not isinstance(definition, OptOperandDef)
        ):
            named[name] = value
    return named


def keyword_arguments(op: Operation, signature: KernelSignature) -> dict[str, Any]:
    """Attributes and operand origin formats the kernel accepts."""
    available = {
        **operand_format_keywords(type(op), [v.type for v in op.operands]),
        **python_attributes(op),
    }
    missing = signature.required - available.keys()
    if missing:
        raise error_at(
            op, f"needs attribute '{sorted(missing)[0]}' to run its host kernel"
        )
    return {k: v for k, v in available.items() if k in signature.keywords}


def call_kernel(op_class: type[Operation], *arrays: Any, **attributes: Any) -> Any:
    """Call `op_class`'s kernel on arrays, its attribute defaults filled in and
    absent trailing optional operands passed as None."""
    kernel = numpy_kernel_of(op_class)
    assert kernel is not None, f"{op_class.name} has no NumPy kernel"
    positional = kernel_signature(kernel).positional
    accepted = kernel_signature(kernel).keywords
    values = {**default_attributes(op_class), **attributes}
    padded = [*arrays, *[None] * (positional - len(arrays))]
    return kernel(*padded, **{k: v for k, v in values.items() if k in accepted})


def run_numpy_kernel(
    op: Operation, operand_arrays: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Run `op`'s kernel on origin-layout operands; results in origin layout."""
    kernel = numpy_kernel(op)
    arguments = positional_arguments(op, operand_arrays)
    keywords = keyword_arguments(op, kernel_signature(kernel))
    try:
        outcome = kernel(*arguments, **keywords)
    except (ValueError, TypeError, IndexError, ZeroDivisionError) as error:
        message = " ".join(str(error).split())
        raise error_at(op, f"host kernel failed: {message}") from None
    results = (
        [np.asarray(r) for r in outcome]
        if isinstance(outcome, list | tuple)
        else [np.asarray(outcome)]
    )
    check_results(op, results)
    return results


def expected_dtype(tensor: Attribute) -> np.dtype:
    """The NumPy dtype that holds values of a tensor type."""
    assert isinstance(tensor, TensorType)
    return numpy_dtype(dtype_name(tensor.element_type))


def check_results(op: Operation, arrays: Sequence[np.ndarray]) -> None:
    """Raise a GEError unless `arrays` fit the op's result types (origin layout)."""
    if len(arrays) != len(op.results):
        raise error_at(
            op, f"computed {len(arrays)} results, the IR declares {len(op.results)}"
        )
    for index, (array, result) in enumerate(zip(arrays, op.results, strict=True)):
        tensor = result.type
        if not isinstance(tensor, TensorType):
            continue
        expected = tensor.get_shape()
        if not shape_matches(array.shape, expected):
            raise error_at(
                op,
                f"result #{index} has shape {list(array.shape)}, the IR type "
                f"{tensor} says {list(expected)}",
            )
        dtype = expected_dtype(tensor)
        if array.dtype != dtype:
            raise error_at(
                op,
                f"result #{index} has dtype {array.dtype}, the IR type {tensor} "
                f"says {dtype}",
            )
