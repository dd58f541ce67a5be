"""Data dump and compare: origin-layout dumps, onnxruntime intermediates,
and locating the first diverging op (an injected wrong kernel)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest

from ge_dialect.diagnostics import GEError
from ge_runtime.engines.dump import (
    MANIFEST,
    MAX_STEM,
    DumpWriter,
    compare_dumps,
    file_stem,
    load_dump,
)
from ge_runtime.engines.executor import Runtime
from ge_runtime.engines.kernels import KernelCall, builtin_registry, host
from ge_runtime.graph_io import find_graph
from tools import ge_atc, ge_dump_compare, ge_run
from tools.ge_dump_compare import onnx_dump

pytest.importorskip("onnxruntime")


def light_model(name: str, tmp_path: Path) -> tuple[Path, np.ndarray]:
    """A light model with seeded random weights saved to tmp_path, and an input."""
    from ge_frontend.onnx_weights import light_model

    model = light_model(name)
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    (feed,) = [i for i in model.graph.input if i.name not in initializers(model)]
    shape = [d.dim_value for d in feed.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return path, x


def initializers(model: onnx.ModelProto) -> set[str]:
    return {i.name for i in model.graph.initializer}


def compile_om(model: Path, tmp_path: Path) -> Path:
    om = tmp_path / "model.om"
    code = ge_atc.main(
        [f"--model={model}", "--framework=5", f"--output={om}", "--log=error"]
    )
    assert code == 0
    return om


def dump_through_cli(name: str, tmp_path: Path, capsys) -> None:
    model, x = light_model(name, tmp_path)
    om = compile_om(model, tmp_path)
    np.save(tmp_path / "x.npy", x)
    code = ge_run.main(
        [
            str(om),
            f"--input=0={tmp_path / 'x.npy'}",
            f"--dump={tmp_path / 'dump'}",
            f"--output-dir={tmp_path / 'out'}",
        ]
    )
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    code = ge_dump_compare.main([str(tmp_path / "dump"), str(model)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert out.startswith("no divergence: ")
    compared = int(out.split(": ")[1].split()[0])
    convs = sum(n.op_type == "Conv" for n in onnx.load(os.fspath(model)).graph.node)
    assert compared > convs


def test_dump_of_a_small_model_matches_onnxruntime(tmp_path: Path, capsys):
    dump_through_cli("squeezenet", tmp_path, capsys)


@pytest.mark.slow
def test_dump_of_resnet50_matches_onnxruntime(tmp_path: Path, capsys):
    dump_through_cli("resnet50", tmp_path, capsys)


def test_injected_wrong_kernel_is_located(tmp_path: Path):
    """A wrong kernel for the op computing one conv (with its relu when they
    are fused): the compare names that op, not a later one."""
    from ge_runtime.offline.om import load_offline_model

    model, x = light_model("squeezenet", tmp_path)
    offline = load_offline_model(compile_om(model, tmp_path))
    convs = [
        n.name for n in onnx.load(os.fspath(model)).graph.node if n.op_type == "Conv"
    ]
    graph = find_graph(offline.module())
    labels = [
        op.attributes["name"].data for op in graph.walk() if "name" in op.attributes
    ]
    culprit = next(n for n in labels if convs[5] in n.split("+"))
    registry = builtin_registry()

    def off_by_a_bit(call: KernelCall) -> None:
        host(call)
        call.outputs[0] *= 1.01

    op_type = next(
        op.name
        for op in graph.walk()
        if getattr(op.attributes.get("name"), "data", None) == culprit
    )
    registry.register(op_type, "off_by_a_bit", off_by_a_bit)
    data_name = graph.inputs()[0].attributes["name"].data
    writer = DumpWriter(tmp_path / "ours")
    runtime = Runtime(
        graph,
        offline.weights,
        registry=registry,
        selection={culprit: "off_by_a_bit"},
        dumper=writer,
    )
    runtime.run({data_name: x})
    writer.close()
    onnx_dump(model, {data_name: x}, tmp_path / "ort")
    comparison = compare_dumps(
        load_dump(tmp_path / "ours"), load_dump(tmp_path / "ort")
    )
    first = comparison.first_divergence
    assert first is not None and first.ours == culprit
    assert first.name == culprit.split("+")[-1] and first.error > first.limit
    assert all(c.ok for c in comparison.checks[:-1])
    assert len(comparison.checks) > 5
    with pytest.raises(GEError, match="kernel selection 'conv99' names no node"):
        Runtime(graph, offline.weights, selection={"conv99": "jit"})


# ---------------------------------------------------------------------------
# The dump folder
# ---------------------------------------------------------------------------

GRAPH = """\
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %t = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
    : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
    -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %t {name = "block/relu"}
    : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
    -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
    : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
    -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
}
"""


def test_dump_files_are_origin_layout_named_after_ops(tmp_path: Path, capsys):
    graph = tmp_path / "g.mlir"
    graph.write_text(GRAPH)
    x = np.random.default_rng(0).standard_normal((1, 17, 4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    dump = tmp_path / "dump"
    code = ge_run.main(
        [
            str(graph),
            f"--input=x={tmp_path / 'x.npy'}",
            f"--dump={dump}",
            "--dump-stored",
            f"--output-dir={tmp_path / 'out'}",
        ]
    )
    assert code == 0, capsys.readouterr().err
    manifest = json.loads((dump / MANIFEST).read_text())
    entries = manifest["entries"]
    assert [e["name"] for e in entries] == [
        "x",
        "transdata_0",
        "block/relu",
        "transdata_1",
    ]
    relu = entries[2]["outputs"][0]
    assert relu["file"] == "block_relu.npy" == f"{file_stem('block/relu')}.npy"
    assert relu["origin_format"] == "NCHW" and relu["storage_format"] == "NC1HWC0"
    np.testing.assert_array_equal(np.load(dump / relu["file"]), np.maximum(x, 0))
    stored = np.load(dump / relu["stored_file"])
    assert stored.shape == (1, 3, 4, 4, 8)  # C0 = 8 for float32, padding zero
    assert not stored[:, 2, :, :, 1:].any()
    np.testing.assert_array_equal(np.load(dump / "x.npy"), x)


FUSED_NAME = "+".join(f"/encoder/layer.{i}/attention/self/MatMul" for i in range(40))
"""A fused group's node name far beyond the 255 bytes a file name may have."""


@pytest.mark.parametrize(
    ("name", "stem"),
    [("conv1", "conv1"), ("a/b:0", "a_b_0"), ("..", "_"), (".hidden", "hidden")],
)
def test_file_stem_is_a_plain_file_name(name: str, stem: str) -> None:
    assert file_stem(name) == stem


def test_long_names_get_bounded_distinct_stems() -> None:
    other = FUSED_NAME.replace("layer.39", "layer.99")  # same first MAX_STEM chars
    stems = {file_stem(FUSED_NAME), file_stem(other)}
    assert len(stems) == 2
    assert all(len(stem) == MAX_STEM for stem in stems)
    assert file_stem(FUSED_NAME) == file_stem(FUSED_NAME)  # deterministic


def test_dump_writer_writes_long_and_clashing_names(tmp_path: Path) -> None:
    arrays = {FUSED_NAME: np.ones(2), "a/b": np.zeros(1), "a_b": np.full(3, 7.0)}
    dump = load_dump(dump_arrays(tmp_path / "dump", arrays))
    files = [entry.files[0].name for entry in dump.entries]
    assert files[1:] == ["a_b.npy", "a_b~2.npy"]
    assert len(files[0]) == MAX_STEM + len(".npy")
    for entry, array in zip(dump.entries, arrays.values(), strict=True):
        np.testing.assert_array_equal(entry.arrays()[0], array)


def test_ge_run_names_output_files_by_the_graph_output_names(
    tmp_path: Path, capsys
) -> None:
    """Names from `output_names` (sanitised, bounded, unique); `output_<i>`
    for an output without one."""
    graph = tmp_path / "g.mlir"
    names = ["logits/0", "logits:0", FUSED_NAME]
    graph.write_text(
        "ge.graph @main {\n"
        '  %x = ge.data {index = 0 : i64, name = "x"} : tensor<3xf32>\n'
        "  %y = ge.relu %x : tensor<3xf32> -> tensor<3xf32>\n"
        "  ge.netoutput %x, %y, %x, %y"
        " : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>"
        f" {{output_names = {json.dumps(names)}}}\n"
        "}\n"
    )
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    code = ge_run.main(
        [
            "--reference",
            str(graph),
            f"--input=x={tmp_path / 'x.npy'}",
            f"--output-dir={out}",
        ]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    expected = ["logits_0.npy", "logits_0~2.npy", f"{file_stem(FUSED_NAME)}.npy"]
    expected.append("output_3.npy")
    assert sorted(p.name for p in out.iterdir()) == sorted(expected)
    assert [line.split(":")[0] for line in printed.out.splitlines()] == expected
    for file, value in zip(expected, [x, np.maximum(x, 0)] * 2, strict=True):
        np.testing.assert_array_equal(np.load(out / file), value)


def dump_arrays(directory: Path, arrays: dict[str, np.ndarray]) -> Path:
    writer = DumpWriter(directory)
    for name, array in arrays.items():
        writer.add(name, "ge.op", [array])
    writer.close()
    return directory


def test_compare_names_the_first_divergence_in_reference_order(tmp_path: Path, capsys):
    a = np.ones((2, 3), np.float32)
    reference = dump_arrays(tmp_path / "ref", {"n1": a, "n2": 2 * a, "n3": 3 * a})
    ours = dump_arrays(tmp_path / "ours", {"n1": a, "n3": 0 * a, "n2": 2.5 * a})
    comparison = compare_dumps(load_dump(ours), load_dump(reference))
    assert comparison.first_divergence is not None
    assert comparison.first_divergence.name == "n2"
    assert "first divergence at op 'n2'" in comparison.summary()
    code = ge_dump_compare.main([str(ours), str(reference), "--all"])
    out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1
    assert "ge-dump-compare: error: first divergence at op 'n2'" in err
    assert len(out.splitlines()) == 3 and "DIVERGES" in out
    same = dump_arrays(tmp_path / "same", {"n1": a, "n2": 2 * a + 1e-7, "n3": 3 * a})
    assert ge_dump_compare.main([str(same), str(reference)]) == 0
    assert "no divergence: 3 ops compared" in capsys.readouterr().out


def test_compare_uses_the_last_helper_of_an_imported_node(tmp_path: Path):
    """ONNX node `gemm` imported as `gemm` then `gemm/bias`: the helper holds
    the node's value; another reference node's name is never a helper."""
    a = np.ones(4, np.float32)
    reference = dump_arrays(tmp_path / "ref", {"gemm": 3 * a, "gemm/x": a})
    ours = dump_arrays(
        tmp_path / "ours", {"gemm": 2 * a, "gemm/bias": 3 * a, "gemm/x": a}
    )
    comparison = compare_dumps(load_dump(ours), load_dump(reference))
    assert comparison.first_divergence is None and len(comparison.checks) == 2


def test_not_a_dump_is_one_line_error(tmp_path: Path):
    with pytest.raises(GEError, match="is not a dump"):
        load_dump(tmp_path)
    (tmp_path / MANIFEST).write_text("{}")
    with pytest.raises(GEError, match="manifest.json: error: invalid dump manifest"):
        load_dump(tmp_path)
