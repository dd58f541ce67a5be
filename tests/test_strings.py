"""String tensors: one-node ONNX models of the string ops through `ge-atc` +
`ge-run` (JIT run and reference) against onnxruntime, at odd sizes, with
empty strings and non-ASCII text; each runs on the host through the NumPy
kernel library (`--trace` says so), string inputs and outputs as `.npy`
unicode; `.npy` strings round-trip and the dialect's string type parses."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conformance.suite import Case, Status, run_case
from onnx import TensorProto, helper, numpy_helper
from onnx_jit import one_node_model, onnxruntime_outputs, with_output_types

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.ops.strings import StringNormalizerOp, StringSplitOp
from ge_runtime.npy import read_npy, typed_like, write_npy
from tools import ge_atc, ge_run

ML = "ai.onnx.ml"

WORDS = np.array(
    [["", "abc", "Größe", "naïve café"], ["中文", "a b  c", " x ", "ABC"],
     ["monday", "Monday", "", "z"]],
    dtype=object,
)  # fmt: skip


def unicode(array: np.ndarray) -> np.ndarray:
    return array.astype(np.str_) if array.dtype == object else array


def assert_runs_on_the_host(model, inputs, workdir, expected=None):
    """`ge-atc` + `ge-run` give onnxruntime's outputs (or `expected`); the
    string ops ran on the host through the NumPy kernel library."""
    if expected is None:
        expected = onnxruntime_outputs(model, inputs)
    typed = with_output_types(model, expected)
    case = Case(
        "case",
        "op",
        typed,
        tuple(unicode(a) for a in inputs.values()),
        tuple(unicode(a) for a in expected),
    )
    outcome = run_case(case, workdir)
    assert outcome.status == Status.NOT_JIT, outcome.message
    assert "NumPy kernel library" in outcome.message
    assert "reference" not in outcome.message


@pytest.mark.parametrize("other", [WORDS[::-1], WORDS[:1, :], np.array("!", object)])
def test_string_concat_matches_onnxruntime(other, tmp_path):
    inputs = {"a": WORDS, "b": other}
    model = one_node_model("StringConcat", inputs, opset=20)
    assert_runs_on_the_host(model, inputs, tmp_path)


@pytest.mark.parametrize("pattern", [r"[a-z]+", r".*\s.*", r"(?i)monday", r"", r"\w+"])
def test_regex_full_match_matches_onnxruntime(pattern, tmp_path):
    inputs = {"x": WORDS}
    model = one_node_model("RegexFullMatch", inputs, opset=20, pattern=pattern)
    assert_runs_on_the_host(model, inputs, tmp_path)


@pytest.mark.parametrize(
    "attributes",
    [
        {"delimiter": " "},
        {},
        {"delimiter": "b", "maxsplit": 1},
        {"maxsplit": 0},
        {"delimiter": "  "},
    ],
)
def test_string_split_matches_onnxruntime(attributes, tmp_path):
    inputs = {"x": WORDS}
    model = one_node_model(
        "StringSplit", inputs, outputs=("y", "counts"), opset=20, **attributes
    )
    assert_runs_on_the_host(model, inputs, tmp_path)


@pytest.mark.parametrize(
    "attributes",
    [
        {"case_change_action": "UPPER", "stopwords": ["monday", "z"]},
        {
            "case_change_action": "LOWER",
            "is_case_sensitive": 1,
            "stopwords": ["Monday"],
        },
        {"stopwords": ["", "ABC"], "is_case_sensitive": 0},
        {"case_change_action": "LOWER", "stopwords": ["abc", "ABC", "x"]},
        {"stopwords": ["monday", "z", "", "abc", "Größe", "naïve café"]},
        {"stopwords": ["", "monday", "z"]},
    ],
)
@pytest.mark.parametrize("row", [0, 2])
def test_string_normalizer_matches_onnxruntime(attributes, row, tmp_path):
    attributes["locale"] = "C.UTF-8"  # onnxruntime's default, en_US, may be missing
    inputs = {"x": WORDS[row]}
    model = one_node_model("StringNormalizer", inputs, opset=10, **attributes)
    assert_runs_on_the_host(model, inputs, tmp_path)
    matrix = {"x": WORDS[row : row + 1]}
    model = one_node_model("StringNormalizer", matrix, opset=10, **attributes)
    assert_runs_on_the_host(model, matrix, tmp_path / "matrix")


def test_equal_of_strings_matches_onnxruntime(tmp_path):
    inputs = {"a": WORDS, "b": np.array(["", "abc", "", "ABC"], object)}
    model = one_node_model("Equal", inputs, opset=19)
    assert_runs_on_the_host(model, inputs, tmp_path)


@pytest.mark.parametrize(
    ("attributes", "x"),
    [
        (
            {"keys_strings": ["abc", "", "中文"], "values_int64s": [3, -7, 11]},
            WORDS,
        ),
        (
            {
                "keys_strings": ["abc", "z"],
                "values_floats": [0.5, -2.0],
                "default_float": 9.0,
            },
            WORDS,
        ),
        (
            {"keys_int64s": [4, -1, 0], "values_strings": ["four", "", "零"]},
            np.array([[0, 4, 5], [-1, 4, 2]], np.int64),
        ),
    ],
)
def test_label_encoder_matches_onnxruntime(attributes, x, tmp_path):
    inputs = {"x": x}
    model = one_node_model("LabelEncoder", inputs, domain=ML, **attributes)
    assert_runs_on_the_host(model, inputs, tmp_path)


def test_string_kernels_give_dynamic_shapes_from_values():
    x = np.array(["a b", "", "c d e f"], np.dtypes.StringDType())
    y, counts = StringSplitOp.numpy_kernel(x, delimiter=" ")
    assert y.shape == (3, 4) and counts.tolist() == [2, 0, 4]  # "": no parts
    assert y[1].tolist() == ["", "", "", ""]
    none = StringNormalizerOp.numpy_kernel(
        x, case_change_action="NONE", is_case_sensitive=True, stopwords=list(x)
    )
    assert none.tolist() == [""]


def test_npy_strings_round_trip_as_unicode():
    strings = np.array([["", "中文"], ["a\tb", "xyz"]], np.dtypes.StringDType())
    buffer = io.BytesIO()
    write_npy(buffer, strings)
    buffer.seek(0)
    read = read_npy(buffer)
    assert read.dtype == np.dtype("<U3")
    again = typed_like(read, numpy_dtype("string"))
    assert again.dtype == strings.dtype and np.array_equal(again, strings)


def test_the_string_element_type_has_a_dtype_name():
    assert dtype_name(element_type("string")) == "string"
    assert str(element_type("string")) == "!ge.string"


@pytest.fixture
def concat_om(tmp_path):
    """An `.om` of one StringConcat and a `.npy` of strings for its inputs."""
    x = np.array(["ab", "cé", ""], object)
    model = with_output_types(
        one_node_model("StringConcat", {"a": x, "b": x}, opset=20), [x]
    )
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    assert (
        ge_atc.main([f"--model={path}", "--framework=5", f"--output={tmp_path / 'm'}"])
        == 0
    )
    np.save(tmp_path / "s.npy", unicode(x))
    np.save(tmp_path / "f.npy", np.zeros(3, np.float32))
    return tmp_path


def test_check_compares_strings_exactly(concat_om, capsys):
    om, s = concat_om / "m.om", concat_om / "s.npy"
    args = [om, "--input", f"0={s}", "--input", f"1={s}", "--check"]
    assert ge_run.main([str(a) for a in [*args, "--output-dir", concat_om / "o"]]) == 0
    out = capsys.readouterr().out
    assert "(exact)" in out and ": ok" in out and "dtype string" in out
    assert np.load(concat_om / "o" / "y.npy").tolist() == ["abab", "cécé", ""]


def test_string_runs_refused_with_one_line(concat_om, capsys):
    om, s, f = concat_om / "m.om", concat_om / "s.npy", concat_om / "f.npy"
    runtime = [om, "--input", f"0={s}", "--input", f"1={s}", "--kernel-runtime"]
    runtime += ["--output-dir", concat_om / "o"]
    assert ge_run.main([str(a) for a in runtime]) == 1
    err = capsys.readouterr().err.strip()
    assert "strings, which have no place in its arena" in err
    assert len(err.splitlines()) == 1
    wrong = [om, "--input", f"0={f}", "--input", f"1={s}", "--output-dir", om.parent]
    assert ge_run.main([str(a) for a in wrong]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("has dtype float32, the graph expects string"), err


def test_numbers_made_from_strings_run_on_the_jit(tmp_path):
    """StringSplit's counts and RegexFullMatch's flags feed numeric ops: the
    string ops run on the host, the Mul and Cast after them on the JIT."""
    graph = helper.make_graph(
        [
            helper.make_node("StringSplit", ["x"], ["parts", "counts"], delimiter=" "),
            helper.make_node("Mul", ["counts", "k"], ["y"]),
            helper.make_node("RegexFullMatch", ["parts"], ["m"], pattern="[a-z]+"),
            helper.make_node("Cast", ["m"], ["z"], to=TensorProto.INT64),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [5])],
        [
            helper.make_tensor_value_info("y", TensorProto.INT64, [5]),
            helper.make_tensor_value_info("z", TensorProto.INT64, [5, None]),
        ],
        [numpy_helper.from_array(np.array([3], np.int64), "k")],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10
    )
    x = np.array(["ab cd", "", "x y Z", "中 文 a", "  "], object)
    expected = onnxruntime_outputs(model, {"x": x})
    outcome = run_case(Case("c", "op", model, (unicode(x),), tuple(expected)), tmp_path)
    assert outcome.status == Status.NOT_JIT, outcome.message
    assert "ge.string_split" in outcome.message
    assert "ge.mul" not in outcome.message and "ge.cast" not in outcome.message
