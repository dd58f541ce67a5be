"""Benchmark of graph fusion (`fold-batch-norm`, `fuse-ops`), in one run.

ResNet-50 and Inception-v2 (`light_*` from the onnx package, seeded random
weights, 1x3x224x224) compiled by `ge-atc`'s compile three ways: without
fusion (`--disable-fusion`), with graph fusion only (batch norm folded,
UB fusion switched off) and with all fusion (the default). Each is sunk
whole and JIT-compiled. The three are timed in `--repeat` rounds of one run
each, in a shuffled order; then the default (all fusion) and onnxruntime
with the same thread count (its idle threads do not spin) the same way.
Reported: the best wall time and CPU time (of the process's threads) of
each and, as the ratios, the median over the rounds of the ratio within a
round, which cancels the load of other processes on a shared machine
drifting between rounds:

    python bench/bench_fusion.py [--threads 2] [--repeat 10] [--models resnet50 ...]

Fusion must not be slower than no fusion: the last line says whether it is
(median CPU-time ratio above 1 + `--noise`, default 3 %); the exit code is
1 if it is. Thread counts are fixed before NumPy loads (BLAS) and given to onnxruntime.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODELS = ("resnet50", "inception_v2")

VARIANTS = ("no fusion", "graph fusion only", "fusion (default)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="BLAS/ort threads")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs each")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument(
        "--noise", type=float, default=0.03, help="timing noise allowed (fraction)"
    )
    return parser.parse_args(argv)


@dataclass
class Variant:
    """One compiled form of a model, ready to time."""

    name: str
    run: Any
    groups: int
    vectorised: int
    scalar: int


def compile_options(variant: str) -> Any:
    """ge-atc's options for a variant (--disable-fusion, UB rules off, default)."""
    from ge_xdsl.atc import CompileOptions
    from passes.fuse_ops import fusion_rules

    if variant == "no fusion":
        return CompileOptions(input_format="NCHW", fusion=False)
    if variant == "graph fusion only":
        rules = fusion_rules().values()
        ub = tuple(rule.name for rule in rules if rule.category == "UBFusion")
        return CompileOptions(input_format="NCHW", fusion_off=ub)
    return CompileOptions(input_format="NCHW")


def compile_variant(name: str, imported: Any) -> Variant:
    """ge-atc's compile of a variant, sunk and JIT-compiled."""
    from ge_dialect.ops import FusedOp
    from ge_runtime.engines.scheduler import compile_model
    from ge_runtime.jit.compiler import compile_graph, graph_arguments
    from ge_xdsl.atc import compile_module

    module = imported.module.clone()
    options = compile_options(name)
    compiled = compile_module(module, imported.weights, options, progress=0)
    model = compile_model(compiled.module, compiled.weights)
    (part,) = model.parts  # static graph, no aclnn_only op: sunk in one part
    function = compile_graph(part.graph)
    groups = sum(isinstance(op, FusedOp) for op in part.graph.walk())

    def run(x: Any) -> Any:
        arguments = graph_arguments(part.graph, {0: x}, compiled.weights, None)
        return lambda: function(*arguments)

    return Variant(name, run, groups, function.vectorised, len(function.scalar_nests))


def time_rounds(
    calls: dict[str, Callable[[], Any]], repeat: int
) -> list[dict[str, tuple[float, float]]]:
    """`repeat` rounds, each timing every call once (wall, CPU) in a shuffled order."""
    import numpy as np

    order = list(calls)
    shuffle = np.random.default_rng(2).shuffle
    rounds = []
    for _ in range(repeat):
        times = {}
        shuffle(order)  # no variant always runs right after another
        for key in order:
            begin, begin_cpu = time.perf_counter(), time.process_time()
            calls[key]()
            times[key] = (time.perf_counter() - begin, time.process_time() - begin_cpu)
        rounds.append(times)
    return rounds


def onnxruntime_call(model: Any, threads: int, x: Any) -> Callable[[], Any]:
    """One inference of `model` on `x` with onnxruntime on `threads` threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle onnxruntime threads would spin into the next timed run.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    name = model.graph.input[0].name
    return lambda: session.run(None, {name: x})[0]


def bench_model(name: str, threads: int, repeat: int) -> dict[str, float]:
    """Time the variants, then fusion against onnxruntime; print the report.

    Returns the best wall time of each variant and of onnxruntime, and the
    median CPU-time ratios `fusion / no fusion` and `fusion / graph fusion
    only`.

    onnxruntime joins after the variants are compared: its allocator in the
    process changes how NumPy's buffers are mapped (more page faults).
    """
    import numpy as np

    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import light_model

    model = light_model(name, seed=0)
    start = time.perf_counter()
    imported = import_onnx(model)
    variants = [compile_variant(v, imported) for v in VARIANTS]
    prepare = time.perf_counter() - start
    dims = model.graph.input[0].type.tensor_type.shape.dim
    shape = [d.dim_value for d in dims]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    calls = {v.name: v.run(x) for v in variants}
    outputs = {key: np.asarray(call()[0]) for key, call in calls.items()}
    rounds = time_rounds(calls, repeat)
    reference = onnxruntime_call(model, threads, x)
    expected = reference()
    fused = "fusion (default)"
    ort_rounds = time_rounds({fused: calls[fused], "onnxruntime": reference}, repeat)
    wall = {key: min(r[key][0] for r in rounds) for key in calls}
    cpu = {key: min(r[key][1] for r in rounds) for key in calls}
    ort_wall = min(r["onnxruntime"][0] for r in ort_rounds)
    ort_cpu = min(r["onnxruntime"][1] for r in ort_rounds)
    print(
        f"{name} {'x'.join(map(str, shape))} fp32, {threads} threads, best of "
        f"{repeat} runs (shuffled rounds), wall / CPU seconds (compile of the 3 "
        f"variants {prepare:.1f} s; onnxruntime timed in rounds with fusion):"
    )
    for variant in variants:
        key = variant.name
        error = np.abs(outputs[key].reshape(expected.shape) - expected).max()
        print(
            f"  {key:<18} {wall[key]:.3f} / {cpu[key]:.3f}  "
            f"vs no fusion {wall['no fusion'] / wall[key]:4.2f}x / "
            f"{cpu['no fusion'] / cpu[key]:4.2f}x faster  "
            f"vs onnxruntime {wall[key] / ort_wall:4.2f}x / {cpu[key] / ort_cpu:4.2f}x"
            f"  {variant.groups} fused groups, {variant.vectorised} nests "
            f"({variant.scalar} scalar), max error "
            f"{error / np.abs(expected).max():.1e} x max|ref|"
        )
    print(f"  {'onnxruntime':<18} {ort_wall:.3f} / {ort_cpu:.3f}")
    medians = {}
    for kind, label in enumerate(("wall", "CPU")):
        medians[label] = {
            other: statistics.median(r[fused][kind] / r[other][kind] for r in rounds)
            for other in ("no fusion", "graph fusion only")
        }
        versus_ort = statistics.median(
            r[fused][kind] / r["onnxruntime"][kind] for r in ort_rounds
        )
        print(
            f"  {label} ratios (median per round): fusion / no fusion = "
            f"{medians[label]['no fusion']:.3f}, fusion / graph fusion only = "
            f"{medians[label]['graph fusion only']:.3f}, fusion / onnxruntime = "
            f"{versus_ort:.2f}"
        )
    return {
        **wall,
        "onnxruntime": ort_wall,
        "fusion / no fusion": medians["CPU"]["no fusion"],
        "fusion / graph fusion only": medians["CPU"]["graph fusion only"],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    slower = []
    for name in args.models:
        result = bench_model(name, args.threads, args.repeat)
        if result["fusion / no fusion"] > 1 + args.noise:
            slower.append(name)
    if slower:
        print(f"fusion is slower than no fusion on: {', '.join(slower)}")
        return 1
    print("fusion is not slower than no fusion on any model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
