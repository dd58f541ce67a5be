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

The walk (held values, constants, control flow) is `engines.walker`'s; this
module gives it the NumPy kernels. Graph inputs are given in origin layout,
keyed by the `ge.data` node name or index; outputs come back in origin
layout (or as stored).

```python
outputs = evaluate(module, {"x": x}, weights={"conv1.weight": w})
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ge_dialect.adapters import run_numpy_kernel
from ge_dialect.limits import check_claimed_memory
from ge_dialect.ops import GraphOp
from ge_dialect.ops.base import enclosing_target
from ge_runtime.engines.walker import (
    GraphWalker,
    Held,
    operand_origins,
    runs_subgraphs,
)
from ge_runtime.graph_io import bind_inputs, find_graph, storage_weights
from ge_runtime.run_inputs import InputKey, Weights, iteration_budget_of


@dataclass
class ReferenceEvaluator:
    """Runs graphs op by op in NumPy (see the module docstring for semantics)."""

    weights: Weights = field(default_factory=dict)
    target: str | None = None
    walker: GraphWalker = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.walker = GraphWalker(self.evaluate_op, self.weights, self.target)

    def run(self, graph: GraphOp, inputs: Mapping[int, np.ndarray]) -> list[Held]:
        """Run a top-level graph on inputs bound by index (see `bind_inputs`)."""
        return self.walker.run(graph, inputs)

    def evaluate_op(self, op: Operation, operands: Sequence[Held]) -> list[np.ndarray]:
        """One op on held operands: origin results."""
        return self.evaluate_origins(op, operand_origins(op, operands))

    def evaluate_origins(
        self, op: Operation, origins: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """One op on origin operands: control flow walks its subgraphs, any
        other op runs its NumPy kernel."""
        if runs_subgraphs(op):
            return self.walker.run_subgraphs(op, origins)
        return run_numpy_kernel(op, list(origins))


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
    arrays, or is the path of an `.npz` (the copies the format pipeline's
    constants read are derived: `storage_weights`); `target` (default: the
    module's `ge.target`) is the SoC whose C0 the layouts use. With
    `outputs_as_stored` the outputs come back in their storage layout.
    `max_iterations` sets the iteration budget of its `ge.while` loops
    (`run_inputs.iteration_budget`). Errors are one-line `GEError`s.
    """
    graph_op = find_graph(module_or_graph, graph)
    check_claimed_memory(graph_op)
    if target is None:
        target = enclosing_target(graph_op)
    laid_out = storage_weights(graph_op, weights, target)
    evaluator = ReferenceEvaluator(laid_out, target)
    with iteration_budget_of(max_iterations):
        outputs = evaluator.run(graph_op, bind_inputs(graph_op, inputs))
    if outputs_as_stored:
        return [np.asarray(held.stored) for held in outputs]
    return [np.asarray(held.origin) for held in outputs]
