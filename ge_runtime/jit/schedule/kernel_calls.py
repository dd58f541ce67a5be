"""Merging of kernel calls: a run of C kernel calls becomes one call.

Each `ctypes` call costs a few microseconds; a generated function calls
hundreds of kernels in a row, at its top level and in the bodies of its
branches and loops. Decided on the function's finished source (after
`hoist`), by the calls it makes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ge_runtime.jit.emit import c
from ge_runtime.jit.emit.scalar import CodeEnv

CALL = re.compile(r"( +)(k\d+)\(((?:p\d+, )*p\d+)?\)")
"""A call of a C kernel with addresses (at its indentation)."""

CHECKED_CALL = re.compile(r"( +)checked\((k\d+)\(((?:p\d+, )*p\d+)?\), (m\w+)\)")
"""A call of a C kernel that checks the data, its status raising the
diagnostic of its failed check (`c_runtime.checked`, the messages' name)."""

ADDRESS = re.compile(r"( +)(p\d+) = (address\((\w+), [-(), \d]*\))")
"""An address computation (`address(buffer, axes, strides, offset)`): its
indentation, name, expression and buffer."""


@dataclass(frozen=True)
class Merged:
    """A function body with its kernel calls merged, and the address tables
    its calls read, made where the addresses they hold are."""

    body: list[str]
    tables: dict[str, str]
    """Each table of `fixed` addresses: its name and the line binding it
    (`c_runtime.address_table`)."""
    bound_tables: dict[str, str]
    """Each table of `bound` addresses: its name and the line binding it."""


def addresses(lines: list[str]) -> frozenset[str]:
    """The names `lines` bind to addresses (`c_runtime.address`)."""
    return frozenset(
        match[2] for line in lines if (match := ADDRESS.fullmatch(line)) is not None
    )


def merge_kernel_calls(
    body: list[str],
    env: CodeEnv,
    fixed: frozenset[str] = frozenset(),
    bound: frozenset[str] = frozenset(),
) -> Merged:
    """`body` with each run of consecutive C kernel calls (in one block:
    at one indentation) made one call of a C function calling them in turn
    (the addresses the run computes are computed before it: they only read
    buffers made before it):

        p1 = address(v2, ...)          p1 = address(v2, ...)
        k3(p1, p4)               ->    p5 = address(v6, ...)
        p5 = address(v6, ...)          k9(p1, p4, p5)
        k7(p5, p1)

    The run's addresses among `fixed` (the same on every call of a thread:
    those of its buffers) it reads from one table of them (`k9(k9_table,
    p5)`, `Merged.tables`) when there are more than one, and those among
    `bound` (the same on every call with the weights bound: the packed
    weights') from another (`Merged.bound_tables`): `ctypes` converts each
    argument of each call (59 us for 1024).
    A kernel that checks the data (`checked(k3(p1), m2)`) stops the run's
    function at its first failing check, which returns the number of that
    check among the run's (`checked(k9(p1, p5), m10)`, `m10` their messages).
    """
    library = env.extensions.get(c.CLibrary)
    if library is None:
        return Merged(body, {}, {})
    kernels = {name: count for name, _, count in library.functions}
    merged: list[str] = []
    tables: dict[str, str] = {}
    bound_tables: dict[str, str] = {}
    computed: list[str] = []
    calls: list[tuple[str, list[str], str | None]] = []
    taken: dict[str, None] = {}  # the run's buffers, in order
    kinds = [0, 0, 0]  # how many of them are fixed, bound, neither
    indent = ""  # the run's

    def kind(name: str) -> int:
        return 0 if name in fixed else 1 if name in bound else 2

    def passed(counts: Sequence[int]) -> int:
        """How many arguments a call of a run of buffers of these `kinds`
        passes: a table of its fixed ones and one of its bound ones when
        there are more than one."""
        held, kept, loose = counts
        return loose + (1 if held > 1 else held) + (1 if kept > 1 else kept)

    def flush() -> None:
        merged.extend(computed)
        table = [name for name in taken if name in fixed]
        table = table if len(table) > 1 else []
        weights = [name for name in taken if name in bound]
        weights = weights if len(weights) > 1 else []
        if len(calls) == 1 and not table and not weights:
            kernel, arguments, messages = calls[0]
            call = f"{kernel}({', '.join(arguments)})"
            merged.append(
                f"{indent}{call}"
                if messages is None
                else f"{indent}checked({call}, {messages})"
            )
        elif calls:
            call, making, making_bound = library.sequence(calls, table, weights)
            merged.append(indent + call.lstrip())
            if making is not None:
                tables[making.split(" = ", 1)[0].strip()] = making
            if making_bound is not None:
                bound_tables[making_bound.split(" = ", 1)[0].strip()] = making_bound
        computed.clear()
        calls.clear()
        taken.clear()
        kinds[:] = [0, 0, 0]

    for line in body:
        call = CALL.fullmatch(line) or CHECKED_CALL.fullmatch(line)
        address = ADDRESS.fullmatch(line)
        step = call or address
        if step is not None and step[1] != indent:
            flush()
            indent = step[1]
        if call is not None and call[2] in kernels:
            arguments = call[3].split(", ") if call[3] else []
            counts = list(kinds)
            for name in dict.fromkeys(arguments):
                if name not in taken:
                    counts[kind(name)] += 1
            if passed(counts) > c.MAX_ARGUMENTS:
                flush()
            messages = call[4] if call.re is CHECKED_CALL else None
            calls.append((call[2], arguments, messages))
            for name in arguments:
                if name not in taken:
                    taken[name] = None
                    kinds[kind(name)] += 1
        elif address is not None:
            computed.append(line)
        else:
            flush()
            merged.append(line)
    flush()
    return Merged(merged, tables, bound_tables)


def shared_addresses(body: Sequence[str]) -> list[str]:
    """`body` with each top-level address computed once: a later statement
    computing the same address of the same buffer (each nest reading a
    function input computes its own, 1-2 us each per call) is dropped and
    its name read as the first's.

    ```python
    p3 = address(x, (0, 1), (68, 4), 0)      p3 = address(x, (0, 1), (68, 4), 0)
    k4(p3, p5)                         ->    k4(p3, p5)
    p6 = address(x, (0, 1), (68, 4), 0)      k7(p3, p8)
    k7(p6, p8)
    ```

    Only for a buffer bound once in `body` (the generated code's names are)."""
    bound = Counter(name for line in body if (name := _bound_name(line)) is not None)
    first: dict[str, str] = {}
    renamed: dict[str, str] = {}
    kept: list[str] = []
    for line in body:
        match = ADDRESS.fullmatch(line)
        if match is not None and match[1] == "    " and bound[match[4]] <= 1:
            name, computed = match[2], match[3]
            if computed in first:
                renamed[name] = first[computed]
                continue
            first[computed] = name
        kept.append(line)
    if not renamed:
        return kept
    names = re.compile(r"\b(" + "|".join(map(re.escape, renamed)) + r")\b")
    return [names.sub(lambda m: renamed[m[1]], line) for line in kept]


def _bound_name(line: str) -> str | None:
    """The name a simple assignment statement `line` binds, if it is one."""
    target, equals, _ = line.strip().partition(" = ")
    return target if equals and target.isidentifier() else None
