"""Benchmarks of the NumPy JIT (`ge_runtime.jit.compiler`), in one run:

(a) the JIT against xDSL's own interpreter on the same small loop module
    (a lowered NC1HWC0 convolution + sigmoid; goal: >= 100x faster);
(b) ResNet-50 (`light_resnet50` from the onnx package, seeded random
    weights, 1x3x224x224): JIT time per inference against onnxruntime with
    the same thread count (goal: within 3x), plus the numeric agreement.

    python bench/bench_jit.py [--threads 2] [--repeat 3] [--skip-resnet]

Thread counts are fixed before NumPy loads (BLAS) and given to onnxruntime.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--threads", type=int, default=2, help="BLAS and onnxruntime threads"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs (best is reported)"
    )
    parser.add_argument("--skip-resnet", action="store_true", help="only part (a)")
    return parser.parse_args(argv)


def timings(function, repeat: int) -> list[float]:
    """Seconds of `repeat` timed calls (after one warm-up call)."""
    return interleaved_timings({"": function}, repeat)[""]


def interleaved_timings(runs: dict, repeat: int) -> dict[str, list[float]]:
    """Seconds of each run, `repeat` rounds running each in turn (after one
    warm-up call each), so a change in machine load hits all alike."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


@dataclass
class InterpreterTiming:
    """(a): seconds of the xDSL interpreter and of the JIT on one loop module."""

    interpreter: list[float]
    jit: list[float]
    error: float


def time_interpreter(repeat: int, interpreter_runs: int = 1) -> InterpreterTiming:
    """(a) JIT vs xDSL interpreter on one lowered graph."""
    import numpy as np

    from ge_dialect.builder import GraphBuilder
    from ge_runtime.jit.compiler import compile_module, lowered_module
    from ge_runtime.jit.interpreter import interpret

    b = GraphBuilder("conv")
    x = b.transdata(
        b.data([1, 9, 6, 6], "float32", format="NCHW"),
        src_format="NCHW",
        dst_format="NC1HWC0",
    )
    w = b.transdata(
        b.data([4, 9, 3, 3], "float32", format="NCHW"),
        src_format="NCHW",
        dst_format="FRACTAL_Z",
    )
    y = b.sigmoid(b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW"))
    b.output(b.transdata(y, src_format="NC1HWC0", dst_format="NCHW"))
    module = lowered_module(b.build().body.block.first_op)
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal((1, 9, 6, 6)).astype(np.float32),
        rng.standard_normal((4, 9, 3, 3)).astype(np.float32),
    ]
    compiled = compile_module(module)
    jit = timings(lambda: compiled(*args), max(repeat, 20))
    interpreter = []
    for _ in range(interpreter_runs):
        start = time.perf_counter()
        (expected,) = interpret(module, "conv", args)
        interpreter.append(time.perf_counter() - start)
    (result,) = compiled(*args)
    return InterpreterTiming(interpreter, jit, float(np.abs(result - expected).max()))


def bench_interpreter(repeat: int) -> None:
    """(a) JIT vs xDSL interpreter on one lowered graph."""
    timing = time_interpreter(repeat)
    interpreter, jit = timing.interpreter[0], min(timing.jit)
    print(
        f"(a) jit vs xDSL interpreter, lowered conv 1x9x6x6 -> 1x4x6x6 + sigmoid: "
        f"interpreter {interpreter:.2f} s, jit {jit * 1e3:.2f} ms -> "
        f"{interpreter / jit:,.0f}x "
        f"(goal >= 100x); max |jit - interpreter| = {timing.error:.1e}"
    )


def light_model(name: str = "resnet50"):
    """A light model with seeded weights, or None (and why) if unavailable."""
    try:
        from ge_frontend.onnx_weights import light_model, light_model_path
    except ImportError as error:
        return None, f"ONNX importer unavailable ({error})"
    if not light_model_path(name).is_file():
        return None, f"{light_model_path(name)} not found"
    return light_model(name, seed=0), ""


@dataclass
class ModelTiming:
    """(b): per-inference seconds of the JIT and of onnxruntime on one model."""

    shape: list[int]
    jit: list[float]
    onnxruntime: list[float]
    error: float
    prepare: float
    vectorised: int
    scalar: int


def time_model(model, threads: int, repeat: int) -> ModelTiming:
    """(b) A model through the format pipeline and the JIT vs onnxruntime.

    The two run in turn `repeat` times (after one warm-up call each), so a
    change in machine load hits both alike.
    """
    import numpy as np
    import onnxruntime as ort
    from xdsl.context import Context

    from ge_dialect.constants import derive_storage_weights
    from ge_frontend.onnx_import import import_onnx
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit.compiler import compile_graph, graph_arguments, run_graph
    from passes.format_pipeline import FormatPipelinePass

    start = time.perf_counter()
    imported = import_onnx(model)
    FormatPipelinePass().apply(Context(), imported.module)
    graph = find_graph(imported.module)
    compiled = compile_graph(graph)
    prepare = time.perf_counter() - start
    weights_in = {tensor.name for tensor in model.graph.initializer}
    feed = next(i for i in model.graph.input if i.name not in weights_in)
    shape = [d.dim_value for d in feed.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    weights = derive_storage_weights(imported.module, imported.weights)
    args = graph_arguments(graph, {0: x}, weights, None)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    runs = {
        "jit": lambda: compiled(*args),
        "onnxruntime": lambda: session.run(None, {feed.name: x}),
    }
    times = interleaved_timings(runs, repeat)
    (output,) = run_graph(imported.module, {0: x}, weights)
    (expected,) = session.run(None, {feed.name: x})
    error = float(np.abs(output - expected).max() / np.abs(expected).max())
    return ModelTiming(
        shape,
        times["jit"],
        times["onnxruntime"],
        error,
        prepare,
        compiled.vectorised,
        len(compiled.scalar_nests),
    )


def bench_resnet(threads: int, repeat: int) -> None:
    """(b) ResNet-50 through the format pipeline and the JIT vs onnxruntime."""
    model, reason = light_model("resnet50")
    if model is None:
        print(f"(b) resnet50: skipped: {reason}")
        return
    timing = time_model(model, threads, repeat)
    jit, reference = min(timing.jit), min(timing.onnxruntime)
    print(
        f"(b) resnet50 1x3x224x224 fp32, {threads} threads: jit {jit:.3f} s/inference, "
        f"onnxruntime {reference:.3f} s -> ratio {jit / reference:.2f}x (goal <= 3x); "
        f"max error {timing.error:.1e} x max|ref|; "
        f"import+pipeline+lower+compile {timing.prepare:.1f} s; "
        f"{timing.vectorised} nests vectorised, {timing.scalar} scalar"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    bench_interpreter(args.repeat)
    if not args.skip_resnet:
        bench_resnet(args.threads, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
