"""Benchmarks of the memory plan and the kernel runtime, in one run:

(a) per light model of the onnx package (seeded random weights, the format
    pipeline, then `plan-memory`): the chosen arena (peak) against the lower
    bound (largest total of simultaneously live bytes), InfiniTensor's
    first-fit allocator, and no reuse; also without in-place reuse
    (goal: peak <= 1.05 x lower bound on every model);
(b) ResNet-50 on the kernel runtime: default kernels against the kernels
    the performance engine picks (tuning once, records reused), best of
    `--repeat` runs each (goal: tuned never slower beyond noise).

    python bench/bench_memory.py [--threads 2] [--repeat 5] [--skip-resnet]

Thread counts are fixed before NumPy loads (BLAS).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="BLAS threads")
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs (best is reported)"
    )
    parser.add_argument("--skip-resnet", action="store_true", help="only part (a)")
    parser.add_argument("--models", nargs="*", help="light model names (default: all)")
    return parser.parse_args(argv)


def compiled_light(name: str, input_seed: int = 0):
    """(module after the format pipeline, laid-out weights, one input)."""
    import numpy as np

    from ge_dialect.constants import derive_storage_weights
    from ge_dialect.dialect import make_context
    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import light_model
    from ge_runtime.graph_io import find_graph, input_specs
    from passes.format_pipeline import FormatPipelinePass

    imported = import_onnx(light_model(name))
    module = imported.module
    FormatPipelinePass(data_format="NCHW").apply(make_context(), module)
    weights = {
        **imported.weights,
        **derive_storage_weights(module, imported.weights, None),
    }
    (spec,) = input_specs(find_graph(module))
    rng = np.random.default_rng(input_seed)
    x = rng.standard_normal(spec.shape).astype(np.float32)
    return module, weights, x


def mib(size: int) -> str:
    return f"{size / 2**20:8.2f}"


def bench_plans(names: list[str]) -> None:
    """(a) the memory table."""
    from ge_runtime.graph_io import find_graph
    from passes.memory_planning import check_graph_plan
    from passes.plan_memory import annotate, plan_graph

    print("(a) arena per light model, MiB (ratios to the lower bound)")
    print(
        f"{'model':<14} {'buffers':>7} {'peak':>8} {'bound':>8} {'ratio':>6} "
        f"{'first-fit':>9} {'ratio':>6} {'no-reuse':>8} {'ratio':>6} "
        f"{'no-inplace':>10} {'strategy':<14}"
    )
    worst = 0.0
    for name in names:
        module, _, _ = compiled_light(name)
        graph = find_graph(module)
        plan = plan_graph(graph)
        annotate(graph, plan)
        check_graph_plan(graph)
        copy = plan_graph(graph, in_place=False).report
        r = plan.report
        bound = r.lower_bound_bytes
        worst = max(worst, r.peak_bytes / bound)
        print(
            f"{name:<14} {r.buffers:>7} {mib(r.peak_bytes)} {mib(bound)} "
            f"{r.peak_bytes / bound:>6.3f} {mib(r.first_fit_bytes):>9} "
            f"{r.first_fit_bytes / bound:>6.3f} {mib(r.no_reuse_bytes)} "
            f"{r.no_reuse_bytes / bound:>6.2f} {mib(copy.peak_bytes):>10} "
            f"{r.strategy:<14}"
        )
    print(f"worst peak / lower bound: {worst:.3f} (goal <= 1.05)")


def interleaved_best(runs: dict[str, Callable[[], object]], repeat: int):
    """Best time of each run over `repeat` rounds that run each in turn (so a
    change in machine load hits all of them alike)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def bench_tuning(repeat: int) -> None:
    """(b) ResNet-50: default kernels vs tuned kernels on the kernel runtime."""
    import numpy as np

    from ge_runtime.engines.executor import Runtime
    from ge_runtime.engines.tuning import PerfEngine
    from ge_runtime.graph_io import find_graph
    from ge_runtime.offline.timing import Profiler
    from passes.plan_memory import annotate, plan_graph

    module, weights, x = compiled_light("resnet50")
    graph = find_graph(module)
    annotate(graph, plan_graph(graph))
    default = Runtime(graph, weights)
    start = time.perf_counter()
    (expected,) = default.run({0: x})
    first_default = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as scratch:
        records = Path(scratch) / "tuning.json"
        start = time.perf_counter()
        tuning = Runtime(graph, weights, engine=PerfEngine(records))
        tuning.run({0: x})
        tune_seconds = time.perf_counter() - start
        engine = PerfEngine(records)
        tuned = Runtime(graph, weights, engine=engine)
        (got,) = tuned.run({0: x})
        best = interleaved_best(
            {
                "default": lambda: default.run({0: x}),
                "tuned": lambda: tuned.run({0: x}),
            },
            repeat,
        )
        default_best, tuned_best = best["default"], best["tuned"]
    error = float(np.abs(got - expected).max() / np.abs(expected).max())
    chosen: dict[str, int] = {}
    for record in engine.records.values():
        chosen[record.kernel] = chosen.get(record.kernel, 0) + 1
    print("\n(b) ResNet-50 on the kernel runtime (1x3x224x224)")
    print(f"first run, default kernels (JIT compiles): {first_default:8.2f} s")
    print(f"first run, tuning every signature:          {tune_seconds:8.2f} s")
    print(
        f"tuned run reused {len(engine.reused)} records "
        f"({len(engine.records)} signatures), kernels chosen: {chosen}"
    )
    print(f"default kernels, best of {repeat} (interleaved): {default_best:8.3f} s")
    print(f"tuned kernels,   best of {repeat} (interleaved): {tuned_best:8.3f} s")
    print(f"speedup {default_best / tuned_best:.2f}x, max rel. difference {error:.1e}")
    profile = Profiler()
    tuned.profiler = profile
    tuned.run({0: x})
    print("tuned run profile:")
    for line in profile.lines():
        print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from ge_frontend.onnx_weights import light_model_names

    names = args.models or light_model_names()
    bench_plans(names)
    if not args.skip_resnet:
        bench_tuning(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
