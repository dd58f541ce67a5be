"""A sunk model run from its plan: no IR parsed, nothing lowered or scheduled.

When `ge-atc` compiles an offline model's kernels and the graph is sunk
whole into one JIT-compiled part (no fallback op, one stream, every graph
input an argument of the part and every output one of its results), it also
records what running that part needs in the manifest's `plan`
(`serving_plan`; `om.PLAN_SCHEMA`): the code cache key of the compiled
function, which graph input each argument is and in what layout, the
weights it reads (by key, in argument order), and per graph output the
result, origin shape and layout; and its largest tensor, checked against
the memory budget before anything is allocated (as `check_claimed_memory`
checks the IR). `ServedModel.load` builds the run from
that alone: the function from the code cache (where the `.om`'s kernels were
installed), the weights from the mapped file, bound once. A run binds the
inputs, lays them out, calls the function and loads the outputs back to
origin layout, as the scheduler's `GraphRunner` does for the same part.

```python
served = ServedModel.load(offline)        # None: no plan, or its code is not cached
if served is not None:
    outputs = served.run({"x": x})
```
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import numpy_dtype
from ge_dialect.formats import Format
from ge_dialect.limits import over_budget, static_bytes
from ge_dialect.naming import node_label
from ge_dialect.ops import DataOp, PartitionedCallOp
from ge_dialect.structured_io import STRUCTURED_INPUTS, STRUCTURED_OUTPUTS
from ge_dialect.value_layout import ValueLayout, value_layout
from ge_runtime.graph_io import InputKey, InputSpec, bind_to_specs
from ge_runtime.jit.compiler import (
    BoundFunction,
    entry_key,
    graph_constants,
    loaded_function,
    weight_key,
)
from ge_runtime.jit.ops import JITError, jit_failure
from ge_runtime.offline.om import OfflineModel

if TYPE_CHECKING:
    from ge_runtime.engines.scheduler import CompiledModel


def serving_plan(model: CompiledModel) -> dict[str, Any] | None:
    """The plan of a model sunk whole into one compiled part whose code is
    kept in the code cache (None: any other schedule: host-scheduled, split
    around fallback ops, several streams, run in the reference evaluator,
    an output that is not a result of the part, inputs or outputs that are
    sequences or optionals)."""
    if model.mode != "sink" or len(model.parts) != 1:
        return None
    (part,) = model.parts
    if part.compiled is None or part.cache_key is None or part.stream_count > 1:
        return None
    target = model.evaluator.target
    graph = model.graph
    if any(key in graph.attributes for key in (STRUCTURED_INPUTS, STRUCTURED_OUTPUTS)):
        return None  # sequences and optionals: their files are read with the IR
    block_ops = list(graph.body.block.ops)
    if any(not isinstance(op, DataOp | PartitionedCallOp) for op in block_ops[:-1]):
        return None
    call = part.call
    operand_inputs = []
    for operand in call.operands:
        if not isinstance(operand.owner, DataOp):
            return None
        operand_inputs.append(operand.owner.index_value)
    outputs = []
    results = part.graph.output.operands
    for value in graph.output.operands:
        if value.owner is not call:
            return None
        result = results[value.index]  # type: ignore[attr-defined]
        outputs.append(
            {
                "result": value.index,  # type: ignore[attr-defined]
                "shape": list(result.type.get_shape()),  # type: ignore[attr-defined]
                "layout": layout_json(value_layout(result, target)),
            }
        )
    claims = [
        (nbytes, op)
        for op in part.graph.walk()
        for result in op.results
        if (nbytes := static_bytes(result.type)) is not None
    ]
    largest, owner = max(claims, key=lambda claim: claim[0], default=(0, None))
    return {
        "entry": entry_key(part.graph, target, part.cache_key),
        "largest": {
            "bytes": largest,
            "node": "" if owner is None else node_label(owner),
        },
        "arguments": [
            {
                "input": operand_inputs[data.index_value],
                "layout": layout_json(value_layout(data.output, target)),
            }
            for data in part.graph.inputs()
        ],
        "weights": [
            key
            for op in graph_constants(part.graph)
            if (key := weight_key(op)) is not None
        ],
        "outputs": outputs,
    }


def layout_json(layout: ValueLayout) -> dict[str, Any]:
    """A layout as the plan keeps it (the target is the model's)."""
    return {
        "origin": layout.origin.value,
        "storage": layout.storage.value,
        "dtype": layout.dtype,
        "reshape_type": layout.reshape_type,
        "groups": layout.groups,
    }


def layout_of_json(entry: Mapping[str, Any], target: str | None) -> ValueLayout:
    """The layout `layout_json` gave."""
    return ValueLayout(
        Format(entry["origin"]),
        Format(entry["storage"]),
        entry["dtype"],
        entry["reshape_type"],
        entry["groups"],
        target,
    )


@dataclass
class ServedModel:
    """An offline model's one compiled function bound to its weights, run
    from the plan (see the module docstring)."""

    graph: str
    specs: list[InputSpec]
    """The graph's inputs (from the manifest), what each run is checked against."""
    output_names: list[str | None]
    function: BoundFunction
    arguments: list[tuple[int, ValueLayout]]
    """Per function argument (before the weights): graph input and layout."""
    outputs: list[tuple[int, tuple[int, ...], ValueLayout]]
    """Per graph output: the function's result, origin shape and layout."""

    @classmethod
    def load(cls, offline: OfflineModel) -> ServedModel | None:
        """The model's plan with its function from the code cache and its
        weights bound (None: the model has no plan, or the cache lacks its
        code: install the model's kernels first)."""
        plan = offline.manifest.get("plan")
        if plan is None:
            return None
        largest = plan["largest"]
        what = f"the result of '{largest['node']}'"
        if (reason := over_budget(largest["bytes"], what)) is not None:
            raise GEError(f"{offline.path}: error: {reason}")
        compiled = loaded_function(plan["entry"])
        if compiled is None:
            return None
        target = offline.target
        arguments = [
            (entry["input"], layout_of_json(entry["layout"], target))
            for entry in plan["arguments"]
        ]
        weights = [np.asarray(offline.weights[key]) for key in plan["weights"]]
        try:  # what depends on the weights alone runs now
            function = compiled.bind(
                {len(arguments) + i: array for i, array in enumerate(weights)}
            )
        except JITError as error:
            raise jit_failure(error) from None
        manifest = offline.manifest
        specs = [
            InputSpec(
                None,
                entry["index"],
                entry.get("name"),
                tuple(entry["shape"]),
                numpy_dtype(entry["dtype"]),
            )
            for entry in manifest["inputs"]
        ]
        outputs = [
            (
                entry["result"],
                tuple(entry["shape"]),
                layout_of_json(entry["layout"], target),
            )
            for entry in plan["outputs"]
        ]
        names = [entry.get("name") for entry in manifest["outputs"]]
        return cls(manifest["graph"], specs, names, function, arguments, outputs)

    def run(self, inputs: Mapping[InputKey, np.ndarray]) -> list[np.ndarray]:
        """Run on origin-layout inputs (by name or index); origin outputs."""
        bound = bind_to_specs(self.specs, inputs, self.graph)
        arguments = [layout.store(bound[index]) for index, layout in self.arguments]
        try:
            results = self.function(*arguments)
        except JITError as error:
            raise jit_failure(error) from None
        return [
            np.asarray(layout.load(results[result], shape))
            for result, shape, layout in self.outputs
        ]


def freeze_for_serving() -> None:
    """Keep every object alive now out of the garbage collector's passes.

    For a process that compiles its model once and then serves it (`ge-run`):
    the IR and what was compiled from it live as long as the model, and a
    full collection pass would walk them during an inference (a pause of
    milliseconds). Garbage is collected first; what is frozen is never
    collected again, so a process compiling many models should not call it.
    """
    gc.collect()
    gc.freeze()
