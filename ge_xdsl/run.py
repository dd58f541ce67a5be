"""Running a model as `ge-run` does, from Python.

`ge-run` parses its flags and prints; everything it runs is here, so a
user's Python does what the command line does through the same calls:

```python
from ge_xdsl.run import RunnableModel, compare_outputs, graph_inputs, time_runs

model = RunnableModel.load("build/small_cnn.om")      # or a .mlir file
graph = model.graph()
inputs = graph_inputs(graph, {}, random=True, seed=0)
compiled = model.compile(graph)                        # sunk or host-scheduled
outputs = compiled.run(inputs)
print(time_runs(lambda: compiled.run(inputs), 20).line())
expected = model.expected(inputs)                      # the reference (source)
for comparison in compare_outputs(outputs, expected, 1e-3):
    print(comparison.line())
```

`profile` times what runs (each sunk part, fallback op, host kernel), its
compilation apart; `run_kernel_runtime` runs the op-by-op kernel runtime
instead, `run_loop_module` a module already lowered to loops.

A file of the wrong kind (an ONNX or TensorFlow model) is an error that
says how to make one `ge-run` takes (`ge-atc`, `ge-translate`).
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp, UnknownLoc

from ge_dialect.diagnostics import GEError
from ge_dialect.files import staged
from ge_dialect.input_files import check_input_kind, read_input_bytes
from ge_dialect.limits import check_claimed_memory, over_budget, tensor_bytes
from ge_dialect.locations import error_at
from ge_dialect.ops import GraphOp
from ge_dialect.ops.base import enclosing_target
from ge_dialect.structured_io import (
    NONE_KIND,
    OPTIONAL_KIND,
    OPTIONAL_SEQUENCE_KIND,
    RAGGED_KIND,
    STRUCTURED_OUTPUTS,
    StructuredValue,
    split_ragged,
    structured,
)
from ge_dialect.value_layout import value_layout
from ge_runtime.engines.compare import largest_magnitude, max_abs_error
from ge_runtime.engines.dump import StemAllocator
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import (
    GivenInput,
    InputKey,
    InputSpec,
    Weights,
    expand_structured_inputs,
    find_graph,
    input_specs,
    load_weights,
    output_names,
)
from ge_runtime.npy import (
    NpyError,
    dtype_label,
    load_npy,
    npy_bytes,
    npz_bytes,
    read_npz,
    typed_like,
)
from ge_runtime.offline.om import OfflineModel, load_offline_model
from ge_runtime.offline.timing import Profiler
from ge_xdsl import parse

if TYPE_CHECKING:
    from ge_runtime.engines.executor import Runtime
    from ge_runtime.engines.scheduler import CompiledModel, Executor
    from ge_runtime.engines.served import ServedModel

OM_SUFFIX = ".om"

# ---------------------------------------------------------------------------
# The model file
# ---------------------------------------------------------------------------


@dataclass
class RunnableModel:
    """A graph file to run: an `.mlir` module (its weights from its
    `ge.weights` file) or an offline model (`.om`, from `ge-atc`)."""

    path: str
    module: ModuleOp
    weights: Weights
    offline: OfflineModel | None = None
    notes: list[str] = field(default_factory=list)
    """What the user should know about how it runs (one line each): an
    offline model's kernels not used, and why."""

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> RunnableModel:
        """Read an `.om` or `.mlir` file (any other kind: a one-line GEError)."""
        path = os.fspath(path)
        check_input_kind(path, "a GE graph (.om or .mlir)", accepted=("om",))
        if path.endswith(OM_SUFFIX):
            return cls.of_offline(load_offline_model(path))
        module = parse(read_mlir(path), name=path)
        return cls(path, module, load_weights(module, path))

    @classmethod
    def of_offline(
        cls, offline: OfflineModel, note: str | None = None, installed: bool = False
    ) -> RunnableModel:
        """An offline model, its IR parsed and its kernels installed (unless
        `installed`, `note` saying why they were not used)."""
        module = offline.module()
        if not installed:
            note = install_kernels(offline)
        return cls(offline.path, module, offline.weights, offline, [note] * bool(note))

    @property
    def target(self) -> str | None:
        """The SoC whose C0 the layouts use: an offline model's, else the
        module's `ge.target` (None: the default)."""
        if self.offline is not None:
            return self.offline.target
        return enclosing_target(self.module)

    @property
    def lowered(self) -> bool:
        """Whether the module is loops already (`func.func`, no `ge` graph)."""
        return not any(isinstance(op, GraphOp) for op in self.module.ops)

    @property
    def output_labels(self) -> list[str | None]:
        """The output names `--check` shows: an offline model's (its manifest)."""
        if self.offline is None:
            return []
        return [entry.get("name") for entry in self.offline.manifest["outputs"]]

    def graph(self, name: str | None = None) -> GraphOp:
        """The graph to run: the only one, `name` or `main`."""
        return find_graph(self.module, name)

    def source(self) -> ModuleOp:
        """The graph `--check` compares with: an offline model's source (the
        graph after graph fusion, `atc.compile_module`), else the module."""
        if self.offline is None:
            return self.module
        return self.offline.source_module(self.module)

    def source_weights(self) -> Weights:
        """The weights the source graph reads (an offline model derives
        the origin layouts it does not store)."""
        if self.offline is None:
            return self.weights
        return self.offline.source_weights(self.module)

    def compile(self, graph: GraphOp) -> CompiledModel:
        """`graph` scheduled (sunk or host) and compiled; an offline model's
        generated code is kept on disk, keyed by its digest."""
        if self.offline is None:
            from ge_runtime.engines.scheduler import compile_model

            return compile_model(graph, self.weights, target=self.target)
        return compile_offline_graph(self.offline, graph)

    def reference(
        self,
        graph: GraphOp,
        inputs: Mapping[InputKey, np.ndarray],
        *,
        stored: bool = False,
    ) -> list[np.ndarray]:
        """`graph`'s outputs by the NumPy reference evaluator."""
        return evaluate(
            graph,
            inputs,
            weights=self.weights,
            target=self.target,
            outputs_as_stored=stored,
        )

    def expected(
        self, inputs: Mapping[InputKey, np.ndarray], graph: str | None = None
    ) -> list[np.ndarray]:
        """What `--check` compares with: the reference evaluator on the graph
        as imported (`source`)."""
        return evaluate(
            self.source(), inputs, weights=self.source_weights(), graph=graph
        )

    def stored(self, graph: GraphOp, outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Origin-layout `outputs` of `graph` in their storage layouts."""
        return [
            value_layout(value, self.target).store(array)
            for value, array in zip(graph.output.operands, outputs, strict=True)
        ]


def serve(path: str | os.PathLike[str]) -> ServedModel | RunnableModel:
    """An `.om` run from its plan when it has one and its kernels install
    here (no IR parsed, nothing lowered: `engines.served`), else loaded
    (`RunnableModel.load`; an `.mlir` file too)."""
    path = os.fspath(path)
    check_input_kind(path, "a GE graph (.om or .mlir)", accepted=("om",))
    if not path.endswith(OM_SUFFIX):
        return RunnableModel.load(path)
    offline = load_offline_model(path)
    note = install_kernels(offline)
    if note is None and offline.kernels is not None:
        from ge_runtime.engines.served import ServedModel

        if (served := ServedModel.load(offline)) is not None:
            return served
    return RunnableModel.of_offline(offline, note, installed=True)


def install_kernels(offline: OfflineModel) -> str | None:
    """Put an offline model's compiled kernels into the code cache, where
    compiling its graph finds them; the note saying why they are not used
    (another machine, compiler or version: they are compiled again), or
    None. A corrupt kernel section is a GEError (nothing is loaded)."""
    if offline.kernels is None:
        return None
    from ge_runtime.jit.cache.bundle import install

    return install(offline.kernels, offline.path)


def with_kernels(offline: OfflineModel, module: ModuleOp) -> OfflineModel:
    """`offline` (of the optimised `module`) with its default graph's kernels
    compiled into it, as `ge-run` would compile them (a host-scheduled graph:
    the sunk parts between its host ops; its host ops compile per shape when
    they run), and the plan that runs a graph sunk whole without parsing its
    IR (`engines.served`), if it is."""
    from ge_runtime.engines.served import serving_plan
    from ge_runtime.jit.cache.bundle import pack
    from ge_runtime.jit.cache.folder import redirected

    with tempfile.TemporaryDirectory(prefix="ge-xdsl-kernels-") as scratch:
        with redirected(Path(scratch) / "cache") as folder:
            compiled = compile_offline_graph(offline, find_graph(module))
        payload = pack(folder)
    manifest = dict(offline.manifest)
    if (plan := serving_plan(compiled)) is not None:
        manifest["plan"] = plan
    return dataclasses.replace(offline, kernels=payload, manifest=manifest)


def compile_offline_graph(offline: OfflineModel, graph: GraphOp) -> CompiledModel:
    """An offline model's `graph` compiled, its code kept in the code cache
    under the model's `code_key` (`install_kernels` puts what `ge-atc`
    compiled there). The code is generated from a copy whose ops are
    located by node name only: the same code (and the same errors it
    reports) wherever the file was loaded from, or compiled."""
    module = graph.parent_op()
    copy = (module if isinstance(module, ModuleOp) else graph).clone()
    for op in copy.walk():
        op.location = UnknownLoc()
    from ge_runtime.engines.scheduler import compile_model

    return compile_model(
        find_graph(copy, graph.sym_name.data),
        offline.weights,
        target=offline.target,
        cache_key=f"{offline.code_key}|{graph.sym_name.data}",
    )


def read_mlir(path: str) -> str:
    """The text of an `.mlir` file, as a one-line GEError if it is not text."""
    data = read_input_bytes(path, "graph")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GEError(
            f"{path}: error: not MLIR text (nor an offline model, {OM_SUFFIX})"
        ) from None


# ---------------------------------------------------------------------------
# Inputs and outputs
# ---------------------------------------------------------------------------


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
    if isinstance(graph, GraphOp):
        given = expand_structured_inputs(graph, given)
        specs = input_specs(graph)
    else:
        specs = list(graph)
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


# ---------------------------------------------------------------------------
# Checking against the reference
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputComparison:
    """One output against the reference: error, scale, and whether it is ok
    (a float output: max |ours - reference| <= tolerance * max |reference|;
    any other: equal)."""

    label: str
    error: float
    scale: float
    limit: float | None
    """None: exact (an integer or boolean output)."""

    @property
    def ok(self) -> bool:
        """Whether the output is within its limit."""
        return self.error == 0 if self.limit is None else self.error <= self.limit

    def line(self) -> str:
        """`check output_0 ('y'): max abs error 1.2e-07 (limit 3.1e-04), ...`."""
        bound = "exact" if self.limit is None else f"limit {self.limit:.3e}"
        return (
            f"check {self.label}: max abs error {self.error:.3e} ({bound}), max "
            f"|reference| {self.scale:.3e}: {'ok' if self.ok else 'MISMATCH'}"
        )


def compare_outputs(
    outputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    tolerance: float,
    names: Sequence[str | None] = (),
) -> list[OutputComparison]:
    """Each output against the reference (a shape that differs: GEError)."""
    comparisons = []
    for index, (ours, ref) in enumerate(zip(outputs, expected, strict=True)):
        label = f"output_{index}"
        if index < len(names) and names[index]:
            label += f" ('{names[index]}')"
        if ours.shape != ref.shape:
            raise GEError(
                f"error: {label} has shape {list(ours.shape)}, the reference "
                f"{list(ref.shape)}"
            )
        scale = largest_magnitude(ref)
        limit = None if ours.dtype.kind in "iubTU" else tolerance * scale
        comparisons.append(
            OutputComparison(label, max_abs_error(ours, ref), scale, limit)
        )
    return comparisons


def mismatch_error(
    comparisons: Sequence[OutputComparison], tolerance: float
) -> GEError | None:
    """The error for the outputs off the reference (None: all ok)."""
    failed = [c.label.partition(" ")[0] for c in comparisons if not c.ok]
    if not failed:
        return None
    verb = "differs" if len(failed) == 1 else "differ"
    return GEError(
        f"error: {', '.join(failed)} {verb} from the reference by more than "
        f"{tolerance:g} x max |reference|"
    )


@dataclass(frozen=True)
class Coverage:
    """What ran a compiled model's last run: ops per executor, and why ops
    ran in the reference evaluator (the JIT could not lower them)."""

    counts: dict[Executor, int]
    not_on_jit: dict[str, int]

    @classmethod
    def of(cls, model: CompiledModel) -> Coverage:
        """The coverage of `model`'s last run (its trace)."""
        from ge_runtime.engines.scheduler import Executor

        counts = {executor: 0 for executor in Executor}
        not_on_jit: dict[str, int] = {}
        for entry in model.trace:
            counts[entry.executor] += 1
            if entry.executor == Executor.REFERENCE:
                not_on_jit[entry.detail] = not_on_jit.get(entry.detail, 0) + 1
        return cls(counts, not_on_jit)

    def line(self) -> str:
        """`check: JIT vs reference on N ops[, M host fallback ops ...]`."""
        from ge_runtime.engines.scheduler import Executor

        line = f"check: JIT vs reference on {self.counts[Executor.JIT]} ops"
        if fallbacks := self.counts[Executor.NUMPY_KERNEL]:
            line += f", {fallbacks} host fallback ops through the NumPy kernel library"
        if self.not_on_jit:
            line += f", {self.counts[Executor.REFERENCE]} ops NOT on the JIT"
        return line

    def error(self) -> GEError | None:
        """Why a check would compare the reference with itself (None: it would not)."""
        from ge_runtime.engines.scheduler import Executor

        if not self.not_on_jit:
            return None
        reasons = "; ".join(f"{n} ops: {why}" for why, n in self.not_on_jit.items())
        return GEError(
            f"error: --check: {self.counts[Executor.REFERENCE]} ops did not run on "
            f"the JIT ({reasons}), so the reference would be compared with itself "
            "(--allow-reference compares anyway)"
        )


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------


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


@dataclass
class Profile:
    """Where a compiled model's time goes: compiling, the first run, and per
    step of the steady-state runs (each sunk part, fallback op, host kernel
    by op type)."""

    compile_seconds: float
    first_run_seconds: float
    runs: int
    host_scheduled: bool
    """Kernels are compiled during the first run, for the shapes it has."""
    steps: Profiler = field(default_factory=lambda: Profiler(subject="step"))

    def lines(self) -> list[str]:
        """The compile and first-run times, then the steady-state table."""
        per_run = self.steps.total / max(self.runs, 1)
        compiling = " (host-scheduled: its kernels compiled)" * self.host_scheduled
        return [
            f"compile {self.compile_seconds * 1e3:.1f} ms (not in the runs below)",
            f"first run {self.first_run_seconds * 1e3:.1f} ms{compiling}; steady "
            f"state over {self.runs} runs, {per_run * 1e3:.2f} ms per run:",
            *self.steps.lines(),
        ]


def profile(
    compile_graph: Callable[[], CompiledModel],
    inputs: Mapping[InputKey, np.ndarray],
    runs: int = 1,
) -> tuple[CompiledModel, list[np.ndarray], Profile]:
    """Compile (timed apart), run once (the first run), then profile `runs`
    steady-state runs of what runs: the compiled model's steps."""
    start = time.perf_counter()
    model = compile_graph()
    compiled = time.perf_counter()
    outputs = model.run(inputs)
    first_run = time.perf_counter() - compiled
    result = Profile(compiled - start, first_run, runs, model.mode == "host")
    model.evaluator.profiler = result.steps
    try:
        for _ in range(runs):
            model.run(inputs)
    finally:
        model.evaluator.profiler = None
    return model, outputs, result


# ---------------------------------------------------------------------------
# A module of loops
# ---------------------------------------------------------------------------


@dataclass
class LoopRun:
    """A lowered function bound to its weights, and the arguments it ran on."""

    run: Callable[[], Sequence[np.ndarray]]
    outputs: Outputs


def run_loop_module(
    module: ModuleOp,
    weights: Weights,
    given: Mapping[InputKey, np.ndarray],
    *,
    function: str | None = None,
    random: bool = False,
    seed: int = 0,
) -> LoopRun:
    """Run a lowered function on storage-layout arrays: inputs by `ge.input`
    index or `ge.name`, weights by `ge.weight` key (packed once, as for a
    graph); with `random` arguments not given get random data."""
    from ge_runtime.jit.compiler import JITError, compile_module
    from ge_runtime.jit.ops import jit_failure

    check_claimed_memory(module)
    try:
        compiled = compile_module(module, function)
        rng = np.random.default_rng(seed)
        arguments: list[np.ndarray] = []
        weights_at: dict[int, np.ndarray] = {}
        for position, (attrs, memref) in enumerate(
            zip(compiled.arg_attrs, compiled.arg_types, strict=True)
        ):
            keys = [attrs.get("ge.input", position), attrs.get("ge.name")]
            if (key := attrs.get("ge.weight")) is not None:
                if key not in weights:
                    raise GEError(f"error: weight '{key}' is not in the weights")
                weights_at[position] = weights[key]
            elif found := [given[k] for k in keys if k in given]:
                arguments.append(typed_like(found[0], compiled.arg_dtype(position)))
            elif random:
                shape = tuple(memref.get_shape())
                dtype = compiled.arg_dtype(position)
                arguments.append(rng.standard_normal(shape).astype(dtype))
            else:
                raise GEError(
                    f"error: argument #{position} of @{compiled.name} is missing"
                )
        bound = compiled.bind(weights_at)

        def run() -> Sequence[np.ndarray]:
            return bound(*arguments)

        results = list(run())
    except JITError as error:
        raise jit_failure(error) from None
    return LoopRun(run, Outputs(results, [None] * len(results)))


# ---------------------------------------------------------------------------
# The kernel runtime
# ---------------------------------------------------------------------------


@dataclass
class KernelRun:
    """What a kernel-runtime run did: outputs, first-run time, the
    steady-state profile and the tuning it used."""

    outputs: list[np.ndarray]
    first_run_seconds: float
    runtime: Runtime
    """The runtime (to run again)."""
    profiler: Profiler | None = None
    profiled_runs: int = 0


def run_kernel_runtime(
    graph: GraphOp,
    weights: Weights,
    inputs: Mapping[InputKey, np.ndarray],
    *,
    target: str | None = None,
    selection: Mapping[str, str] | None = None,
    tuning_records: str | None = None,
    retune: bool = False,
    profile_runs: int = 0,
    dump_folder: Path | None = None,
    dump_stored: bool = False,
) -> KernelRun:
    """Run `graph` op by op through the kernel registry (InfiniTensor's
    runtime: one arena, a kernel per op chosen by `selection`, or timed and
    recorded in `tuning_records`); the first run dumps every op's output to
    `dump_folder`; with `profile_runs`, that many steady-state runs are
    profiled per op type."""
    from ge_runtime.engines.dump import DumpWriter
    from ge_runtime.engines.executor import Runtime
    from ge_runtime.engines.tuning import PerfEngine

    tuning = retune or tuning_records is not None
    runtime = Runtime(
        graph,
        weights,
        target=target,
        selection=dict(selection or {}),
        engine=PerfEngine(tuning_records, retune=retune) if tuning else None,
        dumper=None
        if dump_folder is None
        else DumpWriter(dump_folder, stored=dump_stored),
    )
    dumper = runtime.dumper
    try:
        start = time.perf_counter()
        outputs = runtime.run(inputs)  # compiles every kernel
        first_run = time.perf_counter() - start
        runtime.dumper = None
    finally:
        if dumper is not None:
            dumper.close()
    result = KernelRun(outputs, first_run, runtime)
    if profile_runs:
        runtime.profiler = result.profiler = Profiler()
        for _ in range(profile_runs):
            runtime.run(inputs)
        runtime.profiler = None
        result.profiled_runs = profile_runs
    return result
