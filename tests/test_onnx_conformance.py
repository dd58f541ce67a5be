"""ONNX's backend node suite through `ge-atc` + `ge-run` (`conformance/suite.py`).

The default run takes a fixed sample that covers every op family and every
way the expectation file says its cases end; `-m slow` runs the whole
suite. Both fail when a case ends differently from
`tests/conformance/expected.txt` (a case that starts passing too: the file
must say so). Below them: tests of the harness itself (it must catch wrong
numbers, reference fallbacks, crashes) and regression tests for the bugs
the suite found.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from conformance.suite import (
    EXPECTATIONS,
    UPDATE_HINT,
    Case,
    Status,
    ToolRun,
    differences,
    load_cases,
    mismatch,
    non_jit_parts,
    read_expectations,
    run_case,
    run_cases,
    sample,
    table,
    write_expectations,
)
from onnx import TensorProto, helper, numpy_helper

from ge_runtime import npy
from tools import ge_run

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(scope="module")
def cases() -> tuple[Case, ...]:
    return load_cases()


@pytest.fixture(scope="module")
def expected() -> dict[str, tuple[Status, str]]:
    version, entries = read_expectations()
    assert version == onnx.__version__, (
        f"{EXPECTATIONS.name} was made with onnx {version}, onnx "
        f"{onnx.__version__} is installed: {UPDATE_HINT}"
    )
    return entries


def report(changed: list[str]) -> str:
    shown = "\n".join(changed[:40])
    more = f"\n... and {len(changed) - 40} more" if len(changed) > 40 else ""
    return f"{len(changed)} cases changed:\n{shown}{more}\n{UPDATE_HINT}"


# ---------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------


def test_sample_ends_as_the_expectations_say(cases, expected, tmp_path: Path) -> None:
    chosen = sample(cases, expected)
    assert {c.family for c in chosen} == {c.family for c in cases}
    changed = differences(run_cases(chosen, tmp_path), expected)
    assert not changed, report(changed)


@pytest.mark.slow
def test_whole_suite_ends_as_the_expectations_say(
    cases, expected, tmp_path: Path
) -> None:
    outcomes = run_cases(cases, tmp_path)
    print("\n".join(table(outcomes)))
    if os.environ.get("GE_CONFORMANCE_UPDATE"):
        write_expectations(outcomes)
        return
    changed = differences(outcomes, expected)
    gone = sorted(set(expected) - {c.name for c in cases})
    changed += [f"{name}: in the expectation file, not in the suite" for name in gone]
    assert not changed, report(changed)


def test_expectations_hold_no_wrong_result_or_crash(cases, expected) -> None:
    """The issue's bar: every case passes or is refused with one clear line."""
    names = {c.name for c in cases}
    assert set(expected) <= names, sorted(set(expected) - names)[:5]
    bad = [
        f"{name}: {status} {message}"
        for name, (status, message) in expected.items()
        if status in (Status.WRONG, Status.CRASH, Status.PASS)
    ]
    assert not bad, bad[:10]
    unclear = [
        f"{name}: {message}"
        for name, (status, message) in expected.items()
        if status is Status.REFUSED and ": error: " not in message
    ]
    assert not unclear, unclear[:10]


# ---------------------------------------------------------------------------
# The harness catches what it must
# ---------------------------------------------------------------------------


def one_node_case(
    op_type: str,
    inputs: dict[str, np.ndarray],
    outputs: dict[str, np.ndarray],
    *,
    opset: int = 18,
    initializers: dict[str, np.ndarray] | None = None,
    **attributes: object,
) -> Case:
    """A case of one node over `inputs` (graph inputs) and `initializers`."""
    initializers = initializers or {}
    node = helper.make_node(
        op_type, [*inputs, *initializers], list(outputs), **attributes
    )

    def info(name: str, array: np.ndarray) -> onnx.ValueInfoProto:
        element = helper.np_dtype_to_tensor_dtype(array.dtype)
        return helper.make_tensor_value_info(name, element, array.shape)

    graph = helper.make_graph(
        [node],
        f"test_{op_type.lower()}",
        [info(n, a) for n, a in inputs.items()],
        [info(n, a) for n, a in outputs.items()],
        [numpy_helper.from_array(a, n) for n, a in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return Case(
        f"test_{op_type.lower()}",
        op_type,
        model,
        tuple(inputs.values()),
        tuple(outputs.values()),
    )


def abs_case(expected: np.ndarray | None = None) -> Case:
    x = np.linspace(-3, 3, 17, dtype=np.float32).reshape(1, 17)
    return one_node_case(
        "Abs", {"x": x}, {"y": np.abs(x) if expected is None else expected}
    )


def test_a_right_case_passes(tmp_path: Path) -> None:
    outcome = run_case(abs_case(), tmp_path)
    assert (outcome.status, outcome.message) == (Status.PASS, "")


def test_a_wrong_output_is_wrong(tmp_path: Path) -> None:
    x = np.linspace(-3, 3, 17, dtype=np.float32).reshape(1, 17)
    expected = np.abs(x)
    expected[0, 5] += 1e-2
    outcome = run_case(abs_case(expected), tmp_path)
    assert outcome.status is Status.WRONG
    assert outcome.message.startswith(
        "jit: output 0: 1 of 17 elements off, first at [0, 5]"
    )


def test_a_part_on_the_reference_evaluator_is_not_a_pass(
    tmp_path: Path, monkeypatch
) -> None:
    from ge_runtime.engines import scheduler
    from ge_runtime.jit.ops import JITError

    def refuse(*args: object, **kwargs: object) -> None:
        raise JITError("forced")

    monkeypatch.setattr(scheduler, "compile_graph", refuse)
    outcome = run_case(abs_case(), tmp_path)
    assert outcome.status is Status.NOT_JIT
    assert outcome.message == "ge-run --trace: sunk (part 0, reference: forced): ge.abs"


def test_an_unsupported_op_is_refused_in_one_line(tmp_path: Path) -> None:
    case = one_node_case(
        "RandomUniformLike",
        {"x": np.ones((3,), np.float32)},
        {"y": np.zeros(3, np.float32)},
    )
    outcome = run_case(case, tmp_path)
    assert outcome.status is Status.REFUSED
    assert outcome.message == (
        "test_randomuniformlike/model.onnx: error: unsupported ONNX ops: "
        "RandomUniformLike (nodes: y)"
    )


def test_an_internal_error_is_a_crash(tmp_path: Path, monkeypatch) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(ge_run, "run_scheduled", explode)
    outcome = run_case(abs_case(), tmp_path)
    assert outcome.status is Status.CRASH
    assert "internal error: RuntimeError: boom" in outcome.message


@pytest.mark.parametrize(
    ("got", "want", "verdict"),
    [
        (np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), None),
        (np.array([1.0, 1.0]), np.array([np.nan, 1.0]), "1 of 2 elements off"),
        (np.array([np.inf]), np.array([-np.inf]), "1 of 1 elements off"),
        (np.array([1.0 + 1e-3]), np.array([1.0]), None),
        (np.array([1.0 + 3e-3]), np.array([1.0]), "1 of 1 elements off"),
        (np.array([1e-4]), np.array([0.0]), None),
        (np.array([1, 2]), np.array([1, 3]), "1 of 2 elements differ"),
        (
            np.array([1.0], np.float32),
            np.array([1.0]),
            "dtype float32, expected float64",
        ),
        (np.zeros((2, 3)), np.zeros((3, 2)), "shape [2, 3], expected [3, 2]"),
        (np.array([1], ml_dtypes.int4), np.array([-1], ml_dtypes.int4), "differ"),
        (np.array([1.5], BF16), np.array([1.5], BF16), None),
        # bfloat16 (eps 2**-7) within two units of its rounding, not three
        (np.array([0.55859375], BF16), np.array([0.5625], BF16), None),
        (np.array([1.0 + 2**-6], BF16), np.array([1.0], BF16), None),
        (np.array([1.0 + 3 * 2**-7], BF16), np.array([1.0], BF16), "1 of 1"),
        # float16's eps is below 1e-3: compared at rtol 1e-3 as before
        (np.array([1.0 + 2**-9], np.float16), np.array([1.0], np.float16), "1 of 1"),
    ],
)
def test_mismatch(got: np.ndarray, want: np.ndarray, verdict: str | None) -> None:
    found = mismatch(got, want)
    assert found == verdict if verdict is None else verdict in found


def test_non_jit_parts_groups_ops_by_how_they_ran() -> None:
    trace = (
        "schedule: sink scheduling: 2 sunk part(s), 1 fallback op(s)\n"
        "trace: a ge.add AICore sunk (part 0, jit) -> 3\n"
        "trace: g ge.broadcast_to AICPU fallback (BroadcastToOp.numpy_kernel) -> 3\n"
        "trace: b ge.div AICore sunk (part 1, reference: no lowering) -> 3\n"
        "trace: c ge.mul AICore sunk (part 1, reference: no lowering) -> 3\n"
        "trace: d ge.mul AICore host kernel (jit kernel for 3) -> 3\n"
    )
    assert non_jit_parts(ToolRun(0, trace, "")) == (
        "ge-run --trace: fallback (BroadcastToOp.numpy_kernel): ge.broadcast_to; "
        "sunk (part 1, reference: no lowering): ge.div, ge.mul"
    )
    assert non_jit_parts(ToolRun(0, trace.split("trace: g")[0], "")) is None


# ---------------------------------------------------------------------------
# Regressions the suite found
# ---------------------------------------------------------------------------


def test_int8_clip_keeps_its_dtype(tmp_path: Path) -> None:
    """Clip on int8 promoted to float64 in the reference (infinite default bounds)."""
    x = np.array([-128, -100, -3, 0, 5, 90, 127], np.int8)
    unbounded = one_node_case("Clip", {"x": x}, {"y": x})
    outcome = run_case(unbounded, tmp_path)
    assert (outcome.status, outcome.message) == (Status.PASS, "")
    bounds = {"lo": np.array(-5, np.int8), "hi": np.array(90, np.int8)}
    clipped = one_node_case(
        "Clip", {"x": x}, {"y": np.clip(x, -5, 90)}, initializers=bounds
    )
    outcome = run_case(clipped, tmp_path / "bounded")
    assert (outcome.status, outcome.message) == (Status.PASS, ""), outcome.message


@pytest.mark.parametrize("target", [TensorProto.INT4, TensorProto.UINT4])
def test_float_to_4_bit_cast_runs(target: int, tmp_path: Path) -> None:
    """FLOAT -> INT4 compiled but failed at run time (int4 held two ways)."""
    x = np.arange(-9, 8, dtype=np.float32).reshape(1, 17)
    dtype = helper.tensor_dtype_to_np_dtype(target)
    case = one_node_case("Cast", {"x": x}, {"y": x.astype(dtype)}, to=target)
    outcome = run_case(case, tmp_path)
    assert (outcome.status, outcome.message) == (Status.PASS, "")


def test_bfloat16_inputs_and_outputs_go_through_npy(tmp_path: Path) -> None:
    """A `np.save`d bfloat16 input (raw |V2) is read as bfloat16, and the
    output file says bfloat16 (it was raw |V2)."""
    x = np.array([[1.5, -2.25, np.inf, -0.0, np.nan]], BF16)
    case = one_node_case("Neg", {"x": x}, {"y": -x})
    outcome = run_case(case, tmp_path)
    assert (outcome.status, outcome.message) == (Status.PASS, "")
    (written,) = (tmp_path / "test_neg" / "jit").glob("*.npy")
    assert np.load(written).dtype == BF16


@pytest.mark.parametrize(
    "dtype",
    [
        ml_dtypes.int4,
        ml_dtypes.uint4,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.bfloat16,
    ],
    ids=lambda d: np.dtype(d).name,
)
def test_narrow_dtypes_go_through_npy_both_ways(dtype, tmp_path: Path) -> None:
    """`np.save`d int4/uint4/float8/bfloat16 inputs (raw voids, float8_e5m2
    as `<f1`) are typed by the graph's inputs; the outputs name their dtype
    in the header (`ge_runtime/npy.py`), so `np.load` reads them back as the
    same ml_dtypes type, values unchanged (Identity, 17 odd-shaped values)."""
    x = np.linspace(-7, 7, 17).reshape(1, 17).astype(np.float32).astype(dtype)
    case = one_node_case("Identity", {"x": x}, {"y": x}, opset=21)
    outcome = run_case(case, tmp_path)
    assert (outcome.status, outcome.message) == (Status.PASS, "")
    (written,) = (tmp_path / "test_identity" / "jit").glob("*.npy")
    loaded = np.load(written)
    assert loaded.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(loaded.astype(np.float32), x.astype(np.float32))


@pytest.mark.parametrize(
    ("dtype", "lowest"),
    [(np.float32, -np.inf), (np.int32, np.iinfo(np.int32).min), (np.bool_, False)],
)
def test_reduce_max_over_an_empty_axis(dtype, lowest, tmp_path: Path) -> None:
    """ReduceMax over a zero-size axis failed in the reference evaluator
    (bool is a ReduceMax type from opset 20)."""
    x = np.zeros((3, 0, 17), dtype)
    expected = np.full((3, 1, 17), lowest, dtype)
    case = one_node_case(
        "ReduceMax",
        {"x": x},
        {"y": expected},
        opset=20 if dtype is np.bool_ else 18,
        initializers={"axes": np.array([1], np.int64)},
    )
    outcome = run_case(case, tmp_path)
    assert outcome.status in (Status.PASS, Status.NOT_JIT), outcome.message


# ---------------------------------------------------------------------------
# .npy files that keep ml_dtypes' types
# ---------------------------------------------------------------------------


ML_DTYPES = [
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    ml_dtypes.int4,
    ml_dtypes.uint4,
]


@pytest.mark.parametrize("dtype", ML_DTYPES, ids=lambda d: np.dtype(d).name)
def test_npy_keeps_ml_dtypes(dtype) -> None:
    array = np.arange(-3, 14).reshape(1, 17).astype(np.float32).astype(dtype)
    blob = npy.npy_bytes(array)
    for loaded in (npy.read_npy(io.BytesIO(blob)), np.load(io.BytesIO(blob))):
        assert loaded.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(
            loaded.astype(np.float32), array.astype(np.float32)
        )


@pytest.mark.parametrize("dtype", ML_DTYPES, ids=lambda d: np.dtype(d).name)
def test_npy_reads_what_np_save_wrote(dtype) -> None:
    """np.save writes raw voids (float8_e5m2: `<f1`); the graph's dtype types them."""
    array = np.array([[1.0, -2.0, 3.0]], np.float32).astype(dtype)
    buffer = io.BytesIO()
    np.save(buffer, array)
    raw = npy.read_npy(io.BytesIO(buffer.getvalue()))
    assert raw.dtype.kind == "V"
    typed = npy.typed_like(raw, np.dtype(dtype))
    assert typed.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(typed.astype(np.float32), array.astype(np.float32))


def test_npy_leaves_other_arrays_alone() -> None:
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    assert npy.npy_bytes(array)[:10] == np.lib.format.magic(1, 0) + b"v\x00"
    np.testing.assert_array_equal(npy.read_npy(io.BytesIO(npy.npy_bytes(array))), array)
    assert npy.typed_like(array, BF16) is array
    raw = np.zeros(2, "V4")
    assert npy.typed_like(raw, BF16) is raw  # not the size of a bfloat16


def test_npz_keeps_bfloat16_weights() -> None:
    weights = {"w": np.array([1.5, 2.5], BF16), "file": np.arange(3)}
    read = npy.read_npz(io.BytesIO(npy.npz_bytes(weights)))
    assert read.keys() == weights.keys()
    assert read["w"].dtype == BF16
    np.testing.assert_array_equal(read["file"], weights["file"])
