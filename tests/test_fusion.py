"""Graph fusion: fold-bias-add, fold-batch-norm, fold-reduce-reshape,
fold-constants, fuse-ops and `ge.fused`.

- Every graph of these passes' FileCheck inputs keeps its outputs:
  the reference evaluator before vs after the pass, and vs the JIT after it
  (whenever the graph lowers to loops), with seeded inputs and weights.
- Folded external weights go to the weights mapping; fusion rules come
  from the op-information library and can be switched off; fusion switch
  files in ATC's and the plain forms.
- Fused groups through engine partitioning, memory planning, the kernel
  runtime and `ge-atc` / `ge-run`, with `--disable-fusion` and
  `--fusion_switch_file`.
- The ONNX package's light models: folded and fused, reference evaluator
  and JIT against the unfused reference (the small ones by default, the
  others slow).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.builder import GraphBuilder
from ge_dialect.constants import derive_storage_weights
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.layout import shape_of
from ge_dialect.opinfo import op_info, register_op_info
from ge_dialect.ops import ConstOp, FusedOp, PartitionedCallOp
from ge_dialect.parsing import parse_module
from ge_dialect.value_layout import value_layout
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import find_graph, input_specs
from ge_runtime.jit.compiler import compile_graph, run_graph
from ge_runtime.offline.om import load_offline_model
from ge_xdsl.atc import GRAPH_FUSION_STAGES, CompileOptions, compile_module
from passes import PASSES, get_all_passes
from passes.fold_constants import FOLD_WEIGHTS, INLINE_LIMIT
from passes.format_pipeline import FormatPipelinePass
from passes.fuse_ops import (
    FuseOpsPass,
    enabled_rules,
    fusion_rules,
    read_fusion_switch_file,
)
from passes.memory_planning import check_graph_plan
from tools import ge_atc, ge_run

FILECHECK = Path(__file__).parent / "filecheck"
FUSION_PASSES = (
    "fold-bias-add",
    "fold-batch-norm",
    "fold-reduce-reshape",
    "fold-constants",
    "fuse-ops",
)
EXAMPLE = Path(__file__).parent.parent / "examples" / "small_cnn.onnx"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


@contextmanager
def folding_weights(weights: dict[str, np.ndarray]) -> Iterator[None]:
    """The weights mapping the folding passes read and extend."""
    token = FOLD_WEIGHTS.set(weights)
    try:
        yield
    finally:
        FOLD_WEIGHTS.reset(token)


def run_pass(module: ModuleOp, name: str, weights: dict[str, np.ndarray]) -> None:
    with folding_weights(weights):
        get_all_passes()[name]()().apply(make_context(), module)
    verify_module(module)


def random_feeds(
    module: ModuleOp, seed: int
) -> tuple[dict[int, np.ndarray], dict[str, np.ndarray]]:
    """Inputs for every `ge.data` (unknown dims: 2) and storage-layout weights
    for every `#ge.external` constant (random origin values, zero padding)."""
    rng = np.random.default_rng(seed)
    graph = find_graph(module)

    def draw(shape, dtype) -> np.ndarray:
        shape = [2 if d < 0 else d for d in shape]
        if np.issubdtype(dtype, np.integer):
            return rng.integers(-5, 5, size=shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    inputs = {s.index: draw(s.shape, s.dtype) for s in input_specs(graph)}
    weights = {}
    for op in graph.walk():
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr):
            tensor = op.output.type
            assert isinstance(tensor, TensorType)
            origin = draw(shape_of(tensor), expected_dtype(tensor))
            weights[op.value.key.data] = value_layout(op.output).store(origin)
    return inputs, weights


def outcome(run) -> list[np.ndarray] | str:
    """The outputs of `run()`, or the one-line error it raised."""
    try:
        return [np.asarray(a) for a in run()]
    except GEError as error:
        return str(error).partition("error: ")[2]


def assert_close(
    got: list[np.ndarray], want: list[np.ndarray], what: str, f32: float = 1e-5
) -> None:
    """max |got - want| <= tolerance * max(1, max |want|) for every output."""
    assert len(got) == len(want), what
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: output {index}"
        tolerance = 2e-2 if w.dtype == np.float16 else f32
        scale = max(1.0, float(np.abs(w.astype(np.float64)).max(initial=0)))
        error = float(np.abs(g.astype(np.float64) - w).max(initial=0))
        assert error <= tolerance * scale, f"{what}: output {index} off by {error}"


def fused_ops(module: ModuleOp) -> list[FusedOp]:
    return [op for op in module.walk() if isinstance(op, FusedOp)]


# ---------------------------------------------------------------------------
# Every FileCheck graph keeps its outputs (reference and JIT)
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LitCase:
    """One `// -----` chunk of a FileCheck input of a fusion pass."""

    pass_name: str
    file: str
    graph: str
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.graph}"


def lit_cases() -> list[LitCase]:
    cases = []
    for name in FUSION_PASSES:
        for path in sorted((FILECHECK / name).glob("*.mlir")):
            for chunk in path.read_text().split("// -----"):
                match = re.search(r"^ge\.graph @(\w+)", chunk, re.MULTILINE)
                if match:
                    cases.append(LitCase(name, path.name, match.group(1), chunk))
    return cases


LIT_CASES = lit_cases()


def test_every_fusion_pass_has_filecheck_inputs_and_negative_cases():
    assert {case.pass_name for case in LIT_CASES} == set(FUSION_PASSES)
    for name in FUSION_PASSES:
        graphs = [c.graph for c in LIT_CASES if c.pass_name == name]
        assert any(g.startswith("no_") for g in graphs), name
    fuse_files = {c.file for c in LIT_CASES if c.pass_name == "fuse-ops"}
    assert {"conv_eltwise.mlir", "matmul_eltwise.mlir", "pool_eltwise.mlir"} <= (
        fuse_files
    )
    classes = {cls for _, cls in PASSES.values()}
    assert {
        "FoldBiasAddPass",
        "FoldBatchNormPass",
        "FoldReduceReshapePass",
        "FoldConstantsPass",
        "FuseOpsPass",
    } <= classes


@pytest.mark.parametrize("case", LIT_CASES, ids=str)
def test_filecheck_graph_keeps_its_outputs(case: LitCase):
    """Reference before == reference after == JIT after (when it lowers).

    The folding passes get the weights, so external constants fold too.
    """
    module = parse_module(make_context(), case.text)
    inputs, weights = random_feeds(module, seed=len(case.graph))
    expected = outcome(lambda: evaluate(module, inputs, weights=weights))
    jit_before = outcome(lambda: run_graph(module.clone(), inputs, weights))
    folded = dict(weights)
    run_pass(module, case.pass_name, folded)
    after = outcome(lambda: evaluate(module, inputs, weights=folded))
    if isinstance(expected, str):
        assert after == expected
        return
    assert_close(after, expected, "reference after the pass")
    if isinstance(jit_before, str):
        return  # the graph has no loop lowering (dynamic shape, int32 relu)
    jit_after = outcome(lambda: run_graph(module, inputs, folded))
    assert not isinstance(jit_after, str), jit_after
    assert_close(jit_after, expected, "JIT after the pass")
    assert compile_graph(find_graph(module)).scalar_nests == []


@pytest.mark.parametrize("case", LIT_CASES, ids=str)
def test_filecheck_graph_pass_is_idempotent(case: LitCase):
    module = parse_module(make_context(), case.text)
    run_pass(module, case.pass_name, random_feeds(module, 0)[1])
    once = str(module)
    run_pass(module, case.pass_name, random_feeds(module, 0)[1])
    assert str(module) == once


# ---------------------------------------------------------------------------
# Folding with the weights mapping
# ---------------------------------------------------------------------------


def conv_bn_module(channels: int = 17) -> ModuleOp:
    b = GraphBuilder("main")
    x = b.data([1, 3, 6, 6], "float32", name="x")
    w = b.external_const("conv1.weight", [channels, 3, 3, 3], "float32")
    params = [b.external_const(f"bn1.{p}", [channels], "float32") for p in "smov"]
    c = b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW", name="conv1")
    y = b.batch_norm(c, *params, data_format="NCHW", name="bn1")
    b.output(b.relu(y, name="relu1"))
    return b.build()


def test_fold_batch_norm_puts_folded_external_weights_in_the_mapping():
    module = conv_bn_module()
    inputs, weights = random_feeds(module, 1)
    weights["bn1.v"] = np.abs(weights["bn1.v"]) + 0.5
    expected = evaluate(module, inputs, weights=weights)
    folded = dict(weights)
    run_pass(module, "fold-batch-norm", folded)
    assert not any(op.name == "ge.batch_norm" for op in module.walk())
    keys = {
        op.value.key.data
        for op in module.walk()
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr)
    }
    assert keys == {"conv1/filter_bn"}  # the small bias is inline
    assert set(folded) == {*weights, "conv1/filter_bn"}
    for key in weights:
        np.testing.assert_array_equal(folded[key], weights[key])  # untouched
    assert_close(evaluate(module, inputs, weights=folded), expected, "folded")


def test_fold_constants_sends_large_external_results_to_the_mapping():
    b = GraphBuilder("main")
    x = b.data([INLINE_LIMIT + 1], "float32")
    big = b.external_const("big", [INLINE_LIMIT + 1], "float32")
    small = b.const(np.arange(3, dtype=np.float32))
    doubled = b.mul(big, b.const(np.float32([2.0])), name="doubled")
    b.output(b.add(x, doubled), b.neg(small, name="minus"))
    module = b.build()
    inputs, weights = random_feeds(module, 2)
    expected = evaluate(module, inputs, weights=weights)
    folded = dict(weights)
    run_pass(module, "fold-constants", folded)
    np.testing.assert_array_equal(folded["doubled"], weights["big"] * 2)
    assert "minus" not in folded  # small and from inline data: inline
    assert [op.name for op in find_graph(module).body.block.ops].count("ge.mul") == 0
    assert_close(evaluate(module, inputs, weights=folded), expected, "folded")


# ---------------------------------------------------------------------------
# Rules: op information, switch files
# ---------------------------------------------------------------------------


def conv_relu_module() -> ModuleOp:
    b = GraphBuilder("main")
    x = b.data([1, 3, 5, 5], "float32")
    w = b.const(np.full((8, 3, 1, 1), 0.5, np.float32))
    b.output(b.sigmoid(b.relu(b.conv2d(x, w, data_format="NCHW"))))
    return b.build()


@pytest.fixture
def restore_relu_info():
    original = op_info("ge.relu")
    yield
    register_op_info(original)


def test_what_fuses_comes_from_the_op_information(restore_relu_info):
    """relu without fusion formats ends every group (sigmoid stays alone)."""
    relu = op_info("ge.relu")
    register_op_info(dataclasses.replace(relu, fusion={"pattern": "ElemWise"}))
    module = conv_relu_module()
    FuseOpsPass().apply(Context(), module)
    assert fused_ops(module) == []
    register_op_info(relu)
    FuseOpsPass().apply(Context(), module)
    (fused,) = fused_ops(module)
    names = [op.name for op in fused.body.block.ops]
    assert names[-4:] == ["ge.conv2d", "ge.relu", "ge.sigmoid", "ge.netoutput"]


def test_fused_select_then_neg_lowers_and_keeps_its_values():
    """A fused group whose first member is a select on an i1 condition: the
    lowering's type probe gives the select its chosen operands' type (f32,
    not the condition's i1), so the neg after it lowers."""
    b = GraphBuilder("g")
    condition = b.data([3, 1, 17], "bool", name="c")
    x = b.data([3, 1, 17], "float32", name="x")
    zero = b.const(np.zeros((1,), np.float32))
    b.output(b.neg(b.select(condition, zero, x)))
    module = b.build()
    FuseOpsPass().apply(Context(), module)
    assert [op.name for op in fused_ops(module)[0].body.block.ops][-3:] == [
        "ge.select",
        "ge.neg",
        "ge.netoutput",
    ]
    rng = np.random.default_rng(0)
    inputs = {
        0: rng.random((3, 1, 17)) < 0.5,
        1: rng.standard_normal((3, 1, 17)).astype(np.float32),
    }
    inputs[1].reshape(-1)[:3] = [np.nan, np.inf, -0.0]
    (got,) = run_graph(module, inputs, poison=True)
    (want,) = evaluate(module, inputs)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_rules_per_pass():
    assert [r.name for r in enabled_rules("fold-bias-add")] == [
        "ConvBiasAddFold",
        "MatMulBiasAddFold",
    ]
    assert [r.name for r in enabled_rules("fold-batch-norm")] == [
        "ConvBatchNormFold",
        "MatMulBatchNormFold",
    ]
    assert [r.name for r in enabled_rules("fold-reduce-reshape")] == [
        "ReduceReshapeFold"
    ]
    fuse = [r.name for r in enabled_rules("fuse-ops", ["PoolEltwiseFusion"])]
    assert fuse == ["ConvEltwiseFusion", "MatMulEltwiseFusion", "EltwiseFusion"]
    with pytest.raises(GEError, match="unknown fusion rule 'Nope'"):
        enabled_rules("fuse-ops", ["Nope"])


@pytest.mark.parametrize(
    ("text", "off"),
    [
        (
            '{"Switch": {"GraphFusion": {"ConvBatchNormFold": "off"}, '
            '"UBFusion": {"EltwiseFusion": "OFF", "PoolEltwiseFusion": "on"}}}',
            {"ConvBatchNormFold", "EltwiseFusion"},
        ),
        ('{"Switch": {"UBFusion": {"ALL": "off"}}}', "UBFusion"),
        ('["MatMulBatchNormFold"]', {"MatMulBatchNormFold"}),
        ("# rules to switch off\nConvEltwiseFusion\n\nEltwiseFusion  # too\n", None),
    ],
)
def test_fusion_switch_file_forms(tmp_path: Path, text: str, off):
    path = tmp_path / "switch.cfg"
    path.write_text(text)
    if off == "UBFusion":
        off = {r.name for r in fusion_rules().values() if r.category == "UBFusion"}
    elif off is None:
        off = {"ConvEltwiseFusion", "EltwiseFusion"}
    assert read_fusion_switch_file(path) == off


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"Switch": {"UBFusion": {"NoSuchRule": "off"}}}', "unknown fusion rule"),
        ('{"Switch": {"UBFusion": {"EltwiseFusion": "maybe"}}}', 'must be "on"'),
        ('{"Switch": {"Other": {}}}', "unknown category 'Other'"),
        ('{"rules": []}', 'expected {"Switch"'),
    ],
)
def test_bad_fusion_switch_files(tmp_path: Path, text: str, message: str):
    path = tmp_path / "switch.json"
    path.write_text(text)
    with pytest.raises(GEError, match=re.escape(message)):
        read_fusion_switch_file(path)
    with pytest.raises(GEError, match="cannot read fusion switch file"):
        read_fusion_switch_file(tmp_path / "missing.json")


# ---------------------------------------------------------------------------
# Fused groups through the rest of the compiler
# ---------------------------------------------------------------------------


def test_fused_groups_partition_plan_and_run_on_every_runtime():
    from ge_runtime.engines.executor import Runtime
    from ge_runtime.engines.scheduler import compile_model

    module = conv_bn_module()
    inputs, weights = random_feeds(module, 3)
    weights["bn1.v"] = np.abs(weights["bn1.v"]) + 0.5
    expected = evaluate(module, inputs, weights=weights)
    compiled = compile_module(
        module, weights, CompileOptions(input_format="NCHW"), progress=0
    )
    graph = find_graph(compiled.module)
    assert "fold-batch-norm" in compiled.stages and "fuse-ops" in compiled.stages
    (fused,) = fused_ops(compiled.module)
    assert isinstance(fused.parent_op(), PartitionedCallOp)
    assert fused.parent_op().engine.data == "AICore"
    check_graph_plan(graph)  # fused results have arena offsets
    laid_out = compiled.weights
    for run in (
        lambda: compile_model(compiled.module, laid_out).run(inputs),
        lambda: Runtime(graph, laid_out).run(inputs),
        lambda: evaluate(compiled.module, inputs, weights=laid_out),
    ):
        assert_close(run(), expected, "compiled")


def example_om(tmp_path: Path, capsys, *flags: str) -> Path:
    out = tmp_path / "cnn"
    code = ge_atc.main(
        [
            f"--model={EXAMPLE}",
            "--framework=5",
            f"--output={out}",
            "--input_shape=input:1,3,32,32",
            "--log=error",
            *flags,
        ]
    )
    assert code == 0, capsys.readouterr().err
    return out.with_suffix(".om")


def test_ge_atc_fuses_by_default_and_ge_run_checks(tmp_path: Path, capsys):
    om = example_om(tmp_path, capsys)
    model = load_offline_model(om)
    stages = model.manifest["stages"]
    assert stages.index("fold-batch-norm") < stages.index("infer-origin-format")
    assert stages.index("fuse-ops") > stages.index("insert-transdata")
    assert model.manifest["compile_options"]["fusion"] is True
    assert [op.name for op in model.module().walk()].count("ge.batch_norm") == 0
    assert len(fused_ops(model.module())) == 4  # conv + relu, four times
    code = ge_run.main(
        [str(om), "--random-inputs", "--check", f"--output-dir={tmp_path / 'o'}"]
    )
    assert code == 0, capsys.readouterr().err
    assert ": ok" in capsys.readouterr().out


def test_ge_atc_disable_fusion_and_switch_file(tmp_path: Path, capsys):
    plain = load_offline_model(example_om(tmp_path, capsys, "--disable-fusion"))
    assert "fuse-ops" not in plain.manifest["stages"]
    assert "fold-batch-norm" not in plain.manifest["stages"]
    assert "fold-constants" in plain.manifest["stages"]
    assert fused_ops(plain.module()) == []
    switch = tmp_path / "fusion_switch.cfg"
    switch.write_text(json.dumps({"Switch": {"UBFusion": {"ALL": "off"}}}))
    model = load_offline_model(
        example_om(tmp_path, capsys, f"--fusion_switch_file={switch}")
    )
    assert fused_ops(model.module()) == []  # UB fusion off, BN still folded
    assert [op.name for op in model.module().walk()].count("ge.batch_norm") == 0
    assert "ConvEltwiseFusion" in model.manifest["compile_options"]["fusion_off"]
    switch.write_text("NoSuchRule\n")
    code = ge_atc.main(
        [
            f"--model={EXAMPLE}",
            "--framework=5",
            f"--output={tmp_path / 'x'}",
            f"--fusion_switch_file={switch}",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "unknown fusion rule 'NoSuchRule'" in err


# ---------------------------------------------------------------------------
# The light models
# ---------------------------------------------------------------------------


def fold_and_fuse(module: ModuleOp, weights: dict[str, np.ndarray]) -> None:
    """ge-atc's graph fusion, fold-constants, the format pipeline, fuse-ops."""
    for name in (*GRAPH_FUSION_STAGES, "fold-constants"):
        run_pass(module, name, weights)
    FormatPipelinePass().apply(Context(), module)
    FuseOpsPass().apply(Context(), module)
    verify_module(module)


SMALL_LIGHT = ["bvlc_alexnet", "squeezenet"]
BIG_LIGHT = [
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "vgg19",
    "zfnet512",
]


def check_light_model(name: str) -> None:
    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import light_model

    imported = import_onnx(light_model(name, seed=0))
    module = imported.module
    (spec,) = input_specs(find_graph(module))
    x = np.random.default_rng(0).standard_normal(spec.shape).astype(np.float32)
    expected = evaluate(module, {0: x}, weights=imported.weights)
    weights = dict(imported.weights)
    fold_and_fuse(module, weights)
    assert fused_ops(module), "nothing fused"
    weights = derive_storage_weights(module, weights)
    after = evaluate(module, {0: x}, weights=weights)
    assert_close(after, expected, "reference", f32=1e-4)
    assert_close(run_graph(module, {0: x}, weights), expected, "JIT", f32=1e-4)
    assert compile_graph(find_graph(module)).scalar_nests == []


@pytest.mark.parametrize("name", SMALL_LIGHT)
def test_small_light_model_folded_and_fused_keeps_its_output(name: str):
    check_light_model(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", BIG_LIGHT)
def test_light_model_folded_and_fused_keeps_its_output(name: str):
    check_light_model(name)


def test_fused_chains_through_comparisons_and_select():
    """An elementwise group holding i1 values (a comparison, a select on it,
    float ops after) computes each member's element in the member's own
    type (the select's result is a float, the comparison's a bool)."""
    b = GraphBuilder("g")
    x = b.data([3, 17], "float32")
    bound = b.data([17], "float32")
    less = b.less(x, bound)
    chosen = b.select(b.logical_not(less), x, b.const(np.array([0.5], np.float32)))
    b.output(b.neg(b.abs(chosen)), b.logical_and(less, b.greater(x, x)))
    module = b.build()
    run_pass(module, "fuse-ops", {})
    assert fused_ops(module), "the group was not fused"
    rng = np.random.default_rng(18)
    feeds = {0: rng.standard_normal((3, 17)).astype(np.float32)}
    feeds[0][0, :3] = [np.nan, np.inf, -0.0]
    feeds[1] = rng.standard_normal(17).astype(np.float32)
    got, want = run_graph(module, feeds), evaluate(module, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
