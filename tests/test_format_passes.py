"""transpose-transdata-fusion, unchanged-transpose-remove, cast-remove,
dim1-transpose-to-squeeze, compose-trans-ops, sink-trans-ops,
fuse-confusion-transpose, fold-transpose-into-matmul, fold-row-flatten and the
ge-format-pipeline.

- every FileCheck input of these passes, run through its RUN line's pass,
  gives the same outputs as before (origin and stored layout, bit for bit;
  GE's cast precision rule within fp16 rounding) and a second run changes
  nothing;
- hypothesis: random trans-op chains (`test_transop_passes.CHAIN_SPECS`:
  TransData among NCHW / NHWC / NC1HWC0 / FRACTAL_Z / FRACTAL_NZ, transposes,
  reshapes, casts through int and bool, on 3, 17 or 33 channels) through
  each pass, and random elementwise graphs wrapped in TransData through the
  sinking and the optimisation rounds: exact numerics, idempotence, never
  more runtime TransData;
- the pipeline: idempotent, statistics, `--print-between-passes`, and (slow)
  the `light/` ONNX models within their TransData bound.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_transop_passes import (
    CHAIN_SPECS,
    ChainSpec,
    assert_same_outputs,
    context,
    printed,
    run_both_ways,
)
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import PassPipeline
from xdsl.rewriter import Rewriter

from ge_dialect.builder import GraphBuilder, tensor_type
from ge_dialect.formats import Format
from ge_dialect.ops import letter_permutation
from ge_dialect.parsing import parse_module
from ge_dialect.relayout import to_storage
from ge_dialect.verification import verify_module
from passes import get_all_passes
from passes.cast_remove import cast_chain, chain_blocker
from passes.dim1_transpose_to_squeeze import squeeze_blocker
from passes.format_pipeline import (
    BEYOND_GE,
    GE_OPTIMISATION,
    FormatPipelinePass,
    runtime_transdata_count,
    structure,
)
from passes.sink_trans_ops import SinkTransOpsPass
from passes.transpose_transdata_fusion import (
    TRANSDATA_SOURCES,
    fusion_blocker,
    transdata_converts,
)
from passes.unchanged_transpose_remove import removal_blocker

FILECHECK = Path(__file__).parent / "filecheck"
PASS_DIRS = (
    "transpose-transdata-fusion",
    "unchanged-transpose-remove",
    "cast-remove",
    "dim1-transpose-to-squeeze",
    "compose-trans-ops",
    "sink-trans-ops",
    "fuse-confusion-transpose",
    "fold-transpose-into-matmul",
    "fold-row-flatten",
    "fold-squeeze-chain",
    "fold-reshape-transpose",
    "ge-format-pipeline",
)
PASSES = dict(get_all_passes())


def run_spec(module: ModuleOp, spec: str) -> None:
    """Apply a pass pipeline spec (`name{option=value}`) and verify."""
    PassPipeline.parse_spec(PASSES, spec).apply(context(), module)
    verify_module(module)


# ---------------------------------------------------------------------------
# FileCheck inputs, numerically
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LitCase:
    """One `// -----` chunk of a FileCheck input with one RUN line's pass."""

    spec: str
    graph: str
    text: str

    def __str__(self) -> str:
        return f"{self.spec}:{self.graph}"


def run_specs(text: str) -> list[str]:
    """The pass spec (`name{options}`) of each distinct RUN line's first pass."""
    specs = []
    for command in re.findall(r"^// RUN: ge-opt %s ([^|\n]*)", text, re.MULTILINE):
        for flag in shlex.split(command):
            name, _, options = flag.removeprefix("--").partition("=")
            if flag.startswith("--") and name in PASSES:
                spec = f"{name}{{{options}}}" if options else name
                if spec not in specs:
                    specs.append(spec)
                break
    return specs


def lit_cases() -> list[LitCase]:
    cases = []
    for directory in PASS_DIRS:
        for path in sorted((FILECHECK / directory).glob("*.mlir")):
            text = path.read_text()
            for spec in run_specs(text):
                for chunk in text.split("// -----"):
                    match = re.search(r"^ge\.graph @(\w+)", chunk, re.MULTILINE)
                    if match:
                        cases.append(LitCase(spec, match.group(1), chunk))
    return cases


LIT_CASES = lit_cases()


def test_every_pass_has_filecheck_inputs():
    assert {case.spec.split("{")[0] for case in LIT_CASES} == set(PASS_DIRS)
    assert "cast-remove{ge-precision-rule=true}" in {case.spec for case in LIT_CASES}


def assert_close_outputs(before: list[np.ndarray], after: list[np.ndarray]) -> None:
    """Equal up to the fp16 rounding a removed fp32 -> fp16 -> fp32 did."""
    assert len(before) == len(after)
    for want, got in zip(before, after, strict=True):
        assert want.dtype == got.dtype
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("case", LIT_CASES, ids=str)
def test_filecheck_input_keeps_its_outputs(case: LitCase):
    module = parse_module(context(), case.text)
    seed = len(case.graph)
    before = run_both_ways(module, seed)
    run_spec(module, case.spec)
    after = run_both_ways(module, seed)
    if "ge-precision-rule=true" in case.spec:
        assert_close_outputs(before, after)
    elif case.spec.startswith("ge-format-pipeline"):
        # the pipeline may change how intermediate outputs are stored: compare
        # the origin values (the first half) exactly
        half = len(before) // 2
        assert_same_outputs(before[:half], after[:half])
    else:
        assert_same_outputs(before, after)
    once = printed(module)
    run_spec(module, case.spec)
    assert printed(module) == once, "a second run changed the IR"


# ---------------------------------------------------------------------------
# Bail-out reasons and the format facts the passes rely on
# ---------------------------------------------------------------------------


def lit_ops(graph: str) -> list[Operation]:
    """The ops of FileCheck input graph `graph`, in order (before any pass)."""
    case = next(case for case in LIT_CASES if case.graph == graph)
    module = parse_module(context(), case.text)
    return [op for op in module.walk() if op.name.startswith("ge.")][1:]


def test_fusion_blocker_reasons():
    _, transpose, transdata, _ = lit_ops("no_transpose_perm_is_not_the_format_change")
    assert "not the permutation" in (fusion_blocker(transpose, transdata) or "")
    _, transpose, transdata, _ = lit_ops("no_transpose_into_unsupported_transdata")
    assert "FRACTAL_NZ" in (fusion_blocker(transpose, transdata) or "")
    _, transpose, transdata, _ = lit_ops("no_transpose_of_internal_data")
    assert "origin format" in (fusion_blocker(transpose, transdata) or "")
    _, transpose, transdata, _ = lit_ops("survey_2_transpose_then_transdata")
    assert fusion_blocker(transpose, transdata) is None


def test_other_blocker_reasons():
    _, moving, _ = lit_ops("no_unchanged_unit_axis_swapped_with_real_one")
    _, unchanged, _ = lit_ops("unchanged_all_unit_axes")
    assert "size other than 1" in (removal_blocker(moving) or "")
    assert removal_blocker(unchanged) is None
    _, by_fe, _ = lit_ops("no_dim1_inserted_by_fe")
    _, squeezable, _ = lit_ops("dim1_transpose_to_squeeze")
    assert squeeze_blocker(by_fe) == "inserted by FE"
    assert squeeze_blocker(squeezable) is None
    data, *_ = lit_ops("cast_chain_through_fp16")
    source, chain = cast_chain(data) or (None, [])
    assert source is not None and [op.name for op in chain] == [
        "ge.cast",
        "ge.reshape",
        "ge.cast",
    ]
    assert "cannot hold" in (chain_blocker(source, chain, ge_rule=False) or "")
    assert chain_blocker(source, chain, ge_rule=True) is None


def test_letter_permutation():
    assert letter_permutation(Format.NHWC, Format.NCHW) == (0, 3, 1, 2)
    assert letter_permutation(Format.HWCN, Format.NCHW) == (3, 2, 0, 1)
    assert letter_permutation(Format.NCHW, Format.NCHW) is None
    assert letter_permutation(Format.NCHW, Format.NCDHW) is None
    assert letter_permutation(Format.ND, Format.NCHW) is None


@pytest.mark.parametrize(
    "storage, plain",
    [(s, p) for s, sources in TRANSDATA_SOURCES.items() for p in sorted(sources)],
)
def test_transdata_sources_give_the_same_bytes(storage: Format, plain: Format):
    """A TransData from any listed plain format writes the bytes of the same
    tensor relaid out from the canonical one: fusing a format transpose into
    it is exact (17 channels and 5 filters: both padded)."""
    rank = len(plain.value)
    canonical = Format.NCHW if rank == 4 else Format.NCDHW
    sizes = dict(zip("NCHWD", (5, 17, 3, 2, 2), strict=True))
    shape = [sizes[letter] for letter in canonical.value]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float16)
    perm = letter_permutation(canonical, plain)
    moved = x if perm is None else x.transpose(perm)
    want = to_storage(x, canonical, storage)
    assert np.array_equal(to_storage(moved, plain, storage), want)
    assert transdata_converts(plain, storage)


# ---------------------------------------------------------------------------
# Hypothesis: random trans-op chains through each pass
# ---------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

OWN_PASSES = PASS_DIRS[:-1]


def check_exact(module: ModuleOp, specs: Sequence[str], seed: int) -> None:
    """The passes keep every output; running them again changes nothing."""
    before = run_both_ways(module, seed)
    count = runtime_transdata_count(module)
    for spec in specs:
        run_spec(module, spec)
    assert_same_outputs(before, run_both_ways(module, seed))
    assert runtime_transdata_count(module) <= count
    once = printed(module)
    for spec in specs:
        run_spec(module, spec)
    assert printed(module) == once, "a second run changed the IR"


@pytest.mark.parametrize("pass_name", OWN_PASSES)
@SETTINGS
@given(spec=CHAIN_SPECS, seed=st.integers(0, 2**16))
def test_random_chains_keep_their_outputs(pass_name: str, spec: ChainSpec, seed: int):
    check_exact(spec.build(), [pass_name], seed)


@SETTINGS
@given(spec=CHAIN_SPECS, seed=st.integers(0, 2**16))
def test_random_chains_through_optimisation_rounds(spec: ChainSpec, seed: int):
    module = spec.build()
    before = run_both_ways(module, seed)
    for _ in range(2):  # two rounds: the second is a fixed point here
        for name in GE_OPTIMISATION + BEYOND_GE:
            run_spec(module, name)
    assert_same_outputs(before, run_both_ways(module, seed))


# ---------------------------------------------------------------------------
# Hypothesis: elementwise graphs wrapped in TransData (sink-trans-ops)
# ---------------------------------------------------------------------------

UNARY = ("relu", "abs", "neg", "sigmoid", "exp", "tanh")
BINARY = ("add", "mul", "sub", "maximum", "div")


@dataclass(frozen=True)
class ElementwiseSpec:
    """One NCHW input; a sequence of elementwise steps, TransData in between."""

    channels: int
    dtype: str
    steps: tuple[tuple[int, int], ...]

    def build(self) -> ModuleOp:
        b = GraphBuilder("elementwise")
        shape = [1, self.channels, 2, 3]
        plain = tensor_type(shape, self.dtype, "NCHW")
        packed = tensor_type(shape, self.dtype, "NCHW", "NC1HWC0")
        x = b.data(shape, self.dtype, format="NCHW")
        y = b.data(shape, self.dtype, format="NCHW")
        rng = np.random.default_rng(self.channels)
        value, is_packed, outputs = x, False, []

        def relayout(v, to_packed: bool):
            src, dst = ("NCHW", "NC1HWC0") if to_packed else ("NC1HWC0", "NCHW")
            return b.op(
                "transdata",
                v,
                result_types=[packed if to_packed else plain],
                src_format=src,
                dst_format=dst,
            )

        for kind, pick in self.steps:
            current = packed if is_packed else plain
            match kind % 6:
                case 0 | 1:
                    value, is_packed = relayout(value, not is_packed), not is_packed
                case 2:
                    op = UNARY[pick % len(UNARY)]
                    value = b.op(op, value, result_types=[current])
                case 3:
                    other = b.const(
                        rng.uniform(0.5, 1.5, (self.channels, 1, 1)).astype(self.dtype)
                    )
                    op = BINARY[pick % len(BINARY)]
                    value = b.op(op, value, other, result_types=[current])
                case 4:
                    other = y if not is_packed else relayout(y, True)
                    value = b.op("add", value, other, result_types=[current])
                case 5:
                    outputs.append(value)
        if is_packed:
            value = relayout(value, False)
        b.output(value, *outputs)
        return b.build()


ELEMENTWISE_SPECS = st.builds(
    ElementwiseSpec,
    channels=st.sampled_from((3, 16, 17, 33)),
    dtype=st.sampled_from(("float16", "float32")),
    steps=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9)), max_size=12).map(
        tuple
    ),
)


@SETTINGS
@given(spec=ELEMENTWISE_SPECS, seed=st.integers(0, 2**16))
def test_random_elementwise_graphs_sink(spec: ElementwiseSpec, seed: int):
    check_exact(spec.build(), ["sink-trans-ops"], seed)


@SETTINGS
@given(spec=ELEMENTWISE_SPECS, seed=st.integers(0, 2**16))
def test_random_elementwise_graphs_through_optimisation(
    spec: ElementwiseSpec, seed: int
):
    check_exact(spec.build(), list(GE_OPTIMISATION + BEYOND_GE), seed)


def test_sinking_does_remove_transdata():
    """The generator gives the sinking real work (not all bail out)."""
    removed = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        steps = tuple(
            (int(rng.integers(0, 6)), int(rng.integers(0, 10))) for _ in range(10)
        )
        module = ElementwiseSpec(17, "float32", steps).build()
        before = runtime_transdata_count(module)
        SinkTransOpsPass().apply(context(), module)
        removed += before - runtime_transdata_count(module)
    assert removed >= 10


# ---------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------

CONV_BLOCK = Path(__file__).parents[1] / "examples" / "conv_block.mlir"


def test_pipeline_counts_each_pass():
    module = parse_module(context(), CONV_BLOCK.read_text())
    counts = FormatPipelinePass(spread=False).run(context(), module)
    labels = [label for label, _ in counts]
    assert labels[:6] == [
        "infer-origin-format",
        "infer-shape",
        "refine-running-format",
        "select-storage-format",
        "insert-transdata",
        "unchanged-transpose-remove",
    ]
    assert dict(counts)["insert-transdata"] == 4
    assert dict(counts)["round 1: sink-trans-ops"] == 2
    assert counts[-1] == ("round 2: fuse-confusion-transpose", 2)  # round 2: no change


def first(module: ModuleOp, name: str) -> Operation:
    return next(op for op in module.walk() if op.name == name)


def change_module(module: ModuleOp, change: str) -> None:
    relu = first(module, "ge.relu")
    if change == "an attribute":
        relu.attributes["name"] = StringAttr("renamed")
    elif change == "an op replaced by its copy":
        Rewriter.replace_op(relu, relu.clone())
    elif change == "an operand":
        first(module, "ge.netoutput").operands[0] = first(module, "ge.data").results[0]
    elif change == "a result type only":
        Rewriter.replace_value_with_new_type(
            relu.results[0], tensor_type([1], "float32")
        )
    elif change == "the op order":
        block = first(module, "ge.netoutput").parent
        relu.detach()
        block.insert_op_before(relu, block.last_op)


UNCHANGED = ("nothing", "an op replaced by its copy", "a result type only")
"""Changes after which a module is structurally equivalent to its copy."""


@pytest.mark.parametrize(
    "change", [*UNCHANGED, "an attribute", "an operand", "the op order"]
)
def test_round_fixed_point_is_xdsls_structural_equivalence(change):
    """A round ends when `structure` is what it was: exactly when the module
    is structurally equivalent to a copy made before (a result type alone
    is not compared, as xDSL does not)."""
    module = parse_module(context(), CONV_BLOCK.read_text())
    before, copy = structure(module), module.clone()
    change_module(module, change)
    same = structure(module) == before
    assert same == module.is_structurally_equivalent(copy)
    assert same == (change in UNCHANGED)


def test_pipeline_is_idempotent_and_keeps_outputs():
    module = parse_module(context(), CONV_BLOCK.read_text())
    before = run_both_ways(module, 0)
    FormatPipelinePass().apply(context(), module)
    once = printed(module)
    assert_same_outputs(before[:1], run_both_ways(module, 0)[:1])
    FormatPipelinePass().apply(context(), module)
    assert printed(module) == once


def ge_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.ge_opt", str(CONV_BLOCK), *args],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
        check=False,
    )


def test_pipeline_statistics_and_print_between_passes():
    quiet = ge_opt("--ge-format-pipeline")
    assert quiet.returncode == 0 and quiet.stderr == ""
    stats = ge_opt("--ge-format-pipeline=stats=true spread=false")
    assert "ge-format-pipeline: insert-transdata: 4 runtime TransData" in stats.stderr
    assert "round 1: sink-trans-ops: 2 runtime TransData" in stats.stderr
    verbose = ge_opt("-p", "ge-format-pipeline", "--print-between-passes")
    assert "// -----// IR after insert-transdata //----- //" in verbose.stdout
    assert "// -----// IR after sink-trans-ops //----- //" in verbose.stdout
    assert "// 2 runtime TransData after insert-transdata" in verbose.stdout


# ---------------------------------------------------------------------------
# The light/ ONNX models (slow)
# ---------------------------------------------------------------------------


def load_bench():
    path = Path(__file__).parents[1] / "bench" / "bench_format_pipeline.py"
    spec = importlib.util.spec_from_file_location("bench_format_pipeline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize(
    "model",
    [
        "resnet50",
        "densenet121",
        "inception_v1",
        "inception_v2",
        "vgg19",
        "bvlc_alexnet",
        "zfnet512",
        "squeezenet",
        "shufflenet",
    ],
)
def test_light_models_within_transdata_bound(model: str):
    import onnx

    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import light_model_path

    bench = load_bench()
    proto = onnx.load(light_model_path(model))
    module = import_onnx(proto).module
    counts = FormatPipelinePass(data_format="NCHW").run(context(), module)
    assert counts[-1][1] <= bench.TRANSDATA_BOUND
    convs = [op for op in module.walk() if op.name == "ge.conv2d"]
    assert convs and all("NC1HWC0" in str(op.operands[0].type) for op in convs), (
        "convolutions must run in NC1HWC0"
    )


# ---------------------------------------------------------------------------
# FRACTAL_NZ through broadcast operands
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("hidden", [17, 33, 100])
def test_matmul_epilogue_with_bias_and_row_scale_stays_in_nz(hidden: int):
    """matmul -> + bias[N] -> * scale[M, 1] -> tanh -> matmul: one TransData
    in, one out; the padded NZ lanes never leak into the result."""
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.engines.scheduler import compile_model
    from passes.format_pipeline import FormatPipelinePass, runtime_transdata_count

    rng = np.random.default_rng(hidden)
    b = GraphBuilder("epilogue")
    x = b.data([11, 33], "float32", name="x")
    row = b.data([11, 1], "float32", name="row")
    w1 = b.const(rng.standard_normal((33, hidden)).astype(np.float32), name="w1")
    bias = b.const(rng.standard_normal(hidden).astype(np.float32), name="bias")
    w2 = b.const(rng.standard_normal((hidden, 17)).astype(np.float32), name="w2")
    h = b.op("add", b.op("matmul", x, w1, name="mm1"), bias, name="bias_add")
    h = b.op("tanh", b.op("mul", h, row, name="row_scale"), name="act")
    b.output(b.op("matmul", h, w2, name="mm2"))
    module = b.build()
    source = module.clone()
    FormatPipelinePass().apply(context(), module)
    assert runtime_transdata_count(module) == 2
    feeds = {
        "x": rng.standard_normal((11, 33)).astype(np.float32),
        "row": rng.standard_normal((11, 1)).astype(np.float32),
    }
    (expected,) = evaluate(source, feeds, weights={})
    (ours,) = compile_model(module, {}).run(feeds)
    assert np.abs(ours - expected).max() <= 1e-4 * np.abs(expected).max()


@pytest.mark.parametrize("hidden", [17, 33, 100])
def test_layer_norm_softmax_and_reductions_run_in_nz_padding_exact(hidden: int):
    """A matmul, then LayerNorm's arithmetic (means over the last axis),
    softmax and a max over it, all on FRACTAL_NZ: the padded lanes of an
    odd hidden size never enter a mean, a max or a sum."""
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.engines.scheduler import compile_model
    from passes.format_pipeline import FormatPipelinePass, runtime_transdata_count

    rng = np.random.default_rng(hidden)
    b = GraphBuilder("layer_norm")
    x = b.data([11, 48], "float32", name="x")
    w = b.const(rng.standard_normal((48, hidden)).astype(np.float32), name="w")
    gamma = b.const(rng.uniform(0.5, 1.5, hidden).astype(np.float32), name="gamma")
    h = b.op("matmul", x, w, name="mm")
    mean = b.op("reduce_mean", h, axes=[1], keep_dims=True, name="mean")
    centred = b.op("sub", h, mean, name="centred")
    square = b.op("mul", centred, centred, name="square")
    var = b.op("reduce_mean", square, axes=[1], keep_dims=True, name="var")
    eps = b.const(np.array(1e-5, np.float32), name="eps")
    std = b.op("sqrt", b.op("add", var, eps, name="var_eps"), name="std")
    normed = b.op("mul", b.op("div", centred, std, name="norm"), gamma, name="scale")
    probs = b.op("softmax", normed, axis=1, name="softmax")
    total = b.op("reduce_sum", normed, axes=[1], keep_dims=False, name="total")
    peak = b.op("reduce_max", normed, axes=[1], keep_dims=False, name="peak")
    b.output(probs, total, peak)
    module = b.build()
    source = module.clone()
    FormatPipelinePass().apply(context(), module)
    assert runtime_transdata_count(module) == 2  # into NZ, out before the output
    for op in module.walk():
        if op.name in (
            "ge.softmax",
            "ge.reduce_mean",
            "ge.reduce_sum",
            "ge.reduce_max",
        ):
            assert "FRACTAL_NZ" in str(op.operands[0].type), op.name
    feeds = {"x": rng.standard_normal((11, 48)).astype(np.float32)}
    expected = evaluate(source, feeds, weights={})
    for ours, ref in zip(compile_model(module, {}).run(feeds), expected, strict=True):
        assert np.abs(ours - ref).max() <= 1e-5 * max(np.abs(ref).max(), 1)


# ---------------------------------------------------------------------------
# Pads and reductions that leave C alone run in NC1HWC0
# ---------------------------------------------------------------------------


def storage_of_operand(module: ModuleOp, name: str) -> list[str]:
    """The storage format each op called `name` reads its first operand in."""
    from ge_dialect.layout import layout_attr
    from passes.layout_requirements import required_layouts

    found = []
    for op in module.walk():
        if op.name == name:
            need = (required_layouts(op) or [layout_attr(op.operands[0].type)])[0]
            found.append(need.storage_format.value)
    return found


def run_against_reference(module: ModuleOp, shapes: dict[str, tuple[int, ...]]):
    """Feeds with ±inf, NaN and -0.0 among seeded normals; JIT (poisoned
    scratch: a read of a padded lane shows) vs the reference on `source`."""
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.jit.compiler import run_graph

    rng = np.random.default_rng(len(shapes))
    feeds = {}
    for index, shape in enumerate(shapes.values()):
        values = rng.standard_normal(shape).astype(np.float32)
        values.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, -0.0]
        feeds[index] = values
    source = module.clone()
    FormatPipelinePass(data_format="NHWC").apply(context(), module)
    with np.errstate(all="ignore"):
        expected = evaluate(source, feeds)
        ours = run_graph(module, feeds, poison=True)
    for mine, ref in zip(ours, expected, strict=True):
        scale = max(1.0, float(np.abs(ref[np.isfinite(ref)]).max(initial=0.0)))
        np.testing.assert_allclose(mine, ref, rtol=0, atol=2e-6 * scale, equal_nan=True)


@pytest.mark.parametrize("channels", [3, 17, 33])
@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_of_h_and_w_runs_in_nc1hwc0(channels: int, mode: str):
    """conv -> pad (H, W; N too) -> conv: the pad runs between the convs in
    5HD; a pad of C (cropping it too) stays in origin format: one TransData
    into 5HD at the input, d's NHWC copy (output and pad_c), back into 5HD
    after pad_c, out after e."""
    rng = np.random.default_rng(channels)
    b = GraphBuilder("pads")
    x = b.data([2, 6, 5, channels], "float32", format="NHWC", name="x")
    w = rng.standard_normal((1, 1, channels, channels)).astype(np.float32)
    w = b.const(w, format="HWCN")
    c = b.op("conv2d", x, w, data_format="NHWC", name="c")
    hw = [1, 2, 0, 0, 0, 1, 3, 0]  # [begin N, H, W, C, end N, H, W, C]
    p = b.op("pad", c, paddings=hw, mode=mode, value=-1.5, name="pad_hw")
    d = b.op("conv2d", p, w, data_format="NHWC", name="d")
    crop = b.op("pad", d, paddings=[0, 0, 0, 1, 0, 0, 0, -1], name="pad_c")
    b.output(d, b.op("conv2d", crop, w, data_format="NHWC", name="e"))
    module = b.build()
    run_against_reference(module, {"x": (2, 6, 5, channels)})
    assert storage_of_operand(module, "ge.pad") == ["NC1HWC0", "NHWC"]
    assert runtime_transdata_count(module) == 4  # in; d out (shared); pad_c; e


@pytest.mark.parametrize("channels", [17, 33])
def test_reductions_over_n_h_w_read_nc1hwc0(channels: int):
    """A squeeze-and-excitation block (mean over H, W kept as [N,1,1,C] ->
    conv -> conv -> sigmoid -> x * scale) stays in 5HD end to end; a global
    mean to [N, C] reads 5HD and writes ND for the classifier's matmul, a
    max over N, H between convs stays in 5HD; sums and maxima over C or over
    everything read the origin format."""
    rng = np.random.default_rng(channels)

    def filter_(cin: int, cout: int):
        w = rng.standard_normal((1, 1, cin, cout)).astype(np.float32)
        return b.const(w, format="HWCN")

    b = GraphBuilder("squeeze_excite")
    x = b.data([2, 5, 4, channels], "float32", format="NHWC", name="x")
    c = b.op("conv2d", x, filter_(channels, channels), data_format="NHWC")
    squeezed = b.op("reduce_mean", c, axes=[1, 2], keep_dims=True, name="se_mean")
    r = b.op("conv2d", squeezed, filter_(channels, 3), data_format="NHWC")
    e = b.op("conv2d", r, filter_(3, channels), data_format="NHWC")
    y = b.op("mul", c, b.op("sigmoid", e), name="se_scale")
    top = b.op("conv2d", y, filter_(channels, channels), data_format="NHWC")
    peak = b.op("reduce_max", top, axes=[0, 1], keep_dims=True, name="n_h_max")
    peak = b.op("conv2d", peak, filter_(channels, 3), data_format="NHWC")
    pooled = b.op("reduce_mean", top, axes=[1, 2], keep_dims=False, name="gap")
    k = b.const(rng.standard_normal((channels, 5)).astype(np.float32))
    logits = b.op("matmul", pooled, k, name="fc")
    over_c = b.op("reduce_sum", top, axes=[-1], keep_dims=True, name="c_sum")
    total = b.op("reduce_max", top, name="all_max")
    b.output(logits, peak, over_c, total)
    module = b.build()
    run_against_reference(module, {"x": (2, 5, 4, channels)})
    assert storage_of_operand(module, "ge.reduce_mean") == ["NC1HWC0", "NC1HWC0"]
    assert storage_of_operand(module, "ge.reduce_max") == ["NC1HWC0", "NHWC"]
    assert storage_of_operand(module, "ge.reduce_sum") == ["NHWC"]
    assert "NC1HWC0" in str(next(o for o in module.walk() if o.name == "ge.mul"))


@pytest.mark.parametrize("classes", [5, 17])
def test_softmax_after_matmul_reads_the_logits_output_copy(classes: int):
    """matmul -> (logits, softmax) as two outputs: the softmax reads the ND
    copy the logits output needs (sink-trans-ops), so one TransData into NZ
    and one out, not two out; the numbers are the reference's."""
    rng = np.random.default_rng(classes)
    b = GraphBuilder("classifier")
    x = b.data([3, 33], "float32", name="x")
    k = b.const(rng.standard_normal((33, classes)).astype(np.float32))
    logits = b.op("matmul", x, k, name="fc")
    b.output(logits, b.op("softmax", logits, axis=1, name="probs"))
    module = b.build()
    run_against_reference(module, {"x": (3, 33)})
    assert runtime_transdata_count(module) == 2
    assert storage_of_operand(module, "ge.softmax") == ["ND"]


def test_refusals_explain_each_remaining_transdata():
    """matmul -> transpose -> matmul: the transpose has no FRACTAL_NZ kernel,
    so a TransData pair stays around it; the ledger says which op refused
    which format and which pass decided so, and recording leaves the IR
    unchanged."""
    from passes.transdata_report import recording_refusals, transdata_sites

    rng = np.random.default_rng(0)
    b = GraphBuilder("refusals")
    x = b.data([11, 33], "float32", name="x")
    w1 = b.const(rng.standard_normal((33, 20)).astype(np.float32), name="w1")
    w2 = b.const(rng.standard_normal((11, 17)).astype(np.float32), name="w2")
    h = b.op("transpose", b.op("matmul", x, w1, name="mm1"), perm=[1, 0], name="t")
    b.output(b.op("matmul", h, w2, name="mm2"))
    module = b.build()
    plain = module.clone()
    FormatPipelinePass().apply(context(), plain)
    with recording_refusals() as ledger:
        FormatPipelinePass().apply(context(), module)
    assert str(module) == str(plain)
    sites = transdata_sites(module, ledger)
    assert [s.line() for s in sites] == [s.line() for s in transdata_sites(module)]
    text = "\n".join(site.text() for site in sites)
    assert "FRACTAL_NZ->ND mm1 -> t\n" in text
    assert (
        "t (ge.transpose) refused FRACTAL_NZ\n"
        "    select-storage-format: its op information lists no FRACTAL_NZ "
        "combination" in text
    )
    assert (
        "mm1 (ge.matmul) refused origin\n    select-storage-format: a heavy op" in text
    )
    assert (
        "x (ge.data) refused FRACTAL_NZ\n    select-storage-format: the graph " in text
    )
    assert "no refusal recorded" not in text


@pytest.mark.parametrize("target", [None, "Ascend910"])
@pytest.mark.parametrize(("channels", "groups"), [(10, 2), (24, 3), (12, 4)])
def test_channel_shuffle_runs_in_nc1hwc0(target, channels: int, groups: int):
    """conv -> channel shuffle (reshape, transpose, reshape) -> conv: the
    shuffle becomes one ge.channel_shuffle in NC1HWC0 (no round trip through
    NCHW), padded C1 blocks included, and the JIT matches the reference."""
    from ge_dialect.ops import ChannelShuffleOp
    from ge_runtime.engines.reference import evaluate
    from ge_runtime.engines.scheduler import compile_model

    rng = np.random.default_rng(channels)
    b = GraphBuilder("shuffle")
    x = b.data([2, 5, 4, 4], "float32", format="NCHW", name="x")
    w1 = b.const(rng.standard_normal((channels, 5, 1, 1)).astype(np.float32))
    w2 = b.const(rng.standard_normal((7, channels, 1, 1)).astype(np.float32))
    c = b.relu(b.conv2d(x, w1, data_format="NCHW"))
    grouped = b.reshape(c, shape=[2, groups, channels // groups, 4, 4])
    swapped = b.transpose(grouped, perm=[0, 2, 1, 3, 4])
    shuffled = b.reshape(swapped, shape=[2, channels, 4, 4])
    b.output(b.conv2d(shuffled, w2, data_format="NCHW"))
    module = b.build()
    source = module.clone()
    FormatPipelinePass(target=target).apply(context(), module)
    (shuffle,) = [op for op in module.walk() if isinstance(op, ChannelShuffleOp)]
    assert "NC1HWC0" in str(shuffle.x.type)
    assert runtime_transdata_count(module) == 2  # the input in, the output out
    feeds = {"x": rng.standard_normal((2, 5, 4, 4)).astype(np.float32)}
    (expected,) = evaluate(source, feeds, weights={})
    (ours,) = compile_model(module, {}, target=target).run(feeds)
    assert np.abs(ours - expected).max() <= 1e-4 * np.abs(expected).max()
