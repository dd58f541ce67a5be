"""An offline model sunk whole runs from its plan: no IR parsed, nothing
lowered (`ge_runtime.engines.served`, `ge_xdsl.serving.serve`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_offline_model import with_kernel_payload

from ge_dialect.diagnostics import GEError
from ge_runtime.engines.served import ServedModel
from ge_runtime.jit import compiler
from ge_runtime.jit.cache import bundle
from ge_runtime.offline import om, om_ir
from ge_xdsl.run import RunnableModel
from ge_xdsl.serving import graph_inputs, serve
from tools import ge_run


def fresh_cache(tmp_path: Path, monkeypatch) -> Path:
    """An empty code cache for this test (nothing compiled in memory either)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GE_XDSL_CACHE", str(cache))
    monkeypatch.setattr(compiler, "_GRAPHS", {})
    return cache


def test_the_plan_runs_the_model_without_parsing_or_compiling(
    tmp_path: Path, monkeypatch
) -> None:
    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    expected_model = RunnableModel.load(path)
    graph = expected_model.graph()
    inputs = graph_inputs(graph, {}, random=True, seed=3)
    (expected,) = expected_model.compile(graph).run(inputs)

    def refused(*args, **kwargs):
        raise AssertionError("the served path parsed or compiled")

    monkeypatch.setattr(om_ir, "_parse", refused)
    monkeypatch.setattr(compiler, "_compile_new", refused)
    monkeypatch.setattr(compiler, "lowered_module", refused)
    fresh_cache(tmp_path / "again", monkeypatch)
    served = serve(path)
    assert isinstance(served, ServedModel)
    assert [spec.name for spec in served.specs] == ["input"]
    (ours,) = served.run(inputs)
    np.testing.assert_array_equal(ours, expected)
    (by_name,) = served.run({"input": inputs[0]})  # random inputs: by index
    np.testing.assert_array_equal(by_name, expected)


def test_served_inputs_are_checked(tmp_path: Path, monkeypatch) -> None:
    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    served = serve(path)
    assert isinstance(served, ServedModel)
    with pytest.raises(GEError, match=r"input #0 \('input'\) has shape \[2, 3\]"):
        served.run({"input": np.zeros((2, 3), np.float32)})
    with pytest.raises(GEError, match=r"input #0 \('input'\) is missing"):
        served.run({})
    with pytest.raises(GEError, match=r"has no input 'x' \(inputs: #0 \('input'\)\)"):
        served.run({"x": np.zeros((2, 3, 32, 32), np.float32)})


def test_kernels_for_another_machine_load_the_ir(tmp_path: Path, monkeypatch) -> None:
    def for_riscv(payload: bytes) -> bytes:
        (length,) = bundle.LENGTH.unpack_from(payload)
        start = bundle.LENGTH.size
        index = json.loads(payload[start : start + length])
        index["built_for"]["machine"] = "riscv64|flags : rv64gc"
        text = json.dumps(index).encode()
        return bundle.LENGTH.pack(len(text)) + text + payload[start + length :]

    path = with_kernel_payload(tmp_path, for_riscv)
    fresh_cache(tmp_path, monkeypatch)
    model = serve(path)
    assert isinstance(model, RunnableModel)
    (note,) = model.notes
    assert "built for riscv64" in note


def test_a_model_without_kernels_or_plan_is_loaded(tmp_path: Path, monkeypatch) -> None:
    from test_offline_model import compiled_small_cnn

    _, _, path = compiled_small_cnn(tmp_path)  # no kernels, no plan: older files
    fresh_cache(tmp_path, monkeypatch)
    model = serve(path)
    assert isinstance(model, RunnableModel) and model.notes == []
    assert "plan" not in model.offline.manifest


def test_a_plan_whose_code_is_not_in_the_cache_is_not_served(
    tmp_path: Path, monkeypatch
) -> None:
    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    offline = om.load_offline_model(path)  # kernels not installed
    assert offline.manifest["plan"]["entry"]
    assert ServedModel.load(offline) is None


def test_ge_run_serves_and_checks_alike(tmp_path: Path, monkeypatch, capsys) -> None:
    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    for folder, flags in (("served", []), ("checked", ["--check"])):
        code = ge_run.main(
            [str(path), "--random-inputs", f"--output-dir={tmp_path / folder}", *flags]
        )
        assert code == 0, capsys.readouterr().err
    (name,) = [p.name for p in (tmp_path / "served").iterdir()]
    np.testing.assert_array_equal(
        np.load(tmp_path / "served" / name), np.load(tmp_path / "checked" / name)
    )


def test_the_python_api_runs_from_the_plan(tmp_path: Path, monkeypatch) -> None:
    import ge_xdsl

    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    x = np.random.default_rng(4).standard_normal((2, 3, 32, 32)).astype(np.float32)
    expected = RunnableModel.load(path)
    (reference,) = expected.compile(expected.graph()).run({"input": x})

    def refused(*args, **kwargs):
        raise AssertionError("Model.run parsed the IR")

    monkeypatch.setattr(om_ir, "_parse", refused)
    fresh_cache(tmp_path / "again", monkeypatch)
    (ours,) = ge_xdsl.load(path).run({"input": x}).values()
    np.testing.assert_array_equal(ours, reference)


def test_the_plan_is_checked_against_the_memory_budget(
    tmp_path: Path, monkeypatch
) -> None:
    from ge_dialect.limits import budget_of

    path = with_kernel_payload(tmp_path)
    fresh_cache(tmp_path, monkeypatch)
    plan = om.load_offline_model(path).manifest["plan"]
    assert plan["largest"]["bytes"] > 1024 and plan["largest"]["node"]
    with budget_of(1024), pytest.raises(GEError) as info:
        serve(path)
    assert str(info.value).startswith(f"{path}: error: the result of '")
    assert "over the memory budget of 1.0 KiB" in str(info.value)


COMPILER_MODULES = ("xdsl", "ge_dialect.ops", "ge_dialect.dialect", "passes")
"""What a served run never imports: xDSL, the `ge` ops, the passes."""

SERVED_RUN = """
import sys
{run}
loaded = sorted(
    name for name in sys.modules
    if any(name == m or name.startswith(m + ".") for m in {modules!r})
)
assert not loaded, f"a served run imported {{loaded[:8]}}"
"""


def served_script_passes(script: str, cache: Path) -> None:
    """`script`, followed by `SERVED_RUN`'s check, passes in a new process
    with the code cache `cache`."""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "GE_XDSL_CACHE": str(cache),
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    script = SERVED_RUN.format(run=script, modules=COMPILER_MODULES)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_copy_on_the_kernels_threads_imports_no_compiler(tmp_path: Path) -> None:
    """A large relayout copy split over the kernels' threads (a packed
    weight's, made when a served model is bound: magika's) compiles its C
    copy without the code generator: no xDSL imported."""
    served_script_passes(
        "import numpy as np\n"
        "from ge_runtime.jit import c_runtime, runtime\n"
        "c_runtime.set_kernel_threads(2)\n"
        "source = np.arange(33 * 17 * 100 * 3, dtype=np.float32)\n"
        "source = source.reshape(33, 17, 3, 100).transpose(0, 1, 3, 2)\n"
        "assert source.nbytes >= runtime.PARALLEL_COPY_BYTES\n"
        "target = np.empty(source.shape, np.float32)\n"
        "runtime.copy_into(target, source)\n"
        "assert np.array_equal(target, source)\n",
        tmp_path / "cache",
    )


def test_the_runtime_s_copy_kernel_comes_with_the_om(tmp_path: Path) -> None:
    """An `.om` with C kernels carries the runtime's own (the copy on the
    kernels' threads): a new process with an empty code cache installs the
    `.om`'s kernels and loads that copy without compiling it."""
    path = with_kernel_payload(tmp_path)
    served_script_passes(
        "from ge_runtime.engines.served import install_kernels\n"
        "from ge_runtime.jit import c_runtime, runtime\n"
        "from ge_runtime.offline.om import load_offline_model\n"
        f"assert install_kernels(load_offline_model({str(path)!r})) is None\n"
        "def compiled(*_):\n"
        "    raise AssertionError('a kernel compiled at run time')\n"
        "c_runtime._compile = compiled\n"
        "runtime._copy_kernel()\n",
        tmp_path / "cache",
    )


@pytest.mark.parametrize("caller", ["ge-run", "ge_xdsl.load"])
def test_a_served_run_imports_no_compiler(tmp_path: Path, caller: str) -> None:
    """In a new process, with an empty code cache: `ge-run M.om` and
    `ge_xdsl.load(M.om).run` load the kernels from the `.om` and run, and
    neither imports xDSL, the `ge` ops nor the passes."""
    path = with_kernel_payload(tmp_path)
    out = tmp_path / "out"
    run = {
        "ge-run": "from tools import ge_run\n"
        f"assert ge_run.main([{str(path)!r}, '--random-inputs', "
        f"'--output-dir={out}']) == 0",
        "ge_xdsl.load": "import numpy as np\nimport ge_xdsl\n"
        "x = np.zeros((2, 3, 32, 32), np.float32)\n"
        f"(y,) = ge_xdsl.load({str(path)!r}).run({{'input': x}}).values()\n"
        "assert y.shape == (2, 10), y.shape",
    }[caller]
    served_script_passes(run, tmp_path / "cache")  # empty: kernels from the .om
    assert list((tmp_path / "cache").rglob("*.so")), "the .om's kernels were not used"
    if caller == "ge-run":
        assert [p.suffix for p in out.iterdir()] == [".npy"]
