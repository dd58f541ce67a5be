"""The ONNX operator schemas' type constraints, checked on a node's inputs.

onnxruntime refuses a model whose node reads a dtype its operator does not
take (`If` with a float condition, `Relu` of int8 before opset 14); so does
the importer, for every node, before its converter sees it: each input's
dtype must be one its type parameter allows, and inputs of one type
parameter (`Add`'s two `T`) must agree:

```
m.onnx: error: node 'if0' (If): input #0 'cf' is tensor(float), If takes
tensor(bool)
```
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

from ge_frontend.importing import Value, dtype_name_of


def check_input_types(
    node: onnx.NodeProto, inputs: Sequence[Value | None], opset: int
) -> None:
    """ValueError naming the first input of `node` whose dtype its schema (at
    `opset`) does not allow; nodes without a schema are not checked."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    except onnx.defs.SchemaError:
        return
    formals = schema.inputs
    constraints = {
        c.type_param_str: c.allowed_type_strs for c in schema.type_constraints
    }
    bound: dict[str, tuple[str, int, str]] = {}  # T -> (type, input #, name)
    for index, (name, value) in enumerate(zip(node.input, inputs, strict=True)):
        if not name or value is None or not formals:
            continue
        formal = formals[min(index, len(formals) - 1)]  # the last may be variadic
        allowed = constraints.get(formal.type_str, [formal.type_str])
        actual = _tensor_type(value)
        if actual is None:
            continue
        if actual not in allowed:
            raise ValueError(
                f"input #{index} '{name}' is {actual}, {node.op_type} takes "
                f"{', '.join(sorted(allowed))}"
            )
        heterogeneous = not formal.is_homogeneous  # Loop's carried values: V
        if formal.type_str not in constraints or heterogeneous:
            continue
        first, at, first_name = bound.setdefault(formal.type_str, (actual, index, name))
        if first != actual:
            raise ValueError(
                f"input #{index} '{name}' is {actual}, input #{at} '{first_name}' "
                f"of the same type {formal.type_str} is {first}"
            )


def _tensor_type(value: Value) -> str | None:
    """ONNX's `tensor(float)` spelling of a value's dtype (None: not a tensor
    or a dtype ONNX does not name)."""
    if dtype_name_of(value) == "string":
        return "tensor(string)"
    try:
        number = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype_name_of(value)))
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return f"tensor({onnx.TensorProto.DataType.Name(number).lower()})"
