"""`ge-run` is a driver over `ge_xdsl.run`: what it runs, a user's Python
runs through the same calls; and what it asks for (issue 39): an output
folder only when outputs are written, a hint for a front end's model file,
and a `--profile` of what it runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ge_xdsl
from ge_dialect.diagnostics import GEError
from ge_xdsl.run import RunnableModel, compare_outputs, mismatch_error, profile
from ge_xdsl.serving import graph_inputs
from tools import ge_run

EXAMPLE = Path(__file__).parents[1] / "examples" / "small_cnn.onnx"


@pytest.fixture(scope="module")
def offline_model(tmp_path_factory) -> Path:
    model = ge_xdsl.compile(EXAMPLE, input_shape="input:1,3,32,32")
    return model.save(tmp_path_factory.mktemp("om") / "small_cnn.om")


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    code = ge_run.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_api_runs_what_ge_run_runs(offline_model, tmp_path, capsys):
    model = RunnableModel.load(offline_model)
    graph = model.graph()
    inputs = graph_inputs(graph, {}, random=True, seed=5)
    (ours,) = model.compile(graph).run(inputs)
    (expected,) = model.expected(inputs)
    comparisons = compare_outputs([ours], [expected], 1e-3, model.output_labels)
    assert [c.label for c in comparisons] == ["output_0 ('probs')"]
    assert mismatch_error(comparisons, 1e-3) is None
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, offline_model, "--random-inputs", "--seed", 5, "--output-dir", out
    )
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out / "probs.npy"), ours)


def test_a_mismatch_is_an_error_naming_the_output():
    ref = np.ones(4, np.float32)
    comparisons = compare_outputs([ref + 1], [ref], 1e-3, ["y"])
    assert not comparisons[0].ok and "MISMATCH" in comparisons[0].line()
    error = mismatch_error(comparisons, 1e-3)
    assert isinstance(error, GEError) and "output_0 differs" in str(error)


def test_benchmark_needs_no_output_folder(offline_model, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, offline_model, "--random-inputs", "--benchmark", 2)
    assert code == 0, err
    assert out.splitlines()[-1].startswith("benchmark: 2 runs, median ")
    assert not list(tmp_path.iterdir())


def test_outputs_to_write_need_an_output_folder(offline_model, capsys):
    code, out, err = run_cli(capsys, offline_model, "--random-inputs")
    assert code == 1 and err.count("\n") == 1
    assert "--output-dir DIR is needed to write the outputs" in err


@pytest.mark.parametrize("suffix", [".onnx", ".pb", ".onnxtxt"])
def test_a_front_end_model_gets_a_hint(suffix, tmp_path, capsys):
    path = tmp_path / f"model{suffix}"
    path.write_bytes(EXAMPLE.read_bytes())
    code, _, err = run_cli(capsys, path, "--random-inputs", "--output-dir", tmp_path)
    assert code == 1 and err.count("\n") == 1
    assert "a GE graph (.om or .mlir) expected" in err and "ge-atc --model=" in err
    assert "ge-translate --import-" in err
    with pytest.raises(GEError, match="a GE graph"):
        RunnableModel.load(path)


def test_profile_times_the_compiled_parts(offline_model, capsys):
    code, out, err = run_cli(
        capsys, offline_model, "--random-inputs", "--profile", "--benchmark", 3
    )
    assert code == 0, err
    lines = [line.removeprefix("profile: ") for line in out.splitlines()]
    assert lines[0].startswith("compile ") and "not in the runs below" in lines[0]
    assert "steady state over 3 runs" in lines[1]
    rows = {line.rsplit(maxsplit=4)[0]: line.split() for line in lines[3:]}
    assert set(rows) >= {"sunk part 0 (jit)", "total"}
    assert rows["sunk part 0 (jit)"][-4] == "3"  # once per run
    assert "ge.conv2d" not in out  # not the op-by-op kernel runtime


def test_profile_of_the_api_is_per_run(offline_model):
    model = RunnableModel.load(offline_model)
    graph = model.graph()
    inputs = graph_inputs(graph, {}, random=True)
    compiled, outputs, found = profile(lambda: model.compile(graph), inputs, runs=2)
    assert found.runs == 2 and not found.host_scheduled
    assert sum(found.steps.counts.values()) == 2 * len(compiled.parts)
    assert compiled.evaluator.profiler is None  # later runs are not timed
    assert outputs[0].shape == (1, 10)


@pytest.mark.parametrize("engine", [[], ["--reference"]], ids=["jit", "reference"])
def test_max_iterations_raises_the_loop_budget(engine, tmp_path, capsys):
    """A loop of 20000 trips is runaway under the default budget (10000) and
    runs with `--max-iterations 20000`, on the JIT and on the reference."""
    from test_bad_inputs import counted_loop

    (tmp_path / "m.mlir").write_text(counted_loop(20_000))
    np.save(tmp_path / "x.npy", np.zeros(2, np.float32))
    common = [*engine, tmp_path / "m.mlir", "--input", f"x={tmp_path / 'x.npy'}"]
    code, _, err = run_cli(capsys, *common, "--output-dir", tmp_path / "no")
    assert code == 1 and "did not finish within 10000 iterations" in err
    assert not (tmp_path / "no").exists()
    code, _, err = run_cli(
        capsys, *common, "--max-iterations", "20000", "--output-dir", tmp_path / "o"
    )
    assert code == 0, err
    outputs = sorted((tmp_path / "o").iterdir())
    assert np.array_equal(np.load(outputs[-1]), np.full(2, 20_000, np.float32))


def test_an_error_located_inside_an_om_says_how_to_see_the_ir(offline_model):
    """`MODEL.om:model:LINE:COL` points into IR the user cannot see: the
    message adds the node on that line and the command that prints it."""
    from ge_runtime.offline.om import load_offline_model
    from tools.common import with_offline_model_hint

    lines = load_offline_model(offline_model).ir.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if 'name = "' in text)
    node = lines[line - 1].split('name = "')[1].split('"')[0]
    message = with_offline_model_hint(f"{offline_model}:model:{line}:5: error: bad")
    assert message == (
        f"{offline_model}:model:{line}:5: error: bad (node '{node}', line {line} "
        f"of the IR in {offline_model}: `ge-opt {offline_model}` prints it)"
    )
    assert with_offline_model_hint("x.mlir:1:1: error: bad") == "x.mlir:1:1: error: bad"
