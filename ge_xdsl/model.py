"""`Model`: a compiled offline model in memory, to run, save and inspect.

Running a model that `ge-atc` sunk whole runs it from its plan
(`engines.served`): neither this module nor what `run` imports then
imports xDSL; the IR is parsed only when something needs it (`module`,
a model run through the scheduler, `save`).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ge_dialect.files import write_atomically
from ge_runtime.offline.om import OfflineModel
from ge_runtime.run_inputs import iteration_budget_of

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from ge_runtime.engines.scheduler import CompiledModel
    from ge_runtime.engines.served import ServedModel
    from ge_runtime.offline.timing import PassTimer


LOG = logging.getLogger("ge_xdsl")


def output_keys(names: list[str | None]) -> list[str]:
    """The keys of a graph's outputs: their names, `output_<i>` where unnamed."""
    return [name or f"output_{index}" for index, name in enumerate(names)]


class Model:
    """A compiled model: what `ge_xdsl.compile` makes and `ge_xdsl.load` reads.

    `module` is the IR after the whole pipeline (storage formats, TransData,
    fusion, engines, memory plan); `run` executes it as `ge-run` does (sunk
    through the loop JIT, or host-scheduled when dims are dynamic).
    """

    def __init__(
        self,
        offline: OfflineModel,
        module: ModuleOp | None = None,
        pass_timer: PassTimer | None = None,
        max_iterations: int | None = None,
    ):
        self.offline = offline
        """The `.om` contents: manifest, IR texts and weights."""
        self.pass_timer = pass_timer
        """With `compile(..., time_passes=True)`: each pass's time."""
        self.max_iterations = max_iterations
        """The iteration budget of `run` (None: `DEFAULT_MAX_ITERATIONS`)."""
        self._module = module
        self._compiled: CompiledModel | ServedModel | None = None

    @property
    def module(self) -> ModuleOp:
        """The IR after the pipeline."""
        if self._module is None:
            self._module = self.offline.module()
        return self._module

    @property
    def weights(self) -> Mapping[str, np.ndarray]:
        """The arrays of the IR's `#ge.external` constants, in storage layout."""
        return self.offline.weights

    @property
    def manifest(self) -> dict[str, Any]:
        """The offline model's manifest (inputs, outputs, options, memory)."""
        return self.offline.manifest

    @property
    def input_names(self) -> list[str]:
        """The keys `run` takes: each input's name (its index where unnamed)."""
        return [str(i.get("name", i["index"])) for i in self.manifest["inputs"]]

    @property
    def output_names(self) -> list[str]:
        """The keys `run` returns: output names, `output_<i>` where unnamed."""
        return output_keys([o.get("name") for o in self.manifest["outputs"]])

    def run(
        self, inputs: Mapping[str, np.ndarray], *, max_iterations: int | None = None
    ) -> dict[str, np.ndarray]:
        """The outputs for `inputs` (origin layout, keyed by input name).

        `max_iterations` is the most iterations one loop may run (default: the
        model's, `DEFAULT_MAX_ITERATIONS` unless `load` said otherwise).
        """
        from ge_xdsl.arguments import check_arrays

        arrays = check_arrays(inputs, "Model.run", "inputs")
        if self._compiled is None:
            from ge_runtime.engines.served import ServedModel, install_kernels

            if (note := install_kernels(self.offline)) is not None:
                LOG.warning("%s", note)
            elif (served := ServedModel.load(self.offline)) is not None:
                self._compiled = served  # from its plan: no IR parsed
            if self._compiled is None:
                from ge_runtime.graph_io import find_graph
                from ge_xdsl.run import compile_offline_graph

                self._compiled = compile_offline_graph(
                    self.offline, find_graph(self.module)
                )
        budget = self.max_iterations if max_iterations is None else max_iterations
        with iteration_budget_of(budget):
            outputs = self._compiled.run(arrays)
        return dict(zip(self.output_names, outputs, strict=True))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the model as an `.om` file (atomically, creating its folder)."""
        from ge_runtime.offline.om_ir import write_offline_model

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, functools.partial(write_offline_model, self.offline))
        return target

    def __repr__(self) -> str:
        return (
            f"Model({self.offline.path!r}, inputs={self.input_names}, "
            f"outputs={self.output_names}, soc_version={self.offline.target!r})"
        )


def graph_output_keys(module: ModuleOp) -> list[str]:
    """The output keys of `module`'s graph (see `output_keys`)."""
    from ge_runtime.graph_io import find_graph, output_names

    return output_keys(output_names(find_graph(module)))
