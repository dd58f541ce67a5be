"""Running a loop-level module with xDSL's own interpreter: the JIT's third oracle.

xDSL's interpreter executes `func`/`memref`/`affine`/`arith`/`math` ops one
element at a time in pure Python (no NumPy), independently of the JIT. The
scalar ops the lowering emits that xDSL 0.75 does not implement (or rounds
otherwise: `arith.divf`, `negf`, `extf`, `truncf`, some `math` functions)
run their `ops.OPS` entry's `python` function (Python's `math` module).

```python
outputs = interpret(loop_module, "g", [x_storage])
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.affine import AffineFunctions
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions, xtype_for_el_type
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr

from ge_runtime.jit.ops import OPS, numpy_dtype


def _scalar(function: Callable[..., Any]):
    """An interpreter implementation of an op from its `python` function:
    the result rounded to its type's precision (a float) or an integer."""

    def run(self: Any, interpreter: Interpreter, op: Any, args: tuple[Any, ...]):
        value = function(*(arg.value.data for arg in args))
        result_type = op.results[0].type
        if isinstance(result_type, IntegerType | IndexType):
            return (IntegerAttr(int(value), result_type),)
        rounded = float(numpy_dtype(result_type).type(value))
        return (FloatAttr(rounded, result_type),)

    return run


def _extra_functions() -> type[InterpreterFunctions]:
    """The ops whose `ops.OPS` entry gives a `python` function (xDSL 0.75's
    interpreter lacks them or rounds otherwise), as interpreter functions."""
    classes = {
        op.name: op for dialect in (arith.Arith, math.Math) for op in dialect.operations
    }
    body = {
        f"run_{name.replace('.', '_')}": impl(classes[name])(_scalar(s.python))
        for name, s in OPS.items()
        if s.python is not None
    }
    return register_impls(type("ExtraFunctions", (InterpreterFunctions,), body))


ExtraFunctions = _extra_functions()


def _to_shaped(array: np.ndarray, memref_type: MemRefType) -> ShapedArray:
    xtype = xtype_for_el_type(memref_type.element_type, 64)
    values = [v.item() for v in np.asarray(array).reshape(-1)]
    return ShapedArray(TypedPtr.new(values, xtype=xtype), list(array.shape))


def _to_numpy(shaped: ShapedArray, memref_type: MemRefType) -> np.ndarray:
    dtype = numpy_dtype(memref_type.element_type)
    return np.asarray(shaped.data, dtype=dtype).reshape(shaped.shape)


def interpret(
    module: ModuleOp, function: str, args: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Run `function` of a loop-level module in xDSL's interpreter on NumPy arrays."""
    interpreter = Interpreter(module)
    for functions in (
        ExtraFunctions(),
        FuncFunctions(),
        MemRefFunctions(),
        ArithFunctions(),
        AffineFunctions(),
        MathFunctions(),
        BuiltinFunctions(),
    ):
        interpreter.register_implementations(functions, override=True)
    func_op = next(
        op
        for op in module.ops
        if getattr(op, "sym_name", None) and op.sym_name.data == function
    )
    arg_types = func_op.function_type.inputs.data
    result_types = func_op.function_type.outputs.data
    shaped = [_to_shaped(a, t) for a, t in zip(args, arg_types, strict=True)]
    results = interpreter.call_op(function, tuple(shaped))
    return [_to_numpy(r, t) for r, t in zip(results, result_types, strict=True)]
