"""A graph's interface to whoever runs it: finding the graph, its inputs'
specs (bound by name or index, with the iteration budget of its loops, in
`run_inputs`, which reads no IR), its output names, loading its weights.

Every engine (the reference evaluator, the JIT, the scheduler, the kernel
runtime) and the `.om` container share these; none of them evaluates
anything. The weights an engine reads are `storage_weights`: the given
arrays plus the storage-layout copies the format pipeline's constants name
(`select-storage-format` lays a weight out once, at load time).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import STORAGE_OF, derive_storage_weights
from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import confined_path
from ge_dialect.layout import shape_of
from ge_dialect.locations import error_at, location_text
from ge_dialect.ops import ConstOp, GraphOp
from ge_dialect.structured_io import STRUCTURED_INPUTS, structured
from ge_runtime.npy import NpyError, read_npz
from ge_runtime.run_inputs import (
    GivenInput,
    InputKey,
    InputSpec,
    Weights,
    bind_to_specs,
)

WEIGHTS_ATTRIBUTE = "ge.weights"
"""Module attribute naming the `.npz` weight file, relative to the `.mlir`."""


# ---------------------------------------------------------------------------
# Graph inputs and weights
# ---------------------------------------------------------------------------


def input_specs(graph: GraphOp) -> list[InputSpec]:
    """The graph's inputs ordered by index."""
    specs = []
    for op in graph.inputs():
        name = op.attributes.get("name")
        tensor = op.output.type
        specs.append(
            InputSpec(
                op,
                op.index_value,
                name.data if isinstance(name, StringAttr) else None,
                shape_of(tensor),
                expected_dtype(tensor),
            )
        )
    return specs


def bind_inputs(
    graph: GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
    specs: Sequence[InputSpec] | None = None,
) -> dict[int, np.ndarray]:
    """Match inputs to `ge.data` ops by name or index, checking shape and
    dtype; `specs` are the graph's `input_specs` if already known."""
    if specs is None:
        specs = input_specs(graph)
    return bind_to_specs(specs, inputs, graph.sym_name.data)


def expand_structured_inputs(
    graph: GraphOp, given: Mapping[InputKey, GivenInput]
) -> dict[InputKey, np.ndarray]:
    """`given` with each sequence input (arrays `0` to `n-1`) as the `ge.data`
    of its elements, an absent optional (no array) as nothing."""
    try:
        entries = {e.name: e for e in structured(graph, STRUCTURED_INPUTS)}
    except ValueError as error:
        raise error_at(graph, str(error)) from None
    expanded: dict[InputKey, np.ndarray] = {}
    for key, value in given.items():
        entry = entries.get(key) if isinstance(key, str) else None
        if entry is None:
            if not isinstance(value, np.ndarray):
                raise GEError(
                    f"error: input {key!r} is a tensor: give it as an .npy (an .npz "
                    "holds a sequence, or nothing for an absent optional)"
                )
            expanded[key] = value
            continue
        wanted = [str(i) for i in range(len(entry.items))]
        if isinstance(value, np.ndarray) or sorted(value) != sorted(wanted):
            held = (
                "an array"
                if isinstance(value, np.ndarray)
                else f"arrays {sorted(value)}"
                if value
                else "no array"
            )
            raise GEError(
                f"error: input '{key}' is {entry.describe()} in this graph: give an "
                f".npz with {'arrays ' + ', '.join(wanted) if wanted else 'no array'}"
                f" (the file has {held})"
            )
        expanded.update(
            (item, value[k]) for item, k in zip(entry.items, wanted, strict=True)
        )
    return expanded


def load_weights(module: ModuleOp, mlir_path: str | os.PathLike[str]) -> Weights:
    """The weights named by the module's `ge.weights` attribute (none: empty).

    The `.npz` path is relative to the directory of `mlir_path` and must stay
    inside it (the attribute comes from the file, not from the user).
    """
    attr = module.attributes.get(WEIGHTS_ATTRIBUTE)
    if attr is None:
        return {}
    where = os.fspath(mlir_path)
    if not isinstance(attr, StringAttr):
        raise GEError(
            f"{where}: error: module attribute '{WEIGHTS_ATTRIBUTE}' must be a string"
        )
    path = confined_path(Path(where).parent, attr.data, WEIGHTS_ATTRIBUTE, where)
    return load_npz(path)


def storage_weights(
    graph: GraphOp | ModuleOp,
    weights: Weights | str | os.PathLike[str] | None,
    target: str | None = None,
) -> Weights:
    """The weights every engine running `graph` reads: `weights` (arrays by
    key, or the path of an `.npz`) plus the storage-layout array of each
    constant the format pipeline derived from one of them (`storage_of`),
    laid out for `target`. Only what is missing is derived."""
    if isinstance(weights, str | os.PathLike):
        weights = load_npz(weights)
    weights = weights or {}
    derived = (
        op
        for op in graph.walk()
        if isinstance(op, ConstOp) and op.attributes.get(STORAGE_OF) is not None
    )
    if all(
        isinstance(op.value, ExternalDataAttr) and op.value.key.data in weights
        for op in derived
    ):
        return weights
    return derive_storage_weights(graph, weights, target)


def find_graph(module_or_graph: ModuleOp | GraphOp, name: str | None = None) -> GraphOp:
    """The graph to run: the given one, the module's only one, `name` or `main`."""
    if isinstance(module_or_graph, GraphOp):
        return module_or_graph
    graphs = [op for op in module_or_graph.ops if isinstance(op, GraphOp)]
    if name is None and len(graphs) == 1:
        return graphs[0]
    wanted = name or "main"
    for graph in graphs:
        if graph.sym_name.data == wanted:
            return graph
    names = ", ".join(f"@{g.sym_name.data}" for g in graphs) or "none"
    raise GEError(
        f"{location_text(module_or_graph)}: error: no graph @{wanted} to run "
        f"(graphs: {names})"
    )


def output_names(graph: GraphOp) -> list[str | None]:
    """The name of each graph output (`ge.netoutput`'s `output_names`, as the
    ONNX importer sets them), None where there is none."""
    names = graph.output.attributes.get("output_names")
    given = list(names.data) if isinstance(names, ArrayAttr) else []
    return [
        given[i].data if i < len(given) and isinstance(given[i], StringAttr) else None
        for i in range(len(graph.output.operands))
    ]


def load_npz(path: str | os.PathLike[str]) -> Weights:
    """All arrays of an `.npz` file, as a one-line GEError if unreadable."""
    try:
        return read_npz(path)
    except NpyError as error:
        label = os.fspath(path)
        raise GEError(f"{label}: error: cannot read weights: {error}") from None
