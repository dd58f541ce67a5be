"""`ge-run`: execute a graph on `.npy` inputs and write its outputs as `.npy`.

    ge-run --reference graph.mlir --input x=x.npy --output-dir out/
    ge-run --reference graph.mlir --random-inputs --seed 3 --output-dir out/

Inputs are named by their `ge.data` node name or index (`--input 0=x.npy`);
with `--random-inputs` every input not given is filled with random data of
its type. Each output is written as `DIR/NAME.npy`, named by the graph's
output names (an ONNX model's output names; `output_<i>` where there is
none; sanitised, bounded and made unique as dump files are:
`ge_runtime.dump.file_stem`), in origin layout (storage layout with
`--stored-outputs`), and summarised on one line. Nothing
is written unless the whole run succeeds; errors are one line and exit 1.

Modes are separate functions in `MODES`: `--reference` runs the NumPy
reference evaluator (`ge_runtime.reference`); an offline model (`MODEL.om`
from `ge-atc`) runs through the JIT (`ge_runtime.jit.compiler`), or the reference
evaluator with `--reference`. With `--check` (offline models) the reference
evaluator also runs the graph as imported, stored in the `.om`; one line per
output gives the max abs error against max |reference|, and a relative error
above `--tolerance` is an error.

    ge-run model.om --random-inputs --check --output-dir out/

`--check` first says what it compares (`check: JIT vs reference on N ops`,
and how many host fallback ops ran through the NumPy kernel library) and
fails when an op ran in the reference evaluator because the JIT could not
lower it (the reference would be compared with itself); `--allow-reference`
compares anyway. `--benchmark N` times N more runs of the same path after
the first (the warm-up) and prints `benchmark: N runs, median X ms (min,
max)` last, after the line saying how loop nests ran; `--threads T` sets the
threads of the C kernels and the BLAS (default: every core). Loop nests run
as C kernels when a C compiler is found (`GE_XDSL_KERNELS=numpy|c` chooses).
The generated code of an offline model and its compiled kernels are kept on
disk (`ge_runtime.jit.cache.entries`, keyed by the file's digest), so a
second `ge-run` of it neither lowers, generates code nor compiles.

    ge-run model.om --random-inputs --benchmark 20 --threads 1 --output-dir out/

Without `--reference`, an `.mlir` file runs through the JIT: a `ge` graph is
lowered on the fly (`convert-ge-to-loops`), and `--check` compares it with
the reference evaluator on the same graph; a module already lowered to loops
(`func.func`) runs as it is, its arguments and results in storage layout
(inputs by `ge.input` index or `ge.name`, weights by `ge.weight` key from
the `ge.weights` file).

    ge-run graph.mlir --random-inputs --check --output-dir out/
    ge-opt -p convert-ge-to-loops graph.mlir -o loops.mlir
    ge-run loops.mlir --input 0=x_storage.npy --output-dir out/

Graphs (`.mlir` and `.om`, without `--reference`) run through the scheduler
(`ge_runtime.scheduler`): a static graph is sunk (compiled whole, split
around `aclnn_only` fallback ops), a graph with dynamic dims runs op by op
under host scheduling, so one model takes any batch size. `--trace` prints
one line per op: node, op, engine and path (sunk, host kernel, fallback);
a graph with several streams (`assign-streams`, `ge-atc --max-streams`)
runs them concurrently and its lines add the stream and when the op ran.

    ge-run model.om --input x=batch7.npy --trace --output-dir out/

The kernel runtime (`ge_runtime.executor`, InfiniTensor's runtime) runs a
static graph op by op, its intermediates in one arena laid out by the
memory plan, each op through a kernel of the registry: `--kernel
conv2d=im2col` (node name or op type) chooses one, `--tuning-records FILE`
times each op signature's kernels once and keeps the fastest (`--tune`
measures again), `--profile` prints per op type the count, total time,
share and average, `--dump DIR` writes every op's output in origin layout
(compare dumps with `ge-dump-compare`). Each of these flags selects it.

    ge-run model.om --random-inputs --profile --tuning-records tune.json \
        --dump dump/ --output-dir out/
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import ge_xdsl
from ge_dialect.diagnostics import GEError
from ge_dialect.files import staged
from ge_dialect.input_files import read_input_bytes
from ge_dialect.limits import (
    INT64_MAX,
    budget_of,
    check_claimed_memory,
    over_budget,
    tensor_bytes,
)
from ge_dialect.locations import error_at
from ge_dialect.ops import GraphOp
from ge_dialect.value_layout import value_layout
from ge_runtime.compare import largest_magnitude, max_abs_error
from ge_runtime.graph_io import (
    InputKey,
    InputSpec,
    find_graph,
    input_specs,
    load_weights,
    output_names,
)
from ge_runtime.npy import NpyError, npy_bytes, typed_like
from ge_runtime.npy import load_npy as load_npy_file
from ge_runtime.reference import evaluate
from tools.common import (
    add_memory_budget_flag,
    bounded_int,
    non_negative_float,
    one_line_errors,
    run_tool,
)

if TYPE_CHECKING:
    from ge_runtime.scheduler import CompiledModel
OM_SUFFIX = ".om"
DEFAULT_TOLERANCE = 1e-3
MAX_THREADS = 1024
"""The most threads `--threads` sets."""
MAX_BENCHMARK_RUNS = 1_000_000
"""The most timed runs `--benchmark` makes (a run stays bounded in time)."""


@dataclass
class Outputs:
    """What a mode computed: the output arrays and their names (None: unnamed)."""

    arrays: list[np.ndarray]
    names: list[str | None]

    @classmethod
    def of_graph(cls, graph: GraphOp, arrays: Sequence[np.ndarray]) -> Outputs:
        """`arrays` named by `graph`'s output names."""
        return cls(list(arrays), output_names(graph))


Mode = Callable[[argparse.Namespace], Outputs]


def build_parser() -> argparse.ArgumentParser:
    """The command line of `ge-run`."""
    parser = argparse.ArgumentParser(
        prog="ge-run", description="Execute a GE graph on .npy inputs."
    )
    parser.add_argument(
        "model", help="graph to run (.mlir, or an offline model .om from ge-atc)"
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="run the NumPy reference evaluator",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input by ge.data node name or index (repeatable)",
    )
    parser.add_argument(
        "--random-inputs",
        action="store_true",
        help="fill inputs not given with --input with random data",
    )
    parser.add_argument(
        "--seed",
        type=bounded_int(0, INT64_MAX),
        default=0,
        help="seed of --random-inputs (0 to 2^63-1)",
    )
    parser.add_argument(
        "--output-dir", required=True, metavar="DIR", help="where outputs go"
    )
    parser.add_argument(
        "--stored-outputs",
        action="store_true",
        help="write outputs in their storage layout instead of origin layout",
    )
    parser.add_argument("--graph", help="graph to run when the module has several")
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare the JIT with the reference evaluator (on the graph as "
        "imported for .om)",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print, per op, the engine and the path that ran it "
        "(sunk, host kernel, fallback), and its stream and time if the graph has "
        "several streams",
    )
    parser.add_argument(
        "--tolerance",
        type=non_negative_float,
        default=DEFAULT_TOLERANCE,
        metavar="REL",
        help="--check fails if max abs error > REL * max |reference| "
        f"(default {DEFAULT_TOLERANCE})",
    )
    parser.add_argument(
        "--allow-reference",
        action="store_true",
        help="let --check pass when some ops ran in the reference evaluator "
        "(the JIT could not lower them): those are compared with themselves",
    )
    parser.add_argument(
        "--benchmark",
        type=bounded_int(0, MAX_BENCHMARK_RUNS),
        default=0,
        metavar="N",
        help="after a warm-up run, time N more runs of the same path; print "
        "the median, min and max per inference last",
    )
    parser.add_argument(
        "--threads",
        type=bounded_int(1, MAX_THREADS),
        metavar="T",
        help="threads of the C kernels and the BLAS (default: every core)",
    )
    runtime = parser.add_argument_group(
        "kernel runtime (op by op, one memory arena; implied by each flag below)"
    )
    runtime.add_argument(
        "--kernel-runtime",
        action="store_true",
        help="run each op through a kernel of the registry (ge_runtime.kernels)",
    )
    runtime.add_argument(
        "--kernel",
        action="append",
        default=[],
        metavar="NODE_OR_OP=KERNEL",
        help="use KERNEL for a node name or op type, e.g. conv2d=im2col (repeatable)",
    )
    runtime.add_argument(
        "--profile",
        action="store_true",
        help="print count, total time, share and average per op type",
    )
    runtime.add_argument(
        "--dump",
        metavar="DIR",
        help="write every op's output (origin layout) to DIR, named after the op",
    )
    runtime.add_argument(
        "--dump-stored",
        action="store_true",
        help="with --dump, also write the storage-layout copies (DIR/stored/)",
    )
    runtime.add_argument(
        "--tuning-records",
        metavar="FILE.json",
        help="time each op signature's kernels once, keep the fastest in FILE",
    )
    runtime.add_argument(
        "--tune",
        action="store_true",
        help="measure the kernels again (even those with a record)",
    )
    add_memory_budget_flag(parser)
    return one_line_errors(parser)


KERNEL_RUNTIME_FLAGS = (
    "kernel_runtime",
    "kernel",
    "profile",
    "dump",
    "tuning_records",
    "tune",
)
"""Flags that select the kernel runtime."""


# ---------------------------------------------------------------------------
# Shared by every mode
# ---------------------------------------------------------------------------


def load_module(path: str) -> ModuleOp:
    """Parse and verify an `.mlir` file."""
    return ge_xdsl.parse(read_mlir(path), name=path)


def read_mlir(path: str) -> str:
    """The text of an `.mlir` file, as a one-line GEError if it is not text."""
    data = read_input_bytes(path, "graph")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GEError(
            f"{path}: error: not MLIR text (nor an offline model, {OM_SUFFIX})"
        ) from None


def parse_input_flags(flags: Sequence[str]) -> dict[InputKey, np.ndarray]:
    """`NAME=FILE.npy` flags as arrays keyed by name (or index when numeric)."""
    inputs: dict[InputKey, np.ndarray] = {}
    for flag in flags:
        name, sep, file = flag.partition("=")
        if not sep or not name or not file:
            raise GEError(f"error: --input '{flag}' must be NAME=FILE.npy")
        key: InputKey = int(name) if name.isdigit() else name
        if key in inputs:
            raise GEError(f"error: input '{name}' is given twice")
        inputs[key] = load_npy(file)
    return inputs


def load_npy(path: str) -> np.ndarray:
    """One array from a `.npy` file, as a one-line GEError if unreadable.

    ml_dtypes' types (bfloat16, float8, int4) read back as themselves when
    the file names them, as raw bytes when `np.save` wrote them (`typed_inputs`
    gives those their input's dtype).
    """
    try:
        return load_npy_file(path)
    except NpyError as error:
        raise GEError(f"{path}: error: cannot read the array: {error}") from None


def graph_inputs(
    args: argparse.Namespace, graph: GraphOp
) -> dict[InputKey, np.ndarray]:
    """The inputs `--input` gives (typed for the graph), completed with random
    data under `--random-inputs`."""
    specs = input_specs(graph)
    inputs = typed_inputs(specs, parse_input_flags(args.input))
    if args.random_inputs:
        inputs = complete_inputs(specs, inputs, args.seed)
    return inputs


def typed_inputs(
    specs: Sequence[InputSpec], inputs: Mapping[InputKey, np.ndarray]
) -> dict[InputKey, np.ndarray]:
    """Raw-byte arrays (a bfloat16/float8/int4 array `np.save` wrote) as the
    dtype of the input they feed."""
    by_key: dict[InputKey, InputSpec] = {s.index: s for s in specs}
    by_key.update({s.name: s for s in specs if s.name is not None})
    return {
        key: typed_like(array, by_key[key].dtype) if key in by_key else array
        for key, array in inputs.items()
    }


def random_input(spec: InputSpec, rng: np.random.Generator) -> np.ndarray:
    """Random data of an input's static shape and dtype."""
    if -1 in spec.shape:
        raise GEError(
            f"error: input {spec.label} has unknown dims {list(spec.shape)}; "
            "give it with --input"
        )
    nbytes = tensor_bytes(spec.shape, spec.dtype.itemsize)
    if (reason := over_budget(nbytes, f"random input {spec.label}")) is not None:
        raise error_at(spec.op, reason)
    if spec.dtype == np.bool_:
        return rng.integers(0, 2, spec.shape).astype(np.bool_)
    if spec.dtype.kind in "iu":
        return rng.integers(0, 4, spec.shape).astype(spec.dtype)
    return rng.standard_normal(spec.shape).astype(spec.dtype)


def complete_inputs(
    specs: Sequence[InputSpec],
    given: Mapping[InputKey, np.ndarray],
    seed: int,
) -> dict[InputKey, np.ndarray]:
    """`given` plus random data for every input it does not name."""
    covered = set(given)
    rng = np.random.default_rng(seed)
    inputs = dict(given)
    for spec in specs:
        if spec.index not in covered and spec.name not in covered:
            inputs[spec.index] = random_input(spec, rng)
    return inputs


def write_outputs(directory: str, outputs: Outputs) -> list[Path]:
    """Write `NAME.npy` files (`output_<i>.npy` for unnamed outputs): all of
    them, or none if writing fails."""
    from ge_runtime.dump import StemAllocator

    blobs = [npy_bytes(array) for array in outputs.arrays]
    stems = StemAllocator()
    names = [
        f"{stems(name or f'output_{index}')}.npy"
        for index, name in enumerate(outputs.names)
    ]
    with staged(directory) as folder:
        assert folder is not None
        for name, blob in zip(names, blobs, strict=True):
            (folder / name).write_bytes(blob)
    return [Path(directory) / name for name in names]


def summary_line(path: Path, array: np.ndarray) -> str:
    """`probs.npy: shape [1, 10], dtype float32`."""
    return f"{path.name}: shape {list(array.shape)}, dtype {array.dtype}"


# ---------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------


def run_reference(args: argparse.Namespace) -> Outputs:
    """`--reference`: the NumPy reference evaluator on an `.mlir` graph."""
    module = load_module(args.model)
    graph = find_graph(module, args.graph)
    inputs = graph_inputs(args, graph)
    arrays = evaluate(
        graph,
        inputs,
        weights=load_weights(module, args.model),
        outputs_as_stored=args.stored_outputs,
    )
    return Outputs.of_graph(graph, arrays)


def run_offline_model(args: argparse.Namespace) -> Outputs:
    """`MODEL.om`: an offline model through the JIT (or `--reference`)."""
    model = ge_xdsl.load(args.model).offline
    module = model.module()
    graph = find_graph(module, args.graph)
    inputs = graph_inputs(args, graph)
    if args.reference:
        outputs = evaluate(graph, inputs, weights=model.weights, target=model.target)
    else:
        cache_key = f"{model.digest}|{graph.sym_name.data}"
        outputs = run_scheduled(
            graph, inputs, model.weights, model.target, args, cache_key
        )
    if args.check:
        expected = evaluate(
            model.source_module(), inputs, weights=model.weights, graph=args.graph
        )
        names = [entry.get("name") for entry in model.manifest.get("outputs", [])]
        check_outputs(outputs, expected, args.tolerance, names)
    if args.stored_outputs:
        outputs = [
            value_layout(value, model.target).store(array)
            for value, array in zip(graph.output.operands, outputs, strict=True)
        ]
    return Outputs.of_graph(graph, outputs)


def check_outputs(
    outputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    tolerance: float,
    names: Sequence[str | None] = (),
) -> None:
    """Print one comparison line per output; GEError if one is off.

    A float output is off when max |ours - reference| > tolerance * max
    |reference|; any other output must be equal.
    """
    failed = []
    for index, (ours, ref) in enumerate(zip(outputs, expected, strict=True)):
        label = f"output_{index}"
        if index < len(names) and names[index]:
            label += f" ('{names[index]}')"
        if ours.shape != ref.shape:
            raise GEError(
                f"error: {label} has shape {list(ours.shape)}, the reference "
                f"{list(ref.shape)}"
            )
        error, scale = max_abs_error(ours, ref), largest_magnitude(ref)
        if ours.dtype.kind in "iub":
            ok, bound = error == 0, "exact"
        else:
            ok, bound = error <= tolerance * scale, f"limit {tolerance * scale:.3e}"
        print(
            f"check {label}: max abs error {error:.3e} ({bound}), max |reference| "
            f"{scale:.3e}: {'ok' if ok else 'MISMATCH'}"
        )
        if not ok:
            failed.append(f"output_{index}")
    if failed:
        verb = "differs" if len(failed) == 1 else "differ"
        raise GEError(
            f"error: {', '.join(failed)} {verb} from the reference by more than "
            f"{tolerance:g} x max |reference|"
        )


def run_scheduled(
    graph: GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
    weights: Mapping[str, np.ndarray],
    target: str | None,
    args: argparse.Namespace,
    cache_key: str | None = None,
) -> list[np.ndarray]:
    """Run a graph through the scheduler; with `--trace`, print what ran each
    op; with `--check`, what ran on the JIT; with `--benchmark`, time it.
    `cache_key` keeps the generated code on disk for the next run."""
    from ge_runtime.scheduler import compile_model, freeze_for_serving

    model = compile_model(graph, weights, target=target, cache_key=cache_key)
    freeze_for_serving()
    outputs = model.run(inputs)
    if args.trace:
        print(f"schedule: {model.describe()}")
        for line in model.part_lines():
            print(f"schedule: {line}")
        for entry in model.trace:
            print(f"trace: {entry.line()}")
    if args.check:
        check_coverage(model, args.allow_reference)
    if args.benchmark:
        args.benchmark_line = benchmark(lambda: model.run(inputs), args.benchmark)
    return outputs


def check_coverage(model: CompiledModel, allow_reference: bool) -> None:
    """Print what `--check` compares; GEError if part of the graph ran in
    the reference evaluator (it would be compared with itself)."""
    from ge_runtime.scheduler import Executor

    counts = {executor: 0 for executor in Executor}
    skipped: dict[str, int] = {}
    for entry in model.trace:
        counts[entry.executor] += 1
        if entry.executor == Executor.REFERENCE:
            skipped[entry.detail] = skipped.get(entry.detail, 0) + 1
    line = f"check: JIT vs reference on {counts[Executor.JIT]} ops"
    if counts[Executor.NUMPY_KERNEL]:
        line += (
            f", {counts[Executor.NUMPY_KERNEL]} host fallback ops through the "
            "NumPy kernel library"
        )
    if skipped:
        line += f", {counts[Executor.REFERENCE]} ops NOT on the JIT"
    print(line)
    if skipped and not allow_reference:
        reasons = "; ".join(f"{n} ops: {why}" for why, n in skipped.items())
        raise GEError(
            f"error: --check: {counts[Executor.REFERENCE]} ops did not run on the "
            f"JIT ({reasons}), so the reference would be compared with itself "
            "(--allow-reference compares anyway)"
        )


def benchmark(run: Callable[[], object], count: int) -> str:
    """Time `count` calls of `run` (after the run already made: the warm-up);
    the per-inference median, min and max."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    return (
        f"benchmark: {count} runs, median {median * 1e3:.2f} ms "
        f"(min {min(times) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms)"
    )


def run_jit(args: argparse.Namespace) -> Outputs:
    """`.mlir` without `--reference`: a graph (lowered on the fly) or a loop module."""
    module = load_module(args.model)
    weights = load_weights(module, args.model)
    if not any(isinstance(op, GraphOp) for op in module.ops):
        for flag in ("check", "trace"):
            if getattr(args, flag):
                raise GEError(
                    f"error: --{flag} needs a ge graph (this module is already lowered)"
                )
        return run_loop_module(module, args, weights)
    graph = find_graph(module, args.graph)
    inputs = graph_inputs(args, graph)
    outputs = run_scheduled(graph, inputs, weights, None, args)
    if args.check:
        check_outputs(outputs, evaluate(graph, inputs, weights=weights), args.tolerance)
    if args.stored_outputs:
        outputs = [
            value_layout(value).store(array)
            for value, array in zip(graph.output.operands, outputs, strict=True)
        ]
    return Outputs.of_graph(graph, outputs)


def run_loop_module(
    module: ModuleOp, args: argparse.Namespace, weights: Mapping[str, np.ndarray]
) -> Outputs:
    """A lowered function on storage-layout arrays (inputs, then weights by key)."""
    from ge_runtime.jit.compiler import JITError, compile_module
    from ge_runtime.jit.ops import jit_failure

    check_claimed_memory(module)
    try:
        compiled = compile_module(module, args.graph)
        given = parse_input_flags(args.input)
        rng = np.random.default_rng(args.seed)
        arguments = []
        for position, (attrs, memref) in enumerate(
            zip(compiled.arg_attrs, compiled.arg_types, strict=True)
        ):
            keys = [attrs.get("ge.input", position), attrs.get("ge.name")]
            if (key := attrs.get("ge.weight")) is not None:
                if key not in weights:
                    raise GEError(f"error: weight '{key}' is not in the weights")
                arguments.append(weights[key])
            elif found := [given[k] for k in keys if k in given]:
                arguments.append(typed_like(found[0], compiled.arg_dtype(position)))
            elif args.random_inputs:
                shape = tuple(memref.get_shape())
                dtype = compiled.arg_dtype(position)
                arguments.append(rng.standard_normal(shape).astype(dtype))
            else:
                raise GEError(
                    f"error: argument #{position} of @{compiled.name} is missing"
                )
        weights_at = {
            position: array
            for position, (attrs, array) in enumerate(
                zip(compiled.arg_attrs, arguments, strict=True)
            )
            if "ge.weight" in attrs
        }
        bound = compiled.bind(weights_at)  # weights packed once, as for a graph
        free = [a for i, a in enumerate(arguments) if i not in weights_at]
        results = list(bound(*free))
        if args.benchmark:
            args.benchmark_line = benchmark(lambda: bound(*free), args.benchmark)
        return Outputs(results, [None] * len(results))
    except JITError as error:
        raise jit_failure(error) from None


def parse_kernel_flags(flags: Sequence[str]) -> dict[str, str]:
    """`NODE_OR_OP=KERNEL` flags as a selection (op types get their `ge.`)."""
    from ge_dialect.ops import GE_OPS

    op_names = {op.name for op in GE_OPS}
    selection: dict[str, str] = {}
    for flag in flags:
        name, sep, kernel = flag.partition("=")
        if not sep or not name or not kernel:
            raise GEError(f"error: --kernel '{flag}' must be NODE_OR_OP=KERNEL")
        selection[f"ge.{name}" if f"ge.{name}" in op_names else name] = kernel
    return selection


def run_kernel_runtime(args: argparse.Namespace) -> Outputs:
    """The kernel runtime (`ge_runtime.executor`): op by op, profile, dump, tune."""
    from ge_runtime.dump import DumpWriter
    from ge_runtime.executor import Runtime
    from ge_runtime.profiling import Profiler
    from ge_runtime.tuning import PerfEngine

    if args.model.endswith(OM_SUFFIX):
        model = ge_xdsl.load(args.model).offline
        module, weights, target = model.module(), model.weights, model.target
        source = model.source_module
    else:
        module = load_module(args.model)
        weights, target = load_weights(module, args.model), None
        source = lambda: module  # noqa: E731
    graph = find_graph(module, args.graph)
    inputs = graph_inputs(args, graph)
    tuning = args.tune or args.tuning_records is not None
    runtime = Runtime(
        graph,
        weights,
        target=target,
        selection=parse_kernel_flags(args.kernel),
        engine=PerfEngine(args.tuning_records, retune=args.tune) if tuning else None,
        profiler=Profiler() if args.profile else None,
        dumper=DumpWriter(args.dump_folder, stored=args.dump_stored)
        if args.dump
        else None,
    )
    profiler, runtime.profiler = runtime.profiler, None
    dumper = runtime.dumper
    try:
        start = time.perf_counter()
        outputs = runtime.run(inputs)  # compiles every kernel
        warm_up = time.perf_counter() - start
        runtime.dumper = None
        if profiler is not None:  # steady state: every kernel compiled already
            runtime.profiler = profiler
            for _ in range(max(1, args.benchmark)):
                runtime.run(inputs)
    finally:
        if dumper is not None:
            dumper.close()
    if runtime.profiler is not None:
        print(
            f"profile: first run (kernel compilation included) {warm_up * 1e3:.1f} ms"
            f"; steady state over {max(1, args.benchmark)} runs:"
        )
        for line in runtime.profiler.lines():
            print(f"profile: {line}")
    if args.benchmark:
        args.benchmark_line = benchmark(lambda: runtime.run(inputs), args.benchmark)
    if runtime.engine is not None:
        engine = runtime.engine
        print(
            f"tuning: {len(engine.timed)} op signatures timed, "
            f"{len(engine.reused)} ops reused a record"
        )
    if args.check:
        expected = evaluate(source(), inputs, weights=weights, graph=args.graph)
        check_outputs(outputs, expected, args.tolerance)
    if args.stored_outputs:
        outputs = [
            value_layout(value, target).store(array)
            for value, array in zip(graph.output.operands, outputs, strict=True)
        ]
    return Outputs.of_graph(graph, outputs)


MODES: dict[str, Mode] = {
    "reference": run_reference,
    "om": run_offline_model,
    "jit": run_jit,
    "kernels": run_kernel_runtime,
}
"""Execution modes by name; `select_mode` picks one from the command line."""


def select_mode(args: argparse.Namespace) -> Mode:
    """The mode the command line asks for."""
    if args.benchmark and args.reference:
        raise GEError("error: --benchmark times what ge-run runs; drop --reference")
    if args.trace and args.reference:
        raise GEError("error: --trace shows the scheduled run; drop --reference")
    if args.dump_stored and not args.dump:
        raise GEError("error: --dump-stored needs --dump DIR")
    if any(getattr(args, flag) for flag in KERNEL_RUNTIME_FLAGS):
        if args.reference or args.trace:
            flag = "--reference" if args.reference else "--trace"
            raise GEError(f"error: {flag} does not go with the kernel runtime flags")
        return MODES["kernels"]
    if args.model.endswith(OM_SUFFIX):
        return MODES["om"]
    if args.reference:
        if args.check:
            raise GEError(
                "error: --check compares the JIT with the reference; drop --reference"
            )
        return MODES["reference"]
    return MODES["jit"]


def run(argv: Sequence[str] | None) -> None:
    """Parse the command line, run the chosen mode and write the outputs."""
    args = build_parser().parse_args(argv)
    from ge_runtime.threads import set_threads

    set_threads(args.threads)  # None: every core
    args.benchmark_line = None
    with budget_of(args.memory_budget), staged(args.dump) as dump_folder:
        args.dump_folder = dump_folder  # the dump goes there until the run is done
        outputs = select_mode(args)(args)
        written = write_outputs(args.output_dir, outputs)
    for path, array in zip(written, outputs.arrays, strict=True):
        print(summary_line(path, array))
    if args.benchmark_line is not None:
        from ge_runtime.jit.schedule.kernels import kernel_status

        print(f"benchmark: loop nests run as {kernel_status()}")
        print(args.benchmark_line)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-run`."""
    return run_tool("ge-run", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
