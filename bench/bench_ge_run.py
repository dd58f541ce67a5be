"""`ge-run`'s own path against onnxruntime: speed, cold start, peak memory.

Each model is compiled by `ge-atc` (a subprocess, as a user runs it) into an
offline model. Then, per model, at the same thread count (`--threads`,
default 1; C kernels and BLAS for ours, intra-op threads for onnxruntime):

- **steady state**: in this process the offline model is loaded and
  scheduled exactly as `ge-run` does (`load_offline_model`,
  `compile_model`, `CompiledModel.run`), next to an onnxruntime session;
  after a warm-up each, `--runs` inferences of each are interleaved (so a
  change in machine load hits both alike); medians, and the ratio;
- **cold start**: `ge-run M.om --random-inputs` as a subprocess, twice (the
  first from an empty code cache, which the kernels the `.om` carries fill,
  the second a repeated cold run), against a script that loads the `.onnx`
  into onnxruntime and runs once; wall seconds and peak RSS (the
  children's `ru_maxrss`).

The load average is printed with the table. Models: the onnx package's light
zoo (`ge_frontend.onnx_weights.light_model`, seeded weights) and the test
zoo's exports (`tests/model_zoo`: MobileNetV2/V3, BERT, ViT, a log-mel
front end).

    python bench/bench_ge_run.py                          # every model
    python bench/bench_ge_run.py resnet50 squeezenet --runs 20 --threads 1
    python bench/bench_ge_run.py --no-cold --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# ge-run's process setting (tools/__init__.py), before NumPy loads OpenBLAS
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

ROOT = Path(__file__).resolve().parent.parent

LIGHT = ("resnet50", "squeezenet", "shufflenet", "inception_v2", "densenet121")
ZOO = ("mobilenet_v2", "mobilenet_v3", "bert", "vit", "mel_frontend")
MODELS = LIGHT + ZOO
ZOO_EXPORTERS = {"mel_frontend": "torchscript"}
"""Zoo models exported by torch's legacy tracer, not dynamo: its export of
the log-mel front end keeps the Clip whose floor is computed from the data
(`max(db) - 80`), the run-time value that once host-scheduled the graph."""


@dataclass
class Row:
    """One model's numbers (seconds, MiB)."""

    model: str
    ours_ms: float
    ort_ms: float
    ratio: float
    cpu_ratio: float
    max_error: float
    cold_first_s: float | None = None
    cold_s: float | None = None
    ort_cold_s: float | None = None
    rss_mib: float | None = None
    ort_rss_mib: float | None = None


def onnx_model(name: str, directory: Path) -> tuple[Path, dict]:
    """The `.onnx` file of a model and seeded inputs (name -> array)."""
    import numpy as np
    import onnx

    if name in LIGHT:
        from ge_frontend.onnx_weights import light_model

        path = directory / f"{name}.onnx"
        if not path.is_file():
            onnx.save(light_model(name, seed=0), path)
        model = onnx.load(path, load_external_data=False)
        rng = np.random.default_rng(1)
        weights = {tensor.name for tensor in model.graph.initializer}
        feeds = {
            i.name: rng.standard_normal(
                [d.dim_value for d in i.type.tensor_type.shape.dim]
            ).astype(np.float32)
            for i in model.graph.input
            if i.name not in weights
        }
        return path, feeds
    sys.path.insert(0, str(ROOT / "tests"))
    import model_zoo

    exporter = ZOO_EXPORTERS.get(name)  # None: the model's first exporter
    return model_zoo.export(name, exporter=exporter), model_zoo.sample_inputs(name)


def compile_om(onnx_path: Path, directory: Path, name: str) -> Path | str:
    """`ge-atc` on the model (its shapes are static): the `.om` path, or the
    error line ge-atc printed."""
    output = directory / name
    if not output.with_suffix(".om").is_file():
        done = subprocess.run(
            [
                "ge-atc",
                f"--model={onnx_path}",
                "--framework=5",
                "--soc_version=Ascend910",
                f"--output={output}",
                "--log=error",
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            return done.stderr.strip().splitlines()[-1]
    return output.with_suffix(".om")


def steady_state(om: Path, onnx_path: Path, feeds: dict, threads: int, runs: int):
    """Median ms per inference (wall and CPU time) of ours and onnxruntime,
    and the max error. CPU time (this process's, one thread each) is what a
    shared machine's load disturbs least."""
    import numpy as np
    import onnxruntime as ort

    from ge_runtime.engines.scheduler import compile_model
    from ge_runtime.engines.served import freeze_for_serving
    from ge_runtime.engines.threads import set_threads
    from ge_runtime.graph_io import find_graph
    from ge_runtime.offline.om import load_offline_model

    set_threads(threads)
    offline = load_offline_model(om)
    graph = find_graph(offline.module())
    model = compile_model(graph, offline.weights, target=offline.target)
    freeze_for_serving()  # as ge-run does
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(onnx_path), options, providers=["CPUExecutionProvider"]
    )
    ours = model.run(feeds)
    theirs = session.run(None, feeds)
    error = max(
        float(np.abs(a.astype(np.float64) - b).max() / max(np.abs(b).max(), 1e-30))
        for a, b in zip(ours, theirs, strict=True)
    )
    times: dict[str, list[float]] = {
        "ours": [],
        "ort": [],
        "ours cpu": [],
        "ort cpu": [],
    }
    for _ in range(runs):
        for label, run in (
            ("ours", lambda: model.run(feeds)),
            ("ort", lambda: session.run(None, feeds)),
        ):
            start, cpu = time.perf_counter(), time.process_time()
            run()
            times[label].append(time.perf_counter() - start)
            times[f"{label} cpu"].append(time.process_time() - cpu)
    return {label: 1e3 * statistics.median(t) for label, t in times.items()}, error


ORT_SCRIPT = """
import sys, numpy as np, onnxruntime as ort, onnx
path, threads = sys.argv[1], int(sys.argv[2])
options = ort.SessionOptions()
options.intra_op_num_threads = threads
options.inter_op_num_threads = 1
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
feeds = {}
for i in session.get_inputs():
    shape = [d if isinstance(d, int) else 1 for d in i.shape]
    kind = i.type
    if "int" in kind:
        feeds[i.name] = np.ones(shape, np.int64)
    else:
        feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
session.run(None, feeds)
"""


def timed_child(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of a child process.

    Started through `/usr/bin/time` when there is one: Linux starts a forked
    child's peak RSS at its parent's, and this process is large by now.
    """
    wrapper = ["/usr/bin/time", "-f", "%M"] if Path("/usr/bin/time").is_file() else []
    start = time.perf_counter()
    process = subprocess.Popen(
        [*wrapper, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    _, stderr = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {stderr[-500:]}")
    if wrapper:
        return wall, int(stderr.strip().splitlines()[-1]) / 1024  # KiB
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, usage.ru_maxrss / 1024


def cold_start(om: Path, onnx_path: Path, threads: int, scratch: Path):
    """(first ge-run s, repeated ge-run s, onnxruntime s, our MiB, their MiB).

    The two `ge-run`s share a code cache of their own, empty before the
    first (this process's compile filled the default one)."""
    env = {**os.environ, "GE_XDSL_CACHE": str(scratch / f"cache-{om.stem}")}
    argv = [
        "ge-run",
        str(om),
        "--random-inputs",
        f"--threads={threads}",
        f"--output-dir={scratch / 'out'}",
    ]
    first, _ = timed_child(argv, env)
    again, rss = timed_child(argv, env)
    ort_wall, ort_rss = timed_child(
        [sys.executable, "-c", ORT_SCRIPT, str(onnx_path), str(threads)]
    )
    return first, again, ort_wall, rss, ort_rss


def table(rows: list[Row], threads: int) -> str:
    """The Markdown table."""
    from ge_runtime.jit.c_runtime import kernel_status

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"`ge-run` path vs onnxruntime, {threads} thread(s), load average {load}; "
        f"loop nests: {kernel_status()}:",
        "",
        "| model | ge-run ms | onnxruntime ms | ratio (CPU time) | max rel. error "
        "| cold ge-run s (first, repeated) | onnxruntime cold s "
        "| peak RSS MiB (ours / ort) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cold = "–" if r.cold_s is None else f"{r.cold_first_s:.2f}, {r.cold_s:.2f}"
        ort_cold = "–" if r.ort_cold_s is None else f"{r.ort_cold_s:.2f}"
        rss = (
            "–"
            if r.rss_mib is None
            else f"{r.rss_mib:.0f} / {r.ort_rss_mib:.0f} "
            f"({r.rss_mib / r.ort_rss_mib:.2f}x)"
        )
        lines.append(
            f"| {r.model} | {r.ours_ms:.1f} | {r.ort_ms:.1f} "
            f"| {r.ratio:.2f}x ({r.cpu_ratio:.2f}x) "
            f"| {r.max_error:.1e} | {cold} | {ort_cold} | {rss} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-cold", action="store_true", help="skip cold starts")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="where .onnx/.om files are kept (default: a temporary directory)",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    rows: list[Row] = []
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(args.cache or temporary)
        directory.mkdir(parents=True, exist_ok=True)
        for name in args.models:
            onnx_path, feeds = onnx_model(name, directory)
            om = compile_om(onnx_path, directory, name)
            if isinstance(om, str):
                failures.append(f"- {name}: does not compile: {om}")
                print(failures[-1], file=sys.stderr, flush=True)
                continue
            medians, error = steady_state(om, onnx_path, feeds, args.threads, args.runs)
            ours, theirs = medians["ours"], medians["ort"]
            cpu = medians["ours cpu"] / medians["ort cpu"]
            row = Row(name, ours, theirs, ours / theirs, cpu, error)
            if not args.no_cold:
                (
                    row.cold_first_s,
                    row.cold_s,
                    row.ort_cold_s,
                    row.rss_mib,
                    row.ort_rss_mib,
                ) = cold_start(om, onnx_path, args.threads, Path(temporary))
            rows.append(row)
            print(f"{name}: {row}", file=sys.stderr, flush=True)
    print(table(rows, args.threads))
    if failures:
        print("\n" + "\n".join(failures))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
