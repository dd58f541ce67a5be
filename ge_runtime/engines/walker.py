"""The graph walk every engine that runs a graph op by op shares.

A `GraphWalker` runs a `ge.graph` body in block order: it binds `ge.data`
to the inputs, reads `ge.const` and `ge.variable` in their storage layout,
holds every value in its storage layout (`Held`) and returns the values of
`ge.netoutput`. What an op computes is not its business: each other op goes
to the engine's `evaluate_op` (origin layout in and out), and an engine hands
an op with subgraphs back to `run_subgraphs` (control flow: `ge.if`,
`ge.case`, `ge.while`, `ge.partitioned_call`, `ge.fused`), which walks the
subgraph and so reaches the engine again for the ops inside.

The reference evaluator composes one with the NumPy kernels
(`engines.reference`), the scheduler with sunk parts, fallback ops and
per-shape kernels (`engines.scheduler`).

```python
walker = GraphWalker(evaluate_op, weights, target)
outputs = walker.run(graph, bind_inputs(graph, inputs))  # list[Held]
```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from ge_dialect.adapters import check_results, expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import inline_stored_array
from ge_dialect.formats import FormatError
from ge_dialect.layout import storage_shape_of
from ge_dialect.locations import error_at
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
from ge_dialect.relayout import ValueLayout
from ge_dialect.value_layout import value_layout
from ge_runtime.run_inputs import Weights, iteration_budget, runaway_loop


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


def is_true(cond: np.ndarray) -> bool:
    """GE/TensorFlow truth of a condition tensor."""
    if cond.size == 1:
        return bool(cond.reshape(-1)[0] != 0)
    return cond.size > 0


def operand_origins(op: Operation, operands: Sequence[Held]) -> list[np.ndarray]:
    """The operands in origin layout (a layout that does not fit: at `op`)."""
    origins = []
    for index, held in enumerate(operands):
        try:
            origins.append(held.origin)
        except FormatError as error:
            raise error_at(op, f"operand #{index}: {error}") from None
    return origins


OpEvaluator = Callable[[Operation, Sequence[Held]], list[np.ndarray]]
"""What an engine does with an op: its held operands in, origin results out."""


def runs_subgraphs(op: Operation) -> bool:
    """Whether `op` is control flow the walker runs (`GraphWalker.run_subgraphs`)."""
    return type(op) in GraphWalker.SUBGRAPH_RUNNERS


@dataclass
class GraphWalker:
    """Runs graphs op by op, delegating each op to `evaluate_op` (see the
    module docstring)."""

    evaluate_op: OpEvaluator
    weights: Weights = field(default_factory=dict)
    target: str | None = None
    layouts: dict[SSAValue, ValueLayout] = field(default_factory=dict, repr=False)
    """Each result's layout, found once (the graph does not change as it runs)."""

    SUBGRAPH_RUNNERS: ClassVar[dict[type[Operation], str]] = {
        IfOp: "_if",
        CaseOp: "_case",
        WhileOp: "_while",
        PartitionedCallOp: "_call_op",
        FusedOp: "_call_op",
    }
    """Ops whose subgraphs the walker runs (origin in, origin out)."""

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
                results = self.evaluate_op(op, [env[value] for value in op.operands])
            for value, array in zip(op.results, results, strict=True):
                env[value] = self._hold(op, value, array)
        parent = block.parent_op()
        assert parent is not None
        raise error_at(parent, "has a region without 'ge.netoutput'")

    def run_subgraphs(
        self, op: Operation, args: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """Run control flow `op` (`runs_subgraphs`) on origin operands."""
        results = getattr(self, self.SUBGRAPH_RUNNERS[type(op)])(op, list(args))
        check_results(op, results)
        return results

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

    # -- control flow (origin in, origin out) ---------------------------------

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

    def _call_op(
        self, op: PartitionedCallOp | FusedOp, args: list[np.ndarray]
    ) -> list[np.ndarray]:
        return self._call(op.regions[0], args)
