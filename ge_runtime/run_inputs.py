"""What a run is given: its inputs, bound by name or index to the graph's
input specs (shape and dtype checked), and the iteration budget of its loops.

No IR is read here: the specs of a graph come from its `ge.data` ops
(`graph_io.input_specs`) or, for a served model, from its offline model's
manifest, so a served run imports no xDSL.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.formats import shape_matches
from ge_dialect.limits import DEFAULT_MAX_ITERATIONS, ITERATIONS_FLAG
from ge_runtime.npy import dtype_label

if TYPE_CHECKING:
    from ge_dialect.ops import DataOp

_ITERATIONS: ContextVar[int] = ContextVar(
    "iteration_budget", default=DEFAULT_MAX_ITERATIONS
)


def iteration_budget() -> int:
    """How many iterations one `ge.while` may run now (read as it runs, so
    compiled code follows the budget of each run)."""
    return _ITERATIONS.get()


@contextmanager
def iteration_budget_of(iterations: int | None) -> Iterator[None]:
    """Run the body with an iteration budget of `iterations` (None: as is)."""
    if iterations is None:
        yield
        return
    if isinstance(iterations, bool) or not isinstance(iterations, int):
        raise GEError(
            f"error: max_iterations must be an integer, got {type(iterations).__name__}"
        )
    if iterations < 1:
        raise GEError(f"error: max_iterations must be positive, got {iterations}")
    token = _ITERATIONS.set(iterations)
    try:
        yield
    finally:
        _ITERATIONS.reset(token)


def runaway_loop() -> str:
    """What a `ge.while` that ran out of the iteration budget reports."""
    return (
        f"did not finish within {iteration_budget()} iterations (raise the "
        f"limit with {ITERATIONS_FLAG})"
    )


Weights = Mapping[str, np.ndarray]
InputKey = str | int


@dataclass(frozen=True)
class InputSpec:
    """One graph input: its `ge.data` op, index, node name, shape and dtype."""

    op: DataOp | None
    """None: known from an offline model's manifest (its IR not parsed)."""
    index: int
    name: str | None
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def label(self) -> str:
        """`#0 ('x')` or `#0`, for messages."""
        return f"#{self.index}" + (f" ('{self.name}')" if self.name else "")

    def error(self, message: str) -> GEError:
        """A diagnostic about this input (at its `ge.data` op, if known)."""
        if self.op is None:
            return GEError(f"error: {message}")
        from ge_dialect.locations import error_at

        return error_at(self.op, message)


def spec_keys(specs: Sequence[InputSpec]) -> dict[InputKey, InputSpec]:
    """Each input spec by its index and by its name (what `bind_to_specs`
    looks inputs up in: a caller running many times makes it once)."""
    by_key: dict[InputKey, InputSpec] = {s.index: s for s in specs}
    by_key.update({s.name: s for s in specs if s.name is not None})
    return by_key


def bind_to_specs(
    specs: Sequence[InputSpec],
    inputs: Mapping[InputKey, np.ndarray],
    graph: str,
    by_key: Mapping[InputKey, InputSpec] | None = None,
) -> dict[int, np.ndarray]:
    """`bind_inputs` on the inputs `specs` of the graph named `graph`
    (`by_key`: their `spec_keys`, if made before)."""
    by_key = spec_keys(specs) if by_key is None else by_key
    bound: dict[int, np.ndarray] = {}
    for key, array in inputs.items():
        spec = by_key.get(key)
        if spec is None:
            known = ", ".join(s.label for s in specs) or "none"
            raise GEError(
                f"error: graph '{graph}' has no input {key!r} (inputs: {known})"
            )
        if spec.index in bound:
            raise spec.error(f"input {spec.label} is given twice")
        array = np.asarray(array)
        if array.shape != spec.shape and not shape_matches(array.shape, spec.shape):
            raise spec.error(
                f"input {spec.label} has shape {list(array.shape)}, the graph "
                f"expects {list(spec.shape)}",
            )
        if array.dtype != spec.dtype:
            raise spec.error(
                f"input {spec.label} has dtype {dtype_label(array.dtype)}, the graph "
                f"expects {dtype_label(spec.dtype)}",
            )
        bound[spec.index] = array
    if len(bound) != len(specs):
        for spec in specs:
            if spec.index not in bound:
                raise spec.error(f"input {spec.label} is missing")
    return bound


GivenInput = np.ndarray | Mapping[str, np.ndarray]
"""An input as a user gives it: an array, or an `.npz`'s arrays by key (a
sequence, or an absent optional: `ge_dialect.structured_io`)."""
