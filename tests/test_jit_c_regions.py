"""Scalar work and control flow run as one C call (`schedule.c_regions`):
branches, loops' iterations, nested loops and the iteration budget in C, the
same results as the reference; a loop the C function cannot run says why
and runs in Python."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_runtime.engines.reference import evaluate
from ge_runtime.jit.compiler import compile_graph, run_graph
from ge_runtime.run_inputs import iteration_budget_of


def one(b: GraphBuilder, value, dtype=np.int32):
    return b.const(np.array(value, dtype))


def check(module, inputs: dict[int, np.ndarray], python_loops: list[str] = ()):
    """The JIT (not poisoned: as a model runs) equals the reference; the
    loops it drives from Python are `python_loops` (reasons)."""
    graph = module.body.block.first_op
    compiled = compile_graph(graph)
    assert compiled.python_loops == list(python_loops)
    assert ("while True:" in compiled.source) == bool(python_loops)
    outputs = run_graph(module, inputs)
    expected = evaluate(module, inputs)
    for out, ref in zip(outputs, expected, strict=True):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        np.testing.assert_allclose(out, ref, rtol=2e-6, atol=0)
        numbers = ~np.isnan(ref)  # a NaN's sign is not a value's
        np.testing.assert_array_equal(
            np.signbit(out[numbers]), np.signbit(ref[numbers])
        )
    return compiled


def crossed(size: int) -> GraphBuilder:
    """(n, a, b) -> (n - 1, b, a * b) while n is non-zero: a and b cross."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    a = b.data([size], "float32")
    c = b.data([size], "float32")

    def body(s: GraphBuilder, n_, a_, b_):
        return [s.sub(n_, one(s, 1)), b_, s.mul(a_, b_)]

    _, y, z = b.while_([n, a, c], lambda s, n_, a_, b_: s.identity(n_), body, "w")
    b.output(y, z)
    return b


@pytest.mark.parametrize("size", [1, 3, 17, 33])
@pytest.mark.parametrize("trips", [0, 1, 4])
def test_crossed_loop_variables_in_one_call(size: int, trips: int):
    rng = np.random.default_rng(size)
    a = rng.uniform(0.5, 1.5, size).astype(np.float32)
    c = rng.uniform(0.5, 1.5, size).astype(np.float32)
    special = np.array([np.inf, -0.0, np.nan, -np.inf], np.float32)
    a[: min(size, 4)] = special[: min(size, 4)]
    check(crossed(size).build(), {0: np.array(trips, np.int32), 1: a, 2: c})


def test_a_branch_inside_the_loop_is_c_control_flow():
    """acc -> tanh(acc) if sum(acc) > 0 else acc * 2 - 1, n times."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    acc = b.data([17], "float32")

    def body(s: GraphBuilder, n_, a_):
        positive = s.greater(s.reduce_sum(a_, axes=[0]), s.const(np.float32(0)))
        (updated,) = s.if_(
            positive,
            [a_],
            lambda t, x: [t.tanh(x)],
            lambda e, x: [
                e.sub(e.mul(x, e.const(np.float32(2))), e.const(np.float32(1)))
            ],
        )
        return [s.sub(n_, one(s, 1)), updated]

    _, y = b.while_([n, acc], lambda s, n_, a_: s.identity(n_), body, "w")
    b.output(y)
    x = np.random.default_rng(1).uniform(-1, 0.2, 17).astype(np.float32)
    compiled = check(b.build(), {0: np.array(6, np.int32), 1: x})
    assert "scf.if" not in compiled.source  # one C call


def test_nested_loops_and_a_case_inside():
    """An inner loop of m trips per outer trip, and a case on the outer
    counter (out of range: the last branch) choosing the update."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    m = b.data([], "int32")
    acc = b.data([33], "float32")

    def inner(s: GraphBuilder, k_, a_):
        return [s.sub(k_, one(s, 1)), s.add(a_, s.const(np.float32(0.25)))]

    def outer(s: GraphBuilder, n_, m_, a_):
        _, stepped = s.while_([m_, a_], lambda t, k_, x: t.identity(k_), inner, "wi")
        (chosen,) = s.case(
            n_,
            [stepped],
            [
                lambda t, x: [t.exp(t.neg(x))],
                lambda t, x: [t.mul(x, t.const(np.float32(0.5)))],
                lambda t, x: [t.tanh(x)],
            ],
        )
        return [s.sub(n_, one(s, 1)), m_, chosen]

    _, _, y = b.while_([n, m, acc], lambda s, n_, m_, a_: s.identity(n_), outer, "wo")
    b.output(y)
    x = np.random.default_rng(2).standard_normal(33).astype(np.float32)
    check(b.build(), {0: np.array(5, np.int32), 1: np.array(3, np.int32), 2: x})


@pytest.mark.parametrize(
    ("n", "m", "runaway"), [(20, 1, "'w'"), (2, 20, "'wi'"), (3, 3, None)]
)
def test_the_budget_is_counted_in_c_per_loop(n: int, m: int, runaway: str | None):
    """Each loop counts its own trips against the run's budget (10 here);
    the one that runs out is named, as the Python loop names it."""
    b = GraphBuilder("g")
    outer_n = b.data([], "int32")
    inner_m = b.data([], "int32")
    acc = b.data([3], "float32")

    def inner(s: GraphBuilder, k_, a_):
        return [s.sub(k_, one(s, 1)), s.add(a_, s.const(np.float32(1)))]

    def outer(s: GraphBuilder, n_, m_, a_):
        _, stepped = s.while_([m_, a_], lambda t, k_, x: t.identity(k_), inner, "wi")
        return [s.sub(n_, one(s, 1)), m_, stepped]

    _, _, y = b.while_(
        [outer_n, inner_m, acc], lambda s, n_, m_, a_: s.identity(n_), outer, "w"
    )
    b.output(y)
    module = b.build()
    inputs = {
        0: np.array(n, np.int32),
        1: np.array(m, np.int32),
        2: np.zeros(3, np.float32),
    }
    assert compile_graph(module.body.block.first_op).python_loops == []
    with iteration_budget_of(10):
        if runaway is None:
            (y_value,) = run_graph(module, inputs)
            np.testing.assert_array_equal(y_value, np.full(3, n * m, np.float32))
            return
        with pytest.raises(
            GEError,
            match=rf"node {runaway}: error: 'ge.while' op did not finish within 10 ",
        ):
            run_graph(module, inputs)


def test_a_loop_with_a_numpy_nest_runs_in_python_and_says_why():
    """A float `Mod` (C's `fmod` is not written for kernels: NumPy runs it)
    in the body: the loop stays Python control flow, for that reason."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    x = b.data([17], "float32")
    w = b.data([17], "float32")

    def body(s: GraphBuilder, n_, x_, w_):
        return [s.sub(n_, one(s, 1)), s.mod(s.add(x_, w_), w_, fmod=1), w_]

    _, y, _ = b.while_([n, x, w], lambda s, n_, x_, w_: s.identity(n_), body, "w")
    b.output(y)
    rng = np.random.default_rng(3)
    x_value = rng.uniform(-9, 9, 17).astype(np.float32)
    x_value[:3] = [np.inf, -0.0, np.nan]
    w_value = rng.uniform(0.5, 3, 17).astype(np.float32)
    inputs = {0: np.array(3, np.int32), 1: x_value, 2: w_value}
    reason = "a nest runs as NumPy calls: 'arith.remf': not written for C"
    check(
        b.build(),
        inputs,
        [reason + " (no bench model's nest uses it): NumPy calls run it"],
    )


def test_each_call_reads_its_own_inputs():
    """The addresses a loop's C call takes are its call's: two runs of one
    compiled function on different inputs give their own results."""
    module = crossed(5).build()
    first = {
        0: np.array(2, np.int32),
        1: np.full(5, 2, np.float32),
        2: np.full(5, 3, np.float32),
    }
    second = {
        0: np.array(3, np.int32),
        1: np.full(5, 1.5, np.float32),
        2: np.full(5, -1, np.float32),
    }
    for inputs in (first, second, first):
        for out, ref in zip(
            run_graph(module, inputs), evaluate(module, inputs), strict=True
        ):
            np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("sign", [1.0, -1.0, 0.0])
def test_a_condition_and_its_branches_are_one_call_with_the_kernels_around(sign):
    """`If(mean(x) > 0)` (BranchingHead's shape): the mean's scalar work, the
    comparison and both branches are one C function, merged with the
    kernels around it into one call; a zero mean takes the else branch."""
    b = GraphBuilder("g")
    x = b.data([3, 17], "float32")
    mean = b.reduce_mean(x, axes=[0, 1])
    positive = b.greater(mean, b.const(np.float32(0)))
    (y,) = b.if_(
        positive,
        [x],
        lambda t, v: [t.mul(t.relu(v), t.const(np.float32(2)))],
        lambda e, v: [e.sub(e.sigmoid(v), v)],
    )
    b.output(b.exp(y))
    rng = np.random.default_rng(4)
    x_value = rng.uniform(0.1, 1, (3, 17)).astype(np.float32) * np.float32(sign)
    x_value[0, :3] = [np.inf, -0.0, np.nan] if sign else [0.0, -0.0, 0.0]
    if sign == 0:
        x_value[:] = np.where(np.arange(17) % 2, 1.0, -1.0).astype(np.float32)
    compiled = check(b.build(), {0: x_value})
    jitted = compiled.source.split("def jitted", 1)[1]
    assert "if " not in jitted
    calls = [
        line for line in jitted.splitlines() if re.fullmatch(r" +k\d+\(.*\)", line)
    ]
    assert len(calls) == 1, jitted


def test_a_scalar_read_after_the_run_keeps_it_python():
    """A loaded scalar an op after the run reads (a Clip bound computed from
    the data, as the mel front end's `max - 80`) cannot be a C local: the
    run stays Python and the results are the reference's."""
    b = GraphBuilder("g")
    x = b.data([5, 17], "float32")
    top = b.reduce_max(x, axes=[0, 1])
    floor = b.sub(top, b.const(np.float32(2)))
    b.output(b.maximum(x, floor))
    x_value = np.random.default_rng(5).uniform(-4, 4, (5, 17)).astype(np.float32)
    x_value[1, 2] = -np.inf
    check(b.build(), {0: x_value})


@pytest.mark.parametrize("start", [5, 7])
def test_a_gather_checked_in_the_loop_reports_its_index(start: int):
    """A row gathered at the trip counter (an in-order C kernel that checks
    its index) inside a C loop: in range, the reference's results; past the
    table's 5 rows, the gather's own diagnostic, raised after the call."""
    b = GraphBuilder("g")
    n = b.data([], "int32")
    table = b.data([5, 33], "float32")
    acc = b.data([33], "float32")

    def body(s: GraphBuilder, n_, t_, a_):
        row = s.gather(t_, s.sub(n_, one(s, 1)), axis=0)
        return [s.sub(n_, one(s, 1)), t_, s.add(s.tanh(a_), s.mul(row, a_))]

    _, _, y = b.while_([n, table, acc], lambda s, n_, t_, a_: s.identity(n_), body)
    b.output(y)
    rng = np.random.default_rng(6)
    inputs = {
        0: np.array(start, np.int32),
        1: rng.uniform(-1, 1, (5, 33)).astype(np.float32),
        2: rng.uniform(-1, 1, 33).astype(np.float32),
    }
    module = b.build()
    if start <= 5:
        check(module, inputs)
        return
    assert compile_graph(module.body.block.first_op).python_loops == []
    with pytest.raises(GEError, match="out of range"):
        run_graph(module, inputs)
