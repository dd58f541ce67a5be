"""Speed on a zoo wider than the bench set: `ge-run`'s path against onnxruntime
at 1 thread and at every core, one table with the geomean and the worst.

The zoo, from four sources:

- `light`: the onnx package's light model zoo (ResNet-50, SqueezeNet,
  ShuffleNet, Inception, DenseNet: seeded weights);
- `written`: torch modules written in `tests/model_zoo/builders.py`
  (BERT, GPT-2, ViT, MobileNets, a YOLO head, LSTM/GRU, If/Loop models);
- `transformers`: architectures of `tests/model_zoo/architectures.py`
  (random inits from small configs);
- `shipped`: trained models inside PyPI wheels (the `models` extra), when
  installed.

Every model is compiled by `ge-atc` (a subprocess), loaded as `ge-run` loads
it (`ge_xdsl.serving.serve`: a graph sunk whole runs from the plan its `.om`
records, anything else is compiled from its IR), and timed against an
onnxruntime session at the same thread count in the same process, in
alternating rounds (never side by side: `timed`), medians. The
CPU's model name and vector ISA flags and the load average are printed with
the table, which is also written to `bench/results/zoo.md`.

    python bench/bench_zoo.py                       # the whole zoo
    python bench/bench_zoo.py roberta swin --runs 10
    python bench/bench_zoo.py --source transformers --threads 1
    python bench/bench_zoo.py --march haswell       # AVX2 kernels only
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_ge_run import LIGHT, onnx_model

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "zoo.md"
ROUNDS = 2
"""Rounds of onnxruntime then ours (each round a new onnxruntime session)."""
ISA_FLAGS = (
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
)


@dataclass
class Row:
    """One model: its source, and per thread count (ours ms, ort ms)."""

    model: str
    source: str
    timings: dict[int, tuple[float, float]] = field(default_factory=dict)
    error: float = 0.0
    runs_as: str = ""
    """How `ge-run` runs it (`runs_as`)."""
    failure: str | None = None


def zoo() -> dict[str, str]:
    """Model name -> source, in table order."""
    sys.path.insert(0, str(ROOT / "tests"))
    import model_zoo

    names = {name: "light" for name in LIGHT}
    for name in model_zoo.MODELS:
        source = "transformers" if name in model_zoo.ARCHITECTURES else "written"
        names[name] = source
    for name in model_zoo.SHIPPED:
        if model_zoo.shipped_path(name) is not None:
            names[name] = "shipped"
    return names


def model_files(name: str, source: str, directory: Path) -> tuple[Path, dict]:
    """The `.onnx` file and seeded inputs of a zoo model."""
    if source != "shipped":
        return onnx_model(name, directory)
    import model_zoo

    return model_zoo.shipped_path(name), model_zoo.sample_inputs(name)


def compile_om(path: Path, feeds: dict, output: Path) -> Path | str:
    """`ge-atc` (Ascend910, the inputs' shapes): the `.om`, or its error line."""
    import model_zoo

    om = output.with_suffix(".om")
    if not om.is_file():
        shapes = model_zoo.input_shape_flag(feeds)
        flags = ["--soc_version=Ascend910"]
        _, error = model_zoo.compile_with_atc(path, output, shapes, flags)
        if error is not None:
            return error
    return om


def timed(om: Path, path: Path, feeds: dict, threads: int, runs: int):
    """((ours ms, onnxruntime ms) medians, max relative error, `runs_as`)
    at `threads`.

    The two never run side by side: an onnxruntime session's worker threads
    spin after each run (its default) and take the cores a multi-threaded
    kernel of ours needs next (ResNet-like models measured 0.6 ms alone,
    7.6 ms after a session's run, 200 ms on a loaded machine). So each round
    times onnxruntime with a session of its own, closes it (its threads
    end), then times ours."""
    import model_zoo
    import onnxruntime as ort

    from ge_runtime.engines.served import ServedModel, freeze_for_serving
    from ge_runtime.engines.threads import set_threads
    from ge_xdsl.serving import serve

    set_threads(threads)
    model = serve(om)  # as ge-run loads it: from its plan, or its IR compiled
    if not isinstance(model, ServedModel):
        model = model.compile(model.graph())
    freeze_for_serving()  # as ge-run does
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    times: dict[str, list[float]] = {"ours": [], "ort": []}
    error = 0.0
    for _ in range(ROUNDS):
        session = ort.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        expected = session.run(None, feeds)
        times["ort"] += _times(session.run, (None, feeds), runs // ROUNDS)
        del session
        error = max(error, model_zoo.relative_error(model.run(feeds), expected))
        times["ours"] += _times(model.run, (feeds,), runs // ROUNDS)
    ours, theirs = (1e3 * statistics.median(times[k]) for k in ("ours", "ort"))
    return (ours, theirs), error, runs_as(model)


def runs_as(model) -> str:
    """`plan` for a graph sunk whole run from its `.om`'s plan, else its
    sunk parts and the ops run on the host (`--trace` lists them); with the
    loop nests run element by element and the loops iterated in Python, if
    any (cliffs: `CompiledFunction.slow_paths`)."""
    from ge_runtime.engines.served import ServedModel

    if isinstance(model, ServedModel):
        slow = model.function.compiled.slow_paths(reasons=False)
        return f"plan, {slow}" if slow else "plan"
    steps = model.steps()
    slow = "; ".join(
        found
        for part in model.parts
        if part.compiled and (found := part.compiled.slow_paths(reasons=False))
    )
    host = len(steps) - steps.count("sunk")
    text = f"{steps.count('sunk')} parts, {host} host ops"
    return f"{text}, {slow}" if slow else text


def _times(run, args: tuple, count: int) -> list[float]:
    """Seconds of `count` calls `run(*args)`, after one not timed."""
    run(*args)
    seconds = []
    for _ in range(max(1, count)):
        start = time.perf_counter()
        run(*args)
        seconds.append(time.perf_counter() - start)
    return seconds


def cpu() -> str:
    """The CPU's model name and which vector ISA flags it has."""
    info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    flags = set(fields.get("Flags", "").split())
    have = [flag for flag in ISA_FLAGS if flag in flags]
    name = fields.get("Model name", "?").strip()
    return f"{name}, {os.cpu_count()} cores, {' '.join(have)}"


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def table(rows: list[Row], thread_counts: list[int]) -> str:
    """The Markdown table: per model and thread count, ms and ratio."""
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    head = "| model | source | runs as |" + "".join(
        f" ours / ort ms ({t} thr) | ratio ({t} thr) |" for t in thread_counts
    )
    lines = [
        f"CPU: {cpu()}; kernels built for -march="
        f"{os.environ.get('GE_XDSL_MARCH') or 'native'}; "
        f"load average after the runs: {load}",
        "",
        head + " max rel. error |",
        "|---|---|---|" + "---:|---:|" * len(thread_counts) + "---:|",
    ]
    for row in rows:
        if row.failure:
            lines.append(f"| {row.model} | {row.source} | {row.failure} |")
            continue
        cells = "".join(
            f" {ours:.2f} / {ort:.2f} | {ours / ort:.2f}x |"
            for ours, ort in (row.timings[t] for t in thread_counts)
        )
        lines.append(
            f"| {row.model} | {row.source} | {row.runs_as} |{cells} {row.error:.1e} |"
        )
    summary = []
    for t in thread_counts:
        ratios = {
            r.model: r.timings[t][0] / r.timings[t][1] for r in rows if not r.failure
        }
        worst = max(ratios, key=ratios.get, default=None)
        if worst is None:
            continue
        within = sum(r <= 2 for r in ratios.values())
        summary.append(
            f"- {t} thread(s): geomean {geomean(list(ratios.values())):.2f}x, "
            f"median {sorted(ratios.values())[len(ratios) // 2]:.2f}x, worst "
            f"{ratios[worst]:.2f}x ({worst}), {within} of {len(ratios)} within 2x"
        )
    failed = sum(bool(r.failure) for r in rows)
    summary.append(f"- {len(rows)} models, {failed} did not compile or run")
    return "\n".join([*lines, "", *summary])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="zoo names (default: all)")
    parser.add_argument(
        "--source", choices=("light", "written", "transformers", "shipped")
    )
    parser.add_argument(
        "--threads",
        type=int,
        action="append",
        help="thread counts (default: 1 and every core)",
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--march",
        metavar="CPU",
        help="build the C kernels for this -march CPU (GE_XDSL_MARCH), e.g. "
        "haswell for AVX2 only (default: native)",
    )
    parser.add_argument("--cache", metavar="DIR", help="keep .onnx/.om files here")
    parser.add_argument(
        "--no-write", action="store_true", help=f"do not write {RESULTS.name}"
    )
    args = parser.parse_args(argv)
    if args.march:
        os.environ["GE_XDSL_MARCH"] = args.march  # ge-atc's and the runs'
    thread_counts = args.threads or sorted({1, os.cpu_count() or 1})
    sources = zoo()
    names = args.models or [n for n, s in sources.items() if args.source in (None, s)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(args.cache or temporary)
        directory.mkdir(parents=True, exist_ok=True)
        for name in names:
            row = Row(name, sources.get(name, "?"))
            rows.append(row)
            try:
                path, feeds = model_files(name, row.source, directory)
                om = compile_om(path, feeds, directory / name)
                if isinstance(om, str):
                    row.failure = f"does not compile: {om}"
                    continue
                for threads in thread_counts:
                    row.timings[threads], row.error, row.runs_as = timed(
                        om, path, feeds, threads, args.runs
                    )
            except Exception as error:  # a failure is a result of this bench
                row.failure = (
                    f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"
                )
            print(f"{name}: {row.timings or row.failure}", file=sys.stderr, flush=True)
    text = table(rows, thread_counts)
    print(text)
    if not args.no_write and not args.models and args.source is None:
        RESULTS.write_text(f"# ge-run vs onnxruntime on the zoo\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
