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


BAD_ARGUMENTS = [
    (lambda: ge_xdsl.compile(EXAMPLE, input_shape=5), "compile", "input_shape"),
    (
        lambda: ge_xdsl.compile(EXAMPLE, input_shape={"x": [1, "a"]}),
        "compile",
        "input_shape['x']",
    ),
    (lambda: ge_xdsl.compile(EXAMPLE, soc_version=910), "compile", "soc_version"),
    (lambda: ge_xdsl.compile(EXAMPLE, framework=5.0), "compile", "framework"),
    (lambda: ge_xdsl.compile(EXAMPLE, weights=[1]), "compile", "weights"),
    (lambda: ge_xdsl.load(5), "load", "path"),
    (lambda: ge_xdsl.parse(b"ge.graph"), "parse", "text"),
    (lambda: ge_xdsl.parse("", name=None), "parse", "name"),
    (lambda: ge_xdsl.apply_passes("ge.graph", "infer-shape"), "apply_passes", "module"),
    (lambda: ge_xdsl.reference("ge.graph", {}), "reference", "module"),
]


@pytest.mark.parametrize(
    ("call", "function", "argument"),
    BAD_ARGUMENTS,
    ids=[f"{function}-{argument}" for _, function, argument in BAD_ARGUMENTS],
)
def test_every_api_function_names_a_bad_argument(call, function, argument):
    with pytest.raises(GEError) as error:
        call()
    assert str(error.value).startswith(
        f"error: ge_xdsl.{function}: argument '{argument}' must be"
    )


def test_api_errors_are_ge_errors_not_python_ones(tmp_path: Path):
    with pytest.raises(GEError, match=r"ge_xdsl.load: cannot access 'nope.om': No su"):
        ge_xdsl.load("nope.om")
    module = ge_xdsl.parse((ROOT / "tests/bad_inputs/valid.mlir").read_text())
    with pytest.raises(GEError, match="pipeline"):
        ge_xdsl.apply_passes(module, 5)
    with pytest.raises(GEError, match="argument 'inputs' must be a mapping"):
        ge_xdsl.reference(module, [np.zeros((1, 3, 4, 4), np.float32)])
    model = ge_xdsl.load(ROOT / "tests/bad_inputs/om-valid.om")
    with pytest.raises(GEError, match="Model.run: argument 'inputs' must be a mapp"):
        model.run([np.zeros((1, 3, 4, 4), np.float32)])
    with pytest.raises(GEError, match=r"argument 'inputs\['x'\]' must be an array"):
        model.run({"x": "zeros"})


LOOP = """<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y)
{
  n = Constant <value = int64 {20000}> ()
  c = Constant <value = bool {1}> ()
  y = Loop (n, c, x) <body = body (int64 i, bool cin, float[2] v) => (bool cout,
    float[2] w) {
    cout = Identity (cin)
    one = Constant <value = float {1.0}> ()
    w = Add (v, one)
  }>
}
"""


def test_the_iteration_budget_is_an_option_of_load_run_and_reference(tmp_path):
    """A valid 20,000-trip Loop runs out of the default budget (10,000) and
    runs within a raised one, on the JIT and in the reference."""
    (tmp_path / "loop.onnxtxt").write_text(LOOP)
    model = ge_xdsl.compile(tmp_path / "loop.onnxtxt", framework="onnx")
    x = {"x": np.zeros(2, np.float32)}
    expected = np.full(2, 20000, np.float32)
    with pytest.raises(GEError, match="raise the limit with --max-iterations"):
        model.run(x)
    np.testing.assert_array_equal(model.run(x, max_iterations=20000)["y"], expected)
    model.save(tmp_path / "loop.om")
    loaded = ge_xdsl.load(tmp_path / "loop.om", max_iterations=20001)
    np.testing.assert_array_equal(loaded.run(x)["y"], expected)
    with pytest.raises(GEError, match="did not finish within 10000 iterations"):
        ge_xdsl.reference(model.module, x)
    result = ge_xdsl.reference(model.module, x, max_iterations=20000)
    np.testing.assert_array_equal(result["y"], expected)
    with pytest.raises(GEError, match="max_iterations must be positive"):
        model.run(x, max_iterations=0)


def test_import_ge_xdsl_is_light():
    import subprocess
    import sys

    code = "import sys, ge_xdsl; print('numpy' in sys.modules, 'passes' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]


def test_set_threads_sets_the_kernels_and_the_blas():
    from ge_runtime.engines.threads import blas_threads
    from ge_runtime.jit import c_runtime

    try:
        assert ge_xdsl.set_threads(1) == 1
        assert c_runtime.kernel_threads() == 1
        assert blas_threads() in (None, 1)
    finally:
        assert ge_xdsl.set_threads() == c_runtime.available_cores()  # the default
    if not c_runtime.openmp_missing():
        assert c_runtime.kernel_threads() == c_runtime.available_cores()
