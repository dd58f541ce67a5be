"""ONNX Range with run-time start, limit and delta: host-scheduled, its
length taken from the operands' values (`RangeOp.value_shapes`), then its
loops compiled for that length and run on the JIT (`passes/lowering/
value_shaped.py`), against onnxruntime (the reference evaluator for the
16-bit floats, which Range takes from opset 27): odd lengths, negative and
fractional steps, empty ranges, every dtype Range takes.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, one_node_model, with_output_types

from tools import ge_atc, ge_run

BF16 = np.dtype(ml_dtypes.bfloat16)

CASES = {
    "int32_negative_step": (np.int32, 10, -7, -3),
    "int64_odd_length": (np.int64, -5, 12, 1),
    "int16": (np.int16, 3, 40, 5),
    "float32_fraction": (np.float32, 0.5, 3.7, 0.13),
    "float64_negative": (np.float64, 2.0, -1.3, -0.17),
    "float32_empty": (np.float32, 1.0, 1.0, 0.5),
    "int64_empty_wrong_direction": (np.int64, 0, 5, -1),
    "float16": (np.float16, 1.0, 9.0, 0.5),
    "bfloat16": (BF16, 1.0, 17.0, 2.0),
}


def range_inputs(dtype, start, limit, delta) -> dict[str, np.ndarray]:
    return {
        "start": np.array(start, dtype),
        "limit": np.array(limit, dtype),
        "delta": np.array(delta, dtype),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_range_runs_on_the_jit(name: str, tmp_path: Path) -> None:
    dtype, *values = CASES[name]
    inputs = range_inputs(dtype, *values)
    narrow = np.dtype(dtype).itemsize == 2 and np.dtype(dtype).kind != "i"
    model = one_node_model("Range", inputs, opset=27 if narrow else 11)
    expected = ReferenceEvaluator(model).run(None, inputs) if narrow else None
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


def test_a_zero_delta_is_a_one_line_run_error(tmp_path: Path, capsys) -> None:
    inputs = range_inputs(np.float32, 0.0, 1.0, 0.0)
    model = one_node_model("Range", inputs, opset=11)
    expected = [np.zeros(0, np.float32)]
    path = tmp_path / "model.onnx"
    path.write_bytes(with_output_types(model, expected).SerializeToString())
    output = tmp_path / "m"
    assert ge_atc.main([f"--model={path}", "--framework=5", f"--output={output}"]) == 0
    for name, array in inputs.items():
        np.save(tmp_path / f"{name}.npy", array)
    capsys.readouterr()
    code = ge_run.main(
        [
            str(tmp_path / "m.om"),
            *(f"--input={n}={tmp_path / n}.npy" for n in inputs),
            f"--output-dir={tmp_path / 'out'}",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "Range's delta is 0" in err
