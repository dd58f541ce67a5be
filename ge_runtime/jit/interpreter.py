"""Running a loop-level module with xDSL's own interpreter: the JIT's third oracle.

xDSL's interpreter executes `func`/`memref`/`affine`/`arith`/`math` ops one
element at a time in pure Python (no NumPy), independently of the JIT. The
few scalar ops the lowering emits that xDSL 0.75 does not implement
(`arith.divf`, `negf`, `extf`, `truncf`, some `math` functions) are added
here with Python's `math` module.

```python
outputs = interpret(loop_module, "g", [x_storage])
```
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.affine import AffineFunctions
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions, xtype_for_el_type
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr

from ge_runtime.jit.ops import numpy_dtype


def _round_to(value: float, type_: Any) -> float:
    """`value` rounded to the precision of a float type."""
    dtype = numpy_dtype(type_)
    return float(dtype.type(value))


def _unary(function: Callable[[float], float]):
    def run(self: Any, interpreter: Interpreter, op: Any, args: tuple[Any, ...]):
        return (
            FloatAttr(
                _round_to(function(args[0].value.data), op.result.type), op.result.type
            ),
        )

    return run


def _exp(x: float) -> float:
    return pymath.exp(x) if x < 709 else float("inf")


@register_impls
class ExtraFunctions(InterpreterFunctions):
    """Scalar ops the lowering emits that xDSL 0.75's interpreter lacks."""

    @impl(arith.DivfOp)
    def run_divf(
        self, interpreter: Interpreter, op: arith.DivfOp, args: tuple[Any, ...]
    ):
        a, b = args[0].value.data, args[1].value.data
        if b == 0:
            value = (
                float("nan")
                if a == 0 or pymath.isnan(a)
                else pymath.copysign(float("inf"), a) * pymath.copysign(1, b)
            )
        else:
            value = a / b
        return (FloatAttr(_round_to(value, op.result.type), op.result.type),)

    @impl(arith.NegfOp)
    def run_negf(
        self, interpreter: Interpreter, op: arith.NegfOp, args: tuple[Any, ...]
    ):
        return (FloatAttr(-args[0].value.data, op.result.type),)

    @impl(arith.ExtFOp)
    def run_extf(
        self, interpreter: Interpreter, op: arith.ExtFOp, args: tuple[Any, ...]
    ):
        return (FloatAttr(args[0].value.data, op.result.type),)

    @impl(arith.TruncFOp)
    def run_truncf(
        self, interpreter: Interpreter, op: arith.TruncFOp, args: tuple[Any, ...]
    ):
        return (
            FloatAttr(_round_to(args[0].value.data, op.result.type), op.result.type),
        )

    @impl(arith.SIToFPOp)
    def run_sitofp(
        self, interpreter: Interpreter, op: arith.SIToFPOp, args: tuple[Any, ...]
    ):
        return (FloatAttr(float(args[0].value.data), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(
        self, interpreter: Interpreter, op: arith.FPToSIOp, args: tuple[Any, ...]
    ):
        return (IntegerAttr(int(args[0].value.data), op.result.type),)

    @impl(math.PowFOp)
    def run_powf(
        self, interpreter: Interpreter, op: math.PowFOp, args: tuple[Any, ...]
    ):
        value = pymath.pow(args[0].value.data, args[1].value.data)
        return (FloatAttr(_round_to(value, op.result.type), op.result.type),)

    run_tanh = impl(math.TanhOp)(_unary(pymath.tanh))
    run_erf = impl(math.ErfOp)(_unary(pymath.erf))
    run_absf = impl(math.AbsFOp)(_unary(abs))
    run_log1p = impl(math.Log1pOp)(_unary(pymath.log1p))
    run_expm1 = impl(math.ExpM1Op)(
        _unary(lambda x: pymath.expm1(x) if x < 709 else float("inf"))
    )
    run_exp = impl(math.ExpOp)(_unary(_exp))


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
