"""Resource limits on what a user's input may ask for, checked before the work.

A 16-byte `dense<1.0> : tensor<65536x65536x4xf32>`, a `.npy` header that
claims 2^40 elements or an ONNX `ConstantOfShape` of [1 << 32, 4] costs
nothing to write and everything to run. Every place that allocates what an
input *claims* (a tensor type, a header, a folded constant, an output, a
file read into memory) first asks `check_bytes`, which raises a one-line
`GEError` when the claim is over the memory budget:

```
net.mlir:3:7: error: 'ge.const' op value needs 64.0 GiB, over the memory
budget of 4.0 GiB (raise it with --memory-budget)
```

The budget is per allocation (one tensor, one file), `DEFAULT_MEMORY_BUDGET`
unless a tool's `--memory-budget SIZE` (or `with memory_budget(n):`) sets
another. Sizes are computed with `checked_product`, which also rejects dims
outside int64 (what every consumer of a shape assumes). `MAX_NESTING` bounds
how deeply ops may nest (regions in regions), so every recursive walk over
the IR stays far from Python's recursion limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import TYPE_CHECKING

from ge_dialect.diagnostics import GEError

if TYPE_CHECKING:
    from xdsl.ir import Operation

INT64_MAX = (1 << 63) - 1
"""The largest dim, size or count any tensor may have."""

MAX_NESTING = 32
"""How deeply ops may nest: a graph's op is at depth 1, an op in its `ge.if`
branch at depth 2, and so on."""

MAX_RANK = 32
"""The most dims a tensor type may have (NumPy's arrays stop at 64, and a
relayout adds dims: NC1HWC0 one, FRACTAL_NZ two)."""

MAX_JSON_NESTING = 64
"""How deeply arrays and objects may nest in a JSON input file."""

DEFAULT_INLINE_LIMIT = 1024
"""Imported constants with more elements than this are kept outside the IR
(`#ge.external`, in a weights file) unless an importer's `inline_limit` says."""

DEFAULT_MEMORY_BUDGET = 4 << 30
"""Bytes one tensor or one input file may take unless `--memory-budget` says."""

_BUDGET: ContextVar[int] = ContextVar("memory_budget", default=DEFAULT_MEMORY_BUDGET)

BUDGET_FLAG = "--memory-budget"
"""The tools' flag that raises (or lowers) the budget."""

DEFAULT_MAX_ITERATIONS = 10_000
"""How many `ge.while` iterations run before the loop counts as runaway,
unless `--max-iterations` (or `ge_runtime.run_inputs.iteration_budget_of`) says."""

ITERATIONS_FLAG = "--max-iterations"
"""The tools' flag that raises (or lowers) the iteration budget."""


def memory_budget() -> int:
    """The current memory budget in bytes."""
    return _BUDGET.get()


@contextmanager
def budget_of(nbytes: int) -> Iterator[None]:
    """Run the body with a memory budget of `nbytes`."""
    token = _BUDGET.set(nbytes)
    try:
        yield
    finally:
        _BUDGET.reset(token)


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", re.IGNORECASE)


def parse_size(text: str) -> int:
    """`4G`, `512MiB`, `1.5GB` or a byte count as bytes (ValueError otherwise)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"'{text}' is not a size (e.g. 4G, 512M, 1000000)")
    nbytes = int(Fraction(match.group(1)) * SIZE_UNITS[match.group(2).upper()])
    if nbytes < 1:
        raise ValueError(f"'{text}' is not a positive size")
    if nbytes > INT64_MAX:
        raise ValueError(f"'{text}' is more than 2^63-1 bytes")
    return nbytes


def human_size(nbytes: int) -> str:
    """`64.0 GiB`, `12 bytes`."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    if nbytes >= 1 << 10:
        return f"{nbytes / 1024:.1f} KiB"
    return f"{nbytes} bytes"


class LimitError(ValueError):
    """A size or count over a limit; the caller adds the location."""


def checked_product(dims: Iterable[int], what: str = "shape") -> int:
    """The product of non-negative `dims`, LimitError past int64."""
    dims = list(dims)
    for dim in dims:
        if not 0 <= dim <= INT64_MAX:
            raise LimitError(f"{what} {dims} has a dim outside [0, 2^63)")
    total = math.prod(dims)
    if total > INT64_MAX:
        raise LimitError(f"{what} {dims} has more than 2^63 elements")
    return total


def tensor_bytes(dims: Iterable[int], itemsize: int, what: str = "shape") -> int:
    """The bytes of a tensor of static `dims` with `itemsize`-byte elements."""
    return checked_product(dims, what) * itemsize


def over_budget(nbytes: int, what: str) -> str | None:
    """Why `what` of `nbytes` may not be allocated, or None when it may."""
    limit = memory_budget()
    if nbytes <= limit:
        return None
    return (
        f"{what} needs {human_size(nbytes)}, over the memory budget of "
        f"{human_size(limit)} (raise it with {BUDGET_FLAG})"
    )


def check_bytes(nbytes: int, what: str, where: str) -> None:
    """GEError `where: error: ...` if `nbytes` is over the memory budget."""
    if (reason := over_budget(nbytes, what)) is not None:
        raise GEError(f"{where}: error: {reason}")


def static_bytes(shaped: object) -> int | None:
    """The bytes a tensor or memref type claims, or None (dynamic, or no
    fixed element size). LimitError past int64."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX, ShapedType

    if not isinstance(shaped, ShapedType):
        return None
    shape = shaped.get_shape()
    element = getattr(shaped, "element_type", None)
    width = getattr(element, "bitwidth", None)
    if DYNAMIC_INDEX in shape or not isinstance(width, int):
        return None
    return tensor_bytes(shape, max(width // 8, 1), "shape")


def check_claimed_memory(root: object) -> None:
    """GEError at the first op under `root` (itself included) whose result
    type claims more than the memory budget: what running it would allocate."""
    from xdsl.ir import Operation

    assert isinstance(root, Operation)
    check_ops_memory(root.walk())


def check_ops_memory(ops: Iterable[Operation]) -> None:
    """`check_claimed_memory` of each of `ops` (not of the ops nested in
    them), in order."""
    from ge_dialect.locations import error_at

    for op in ops:
        for result in op.results:
            try:
                nbytes = static_bytes(result.type)
            except LimitError as error:
                raise error_at(op, f"result #{result.index}: {error}") from None
            if nbytes is None:
                continue
            if (reason := over_budget(nbytes, f"result #{result.index}")) is not None:
                raise error_at(op, reason)
