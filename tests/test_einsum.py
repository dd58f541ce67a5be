"""`ge.einsum` (ONNX Einsum): equation parsing (ellipsis, repeated letters,
implicit output, bad equations), the lowered JIT (one loop nest, every nest
vectorised) against `np.einsum` on generated equations and odd sizes, dtypes
and special values, ONNX models through `ge-atc` + `ge-run` against
onnxruntime (JIT only), and bad equations as one-line errors."""

from __future__ import annotations

import string

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx_jit import (
    assert_runs_on_the_jit,
    atc_error,
    one_node_model,
    with_output_types,
)

from ge_dialect.builder import GraphBuilder
from ge_dialect.ops.einsum import parse_equation
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import compile_graph, run_graph


def jit_and_reference(equation, arrays):
    b = GraphBuilder("g")
    inputs = [b.data(list(a.shape), a.dtype.name) for a in arrays]
    b.output(b.einsum(inputs, equation=equation))
    module = b.build()
    compiled = compile_graph(module.body.block.first_op, poison=True)
    assert compiled.scalar_nests == []
    feeds = dict(enumerate(arrays))
    (got,) = run_graph(module, feeds, poison=True)
    (expected,) = evaluate(module, feeds)
    return got, expected


@pytest.mark.parametrize(
    ("equation", "ranks", "inputs", "output"),
    [
        ("ij,jk", [2, 2], [("i", "j"), ("j", "k")], ("i", "k")),
        ("ji", [2], [("j", "i")], ("i", "j")),
        ("bA a", [3], [("b", "A", "a")], ("A", "a", "b")),
        ("ii->i", [2], [("i", "i")], ("i",)),
        ("i,i", [1, 1], [("i",), ("i",)], ()),
        ("...ii->...i", [3], [("...0", "i", "i")], ("...0", "i")),
        ("...j,j...", [2, 3], [("...0", "j"), ("j", "...1", "...0")], ("...1", "...0")),
        ("...,...", [0, 0], [(), ()], ()),
    ],
)
def test_equations_resolve_against_ranks(equation, ranks, inputs, output):
    contraction = parse_equation(equation, ranks)
    assert contraction.inputs == tuple(inputs)
    assert contraction.output == output


@pytest.mark.parametrize(
    ("equation", "ranks", "message"),
    [
        ("ij,jk", [2], "2 input terms for 1 inputs"),
        ("ijk", [2], "names 3 dims, input #0 has 2"),
        ("ij->k", [2], "output letter 'k' names no input dim"),
        ("ij->ii", [2], "repeats a letter"),
        ("i.j", [2], "malformed ellipsis"),
        ("i1", [2], "not a letter"),
        ("...i->i", [2], "drops the ellipsis dims"),
    ],
)
def test_bad_equations(equation, ranks, message):
    with pytest.raises(ValueError, match=message):
        parse_equation(equation, ranks)


CASES = [
    ("ij,jk->ik", [(3, 17), (17, 5)]),
    ("bij,bjk->bik", [(3, 4, 17), (3, 17, 33)]),
    ("ij->ji", [(17, 3)]),
    ("ij->i", [(3, 33)]),
    ("ij", [(3, 5)]),
    ("ii->i", [(17, 17)]),
    ("ii", [(5, 5)]),
    ("...ii->...i", [(3, 2, 5, 5)]),
    ("i,i", [(100,), (100,)]),
    ("i,j->ij", [(3,), (17,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),
    ("bhqd,bhkd->bhqk", [(1, 3, 5, 8), (1, 3, 7, 8)]),
    ("abc,cd,a->bd", [(3, 4, 5), (5, 2), (3,)]),
    ("...,...", [(), ()]),
    ("i,i->", [(0,), (0,)]),
]


@pytest.mark.parametrize(("equation", "shapes"), CASES)
def test_jit_matches_numpy(equation, shapes):
    rng = np.random.default_rng(len(equation))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got, expected = jit_and_reference(equation, arrays)
    want = np.einsum(equation, *arrays)
    assert got.shape == expected.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(expected, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "int64", "uint8"])
def test_dtypes(dtype):
    rng = np.random.default_rng(4)
    arrays = [
        (rng.standard_normal(s) * 3).astype(dtype)
        if dtype.startswith("float")
        else rng.integers(0, 5, s).astype(dtype)
        for s in ((3, 17), (17, 5))
    ]
    got, expected = jit_and_reference("ij,jk->ik", arrays)
    assert got.dtype == expected.dtype == np.dtype(dtype)
    tolerance = 2e-2 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(
        got.astype(np.float64),
        expected.astype(np.float64),
        rtol=tolerance,
        atol=tolerance,
    )


def test_special_values():
    a = np.array([[1.0, np.nan], [np.inf, -0.0], [2.0, 3.0]], np.float32)
    b = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    got, _ = jit_and_reference("ij,jk->ik", [a, b])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(a @ b))
    finite = np.isfinite(a @ b)
    np.testing.assert_array_equal(got[finite], (a @ b)[finite])
    got, _ = jit_and_reference("ij->j", [a])
    np.testing.assert_array_equal(got, np.einsum("ij->j", a))


LETTERS = string.ascii_letters[:6]


@given(st.data())
def test_hypothesis_equations(data):
    """Random terms over a few letters (repeats, implicit and explicit
    outputs) against `np.einsum`."""
    sizes = {c: data.draw(st.integers(1, 4)) for c in LETTERS}
    count = data.draw(st.integers(1, 3))
    terms = [
        "".join(data.draw(st.lists(st.sampled_from(LETTERS), max_size=3)))
        for _ in range(count)
    ]
    used = sorted(set("".join(terms)))
    if data.draw(st.booleans()):
        output = "".join(
            data.draw(st.permutations(used))[: data.draw(st.integers(0, len(used)))]
        )
        equation = ",".join(terms) + "->" + output
    else:
        equation = ",".join(terms)
    rng = np.random.default_rng(count)
    arrays = [
        rng.standard_normal([sizes[c] for c in term]).astype(np.float32)
        for term in terms
    ]
    got, _ = jit_and_reference(equation, arrays)
    np.testing.assert_allclose(got, np.einsum(equation, *arrays), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("equation", "shapes", "opset"),
    [
        ("bij, bjk -> bik", [(3, 4, 17), (3, 17, 5)], 12),
        ("...ii ->...i", [(3, 5, 5)], 12),
        ("ij,j", [(33, 17), (17,)], 12),
        ("abc,cd->abd", [(2, 3, 4), (4, 100)], 12),
    ],
)
def test_onnx_models_match_onnxruntime_on_the_jit(tmp_path, equation, shapes, opset):
    rng = np.random.default_rng(8)
    inputs = {
        f"x{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(shapes)
    }
    model = one_node_model("Einsum", inputs, opset=opset, equation=equation)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def test_bad_equation_is_a_one_line_error(tmp_path, capsys):
    x = np.zeros((2, 3), np.float32)
    model = one_node_model("Einsum", {"x": x}, opset=12, equation="ij->k")
    model = with_output_types(model, [np.zeros((2,), np.float32)])
    err = atc_error(model, tmp_path, capsys)
    assert "output letter 'k' names no input dim" in err, err
