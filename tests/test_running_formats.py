"""Running formats: op info, refine-running-format, select-storage-format,
insert-transdata.

Every graph of the three passes' FileCheck tests, hypothesis-generated
CNN-like graphs and the ONNX package's light models run through the passes;
the reference evaluator's outputs afterwards must equal those before,
bit for bit (the evaluator computes in origin layout, so any difference is a
layout bug: a wrong relayout, a wrong fold, padding leaking into a result).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import PassPipeline

from ge_dialect.builder import GraphBuilder
from ge_dialect.constants import derive_storage_weights
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import layout_attr, shape_of, storage_shape_of
from ge_dialect.opinfo import (
    Engine,
    FallbackMode,
    find_op_info,
    known_ops,
    load_opinfo_file,
    op_info,
    register_op_info,
)
from ge_dialect.ops import GE_OPS, ConstOp, DataOp, TransDataOp, enclosing_target
from ge_dialect.parsing import parse_module
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from passes import get_all_passes

FILECHECK = Path(__file__).parent / "filecheck"
PIPELINE = ("refine-running-format", "select-storage-format", "insert-transdata")
CHAIN = ("infer-origin-format", *PIPELINE)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(GE)
    return ctx


def run_passes(module: ModuleOp, passes: tuple[str, ...]) -> ModuleOp:
    """A copy of `module` after `passes` (pass specs), verified."""
    result = module.clone()
    PassPipeline.parse_spec(get_all_passes(), ",".join(passes)).apply(context(), result)
    verify_module(result)
    return result


def random_inputs(module: ModuleOp, seed: int = 0) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = {}
    for op in module.walk():
        if isinstance(op, DataOp) and op.index is not None:
            tensor = op.output.type
            dtype = numpy_dtype(dtype_name(tensor.element_type))
            values = rng.uniform(-2, 2, shape_of(tensor))
            inputs[op.index_value] = values.astype(dtype)
    return inputs


def random_weights(module: ModuleOp, seed: int = 1) -> dict[str, np.ndarray]:
    """An array for every external constant (in its storage layout)."""
    rng = np.random.default_rng(seed)
    weights = {}
    for op in module.walk():
        if isinstance(op, ConstOp) and hasattr(op.value, "key"):
            tensor = op.output.type
            dtype = numpy_dtype(dtype_name(tensor.element_type))
            shape = storage_shape_of(tensor)
            weights[op.value.key.data] = rng.uniform(-1, 1, shape).astype(dtype)
    return weights


def assert_same_outputs(
    before: ModuleOp, after: ModuleOp, weights: dict[str, np.ndarray] | None = None
) -> None:
    """The reference outputs of `after` equal those of `before` exactly
    (converted to `after`'s dtype where a requirement changed it)."""
    inputs = random_inputs(before)
    weights = random_weights(before) if weights is None else weights
    expected = evaluate(
        before, inputs, weights=weights, target=enclosing_target(before)
    )
    target = enclosing_target(after)
    got = evaluate(
        after,
        inputs,
        weights=derive_storage_weights(after, weights, target),
        target=target,
    )
    assert len(got) == len(expected)
    for index, (a, b) in enumerate(zip(got, expected, strict=True)):
        np.testing.assert_array_equal(a, b.astype(a.dtype), err_msg=f"output #{index}")


def runtime_transdata(module: ModuleOp) -> int:
    """TransData ops that run at run time (their input is not a constant)."""
    return sum(
        1
        for op in module.walk()
        if isinstance(op, TransDataOp) and not isinstance(op.x.owner, ConstOp)
    )


def first_run_passes(text: str) -> tuple[str, ...]:
    """The pass flags of a lit file's first RUN line, as pass specs."""
    run = next(line for line in text.splitlines() if line.startswith("// RUN:"))
    names = set(get_all_passes())
    specs = []
    for flag in re.findall(r"--([a-z-]+)(?:=(\S+))?", run):
        name, options = flag
        if name in names:
            specs.append(f"{name}{{{options}}}" if options else name)
    return tuple(specs)


def lit_chunks() -> list[tuple[str, str, tuple[str, ...]]]:
    """(id, MLIR text, passes) of every test graph of the three passes."""
    chunks = []
    for folder in PIPELINE:
        for path in sorted((FILECHECK / folder).glob("*.mlir")):
            if path.name == "errors.mlir":
                continue
            text = path.read_text()
            passes = first_run_passes(text)
            for index, chunk in enumerate(text.split("// -----")):
                chunks.append((f"{folder}/{path.stem}#{index}", chunk, passes))
    return chunks


# ---------------------------------------------------------------------------
# Numeric check of every FileCheck graph
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "passes"),
    [pytest.param(t, p, id=i) for i, t, p in lit_chunks()],
)
def test_filecheck_graphs_keep_their_outputs(text: str, passes: tuple[str, ...]):
    module = parse_module(context(), text)
    if any(
        -1 in shape_of(v.type)
        for op in module.walk()
        for v in op.results
        if isinstance(v.type, TensorType)
    ):
        pytest.skip("unknown dims cannot be evaluated")
    assert_same_outputs(module, run_passes(module, passes))


# ---------------------------------------------------------------------------
# Scenario counts (the metric of the layout-optimizer survey)
# ---------------------------------------------------------------------------


def build_conv_chain(channels: int, dtype: str) -> ModuleOp:
    rng = np.random.default_rng(3)
    b = GraphBuilder("main")
    x = b.data([1, 3, 6, 6], dtype, format="NCHW")
    w1 = b.const(rng.uniform(-1, 1, (channels, 3, 3, 3)).astype(dtype))
    w2 = b.const(rng.uniform(-1, 1, (5, channels, 1, 1)).astype(dtype))
    y = b.relu(b.conv2d(x, w1, data_format="NCHW", pads=[1, 1, 1, 1]))
    b.output(b.relu(b.conv2d(y, w2, data_format="NCHW")))
    return b.build()


@pytest.mark.parametrize("channels", [1, 3, 16, 17, 33])
def test_conv_chain_needs_two_runtime_transdata(channels: int):
    module = build_conv_chain(channels, "float16")
    after = run_passes(module, CHAIN)
    assert runtime_transdata(after) == 2
    assert sum(isinstance(op, TransDataOp) for op in after.walk()) == 2
    assert_same_outputs(module, after)


def test_spread_off_keeps_elementwise_in_origin():
    module = build_conv_chain(17, "float32")
    after = run_passes(
        module,
        (
            "infer-origin-format",
            "select-storage-format{spread=false}",
            "insert-transdata",
        ),
    )
    assert runtime_transdata(after) == 4
    assert_same_outputs(module, after)


def test_pipeline_is_idempotent():
    once = run_passes(build_conv_chain(17, "float16"), CHAIN)
    twice = run_passes(once, CHAIN)
    assert str(once) == str(twice)


def test_external_weights_fold_through_derived_keys():
    b = GraphBuilder("main")
    x = b.data([1, 17, 4, 4], "float32", format="NCHW")
    w = b.external_const("w", [3, 17, 3, 3], "float32", format="NCHW")
    bias = b.external_const("b", [3], "float32", format="NCHW")
    b.output(b.bias_add(b.conv2d(x, w, data_format="NCHW"), bias, data_format="NCHW"))
    module = b.build()
    after = run_passes(module, PIPELINE)
    assert runtime_transdata(after) == 2
    keys = {op.value.key.data for op in after.walk() if isinstance(op, ConstOp)}
    assert keys == {"w@FRACTAL_Z:float32", "b@NC1HWC0.C:float32"}
    weights = random_weights(module)
    derived = derive_storage_weights(after, weights)
    assert derived["w@FRACTAL_Z:float32"].shape == (27, 1, 16, 8)
    assert derived["b@NC1HWC0.C:float32"].shape == (1, 1, 1, 1, 8)
    assert_same_outputs(module, after, weights)
    with pytest.raises(GEError, match="weight 'w' is not in the weights"):
        derive_storage_weights(after, {})


def test_target_sets_c0_for_folded_constants():
    module = build_conv_chain(17, "float16")
    after = run_passes(
        module,
        (
            "infer-origin-format",
            "select-storage-format{target=Ascend910}",
            "insert-transdata",
        ),
    )
    assert enclosing_target(after) == "Ascend910"
    assert_same_outputs(module, after)


# ---------------------------------------------------------------------------
# Hypothesis: CNN-like graphs, channels 1-40, fp16/fp32
# ---------------------------------------------------------------------------

LAYERS = (
    "conv",
    "bias",
    "relu",
    "sigmoid",
    "exp",
    "scalar",
    "scale",
    "max_pool",
    "avg_pool",
    "batch_norm",
    "concat",
    "lrn",
    "global_pool",
    "softmax",
    "reduce",
    "add_branch",
)


@st.composite
def cnn_graphs(draw: st.DrawFn) -> ModuleOp:
    dtype = draw(st.sampled_from(["float16", "float32"]))
    channels = draw(st.integers(1, 40))
    size = draw(st.integers(3, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))

    def const(*shape: int) -> object:
        return b.const(rng.uniform(-1, 1, shape).astype(dtype))

    b = GraphBuilder("main")
    x = b.data([draw(st.integers(1, 2)), channels, size, size], dtype, format="NCHW")
    outputs = []
    for layer in draw(st.lists(st.sampled_from(LAYERS), min_size=1, max_size=6)):
        c = x.type.get_shape()[1]
        nchw = {"data_format": "NCHW"}
        if layer == "conv":
            out = draw(st.integers(1, 40))
            x = b.conv2d(x, const(out, c, 3, 3), pads=[1, 1, 1, 1], **nchw)
        elif layer == "bias":
            x = b.bias_add(x, const(c), **nchw)
        elif layer in ("relu", "sigmoid", "exp"):
            x = b.op(layer, x)
        elif layer == "scalar":
            x = b.add(x, b.const(np.asarray(0.5, dtype)))
        elif layer == "scale":
            x = b.mul(x, const(c, 1, 1))
        elif layer in ("max_pool", "avg_pool"):
            x = b.op(layer, x, ksize=[1, 1, 2, 2], pads=[0, 1, 0, 1], **nchw)
        elif layer == "batch_norm":
            params = [const(c) for _ in range(3)]
            variance = b.const(rng.uniform(0.5, 1.5, c).astype(dtype))
            x = b.batch_norm(x, *params, variance, **nchw)
        elif layer == "concat":
            x = b.concat([x, b.relu(x)], axis=1)
        elif layer == "lrn":
            x = b.lrn(x, size=3, **nchw)
        elif layer == "global_pool":
            outputs.append(b.global_avg_pool(x, **nchw))
        elif layer == "softmax":
            outputs.append(b.softmax(x, axis=1))
        elif layer == "reduce":
            outputs.append(b.reduce_sum(x, axes=[1]))
        else:
            x = b.add(x, b.sigmoid(x))
    b.output(x, *outputs)
    return b.build()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(cnn_graphs())
def test_generated_cnn_graphs_keep_their_outputs(module: ModuleOp):
    after = run_passes(module, CHAIN)
    assert_same_outputs(module, after)
    for op in after.walk():
        assert "input_layouts" not in op.attributes
    graph_interface = [
        layout_attr(v.type)
        for op in after.walk()
        if isinstance(op, DataOp)
        for v in op.results
    ]
    assert all(
        layout.storage_format == layout.origin_format for layout in graph_interface
    )


# ---------------------------------------------------------------------------
# The ONNX package's light models
# ---------------------------------------------------------------------------

RUNTIME_TRANSDATA = {
    "bvlc_alexnet": 2,
    "densenet121": 2,
    "inception_v1": 2,
    "inception_v2": 2,
    "resnet50": 2,
    "shufflenet": 34,
    "squeezenet": 2,
    "vgg19": 2,
    "zfnet512": 2,
}
"""Runtime TransData after insertion: the input's and the output's, plus for
ShuffleNet one pair around each channel shuffle (reshape/transpose run in
origin format)."""


SLOW_MODELS = {"densenet121", "inception_v2", "resnet50", "vgg19", "zfnet512"}
"""Over ~15 s each on a loaded CI machine."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow) if n in SLOW_MODELS else n
        for n in sorted(RUNTIME_TRANSDATA)
    ],
)
def test_light_models_keep_their_outputs(name: str):
    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import light_model, light_model_path

    if not light_model_path(name).exists():
        pytest.skip(f"{light_model_path(name)} is not in this onnx package")
    imported = import_onnx(light_model(name))
    after = run_passes(
        imported.module, ("infer-origin-format", "infer-shape", *PIPELINE)
    )
    assert runtime_transdata(after) == RUNTIME_TRANSDATA[name]
    assert_same_outputs(imported.module, after, dict(imported.weights))


# ---------------------------------------------------------------------------
# The op-information library
# ---------------------------------------------------------------------------


def test_builtin_opinfo_matches_the_dialect():
    ops = {op.name: op for op in GE_OPS}
    for key in known_ops():
        assert key in ops, f"op info for unknown op '{key}'"
        definition = ops[key].get_irdl_definition()
        operands = {name for name, _ in definition.operands}
        results = {name for name, _ in definition.results}
        info = op_info(key)
        assert {t.name for t in info.inputs} <= operands, key
        assert {t.name for t in info.outputs} <= results, key
        for tensor in (*info.inputs, *info.outputs):
            assert len(tensor.formats) == info.num_combinations


def test_builtin_opinfo_contents():
    conv = op_info("ge.conv2d")
    assert conv.heavy and conv.engine is Engine.AICORE
    assert conv.input("x").formats[0] is Format.NC1HWC0
    assert conv.input("filter").formats[0] is Format.FRACTAL_Z
    assert op_info("ge.matmul").output("y").formats[0] is Format.FRACTAL_NZ
    assert op_info("ge.softmax").input("x").formats == (Format.FRACTAL_NZ, None)
    assert op_info("ge.pad").input("x").formats == (Format.NC1HWC0, None)
    assert op_info("ge.gather").engine is Engine.AICORE
    assert op_info("ge.gather").fallback_mode is None
    assert op_info("ge.resize").fallback_mode is FallbackMode.SUPPORT_ACLNN
    assert op_info("ge.broadcast_to").fallback_mode is None  # a JIT kernel per shape
    assert not op_info("ge.relu").supports_dtype("int8")
    assert find_op_info("user.no_such_op") is None
    assert op_info("user.no_such_op").num_combinations == 1


def test_an_op_without_an_entry_gets_what_its_traits_imply():
    """A format-agnostic elementwise op needs no op-information entry."""
    assert "ge.hard_swish" not in known_ops()
    info = op_info("ge.hard_swish")
    assert info.input("x").formats == (Format.NC1HWC0, Format.FRACTAL_NZ, None)
    assert info.fusion["pattern"] == "ElemWise" and not info.broadcast


def test_user_opinfo_file_extends_and_overrides(tmp_path: Path):
    saved = op_info("ge.relu")
    path = tmp_path / "ops.json"
    path.write_text(
        json.dumps(
            {
                "ge.relu": {"fallback_enabled": True},
                "user.my_op": {
                    "engine": "AICPU",
                    "dtypes": ["float32"],
                    "inputs": [{"name": "x", "formats": ["NC1HWC0", "origin"]}],
                },
            }
        )
    )
    try:
        relu, mine = load_opinfo_file(path)
        assert relu.fallback_mode is FallbackMode.SUPPORT_ACLNN
        assert relu.inputs == saved.inputs
        assert mine.engine is Engine.AICPU and mine.num_combinations == 2
        assert find_op_info("user.my_op") is mine
    finally:
        register_op_info(saved)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"ge.relu": {"engine": "GPU"}}, "unknown engine 'GPU'"),
        ({"ge.relu": {"colour": 1}}, "unknown field 'colour'"),
        ({"ge.relu": {"fallback_mode": "aclnn_only"}}, "needs 'fallback_enabled'"),
        ({"ge.relu": {"dtypes": ["float7"]}}, "unsupported dtype 'float7'"),
        (
            {"ge.relu": {"inputs": [{"name": "x", "formats": ["NC9"]}]}},
            "unknown format",
        ),
        ({"ge.relu": []}, "must be a JSON object"),
        ({"relu": {}}, r"full names such as 'ge.relu' \(did you mean 'ge.relu'\?\)"),
        ({"ge.no_such_op": {}}, "the ge dialect has no such op"),
    ],
)
def test_bad_opinfo_files_are_one_line_errors(tmp_path: Path, record, message):
    path = tmp_path / "ops.json"
    path.write_text(json.dumps(record))
    with pytest.raises(GEError, match=message) as error:
        load_opinfo_file(path)
    assert "\n" not in str(error.value)


def test_unreadable_opinfo_file(tmp_path: Path):
    with pytest.raises(GEError, match="cannot read op info file"):
        load_opinfo_file(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(GEError, match="not valid JSON"):
        load_opinfo_file(tmp_path / "bad.json")
