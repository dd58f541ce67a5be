"""What the generated function does once per thread or not at all
(`ge_runtime.jit.schedule.hoist`: `hoist_views`, `drop_unread`)."""

from __future__ import annotations

import ast

import numpy as np

from ge_runtime.jit.compiler import compile_graph
from ge_runtime.jit.schedule import hoist
from ge_runtime.jit.schedule.hoist import (
    drop_unread,
    hoist_invariants,
    hoist_views,
)

BODY = [
    "    v3 = _workspace[0]",
    "    v4 = c5",
    "    v6 = v3[v4:v4 + 64].view(dt7).reshape((4, 4))",
    "    t8 = strided_view(v6, 0, (4, 2), (16, 8))",
    "    m9 = _workspace[1].reshape((2, 8))",
    "    m10 = m9",
    "    t11 = strided_view(x, 0, (4,), (4,))",
    "    t12 = strided_view(v6, k, (4,), (4,))",
    "    t13 = v6.reshape(shape)",
    "    np.add(t8, t11[:, None], out=t8)",
    "    copy_into(m10, t12)",
    "    t14 = t13.reshape((16,))",
    "    v15 = _workspace[2]",
    "    v15 = _workspace[3]",
    "    return (t14, v15)",
]


def test_views_of_the_threads_buffers_are_made_once():
    """`_workspace[i]`, arena slices at constant offsets, strided views with
    literal arguments and reshapes of whole buffers move; views of the
    arguments, with a run-time argument, of a name bound twice stay."""
    views = hoist_views(BODY, set(), frozenset({"c5", "dt7"}))
    moved = {line.split(" = ")[0].strip() for line in views.setup}
    assert moved == {"v3", "v4", "v6", "t8", "m9", "m10"}
    assert views.names == ["m10", "t8", "v6"]
    assert "    v4 = c5" in views.body  # a constant's other name stays too
    for kept in ("t11", "t12", "t13", "t14", "v15"):
        assert any(line.startswith(f"    {kept} = ") for line in views.body), kept
    assert views.free == []
    prepared = hoist_views(
        [
            "    v3 = _workspace[0]",
            "    v6 = v3[p:p + 8].view(dt7).reshape((2, 4))",
            "    np.add(v6, 1, out=v6)",
        ],
        {"p"},  # what prepare computed: given to the views too
        frozenset({"dt7"}),
    )
    assert prepared.free == ["p"] and prepared.names == ["v6"]


LOOP = [
    "    v3 = _workspace[0]",
    "    n4 = 0",
    "    while True:",
    "        v5 = v3[c6:c6 + 8].view(dt7).reshape((2,))",
    "        p8 = address(v5, (0,), (4,), 0)",
    "        w9 = np.ascontiguousarray(strided_view(w, 0, (2,), (8,)))",
    "        k10(p8)",
    "        v11 = v5[()]",
    "        n4 += 1",
    "        if n4 > 3:",
    "            v12 = v3[c6:c6 + 8].view(dt7).reshape((2, 1))",
    "            break",
    "    return (v11, w9)",
]


def test_a_loops_views_and_weight_copies_are_made_once():
    """A loop's body makes the same views of the thread's buffers, and the
    same copies of the weights, on every iteration: they move out of it
    (a block left empty says `pass`); what reads the buffers' values stays,
    and so does a block's own scratch buffer."""
    views = hoist_views(LOOP, set(), frozenset({"c6", "dt7"}))
    moved = {line.split(" = ")[0].strip() for line in views.setup}
    assert moved == {"v3", "v5", "p8", "v12"}
    assert views.setup[1] == "    v5 = v3[c6:c6 + 8].view(dt7).reshape((2,))"
    assert "        v11 = v5[()]" in views.body
    assert "            pass" not in views.body  # `break` is left in that block
    assert not any("address" in line for line in views.body)
    constants = {"np", "strided_view", "dt7", "c6"}
    split = hoist_invariants(LOOP, {"w", *constants}, {"k10": [0]}, frozenset({"w"}))
    assert split.prepare == [
        "    w9 = np.ascontiguousarray(strided_view(w, 0, (2,), (8,)))"
    ]
    assert split.names == ["w9"]
    scratch = [
        "    if c:",
        "        s1 = np.empty((2,), dt7)",
        "        add_into(x, y, s1)",
        "        r2 = s1",
        "    return (r2,)",
    ]  # a branch's buffer, written by a helper the analysis does not know
    assert hoist_invariants(scratch, {"c", *constants}).prepare == []
    alone = hoist_views(
        LOOP[:3] + LOOP[3:4] + ["    return (v5,)"], set(), frozenset({"c6", "dt7"})
    )
    assert alone.body == [
        "    n4 = 0",
        "    while True:",
        "        pass",
        "    return (v5,)",
    ]


def _facts(parsed: hoist.Parsed) -> tuple:
    """What the hoisting reads of a parse (the statements' places, not
    their expressions'), comparable between two."""
    statements = list(hoist._in_order(parsed.statements))
    return (
        parsed.lines,
        [ast.dump(statement) for statement in parsed.statements],
        [(s.lineno, s.col_offset, s.end_lineno, s.end_col_offset) for s in statements],
        [ast.dump(node) for node, _ in parsed.effects],
        parsed.assigned,
        parsed.loaded,
        [parsed.reads[s] for s in statements if isinstance(s, ast.Assign)],
        [parsed.binds[s] for s in statements if isinstance(s, ast.Assign)],
    )


def test_a_body_without_moved_statements_is_as_parsed_again():
    """`Parsed.without` (taking statements out of the one parse) gives what
    parsing the lines left gives, for any choice of moved assignments: at
    the top level, in a loop, emptying a block, one of two reads."""
    body = LOOP + ["    if c:", "        t20 = v3 + t14"] + BODY[1:]
    count = len(
        [
            s
            for s in hoist._in_order(hoist._parsed(body).statements)
            if isinstance(s, ast.Assign)
        ]
    )
    assert count > 10
    for chosen in range(1 << 4):
        for start in range(0, count - 3, 3):
            parsed = hoist._parsed(body)  # `without` renumbers its statements
            assignments = [
                s
                for s in hoist._in_order(parsed.statements)
                if isinstance(s, ast.Assign)
            ]
            moved = [
                a
                for bit, a in enumerate(assignments[start : start + 4])
                if chosen >> bit & 1
            ]
            rest = parsed.without(moved)
            assert _facts(rest) == _facts(hoist._parsed(rest.lines))
            first = [s for s in rest.statements[:1] if isinstance(s, ast.Assign)]
            again = rest.without(first)  # and once more
            assert _facts(again) == _facts(hoist._parsed(again.lines))


def test_statements_built_without_the_parser_are_what_it_makes(monkeypatch):
    """The statements `_parsed` builds from their lines (addresses, kernel
    calls, arena slices, other names, the thread's buffers, weights' copies)
    are the parser's nodes, at its places, and the walk finds in them what
    it finds in the parsed ones; a line of none of those forms (a literal
    where a name is, a keyword) is parsed."""
    body = [
        *LOOP,
        "    p13 = address(x, (), (8, -4), -16)",
        "    p14 = address(x, (1,), (4,), 0)",
        "    k15()",
        "    k15(p13, p14)",
        "    v16 = v3",
        "    v17 = True",
        "    v18 = v3[0:0 + 8].view(dt7).reshape((2,))",
        "    v19 = v3[c6:c6 + 8].view(dt7).reshape(shape)",
        "    w20 = np.ascontiguousarray(strided_view(w, -8, (2, 3), (8, 4)))",
        "    p21 = address(x, (a,), (4,), 0)",
    ]
    fast = hoist._parsed(body)
    forms = [n for n, line in enumerate(body) if hoist._built(line, n + 2)]
    assert forms == [0, 3, 4, 5, 6, 10, 13, 14, 15, 16, 17, 21]
    for statement in hoist._in_order(fast.statements):
        if isinstance(statement, ast.Assign) and statement.value in fast.buffers:
            assert set(fast.buffers[statement.value]) == hoist._buffers(statement.value)
    continued = [  # lines of the forms inside other statements: parsed
        ["    t22 = f(", "        k23(p24)", "    )", "    k28(p29)"],
        ['    s25 = """', "    k26(p27)", '    """', "    k28(p29)"],
    ]
    fast_continued = [_facts(hoist._parsed(lines)) for lines in continued]
    monkeypatch.setattr(hoist, "_built", lambda line, number: None)
    slow = hoist._parsed(body)
    assert _facts(fast) == _facts(slow)
    assert [ast.dump(o) if o else None for _, o in fast.effects] == [
        ast.dump(o) if o else None for _, o in slow.effects
    ]
    assert fast_continued == [_facts(hoist._parsed(lines)) for lines in continued]


def test_unread_views_are_dropped_and_effects_kept():
    body = [
        "    r1 = s2.reshape((4, 4)).transpose((1, 0)).reshape((16,))",
        "    t3 = strided_view(s2, 0, (4,), (4,))",
        "    t4 = strided_view(s2, 4, (4,), (4,))",
        "    g5 = pack(t4, (2, 2), s6)",  # a call: kept though unread
        "    np.add(t3, 1, out=t3)",
        "    if c:",
        "        u7 = t8.reshape((2,))",
        "    return (s2,)",
    ]
    kept = [*body[1:6], "        pass", body[-1]]  # r1 and u7 unread; a call kept
    assert drop_unread(body) == kept
    assert drop_unread([body[1], body[-1]]) == [body[-1]]  # t3 unread without the add


def test_a_blocks_unread_scratch_is_dropped_and_read_scratch_kept():
    """A branch's `np.empty` nothing reads anywhere goes (a block left empty
    says `pass`); one a later statement reads, or a kernel writes, stays, as
    does a nested call."""
    body = [
        "    if c:",
        "        v1 = np.empty((2, 17), dt2)",
        "        k3(p4)",
        "    else:",
        "        v5 = np.empty((2, 17), dt2)",
        "    while True:",
        "        v6 = np.empty((3,), dt2)",
        "        add_into(t7, t8, v6)",
        "        v9 = f10(t7)",
        "    return (s2,)",
    ]
    dropped = drop_unread(body)
    assert dropped == [body[0], body[2], body[3], "        pass", *body[5:]]


def test_per_thread_views_survive_calls_threads_and_the_disk_cache(
    tmp_path, monkeypatch
):
    """A compiled conv's views of the workspace are made on a thread's first
    call; later calls, other threads and the function read back from the
    disk cache compute what the first call did."""
    from concurrent.futures import ThreadPoolExecutor

    from ge_dialect.builder import GraphBuilder
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit import compiler as jit
    from ge_runtime.jit.compiler import graph_arguments

    b = GraphBuilder("main")
    x = b.data([1, 17, 9, 9], "float32", name="x")
    w = b.const(np.random.default_rng(0).standard_normal((33, 17, 3, 3), np.float32))
    y = b.conv2d(x, w, strides=[1, 1, 2, 2], pads=[1, 1, 1, 1], data_format="NCHW")
    b.output(
        b.relu(
            b.max_pool(y, ksize=[1, 1, 3, 3], strides=[1, 1, 2, 2], data_format="NCHW")
        )
    )
    graph = find_graph(b.build())
    compiled = compile_graph(graph)
    assert "def views(_workspace" in compiled.source
    inputs = np.random.default_rng(1).standard_normal((4, 1, 17, 9, 9), np.float32)

    def run(function, x):
        return function(*graph_arguments(graph, {"x": x}, {}, None))[0]

    expected = [run(compiled, x) for x in inputs]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda x: run(compiled, x), inputs))
    for a, b_ in zip(got, expected, strict=True):
        assert a.tobytes() == b_.tobytes()
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    jit._CACHE.clear()
    jit._GRAPHS.clear()
    compile_graph(graph, cache_key="views-test")
    jit._CACHE.clear()
    jit._GRAPHS.clear()
    reloaded = compile_graph(graph, cache_key="views-test")
    assert list(tmp_path.glob("*.pickle"))  # read back from the disk
    for x, e in zip(inputs, expected, strict=True):
        assert run(reloaded, x).tobytes() == e.tobytes()
