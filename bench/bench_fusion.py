"""Benchmark of graph fusion (`fold-batch-norm`, `fuse-ops`), in one run.

ResNet-50 and Inception-v2 (`light_*` from the onnx package, seeded random
weights, 1x3x224x224) compiled by `ge-atc`'s compile three ways: without
fusion (`--disable-fusion`), with graph fusion only (batch norm folded,
UB fusion switched off) and with all fusion (the default). Each is sunk
whole and JIT-compiled; the three and onnxruntime (same thread count) are
timed interleaved, best of `--repeat` runs, and the ratios printed:

    python bench/bench_fusion.py [--threads 2] [--repeat 10] [--models resnet50 ...]

Fusion must not be slower than no fusion: the last line says whether it is
(within `--noise`, default 3 %), and the exit code is 1 if it is slower.
Thread counts are fixed before NumPy loads (BLAS) and given to onnxruntime.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODELS = ("resnet50", "inception_v2")

VARIANTS = {
    "no fusion": {"fusion": False},
    "graph fusion only": {"fusion_off": ("UB",)},
    "fusion (default)": {},
}
"""Variant -> CompileOptions changes (`("UB",)`: every UB fusion rule off)."""


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


def compile_variant(name: str, imported: Any, changes: dict[str, Any]) -> Variant:
    """ge-atc's compile with `changes` to the options, sunk and JIT-compiled."""
    from ge_dialect.ops import FusedOp
    from ge_runtime.jit import compile_graph, graph_arguments
    from ge_runtime.scheduler import compile_model
    from passes.fuse_ops import fusion_rules
    from tools.ge_atc import CompileOptions, compile_module

    if changes.get("fusion_off") == ("UB",):
        ub = [r.name for r in fusion_rules().values() if r.category == "UBFusion"]
        changes = {"fusion_off": tuple(ub)}
    module = imported.module.clone()
    options = CompileOptions(input_format="NCHW", **changes)
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
    variants = [compile_variant(v, imported, c) for v, c in VARIANTS.items()]
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
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(repeat):
        for key, call in calls.items():
            begin = time.perf_counter()
            call()
            best[key] = min(best[key], time.perf_counter() - begin)
    ort_time = best["onnxruntime"]
    print(
        f"{name} {'x'.join(map(str, shape))} fp32, {threads} threads, best of "
        f"{repeat} interleaved runs (compile of the 3 variants {prepare:.1f} s):"
    )
    for variant in variants:
        t = best[variant.name]
        print(
            f"  {variant.name:<18} {t:.3f} s  {t / ort_time:5.2f}x onnxruntime  "
            f"{best['no fusion'] / t:5.2f}x faster than no fusion  "
            f"{variant.groups:3d} fused groups, {variant.vectorised} nests "
            f"({variant.scalar} scalar), max error {errors[variant.name]:.1e}"
        )
    print(f"  {'onnxruntime':<18} {ort_time:.3f} s")
    fused, plain = best["fusion (default)"], best["no fusion"]
    print(
        f"  ratios: fusion / no fusion = {fused / plain:.3f}, fusion / graph "
        f"fusion only = {fused / best['graph fusion only']:.3f}, fusion / "
        f"onnxruntime = {fused / ort_time:.2f}"
    )
    return best


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    slower = []
    for name in args.models:
        best = bench_model(name, args.threads, args.repeat)
        if best["fusion (default)"] > best["no fusion"] * (1 + args.noise):
            slower.append(name)
    if slower:
        print(f"fusion is slower than no fusion on: {', '.join(slower)}")
        return 1
    print("fusion is not slower than no fusion on any model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
