"""Every engine runs every stage of the format pipeline on a model with
external weights (issue 39).

`select-storage-format` gives a weight read in a storage format a constant
of its own (`#ge.external<"w@FRACTAL_Z:float32">`, `storage_of = "w"`) whose
array is laid out when the weights are loaded. `graph_io.storage_weights`
does that for every engine: the reference evaluator (`evaluate`,
`ge_xdsl.reference`, `ge-run --reference`), the scheduler and its JIT
(`compile_model`, `ge-run`) and `ge-run --check`. The storage layouts follow
the module's `ge.target` (Ascend910: C0 16 for float32, not the default 8).
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.printer import Printer

import ge_xdsl
from ge_dialect.verification import verify_module
from ge_frontend.onnx_import import import_onnx
from ge_runtime.engines.scheduler import compile_model
from ge_runtime.graph_io import WEIGHTS_ATTRIBUTE
from ge_runtime.npy import npz_bytes
from passes.format_pipeline import (
    BEYOND_GE,
    GE_OPTIMISATION,
    PREPARATION,
    FormatPipelinePass,
)
from tools import ge_run

EXAMPLE = Path(__file__).parents[1] / "examples" / "small_cnn.onnx"
TARGET = "Ascend910"
STAGES = (*PREPARATION, *GE_OPTIMISATION, *BEYOND_GE)
"""The pipeline's passes: preparation, then one optimisation round."""
BATCH = 2


def module_text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream).print_op(module)
    return stream.getvalue() + "\n"


@pytest.fixture(scope="module")
def pipeline_stages(tmp_path_factory) -> dict[str, tuple[ModuleOp, Path]]:
    """The small CNN (its large weights external) after each pipeline pass:
    the module, and its `.mlir` file next to the weights it names."""
    folder = tmp_path_factory.mktemp("stages")
    imported = import_onnx(EXAMPLE, input_shapes={"input": [BATCH, 3, 32, 32]})
    assert imported.weights, "the example must keep weights outside the IR"
    (folder / "weights.npz").write_bytes(npz_bytes(imported.weights))
    module = imported.module
    module.attributes[WEIGHTS_ATTRIBUTE] = StringAttr("weights.npz")
    pipeline = FormatPipelinePass(target=TARGET)
    stages = {}
    for number, name in enumerate(STAGES):
        pipeline.inner_pass(name).apply(ge_xdsl.context(), module)
        verify_module(module)
        path = folder / f"{number:02}_{name}.mlir"
        path.write_text(module_text(module))
        stages[name] = (module.clone(), path)
    return stages


@pytest.fixture(scope="module")
def imported_weights() -> dict[str, np.ndarray]:
    return import_onnx(EXAMPLE).weights


@pytest.fixture(scope="module")
def example_input(tmp_path_factory) -> tuple[np.ndarray, np.ndarray, Path]:
    """An input, onnxruntime's output for it, and the input as a `.npy`."""
    x = np.random.default_rng(39).standard_normal((BATCH, 3, 32, 32))
    x = x.astype(np.float32)
    session = onnxruntime.InferenceSession(str(EXAMPLE))
    (expected,) = session.run(None, {"input": x})
    path = tmp_path_factory.mktemp("input") / "x.npy"
    np.save(path, x)
    return x, expected, path


def test_the_pipeline_derives_storage_weights(pipeline_stages):
    module, _ = pipeline_stages["insert-transdata"]
    derived = [
        op.attributes["storage_of"]
        for op in module.walk()
        if "storage_of" in op.attributes
    ]
    assert derived, "no weight got a storage-layout copy: the tests test nothing"


@pytest.mark.parametrize("stage", STAGES)
def test_reference_and_jit_run_every_stage(
    stage, pipeline_stages, imported_weights, example_input
):
    module, _ = pipeline_stages[stage]
    x, expected, _ = example_input
    (reference,) = ge_xdsl.reference(
        module, {"input": x}, weights=imported_weights
    ).values()
    np.testing.assert_allclose(reference, expected, rtol=1e-4, atol=1e-5)
    (jit,) = compile_model(module, imported_weights).run({"input": x})
    np.testing.assert_allclose(jit, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("stage", STAGES)
def test_ge_run_reference_and_check_run_every_stage(
    stage, pipeline_stages, example_input, tmp_path, capsys
):
    _, path = pipeline_stages[stage]
    _, expected, x_path = example_input
    argv = [str(path), "--input", f"input={x_path}"]
    reference_dir, check_dir = tmp_path / "reference", tmp_path / "check"
    assert ge_run.main([*argv, "--reference", "--output-dir", str(reference_dir)]) == 0
    assert ge_run.main([*argv, "--check", "--output-dir", str(check_dir)]) == 0
    assert "check output_0" in capsys.readouterr().out
    for folder in (reference_dir, check_dir):
        result = np.load(folder / "probs.npy")
        np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-5)


def test_host_scheduling_reads_storage_weights(imported_weights, example_input):
    """A dynamic batch: the graph runs op by op, constants read by the walk."""
    x, expected, _ = example_input
    imported = import_onnx(EXAMPLE)
    laid_out = ge_xdsl.apply_passes(
        imported.module, f"ge-format-pipeline{{target={TARGET}}}"
    )
    model = compile_model(laid_out, imported_weights)
    assert model.mode == "host"
    (result,) = model.run({"input": x})
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-5)
