"""Merging of kernel calls: a run of C kernel calls becomes one call.

Each `ctypes` call costs a few microseconds; a generated function calls
hundreds of kernels in a row. Decided on the function's finished source
(after `hoist`), by the calls it makes.
"""

from __future__ import annotations

import re

from ge_runtime.jit.emit import c
from ge_runtime.jit.emit.scalar import CodeEnv

CALL = re.compile(r"    (k\d+)\(((?:p\d+, )*p\d+)?\)")
"""A top-level call of a C kernel with addresses."""

ADDRESS = re.compile(r"    p\d+ = address\(\w+, [-(), \d]*\)")
"""A top-level address computation (`address(buffer, axes, strides, offset)`)."""


def merge_kernel_calls(body: list[str], env: CodeEnv) -> list[str]:
    """`body` with each run of consecutive C kernel calls made one call of a
    C function calling them in turn (the addresses the run computes are
    computed before it: they only read buffers made before it):

        p1 = address(v2, ...)          p1 = address(v2, ...)
        k3(p1, p4)               ->    p5 = address(v6, ...)
        p5 = address(v6, ...)          k9(p1, p4, p5)
        k7(p5, p1)
    """
    library = env.extensions.get(c.CLibrary)
    if library is None:
        return body
    kernels = {name: count for name, _, count in library.functions}
    merged: list[str] = []
    addresses: list[str] = []
    calls: list[tuple[str, list[str]]] = []
    taken: set[str] = set()  # the run's buffers

    def flush() -> None:
        merged.extend(addresses)
        if len(calls) == 1:
            kernel, arguments = calls[0]
            merged.append(f"    {kernel}({', '.join(arguments)})")
        elif calls:
            merged.append(library.sequence(calls))
        addresses.clear()
        calls.clear()
        taken.clear()

    for line in body:
        call = CALL.fullmatch(line)
        if call is not None and call[1] in kernels:
            arguments = call[2].split(", ") if call[2] else []
            if len(taken.union(arguments)) > c.MAX_ARGUMENTS:
                flush()
            calls.append((call[1], arguments))
            taken.update(arguments)
        elif ADDRESS.fullmatch(line):
            addresses.append(line)
        else:
            flush()
            merged.append(line)
    flush()
    return merged
