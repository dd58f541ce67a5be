"""Running a model as `ge-run` does, from Python.

`ge-run` parses its flags and prints; everything it runs is here, so a
user's Python does what the command line does through the same calls:

```python
from ge_xdsl.run import RunnableModel, compare_outputs
from ge_xdsl.serving import graph_inputs, time_runs

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
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp, UnknownLoc

from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import check_input_kind, read_input_bytes
from ge_dialect.limits import check_claimed_memory
from ge_dialect.ops import GraphOp
from ge_dialect.ops.base import enclosing_target
from ge_dialect.value_layout import value_layout
from ge_runtime.engines.compare import largest_magnitude, max_abs_error
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.served import install_kernels
from ge_runtime.graph_io import (
    find_graph,
    load_weights,
)
from ge_runtime.npy import (
    typed_like,
)
from ge_runtime.offline.om import OfflineModel, load_offline_model
from ge_runtime.offline.timing import Profiler
from ge_runtime.run_inputs import InputKey, Weights
from ge_xdsl import parse
from ge_xdsl.serving import OM_SUFFIX, Outputs

if TYPE_CHECKING:
    from ge_runtime.engines.executor import Runtime
    from ge_runtime.engines.scheduler import CompiledModel, Executor


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


def with_kernels(offline: OfflineModel, module: ModuleOp) -> OfflineModel:
    """`offline` (of the optimised `module`) with its default graph's kernels
    compiled into it, as `ge-run` would compile them (a host-scheduled graph:
    the sunk parts between its host ops; its host ops compile per shape when
    they run), and the plan that runs a graph sunk whole without parsing its
    IR (`engines.served`), if it is."""
    from ge_runtime.engines.serving_plan import serving_plan
    from ge_runtime.jit.cache.bundle import pack
    from ge_runtime.jit.cache.folder import redirected
    from ge_runtime.jit.runtime import build_helper_kernels

    with tempfile.TemporaryDirectory(prefix="ge-xdsl-kernels-") as scratch:
        with redirected(Path(scratch) / "cache") as folder:
            compiled = compile_offline_graph(offline, find_graph(module))
            if any(folder.glob("c/lib*.so")):  # C kernels: the runtime's too
                build_helper_kernels()
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
    reports) wherever the file was loaded from, or compiled; the copy is
    what is scheduled (`compile_model`'s `in_place`)."""
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
        in_place=True,
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
        for position, (attrs, argument) in enumerate(
            zip(compiled.arg_attrs, compiled.arguments, strict=True)
        ):
            keys = [attrs.get("ge.input", position), attrs.get("ge.name")]
            if (key := attrs.get("ge.weight")) is not None:
                if key not in weights:
                    raise GEError(f"error: weight '{key}' is not in the weights")
                weights_at[position] = weights[key]
            elif found := [given[k] for k in keys if k in given]:
                arguments.append(typed_like(found[0], compiled.arg_dtype(position)))
            elif random:
                arguments.append(
                    rng.standard_normal(argument.shape).astype(argument.dtype)
                )
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
