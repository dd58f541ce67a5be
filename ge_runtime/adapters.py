"""Calling a NumPy host kernel for a `ge` op: arguments generated from the op.

The bridge between the IR and `ge_runtime.host_ops` is derived, never written
per op:

- positional arguments follow the op's IRDL operand definitions (one array
  per operand, `None` for an absent optional operand, a list for a variadic
  one);
- keyword arguments are the op's attributes as Python values
  (`python_attributes`, defaults included) that the kernel's signature
  accepts;
- a kernel keyword `<operand>_format` receives that operand's origin format
  (e.g. `filter_format` of `ge.conv2d`), unless the origin is ND;
- a required kernel keyword the op does not carry may be derived from the
  IR types (`DERIVED_KEYWORDS`, e.g. the target shape of `ge.reshape`).

Results are checked against the op's result types (count, shape with -1 as
a wildcard, dtype); every failure is a one-line `GEError` at the op.

```python
arrays = call_host_op(conv_op, [x, w])  # host_ops.conv2d(x, w, None, strides=..., ...)
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

from ge_dialect.diagnostics import error_at
from ge_dialect.dtypes import dtype_name, numpy_dtype
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of
from ge_dialect.ops import python_attributes
from ge_runtime.host_ops import HOST_OPS

DERIVED_KEYWORDS: dict[str, Callable[[Operation], Any]] = {
    "shape": lambda op: list(op.results[0].type.get_shape()),
}
"""Required kernel keywords that the IR answers when the op has no such attribute."""


@dataclass(frozen=True)
class KernelSignature:
    """What a host kernel accepts as keywords."""

    keywords: frozenset[str]
    required: frozenset[str]


def kernel_name(op: Operation) -> str:
    """The `HOST_OPS` key of an op: its name without the `ge.` prefix."""
    return op.name.removeprefix("ge.")


def host_kernel(op: Operation) -> Callable[..., Any]:
    """The host kernel of `op`, or a GEError saying it has none."""
    kernel = HOST_OPS.get(kernel_name(op))
    if kernel is None:
        raise error_at(op, "has no NumPy reference kernel (unsupported op)")
    return kernel


@functools.cache
def kernel_signature(kernel: Callable[..., Any]) -> KernelSignature:
    """The keyword-only parameters of `kernel` (through decorators)."""
    params = [
        p
        for p in inspect.signature(kernel).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    return KernelSignature(
        keywords=frozenset(p.name for p in params),
        required=frozenset(p.name for p in params if p.default is p.empty),
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


def keyword_arguments(op: Operation, signature: KernelSignature) -> dict[str, Any]:
    """Attributes, operand origin formats and derived values the kernel accepts."""
    keywords = {
        name: value
        for name, value in python_attributes(op).items()
        if name in signature.keywords
    }
    operands = _named_operands(op)
    for keyword in signature.keywords - keywords.keys():
        operand = operands.get(keyword.removesuffix("_format"))
        if keyword.endswith("_format") and operand is not None:
            origin, _ = layout_of(operand.type)
            if origin != Format.ND:
                keywords[keyword] = origin.value
    for keyword in signature.required - keywords.keys():
        derive = DERIVED_KEYWORDS.get(keyword)
        if derive is None:
            raise error_at(op, f"needs attribute '{keyword}' to run its host kernel")
        keywords[keyword] = derive(op)
    return keywords


def _named_operands(op: Operation) -> dict[str, Any]:
    """The op's single (present) operands by IRDL name."""
    if not isinstance(op, IRDLOperation):
        return {}
    named = {}
    for name, operand_def in type(op).get_irdl_definition().operands:
        value = getattr(op, name)
        if value is not None and not (
            isinstance(operand_def, VarOperandDef)
            and not isinstance(operand_def, OptOperandDef)
        ):
            named[name] = value
    return named


def call_host_op(
    op: Operation, operand_arrays: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Run `op`'s host kernel on origin-layout operands; results in origin layout."""
    kernel = host_kernel(op)
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


def shape_matches(shape: Sequence[int], expected: Sequence[int]) -> bool:
    """Whether a concrete shape fits an IR shape (a dynamic dim matches any)."""
    return len(shape) == len(expected) and all(
        e < 0 or s == e for s, e in zip(shape, expected, strict=True)
    )


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
