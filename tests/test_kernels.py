"""The kernel registry, the performance engine and profiling.

Every kernel of conv2d (jit, im2col, host) and of the matrix products (jit,
blas, host) must match the reference evaluator on storage layouts with
padding (odd channel counts), strides, dilations, fp16 and NHWC. Tuning
records are written, reused on the next run and re-measured with `retune`;
the fastest candidate wins and failing candidates are skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ge_dialect.builder import GraphBuilder
from ge_dialect.constants import derive_storage_weights
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_runtime.engines.executor import Runtime
from ge_runtime.engines.kernels import (
    KernelCall,
    KernelRegistry,
    builtin_registry,
    kernel_key,
)
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.tuning import PerfEngine, load_records, op_signature
from ge_runtime.graph_io import find_graph
from passes.format_pipeline import FormatPipelinePass
from tools import ge_run

RNG = np.random.default_rng(0)


def compile_graph(builder: GraphBuilder, weights: dict[str, np.ndarray]):
    """The built graph through the format pipeline, weights laid out."""
    module = builder.build()
    source = module.clone()
    FormatPipelinePass(data_format="NCHW").apply(make_context(), module)
    laid_out = {**weights, **derive_storage_weights(module, weights, None)}
    return source, module, laid_out


def random(shape, dtype="float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def conv_case(x_shape, w_shape, dtype="float32", bias=False, **attrs):
    """A conv2d graph (weights external) and its input."""
    b = GraphBuilder("main")
    data_format = attrs.setdefault("data_format", "NCHW")
    x = b.data(x_shape, dtype, format=data_format, name="x")
    filter_format = "HWCN" if data_format == "NHWC" else "NCHW"
    w = b.external_const("w", w_shape, dtype, format=filter_format)
    weights = {"w": random(w_shape, dtype)}
    operands = [x, w]
    if bias:
        cout = w_shape[3] if filter_format == "HWCN" else w_shape[0]
        operands.append(b.external_const("b", [cout], dtype))
        weights["b"] = random([cout], dtype)
    b.output(b.conv2d(*operands, name="conv", **attrs))
    return compile_graph(b, weights), random(x_shape, dtype)


CONV_CASES = {
    "odd-channels-stride2-bias": (
        [1, 17, 9, 9],
        [33, 17, 3, 3],
        "float32",
        True,
        {"strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1]},
    ),
    "pointwise-batch2": ([2, 3, 8, 8], [16, 3, 1, 1], "float32", False, {}),
    "fp16-dilated": (
        [1, 33, 7, 7],
        [17, 33, 3, 3],
        "float16",
        True,
        {"dilations": [1, 1, 2, 2], "pads": [2, 2, 2, 2]},
    ),
    "nhwc-hwcn-asymmetric": (
        [1, 9, 9, 17],
        [3, 3, 17, 33],
        "float32",
        False,
        {"data_format": "NHWC", "strides": [1, 2, 2, 1], "pads": [0, 1, 1, 0]},
    ),
}


def close(got: np.ndarray, expected: np.ndarray) -> None:
    tolerance = 1e-2 if expected.dtype == np.float16 else 1e-5
    scale = np.abs(expected.astype(np.float32)).max()
    error = np.abs(got.astype(np.float32) - expected.astype(np.float32)).max()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert error <= tolerance * scale, f"max error {error} vs scale {scale}"


def conv_of(module):
    return next(op for op in module.walk() if op.name == "ge.conv2d")


@pytest.mark.parametrize("case", CONV_CASES)
def test_every_conv2d_kernel_matches_the_reference(case: str):
    x_shape, w_shape, dtype, bias, attrs = CONV_CASES[case]
    (source, module, weights), x = conv_case(x_shape, w_shape, dtype, bias, **attrs)
    (expected,) = evaluate(source, {"x": x}, weights=weights)
    names = [k.name for k in builtin_registry().candidates(conv_of(module))]
    assert names == ["jit", "im2col", "host"]
    for kernel in names:
        runtime = Runtime(find_graph(module), weights, selection={"ge.conv2d": kernel})
        (got,) = runtime.run({"x": x})
        close(got, expected)


def test_grouped_conv_has_no_im2col_kernel():
    (source, module, weights), x = conv_case(
        [1, 16, 6, 6], [8, 8, 3, 3], groups=2, pads=[1, 1, 1, 1]
    )
    names = [k.name for k in builtin_registry().candidates(conv_of(module))]
    assert names == ["jit", "host"]
    with pytest.raises(
        GEError, match="has no kernel 'im2col' \\(kernels: jit, host\\)"
    ):
        Runtime(find_graph(module), weights, selection={"conv": "im2col"}).run({"x": x})


def matmul_case(op: str):
    b = GraphBuilder("main")
    if op == "matmul":  # FRACTAL_NZ operands after the pipeline
        a = b.data([5, 24], name="a")
        y = b.matmul(a, b.external_const("m", [24, 7], "float32"), name="mm")
        weights, shape = {"m": random([24, 7])}, [5, 24]
    else:  # ND, transposed operands, alpha, beta and a broadcast bias
        a = b.data([24, 5], name="a")
        m = b.external_const("m", [7, 24], "float32")
        c = b.external_const("c", [7], "float32")
        y = b.gemm(a, m, c, trans_a=True, trans_b=True, alpha=0.5, beta=2.0)
        weights = {"m": random([7, 24]), "c": random([7])}
        shape = [24, 5]
    b.output(y)
    return compile_graph(b, weights), random(shape)


@pytest.mark.parametrize("op", ["matmul", "gemm"])
def test_every_matrix_product_kernel_matches_the_reference(op: str):
    (source, module, weights), a = matmul_case(op)
    (expected,) = evaluate(source, {"a": a}, weights=weights)
    product = next(o for o in module.walk() if o.name == f"ge.{op}")
    names = [k.name for k in builtin_registry().candidates(product)]
    assert names == ["jit", "blas", "host"]
    for kernel in names:
        runtime = Runtime(find_graph(module), weights, selection={op: kernel})
        (got,) = runtime.run({"a": a})
        close(got, expected)


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------


def relu_graph():
    b = GraphBuilder("main")
    x = b.data([1, 16, 4, 4], name="x")
    b.output(b.relu(b.relu(x, name="r1"), name="r2"))
    return b.build()


def test_user_kernels_and_selection():
    module = relu_graph()
    x = random([1, 16, 4, 4])
    registry = builtin_registry()
    ran: list[str] = []

    def doubled(call: KernelCall) -> None:
        ran.append(call.op.attributes["name"].data)
        np.maximum(call.inputs[0], 0, out=call.outputs[0])
        call.outputs[0] *= 2

    registry.register("ge.relu", "doubled", doubled, dtypes={"float32"}, first=True)
    relu = next(op for op in module.walk() if op.name == "ge.relu")
    assert kernel_key(relu) == ("ge.relu", "float32", relu_format(relu))
    assert [k.name for k in registry.candidates(relu)][0] == "doubled"
    (got,) = Runtime(find_graph(module), registry=registry).run({"x": x})
    np.testing.assert_allclose(got, 4 * np.maximum(x, 0))
    assert ran == ["r1", "r2"]
    ran.clear()
    selected = Runtime(find_graph(module), registry=registry, selection={"r2": "host"})
    (got,) = selected.run({"x": x})
    np.testing.assert_allclose(got, 2 * np.maximum(x, 0))
    assert ran == ["r1"]


def relu_format(op):
    from ge_dialect.layout import layout_of

    return layout_of(op.operands[0].type)[1]


def test_kernel_restricted_to_a_dtype_is_not_a_candidate():
    registry = builtin_registry()
    registry.register("ge.relu", "fp16_only", lambda call: None, dtypes={"float16"})
    relu = next(op for op in relu_graph().walk() if op.name == "ge.relu")
    assert "fp16_only" not in [k.name for k in registry.candidates(relu)]


# ---------------------------------------------------------------------------
# The performance engine
# ---------------------------------------------------------------------------


def test_tuning_records_are_written_reused_and_remeasured(tmp_path: Path):
    records = tmp_path / "tune.json"
    (source, module, weights), x = conv_case(
        [1, 17, 9, 9], [33, 17, 3, 3], pads=[1, 1, 1, 1]
    )
    graph = find_graph(module)
    (expected,) = evaluate(source, {"x": x}, weights=weights)
    first = PerfEngine(records)
    (got,) = Runtime(graph, weights, engine=first).run({"x": x})
    close(got, expected)
    assert len(first.timed) == 3 and first.reused == []  # 2 transdata + conv
    saved = load_records(records)
    conv_record = saved[op_signature(conv_of(module))]
    assert set(conv_record.seconds) == {"jit", "im2col", "host"}
    assert conv_record.kernel == min(conv_record.seconds, key=conv_record.seconds.get)
    data = json.loads(records.read_text())
    assert data["version"] == 1 and len(data["records"]) == 3

    written = records.stat().st_mtime_ns
    again = PerfEngine(records)
    (got,) = Runtime(graph, weights, engine=again).run({"x": x})
    close(got, expected)
    assert again.timed == [] and len(again.reused) == 3
    assert records.stat().st_mtime_ns == written  # nothing new: not rewritten

    retuned = PerfEngine(records, retune=True)
    Runtime(graph, weights, engine=retuned).run({"x": x})
    assert len(retuned.timed) == 3 and retuned.reused == []


def test_engine_picks_the_fastest_and_skips_failing_kernels(tmp_path: Path):
    registry = builtin_registry()

    def slow(call: KernelCall) -> None:
        time.sleep(0.02)
        np.maximum(call.inputs[0], 0, out=call.outputs[0])

    def broken(call: KernelCall) -> None:
        raise ValueError("not implemented")

    registry.register("ge.relu", "slow", slow, first=True)
    registry.register("ge.relu", "broken", broken)
    engine = PerfEngine(tmp_path / "t.json", repeats=1)
    x = random([1, 16, 4, 4])
    (got,) = Runtime(find_graph(relu_graph()), registry=registry, engine=engine).run(
        {"x": x}
    )
    np.testing.assert_allclose(got, np.maximum(x, 0))
    assert len(engine.timed) == 1  # both relus share one signature
    (record,) = engine.records.values()
    assert record.kernel != "slow" and "slow" in record.seconds
    assert "not implemented" in record.failures["broken"]


def test_engine_keeps_the_default_unless_beaten_by_the_margin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Timed on a fake clock that each kernel advances by its cost (a timed
    test under load would be a coin toss)."""
    import types

    from ge_runtime.engines import tuning

    clock = [0.0]
    monkeypatch.setattr(
        tuning, "time", types.SimpleNamespace(perf_counter=lambda: clock[0])
    )
    registry = KernelRegistry()  # only the two kernels below

    def default(call: KernelCall) -> None:
        clock[0] += 0.010
        np.maximum(call.inputs[0], 0, out=call.outputs[0])

    def slightly_faster(call: KernelCall) -> None:
        clock[0] += 0.008
        np.maximum(call.inputs[0], 0, out=call.outputs[0])

    registry.register("ge.relu", "slightly_faster", slightly_faster, first=True)
    registry.register("ge.relu", "default", default, first=True)
    x = random([1, 16, 4, 4])
    graph = find_graph(relu_graph())
    kept = PerfEngine(tmp_path / "kept.json", repeats=3, margin=0.5)
    Runtime(graph, registry=registry, engine=kept).run({"x": x})
    (record,) = kept.records.values()
    assert record.kernel == "default"
    assert record.seconds["slightly_faster"] < record.seconds["default"]
    switched = PerfEngine(tmp_path / "switched.json", repeats=3, margin=0.0)
    Runtime(graph, registry=registry, engine=switched).run({"x": x})
    (record,) = switched.records.values()
    assert record.kernel == "slightly_faster"


def test_bad_record_file_is_one_line_error(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 7, "records": {}}')
    with pytest.raises(GEError, match="bad.json: error: invalid tuning record file"):
        PerfEngine(bad)


# ---------------------------------------------------------------------------
# ge-run, ge-opt
# ---------------------------------------------------------------------------


def small_graph_file(path: Path) -> Path:
    """An NC1HWC0 graph (17 channels): transdata, relu, max_pool, exp, transdata."""
    b = GraphBuilder("main")
    x = b.data([1, 17, 8, 8], format="NCHW", name="x")
    r = b.relu(x, name="relu")
    p = b.max_pool(
        r, ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], data_format="NCHW", name="pool"
    )
    b.output(b.exp(p, name="exp"))
    module = b.build()
    FormatPipelinePass(data_format="NCHW").apply(make_context(), module)
    path.write_text(str(module))
    return path


def run_ge_run(capsys, *args: str) -> tuple[int, str, str]:
    code = ge_run.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ge_run_profile_tune_and_kernel_flags(tmp_path: Path, capsys):
    graph = small_graph_file(tmp_path / "g.mlir")
    records = tmp_path / "tune.json"
    common = [graph, "--random-inputs", "--output-dir", tmp_path / "out", "--check"]
    code, out, err = run_ge_run(
        capsys, *common, "--profile", "--tuning-records", records
    )
    assert code == 0, err
    rows = {
        line.split()[1]: line.split() for line in out.splitlines() if "profile:" in line
    }
    assert rows["ge.transdata"][2] == "2" and rows["ge.relu"][2] == "1"
    assert rows["total"][2] == "5" and rows["total"][4] == "100.0%"
    assert "tuning: 5 op signatures timed, 0 ops reused a record" in out
    assert "check output_0" in out and ": ok" in out
    code, out, err = run_ge_run(capsys, *common, "--tuning-records", records)
    assert "tuning: 0 op signatures timed, 5 ops reused a record" in out
    code, out, err = run_ge_run(capsys, *common, "--kernel", "relu=host")
    assert code == 0, err
    code, out, err = run_ge_run(capsys, *common, "--kernel", "exp=im2col")
    assert code == 1 and err.count("\n") == 1
    assert "'ge.exp' op has no kernel 'im2col' (kernels: jit, host)" in err
    code, out, err = run_ge_run(capsys, *common, "--kernel-runtime", "--reference")
    assert code == 1 and "--reference does not go with the kernel runtime" in err
    code, out, err = run_ge_run(capsys, *common, "--profile", "--reference")
    assert code == 1 and "--profile times what ge-run runs; drop --reference" in err
    code, out, err = run_ge_run(capsys, *common, "--dump-stored")
    assert code == 1 and "--dump-stored needs --dump DIR" in err


def test_ge_opt_time_passes(tmp_path: Path):
    graph = small_graph_file(tmp_path / "g.mlir")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.ge_opt",
            graph,
            "--time-passes",
            "--ge-format-pipeline",
            "--plan-memory",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stderr.splitlines()
    assert lines[0].split() == ["pass", "count", "total", "ms", "share", "avg", "ms"]
    names = {line.split()[0] for line in lines[1:]}
    assert {"infer-shape", "insert-transdata", "plan-memory", "total"} <= names
    assert "ge.arena_size" in result.stdout
