"""ONNX sequences and optionals resolved into tensors at import
(`ge_frontend/onnx_sequences.py`): models built with `onnx.helper` against
onnxruntime through `ge-atc` + `ge-run` (the conformance harness: sequence
inputs as `.npz` with their `--input_shape`, every op on the JIT), the
tensor graph they become, and the refusals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from conformance.suite import Case, Status, run_case, run_tool
from onnx import TensorProto, helper, numpy_helper

from ge_frontend.importing import parse_input_shapes
from ge_frontend.onnx_import import import_onnx
from tools import ge_atc, ge_run

ort = pytest.importorskip("onnxruntime")

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def tensor(name: str, elem: int, shape: Sequence[int | str | None]):
    return helper.make_tensor_value_info(name, elem, shape)


def sequence(name: str, elem: int = FLOAT):
    return helper.make_tensor_sequence_value_info(name, elem, None)


def make(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    constants: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "sequences",
        inputs,
        outputs,
        [numpy_helper.from_array(a, n) for n, a in (constants or {}).items()],
    )
    made = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10
    )
    onnx.checker.check_model(made)
    return made


def passes(model: onnx.ModelProto, inputs: Sequence[object], workdir: Path) -> None:
    """`ge-atc` + `ge-run` (JIT and reference) give onnxruntime's outputs,
    every op on the JIT."""
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    expected = session.run(None, dict(zip(names, inputs, strict=True)))
    case = Case("case", "op", model, tuple(inputs), tuple(expected))
    outcome = run_case(case, workdir)
    assert outcome.status == Status.PASS, outcome.message


def odd_sequence(seed: int, shapes: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """Random float tensors of `shapes`, with inf, NaN and -0.0 in the first."""
    rng = np.random.default_rng(seed)
    items = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    special = np.array([np.inf, np.nan, -0.0], np.float32)
    items[0].reshape(-1)[:3] = special[: items[0].size]
    return items


def test_insert_erase_at_length_and_concat(tmp_path: Path):
    """Positions known at import (negative ones too): nothing but the
    concat, the copies of the elements, reaches the backend."""
    model = make(
        [
            helper.make_node("SequenceInsert", ["x", "t", "one"], ["inserted"]),
            helper.make_node("SequenceErase", ["inserted", "minus_one"], ["erased"]),
            helper.make_node("SequenceAt", ["erased", "minus_three"], ["picked"]),
            helper.make_node("SequenceLength", ["erased"], ["length"]),
            helper.make_node("ConcatFromSequence", ["erased"], ["joined"], axis=0),
            helper.make_node("Relu", ["picked"], ["relu"]),
        ],
        [sequence("x"), tensor("t", FLOAT, [1, 5])],
        [
            sequence("erased"),
            tensor("length", INT64, []),
            tensor("joined", FLOAT, [6, 5]),
            tensor("relu", FLOAT, [3, 5]),
        ],
        {
            "one": np.array(1, np.int64),
            "minus_one": np.array(-1, np.int64),
            "minus_three": np.array(-3, np.int64),
        },
    )
    x = odd_sequence(1, [(3, 5), (2, 5), (7, 5)])
    t = np.full((1, 5), -2.5, np.float32)
    passes(model, [x, t], tmp_path)
    graph = import_onnx(
        model, input_shapes=parse_input_shapes("x:([3,5],[2,5],[7,5])")
    ).module
    ops = {op.name for op in graph.walk()} - {"builtin.module", "ge.graph"}
    assert ops == {"ge.data", "ge.concat", "ge.relu", "ge.const", "ge.netoutput"}


def test_concat_from_sequence_on_a_new_axis_and_an_empty_sequence(tmp_path: Path):
    model = make(
        [
            helper.make_node("SequenceConstruct", ["a", "b", "c"], ["seq"]),
            helper.make_node(
                "ConcatFromSequence", ["seq"], ["stacked"], axis=-1, new_axis=1
            ),
            helper.make_node("SequenceEmpty", [], ["empty"], dtype=INT64),
            helper.make_node("SequenceLength", ["empty"], ["none"]),
        ],
        [tensor(n, FLOAT, [3, 7]) for n in "abc"],
        [tensor("stacked", FLOAT, [3, 7, 3]), tensor("none", INT64, [])],
    )
    a, b, c = odd_sequence(2, [(3, 7)] * 3)
    passes(model, [a, b, c], tmp_path)


@pytest.mark.parametrize(
    ("split", "attributes"),
    [
        (None, {"axis": 1, "keepdims": 0}),
        (None, {"axis": -2}),
        (np.array(3, np.int64), {"axis": 1}),
        (np.array([1, 4, 2], np.int64), {"axis": 1}),
    ],
)
def test_split_to_sequence_then_sequence_map(split, attributes, tmp_path: Path):
    """Constant splits (pieces of one, a scalar's pieces with a shorter
    last one, sizes) into a `SequenceMap` whose body runs per element."""
    body = helper.make_graph(
        [
            helper.make_node("Abs", ["piece"], ["magnitude"]),
            helper.make_node("Mul", ["magnitude", "scale"], ["scaled"]),
        ],
        "per_piece",
        [
            tensor("piece", FLOAT, ["a", "b"][: attributes.get("keepdims", 1) + 1]),
            tensor("scale", FLOAT, []),
        ],
        [tensor("scaled", FLOAT, ["a", "b"][: attributes.get("keepdims", 1) + 1])],
    )
    model = make(
        [
            helper.make_node(
                "SplitToSequence",
                ["x", "split"] if split is not None else ["x"],
                ["pieces"],
                **attributes,
            ),
            helper.make_node("SequenceMap", ["pieces", "s"], ["mapped"], body=body),
        ],
        [tensor("x", FLOAT, [3, 7]), tensor("s", FLOAT, [])],
        [sequence("mapped")],
        {} if split is None else {"split": split},
    )
    (x,) = odd_sequence(3, [(3, 7)])
    passes(model, [x, np.array(-1.5, np.float32)], tmp_path)


def test_sequence_at_a_run_time_position_gathers_the_stacked_elements(
    tmp_path: Path,
):
    model = make(
        [helper.make_node("SequenceAt", ["x", "position"], ["y"])],
        [sequence("x"), tensor("position", INT64, [])],
        [tensor("y", FLOAT, [2, 3])],
    )
    x = odd_sequence(4, [(2, 3)] * 3)
    for position in (0, 2, -1, -3):
        passes(model, [x, np.array(position, np.int64)], tmp_path / str(position))


def test_optional_inputs_present_and_absent(tmp_path: Path):
    """An optional input's presence is given at compile time (`x:3` or
    `x:none`); OptionalHasElement is then a constant."""
    optional = helper.make_tensor_type_proto(FLOAT, [3])
    model = make(
        [
            helper.make_node("OptionalHasElement", ["x"], ["has"]),
            helper.make_node("Optional", ["t"], ["wrapped"]),
            helper.make_node("OptionalGetElement", ["wrapped"], ["got"]),
            helper.make_node("Neg", ["got"], ["y"]),
        ],
        [
            helper.make_value_info("x", helper.make_optional_type_proto(optional)),
            tensor("t", FLOAT, [3]),
        ],
        [tensor("has", BOOL, []), tensor("y", FLOAT, [3])],
    )
    t = np.array([np.inf, -0.0, 2.5], np.float32)
    passes(model, [np.ones(3, np.float32), t], tmp_path / "present")
    passes(model, [None, t], tmp_path / "absent")


def test_if_with_a_run_time_condition_gives_a_sequence(tmp_path: Path):
    """Both branches build a sequence of two tensors: the `ge.if` returns
    the tensors, the sequence is rebuilt from its results."""

    def branch(name: str, op: str) -> onnx.GraphProto:
        return helper.make_graph(
            [
                helper.make_node(op, ["x"], [f"{name}_a"]),
                helper.make_node("SequenceConstruct", [f"{name}_a", "x"], [name]),
            ],
            name,
            [],
            [sequence(name)],
        )

    model = make(
        [
            helper.make_node(
                "If",
                ["c"],
                ["seq"],
                then_branch=branch("then_seq", "Neg"),
                else_branch=branch("else_seq", "Abs"),
            ),
            helper.make_node("ConcatFromSequence", ["seq"], ["joined"], axis=0),
        ],
        [tensor("c", BOOL, []), tensor("x", FLOAT, [2, 3])],
        [tensor("joined", FLOAT, [4, 3]), sequence("seq")],
    )
    (x,) = odd_sequence(5, [(2, 3)])
    for cond in (True, False):
        passes(model, [np.array(cond), x], tmp_path / str(cond))


def test_a_loop_appending_to_a_sequence_over_a_known_trip_count_is_unrolled(
    tmp_path: Path,
):
    """SequenceMap's function body: a Loop over `SequenceLength` inserting
    into a carried sequence; the trip count is known, so the body is inlined
    once per element."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("SequenceAt", ["x", "i"], ["element"]),
            helper.make_node("Sigmoid", ["element"], ["mapped"]),
            helper.make_node("SequenceInsert", ["acc_in", "mapped"], ["acc_out"]),
        ],
        "append",
        [tensor("i", INT64, []), tensor("cond_in", BOOL, []), sequence("acc_in")],
        [tensor("cond_out", BOOL, []), sequence("acc_out")],
    )
    model = make(
        [
            helper.make_node("SequenceLength", ["x"], ["n"]),
            helper.make_node("SequenceEmpty", [], ["empty"]),
            helper.make_node("Loop", ["n", "", "empty"], ["y"], body=body),
        ],
        [sequence("x")],
        [sequence("y")],
    )
    passes(model, [odd_sequence(6, [(4,), (1, 3), (2, 2, 2)])], tmp_path)
    imported = import_onnx(
        model, input_shapes=parse_input_shapes("x:([4],[1,3],[2,2,2])")
    )
    ops = [op.name for op in imported.module.walk()]
    assert ops.count("ge.sigmoid") == 3 and "ge.while" not in ops


# ---------------------------------------------------------------------------
# The user's path: input shapes, files, refusals
# ---------------------------------------------------------------------------


def compile_model(model: onnx.ModelProto, folder: Path, *flags: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.onnx"
    onnx.save(model, path)
    return run_tool(
        ge_atc.main,
        [f"--model={path}", "--framework=5", f"--output={folder / 'm'}", *flags],
    )


def identity_model() -> onnx.ModelProto:
    return make(
        [helper.make_node("Identity", ["x"], ["y"])], [sequence("x")], [sequence("y")]
    )


def test_a_sequence_input_needs_its_element_shapes(tmp_path: Path):
    run = compile_model(identity_model(), tmp_path)
    assert run.code == 1
    assert run.err.strip().endswith(
        "error: graph input 'x' is a sequence; give its elements' shapes with "
        "--input_shape x:([D1,D2],[D3],...) (read by Identity)"
    )
    run = compile_model(identity_model(), tmp_path, "--input_shape=x:([2],[")
    assert run.code == 1 and "bad input shape 'x:([2],['" in run.err


def test_ge_run_reads_and_writes_sequences_as_npz(tmp_path: Path):
    """`--input x=FILE.npz` (arrays 0..n-1), the output `y.npz` the same;
    a file of the wrong length is one line naming what the model expects."""
    compiled = compile_model(identity_model(), tmp_path, "--input_shape=x:([2],[3,1])")
    assert compiled.code == 0, compiled.err
    items = odd_sequence(7, [(2,), (3, 1)])
    np.savez(tmp_path / "x.npz", **{str(i): a for i, a in enumerate(items)})
    run = run_tool(
        ge_run.main,
        [
            tmp_path / "m.om",
            "--input",
            f"x={tmp_path / 'x.npz'}",
            "--output-dir",
            tmp_path / "out",
        ],
    )
    assert run.code == 0, run.err
    assert run.out.splitlines()[-1] == (
        "y.npz: a sequence of 2; shape [2], dtype float32; shape [3, 1], dtype float32"
    )
    with np.load(tmp_path / "out" / "y.npz") as written:
        assert sorted(written.files) == ["0", "1"]
        for index, item in enumerate(items):
            np.testing.assert_array_equal(written[str(index)], item)
    np.savez(tmp_path / "short.npz", **{"0": items[0]})
    run = run_tool(
        ge_run.main,
        [
            tmp_path / "m.om",
            "--input",
            f"x={tmp_path / 'short.npz'}",
            "--output-dir",
            tmp_path / "out2",
        ],
    )
    assert run.code == 1
    assert run.err.strip() == (
        "ge-run: error: input 'x' is a sequence of 2 tensors in this graph: give an "
        ".npz with arrays 0, 1 (the file has arrays ['0'])"
    )


@pytest.mark.parametrize("position", [0, 1, 3, -1, -3])
def test_insert_at_a_run_time_position_splices_a_run_time_container(
    position: int, tmp_path: Path
):
    """Which tensor sits where is a run-time fact: the result is a run-time
    container whose values and shapes are gathers of the old ones and the
    item's, static-shaped, all on the JIT."""
    model = make(
        [helper.make_node("SequenceInsert", ["x", "t", "p"], ["y"])],
        [sequence("x"), tensor("t", FLOAT, [2, 2]), tensor("p", INT64, [])],
        [sequence("y")],
    )
    x = odd_sequence(11, [(1, 3), (2, 1), (3, 2)])
    t = np.array([[np.inf, -0.0], [7.0, np.nan]], np.float32)
    passes(model, [x, t, np.array(position, np.int64)], tmp_path)


def test_a_run_time_insert_position_among_ranks_is_refused(tmp_path: Path):
    model = make(
        [helper.make_node("SequenceInsert", ["x", "t", "p"], ["y"])],
        [sequence("x"), tensor("t", FLOAT, [3]), tensor("p", INT64, [])],
        [sequence("y")],
    )
    run = compile_model(model, tmp_path, "--input_shape=x:([2],[4,1])")
    assert run.code == 1
    assert run.err.strip().endswith(
        "error: unsupported ONNX ops: SequenceInsert at a run-time position among "
        "tensors of different ranks (nodes: y)"
    )


def appending_loop(
    element: list[onnx.NodeProto], constants: Mapping[str, np.ndarray] | None = None
) -> onnx.ModelProto:
    """A Loop of run-time trip count `M` appending `element` (nodes computing
    it from the counter `i` and `x`) to a carried sequence that starts empty."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            *element,
            helper.make_node("SequenceInsert", ["acc_in", "element"], ["acc_out"]),
            helper.make_node("SequenceLength", ["acc_out"], ["count"]),
        ],
        "append",
        [tensor("i", INT64, []), tensor("cond_in", BOOL, []), sequence("acc_in")],
        [tensor("cond_out", BOOL, []), sequence("acc_out"), tensor("count", INT64, [])],
    )
    return make(
        [
            helper.make_node("SequenceEmpty", [], ["empty"]),
            helper.make_node("Loop", ["M", "", "empty"], ["y", "counts"], body=body),
        ],
        [tensor("M", INT64, []), tensor("x", FLOAT, [2, 3])],
        [sequence("y"), tensor("counts", INT64, ["n"])],
        constants,
    )


@pytest.mark.parametrize("trips", [0, 1, 4])
def test_a_sequence_that_grows_at_run_time_is_a_run_time_container(
    trips: int, tmp_path: Path
):
    """Elements of one static shape: the container's values and shapes grow
    in a host-scheduled `ge.while` whose every op is a JIT kernel."""
    model = appending_loop(
        [
            helper.make_node("Cast", ["i"], ["i_float"], to=FLOAT),
            helper.make_node("Mul", ["x", "i_float"], ["element"]),
        ]
    )
    (x,) = odd_sequence(9, [(2, 3)])
    passes(model, [np.array(trips, np.int64), x], tmp_path)


def test_run_time_element_shapes_run_on_the_jit(tmp_path: Path):
    """Elements whose shape the counter decides (`x[:i+1]`): their shapes are
    read by `ge.shape`, a host op run as a single-op JIT kernel for the shape
    it meets (not the NumPy kernel library): the case passes."""
    model = appending_loop(
        [
            helper.make_node("Add", ["i", "one"], ["end_scalar"]),
            helper.make_node("Unsqueeze", ["end_scalar", "zero"], ["end"]),
            helper.make_node("Slice", ["x", "zero", "end"], ["element"]),
        ],
        {"zero": np.array([0], np.int64), "one": np.array(1, np.int64)},
    )
    (x,) = odd_sequence(10, [(2, 3)])
    inputs = [np.array(2, np.int64), x]
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, {"M": inputs[0], "x": x})
    case = Case("case", "op", model, tuple(inputs), tuple(expected))
    outcome = run_case(case, tmp_path)
    assert outcome.status == Status.PASS, outcome.message


def test_an_optional_present_in_one_branch_has_a_run_time_presence(
    tmp_path: Path,
):
    """`If` returning a present optional from one branch and an absent one
    from the other: the presence is a run-time bool (`ge.if` returns it and
    the element, zeros from the absent branch); `ge-run` writes the element,
    or an `.npz` with no array when the run's branch gave none."""
    element = helper.make_tensor_type_proto(FLOAT, [3])
    optional = helper.make_optional_type_proto(element)
    present = helper.make_graph(
        [
            helper.make_node("Neg", ["x"], ["negated"]),
            helper.make_node("Optional", ["negated"], ["some"]),
        ],
        "present",
        [],
        [helper.make_value_info("some", optional)],
    )
    absent = helper.make_graph(
        [helper.make_node("Optional", [], ["none"], type=element)],
        "absent",
        [],
        [helper.make_value_info("none", optional)],
    )
    model = make(
        [
            helper.make_node(
                "If", ["c"], ["maybe"], then_branch=present, else_branch=absent
            ),
            helper.make_node("OptionalHasElement", ["maybe"], ["has"]),
        ],
        [tensor("c", BOOL, []), tensor("x", FLOAT, [3])],
        [helper.make_value_info("maybe", optional), tensor("has", BOOL, [])],
    )
    x = np.array([1.5, -np.inf, np.nan], np.float32)
    for cond in (True, False):
        passes(model, [np.array(cond), x], tmp_path / str(cond))


def test_a_graph_naming_outputs_it_does_not_have_is_refused(tmp_path: Path):
    """`structured_outputs` comes from the file: checked before it is read."""
    path = tmp_path / "g.mlir"
    path.write_text(
        'ge.graph @main attributes {structured_outputs = [{name = "y", kind = '
        '"sequence", position = 0 : i64, items = ["nope"]}]} {\n'
        '  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2xf32>\n'
        '  ge.netoutput %x : tensor<2xf32> {output_names = ["y"]}\n'
        "}\n"
    )
    run = run_tool(
        ge_run.main,
        [path, "--reference", "--random-inputs", "--output-dir", tmp_path / "out"],
    )
    assert run.code == 1
    assert run.err.strip() == (
        f"{path}:1:1: error: 'ge.graph' op graph attribute 'structured_outputs' "
        "names outputs the graph does not have, or one twice"
    )
    assert not (tmp_path / "out").exists()
