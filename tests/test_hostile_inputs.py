"""The mechanisms behind the hostile-input corpus, on generated inputs.

`tests/test_bad_inputs.py` runs the corpus through the tools; these tests
check each mechanism directly and on inputs hypothesis generates: the
dataflow-order verifier (any DAG in any order), the NaN/Inf-aware
comparison, checked size arithmetic and the memory budget, JSON with a
nesting limit and unique keys, declarative schemas, confined paths, `.npy`
headers that lie, and output folders that are committed or left untouched.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin

from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.files import (
    StagedDirectory,
    staged,
    write_all_or_none,
    write_atomically,
)
from ge_dialect.input_files import confined_path, load_json
from ge_dialect.limits import (
    INT64_MAX,
    MAX_JSON_NESTING,
    LimitError,
    budget_of,
    checked_product,
    over_budget,
    parse_size,
)
from ge_dialect.parsing import parse_module
from ge_dialect.schema import (
    Integer,
    ListOf,
    MapOf,
    Nullable,
    Object,
    SchemaError,
    String,
)
from ge_runtime.engines.compare import largest_magnitude, max_abs_error
from ge_runtime.npy import NpyError, npy_bytes, read_npy


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx


# ---------------------------------------------------------------------------
# Dataflow order
# ---------------------------------------------------------------------------


@st.composite
def dags(draw):
    """(operands of each op, a permutation of the ops) for a random DAG: op i
    reads 1-2 earlier values (the input is value -1)."""
    count = draw(st.integers(2, 12))
    operands = [
        draw(st.lists(st.integers(-1, i - 1), min_size=1, max_size=2))
        for i in range(count)
    ]
    order = draw(st.permutations(range(count)))
    return operands, list(order)


def graph_text(operands: list[list[int]], order: list[int]) -> str:
    tensor = "tensor<3xf32>"
    lines = [f'  %in = ge.data {{index = 0 : i64, name = "x"}} : {tensor}']
    for i in order:
        names = ["%in" if o < 0 else f"%v{o}" for o in operands[i]]
        if len(names) == 1:
            lines.append(f"  %v{i} = ge.relu {names[0]} : {tensor} -> {tensor}")
        else:
            types = ", ".join([tensor] * 2)
            lines.append(f"  %v{i} = ge.add {', '.join(names)} : ({types}) -> {tensor}")
    lines.append(f"  ge.netoutput %v{order[-1]} : {tensor}")
    return "ge.graph @main {\n" + "\n".join(lines) + "\n}\n"


@given(dags())
def test_a_dag_parses_in_exactly_its_topological_orders(dag):
    operands, order = dag
    position = {op: index for index, op in enumerate(order)}
    topological = all(
        position[o] < position[i] for i in order for o in operands[i] if o >= 0
    )
    text = graph_text(operands, order)
    if topological:
        parse_module(context(), text, "g.mlir")
        return
    with pytest.raises(GEError, match="used before its definition") as error:
        parse_module(context(), text, "g.mlir")
    first = min(
        position[i]
        for i in order
        if any(position[o] >= position[i] for o in operands[i] if o >= 0)
    )
    assert f"g.mlir:{first + 3}:3: error:" in str(error.value)


@given(st.integers(1, 30), st.integers(0, 29))
def test_a_cycle_is_reported_at_its_first_op_with_its_path(length, start):
    start %= length
    tensor = "tensor<3xf32>"
    lines = [f'  %x = ge.data {{index = 0 : i64, name = "x"}} : {tensor}']
    for i in range(length):
        previous = f"%c{(i - 1) % length}"
        lines.append(
            f"  %c{i} = ge.add %x, {previous} : ({tensor}, {tensor}) -> {tensor}"
        )
    lines.append(f"  ge.netoutput %c0 : {tensor}")
    text = "ge.graph @main {\n" + "\n".join(lines) + "\n}\n"
    with pytest.raises(GEError) as error:
        parse_module(context(), text, "c.mlir")
    message = str(error.value)
    assert message.startswith("c.mlir:3:3: error: 'ge.add' op is on a dataflow cycle")
    assert message.count("'ge.add'") == length + 2  # the op, the path, back


# ---------------------------------------------------------------------------
# Comparing with NaN and Inf
# ---------------------------------------------------------------------------

specials = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -3.0])


@given(st.lists(specials, min_size=0, max_size=20))
def test_an_array_is_at_zero_distance_from_itself(values):
    array = np.array(values, dtype=np.float32)
    assert max_abs_error(array, array.copy()) == 0.0


@given(st.lists(st.tuples(specials, specials), min_size=1, max_size=20))
def test_the_error_is_symmetric_and_infinite_where_special_values_differ(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    error = max_abs_error(a, b)
    assert error == max_abs_error(b, a)
    differs = any(
        (math.isnan(x) != math.isnan(y))
        or (not math.isnan(x) and math.isinf(x) and x != y)
        or (not math.isnan(y) and math.isinf(y) and x != y)
        for x, y in pairs
    )
    assert math.isinf(error) == differs


def test_the_scale_of_a_reference_is_its_largest_finite_magnitude():
    assert largest_magnitude(np.array([np.inf, -4.0, np.nan, 2.0])) == 4.0
    assert largest_magnitude(np.array(np.nan)) == 0.0
    assert max_abs_error(np.float32(2.0), np.float32(0.5)) == 1.5


# ---------------------------------------------------------------------------
# Checked sizes and the memory budget
# ---------------------------------------------------------------------------


@given(st.lists(st.integers(0, 1 << 40), max_size=6))
def test_checked_product_is_the_product_until_int64_runs_out(dims):
    total = math.prod(dims)
    if total > INT64_MAX:
        with pytest.raises(LimitError, match="more than 2\\^63 elements"):
            checked_product(dims)
    else:
        assert checked_product(dims) == total


@pytest.mark.parametrize("dims", [[-1], [3, -5], [1 << 63]])
def test_checked_product_rejects_dims_outside_int64(dims):
    with pytest.raises(LimitError, match="outside"):
        checked_product(dims)


@given(st.integers(1, 1 << 50), st.sampled_from(["", "K", "M", "G", "KiB", "MB"]))
def test_sizes_parse_with_units(number, unit):
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[unit[:1]]
    if number * scale <= INT64_MAX:
        assert parse_size(f"{number}{unit}") == number * scale
    else:
        with pytest.raises(ValueError, match=r"is more than 2\^63-1 bytes"):
            parse_size(f"{number}{unit}")


@given(st.integers(0, 10**6), st.integers(1, 400))
def test_sizes_parse_exactly_and_never_overflow(whole, digits):
    """Fractions are exact (no float rounding); any number of digits gives a
    size or a ValueError, never an OverflowError."""
    assert parse_size(f"{whole}.5K") == whole * 1024 + 512
    text = "9" * digits + ".25T"
    if int(text.split(".")[0]) * (1 << 40) + (1 << 38) <= INT64_MAX:
        assert parse_size(text) == int(text.split(".")[0]) * (1 << 40) + (1 << 38)
    else:
        with pytest.raises(ValueError, match="more than"):
            parse_size(text)


def test_the_budget_is_scoped():
    assert over_budget(100, "x") is None
    with budget_of(64):
        assert "x needs 100 bytes, over the memory budget of 64 bytes" in (
            over_budget(100, "x") or ""
        )
    assert over_budget(100, "x") is None


def test_a_dense_literal_over_the_budget_is_refused_before_it_is_built():
    text = (
        "ge.graph @main {\n  %c = ge.const {value = dense<1.0> : tensor<8x8xf32>} "
        ": tensor<8x8xf32>\n  ge.netoutput %c : tensor<8x8xf32>\n}\n"
    )
    parse_module(context(), text, "d.mlir")
    with budget_of(255), pytest.raises(GEError, match="d.mlir:2:.*256 bytes"):
        parse_module(context(), text, "d.mlir")


# ---------------------------------------------------------------------------
# JSON and schemas
# ---------------------------------------------------------------------------


@given(st.integers(1, 2 * MAX_JSON_NESTING))
def test_json_nests_up_to_the_limit(depth):
    text = "[" * depth + "]" * depth
    if depth <= MAX_JSON_NESTING:
        assert load_json(text, "f.json") is not None
    else:
        with pytest.raises(GEError, match=f"f.json:1:{MAX_JSON_NESTING + 1}: error"):
            load_json(text, "f.json")


def test_brackets_in_strings_do_not_count_as_nesting():
    text = json.dumps({"a": "[" * 1000, "b": '\\"[[[['})
    assert load_json(text, "f.json")["a"] == "[" * 1000


def test_a_key_given_twice_is_located_at_its_second_occurrence():
    with pytest.raises(
        GEError, match='f.json:3:3: error: JSON gives the key "k" twice'
    ):
        load_json('{\n  "k": 1,\n  "k": 2}', "f.json")


def test_schemas_name_the_offending_field():
    schema = Object(
        {
            "inputs": ListOf(Object({"index": Integer(0), "name": String()}, {"name"})),
            "extra": Nullable(MapOf(Integer())),
        },
        optional={"extra"},
    )
    schema.check({"inputs": [{"index": 0}, {"index": 1, "name": "x"}]}, "")
    for data, message in (
        ({"inputs": [{"index": -1}]}, "inputs[0].index: expected an integer >= 0"),
        ({"inputs": [{"index": True}]}, "inputs[0].index: expected an integer"),
        ({"inputs": [], "extra": {"a": "b"}}, "extra.a: expected an integer"),
        ({"inputs": [], "more": 1}, "more: unknown field"),
        ({}, "inputs: missing field"),
    ):
        with pytest.raises(SchemaError, match=message.replace("[", "\\[")):
            schema.check(data, "")


# ---------------------------------------------------------------------------
# Paths named inside files
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["../x.npz", "/etc/passwd", "a/../../x", "", "C:\\x", "link/x.npz"]
)
def test_paths_inside_a_file_stay_in_its_folder(tmp_path: Path, name: str):
    (tmp_path / "link").symlink_to(tmp_path.parent)
    with pytest.raises(GEError, match="m.mlir: error: ge.weights"):
        confined_path(tmp_path, name, "ge.weights", "m.mlir")


def test_a_path_inside_the_folder_is_accepted(tmp_path: Path):
    assert (
        confined_path(tmp_path, "sub/../w.npz", "w", "m") == tmp_path / "sub/../w.npz"
    )


# ---------------------------------------------------------------------------
# .npy headers that lie
# ---------------------------------------------------------------------------


def header(shape: str) -> bytes:
    text = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}"
    text = text.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode()


@given(st.integers(0, 1 << 45))
def test_a_header_is_believed_only_as_far_as_the_data_goes(count):
    data = header(f"({count},)") + b"\0" * 64
    if count * 4 > 1 << 32:
        with pytest.raises(NpyError, match="over the memory budget"):
            read_npy(io.BytesIO(data))
    elif count * 4 > 64:
        with pytest.raises(NpyError, match="truncated data"):
            read_npy(io.BytesIO(data))
    elif count * 4 == 64:
        assert read_npy(io.BytesIO(data)).shape == (count,)


def test_arrays_round_trip(tmp_path: Path):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(read_npy(io.BytesIO(npy_bytes(array))), array)


# ---------------------------------------------------------------------------
# Output folders
# ---------------------------------------------------------------------------


def test_a_staged_folder_appears_only_on_commit(tmp_path: Path):
    target = tmp_path / "a" / "b" / "dump"
    folder = StagedDirectory(target)
    (folder.path / "x.npy").write_bytes(b"1")
    (folder.path / "sub").mkdir()
    (folder.path / "sub" / "y.npy").write_bytes(b"2")
    assert not target.exists()
    folder.commit()
    assert (target / "x.npy").read_bytes() == b"1"
    assert (target / "sub" / "y.npy").read_bytes() == b"2"
    assert sorted(p.name for p in target.parent.iterdir()) == ["dump"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_writing_to_a_fifo_writes_through_it(tmp_path: Path):
    """`-o /dev/null` or a pipe: a path that is not a regular file is written in
    place (a rename over it replaced /dev/null with a regular file)."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(
        target=lambda: received.append(fifo.read_bytes()), daemon=True
    )
    reader.start()
    write_atomically(fifo, "module {}\n")
    reader.join(timeout=10)
    assert received == [b"module {}\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temp left


def test_writing_to_dev_null_keeps_it_a_device():
    write_atomically(os.devnull, "x")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_failed_body_leaves_nothing_behind(tmp_path: Path):
    with pytest.raises(RuntimeError), staged(tmp_path / "a" / "b" / "out") as folder:
        assert folder is not None
        (folder / "x.npy").write_bytes(b"1")
        raise RuntimeError("the run failed")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_keeps_its_other_files(tmp_path: Path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with staged(tmp_path / "out") as folder:
        assert folder is not None
        (folder / "new.npy").write_bytes(b"1")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "keep.txt",
        "new.npy",
    ]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "old/", "new/", "new/sub/", "other/"]), st.booleans()
        ),
        min_size=1,
        max_size=5,
    )
)
def test_files_are_written_all_or_none(tmp_path_factory, files):
    """A failing file (a path that is a folder) among new and existing folders
    leaves exactly what was there before; without one, every file is written."""
    root = tmp_path_factory.mktemp("all")
    (root / "old").mkdir()
    (root / "old" / "keep.txt").write_text("mine")
    blobs = [
        (root / folder / f"{index}.om", b"x" if good else "")
        for index, (folder, good) in enumerate(files)
    ]
    failing = [path for (path, blob) in blobs if blob == ""]
    for path in failing:  # a folder where the file should go
        path.mkdir(parents=True)
    before = sorted(root.rglob("*"))
    if failing:
        with pytest.raises(GEError, match="it is a directory"):
            write_all_or_none(blobs)
        assert sorted(root.rglob("*")) == before
    else:
        write_all_or_none(blobs)
        assert all(path.read_bytes() == b"x" for path, _ in blobs)


# ---------------------------------------------------------------------------
# Pass options, window attributes, import-time folds
# ---------------------------------------------------------------------------


@given(
    st.sampled_from(["data-format", "data_format"]),
    st.sampled_from(["data-format", "data_format"]),
    st.sampled_from(["NCHW", "NHWC", "ND"]),
)
def test_an_option_given_twice_is_an_error_in_either_spelling(first, second, value):
    from passes.options import parse_passes

    spec = f"fuse-ops,infer-origin-format{{{first}=NCHW {second}={value}}}"
    with pytest.raises(GEError, match="option 'data-format': given twice"):
        parse_passes(spec)
    assert len(parse_passes(f"infer-origin-format{{{first}={value}}},fuse-ops")) == 2


@given(st.integers(1, 64), st.integers(1, 5), st.integers(-3, 3), st.integers(-3, 3))
def test_a_window_needs_a_positive_stride_and_dilation(size, kernel, stride, dilation):
    from ge_dialect.ops.windows import window_size
    from ge_dialect.shape_functions import ShapeError

    if stride < 1 or dilation < 1:
        with pytest.raises(ShapeError, match="must be positive"):
            window_size(size, kernel, stride, dilation, (0, 0))
        return
    try:
        out = window_size(size, kernel, stride, dilation, (0, 0))
    except ShapeError:
        assert dilation * (kernel - 1) + 1 > size
    else:
        assert out == (size - dilation * (kernel - 1) - 1) // stride + 1 >= 1


@given(st.lists(st.integers(0, 1 << 12), min_size=1, max_size=4))
def test_an_import_time_array_is_checked_by_the_shape_it_claims(dims):
    """A broadcast view takes no memory, but claims its full shape."""
    from ge_frontend.importing import folded_within_budget

    view = np.broadcast_to(np.float32(1), dims)
    claimed = math.prod(dims) * 4
    with budget_of(1 << 20):
        if claimed > 1 << 20:
            with pytest.raises(ValueError, match="folded result #1 needs"):
                folded_within_budget([None, view])
        else:
            assert folded_within_budget([None, view])[1] is view


def test_an_error_located_at_a_node_gets_its_model_file():
    from ge_frontend.importing import errors_located_in

    with pytest.raises(GEError) as info, errors_located_in("m.onnx"):
        raise GEError("node 'x': error: 'ge.data' op bad")
    assert str(info.value) == "m.onnx: error: node 'x': 'ge.data' op bad"
    with pytest.raises(GEError) as info, errors_located_in("m.onnx"):
        raise GEError("g.mlir:1:2: error: other")
    assert str(info.value) == "g.mlir:1:2: error: other"


# ---------------------------------------------------------------------------
# Mutated IR text
# ---------------------------------------------------------------------------

VALID_GRAPH = (Path(__file__).parent / "bad_inputs" / "valid.mlir").read_text()
FRAGMENTS = ['"', "{", "}", "<", ">", ":", "%x", "-1", "?", "\n", "#ge.layout<NZ>"]


@settings(max_examples=100, deadline=2000)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(VALID_GRAPH)),
            st.integers(0, 12),
            st.sampled_from(["", *FRAGMENTS]),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_mutated_ir_parses_or_fails_on_one_located_line(edits):
    """Cut and splice the valid graph: it parses, or it is one located
    diagnostic, in bounded time (an unterminated string once hung the lexer)."""
    text = VALID_GRAPH
    for position, cut, fragment in edits:
        text = text[:position] + fragment + text[position + cut :]
    text = text.replace("valid graph", "x" * 60)  # long strings left open
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    try:
        parse_module(ctx, text, "m.mlir")
    except GEError as error:
        assert "\n" not in str(error)
        assert str(error).startswith("m.mlir:"), str(error)


# ---------------------------------------------------------------------------
# Values every op carries (ge_dialect/validation.py)
# ---------------------------------------------------------------------------


@given(st.integers(1, 6), st.integers(0, 30), st.sampled_from(["f16", "f32", "i8"]))
def test_dense_hex_data_must_be_exactly_what_its_type_needs(count, nbytes, element):
    size = {"f16": 2, "f32": 4, "i8": 1}[element]
    tensor = f"tensor<{count}x{element}>"
    text = (
        "ge.graph @main {\n"
        f'  %c = ge.const {{value = dense<"0x{"00" * nbytes}"> : {tensor}}} : '
        f"{tensor}\n  ge.netoutput %c : {tensor}\n}}\n"
    )
    if nbytes in (count * size, size):  # exact, or one element: a splat
        parse_module(context(), text, "d.mlir")
        return
    with pytest.raises(GEError) as error:
        parse_module(context(), text, "d.mlir")
    assert str(error.value).startswith("d.mlir:2:")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("rank", [31, 32, 33, 64, 65])
def test_a_tensor_has_at_most_max_rank_dims(rank):
    from ge_dialect.limits import MAX_RANK

    tensor = "tensor<" + "1x" * rank + "f32>"
    text = (
        "ge.graph @main {\n"
        f'  %x = ge.data {{index = 0 : i64, name = "x"}} : {tensor}\n'
        f"  ge.netoutput %x : {tensor}\n}}\n"
    )
    if rank <= MAX_RANK:
        parse_module(context(), text, "r.mlir")
        return
    with pytest.raises(GEError, match=f"has rank {rank}, more than {MAX_RANK}"):
        parse_module(context(), text, "r.mlir")


@pytest.mark.parametrize(
    ("layout", "valid"),
    [
        ("NCHW", True),  # rank 2 expands by NCHW's default reshape type "CH"
        ('NCHW, NCHW, reshape_type = "HW"', True),
        ('NCHW, NCHW, reshape_type = "HW", reshape_type = "HW"', False),
        ("NCHW, NC1HWC0, storage_shape = [1, 1, 2, 3, 16], storage_shape = [1]", False),
    ],
)
def test_a_low_rank_layout_expands_and_a_parameter_is_given_once(layout, valid):
    """SPEC §2: a tensor of lower rank than its origin format expands by a
    reshape type (so `tensor<2x3xf32, #ge.layout<NCHW>>` is valid); each
    layout parameter is given once."""
    tensor = f"tensor<2x3xf16, #ge.layout<{layout}>>"
    text = (
        "ge.graph @main {\n"
        f'  %x = ge.data {{index = 0 : i64, name = "x"}} : {tensor}\n'
        f"  ge.netoutput %x : {tensor}\n}}\n"
    )
    if valid:
        parse_module(context(), text, "l.mlir")
        return
    with pytest.raises(GEError, match="is given twice"):
        parse_module(context(), text, "l.mlir")
