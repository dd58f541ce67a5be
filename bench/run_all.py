"""Every benchmark in one run: one table, also written as JSON and Markdown.

    python bench/run_all.py                     # everything (~25 min on 2 cores)
    python bench/run_all.py --quick             # a sanity run (2 models, 1k/10k)
    python bench/run_all.py --fuzz 2000         # and the long differential fuzz
    python bench/run_all.py --only compile,memory --models resnet50

One row per `light/` ONNX model (the onnx package's model zoo, seeded random
weights, 1x3x224x224 fp32) and per synthetic graph of 1k/10k/100k ops
(`bench_infer.build_graph`):

- compile: `ge-format-pipeline` seconds (median of `--repeat` runs, each on
  a fresh import) against the floor, xDSL parsing and printing the same
  module in the same run (`bench_format_pipeline.run_pipeline`);
- TransData: runtime TransData right after `insert-transdata`, after GE's
  optimisation passes, after all passes, and the bound the project holds
  itself to (`bench_format_pipeline.measure_counts`, `TRANSDATA_BOUND`);
- JIT: seconds per inference of what `ge-run` runs (the model compiled by
  `ge-atc`, scheduled and run as `ge-run` does) against onnxruntime with
  the same thread count, medians of interleaved runs, and the max relative
  error (`bench_ge_run.steady_state`);
- memory: the arena `plan-memory` chooses against the lower bound,
  InfiniTensor's first-fit and no reuse (`bench_memory.compiled_light`).

Below the table: the JIT against xDSL's interpreter on a small loop module
(`bench_jit.time_interpreter`), fusion against no fusion
(`bench_fusion.bench_model`), the fuzz campaign (`--fuzz N`,
`tests/fuzz/campaign.py`) and the multi-stream bench's own report
(`bench_streams.py`, run as a subprocess: it needs one BLAS thread), and
`bench_ge_run.py`'s table at one thread with cold starts and peak RSS (also
a subprocess), the light models plus MobileNetV2/V3, BERT and ViT.

Results go to `bench/results/latest.{json,md}` (`--quick`: `quick.*`,
`--only`: `partial.*`). Thread counts are fixed before NumPy loads (BLAS)
and given to onnxruntime.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"

SECTIONS = (
    "compile",
    "transdata",
    "jit",
    "memory",
    "interpreter",
    "fusion",
    "streams",
    "gerun",
)
"""What runs (`--only`); the fuzz campaign runs with `--fuzz N` (`--only fuzz`:
nothing else, 2000 graphs unless `--fuzz` says)."""

QUICK_MODELS = ("squeezenet", "resnet50")
SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 models, fewer runs")
    parser.add_argument("--threads", type=int, default=2, help="BLAS/ort threads")
    parser.add_argument("--repeat", type=int, help="runs per median (default 5; 2)")
    parser.add_argument("--models", nargs="+", help="light model names")
    parser.add_argument("--sizes", nargs="+", type=int, help="synthetic graph sizes")
    parser.add_argument(
        "--only", help=f"comma-separated sections (default all: {','.join(SECTIONS)})"
    )
    parser.add_argument(
        "--fuzz", type=int, default=0, metavar="N", help="fuzz N graphs"
    )
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (2 if args.quick else 5)
    args.sections = args.only.split(",") if args.only else list(SECTIONS)
    if unknown := sorted(set(args.sections) - {*SECTIONS, "fuzz"}):
        parser.error(f"unknown sections: {', '.join(unknown)}")
    if "fuzz" in args.sections:
        args.fuzz = args.fuzz or 2000
    return args


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def timed(function: Callable[[], Any]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the table: a light model or a synthetic graph."""

    name: str
    ops: int = 0
    compile_s: float | None = None
    floor_s: float | None = None
    transdata: list[int] | None = None
    """Runtime TransData after insert-transdata, GE's passes, all passes."""
    transdata_bound: int | None = None
    jit_s: float | None = None
    onnxruntime_s: float | None = None
    jit_error: float | None = None
    peak_mib: float | None = None
    bound_mib: float | None = None
    first_fit_mib: float | None = None
    no_reuse_mib: float | None = None
    notes: list[str] = field(default_factory=list)


def floor_seconds(module: Any, repeat: int) -> tuple[float, int]:
    """Median seconds of xDSL parsing + printing `module`'s text; its op count."""
    from bench_infer import context, to_text
    from xdsl.parser import Parser

    text = to_text(module)
    ctx = context()
    parsed = Parser(ctx, text).parse_module()
    runs = [
        timed(lambda: to_text(Parser(ctx, text).parse_module())) for _ in range(repeat)
    ]
    return median(runs), sum(1 for _ in parsed.walk()) - 1


def compile_model_row(row: Row, proto: Any, repeat: int) -> None:
    """Pipeline seconds (median, each on a fresh import) and the floor."""
    from bench_format_pipeline import run_pipeline

    from ge_frontend.onnx_import import import_onnx

    runs = [run_pipeline(proto, spread=True, beyond_ge=True)[2] for _ in range(repeat)]
    row.compile_s = median(runs)
    row.floor_s, row.ops = floor_seconds(import_onnx(proto).module, repeat)


def compile_synthetic_row(size: int, repeat: int) -> Row:
    """The pipeline on `bench_infer.build_graph(size)`, parsed from text."""
    from bench_infer import build_graph, context, to_text
    from xdsl.parser import Parser

    from passes.format_pipeline import FormatPipelinePass

    text = to_text(build_graph(size))
    ctx = context()
    pipeline = FormatPipelinePass(data_format="NCHW")
    runs = []
    for _ in range(repeat):
        module = Parser(ctx, text).parse_module()
        runs.append(timed(lambda m=module: pipeline.apply(ctx, m)))
    row = Row(f"synthetic {size // 1000}k ops", notes=[f"{repeat} runs"])
    row.compile_s = median(runs)
    row.floor_s, row.ops = floor_seconds(Parser(ctx, text).parse_module(), repeat)
    return row


def transdata_row(row: Row, proto: Any) -> None:
    from bench_format_pipeline import TRANSDATA_BOUND, measure_counts

    counts, _, _ = measure_counts(proto, spread=True)
    row.transdata = [counts.inserted, counts.ge_only, counts.optimised]
    row.transdata_bound = TRANSDATA_BOUND


def jit_row(row: Row, name: str, threads: int, repeat: int, scratch: Path) -> None:
    """ge-run's path (the `.om` from ge-atc through the scheduler) against
    onnxruntime (`bench_ge_run.steady_state`)."""
    from bench_ge_run import compile_om, onnx_model, steady_state

    onnx_path, feeds = onnx_model(name, scratch)
    om = compile_om(onnx_path, scratch, name)
    if isinstance(om, str):
        row.notes.append(f"jit skipped: {om}")
        return
    medians, error = steady_state(om, onnx_path, feeds, threads, repeat)
    row.jit_s, row.onnxruntime_s = medians["ours"] / 1e3, medians["ort"] / 1e3
    row.jit_error = error


def ge_run_report(models: Sequence[str], repeat: int) -> str:
    """`bench_ge_run.py`'s table at one thread, cold starts and peak RSS (a
    subprocess: its own BLAS thread count)."""
    command = [
        sys.executable,
        str(BENCH / "bench_ge_run.py"),
        *models,
        "--runs",
        str(max(repeat, 10)),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode:
        return f"{result.stdout}(exit {result.returncode}) {result.stderr[-500:]}"
    return result.stdout


def memory_row(row: Row, name: str) -> None:
    from bench_memory import compiled_light

    from ge_runtime.graph_io import find_graph
    from passes.plan_memory import plan_graph

    module, _, _ = compiled_light(name)
    report = plan_graph(find_graph(module)).report
    row.peak_mib = report.peak_bytes / 2**20
    row.bound_mib = report.lower_bound_bytes / 2**20
    row.first_fit_mib = report.first_fit_bytes / 2**20
    row.no_reuse_mib = report.no_reuse_bytes / 2**20


# ---------------------------------------------------------------------------
# The other benchmarks
# ---------------------------------------------------------------------------


def interpreter_summary(repeat: int) -> dict[str, float]:
    from bench_jit import time_interpreter

    timing = time_interpreter(repeat, interpreter_runs=repeat)
    interpreter, jit = median(timing.interpreter), median(timing.jit)
    return {
        "interpreter_s": interpreter,
        "jit_s": jit,
        "speedup": interpreter / jit,
        "max_error": timing.error,
    }


def fusion_summary(models: Sequence[str], threads: int, repeat: int) -> list[dict]:
    """`bench_fusion.bench_model` per model (its own report captured)."""
    import bench_fusion

    rows = []
    for name in models:
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            best = bench_fusion.bench_model(name, threads, repeat)
        rows.append({"model": name, **best, "report": report.getvalue()})
    return rows


def streams_report(models: Sequence[str], repeat: int) -> str:
    """`bench_streams.py`'s own report (a subprocess: one BLAS thread)."""
    command = [
        sys.executable,
        str(BENCH / "bench_streams.py"),
        "--repeat",
        str(repeat),
        "--models",
        ",".join(models),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode:
        return f"{result.stdout}(exit {result.returncode}) {result.stderr}"
    return result.stdout


def fuzz_summary(examples: int) -> dict[str, Any]:
    """The long differential fuzz profile (`tests/fuzz/campaign.py`)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fuzz.campaign import Campaign, run_campaign

    campaign = Campaign(examples)
    failure = None
    try:
        run_campaign(examples, campaign=campaign)
    except Exception as error:  # the shrunk failure; saved as a regression
        failure = " ".join(str(error).split())[:500]
    return {
        "graphs": campaign.graphs,
        "failures": campaign.failures,
        "seconds": campaign.seconds,
        "saved": [str(p.relative_to(ROOT)) for p in campaign.saved],
        "failure": failure,
    }


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def ratio(a: float | None, b: float | None, digits: int = 2) -> str:
    return "–" if a is None or not b else f"{a / b:.{digits}f}"


def number(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(rows: Sequence[Row]) -> str:
    """The results as one Markdown table."""
    lines = [
        "| graph | ops | pipeline s | parse+print s | ratio "
        "| TransData ins/GE/all (bound) | JIT s | onnxruntime s | JIT/ort "
        "| peak MiB | peak/bound | first-fit/bound | no-reuse/bound |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        transdata = (
            "–"
            if row.transdata is None
            else "/".join(map(str, row.transdata)) + f" ({row.transdata_bound})"
        )
        lines.append(
            f"| {row.name} | {row.ops or '–'} | {number(row.compile_s, 3)} "
            f"| {number(row.floor_s, 3)} | {ratio(row.compile_s, row.floor_s)} "
            f"| {transdata} | {number(row.jit_s, 3)} | {number(row.onnxruntime_s, 3)} "
            f"| {ratio(row.jit_s, row.onnxruntime_s)} | {number(row.peak_mib, 1)} "
            f"| {ratio(row.peak_mib, row.bound_mib, 3)} "
            f"| {ratio(row.first_fit_mib, row.bound_mib, 3)} "
            f"| {ratio(row.no_reuse_mib, row.bound_mib)} |"
        )
    return "\n".join(lines)


def summary_lines(results: dict[str, Any]) -> list[str]:
    """One line per benchmark outside the table."""
    lines = []
    if (interp := results.get("interpreter")) is not None:
        lines.append(
            f"- JIT vs xDSL interpreter (lowered NC1HWC0 conv 1x9x6x6 -> 1x4x6x6 + "
            f"sigmoid): interpreter {interp['interpreter_s']:.2f} s, JIT "
            f"{1e3 * interp['jit_s']:.3f} ms: {interp['speedup']:,.0f}x "
            f"(max difference {interp['max_error']:.1e})"
        )
    for fused in results.get("fusion", []):
        plain, fusion = fused["no fusion"], fused["fusion (default)"]
        lines.append(
            f"- fusion, {fused['model']}: no fusion {plain:.3f} s, graph fusion only "
            f"{fused['graph fusion only']:.3f} s, all fusion {fusion:.3f} s "
            f"({fusion / plain:.2f} of no fusion), onnxruntime "
            f"{fused['onnxruntime']:.3f} s (best of shuffled rounds); median "
            f"per-round CPU ratios: fusion / no fusion "
            f"{fused['fusion / no fusion']:.3f}, fusion / graph fusion only "
            f"{fused['fusion / graph fusion only']:.3f}"
        )
    if (fuzz := results.get("fuzz")) is not None:
        outcome = (
            "no mismatch"
            if not fuzz["failures"]
            else f"FAILED ({fuzz['failure']}); saved {', '.join(fuzz['saved'])}"
        )
        lines.append(
            f"- differential fuzzing: {fuzz['graphs']} random graphs through "
            f"ge-format-pipeline, lowering, the JIT and ge-atc's whole compile "
            f"against the reference in "
            f"{fuzz['seconds']:.0f} s: {outcome}"
        )
    return lines


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    parts = [
        f"Measured {meta['date']} on {meta['machine']}, {meta['threads']} threads "
        f"(BLAS and onnxruntime), medians of {meta['repeat']} runs "
        f"(`{meta['command']}`).",
        "",
    ]
    if results["rows"]:
        parts += [
            table([Row(**r) for r in results["rows"]]),
            "",
            "pipeline s: `ge-format-pipeline` (`ge-atc`'s format stages); "
            "parse+print s: xDSL parsing and printing the same module (the floor); "
            "TransData: runtime TransData after insert-transdata / after GE's "
            "passes / after all passes (the bound: one in, one out, two per "
            "channel shuffle); JIT s: seconds per inference, JIT vs onnxruntime; "
            "memory: the arena `plan-memory` picks, InfiniTensor's first-fit and "
            "no reuse, over the lower bound (the most bytes live at once).",
            "",
        ]
    parts += summary_lines(results)
    if gerun := results.get("gerun"):
        parts += ["", "`ge-run`'s own path (`bench/bench_ge_run.py`):", ""]
        parts += [gerun.rstrip()]
    if streams := results.get("streams"):
        parts += ["", "Multi-stream execution (`bench/bench_streams.py`):", "", "```"]
        parts += [streams.rstrip(), "```"]
    return "\n".join(parts) + "\n"


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"


def versions() -> dict[str, str]:
    from importlib import metadata

    return {
        name: metadata.version(name)
        for name in ("xdsl", "numpy", "onnx", "onnxruntime")
    }


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def run(args: argparse.Namespace, argv: Sequence[str]) -> dict[str, Any]:
    from bench_format_pipeline import MODELS

    from ge_frontend.onnx_weights import light_model

    models = args.models or (list(QUICK_MODELS) if args.quick else list(MODELS))
    scratch = Path(tempfile.mkdtemp(prefix="ge-bench-"))
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    sections = set(args.sections)
    rows: list[Row] = []
    results: dict[str, Any] = {}
    model_sections = sections & {"compile", "transdata", "jit", "memory"}
    for name in models if model_sections else ():
        started = time.perf_counter()
        row = Row(name)
        # seeded weights as every other section uses: real models' weights are
        # initializers (external), not splat placeholders xDSL expands on parse
        proto = light_model(name, seed=0)
        if "compile" in sections:
            compile_model_row(row, proto, args.repeat)
        if "transdata" in sections:
            transdata_row(row, proto)
        if "jit" in sections:
            jit_row(row, name, args.threads, args.repeat, scratch)
        if "memory" in sections:
            memory_row(row, name)
        rows.append(row)
        print(f"# {name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if "compile" in sections:
        for size in sizes:
            repeat = args.repeat if size < 100_000 else 1
            rows.append(compile_synthetic_row(size, repeat))
            print(f"# synthetic {size} ops done", file=sys.stderr)
    if "interpreter" in sections:
        results["interpreter"] = interpreter_summary(3 if args.quick else args.repeat)
    if "fusion" in sections:
        fused = [m for m in ("resnet50", "inception_v2") if m in models] or models[:1]
        results["fusion"] = fusion_summary(fused, args.threads, args.repeat)
    if "streams" in sections:
        streamed = [m for m in ("inception_v1", "densenet121") if m in models]
        results["streams"] = streams_report(streamed or models[:1], args.repeat)
    if "gerun" in sections:
        zoo = ["mobilenet_v2", "mobilenet_v3", "bert", "vit"]
        results["gerun"] = ge_run_report(
            [*models, *([] if args.quick else zoo)], args.repeat
        )
    if args.fuzz:
        results["fuzz"] = fuzz_summary(args.fuzz)
    results["rows"] = [asdict(row) for row in rows]
    results["meta"] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": versions(),
        "threads": args.threads,
        "repeat": args.repeat,
        "quick": args.quick,
        "command": " ".join(["python bench/run_all.py", *argv]),
    }
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the table, write the JSON and Markdown; 1 if fuzzing failed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path[:0] = [str(BENCH), str(ROOT)]
    results = run(args, argv)
    text = markdown(results)
    print(text)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    stem = "quick" if args.quick else "latest" if args.only is None else "partial"
    (args.output_dir / f"{stem}.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.output_dir / f"{stem}.md").write_text(text)
    print(f"wrote {args.output_dir / stem}.json and .md", file=sys.stderr)
    return 1 if results.get("fuzz", {}).get("failures") else 0


if __name__ == "__main__":
    sys.exit(main())
