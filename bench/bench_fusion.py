"""Benchmark of graph fusion (`fold-batch-norm`, `fuse-ops`), in one run.

ResNet-50 and Inception-v2 (`light_*` from the onnx package, seeded random
weights, 1x3x224x224) compiled by `ge-atc`'s compile three ways: without
fusion (`--disable-fusion`), with graph fusion only (batch norm folded,
UB fusion switched off) and with all fusion (the default). Each is sunk
whole and JIT-compiled; the three and onnxruntime (same thread count) are
timed interleaved, `--repeat` rounds of one run each: the best wall time
and CPU time (of the process's threads) of each, and, as the ratios, the
median over the rounds of the ratio within a round, which cancels the load
of other processes on a shared machine drifting between rounds:

    python bench/bench_fusion.py [--threads 2] [--repeat 10] [--models resnet50 ...]

Fusion must not be slower than no fusion: the last line says whether it is
(median CPU-time ratio above 1 + `--noise`, default 3 %); the exit code is
1 if it is.
Thread counts are fixed before NumPy loads (BLAS) and given to onnxruntime.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
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
    from passes.fuse_ops import fusion_rules
    from tools.ge_atc import CompileOptions

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
    from ge_runtime.jit import compile_graph, graph_arguments
    from ge_runtime.scheduler import compile_model
    from tools.ge_atc import compile_module

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


def bench_model(name: str, threads: int, repeat: int) -> dict[str, float]:
    """Time the variants and onnxruntime on one model; print the report."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    from ge_frontend.onnx_import import import_onnx
    from ge_frontend.onnx_weights import randomize_weights

    path = Path(onnx.__file__).parent / f"backend/test/data/light/light_{name}.onnx"
    model = randomize_weights(onnx.load(path), seed=0)
    start = time.perf_counter()
    imported = import_onnx(model)
    variants = [compile_variant(v, imported) for v in VARIANTS]
    prepare = time.perf_counter() - start
    feed = model.graph.input[0]
    shape = [d.dim_value for d in feed.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    (expected,) = session.run(None, {feed.name: x})
    calls = {v.name: v.run(x) for v in variants}
    calls["onnxruntime"] = lambda: session.run(None, {feed.name: x})
    errors = {}
    for variant in variants:
        (out,) = calls[variant.name]()
        out = np.asarray(out).reshape(expected.shape)
        errors[variant.name] = float(
            np.abs(out - expected).max() / np.abs(expected).max()
        )
    rounds: list[dict[str, tuple[float, float]]] = []
    for _ in range(repeat):
        times = {}
        for key, call in calls.items():
            begin, begin_cpu = time.perf_counter(), time.process_time()
            call()
            times[key] = (time.perf_counter() - begin, time.process_time() - begin_cpu)
        rounds.append(times)
    wall = {key: min(r[key][0] for r in rounds) for key in calls}
    cpu = {key: min(r[key][1] for r in rounds) for key in calls}

    def ratio(kind: int, a: str, b: str) -> float:
        return statistics.median(r[a][kind] / r[b][kind] for r in rounds)

    print(
        f"{name} {'x'.join(map(str, shape))} fp32, {threads} threads, best of "
        f"{repeat} interleaved runs, wall / CPU seconds (compile of the 3 "
        f"variants {prepare:.1f} s):"
    )
    for variant in variants:
        key = variant.name
        print(
            f"  {key:<18} {wall[key]:.3f} / {cpu[key]:.3f}  "
            f"vs no fusion {wall['no fusion'] / wall[key]:4.2f}x / "
            f"{cpu['no fusion'] / cpu[key]:4.2f}x faster  "
            f"vs onnxruntime {wall[key] / wall['onnxruntime']:4.2f}x / "
            f"{cpu[key] / cpu['onnxruntime']:4.2f}x  "
            f"{variant.groups} fused groups, {variant.vectorised} nests "
            f"({variant.scalar} scalar), max error {errors[key]:.1e}"
        )
    print(f"  {'onnxruntime':<18} {wall['onnxruntime']:.3f} / {cpu['onnxruntime']:.3f}")
    medians = {}
    for kind, label in enumerate(("wall", "CPU")):
        medians[label] = {
            other: ratio(kind, "fusion (default)", other)
            for other in ("no fusion", "graph fusion only", "onnxruntime")
        }
        print(
            f"  {label} ratios (median per round): fusion / no fusion = "
            f"{medians[label]['no fusion']:.3f}, fusion / graph fusion only = "
            f"{medians[label]['graph fusion only']:.3f}, fusion / onnxruntime = "
            f"{medians[label]['onnxruntime']:.2f}"
        )
    return medians["CPU"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    slower = []
    for name in args.models:
        ratios = bench_model(name, args.threads, args.repeat)
        if ratios["no fusion"] > 1 + args.noise:
            slower.append(name)
    if slower:
        print(f"fusion is slower than no fusion on: {', '.join(slower)}")
        return 1
    print("fusion is not slower than no fusion on any model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
