"""`ge-atc` end to end: ONNX and single-op compiles, `.om` runs, clean errors."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from ge_dialect.formats import Format
from ge_dialect.relayout import transfer_shape
from ge_runtime.engines.dump import file_stem
from ge_runtime.offline.om import load_offline_model
from tools import ge_atc, ge_run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "small_cnn.onnx"
SINGLEOP = ROOT / "tests" / "filecheck" / "ge-atc" / "inputs" / "singleop.json"
EXAMPLE_SHAPE = "input:1,3,32,32"


def run_tool(main, capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of an in-process tool run."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, fragment: str) -> None:
    assert code == 1
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0], lines[0]


def compile_example(capsys, out: Path, *extra: str) -> Path:
    code, _, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={EXAMPLE}",
        "--framework=5",
        f"--output={out}",
        f"--input_shape={EXAMPLE_SHAPE}",
        *extra,
    )
    assert code == 0, err
    return out.with_suffix(".om")


# ---------------------------------------------------------------------------
# The bundled example
# ---------------------------------------------------------------------------


def test_bundled_example_is_what_the_script_writes() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_small_cnn", ROOT / "examples" / "make_small_cnn.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.make_model().SerializeToString() == EXAMPLE.read_bytes()
    assert EXAMPLE.stat().st_size < 300_000


@pytest.mark.parametrize("soc", [None, "Ascend910"])
def test_example_compiles_and_matches_onnxruntime(
    tmp_path: Path, capsys, soc: str | None
) -> None:
    ort = pytest.importorskip("onnxruntime")
    extra = [f"--soc_version={soc}"] if soc else []
    om = compile_example(capsys, tmp_path / "cnn", *extra)
    model = load_offline_model(om)
    assert model.target == soc
    assert model.manifest["inputs"][0]["shape"] == [1, 3, 32, 32]
    assert model.manifest["outputs"][0]["name"] == "probs"
    assert "ge.transdata" in model.ir and "NC1HWC0" in model.ir
    assert "FRACTAL_Z" in model.ir
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32), np.float32)
    np.save(tmp_path / "x.npy", x)
    code, out, err = run_tool(
        ge_run.main,
        capsys,
        om,
        f"--input=input={tmp_path / 'x.npy'}",
        "--check",
        f"--output-dir={tmp_path / 'out'}",
    )
    assert code == 0, err
    assert "check output_0 ('probs'): max abs error" in out and ": ok" in out
    assert "probs.npy: shape [1, 10], dtype float32" in out
    ours = np.load(tmp_path / "out" / "probs.npy")  # named by the ONNX output
    session = ort.InferenceSession(str(EXAMPLE), providers=["CPUExecutionProvider"])
    (ref,) = session.run(None, {"input": x})
    assert ours.shape == ref.shape == (1, 10)
    assert np.abs(ours - ref).max() <= 1e-3 * np.abs(ref).max()


def test_progress_lines_follow_log_level(tmp_path: Path, capsys) -> None:
    code, _, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={EXAMPLE}",
        "--framework=5",
        f"--output={tmp_path / 'a'}",
        f"--input_shape={EXAMPLE_SHAPE}",
    )
    assert code == 0
    stages = load_offline_model(tmp_path / "a.om").manifest["stages"]
    assert stages[:17] == [
        "import",
        "fold-bias-add",
        "fold-batch-norm",
        "fold-reduce-reshape",
        "fold-row-flatten",
        "fold-squeeze-chain",
        "fold-reshape-transpose",
        "fold-transpose-into-matmul",
        "fold-shapes",
        "fold-constants",
        "merge-identical-ops",
        "infer-origin-format",
        "infer-shape",
        "refine-running-format",
        "select-storage-format",
        "insert-transdata",
        "unchanged-transpose-remove",
    ]
    assert stages[17] == "round 1: same-transdata-breadth-fusion"
    lines = [line for line in err.splitlines() if line.startswith("ge-atc: [")]
    assert len(lines) == len(stages)
    for number, (line, stage) in enumerate(zip(lines, stages, strict=True)):
        assert line.startswith(f"ge-atc: [{number:02d}] {stage}: ")
        assert line.endswith(" runtime TransData")
    assert f"wrote {tmp_path / 'a.om'}" in err
    code, out, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={EXAMPLE}",
        "--framework=5",
        f"--output={tmp_path / 'b.om'}",
        f"--input_shape={EXAMPLE_SHAPE}",
        "--log=error",
    )
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "b.om").is_file() and not (tmp_path / "b.om.om").exists()


def test_dump_graph_writes_ir_and_picture_per_stage(tmp_path: Path, capsys) -> None:
    dump = tmp_path / "dump"
    om = compile_example(capsys, tmp_path / "cnn", f"--dump-graph={dump}")
    stages = load_offline_model(om).manifest["stages"]
    stems = [
        f"{i:02d}-{stage.replace(': ', '-').replace(' ', '-')}"
        for i, stage in enumerate(stages)
    ]
    assert sorted(p.name for p in dump.glob("*.mlir")) == [f"{s}.mlir" for s in stems]
    assert sorted(p.name for p in dump.glob("*.dot")) == [f"{s}.dot" for s in stems]
    inserted = stems[stages.index("insert-transdata")]
    assert "ge.transdata" not in (dump / f"{stems[0]}.mlir").read_text()
    assert "ge.transdata" in (dump / f"{inserted}.mlir").read_text()
    dot = (dump / f"{inserted}.dot").read_text()
    assert "NCHW -> NC1HWC0" in dot and "#d62728" in dot  # TransData highlighted
    assert "NCHW/NC1HWC0" in dot  # edges labelled with origin/storage formats


def test_pictures_render_when_graphviz_is_installed(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    from ge_runtime.offline import graphviz_dump

    module = load_offline_model(compile_example(capsys, tmp_path / "cnn")).module()
    monkeypatch.setattr(graphviz_dump.shutil, "which", lambda _: None)
    written = graphviz_dump.dump_stage(tmp_path / "no-dot", 3, "stage", module)
    assert [p.name for p in written] == ["03-stage.mlir", "03-stage.dot"]
    monkeypatch.undo()
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    written = graphviz_dump.dump_stage(tmp_path / "dot", 3, "stage", module)
    assert [p.name for p in written] == [
        "03-stage.mlir",
        "03-stage.dot",
        "03-stage.svg",
        "03-stage.png",
    ]
    svg = written[2].read_text()
    assert "<svg" in svg and "NCHW &#45;&gt; NC1HWC0" in svg  # the TransData's label
    assert written[3].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_big_graphs_are_dumped_without_pictures_and_say_so(
    tmp_path: Path, capsys, caplog
) -> None:
    """IR and .dot always; no rendering past the op limit, and a log line with
    the command that draws the picture."""
    from ge_runtime.offline import graphviz_dump

    module = load_offline_model(compile_example(capsys, tmp_path / "cnn")).module()
    with caplog.at_level(logging.INFO, logger="ge_runtime.offline.graphviz_dump"):
        written = graphviz_dump.dump_stage(
            tmp_path / "big", 7, "stage", module, picture_op_limit=10
        )
    assert [p.name for p in written] == ["07-stage.mlir", "07-stage.dot"]
    (message,) = [
        r.getMessage() for r in caplog.records if r.name == graphviz_dump.LOG.name
    ]
    dot = tmp_path / "big" / "07-stage.dot"
    assert message.startswith("07-stage: no picture of ")
    svg = dot.with_suffix(".svg")
    assert message.endswith(
        f"(more than 10); its IR and .dot are written "
        f"(draw it with `dot -Tsvg {dot} -o {svg}`)"
    )


def test_a_rendering_past_its_time_is_given_up(tmp_path: Path, caplog) -> None:
    from ge_runtime.offline import graphviz_dump

    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    dot = tmp_path / "slow.dot"
    edges = " ".join(f"a{i} -> a{i * 7 % 3001};" for i in range(3000))
    dot.write_text(f"digraph {{ {edges} }}")
    with caplog.at_level(logging.WARNING, logger="ge_runtime.offline.graphviz_dump"):
        assert graphviz_dump.render(dot, timeout=0.01) == []
    assert not list(tmp_path.glob("slow.svg")) and not list(tmp_path.glob("slow.png"))
    (message,) = [r.getMessage() for r in caplog.records]
    assert "no picture, rendering took more than 0.01 s" in message


def test_picture_nests_subgraphs_and_colours_by_storage_format() -> None:
    from ge_dialect.builder import GraphBuilder
    from ge_runtime.offline.graphviz_dump import FORMAT_COLOURS, graph_dot

    b = GraphBuilder("main")
    cond = b.data([1], "bool", name="cond")
    x = b.data([1, 17, 4, 4], "float16", format="NCHW", name="x")
    t = b.transdata(x, src_format="NCHW", dst_format="NC1HWC0", name="to_5hd")
    (y,) = b.if_(
        cond, [t], lambda s, a: s.relu(a), lambda s, a: s.neg(a), name="branch"
    )
    b.output(y)
    dot = graph_dot(b.build(), "cf").source
    assert 'label="branch region 0"' in dot and 'label="branch region 1"' in dot
    assert 'label="to_5hd\\ntransdata\\nNCHW -> NC1HWC0" fillcolor="#d62728"' in dot
    five_hd = FORMAT_COLOURS[Format.NC1HWC0]
    assert f'label="1x17x4x4xf16\\nNCHW/NC1HWC0" color="{five_hd}"' in dot
    assert "label=NC1HWC0" in dot  # the legend


def test_mode_1_writes_readable_json(tmp_path: Path, capsys) -> None:
    om = compile_example(capsys, tmp_path / "cnn", "--soc_version=Ascend910")
    code, _, err = run_tool(
        ge_atc.main, capsys, "--mode=1", f"--om={om}", f"--json={tmp_path / 'm.json'}"
    )
    assert code == 0, err
    described = json.loads((tmp_path / "m.json").read_text())
    assert described["manifest"]["soc_version"] == "Ascend910"
    assert described["manifest"]["compile_options"]["input_shape"] == EXAMPLE_SHAPE
    ops = {op["name"]: op for graph in described["graph"] for op in graph["op"]}
    conv = ops["conv1+bn1"]  # batch norm folded (fusion is on by default)
    assert conv["type"] == "ge.conv2d"
    assert conv["input_desc"][0]["storage_format"] == "NC1HWC0"
    assert conv["input_desc"][1]["storage_format"] == "FRACTAL_Z"
    assert conv["output_desc"][0]["storage_shape"] == [1, 2, 32, 32, 16]
    assert any(op["type"] == "ge.transdata" for op in ops.values())
    assert {w["name"] for w in described["weights"]} >= {"conv3.weight"}


# ---------------------------------------------------------------------------
# Single-op descriptions
# ---------------------------------------------------------------------------


def test_singleop_compiles_each_op_and_each_model_runs(tmp_path: Path, capsys) -> None:
    entries = json.loads(SINGLEOP.read_text())
    code, _, err = run_tool(
        ge_atc.main,
        capsys,
        f"--singleop={SINGLEOP}",
        f"--output={tmp_path / 'ops'}",
        "--soc_version=Ascend910",
    )
    assert code == 0, err
    files = sorted((tmp_path / "ops").glob("*.om"))
    assert [f.name.split("_")[1] for f in files] == [e["op"] for e in entries]
    assert files[0].name.startswith("0_Conv2D_float16_NC1HWC0_1_2_8_8_16_")
    for index, (path, entry) in enumerate(zip(files, entries, strict=True)):
        model = load_offline_model(path)
        assert model.manifest["op"] == entry["op"]
        assert model.manifest["op_index"] == index
        out = tmp_path / f"out{index}"
        code, stdout, err = run_tool(
            ge_run.main,
            capsys,
            path,
            "--random-inputs",
            "--check",
            "--stored-outputs",
            f"--output-dir={out}",
        )
        assert code == 0, err
        assert ": ok" in stdout
        stored = np.load(out / "output_0.npy")
        (desc,) = entry["output_desc"]
        assert list(stored.shape) == desc["shape"]


def test_singleop_storage_formats_reach_the_graph_interface(
    tmp_path: Path, capsys
) -> None:
    run_tool(
        ge_atc.main,
        capsys,
        f"--singleop={SINGLEOP}",
        f"--output={tmp_path}",
        "--soc_version=Ascend910",
    )
    conv = load_offline_model(next(tmp_path.glob("0_Conv2D_*.om")))
    inputs = conv.manifest["inputs"]
    assert [i["storage_format"] for i in inputs[:2]] == ["NC1HWC0", "FRACTAL_Z"]
    assert [i["name"] for i in inputs] == ["x", "filter", "bias"]
    assert conv.manifest["outputs"][0]["storage_shape"] == [1, 3, 8, 8, 16]
    assert "ge.transdata" not in conv.ir  # the layouts are given, nothing to convert
    matmul = load_offline_model(next(tmp_path.glob("1_MatMulV2_*.om")))
    assert matmul.manifest["outputs"][0]["storage_format"] == "FRACTAL_NZ"


def write_ops(tmp_path: Path, ops: list) -> Path:
    path = tmp_path / "ops.json"
    path.write_text(json.dumps(ops))
    return path


def volume_desc(shape: list[int], storage: str, origin: str = "NDHWC") -> dict:
    """A float16 tensor desc of origin `shape`, stored in `storage`."""
    stored = list(transfer_shape(shape, origin, storage, "float16"))
    return {"format": storage, "origin_format": origin, "origin_shape": shape,
            "shape": stored, "type": "float16"}  # fmt: skip


def test_3d_single_ops_compile_and_run_in_3d_formats(tmp_path: Path, capsys) -> None:
    """ATC's Conv3D, MaxPool3D (padding SAME) and AvgPool3D single ops on
    NDHWC origins compile to `ge.conv3d`, `ge.max_pool3d`, `ge.avg_pool3d`
    with NDC1HWC0 (and FRACTAL_Z_3D) interfaces and run on the JIT, checked
    against the reference evaluator."""
    x = [1, 3, 5, 4, 17]

    def attr(name: str, kind: str, value) -> dict:
        return {"name": name, "type": kind, "value": value}

    ops = [
        {
            "op": "Conv3D",
            "input_desc": [
                volume_desc(x, "NDC1HWC0"),
                volume_desc([6, 17, 2, 3, 2], "FRACTAL_Z_3D", "NCDHW"),
            ],
            "output_desc": [volume_desc([1, 2, 3, 3, 6], "NDC1HWC0")],
            "attr": [attr("strides", "list_int", [1, 1, 1, 1, 1])],
        },
        {
            "op": "MaxPool3D",
            "input_desc": [volume_desc(x, "NDC1HWC0")],
            "output_desc": [volume_desc([1, 2, 3, 2, 17], "NDC1HWC0")],
            "attr": [
                attr("ksize", "list_int", [1, 2, 3, 2, 1]),
                attr("strides", "list_int", [1, 2, 2, 2, 1]),
                attr("padding", "string", "SAME"),
            ],
        },
        {
            "op": "AvgPool3D",
            "input_desc": [volume_desc(x, "NDC1HWC0")],
            "output_desc": [volume_desc([1, 1, 4, 4, 17], "NDC1HWC0")],
            "attr": [
                attr("ksize", "list_int", [1, 3, 2, 3, 1]),
                attr("pads", "list_int", [0, 0, 0, 0, 1, 1]),
                attr("count_include_pad", "bool", True),
            ],
        },
    ]
    out = tmp_path / "ops"
    code, _, err = run_tool(
        ge_atc.main, capsys, f"--singleop={write_ops(tmp_path, ops)}", f"--output={out}"
    )
    assert code == 0, err
    files = sorted(out.glob("*.om"))
    assert [f.name.split("_")[1] for f in files] == [op["op"] for op in ops]
    for path, ge_op in zip(
        files, ("ge.conv3d", "ge.max_pool3d", "ge.avg_pool3d"), strict=True
    ):
        model = load_offline_model(path)
        assert f"= {ge_op} " in model.ir
        assert model.manifest["inputs"][0]["storage_format"] == "NDC1HWC0"
        assert model.manifest["outputs"][0]["storage_format"] == "NDC1HWC0"
        code, stdout, err = run_tool(
            ge_run.main, capsys, path, "--random-inputs", "--check", "--trace"
        )
        assert code == 0, err
        assert ": ok" in stdout


RELU = {
    "op": "Relu",
    "input_desc": [{"format": "NCHW", "shape": [1, 3, 4, 4], "type": "float16"}],
    "output_desc": [{"format": "NCHW", "shape": [1, 3, 4, 4], "type": "float16"}],
}


def nc1hwc0(storage: list[int], origin: list[int]) -> dict:
    return {
        "format": "NC1HWC0",
        "origin_format": "NCHW",
        "shape": storage,
        "origin_shape": origin,
        "type": "float16",
    }


@pytest.mark.parametrize(
    ("op", "fragment"),
    [
        ({**RELU, "op": "Frobnicate"}, "op type 'Frobnicate' is not supported"),
        (
            {**RELU, "input_desc": [nc1hwc0([1, 1, 4, 4, 8], [1, 3, 4, 4])]},
            "shape [1, 1, 4, 4, 8] is not the NC1HWC0 shape [1, 1, 4, 4, 16]",
        ),
        (
            {
                **RELU,
                "input_desc": [{"format": "NC1HWC0", "shape": [1], "type": "float16"}],
            },
            'internal format NC1HWC0 needs "origin_format"',
        ),
        (
            {
                **RELU,
                "output_desc": [
                    {"format": "NCHW", "shape": [1, 3, 4, 5], "type": "float16"}
                ],
            },
            "output_desc[0] has shape [1, 3, 4, 5], the op computes [1, 3, 4, 4]",
        ),
        (
            {**RELU, "attr": [{"name": "alpha", "type": "float", "value": 1.0}]},
            "unknown attr 'alpha'",
        ),
        ({**RELU, "input_desc": []}, "has 0 input_desc, Relu takes (x)"),
        (
            {
                **RELU,
                "input_desc": [{"format": "NCHW", "shape": [1], "type": "complex"}],
            },
            "unknown type 'complex'",
        ),
        (
            {
                **RELU,
                "input_desc": [{"format": "NCWH", "shape": [1], "type": "float16"}],
            },
            "unknown format 'NCWH'",
        ),
        ({**RELU, "colour": "red"}, "unknown key 'colour'"),
        (
            {
                "op": "Conv2D",
                "input_desc": RELU["input_desc"] * 2,
                "output_desc": RELU["output_desc"],
                "attr": [{"name": "strides", "type": "list_int", "value": 1}],
            },
            "attr 'strides': value 1 is not a list_int",
        ),
    ],
)
def test_bad_singleop_entries_are_one_line_errors(
    tmp_path: Path, capsys, op: dict, fragment: str
) -> None:
    path = write_ops(tmp_path, [RELU, op])  # the good first op is not written either
    out = tmp_path / "out"
    code, _, err = run_tool(
        ge_atc.main, capsys, f"--singleop={path}", f"--output={out}"
    )
    assert_one_line_error(code, err, fragment)
    assert "op #1" in err
    assert not list(tmp_path.rglob("*.om"))


def test_invalid_singleop_json_is_one_line_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "ops.json"
    path.write_text('[{"op": "Relu",\n  "input_desc": [}]')
    code, _, err = run_tool(ge_atc.main, capsys, f"--singleop={path}", "--output=x")
    expected = f"{path}:2:18: error: single-op file is not valid JSON"
    assert_one_line_error(code, err, expected)


# ---------------------------------------------------------------------------
# Bad flags, bad models, bad offline models
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--framework=0"], "--framework=0 (Caffe) is not supported"),
        (
            ["--framework=5", "--input_shape=input:1,3,x,32"],
            "bad input shape 'input:1,3,x,32'",
        ),
        (["--framework=5", "--input_shape=input"], "bad input shape 'input'"),
        (
            ["--framework=5", "--input_shape=image:1,3,32,32"],
            "'image'",
        ),
        (["--framework=5", "--soc_version=Ascend999"], "unknown target 'Ascend999'"),
        (
            ["--framework=5", "--input_format=NCWH"],
            "--input_format=NCWH is not supported",
        ),
        (["--framework=5", "--mode=3"], "--mode=3 is not supported"),
        (["--framework=5", "--log=loud"], "argument --log: invalid choice: 'loud'"),
        (["--framework=abc"], "argument --framework: invalid int value: 'abc'"),
        (["--framework=5", "--bogus"], "unrecognized arguments: --bogus"),
        ([], "--framework is required with --model"),
    ],
)
def test_bad_flags_are_one_line_errors(
    tmp_path: Path, capsys, flags: list[str], fragment: str
) -> None:
    args = [f"--model={EXAMPLE}", f"--output={tmp_path / 'm'}", *flags]
    code, _, err = run_tool(ge_atc.main, capsys, *args)
    assert_one_line_error(code, err, fragment)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--framework=5", "--output=m"], "--model is required"),
        ([f"--model={EXAMPLE}", "--framework=5"], "--output is required"),
        (["--mode=1", "--om=m.om"], "--mode=1 needs --om=FILE.om and --json=FILE.json"),
        (["--singleop=ops.json"], "--output (a directory) is required"),
    ],
)
def test_missing_flags_are_one_line_errors(
    tmp_path: Path, capsys, monkeypatch, args: list[str], fragment: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_tool(ge_atc.main, capsys, *args)
    assert_one_line_error(code, err, fragment)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            b"\x08\x07garbage that is not protobuf \xff\xff\xff",
            "not a readable ONNX model",
        ),
        ("half", "not a readable ONNX model"),
        (b"", "not an ONNX model"),
        (None, "cannot open ONNX model"),
    ],
)
def test_bad_onnx_files_are_one_line_errors(
    tmp_path: Path, capsys, content: bytes | str | None, fragment: str
) -> None:
    model = tmp_path / "model.onnx"
    if content == "half":
        data = EXAMPLE.read_bytes()
        model.write_bytes(data[: len(data) // 2])
    elif content is not None:
        model.write_bytes(content)
    out = tmp_path / "out"
    code, _, err = run_tool(
        ge_atc.main, capsys, f"--model={model}", "--framework=5", f"--output={out}"
    )
    assert_one_line_error(code, err, fragment)
    assert not out.with_suffix(".om").exists()


def test_unsupported_onnx_op_is_one_line_error(tmp_path: Path, capsys) -> None:
    # An op of a domain nobody implements: it stays unsupported as ops are added.
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 2])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 2])],
    )
    path = tmp_path / "frobnicate.onnx"
    model = onnx.helper.make_model(
        graph,
        opset_imports=[
            onnx.helper.make_opsetid("", 17),
            onnx.helper.make_opsetid("com.example", 1),
        ],
    )
    onnx.save(model, path)
    code, _, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={path}",
        "--framework=5",
        f"--output={tmp_path / 'x'}",
    )
    assert_one_line_error(code, err, "unsupported ONNX ops: com.example.Frobnicate")
    assert not (tmp_path / "x.om").exists()


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_ge_run_rejects_damaged_offline_models(
    tmp_path: Path, capsys, damage: str
) -> None:
    om = compile_example(capsys, tmp_path / "cnn", "--log=error")
    data = bytearray(om.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[len(data) // 2] ^= 1
    else:
        data = bytearray(b"not an offline model")
    om.write_bytes(bytes(data))
    out = tmp_path / "out"
    code, _, err = run_tool(
        ge_run.main, capsys, om, "--random-inputs", f"--output-dir={out}"
    )
    fragment = {
        "truncate": "truncated offline model",
        "flip": "checksum mismatch",
        "garbage": "bad magic number",
    }[damage]
    assert_one_line_error(code, err, fragment)
    assert not out.exists()


def test_check_compares_against_max_reference(capsys) -> None:
    ref = np.array([[1.0, -4.0]], np.float32)
    ge_run.check_outputs([ref + np.float32(0.004)], [ref], 1e-3, ["y"])
    assert capsys.readouterr().out == (
        "check output_0 ('y'): max abs error 4.000e-03 (limit 4.000e-03), "
        "max |reference| 4.000e+00: ok\n"
    )
    with pytest.raises(ge_run.GEError, match="output_0 differs from the reference"):
        ge_run.check_outputs([ref + np.float32(0.005)], [ref], 1e-3)
    assert "MISMATCH" in capsys.readouterr().out
    ints = np.array([3, 4], np.int64)
    with pytest.raises(ge_run.GEError, match="output_0 differs"):
        ge_run.check_outputs([ints + 1], [ints], 1.0)


def test_check_on_an_mlir_graph_compares_the_jit(tmp_path: Path, capsys) -> None:
    mlir = ROOT / "examples" / "conv_block.mlir"
    code, out, _ = run_tool(
        ge_run.main,
        capsys,
        mlir,
        "--check",
        "--random-inputs",
        f"--output-dir={tmp_path}",
    )
    assert code == 0
    assert "check output_0: max abs error" in out and ": ok" in out


# ---------------------------------------------------------------------------
# The ONNX package's light/ models (slow)
# ---------------------------------------------------------------------------

LIGHT_MODELS = (
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "squeezenet",
    "vgg19",
    "zfnet512",
)


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_model_compiles_runs_and_matches_onnxruntime(
    tmp_path: Path, capsys, name: str
) -> None:
    """Seeded random weights; ge-atc, then ge-run (JIT) against onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    from ge_frontend.onnx_weights import light_model

    model = light_model(name, seed=0)
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (feed,) = session.get_inputs()
    x = np.random.default_rng(0).standard_normal(feed.shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    om = tmp_path / f"{name}.om"
    code, _, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={path}",
        "--framework=5",
        f"--output={om}",
        "--soc_version=Ascend910",
        "--log=error",
    )
    assert code == 0, err
    path.unlink()
    code, _, err = run_tool(
        ge_run.main,
        capsys,
        om,
        f"--input=0={tmp_path / 'x.npy'}",
        f"--output-dir={tmp_path / 'out'}",
    )
    assert code == 0, err
    (ref,) = session.run(None, {feed.name: x})
    (output,) = session.get_outputs()
    ours = np.load(tmp_path / "out" / f"{file_stem(output.name)}.npy")
    assert ours.shape == ref.shape
    error = np.abs(ours - ref).max()
    assert error <= 1e-3 * np.abs(ref).max(), f"max abs error {error}"


def test_report_transdata_lists_each_site_and_the_refusals(
    tmp_path: Path, capsys
) -> None:
    """`--report-transdata`: the count, then per runtime TransData its line
    (as bench/ prints it) and which neighbour refused which format, and why
    (recorded by the format passes as they decided)."""
    om = compile_example(capsys, tmp_path / "cnn")
    plain = load_offline_model(om).module()
    code, out, err = run_tool(
        ge_atc.main,
        capsys,
        f"--model={EXAMPLE}",
        "--framework=5",
        f"--output={tmp_path / 'reported'}",
        f"--input_shape={EXAMPLE_SHAPE}",
        "--report-transdata",
    )
    assert code == 0, err
    from passes.format_pipeline import runtime_transdata_sites

    sites = runtime_transdata_sites(plain)
    lines = out.splitlines()
    assert lines[0] == f"{len(sites)} runtime TransData"
    assert [line for line in lines if not line.startswith(" ")][1:] == sites
    assert "NCHW->NC1HWC0 input" in out or "NCHW->NC1HWC0 data" in out
    assert "refused NC1HWC0\n    select-storage-format: the graph interface" in out
    assert "no refusal recorded" not in out
    # recording changes nothing in the compiled graph
    reported = load_offline_model(tmp_path / "reported.om").module()
    assert str(reported) == str(plain)
