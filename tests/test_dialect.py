"""The `ge` dialect: op coverage of the FileCheck tests, attributes, layout
checks, one-line diagnostics and the `ge-opt` command line (error paths)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Builtin,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
    f16,
    f32,
    i32,
    i64,
)
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.formats import Format
from ge_dialect.layout import (
    check_tensor_type,
    layout_of,
    reshape_type_of,
    shape_of,
    storage_shape_of,
    with_layout,
)
from ge_dialect.locations import error_at, location_text
from ge_dialect.ops import (
    GE_OPS,
    Conv2DOp,
    DataOp,
    GraphOp,
    TransDataOp,
    attribute_value,
    broadcast_shapes,
    python_attributes,
)
from ge_dialect.parsing import parse_module
from tools.ge_opt import main as ge_opt_main

ROOT = Path(__file__).resolve().parent.parent
DIALECT_TESTS = ROOT / "tests" / "filecheck" / "dialect"
ROUND_TRIP_FILES = sorted(
    p for p in DIALECT_TESTS.glob("*.mlir") if not p.name.startswith("invalid-")
)
INVALID_FILES = sorted(DIALECT_TESTS.glob("invalid-*.mlir"))
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx


def print_text(module: ModuleOp, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    return parse_module(context(), text, name)


def chunks(path: Path) -> list[str]:
    return [c for c in SPLIT.split(path.read_text()) if c.strip()]


def graph(body: str, name: str = "g") -> str:
    return f"ge.graph @{name} {{\n{body}\n}}\n"


# ---------------------------------------------------------------------------
# Coverage of the FileCheck tests
# ---------------------------------------------------------------------------


def code_lines(path: Path) -> str:
    """The file without its comment lines (RUN/CHECK lines do not count)."""
    return "\n".join(
        line
        for line in path.read_text().splitlines()
        if not line.strip().startswith("//")
    )


def test_dialect_tests_exist():
    assert len(ROUND_TRIP_FILES) >= 9
    assert len(INVALID_FILES) >= 9


@pytest.mark.parametrize("op", GE_OPS, ids=lambda op: op.name)
def test_every_op_has_a_round_trip_test(op):
    pattern = re.compile(rf"(?<![\w.]){re.escape(op.name)}(?![\w])")
    assert any(pattern.search(code_lines(p)) for p in ROUND_TRIP_FILES), (
        f"{op.name} occurs in no round-trip test in {DIALECT_TESTS}"
    )


def test_every_test_file_has_run_lines():
    for path in ROUND_TRIP_FILES:
        text = path.read_text()
        assert "// RUN: ge-opt %s" in text and "--print-op-generic" in text, path
        assert "CHECK-LABEL: ge.graph @" in text, path
    for path in INVALID_FILES:
        assert "--split-input-file --verify-diagnostics" in path.read_text(), path


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=lambda p: p.name)
def test_round_trip_in_process(path):
    for text in chunks(path):
        module = parse(text, path.name)
        custom = print_text(module)
        assert print_text(parse(custom)) == custom
        generic = print_text(module, generic=True)
        assert print_text(parse(generic)) == custom


@pytest.mark.parametrize("path", INVALID_FILES, ids=lambda p: p.name)
def test_every_invalid_case_fails_with_one_line(path):
    for text in chunks(path):
        with pytest.raises(GEError) as info:
            parse(text, path.name)
        message = str(info.value)
        assert "\n" not in message
        assert re.match(rf"{re.escape(path.name)}:\d+:\d+: error: \S", message), message


# ---------------------------------------------------------------------------
# Attributes and the layout encoding
# ---------------------------------------------------------------------------


def test_format_attr():
    attr = FormatAttr(Format.NC1HWC0)
    assert attr.format is Format.NC1HWC0
    assert str(attr) == "#ge.format<NC1HWC0>"


def test_layout_attr_defaults_storage_to_origin():
    layout = LayoutAttr("NCHW")
    assert layout.origin_format is layout.storage_format is Format.NCHW
    assert layout.explicit_storage_shape is None
    assert layout.explicit_reshape_type is None
    assert str(layout) == "#ge.layout<NCHW>"


def test_layout_attr_parameters_print_canonically():
    layout = LayoutAttr("NCHW", "FRACTAL_Z", storage_shape=[9, 1, 16, 16])
    assert layout.explicit_storage_shape == (9, 1, 16, 16)
    assert str(layout) == "#ge.layout<NCHW, FRACTAL_Z, storage_shape = [9, 1, 16, 16]>"
    bias = LayoutAttr("NCHW", reshape_type="C")
    assert bias.explicit_reshape_type == "C"
    assert str(bias) == '#ge.layout<NCHW, NCHW, reshape_type = "C">'


@pytest.mark.parametrize("origin", ["NC1HWC0", "FRACTAL_NZ", "RESERVED"])
def test_layout_attr_rejects_non_origin_formats(origin):
    with pytest.raises(VerifyException, match=origin):
        LayoutAttr(origin, "NCHW")


def test_external_data_attr():
    attr = ExternalDataAttr("conv1.weight")
    assert attr.key.data == "conv1.weight"
    assert str(attr) == '#ge.external<"conv1.weight">'


def test_layout_helpers():
    tensor = TensorType(f16, [1, 3, 8, 8], LayoutAttr("NCHW", "NC1HWC0"))
    assert layout_of(tensor) == (Format.NCHW, Format.NC1HWC0)
    assert layout_of(TensorType(f16, [2])) == (Format.ND, Format.ND)
    assert storage_shape_of(tensor) == (1, 1, 8, 8, 16)
    assert storage_shape_of(TensorType(f16, [2, 3])) == (2, 3)
    plain = with_layout(tensor, "ND")
    assert plain.encoding == TensorType(f16, [1]).encoding
    assert layout_of(with_layout(plain, "NHWC", "NC1HWC0")) == (
        Format.NHWC,
        Format.NC1HWC0,
    )
    bias = with_layout(TensorType(f32, [64]), "NCHW", "NC1HWC0", reshape_type="C")
    assert reshape_type_of(bias) == "C"
    assert storage_shape_of(bias) == (1, 8, 1, 1, 8)


def test_platform_table_changes_the_derived_storage_shape():
    tensor = TensorType(f32, [1, 3, 8, 8], LayoutAttr("NCHW", "NC1HWC0"))
    assert storage_shape_of(tensor) == (1, 1, 8, 8, 8)
    assert storage_shape_of(tensor, target="Ascend910")[-1] == 16


def test_unknown_dims_are_minus_one():
    tensor = TensorType(f16, [DYNAMIC_INDEX, 3, 4, 4], LayoutAttr("NCHW", "NC1HWC0"))
    assert shape_of(tensor) == (-1, 3, 4, 4)
    assert storage_shape_of(tensor) == (-1, 1, 4, 4, 16)
    check_tensor_type(tensor)


@pytest.mark.parametrize(
    ("shape", "layout", "message"),
    [
        ([1, 1, 3, 8, 8], LayoutAttr("NCHW"), "rank 5 is too large"),
        ([3, 8], LayoutAttr("NCHW", reshape_type="HC"), 'reshape_type "HC"'),
        ([3, 8], LayoutAttr("NCHW", reshape_type="C"), 'reshape_type "C"'),
        ([1, 8, 3, 3], LayoutAttr("NCHW", "FRACTAL_Z_C04"), "C <= 4"),
        ([8, 3], LayoutAttr("ND", "NC1HWC0"), "cannot be stored as NC1HWC0"),
        (
            [1, 3, 8, 8],
            LayoutAttr("NCHW", "NC1HWC0", storage_shape=[1, 1, 8, 8, 16]),
            "does not match the NC1HWC0 shape",
        ),
    ],
)
def test_check_tensor_type_rejects(shape, layout, message):
    with pytest.raises(VerifyException, match=re.escape(message)):
        check_tensor_type(TensorType(f32, shape, layout))


def test_check_tensor_type_rejects_foreign_encodings():
    with pytest.raises(VerifyException, match="must be #ge.layout"):
        check_tensor_type(TensorType(f32, [2], StringAttr("x")))


def test_broadcast_shapes():
    assert broadcast_shapes((4, 1, 3), (2, 1)) == (4, 2, 3)
    assert broadcast_shapes((-1, 3), (2, 1)) == (2, 3)
    assert broadcast_shapes((-1, 3), (1, 3)) == (-1, 3)
    assert broadcast_shapes((2, 3), (4, 3)) is None
    assert broadcast_shapes() == ()


# ---------------------------------------------------------------------------
# Ops: Python access and verification
# ---------------------------------------------------------------------------


CONV = graph(
    "  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>\n"
    "  %w = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>\n"
    '  %y = ge.conv2d %x, %w {data_format = "NCHW", '
    "strides = array<i64: 1, 1, 2, 2>} : "
    "(tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x3x3xf32>\n"
    "  ge.netoutput %y : tensor<1x8x3x3xf32>"
)


def test_attribute_values_and_defaults():
    module = parse(CONV)
    conv = next(op for op in module.walk() if isinstance(op, Conv2DOp))
    assert attribute_value(conv, "strides") == [1, 1, 2, 2]
    assert attribute_value(conv, "pads") == [0, 0, 0, 0]
    assert conv.value_of("groups") == 1
    assert conv.value_of("data_format") == "NCHW"
    attrs = python_attributes(conv)
    assert attrs["dilations"] == [1, 1, 1, 1] and attrs["strides"] == [1, 1, 2, 2]
    with pytest.raises(KeyError, match="no attribute 'axis'"):
        attribute_value(conv, "axis")


def test_graph_inputs_and_output():
    module = parse(CONV)
    graph_op = next(op for op in module.walk() if isinstance(op, GraphOp))
    assert [d.index_value for d in graph_op.inputs()] == [0, 1]
    assert len(graph_op.output.operands) == 1


def test_transdata_python_attributes():
    x_type = "tensor<1x3x8x8xf16, #ge.layout<NCHW>>"
    y_type = "tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>"
    text = graph(
        f"  %x = ge.data {{index = 0 : i64}} : {x_type}\n"
        "  %y = ge.transdata %x {src_format = #ge.format<NCHW>, "
        f"dst_format = #ge.format<NC1HWC0>}} : {x_type} -> {y_type}\n"
        f"  ge.netoutput %y : {y_type}"
    )
    op = next(op for op in parse(text).walk() if isinstance(op, TransDataOp))
    assert op.value_of("src_format") == "NCHW"
    assert op.value_of("dst_format") == "NC1HWC0"
    assert op.value_of("groups") == 1


def test_data_op_index_value():
    data = DataOp.build(
        attributes={"parent_index": IntegerAttr(3, i64)},
        result_types=[TensorType(i32, [])],
    )
    assert data.index_value == 3


def test_verifier_messages_are_located():
    text = graph(
        """  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.relu %x : tensor<2xf32> -> tensor<3xf32>
  ge.netoutput %y : tensor<3xf32>"""
    )
    with pytest.raises(GEError) as info:
        parse(text, "model.mlir")
    assert str(info.value) == (
        "model.mlir:3:3: error: 'ge.relu' op result shape [3] must equal the input "
        "shape [2]"
    )


def test_line_offset_of_split_chunks():
    with pytest.raises(GEError, match=r"^in.mlir:12:1: error: empty input"):
        parse_module(context(), "// nothing\n", "in.mlir", line_offset=11)


def test_location_text_falls_back_to_node_names():
    data = DataOp.build(result_types=[TensorType(f32, [2])])
    assert location_text(data) == "<unknown>"
    data.attributes["name"] = StringAttr("input0")
    assert location_text(data) == "node 'input0'"
    data.location = NameLoc(StringAttr("conv1"), UnknownLoc())
    assert str(error_at(data, "bad")) == "node 'conv1': error: 'ge.data' op bad"


# ---------------------------------------------------------------------------
# ge-opt error paths: one line on stderr with `error:`, exit code 1
# ---------------------------------------------------------------------------

VALID = graph(
    """  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>"""
)


def run_in_process(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = ge_opt_main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_error_line(code: int, out: str, err: str) -> str:
    assert code == 1
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "error:" in lines[0]
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", r"in\.mlir:1:1: error: empty input"),
        ("  \n// a comment\n\n   \n", r"in\.mlir:1:1: error: empty input"),
        ("hello world\n", r"in\.mlir:1:\d+: error: "),
        ("\x00\x01 binary", r"in\.mlir:1:1: error: "),
        ("ge.graph @g {\n", r"in\.mlir:\d+:\d+: error: "),
        (
            graph("  %x = ge.frob : tensor<2xf32>\n  ge.netoutput"),
            r"in\.mlir:2:\d+: error: Operation ge\.frob is not registered",
        ),
        (
            graph(
                "  %x = ge.data {index = 0 : i64} : tensor<2xf32, #ge.layout<NCWH>>\n"
                "  ge.netoutput"
            ),
            r"in\.mlir:2:\d+: error: unknown format 'NCWH'",
        ),
        (
            graph("  %x = ge.data : tensor<2xf32>\n  ge.netoutput"),
            r"in\.mlir:2:3: error: 'ge\.data' op graph input needs an 'index'",
        ),
        (
            graph("  %x = ge.data {index = 0 : i64} : tensor<2xf32>"),
            r"in\.mlir:1:1: error: 'ge\.graph' op graph region must end with",
        ),
    ],
    ids=[
        "empty",
        "comment-only",
        "garbage",
        "binary",
        "unterminated",
        "unknown-op",
        "unknown-format",
        "verifier",
        "no-netoutput",
    ],
)
def test_bad_input_gives_one_error_line(tmp_path, capsys, text, expected):
    path = tmp_path / "in.mlir"
    path.write_bytes(text.encode("utf-8"))
    line = assert_one_error_line(*run_in_process(capsys, [str(path)]))
    assert re.match(rf".*{expected}", line), line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-p", "no-such-pass"], "no-such-pass"),
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["-p", "infer-origin-format{no-such-option=1}"], "no option 'no-such-option'"),
        (["--infer-origin-format=no-such-option=1"], "no option 'no-such-option'"),
        (["-p", "infer-origin-format{"], "invalid pass pipeline"),
        (["-p", "a,,b"], "invalid pass pipeline"),
    ],
    ids=[
        "unknown-pass",
        "unknown-flag",
        "bad-option",
        "bad-flag-option",
        "syntax",
        "empty",
    ],
)
def test_bad_pipeline_gives_one_error_line(tmp_path, capsys, args, expected):
    path = tmp_path / "in.mlir"
    path.write_text(VALID)
    line = assert_one_error_line(*run_in_process(capsys, [str(path), *args]))
    assert line.startswith("ge-opt: error: ") and expected in line, line


def test_missing_input_file(tmp_path, capsys):
    missing = tmp_path / "missing.mlir"
    line = assert_one_error_line(*run_in_process(capsys, [str(missing)]))
    assert (
        line == f"ge-opt: error: cannot access '{missing}': No such file or directory"
    )


def test_output_into_missing_directory_leaves_no_file(tmp_path, capsys):
    path = tmp_path / "in.mlir"
    path.write_text(VALID)
    target = tmp_path / "nodir" / "out.mlir"
    line = assert_one_error_line(
        *run_in_process(capsys, [str(path), "-o", str(target)])
    )
    assert str(target) in line and ".out.mlir." not in line
    assert not (tmp_path / "nodir").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"]


def test_failed_run_does_not_replace_the_output_file(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(graph("  %x = ge.data : tensor<2xf32>\n  ge.netoutput"))
    target = tmp_path / "out.mlir"
    target.write_text("previous\n")
    assert_one_error_line(*run_in_process(capsys, [str(bad), "-o", str(target)]))
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "out.mlir"]


def test_output_file(tmp_path, capsys):
    path = tmp_path / "in.mlir"
    path.write_text(VALID)
    target = tmp_path / "out.mlir"
    code, out, err = run_in_process(capsys, [str(path), "-o", str(target)])
    assert (code, out, err) == (0, "", "")
    assert "ge.graph @g" in target.read_text()


def test_verify_diagnostics_exits_zero(tmp_path, capsys):
    path = tmp_path / "in.mlir"
    path.write_text(graph("  %x = ge.data : tensor<2xf32>\n  ge.netoutput"))
    code, out, err = run_in_process(capsys, [str(path), "--verify-diagnostics"])
    assert code == 0 and err == ""
    assert out.strip().endswith("'ge.data' op graph input needs an 'index' attribute")


def test_help_lists_pass_flags_with_descriptions(capsys):
    from passes import get_all_passes

    code, out, _ = run_in_process(capsys, ["--help"])
    assert code == 0
    text = " ".join(out.split())
    for name, factory in get_all_passes().items():
        doc = (factory().__doc__ or "").strip().splitlines()
        assert f"--{name} " in text, name
        if doc:
            assert f"--{name} {' '.join(doc[0].split())}" in text, name


def run_tool(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), input=stdin, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "args", [["{path}"], ["{path}", "-p", "no-such-pass"], ["{missing}"]]
)
def test_ge_opt_subprocess_error_is_one_line(tmp_path, args):
    bad = tmp_path / "bad.mlir"
    bad.write_text("garbage\n")
    argv = [a.format(path=bad, missing=tmp_path / "missing.mlir") for a in args]
    result = run_tool("ge-opt", *argv)
    assert_one_error_line(result.returncode, result.stdout, result.stderr)


def test_ge_opt_reads_stdin():
    result = run_tool("ge-opt", stdin=VALID)
    assert result.returncode == 0, result.stderr
    assert "ge.graph @g" in result.stdout


def test_xdsl_opt_parses_ge_through_the_universe_entry_point(tmp_path):
    path = tmp_path / "in.mlir"
    first_chunk = SPLIT.split((DIALECT_TESTS / "control-flow.mlir").read_text())[0]
    path.write_text(first_chunk)
    result = run_tool("xdsl-opt", str(path))
    assert result.returncode == 0, result.stderr
    assert "ge.if" in result.stdout and "ge.graph @if" in result.stdout


def test_python_module_entry_point(tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text(VALID)
    result = run_tool(
        sys.executable, "-m", "tools.ge_opt", str(path), "--print-op-generic"
    )
    assert result.returncode == 0, result.stderr
    assert '"ge.graph"()' in result.stdout


def test_xdsl_dce_and_cse_keep_the_numbers():
    """`dce` drops the dead relu, `cse` merges the twin exps; outputs equal."""
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from ge_dialect.dialect import make_context
    from ge_runtime.engines.reference import evaluate

    text = (DIALECT_TESTS.parent / "xdsl-generic" / "dce-cse.mlir").read_text()
    module = parse_module(make_context(), text.split("// -----")[0])
    x = np.random.default_rng(0).standard_normal((2, 17)).astype(np.float32)
    (before,) = evaluate(module, {0: x})
    for generic in (DeadCodeElimination(), CommonSubexpressionElimination()):
        generic.apply(make_context(), module)
    names = [op.name for op in module.walk()]
    assert names.count("ge.exp") == 1 and "ge.relu" not in names
    (after,) = evaluate(module, {0: x})
    np.testing.assert_array_equal(after, before)
