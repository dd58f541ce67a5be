"""What `ge-run` reads, writes and times, and serving an offline model from
its plan: the parts of `ge_xdsl.run` that need no IR.

`serve` runs an `.om` that `ge-atc` sunk whole from its plan
(`engines.served`): this module and what it imports import no xDSL, so such
a run starts as fast as the process, NumPy and the weights' mapping allow;
anything else is loaded by `ge_xdsl.run.RunnableModel` (which parses it).

```python
from ge_xdsl.serving import graph_inputs, serve, time_runs

model = serve("build/small_cnn.om")      # a ServedModel, or a RunnableModel
inputs = graph_inputs(model.specs, {}, random=True, seed=0)
outputs = model.run(inputs)
print(time_runs(lambda: model.run(inputs), 20).line())
```
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.files import staged
from ge_dialect.input_files import check_input_kind
from ge_dialect.limits import over_budget, tensor_bytes
from ge_dialect.structured_io import (
    NONE_KIND,
    OPTIONAL_KIND,
    OPTIONAL_SEQUENCE_KIND,
    RAGGED_KIND,
    STRUCTURED_OUTPUTS,
    StructuredValue,
    split_ragged,
)
from ge_runtime.engines.dump import StemAllocator
from ge_runtime.engines.served import ServedModel, install_kernels
from ge_runtime.npy import (
    NpyError,
    dtype_label,
    load_npy,
    npy_bytes,
    npz_bytes,
    read_npz,
    typed_like,
)
from ge_runtime.offline.om import load_offline_model
from ge_runtime.run_inputs import GivenInput, InputKey, InputSpec

if TYPE_CHECKING:
    from ge_dialect.ops import GraphOp
    from ge_xdsl.run import RunnableModel

OM_SUFFIX = ".om"


def serve(path: str | os.PathLike[str]) -> ServedModel | RunnableModel:
    """An `.om` run from its plan when it has one and its kernels install
    here (no IR parsed, nothing lowered: `engines.served`), else loaded
    (`RunnableModel.load`; an `.mlir` file too)."""
    path = os.fspath(path)
    check_input_kind(path, "a GE graph (.om or .mlir)", accepted=("om",))
    if not path.endswith(OM_SUFFIX):
        from ge_xdsl.run import RunnableModel

        return RunnableModel.load(path)
    offline = load_offline_model(path)
    note = install_kernels(offline)
    if note is None and offline.kernels is not None:
        if (served := ServedModel.load(offline)) is not None:
            return served
    from ge_xdsl.run import RunnableModel  # the IR's path: parsed and compiled

    return RunnableModel.of_offline(offline, note, installed=True)


def read_input(path: str | os.PathLike[str]) -> GivenInput:
    """An input file: an `.npy` array, or an `.npz`'s arrays by key (a
    sequence or an absent optional: `ge_dialect.structured_io`)."""
    if not os.fspath(path).endswith(".npz"):
        return read_array(path)
    try:
        return read_npz(path)
    except NpyError as error:
        raise GEError(
            f"{os.fspath(path)}: error: cannot read the arrays: {error}"
        ) from None


def read_array(path: str | os.PathLike[str]) -> np.ndarray:
    """One array from a `.npy` file, as a one-line GEError if unreadable.

    ml_dtypes' types (bfloat16, float8, int4) read back as themselves when
    the file names them, as raw bytes when `np.save` wrote them
    (`graph_inputs` gives those their input's dtype).
    """
    try:
        return load_npy(path)
    except NpyError as error:
        raise GEError(
            f"{os.fspath(path)}: error: cannot read the array: {error}"
        ) from None


def graph_inputs(
    graph: GraphOp | Sequence[InputSpec],
    given: Mapping[InputKey, GivenInput],
    *,
    random: bool = False,
    seed: int = 0,
) -> dict[InputKey, np.ndarray]:
    """`given` typed for the graph (raw bytes `np.save` wrote for a bfloat16,
    float8 or int4 input take its dtype; a sequence's arrays its elements'),
    and with `random` every input not given filled with random data of its
    type; `graph` or its input specs."""
    if isinstance(graph, Sequence):
        specs = list(graph)
    else:
        from ge_runtime.graph_io import expand_structured_inputs, input_specs

        given = expand_structured_inputs(graph, given)
        specs = input_specs(graph)
    by_key: dict[InputKey, InputSpec] = {s.index: s for s in specs}
    by_key.update({s.name: s for s in specs if s.name is not None})
    inputs = {
        key: typed_like(array, by_key[key].dtype) if key in by_key else array
        for key, array in given.items()
    }
    if random:
        rng = np.random.default_rng(seed)
        for spec in specs:
            if spec.index not in given and spec.name not in given:
                inputs[spec.index] = random_input(spec, rng)
    return inputs


def random_input(spec: InputSpec, rng: np.random.Generator) -> np.ndarray:
    """Random data of an input's static shape and dtype."""
    if -1 in spec.shape:
        raise GEError(
            f"error: input {spec.label} has unknown dims {list(spec.shape)}; "
            "give it with --input"
        )
    nbytes = tensor_bytes(spec.shape, spec.dtype.itemsize)
    if (reason := over_budget(nbytes, f"random input {spec.label}")) is not None:
        raise spec.error(reason)
    if spec.dtype == np.bool_:
        return rng.integers(0, 2, spec.shape).astype(np.bool_)
    if spec.dtype.kind in "iu":
        return rng.integers(0, 4, spec.shape).astype(spec.dtype)
    return rng.standard_normal(spec.shape).astype(spec.dtype)


OutputFile = np.ndarray | list[np.ndarray] | None
"""What one output file holds: a tensor, a sequence's tensors, or nothing
(an absent optional)."""


@dataclass
class Outputs:
    """What a run computed: the output arrays and their names (None: unnamed),
    and the framework outputs that are sequences or absent optionals."""

    arrays: list[np.ndarray]
    names: list[str | None]
    structured: list[StructuredValue] = field(default_factory=list)

    @classmethod
    def of_graph(cls, graph: GraphOp, arrays: Sequence[np.ndarray]) -> Outputs:
        """`arrays` named by `graph`'s output names."""
        from ge_dialect.locations import error_at
        from ge_dialect.structured_io import structured
        from ge_runtime.graph_io import output_names

        names = output_names(graph)
        try:
            entries = structured(graph, STRUCTURED_OUTPUTS)
            check_structured_outputs(entries, names)
        except ValueError as error:
            raise error_at(graph, str(error)) from None
        return cls(list(arrays), names, entries)

    def files(self) -> list[tuple[str, OutputFile]]:
        """The files `write` writes, in the framework's output order: each
        one's name (without suffix) and what it holds."""
        grouped = {item for entry in self.structured for item in entry.items}
        by_name = dict(zip(self.names, self.arrays, strict=True))
        plain = iter(
            (name or f"output_{index}", array)
            for index, (name, array) in enumerate(
                zip(self.names, self.arrays, strict=True)
            )
            if name not in grouped
        )
        at = {entry.position: entry for entry in self.structured}
        files: list[tuple[str, OutputFile]] = []
        for position in range(len(self.arrays) - len(grouped) + len(at)):
            entry = at.get(position)
            if entry is None:
                files.append(next(plain))
            elif entry.kind == NONE_KIND:
                files.append((entry.name, None))
            elif entry.kind in (OPTIONAL_KIND, OPTIONAL_SEQUENCE_KIND):
                present, *element = (by_name[i] for i in entry.items)
                held: OutputFile = None
                if bool(present.reshape(-1)[0]):
                    held = element[0] if entry.kind == OPTIONAL_KIND else element
                files.append((entry.name, held))
            elif entry.kind == RAGGED_KIND:
                parts = [by_name[i] for i in entry.items]
                try:
                    files.append((entry.name, split_ragged(*parts)))
                except (TypeError, ValueError) as error:
                    raise GEError(f"error: output '{entry.name}': {error}") from None
            else:
                files.append((entry.name, [by_name[i] for i in entry.items]))
        return files

    def write(self, directory: str | os.PathLike[str]) -> list[tuple[Path, str]]:
        """Write `NAME.npy` files (`output_<i>.npy` for unnamed outputs,
        sanitised and unique as dump files are; a sequence or an absent
        optional as `NAME.npz`: `ge_dialect.structured_io`): all of them, or
        none if writing fails. Each file written and a line describing it."""
        stems = StemAllocator()
        written = []
        for name, held in self.files():
            if isinstance(held, np.ndarray):
                written.append((f"{stems(name)}.npy", npy_bytes(held), _shape(held)))
                continue
            items = held or []
            blob = npz_bytes({str(i): array for i, array in enumerate(items)})
            what = (
                "no value (an absent optional)"
                if held is None
                else f"a sequence of {len(items)}"
                + "".join(f"; {_shape(array)}" for array in items)
            )
            written.append((f"{stems(name)}.npz", blob, what))
        with staged(directory) as folder:
            assert folder is not None
            for file, blob, _ in written:
                (folder / file).write_bytes(blob)
        return [(Path(directory) / file, what) for file, _, what in written]


def check_structured_outputs(
    entries: Sequence[StructuredValue], names: Sequence[str | None]
) -> None:
    """ValueError unless each entry's items are output names, none used
    twice, and the entries' positions are distinct places among the
    framework's outputs."""
    items = [item for entry in entries for item in entry.items]
    if len(set(items)) != len(items) or not set(items) <= set(names):
        raise ValueError(
            f"graph attribute '{STRUCTURED_OUTPUTS}' names outputs the graph does "
            "not have, or one twice"
        )
    count = len(names) - len(items) + len(entries)
    positions = [entry.position for entry in entries]
    if len(set(positions)) != len(positions) or any(
        not 0 <= p < count for p in positions
    ):
        raise ValueError(
            f"graph attribute '{STRUCTURED_OUTPUTS}' has positions outside 0 to "
            f"{count - 1} or one twice"
        )


def _shape(array: np.ndarray) -> str:
    return f"shape {list(array.shape)}, dtype {dtype_label(array.dtype)}"


@dataclass(frozen=True)
class Timing:
    """Seconds per run of timed runs."""

    seconds: list[float]

    def line(self) -> str:
        """`benchmark: N runs, median X ms (min Y ms, max Z ms)`."""
        median = statistics.median(self.seconds)
        return (
            f"benchmark: {len(self.seconds)} runs, median {median * 1e3:.2f} ms "
            f"(min {min(self.seconds) * 1e3:.2f} ms, "
            f"max {max(self.seconds) * 1e3:.2f} ms)"
        )


def time_runs(run: Callable[[], object], count: int) -> Timing:
    """Time `count` calls of `run` (call it once before: the warm-up)."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return Timing(times)
