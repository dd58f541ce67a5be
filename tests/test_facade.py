"""`import ge_xdsl`: the README's example runs as written, and each entry point
keeps its promises (names, errors, ModuleOp and ModelProto inputs)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest

import ge_xdsl
from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "examples" / "small_cnn.onnx"


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Python API", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs(tmp_path: Path, monkeypatch, capsys):
    pytest.importorskip("onnxruntime")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(readme_example(), "README.md", "exec"), {})
    assert (tmp_path / "build" / "small_cnn.om").is_file()
    assert "ge.transdata" in capsys.readouterr().out  # print(model.module)


def test_compile_takes_a_model_proto_and_names_inputs_and_outputs():
    model = ge_xdsl.compile(onnx.load(EXAMPLE), input_shape={"input": (1, 3, 32, 32)})
    assert model.input_names == ["input"] and model.output_names == ["probs"]
    assert model.manifest["compile_options"]["input_shape"] == "input:1,3,32,32"
    x = np.zeros((1, 3, 32, 32), np.float32)
    (probs,) = model.run({"input": x}).values()
    assert probs.shape == (1, 10)
    expected = ge_xdsl.reference(model.module, {"input": x}, weights=model.weights)
    assert np.allclose(expected["probs"], probs, atol=1e-6)


def test_compile_takes_a_module_and_keys_unnamed_outputs_by_position(tmp_path):
    b = GraphBuilder("main")
    x = b.data([1, 17, 5, 5], "float32", name="x")
    w = b.const(np.random.default_rng(0).standard_normal((3, 17, 3, 3), np.float32))
    b.output(b.relu(b.conv2d(x, w, data_format="NCHW")), b.neg(x))
    module = b.build()
    model = ge_xdsl.compile(module, soc_version="Ascend310")
    assert model.output_names == ["output_0", "output_1"]
    assert model.manifest["framework"] == "mlir"
    image = np.random.default_rng(1).standard_normal((1, 17, 5, 5), np.float32)
    ours = model.run({"x": image})
    expected = ge_xdsl.reference(module, {"x": image})
    for key in ("output_0", "output_1"):
        assert np.allclose(ours[key], expected[key], atol=1e-5)
    loaded = ge_xdsl.load(model.save(tmp_path / "deep" / "m.om"))
    assert str(loaded.module) == str(model.module)


def test_apply_passes_leaves_its_input_alone_and_reports_bad_pipelines():
    module = ge_xdsl.parse((ROOT / "examples" / "conv_block.mlir").read_text())
    text = str(module)
    laid_out = ge_xdsl.apply_passes(module, "infer-origin-format{data_format=NCHW}")
    assert str(module) == text and "#ge.layout<NCHW>" in str(laid_out)
    with pytest.raises(GEError, match="did you mean 'infer-origin-format'"):
        ge_xdsl.apply_passes(module, "infer-orgin-format")
    with pytest.raises(GEError, match="has no option 'data-fromat'"):
        ge_xdsl.apply_passes(module, "infer-origin-format{data-fromat=NCHW}")


def test_bad_options_and_inputs_are_clear_errors():
    with pytest.raises(TypeError, match="did you mean 'soc_version'"):
        ge_xdsl.compile(EXAMPLE, soc_verison="Ascend910")
    with pytest.raises(GEError, match="--input_format=NCHX is not supported"):
        ge_xdsl.compile(EXAMPLE, input_format="NCHX")
    with pytest.raises(GEError, match="cannot tell the framework"):
        ge_xdsl.compile("model.caffemodel")
    with pytest.raises(
        GEError, match=r"^bad\.mlir:1:6: error: Operation hello is not registered"
    ):
        ge_xdsl.parse("hello", name="bad.mlir")
    model = ge_xdsl.compile(EXAMPLE)
    with pytest.raises(GEError, match="has no input 'image'"):
        model.run({"image": np.zeros((1, 3, 32, 32), np.float32)})


def test_import_ge_xdsl_is_light():
    import subprocess
    import sys

    code = "import sys, ge_xdsl; print('numpy' in sys.modules, 'passes' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]


def test_set_threads_sets_the_kernels_and_the_blas():
    from ge_runtime.jit.emit import c
    from ge_runtime.threads import blas_threads

    try:
        assert ge_xdsl.set_threads(1) == 1
        assert c.kernel_threads() == 1
        assert blas_threads() in (None, 1)
    finally:
        assert ge_xdsl.set_threads() == c.available_cores()  # the default
    if not c.openmp_missing():
        assert c.kernel_threads() == c.available_cores()
