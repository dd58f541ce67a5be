"""ge.tile is an AI Core op (CANN's Ascend 910B op information: Tile takes
bfloat16 and the float8 types), so a bfloat16 Tile or Expand (the GQA
head repeat of ONNX's Attention body) compiles with the default options, no
AI CPU Cast insertion, and runs on the JIT bit for bit as the reference
evaluator: NaN, infinities, -0.0, subnormals and the largest values, at
odd sizes.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, one_node_model, with_output_types

from ge_dialect.opinfo import Engine, op_info
from ge_frontend.onnx_import import import_onnx
from passes.partition_engines import PartitionEnginesPass

BF16 = np.dtype(ml_dtypes.bfloat16)


def special_values(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """`shape` values of `dtype`, random but for NaN, ±inf, -0.0, the
    smallest subnormal and the largest finite value up front."""
    info = ml_dtypes.finfo(dtype)
    special = [np.nan, np.inf, -np.inf, -0.0, float(info.smallest_subnormal)]
    special += [float(info.max), -float(info.max)]
    values = np.random.default_rng(7).uniform(-3, 3, int(np.prod(shape)))
    values[: len(special)] = special
    return values.astype(dtype).reshape(shape)


def test_the_op_information_puts_tile_on_ai_core_with_bfloat16() -> None:
    info = op_info("ge.tile")
    assert info.engine is Engine.AICORE
    for dtype in ("bfloat16", "float16", "float32", "float8_e4m3fn", "int8"):
        assert info.supports_dtype(dtype), dtype


@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float64)], ids=str)
def test_tile_runs_on_the_jit(dtype: np.dtype, tmp_path: Path) -> None:
    x = special_values(dtype, (3, 1, 5))
    model = one_node_model(
        "Tile", {"x": x}, initializers={"repeats": np.array([2, 3, 1], np.int64)}
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected)


def test_bfloat16_expand_runs_on_the_jit(tmp_path: Path) -> None:
    x = special_values(BF16, (3, 1, 7))
    model = one_node_model(
        "Expand", {"x": x}, initializers={"shape": np.array([2, 3, 5, 7], np.int64)}
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, expected)


def test_a_bfloat16_tile_partitions_into_one_ai_core_subgraph() -> None:
    """No AI CPU subgraph and no error without `insert-aicpu-cast`."""
    x = special_values(BF16, (3, 5))
    model = one_node_model(
        "Tile", {"x": x}, initializers={"repeats": np.array([1, 2], np.int64)}
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    module = import_onnx(with_output_types(model, expected)).module
    PartitionEnginesPass().apply(None, module)  # type: ignore[arg-type]
    engines = [
        op.attributes["engine"].data
        for op in module.walk()
        if "engine" in op.attributes
    ]
    assert engines == ["AICore"]
