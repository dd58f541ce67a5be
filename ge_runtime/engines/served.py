"""A sunk model run from its plan: no IR parsed, nothing lowered or scheduled.

When `ge-atc` compiles an offline model's kernels and the graph is sunk
whole into one JIT-compiled part (no fallback op, one stream, every graph
input an argument of the part and every output one of its results), it also
records what running that part needs in the manifest's `plan`
(`engines.serving_plan`; `om.PLAN_SCHEMA`): the code cache key of the compiled
function, which graph input each argument is and in what layout, the
weights it reads (by key, in argument order), and per graph output the
result, origin shape and layout; and its largest tensor, checked against
the memory budget before anything is allocated (as `check_claimed_memory`
checks the IR). `ServedModel.load` builds the run from
that alone: the function from the code cache (where the `.om`'s kernels were
installed), the weights from the mapped file, bound once. A run binds the
inputs, lays them out, calls the function and loads the outputs back to
origin layout, as the scheduler's `GraphRunner` does for the same part.
Nothing here (nor anything it imports) imports xDSL or the `ge` ops: a
served run starts as fast as the process, NumPy and the weights' mapping
allow (`tests/test_served.py` checks it in a fresh process).

```python
note = install_kernels(offline)           # the .om's kernels into the code cache
served = ServedModel.load(offline)        # None: no plan, or its code is not cached
if served is not None:
    outputs = served.run({"x": x})
```
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.limits import over_budget
from ge_dialect.relayout import ValueLayout
from ge_runtime.jit.function import BoundFunction, loaded_function
from ge_runtime.jit.ops import JITError, jit_failure
from ge_runtime.offline.om import OfflineModel
from ge_runtime.run_inputs import InputKey, InputSpec, bind_to_specs, spec_keys


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

    @cached_property
    def _keys(self) -> dict[InputKey, InputSpec]:
        return spec_keys(self.specs)

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
            (entry["input"], ValueLayout.of_json(entry["layout"], target))
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
                ValueLayout.of_json(entry["layout"], target),
            )
            for entry in plan["outputs"]
        ]
        names = [entry.get("name") for entry in manifest["outputs"]]
        return cls(manifest["graph"], specs, names, function, arguments, outputs)

    def run(self, inputs: Mapping[InputKey, np.ndarray]) -> list[np.ndarray]:
        """Run on origin-layout inputs (by name or index); origin outputs."""
        bound = bind_to_specs(self.specs, inputs, self.graph, self._keys)
        arguments = [layout.store(bound[index]) for index, layout in self.arguments]
        try:
            results = self.function(*arguments)
        except JITError as error:
            raise jit_failure(error) from None
        return [
            np.asarray(layout.load(results[result], shape))
            for result, shape, layout in self.outputs
        ]


def install_kernels(offline: OfflineModel) -> str | None:
    """Put an offline model's compiled kernels into the code cache, where
    compiling its graph (or `ServedModel.load`) finds them; the note saying
    why they are not used (another machine, compiler or version: they are
    compiled again), or None. A corrupt kernel section is a GEError
    (nothing is loaded)."""
    if offline.kernels is None:
        return None
    from ge_runtime.jit.cache.bundle import install

    return install(offline.kernels, offline.path)


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
