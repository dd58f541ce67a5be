"""The NumPy reference evaluator: runs a `ge.graph` at any stage of the pipeline.

This is the oracle every numeric check compares against. Semantics:

- a value whose storage format differs from its origin format is *held in
  storage layout* (`ge_dialect.formats.to_storage`, with the value's reshape
  type, dtype and groups); other values are held as they are;
- every op computes in origin layout: its operands are read back with
  `from_storage`, the op's NumPy kernel runs
  (`ge_dialect.adapters.run_numpy_kernel`) and each result is laid out in its
  own storage format. So `ge.transdata` is the identity on origin values (a
  transpose by axis letters when it absorbed one: NHWC -> NCHW origin) and
  the relayout happens by the result type, and `ge.cast` casts (C0 follows
  the new dtype);
- `ge.const` values (inline dense or `#ge.external<"key">` from the weights)
  and `ge.variable` values (weights by variable name) are read *in their
  storage layout*;
- control flow: `ge.if` runs `then` when `cond` is true (one element:
  non-zero; several: non-empty, TensorFlow's rule), `ge.case` runs
  branch `branch_index` (out of range: the last branch, as GE),
  `ge.while` loops until `cond` is false (at most `iteration_budget()` times),
  `ge.partitioned_call` runs its subgraph, and so does a fused group
  (`ge.fused`: its ops one by one). A subgraph's `ge.data` takes the
  parent operand `parent_index`, its `ge.netoutput` operand j is the parent's
  result j.

Graph inputs are given in origin layout, keyed by the `ge.data` node name or
index; outputs come back in origin layout (or as stored).

```python
outputs = evaluate(module, {"x": x}, weights={"conv1.weight": w})
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from ge_dialect.adapters import (
    check_results,
    expected_dtype,
    run_numpy_kernel,
)
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import inline_stored_array
from ge_dialect.diagnostics import error_at
from ge_dialect.formats import FormatError
from ge_dialect.layout import storage_shape_of
from ge_dialect.limits import check_claimed_memory
from ge_dialect.ops import (
    CaseOp,
    ConstOp,
    DataOp,
    FusedOp,
    GraphOp,
    IfOp,
    NetOutputOp,
    PartitionedCallOp,
    VariableOp,
    WhileOp,
)
from ge_dialect.value_layout import ValueLayout, value_layout
from ge_runtime.graph_io import (
    InputKey,
    Weights,
    bind_inputs,
    find_graph,
    iteration_budget,
    iteration_budget_of,
    load_npz,
    runaway_loop,
)

# ---------------------------------------------------------------------------
# Values in storage layout
# ---------------------------------------------------------------------------


@dataclass
class Held:
    """A runtime value: its stored array, layout and origin shape."""

    stored: np.ndarray
    layout: ValueLayout
    shape: tuple[int, ...]
    known_origin: np.ndarray | None = field(default=None, repr=False)

    @property
    def origin(self) -> np.ndarray:
        """The value in origin layout (converted once, then cached)."""
        if self.known_origin is None:
            self.known_origin = self.layout.load(self.stored, self.shape)
        return self.known_origin


# ---------------------------------------------------------------------------
# The evaluator
# ---------------------------------------------------------------------------


def is_true(cond: np.ndarray) -> bool:
    """GE/TensorFlow truth of a condition tensor."""
    if cond.size == 1:
        return bool(cond.reshape(-1)[0] != 0)
    return cond.size > 0


@dataclass
class ReferenceEvaluator:
    """Runs graphs op by op in NumPy (see the module docstring for semantics)."""

    weights: Weights = field(default_factory=dict)
    target: str | None = None
    layouts: dict[SSAValue, ValueLayout] = field(default_factory=dict, repr=False)
    """Each result's layout, found once (the graph does not change as it runs)."""

    HANDLERS: ClassVar[dict[type[Operation], str]] = {
        IfOp: "_if",
        CaseOp: "_case",
        WhileOp: "_while",
        PartitionedCallOp: "_partitioned_call",
        FusedOp: "_fused",
    }
    """Ops with subgraphs, evaluated here rather than by a kernel (origin in,
    origin out)."""

    def run(self, graph: GraphOp, inputs: Mapping[int, np.ndarray]) -> list[Held]:
        """Run a top-level graph on inputs bound by index (see `bind_inputs`)."""
        return self.run_block(graph.body.block, inputs)

    def run_block(self, block: Block, args: Mapping[int, np.ndarray]) -> list[Held]:
        """Run a (sub)graph body whose `ge.data` ops read `args` by index."""
        env: dict[SSAValue, Held] = {}
        for op in block.ops:
            if isinstance(op, NetOutputOp):
                return [env[value] for value in op.operands]
            if isinstance(op, ConstOp | VariableOp):
                env[op.results[0]] = self._read_stored(op)
                continue
            if isinstance(op, DataOp):
                results = [args[op.index_value]]
            else:
                operands = [env[value] for value in op.operands]
                results = self._compute(op, operands)
            for value, array in zip(op.results, results, strict=True):
                env[value] = self._hold(op, value, array)
        parent = block.parent_op()
        assert parent is not None
        raise error_at(parent, "has a region without 'ge.netoutput'")

    def _compute(self, op: Operation, operands: Sequence[Held]) -> list[np.ndarray]:
        origins = [self._origin(op, index, h) for index, h in enumerate(operands)]
        handler = self.HANDLERS.get(type(op))
        if handler is None:
            return run_numpy_kernel(op, origins)
        results = getattr(self, handler)(op, origins)
        check_results(op, results)
        return results

    def _origin(self, op: Operation, index: int, held: Held) -> np.ndarray:
        try:
            return held.origin
        except FormatError as error:
            raise error_at(op, f"operand #{index}: {error}") from None

    def _hold(self, op: Operation, value: SSAValue, origin: np.ndarray) -> Held:
        layout = self.layouts.get(value)
        if layout is None:
            layout = self.layouts[value] = value_layout(value, self.target)
        try:
            stored = layout.store(origin)
        except FormatError as error:
            raise error_at(op, f"result #{value.index}: {error}") from None
        return Held(stored, layout, origin.shape, origin)

    def _read_stored(self, op: ConstOp | VariableOp) -> Held:
        """A constant or variable: data in the result's storage layout."""
        tensor = op.output.type
        assert isinstance(tensor, TensorType)
        if isinstance(op, VariableOp):
            stored = self._weight(op, op.var_name.data, "variable")
        elif isinstance(op.value, ExternalDataAttr):
            stored = self._weight(op, op.value.key.data, "weight")
        dtype = expected_dtype(tensor)
        try:
            shape = storage_shape_of(tensor, self.target)
            if not isinstance(op, VariableOp) and not isinstance(
                op.value, ExternalDataAttr
            ):
                stored = inline_stored_array(op, self.target)
        except FormatError as error:
            raise error_at(op, str(error)) from None
        if stored.shape != tuple(shape) or stored.dtype != dtype:
            raise error_at(
                op,
                f"value is {stored.dtype}{list(stored.shape)}, the result's storage "
                f"layout needs {dtype}{list(shape)}",
            )
        layout = value_layout(op.output, self.target)
        return Held(stored, layout, tuple(tensor.get_shape()))

    def _weight(self, op: Operation, key: str, what: str) -> np.ndarray:
        if key not in self.weights:
            raise error_at(op, f"{what} '{key}' is not in the weights")
        return np.asarray(self.weights[key])

    # -- ops evaluated here (origin in, origin out) ---------------------------

    def _call(self, region: Region, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        results = self.run_block(region.block, dict(enumerate(args)))
        return [held.origin for held in results]

    def _if(self, op: IfOp, args: list[np.ndarray]) -> list[np.ndarray]:
        branch = op.then_branch if is_true(args[0]) else op.else_branch
        return self._call(branch, args)

    def _case(self, op: CaseOp, args: list[np.ndarray]) -> list[np.ndarray]:
        index_array = args[0]
        if index_array.size != 1 or index_array.dtype.kind not in "iub":
            raise error_at(
                op,
                f"branch_index must be one integer, got {index_array.dtype}"
                f"{list(index_array.shape)}",
            )
        index = int(index_array.reshape(-1)[0])
        last = len(op.branches) - 1
        return self._call(op.branches[index if 0 <= index <= last else last], args)

    def _while(self, op: WhileOp, args: list[np.ndarray]) -> list[np.ndarray]:
        values = args
        budget, iterations = iteration_budget(), 0
        while True:
            (cond,) = self._call(op.cond, values)
            if not is_true(cond):
                return values
            if iterations == budget:  # a loop of exactly `budget` trips runs
                raise error_at(op, runaway_loop())
            values = self._call(op.body, values)
            iterations += 1

    def _partitioned_call(
        self, op: PartitionedCallOp, args: list[np.ndarray]
    ) -> list[np.ndarray]:
        return self._call(op.f, args)

    def _fused(self, op: FusedOp, args: list[np.ndarray]) -> list[np.ndarray]:
        return self._call(op.body, args)


def evaluate(
    module_or_graph: ModuleOp | GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
    *,
    weights: Weights | str | os.PathLike[str] | None = None,
    outputs_as_stored: bool = False,
    graph: str | None = None,
    target: str | None = None,
    max_iterations: int | None = None,
) -> list[np.ndarray]:
    """Run a graph in NumPy and return its outputs (origin layout by default).

    `inputs` are origin-layout arrays keyed by `ge.data` node name or index.
    `weights` maps `#ge.external` keys (and variable names) to storage-layout
    arrays, or is the path of an `.npz`. With `outputs_as_stored` the outputs
    come back in their storage layout. `max_iterations` sets the iteration
    budget of its `ge.while` loops (`graph_io.iteration_budget`). Errors are
    one-line `GEError`s.
    """
    graph_op = find_graph(module_or_graph, graph)
    check_claimed_memory(graph_op)
    if isinstance(weights, str | os.PathLike):
        weights = load_npz(weights)
    evaluator = ReferenceEvaluator(weights or {}, target)
    with iteration_budget_of(max_iterations):
        outputs = evaluator.run(graph_op, bind_inputs(graph_op, inputs))
    if outputs_as_stored:
        return [np.asarray(held.stored) for held in outputs]
    return [np.asarray(held.origin) for held in outputs]
