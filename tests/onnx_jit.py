"""Running one ONNX model through the user's path and checking it ran on the JIT.

`assert_runs_on_the_jit` writes the model, compiles it with `ge-atc`, runs
it with `ge-run --trace` (the JIT) and `ge-run --reference`, and compares
both with onnxruntime's outputs (`conformance/suite.py`'s harness: floats
`rtol=1e-3, atol=1e-4`, bfloat16/float8 at two units of their rounding,
NaN and infinities in place, everything else exact); it fails when any
part ran outside the JIT. `atc_error` is the one-line error `ge-atc` gives
for a bad model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from conformance.suite import Case, Status, run_case
from onnx import helper, numpy_helper

from tools import ge_atc

ort = pytest.importorskip("onnxruntime")


def one_node_model(
    op_type: str,
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str] = ("y",),
    initializers: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
    domain: str = "",
    **attributes: object,
) -> onnx.ModelProto:
    """A model of one `op_type` node reading `inputs` (graph inputs) then
    `initializers` (constants); an empty name is an omitted optional input.
    A node of another `domain` (`ai.onnx.ml`) is at that domain's opset 3."""
    initializers = dict(initializers or {})
    names = [*inputs, *initializers]
    graph = helper.make_graph(
        [
            helper.make_node(
                op_type, names, list(outputs), name=op_type, domain=domain, **attributes
            )
        ],
        "one_node",
        [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape
            )
            for name, array in inputs.items()
        ],
        [helper.make_empty_tensor_value_info(name) for name in outputs],
        [numpy_helper.from_array(a, name) for name, a in initializers.items() if name],
    )
    opsets = [helper.make_opsetid("", opset)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 3))
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def onnxruntime_outputs(
    model: onnx.ModelProto, inputs: Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    """What onnxruntime computes for `model`."""
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(inputs))


def with_output_types(
    model: onnx.ModelProto, outputs: Sequence[np.ndarray]
) -> onnx.ModelProto:
    """A copy of `model` whose graph outputs declare the dtypes and shapes
    of `outputs` (ge-atc wants typed outputs)."""
    typed = onnx.ModelProto()
    typed.CopyFrom(model)
    for output, array in zip(typed.graph.output, outputs, strict=True):
        output.CopyFrom(
            helper.make_tensor_value_info(
                output.name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape
            )
        )
    return typed


def assert_runs_on_the_jit(
    model: onnx.ModelProto,
    inputs: Mapping[str, np.ndarray],
    workdir: Path,
    expected: Sequence[np.ndarray] | None = None,
) -> None:
    """`ge-atc` + `ge-run` (JIT and reference) give `expected` (default:
    onnxruntime's outputs), and every op ran on the JIT; the graph's
    outputs are declared with the expected dtypes and shapes."""
    if expected is None:
        expected = onnxruntime_outputs(model, inputs)
    typed = with_output_types(model, expected)
    case = Case("case", "op", typed, tuple(inputs.values()), tuple(expected))
    outcome = run_case(case, workdir)
    assert outcome.status == Status.PASS, outcome.message


def atc_error(model: onnx.ModelProto, workdir: Path, capsys) -> str:
    """The error `ge-atc` reports for `model`: exit 1, one line naming the
    model file, no `.om` written."""
    path = workdir / "model.onnx"
    path.write_bytes(model.SerializeToString())
    output = workdir / "m"
    code = ge_atc.main([f"--model={path}", "--framework=5", f"--output={output}"])
    err = capsys.readouterr().err.strip()
    assert code == 1, err
    assert len(err.splitlines()) == 1 and err.startswith(str(path)), err
    assert not output.with_suffix(".om").exists()
    return err
