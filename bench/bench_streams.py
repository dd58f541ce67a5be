"""Benchmark of multi-stream execution (`assign-streams` + `StreamRuntime`):
Inception-v1, Inception-v2 and DenseNet-121 (the onnx package's `light_`
models, seeded random weights, 1x3x224x224) run with 1 and with 2 streams.

    python bench/bench_streams.py [--blas-threads 1] [--repeat 10]
                                  [--models inception_v1,inception_v2,densenet121]

Both configurations run the same kernels (`ge_runtime.engines.kernels` defaults) in
one arena laid out by `plan-memory`; one stream is the sequential block
order. Runs alternate between the two so that load from other processes
hits both alike; the best and the median are reported, with the speedup of
each. Also printed per model: streams and events used, the arena with one
and two streams, the cost model's estimated speedup (`assign-streams`'
makespans) and its bound for any number of streams (total work over the
critical path), the measured overlap (time when both streams were busy, over
the run), the cores used (process CPU time over wall time) and the summed
op times: if the streams overlap but the ops get slower by as much, the
threads shared one core.

A control measures what the machine can give two threads at all: the same
BLAS work (`--blas-threads` each) on one thread twice vs two threads at
once. If that control is ~1x (other processes hold the cores), no stream
speedup can show either. BLAS threads are fixed before NumPy loads: with 2
BLAS threads on 2 cores each GEMM already uses both cores, so 1 (the
default) is where stream parallelism has room.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

DEFAULT_MODELS = "inception_v1,inception_v2,densenet121"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blas-threads", type=int, default=1, help="BLAS threads")
    parser.add_argument(
        "--repeat", type=int, default=10, help="timed runs per configuration"
    )
    parser.add_argument(
        "--models", default=DEFAULT_MODELS, help="comma-separated light model names"
    )
    return parser.parse_args(argv)


def control(repeat: int) -> float:
    """Speedup of two threads of GEMMs over one thread doing both."""
    import threading

    import numpy as np

    a = np.random.default_rng(0).standard_normal((384, 384)).astype(np.float32)

    def work() -> None:
        for _ in range(40):
            a @ a

    speedups = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        work()
        sequential = time.perf_counter() - start
        threads = [threading.Thread(target=work) for _ in range(2)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        speedups.append(sequential / (time.perf_counter() - start))
    return statistics.median(speedups)


def streamed(module, streams: int):
    """The graph after assign-streams{max-streams} and plan-memory."""
    from xdsl.context import Context

    from ge_runtime.graph_io import find_graph
    from passes.assign_streams import AssignStreamsPass
    from passes.plan_memory import PlanMemoryPass

    module = module.clone()
    AssignStreamsPass(max_streams=streams).apply(Context(), module)
    PlanMemoryPass().apply(Context(), module)
    return find_graph(module)


def dag_bound(graph) -> float:
    """Total estimated work over the critical path: the most any number of
    streams could gain (1.0: every op is on the critical path)."""
    from passes.assign_streams import cost_us
    from passes.stream_planning import scheduled_ops

    finish: dict = {}
    for op in scheduled_ops(graph):
        ready = [finish[v.owner] for v in op.operands if v.owner in finish]
        finish[op] = max(ready, default=0.0) + cost_us(op)
    return sum(cost_us(op) for op in finish) / max(finish.values())


def overlap(timings) -> float:
    """Seconds during which both streams ran an op."""
    busy = {0: [], 1: []}
    for timing in timings:
        busy[timing.stream].append((timing.start, timing.end))
    return sum(
        max(0.0, min(a_end, b_end) - max(a_start, b_start))
        for a_start, a_end in busy[0]
        for b_start, b_end in busy[1]
    )


def bench_model(name: str, repeat: int) -> None:
    import numpy as np
    from bench_memory import compiled_light

    from ge_runtime.engines.streams import StreamRuntime
    from passes.assign_streams import assign_graph
    from passes.memory_planning import graph_arena_size
    from passes.stream_planning import read_streams

    start = time.perf_counter()
    module, weights, x = compiled_light(name, input_seed=1)
    runtimes, arenas, plans, makespans = {}, {}, {}, {}
    for streams in (1, 2):
        graph = streamed(module, streams)
        runtimes[streams] = StreamRuntime(graph, weights)
        arenas[streams] = graph_arena_size(graph)
        plans[streams] = read_streams(graph)
        makespans[streams] = assign_graph(runtimes[streams].graph, streams).makespan_us
    prepared = time.perf_counter() - start
    outputs = {n: runtimes[n].run({0: x})[0] for n in (1, 2)}  # warm-up: JIT
    same = np.array_equal(outputs[1], outputs[2])
    times: dict[int, list[float]] = {1: [], 2: []}
    cores: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float]] = {1: [], 2: []}
    overlaps = []
    for _ in range(repeat):
        for streams in (1, 2):
            start, cpu = time.perf_counter(), time.process_time()
            runtimes[streams].run({0: x})
            times[streams].append(time.perf_counter() - start)
            cores[streams].append((time.process_time() - cpu) / times[streams][-1])
            timings = runtimes[streams].timings
            busy[streams].append(sum(t.end - t.start for t in timings))
        overlaps.append(overlap(runtimes[2].timings) / times[2][-1])
    best = {n: min(t) for n, t in times.items()}
    median = {n: statistics.median(t) for n, t in times.items()}
    used = {n: statistics.median(c) for n, c in cores.items()}
    op_time = {n: statistics.median(b) for n, b in busy.items()}
    plan = plans[2]
    print(
        f"{name}: {len(runtimes[1].steps)} ops; 2 streams used {plan.count}, "
        f"{plan.events} events; arena {arenas[1] / 2**20:.2f} -> "
        f"{arenas[2] / 2**20:.2f} MiB; outputs bitwise equal: {same} "
        f"(prepared in {prepared:.0f} s)"
    )
    for n in (1, 2):
        label = "1 stream " if n == 1 else "2 streams"
        extra = (
            f", overlap {100 * statistics.median(overlaps):.0f}% of the run"
            if n == 2
            else ""
        )
        print(
            f"  {label}: best {1e3 * best[n]:7.1f} ms  median "
            f"{1e3 * median[n]:7.1f} ms  (cores used {used[n]:.2f}, op time "
            f"{1e3 * op_time[n]:7.1f} ms{extra})"
        )
    print(
        f"  speedup  : best {best[1] / best[2]:.2f}x  median "
        f"{median[1] / median[2]:.2f}x  (cost model: "
        f"{makespans[1] / makespans[2]:.2f}x, bound for any stream count "
        f"{dag_bound(runtimes[1].graph):.2f}x)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.blas_threads)
    os.environ["OMP_NUM_THREADS"] = str(args.blas_threads)
    os.environ["MKL_NUM_THREADS"] = str(args.blas_threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    print(
        f"cpus {os.cpu_count()}, BLAS threads {args.blas_threads}, "
        f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}"
    )
    print(f"control: two threads of GEMMs run {control(5):.2f}x faster than one")
    for name in args.models.split(","):
        bench_model(name, args.repeat)
    print(f"control: two threads of GEMMs run {control(5):.2f}x faster than one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
