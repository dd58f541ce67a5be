"""Benchmarks of the NumPy JIT (`ge_runtime.jit`), in one run:

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


def best_time(function, repeat: int) -> float:
    """The fastest of `repeat` timed calls (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_interpreter(repeat: int) -> None:
    """(a) JIT vs xDSL interpreter on one lowered graph."""
    import numpy as np

    from ge_dialect.builder import GraphBuilder
    from ge_runtime.jit import compile_module, lowered_module
    from ge_runtime.jit_interpreter import interpret

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
    jit = best_time(lambda: compiled(*args), max(repeat, 20))
    start = time.perf_counter()
    (expected,) = interpret(module, "conv", args)
    interpreter = time.perf_counter() - start
    (result,) = compiled(*args)
    error = float(np.abs(result - expected).max())
    print(
        f"(a) jit vs xDSL interpreter, lowered conv 1x9x6x6 -> 1x4x6x6 + sigmoid: "
        f"interpreter {interpreter:.2f} s, jit {jit * 1e3:.2f} ms -> "
        f"{interpreter / jit:,.0f}x "
        f"(goal >= 100x); max |jit - interpreter| = {error:.1e}"
    )


def resnet_model():
    """light_resnet50 with seeded weights, or None (and why) if unavailable."""
    import onnx

    path = Path(onnx.__file__).parent / "backend/test/data/light/light_resnet50.onnx"
    if not path.is_file():
        return None, f"{path} not found"
    try:
        from ge_frontend.onnx_weights import randomize_weights
    except ImportError as error:
        return None, f"ONNX importer unavailable ({error})"
    return randomize_weights(onnx.load(path), seed=0), ""


def bench_resnet(threads: int, repeat: int) -> None:
    """(b) ResNet-50 through the format pipeline and the JIT vs onnxruntime."""
    import numpy as np

    model, reason = resnet_model()
    if model is None:
        print(f"(b) resnet50: skipped: {reason}")
        return
    import onnxruntime as ort
    from xdsl.context import Context

    from ge_frontend.onnx_import import import_onnx
    from ge_runtime.jit import compile_graph, graph_arguments, run_graph
    from ge_runtime.reference import find_graph
    from passes.format_pipeline import FormatPipelinePass
    from passes.insert_transdata import derive_storage_weights

    start = time.perf_counter()
    imported = import_onnx(model)
    FormatPipelinePass().apply(Context(), imported.module)
    graph = find_graph(imported.module)
    compiled = compile_graph(graph)
    prepare = time.perf_counter() - start
    name = model.graph.input[0].name
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    weights = derive_storage_weights(imported.module, imported.weights)
    args = graph_arguments(graph, {0: x}, weights, None)
    jit = best_time(lambda: compiled(*args), repeat)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    reference = best_time(lambda: session.run(None, {name: x}), repeat)
    (output,) = run_graph(imported.module, {0: x}, weights)
    (expected,) = session.run(None, {name: x})
    error = float(np.abs(output - expected).max() / np.abs(expected).max())
    print(
        f"(b) resnet50 1x3x224x224 fp32, {threads} threads: jit {jit:.3f} s/inference, "
        f"onnxruntime {reference:.3f} s -> ratio {jit / reference:.2f}x (goal <= 3x); "
        f"max error {error:.1e} x max|ref|; "
        f"import+pipeline+lower+compile {prepare:.1f} s; "
        f"{compiled.vectorised} nests vectorised, {len(compiled.scalar_nests)} scalar"
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
