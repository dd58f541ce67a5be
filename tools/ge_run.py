"""`ge-run`: execute a graph on `.npy` inputs and write its outputs as `.npy`.

    ge-run --reference graph.mlir --input x=x.npy --output-dir out/
    ge-run --reference graph.mlir --random-inputs --seed 3 --output-dir out/

Inputs are named by their `ge.data` node name or index (`--input 0=x.npy`);
with `--random-inputs` every input not given is filled with random data of
its type. Each output is written as `DIR/NAME.npy`, named by the graph's
output names (an ONNX model's output names; `output_<i>` where there is
none; sanitised, bounded and made unique as dump files are:
`ge_runtime.engines.dump.file_stem`), in origin layout (storage layout with
`--stored-outputs`), and summarised on one line. An ONNX sequence (its
length fixed at compile time, `ge-atc --input_shape "x:([2,3],[4])"`) is
one `.npz` whose arrays are named `0` to `n-1`, as an input
(`--input x=x.npz`) and as an output; an absent optional is an `.npz`
with no array (`ge_dialect.structured_io`). Nothing
is written unless the whole run succeeds; errors are one line and exit 1.

What runs is `ge_xdsl.run`'s and `ge_xdsl.serving`'s (the same calls from
Python); this file parses the flags and prints. Modes are separate
functions in `MODES`: `--reference` runs the NumPy reference evaluator
(`ge_runtime.engines.reference`); an offline model (`MODEL.om` from
`ge-atc`) runs through the JIT (`ge_runtime.jit`), or the reference
evaluator with `--reference`. With
`--check` (offline models) the reference evaluator also runs the source
graph stored in the `.om` (the graph after graph fusion); one line per
output gives the max abs error against max |reference|, and a relative
error above `--tolerance` is an error.

    ge-run model.om --random-inputs --check --output-dir out/

`--check` first says what it compares (`check: JIT vs reference on N ops`,
and how many host fallback ops ran through the NumPy kernel library) and
fails when an op ran in the reference evaluator because the JIT could not
lower it (the reference would be compared with itself); `--allow-reference`
compares anyway. `--benchmark N` times N more runs of the same path after
the first (the warm-up) and prints `benchmark: N runs, median X ms (min,
max)` last, after the line saying how loop nests ran; `--threads T` sets the
threads of the C kernels and the BLAS (default: every core). Loop nests
run as C kernels when a C compiler is found (`GE_XDSL_KERNELS=numpy|c`
chooses). An offline model carries its compiled kernels (`ge-atc` compiles
them): they go into the code cache (`ge_runtime.jit.cache`, keyed by the
model's IR), so even a first `ge-run` neither lowers, generates code nor
compiles; kernels built for another
machine, compiler or version are compiled again, said in one `note:` line.
A model sunk whole runs from the plan its `.om` records
(`ge_xdsl.serving.serve`) unless `--check`, `--trace`, `--profile`,
`--stored-outputs` or `--graph` needs its IR: such a run imports no xDSL and
parses nothing, so it starts as onnxruntime does.

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

Graphs (`.mlir` and `.om`, without `--reference`) run through the
scheduler (`ge_runtime.engines.scheduler`): a static graph is sunk
(compiled whole, split around `aclnn_only` fallback ops), a graph with
dynamic dims runs op by op under host scheduling, so one model takes any
batch size. `--trace` prints one line per op: node, op, engine and path
(sunk, host kernel, fallback);
a graph with several streams (`assign-streams`, `ge-atc --max-streams`)
runs them concurrently and its lines add the stream and when the op ran.

    ge-run model.om --input x=batch7.npy --trace --output-dir out/

`--profile` times what runs: compiling (lowering, code generation, C
compilation) is reported apart, then per step of the steady-state runs
(`--benchmark N` of them, else one): each sunk part, fallback op and host
kernel by op type, with its count, total, share and average; its per-run
total is what `--benchmark` measures.

    ge-run model.om --random-inputs --profile --benchmark 5

`--output-dir` is needed when the outputs are the point of the run; a run
that measures or checks (`--benchmark`, `--profile`, `--check`, `--trace`,
`--tuning-records`, `--dump`) may leave it out. An ONNX or TensorFlow model
is not a graph `ge-run` takes: the error says to compile it with `ge-atc`
or import it with `ge-translate` first.

The kernel runtime (`ge_runtime.engines.executor`, InfiniTensor's runtime)
runs a static graph op by op, its intermediates in one arena laid out by
the memory plan, each op through a kernel of the registry: `--kernel
conv2d=im2col` (node name or op type) chooses one, `--tuning-records FILE`
times each op signature's kernels once and keeps the fastest (`--tune`
measures again), `--dump DIR` writes every op's output in origin layout
(compare dumps with `ge-dump-compare`). Each of these flags, and
`--kernel-runtime`, selects it; `--profile` then times it per op type.

    ge-run model.om --random-inputs --profile --tuning-records tune.json \
        --dump dump/ --output-dir out/
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ge_dialect.diagnostics import GEError
from ge_dialect.files import staged
from ge_dialect.limits import INT64_MAX, budget_of
from tools.common import (
    accept_both_spellings,
    add_max_iterations_flag,
    add_memory_budget_flag,
    bounded_int,
    non_negative_float,
    one_line_errors,
    run_tool,
)

if TYPE_CHECKING:
    import numpy as np

    from ge_dialect.ops import GraphOp
    from ge_runtime.engines.served import ServedModel
    from ge_runtime.run_inputs import GivenInput, InputKey
    from ge_xdsl.run import RunnableModel
    from ge_xdsl.serving import Outputs

DEFAULT_TOLERANCE = 1e-3
MAX_THREADS = 1024
"""The most threads `--threads` sets."""
MAX_BENCHMARK_RUNS = 1_000_000
"""The most timed runs `--benchmark` makes (a run stays bounded in time)."""

Mode = Callable[[argparse.Namespace], "Outputs"]


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
        help="an input by ge.data node name or index (repeatable); an ONNX "
        "sequence as NAME=FILE.npz with arrays 0..n-1, an absent optional as an "
        ".npz with none",
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
        "--output-dir",
        metavar="DIR",
        help="where outputs go (needed unless the run measures or checks: "
        "--benchmark, --profile, --check, --trace, --tuning-records, --dump)",
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
    parser.add_argument(
        "--profile",
        action="store_true",
        help="time what ge-run runs: compilation apart, then per sunk part, "
        "fallback op and host kernel (count, total, share, average) over "
        "--benchmark N steady-state runs, else one; with the kernel runtime, "
        "per op type of its kernels",
    )
    runtime = parser.add_argument_group(
        "kernel runtime (op by op, one memory arena; implied by each flag below)"
    )
    runtime.add_argument(
        "--kernel-runtime",
        action="store_true",
        help="run each op through a kernel of the registry (engines.kernels)",
    )
    runtime.add_argument(
        "--kernel",
        action="append",
        default=[],
        metavar="NODE_OR_OP=KERNEL",
        help="use KERNEL for a node name or op type, e.g. conv2d=im2col (repeatable)",
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
    add_max_iterations_flag(parser)
    return accept_both_spellings(one_line_errors(parser))


KERNEL_RUNTIME_FLAGS = (
    "kernel_runtime",
    "kernel",
    "dump",
    "tuning_records",
    "tune",
)
"""Flags that select the kernel runtime."""

MEASURING_FLAGS = ("benchmark", "profile", "check", "trace", "tuning_records", "dump")
"""Flags of a run whose point is what it prints (or dumps), not its outputs."""


# ---------------------------------------------------------------------------
# Shared by every mode
# ---------------------------------------------------------------------------


def parse_input_flags(flags: Sequence[str]) -> dict[InputKey, GivenInput]:
    """`NAME=FILE.npy` flags as arrays keyed by name (or index when numeric);
    `NAME=FILE.npz` as the arrays of a sequence (or an absent optional)."""

    from ge_xdsl.serving import read_input

    inputs: dict[InputKey, GivenInput] = {}
    for flag in flags:
        name, sep, file = flag.partition("=")
        if not sep or not name or not file:
            raise GEError(f"error: --input '{flag}' must be NAME=FILE.npy")
        key: InputKey = int(name) if name.isdigit() else name
        if key in inputs:
            raise GEError(f"error: input '{name}' is given twice")
        inputs[key] = read_input(file)
    return inputs


def inputs_of(
    args: argparse.Namespace, model: RunnableModel
) -> tuple[GraphOp, dict[InputKey, np.ndarray]]:
    """The graph to run and its inputs, from `--graph`, `--input` and
    `--random-inputs`."""
    from ge_xdsl.serving import graph_inputs

    graph = model.graph(args.graph)
    given = parse_input_flags(args.input)
    return graph, graph_inputs(graph, given, random=args.random_inputs, seed=args.seed)


def check_outputs(
    outputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    tolerance: float,
    names: Sequence[str | None] = (),
) -> None:
    """Print one comparison line per output; GEError if one is off."""
    from ge_xdsl.run import compare_outputs, mismatch_error

    comparisons = compare_outputs(outputs, expected, tolerance, names)
    for comparison in comparisons:
        print(comparison.line())
    if (error := mismatch_error(comparisons, tolerance)) is not None:
        raise error


def print_profile(lines: Sequence[str]) -> None:
    """The profile, each line prefixed `profile: `."""
    for line in lines:
        print(f"profile: {line}")


# ---------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------


def run_reference(args: argparse.Namespace) -> Outputs:
    """`--reference`: the NumPy reference evaluator on a graph."""
    from ge_xdsl.run import RunnableModel
    from ge_xdsl.serving import Outputs

    model = RunnableModel.load(args.model)
    graph, inputs = inputs_of(args, model)
    outputs = model.reference(graph, inputs, stored=args.stored_outputs)
    return Outputs.of_graph(graph, outputs)


def run_graph(args: argparse.Namespace) -> Outputs:
    """A graph (`.om`, or `.mlir` lowered on the fly) through the scheduler;
    a module of loops as it is. An `.om` sunk whole runs from its plan
    (`ge_xdsl.serving.serve`) unless a flag needs its IR: xDSL is then
    never imported."""
    from ge_runtime.engines.served import ServedModel
    from ge_runtime.offline.progress import step
    from ge_xdsl.serving import Outputs, serve

    needs_ir = args.check or args.trace or args.profile or args.stored_outputs
    with step("ge-run", f"loading {args.model}"):
        if needs_ir or args.graph is not None:
            from ge_xdsl.run import RunnableModel

            loaded: RunnableModel | ServedModel = RunnableModel.load(args.model)
        else:
            loaded = serve(args.model)
    if isinstance(loaded, ServedModel):
        return run_served(args, loaded)
    model = loaded
    for note in model.notes:
        print(note, file=sys.stderr)
    if model.lowered:
        return run_loops(args, model)
    graph, inputs = inputs_of(args, model)
    outputs = run_scheduled(args, model, graph, inputs)
    if args.check:
        expected = model.expected(inputs, args.graph)
        check_outputs(outputs, expected, args.tolerance, model.output_labels)
    if args.stored_outputs:
        outputs = model.stored(graph, outputs)
    return Outputs.of_graph(graph, outputs)


def run_scheduled(
    args: argparse.Namespace,
    model: RunnableModel,
    graph: GraphOp,
    inputs: Mapping[InputKey, np.ndarray],
) -> list[np.ndarray]:
    """Compile and run `graph`; with `--profile`, `--trace`, `--check` and
    `--benchmark`, say what ran and how long it took."""
    from ge_runtime.engines.served import freeze_for_serving
    from ge_runtime.offline.progress import step
    from ge_xdsl.run import Coverage, profile
    from ge_xdsl.serving import time_runs

    if args.profile:
        runs = max(1, args.benchmark)
        compiled, outputs, found = profile(lambda: model.compile(graph), inputs, runs)
        print_profile(found.lines())
    else:
        with step("ge-run", "compiling the model"):
            compiled = model.compile(graph)
        freeze_for_serving()
        outputs = compiled.run(inputs)
    if args.trace:
        print(f"schedule: {compiled.describe()}")
        for line in compiled.part_lines():
            print(f"schedule: {line}")
        for entry in compiled.trace:
            print(f"trace: {entry.line()}")
    if args.check:
        coverage = Coverage.of(compiled)
        print(coverage.line())
        if (error := coverage.error()) is not None and not args.allow_reference:
            raise error
    if args.benchmark:
        args.benchmark_line = time_runs(
            lambda: compiled.run(inputs), args.benchmark
        ).line()
    return outputs


def run_served(args: argparse.Namespace, model: ServedModel) -> Outputs:
    """An offline model run from its plan (no IR parsed: `ge_xdsl.serving.serve`)."""
    from ge_runtime.engines.served import freeze_for_serving
    from ge_xdsl.serving import Outputs, graph_inputs, time_runs

    given = parse_input_flags(args.input)
    inputs = graph_inputs(model.specs, given, random=args.random_inputs, seed=args.seed)
    freeze_for_serving()
    outputs = model.run(inputs)
    if args.benchmark:
        args.benchmark_line = time_runs(
            lambda: model.run(inputs), args.benchmark
        ).line()
    return Outputs(outputs, model.output_names)


def run_loops(args: argparse.Namespace, model: RunnableModel) -> Outputs:
    """A module already lowered to loops, on storage-layout arrays."""
    from ge_xdsl.run import run_loop_module
    from ge_xdsl.serving import time_runs

    for flag in ("check", "trace", "profile"):
        if getattr(args, flag):
            raise GEError(
                f"error: --{flag} needs a ge graph (this module is already lowered)"
            )
    inputs = parse_input_flags(args.input)
    if any(isinstance(value, dict) for value in inputs.values()):
        raise GEError(
            "error: a module lowered to loops takes each tensor as an .npy (a "
            "sequence's elements one by one)"
        )
    run = run_loop_module(
        model.module,
        model.weights,
        inputs,  # type: ignore[arg-type]
        function=args.graph,
        random=args.random_inputs,
        seed=args.seed,
    )
    if args.benchmark:
        args.benchmark_line = time_runs(run.run, args.benchmark).line()
    return run.outputs


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


def run_kernels(args: argparse.Namespace) -> Outputs:
    """The kernel runtime: op by op, profile, dump, tune."""
    from ge_xdsl.run import RunnableModel, run_kernel_runtime
    from ge_xdsl.serving import Outputs, time_runs

    model = RunnableModel.load(args.model)
    graph, inputs = inputs_of(args, model)
    run = run_kernel_runtime(
        graph,
        model.weights,
        inputs,
        target=model.target,
        selection=parse_kernel_flags(args.kernel),
        tuning_records=args.tuning_records,
        retune=args.tune,
        profile_runs=max(1, args.benchmark) if args.profile else 0,
        dump_folder=args.dump_folder,
        dump_stored=args.dump_stored,
    )
    if run.profiler is not None:
        print_profile(
            [
                f"kernel runtime, first run (kernel compilation included) "
                f"{run.first_run_seconds * 1e3:.1f} ms; steady state over "
                f"{run.profiled_runs} runs:",
                *run.profiler.lines(),
            ]
        )
    if args.benchmark:
        args.benchmark_line = time_runs(
            lambda: run.runtime.run(inputs), args.benchmark
        ).line()
    if (engine := run.runtime.engine) is not None:
        print(
            f"tuning: {len(engine.timed)} op signatures timed, "
            f"{len(engine.reused)} ops reused a record"
        )
    outputs = run.outputs
    if args.check:
        expected = model.expected(inputs, args.graph)
        check_outputs(outputs, expected, args.tolerance)
    if args.stored_outputs:
        outputs = model.stored(graph, outputs)
    return Outputs.of_graph(graph, outputs)


MODES: dict[str, Mode] = {
    "reference": run_reference,
    "graph": run_graph,
    "kernels": run_kernels,
}
"""Execution modes by name; `select_mode` picks one from the command line."""


def select_mode(args: argparse.Namespace) -> Mode:
    """The mode the command line asks for."""
    for flag in ("benchmark", "profile"):
        if getattr(args, flag) and args.reference:
            raise GEError(f"error: --{flag} times what ge-run runs; drop --reference")
    if args.trace and args.reference:
        raise GEError("error: --trace shows the scheduled run; drop --reference")
    if args.dump_stored and not args.dump:
        raise GEError("error: --dump-stored needs --dump DIR")
    if args.output_dir is None and not any(getattr(args, f) for f in MEASURING_FLAGS):
        raise GEError(
            "error: --output-dir DIR is needed to write the outputs (a run that "
            "only measures or checks: --benchmark, --profile, --check, --trace)"
        )
    if any(getattr(args, flag) for flag in KERNEL_RUNTIME_FLAGS):
        if args.reference or args.trace:
            flag = "--reference" if args.reference else "--trace"
            raise GEError(f"error: {flag} does not go with the kernel runtime flags")
        return MODES["kernels"]
    if args.reference:
        if args.check:
            raise GEError(
                "error: --check compares the JIT with the reference; drop --reference"
            )
        return MODES["reference"]
    return MODES["graph"]


def run(argv: Sequence[str] | None) -> None:
    """Parse the command line, run the chosen mode and write the outputs."""
    args = build_parser().parse_args(argv)
    from ge_runtime.engines.threads import set_threads
    from ge_runtime.run_inputs import iteration_budget_of

    set_threads(args.threads)  # None: every core
    args.benchmark_line = None
    with (
        budget_of(args.memory_budget),
        iteration_budget_of(args.max_iterations),
        staged(args.dump) as dump_folder,
    ):
        args.dump_folder = dump_folder  # the dump goes there until the run is done
        outputs = select_mode(args)(args)
        written = [] if args.output_dir is None else outputs.write(args.output_dir)
    for path, what in written:
        print(f"{path.name}: {what}")
    if args.benchmark_line is not None:
        from ge_runtime.jit.c_runtime import kernel_status

        print(f"benchmark: loop nests run as {kernel_status()}")
        print(args.benchmark_line)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-run`."""
    return run_tool("ge-run", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
