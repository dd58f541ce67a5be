"""Real exports through `ge-atc`: what compiles, how fast, how exact.

Every model of the test zoo (`tests/model_zoo`: BERT, GPT-2 and ViT from
`transformers` configs, MobileNetV2, a YOLO-style head, a YOLOv8-shaped
detector, a CRNN recogniser, LSTM, GRU + RNN,
`If` and `Loop` models; seeded weights, exported by torch here), and the
trained models shipped in PyPI packages when installed (`pip install -e
".[shipped-models]"`; magika, silero-vad, RapidOCR's PP-OCR), goes through
the user's path: `ge-atc --model M.onnx --framework=5 --input_shape ...`
in-process, then the offline model through the runtime (`ge-run`'s
scheduler) against onnxruntime on the same seeded inputs. Per model and
exporter it prints:

- ONNX nodes, `ge` ops after the compile, compile seconds (ge-atc's whole
  compile, import included) or the one-line error ge-atc printed;
- runtime TransData in the final IR, where each sits (`producer ->
  consumer`) and why it could not move (`--reasons`: which neighbour refused
  which format, as `ge-atc --report-transdata` prints it; recorded by the
  format passes, `passes/transdata_report.py`);
- max |ours - onnxruntime| / max |onnxruntime| over all outputs;
- seconds per inference (median of interleaved runs) for ours and for
  onnxruntime with the same thread count.

With `--dynamic` the dynamic-batch exports are compiled without
`--input_shape` and run (host scheduling) at batch 1 and 3.

    python bench/bench_models.py                     # every model, static
    python bench/bench_models.py bert vit --dynamic  # some, dynamic too
    python bench/bench_models.py --exporter torchscript --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Status:
    """One compile-and-run of one model export."""

    model: str
    exporter: str
    batch: str
    onnx_nodes: int = 0
    ops: int | None = None
    compile_seconds: float | None = None
    error: str | None = None
    transdata: int | None = None
    transdata_sites: list[str] = field(default_factory=list)
    max_error: float | None = None
    """max |ours - onnxruntime| / max |onnxruntime| over the outputs."""
    schedule: str = ""
    seconds: float | None = None
    ort_seconds: float | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help="zoo names")
    parser.add_argument("--exporter", choices=("dynamo", "torchscript", "all"))
    parser.add_argument("--dynamic", action="store_true", help="dynamic batch too")
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="threads of ours (C kernels, BLAS) and onnxruntime",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument(
        "--reasons", action="store_true", help="why each TransData could not move"
    )
    return parser.parse_args(argv)


def interleaved_medians(runs: dict, repeat: int) -> dict[str, float]:
    """Median seconds of each run, the runs taking turns (after a warm-up)."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def measure(
    name: str, exporter: str, dynamic: bool, args: argparse.Namespace, work: Path
) -> list[Status]:
    """Compile one export and run it (static: the export batch; dynamic: 1, 3)."""
    import model_zoo
    import onnx

    from ge_runtime.engines.scheduler import compile_model
    from ge_runtime.offline.om import load_offline_model
    from passes.transdata_report import recording_refusals

    label = "dynamic" if dynamic else f"{model_zoo.EXPORT_BATCH}"
    if exporter == "shipped":
        label = "fixed"
        path = model_zoo.shipped_path(name)
        if path is None:
            package = model_zoo.SHIPPED[name].distribution
            return [Status(name, exporter, "-", error=f"{package} is not installed")]
    else:
        path = model_zoo.export(name, exporter=exporter, dynamic_batch=dynamic)
    base = Status(name, exporter, label, len(onnx.load(path).graph.node))
    shapes = None
    if not dynamic:
        shapes = model_zoo.input_shape_flag(model_zoo.sample_inputs(name))
    om = work / f"{name}-{exporter}-{label}"
    with recording_refusals() as ledger:
        base.compile_seconds, base.error = model_zoo.compile_with_atc(path, om, shapes)
    if base.error is not None:
        return [base]
    offline = load_offline_model(f"{om}.om")
    module = offline.module()
    base.ops = sum(1 for _ in module.walk()) - 1
    base.transdata = len(ledger.sites)
    base.transdata_sites = [
        site.text() if args.reasons else site.line() for site in ledger.sites
    ]
    compiled = compile_model(module, offline.weights, target=offline.target)
    rows = []
    for batch in (1, 3) if dynamic else (model_zoo.EXPORT_BATCH,):
        row = Status(**asdict(base))
        row.batch = f"{label}:{batch}" if dynamic else label
        row.schedule = compiled.mode
        try:
            run_and_time(
                row, compiled, path, model_zoo.sample_inputs(name, batch), args
            )
        except Exception as error:  # a run-time failure is a result here
            row.error = f"run: {type(error).__name__}: {str(error).splitlines()[0]}"
        rows.append(row)
    return rows


def run_and_time(row, compiled, path: Path, feeds, args) -> None:
    """Fill in `row`'s error against onnxruntime and both times per inference
    (`max_error`, `seconds`, `ort_seconds`), at `args.threads`, interleaved."""
    import model_zoo
    import onnxruntime as ort

    expected = model_zoo.onnxruntime_outputs(path, feeds, args.threads)
    row.max_error = model_zoo.relative_error(compiled.run(feeds), expected)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    session = ort.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
    medians = interleaved_medians(
        {"ours": lambda: compiled.run(feeds), "ort": lambda: session.run(None, feeds)},
        args.repeat,
    )
    row.seconds, row.ort_seconds = medians["ours"], medians["ort"]


def format_row(row: Status) -> str:
    """One table line."""

    def num(value, spec):
        return "–" if value is None else format(value, spec)

    ratio = (
        f"{row.seconds / row.ort_seconds:.2f}"
        if row.seconds is not None and row.ort_seconds
        else "–"
    )
    cells = [
        f"{row.model:<16}{row.exporter:<12}{row.batch:<10}",
        f"{row.onnx_nodes:>6}{num(row.ops, 'd'):>6}",
        f"{num(row.compile_seconds, '.2f'):>8}",
        f"{num(row.transdata, 'd'):>4}",
        f"{num(row.max_error, '.1e'):>9}",
        f"{num(row.seconds, '.4f'):>9}{num(row.ort_seconds, '.4f'):>9}{ratio:>7}",
        f"  {row.schedule}",
    ]
    line = "".join(cells)
    if row.error:
        line += f"\n    error: {row.error}"
    for site in row.transdata_sites:
        first, *reasons = site.splitlines()
        line += "".join([f"\n    transdata: {first}", *(f"\n    {r}" for r in reasons)])
    return line


def main(argv: list[str] | None = None) -> int:
    """Print the status table (exit 0: this bench reports, it does not judge)."""
    args = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import model_zoo

    from ge_runtime.engines.threads import set_threads

    set_threads(args.threads)  # ours at onnxruntime's thread count

    names = args.models or [*model_zoo.MODELS, *model_zoo.SHIPPED]
    for name in names:
        model_zoo.model_spec(name)
    print(f"cpus {os.cpu_count()}, threads {args.threads}, load average", end=" ")
    print(" ".join(f"{load:.1f}" for load in os.getloadavg()))
    header = (
        f"{'model':<16}{'exporter':<12}{'batch':<10}{'nodes':>6}{'ops':>6}"
        f"{'compile':>8}{'TD':>4}{'max err':>9}{'ours s':>9}{'ort s':>9}"
        f"{'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    rows: list[Status] = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            if name in model_zoo.SHIPPED:
                for row in measure(name, "shipped", False, args, Path(scratch)):
                    rows.append(row)
                    print(format_row(row), flush=True)
                continue
            exporters = model_zoo.model_spec(name).exporters
            if args.exporter not in (None, "all"):
                exporters = tuple(e for e in exporters if e == args.exporter)
            elif args.exporter is None:
                exporters = exporters[:1]
            for exporter in exporters:
                for dynamic in (False, True) if args.dynamic else (False,):
                    for row in measure(name, exporter, dynamic, args, Path(scratch)):
                        rows.append(row)
                        print(format_row(row), flush=True)
    ok = sum(r.error is None and (r.max_error or 0) <= 1e-3 for r in rows)
    print(f"{ok} of {len(rows)} runs compile and match onnxruntime (<= 1e-3)")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
