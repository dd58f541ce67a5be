"""The one table of arith/math semantics (`ge_runtime.jit.ops`): every code
generator renders every entry, or the entry says why not.

Each op (and each comparison predicate) runs in a small loop nest through
the NumPy emitter, the scalar path, C kernels and, where the entry gives a
Python function, xDSL's interpreter; all must agree with NumPy's.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.parser import Parser

from ge_runtime.jit import c_runtime
from ge_runtime.jit.compiler import compile_module, loop_context
from ge_runtime.jit.interpreter import interpret
from ge_runtime.jit.ops import CMPF, CMPI, OPS, Predicate, Semantics

NO_CC = pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")
RNG = np.random.default_rng(7)
SHAPE = (4, 16)
ELEMENT = {"float": "f32", "integer": "i32", "any": "f32"}
"""The element type an entry's test runs on, by its `dtypes`."""

CONVERSIONS = {
    "arith.bitcast": ("f32", "i32"),
    "arith.extf": ("f32", "f64"),
    "arith.truncf": ("f64", "f32"),
    "arith.sitofp": ("i32", "f32"),
    "arith.uitofp": ("i32", "f32"),
    "arith.fptosi": ("f32", "i32"),
    "arith.fptoui": ("f32", "i32"),
    "arith.extsi": ("i8", "i32"),
    "arith.extui": ("i8", "i32"),
    "arith.trunci": ("i32", "i8"),
    "arith.index_cast": ("i32", "index"),
}
"""Operand and result types of each conversion's test."""

CMPF_NAMES = (
    "false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true".split()
)
CMPI_NAMES = "eq ne slt sle sgt sge ult ule ugt uge".split()
DTYPES = {
    "f32": np.float32,
    "f64": np.float64,
    "i32": np.int32,
    "i8": np.int8,
    "i64": np.int64,
    "i1": np.bool_,
    "index": np.int64,
}


def arity(semantics: Semantics) -> int:
    if semantics.converts:
        return 1
    function = semantics.numpy
    if isinstance(function, np.ufunc):
        return function.nin
    return len(inspect.signature(function).parameters)


def nest(operands: list[str], result: str, syntax: str, dialect: str = "affine") -> str:
    """`%r = <syntax>` over `operands` (element types) in a 4x16 nest, its
    loads and stores `affine`'s or `memref`'s (what xDSL's interpreter runs)."""
    shape = "x".join(map(str, SHAPE))
    args = ", ".join(f"%a{i}: memref<{shape}x{t}>" for i, t in enumerate(operands))
    loads = "\n".join(
        f"      %v{i} = {dialect}.load %a{i}[%i, %j] : memref<{shape}x{t}>"
        for i, t in enumerate(operands)
    )
    return f"""
func.func @main({args}) -> memref<{shape}x{result}> {{
  %y = memref.alloc() : memref<{shape}x{result}>
  affine.for %i = 0 to {SHAPE[0]} {{
    affine.for %j = 0 to {SHAPE[1]} {{
{loads}
      %r = {syntax}
      {dialect}.store %r, %y[%i, %j] : memref<{shape}x{result}>
    }}
  }}
  func.return %y : memref<{shape}x{result}>
}}"""


def op_module(name: str, dialect: str = "affine") -> tuple[str, list[str], str]:
    """A nest computing op `name`, its operand and result element types."""
    semantics = OPS[name]
    if semantics.converts:
        source, result = CONVERSIONS[name]
        syntax = f"{name} %v0 : {source} to {result}"
        return nest([source], result, syntax, dialect), [source], result
    element = ELEMENT[semantics.dtypes]
    operands = [element] * arity(semantics)
    if name == "arith.select":
        operands[0] = "i1"
    values = ", ".join(f"%v{i}" for i in range(len(operands)))
    syntax = f"{name} {values} : {element}"
    return nest(operands, element, syntax, dialect), operands, element


def inputs(types: list[str], name: str) -> list[np.ndarray]:
    """Operands with NaN, infinities and -0.0 among the floats (but where a
    float becomes an integer: NaN and out-of-range values are poison in
    MLIR), integers from -40 to 40 (divisors and shifts from 1 to 7)."""
    arrays = []
    for position, element in enumerate(types):
        dtype = DTYPES[element]
        if name in ("arith.fptosi", "arith.fptoui"):
            arrays.append(RNG.uniform(0, 100, SHAPE).astype(dtype))
        elif element == "i1":
            arrays.append(RNG.random(SHAPE) < 0.5)
        elif np.issubdtype(dtype, np.floating):
            x = (RNG.standard_normal(SHAPE) * 3).astype(dtype)
            flat = x.reshape(-1)
            flat[::13], flat[5::17], flat[7::19], flat[3::11] = (
                np.nan,
                np.inf,
                -np.inf,
                -0.0,
            )
            arrays.append(x)
        elif position == 1 and re.search(r"div|rem|sh", name):
            arrays.append(RNG.integers(1, 8, SHAPE).astype(dtype))
        else:
            arrays.append(RNG.integers(-40, 41, SHAPE).astype(dtype))
    return arrays


def check_renders(text: str, args: list[np.ndarray], c_taken: bool, exact: bool):
    """The NumPy emitter takes the nest, the scalar path agrees bit for bit,
    and C kernels take it (`c_taken`) and agree, or leave it to NumPy."""
    numpy_path = compile_module(text, kernels="numpy")
    assert numpy_path.vectorised == 1, numpy_path.scalar_nests
    with np.errstate(all="ignore"):
        (want,) = numpy_path(*args)
        (scalar,) = compile_module(text, vectorize=False)(*args)
    np.testing.assert_array_equal(scalar, want)
    if c_runtime.compiler() is None:
        return
    c_path = compile_module(text, kernels="c")
    assert c_path.native_nests == (1 if c_taken else 0)
    with np.errstate(all="ignore"):
        (got,) = c_path(*args)
    if exact or not np.issubdtype(want.dtype, np.floating):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_generator_renders_every_op(name):
    semantics = OPS[name]
    assert semantics.c is not None or semantics.c_missing, "no C and no reason"
    text, types, _ = op_module(name)
    c_taken = semantics.c is not None and not semantics.c_divisor  # a loaded one
    check_renders(text, inputs(types, name), c_taken, semantics.c_exact)


@pytest.mark.parametrize("name", sorted(name for name, s in OPS.items() if s.c_divisor))
@pytest.mark.parametrize("divisor", [3, 7, -3, -1, 0])
def test_c_divides_by_a_constant_as_numpy_does(name, divisor):
    """A division whose divisor is a constant C defines it for (not 0, and
    not -1 for a signed one) is a C kernel's, with NumPy's results on every
    dividend (the least and greatest integers too); others stay NumPy's."""
    element = "i32"
    text, _, _ = op_module(name)
    text = text.replace("%v1 = affine.load %a1[%i, %j] : memref<4x16xi32>", "")
    text = text.replace(", %a1: memref<4x16xi32>", "")
    text = text.replace(
        "func.func @main(%a0: memref<4x16xi32>) -> memref<4x16xi32> {",
        "func.func @main(%a0: memref<4x16xi32>) -> memref<4x16xi32> {\n"
        f"  %v1 = arith.constant {divisor} : {element}",
    )
    (x,) = inputs([element], name)
    x.reshape(-1)[:2] = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    signed = OPS[name].c_divisor == "signed"
    c_taken = divisor != 0 and not (signed and divisor == -1)
    check_renders(text, [x], c_taken, True)


@pytest.mark.parametrize(
    "op, number",
    [("arith.cmpf", n) for n in CMPF] + [("arith.cmpi", n) for n in CMPI],
)
def test_every_generator_renders_every_comparison(op, number):
    predicate: Predicate = (CMPF if op == "arith.cmpf" else CMPI)[number]
    assert predicate.c is not None or predicate.c_missing
    element = "f32" if op == "arith.cmpf" else "i32"
    spelled = (CMPF_NAMES if op == "arith.cmpf" else CMPI_NAMES)[number]
    text = nest([element] * 2, "i1", f"{op} {spelled}, %v0, %v1 : {element}")
    args = inputs([element] * 2, op)
    args[1].reshape(-1)[::3] = args[0].reshape(-1)[::3]  # ties
    check_renders(text, args, predicate.c is not None, True)


@pytest.mark.parametrize(
    "name", sorted(name for name, s in OPS.items() if s.python is not None)
)
def test_the_interpreter_runs_the_python_of_every_op_that_has_one(name):
    text, types, _ = op_module(name)
    args = [
        RNG.integers(-40, 41, SHAPE).astype(DTYPES[t])
        if t.startswith("i")
        else RNG.uniform(0.1, 0.9, SHAPE).astype(DTYPES[t])
        for t in types
    ]
    interpreted, _, _ = op_module(name, "memref")
    module = Parser(loop_context(), interpreted).parse_module()
    (got,) = interpret(module, "main", args)
    (want,) = compile_module(text, kernels="numpy")(*args)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@NO_CC
@pytest.mark.parametrize(
    "source, result", [("f32", "i32"), ("i32", "f32"), ("f64", "i64")]
)
def test_c_bitcast_reads_the_bits_as_numpy_view_does(source, result):
    """`arith.bitcast` in a C kernel: NaN payloads, infinities and -0.0 keep
    their bits."""
    syntax = f"arith.bitcast %v0 : {source} to {result}"
    compiled = compile_module(nest([source], result, syntax), kernels="c")
    assert compiled.native_nests == 1
    x = inputs([source], "arith.bitcast")[0]
    if source == "f32":  # a NaN with a payload of its own
        x.view(np.uint32).reshape(-1)[1::7] = 0x7FC12345
    if source == "i32":  # every bit pattern, NaNs among them
        x[...] = RNG.integers(-(2**31), 2**31, SHAPE, dtype=np.int64)
    (got,) = compiled(x)
    np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))


def test_no_arith_or_math_op_name_is_written_outside_the_table():
    root = Path(__file__).resolve().parent.parent / "ge_runtime"
    table = root / "jit" / "ops.py"
    literal = re.compile(r"""["'](arith|math)\.[a-z_]+["']""")
    found = [
        f"{path.relative_to(root)}: {match.group(0)}"
        for path in sorted(root.rglob("*.py"))
        if path != table
        for match in literal.finditer(path.read_text())
    ]
    assert not found, found
