"""Every op of the dialect has one home that says everything about it.

These tests iterate the dialect, so a new op is checked the moment its class
exists: its shape function, NumPy kernel (with arguments derived from its
definition), infer-format rule, op information and lowering (or the reason it
has none) must all be there, and the trait claims it makes are checked
numerically where they can be.
"""

from __future__ import annotations

import functools
import inspect
import json
from pathlib import Path

import numpy as np
import pytest
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.adapters import call_kernel, kernel_signature, numpy_kernel_of
from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.format_rules import FORMAT_RULES
from ge_dialect.opinfo import find_op_info
from ge_dialect.ops import GE_OPS, OPS_BY_NAME, Structural, default_attributes
from ge_dialect.shape_functions import ShapeError
from ge_dialect.shape_inference import has_shape_function, infer_shapes
from ge_dialect.traits import (
    Broadcasting,
    Elementwise,
    MayRunInPlace,
    ViewOp,
    ZeroPreserving,
)
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import run_graph
from passes.lowering.emitter import Nest, ProbeValue
from passes.lowering.table import NOT_LOWERED, has_lowering, lowering_for

COMPUTE_OPS = [op for op in GE_OPS if not op.has_trait(Structural)]
ELEMENTWISE_OPS = [op for op in COMPUTE_OPS if op.has_trait(Elementwise)]
RNG = np.random.default_rng(0)


def ids(op: type[IRDLOperation]) -> str:
    return op.name


def test_the_dialect_has_ops():
    assert len(COMPUTE_OPS) > 50 and ELEMENTWISE_OPS


@pytest.mark.parametrize("op", COMPUTE_OPS, ids=ids)
def test_every_op_has_a_shape_function(op):
    assert has_shape_function(op), f"{op.name} declares no shape_function"


@pytest.mark.parametrize("op", COMPUTE_OPS, ids=ids)
def test_every_op_has_a_kernel_whose_arguments_come_from_its_definition(op):
    kernel = numpy_kernel_of(op)
    assert kernel is not None, f"{op.name} declares no numpy_kernel"
    definition = op.get_irdl_definition()
    params = inspect.signature(kernel).parameters.values()
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == [name for name, _ in definition.operands]
    signature = kernel_signature(kernel)
    attributes = set(definition.attributes)
    operand_formats = {f"{name}_format" for name, _ in definition.operands}
    assert signature.keywords <= attributes | operand_formats
    defaults = default_attributes(op)
    for param in params:
        if param.name in defaults:
            # stated once: in the op definition, never again in the kernel
            assert param.default is param.empty, (op.name, param.name)


@pytest.mark.parametrize("op", COMPUTE_OPS, ids=ids)
def test_every_op_declares_its_format_rule(op):
    assert op.FORMAT_RULE is not None or op.name in FORMAT_RULES, op.name
    if op.has_trait(Broadcasting):
        assert op.FORMAT_RULE.__name__ == "same_rank_rule", op.name


@pytest.mark.parametrize("op", COMPUTE_OPS, ids=ids)
def test_every_op_has_op_information(op):
    info = find_op_info(op)
    assert info is not None, f"{op.name}: no op information entry or derived one"
    definition = op.get_irdl_definition()
    assert {t.name for t in info.inputs} <= {n for n, _ in definition.operands}
    assert {t.name for t in info.outputs} <= {n for n, _ in definition.results}


def test_op_information_files_name_dialect_ops():
    folder = Path(__file__).parents[1] / "ge_dialect" / "data" / "opinfo"
    for path in folder.glob("*.json"):
        for name in json.loads(path.read_text()):
            assert name in OPS_BY_NAME, f"{path.name}: '{name}' is not a ge op"


@pytest.mark.parametrize("op", GE_OPS, ids=ids)
def test_every_op_lowers_or_says_why_not(op):
    lowered = op in NOT_LOWERED or has_lowering(op)
    assert lowered, f"{op.name} has no lowering and no NOT_LOWERED reason"
    if op in NOT_LOWERED:
        assert NOT_LOWERED[op] and not has_lowering(op), op.name


# ---------------------------------------------------------------------------
# Trait claims, checked numerically
# ---------------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, 7.0, -9.5, np.inf, -np.inf], np.float32)


DTYPE_CANDIDATES = ("float32", "int32", "uint8", "bool", "int8", "int64", "uint64")
"""Dtypes the numeric lowering test runs each elementwise op on (when its
one-op graph verifies and its body computes them)."""

ALL_DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
)
"""Every element type a `ge` tensor may hold (int4/uint4 aside: NumPy has
no arithmetic on them, so no kernel defines an op on them)."""


def dtype_options(op: type[IRDLOperation]) -> list[tuple[str, ...]]:
    """Every candidate operand dtype tuple (all operands one dtype, or a bool
    first operand and the rest another, as for select) whose one-op graph
    verifies."""
    count = len(op.get_irdl_definition().operands)
    candidates = [(d,) * count for d in DTYPE_CANDIDATES]
    if count > 1:
        candidates += [("bool", *(d,) * (count - 1)) for d in DTYPE_CANDIDATES[:-1]]
    return [dtypes for dtypes in candidates if _one_op_graph(op, dtypes) is not None]


def _one_op_graph(op: type[IRDLOperation], dtypes: tuple[str, ...]):
    try:
        return _elementwise_graph(op, (1, 17, 3, 5), dtypes)
    except (GEError, VerifyException, ShapeError, ValueError):
        return None


@functools.cache
def operand_dtypes(op: type[IRDLOperation]) -> tuple[str, ...]:
    """The first operand dtypes the op takes (float32 for most)."""
    options = dtype_options(op)
    assert options, f"{op.name}: no operand dtypes among {DTYPE_CANDIDATES}"
    return options[0]


def sample(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Random data of `dtype`: floats standard normal, signed ints in
    [-9, 9], unsigned ones in [0, 19], bools either."""
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind == "u":
        return RNG.integers(0, 20, shape).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-9, 10, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def integer_extremes(dtype: str) -> list[int]:
    """An integer type's minimum and maximum, zero, and (unsigned) the first
    value above the signed range, where wraparound and sign reading show."""
    info = np.iinfo(dtype)
    return [info.min, info.max, 0, info.max // 2 + 1, info.min + 1]


def _attributes(op: type[IRDLOperation]) -> dict[str, str]:
    if "data_format" in op.get_irdl_definition().attributes:
        return {"data_format": "NCHW"}
    return {}


def _operands(op: type[IRDLOperation], shape: tuple[int, ...]) -> list[np.ndarray]:
    return [sample(dtype, shape) for dtype in operand_dtypes(op)]


def _call(op: type[IRDLOperation], arrays: list[np.ndarray]) -> np.ndarray:
    variadic = op.get_irdl_definition().operands[0][1].__class__.__name__
    attributes = _attributes(op)
    if variadic == "VarOperandDef":
        return np.asarray(call_kernel(op, arrays, **attributes))
    return np.asarray(call_kernel(op, *arrays, **attributes))


@pytest.mark.parametrize(
    "op", [op for op in COMPUTE_OPS if op.has_trait(ZeroPreserving)], ids=ids
)
def test_zero_preserving_ops_map_zero_to_zero(op):
    shape = (1, 17, 3, 3)
    zeros = [np.zeros_like(s) for s in _operands(op, shape)]
    result = _call(op, zeros)
    np.testing.assert_array_equal(result, np.zeros_like(result))


@pytest.mark.parametrize(
    "op", [op for op in COMPUTE_OPS if op.has_trait(MayRunInPlace)], ids=ids
)
def test_in_place_ops_are_elementwise(op):
    assert op.has_trait(Elementwise), op.name


@pytest.mark.parametrize(
    "op", [op for op in COMPUTE_OPS if op.has_trait(ViewOp)], ids=ids
)
def test_view_ops_return_their_operand(op):
    (x,) = _operands(op, (3, 17))
    np.testing.assert_array_equal(_call(op, [x]), x)


@pytest.mark.parametrize(
    "op", [op for op in COMPUTE_OPS if op.has_trait(Broadcasting)], ids=ids
)
def test_broadcasting_shape_functions_follow_numpy(op):
    for shapes in [((3, 1, 17), (5, 1)), ((1,), (2, 3)), ((4, 1), (1, 33))]:
        given = operand_dtypes(op)  # a variadic op: one dtype for all
        dtypes = [given[min(i, len(given) - 1)] for i in range(len(shapes))]
        arrays = [np.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
        ((shape, _),) = infer_shapes(op, shapes, dtypes, {})
        assert shape == np.broadcast_shapes(*shapes)
        assert _call(op, arrays).shape == shape


ELEMENTWISE_WITH_BODY = [op for op in ELEMENTWISE_OPS if hasattr(op, "scalar")]


def _elementwise_graph(
    op: type[IRDLOperation], shape: tuple[int, ...], dtypes: tuple[str, ...]
):
    """NCHW inputs -> NC1HWC0 -> op -> NCHW output (per-channel operands [C])."""
    b = GraphBuilder("g")
    values = []
    for index, dtype in enumerate(dtypes):
        if index and not op.has_trait(Broadcasting):
            values.append(b.data([shape[1]], dtype))
            continue
        x = b.data(list(shape), dtype, format="NCHW")
        values.append(b.transdata(x, src_format="NCHW", dst_format="NC1HWC0"))
    variadic = op.get_irdl_definition().operands[0][1]
    operands = [values] if variadic.__class__.__name__ == "VarOperandDef" else values
    y = b.op(op.name, *operands, **_attributes(op))
    b.output(b.transdata(y, src_format="NC1HWC0", dst_format="NCHW"))
    return b.build()


def _has_body(op: type[IRDLOperation], dtypes: tuple[str, ...]) -> bool:
    """Whether the op's scalar body computes elements of these dtypes."""
    module = _one_op_graph(op, dtypes)
    instance = next(o for o in module.walk() if isinstance(o, op))
    values = [ProbeValue(v.type.element_type) for v in instance.operands]
    return instance.scalar(Nest(None, None), *values) is not None


LOWERED_CASES = [
    pytest.param(op, dtypes, id=f"{op.name}-{'-'.join(dict.fromkeys(dtypes))}")
    for op in ELEMENTWISE_WITH_BODY
    for dtypes in dtype_options(op)
    if _has_body(op, dtypes)
]


def test_every_elementwise_op_lowers_some_dtype():
    lowered = {op for op, *_ in (case.values for case in LOWERED_CASES)}
    assert lowered == set(ELEMENTWISE_WITH_BODY)


@pytest.mark.parametrize(("op", "dtypes"), LOWERED_CASES)
def test_generic_lowering_matches_the_kernel(op, dtypes):
    """The scalar body, lowered and JIT-run, computes what the kernel does
    (odd channel counts, special values included), for every dtype it has a
    body for."""
    module = _elementwise_graph(op, (1, 17, 3, 5), dtypes)
    graph = module.body.block.first_op
    inputs = {}
    for data, dtype in zip(graph.inputs(), dtypes, strict=True):
        shape = tuple(data.output.type.get_shape())
        values = sample(dtype, shape)
        if dtype == "float32":
            values *= 4
            values.reshape(-1)[: len(SPECIAL)] = SPECIAL[: values.size]
        elif dtype != "bool":
            extremes = integer_extremes(dtype)
            offset = 3 * data.index_value  # operands meet several extremes
            values.reshape(-1)[offset : offset + len(extremes)] = extremes
        inputs[data.index_value] = values
    with np.errstate(all="ignore"):
        (expected,) = evaluate(module, inputs)
        (out,) = run_graph(module, inputs)
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-6, equal_nan=True)
    assert lowering_for(next(o for o in graph.body.block.ops if o.name == op.name))


def _plain_graph(op: type[IRDLOperation], dtypes: tuple[str, ...]):
    """A one-op graph over [3, 17] inputs of `dtypes` (None: it does not verify)."""
    b = GraphBuilder("g")
    values = [b.data([3, 17], dtype) for dtype in dtypes]
    variadic = op.get_irdl_definition().operands[0][1]
    operands = [values] if variadic.__class__.__name__ == "VarOperandDef" else values
    try:
        b.output(b.op(op.name, *operands, **_attributes(op)))
        return b.build()
    except (GEError, VerifyException, ShapeError, ValueError):
        return None


def kernel_defines(op: type[IRDLOperation], dtypes: tuple[str, ...]) -> bool:
    """Whether the op's NumPy kernel computes a result of the first operand's
    dtype from operands of `dtypes` (the reference defines the op on them)."""
    arrays = [np.ones((3, 17), numpy_dtype(dtype)) for dtype in dtypes]
    try:
        with np.errstate(all="ignore"):
            result = _call(op, arrays)
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return False
    return result.dtype == np.dtype(dtypes[0])


def _operand_dtypes(op: type[IRDLOperation], dtype: str) -> tuple[str, ...]:
    """All operands `dtype`, or (select) a bool condition and the rest `dtype`."""
    count = len(op.get_irdl_definition().operands)
    if op.name == "ge.select":
        return ("bool", *(dtype,) * (count - 1))
    return (dtype,) * count


BODY_CASES = [
    pytest.param(op, dtypes, id=f"{op.name}-{dtypes[-1]}")
    for op in ELEMENTWISE_WITH_BODY
    for dtypes in dict.fromkeys(_operand_dtypes(op, d) for d in ALL_DTYPES)
    if _plain_graph(op, dtypes) is not None and kernel_defines(op, dtypes)
]


@pytest.mark.parametrize(("op", "dtypes"), BODY_CASES)
def test_every_dtype_the_kernel_defines_has_a_scalar_body(op, dtypes):
    """Where the verifier takes a dtype and the reference kernel computes it,
    the scalar body computes it too, or the op names why not
    (`NO_SCALAR_BODY`, by dtype kind): otherwise `--check` would compare the
    reference with itself on such graphs."""
    module = _plain_graph(op, dtypes)
    instance = next(o for o in module.walk() if isinstance(o, op))
    if (
        instance.scalar(
            Nest(None, None),
            *[ProbeValue(v.type.element_type) for v in instance.operands],
        )
        is not None
    ):
        return
    kind = "bool" if dtypes[-1] == "bool" else np.dtype(dtypes[-1]).kind
    reasons = getattr(op, "NO_SCALAR_BODY", {})
    assert reasons.get(kind), f"{op.name} on {dtypes[-1]}: no scalar body and no reason"
