"""The Keras applications through `ge_xdsl.compile(framework="tensorflow")`.

Each model of `tests/tf_models.py` (MobileNetV2 0.35@96, ResNet50,
InceptionV3, DenseNet121, EfficientNetB0; seeded weights, frozen, cached) is
compiled as `ge-atc --framework=3 --input_format=NHWC` does, run through the
runtime on a seeded input and compared with TensorFlow running the same
`GraphDef`. Per model it prints the `ge` op count, compile seconds, runtime
TransData in the final IR (the aim: 2, NHWC -> NC1HWC0 at the input and back
at the output) and where each sits (`FORMAT->FORMAT producer -> consumers`),
and max |ours - TF| / max |TF| over the logits and the probabilities.

    python bench/bench_tf_models.py                  # every model
    python bench/bench_tf_models.py ResNet50 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).parents[1]


@dataclass
class Row:
    """One model's compile and run."""

    name: str
    ops: int = 0
    compile_seconds: float = 0.0
    transdata: int = 0
    transdata_sites: list[str] = field(default_factory=list)
    max_error: float = 0.0


def measure(name: str, soc: str) -> Row:
    """Compile model `name` (a `tf_models.KERAS_MODELS` key), run it, compare."""
    import tf_models

    import ge_xdsl
    from passes.format_pipeline import runtime_transdata_sites

    path = tf_models.cached_graph(tf_models.KERAS_MODELS[name])
    graph = tf_models.load_graph(path)
    placeholder = next(n for n in graph.node if n.op == "Placeholder")
    shape = [dim.size for dim in placeholder.attr["shape"].shape.dim]
    logits = next(n for n in graph.node if n.op == "Softmax").input[0]
    out_nodes = f"{logits}:0;Identity:0"
    start = time.perf_counter()
    model = ge_xdsl.compile(
        path, framework="tensorflow", soc_version=soc, out_nodes=out_nodes
    )
    row = Row(name, compile_seconds=time.perf_counter() - start)
    row.ops = sum(1 for op in model.module.walk() if op.name.startswith("ge."))
    row.transdata_sites = runtime_transdata_sites(model.module)
    row.transdata = len(row.transdata_sites)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours = model.run({"input": x})
    refs = tf_models.tf_run(graph, {"input": x}, model.output_names)
    for output, ref in zip(model.output_names, refs, strict=True):
        scale = float(np.abs(ref).max())
        error = float(np.abs(ours[output].astype(np.float64) - ref).max())
        row.max_error = max(row.max_error, error / scale)
    return row


def main(argv: list[str] | None = None) -> int:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import tf_models  # before tensorflow: switches oneDNN off

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help="default: all")
    parser.add_argument("--soc_version", default="Ascend910")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.models) - set(tf_models.KERAS_MODELS))
    if unknown:
        parser.error(f"unknown models {unknown}; known: {list(tf_models.KERAS_MODELS)}")
    print(f"cpus {os.cpu_count()}, load average", end=" ")
    print(" ".join(f"{load:.1f}" for load in os.getloadavg()))
    rows = []
    for name in args.models or list(tf_models.KERAS_MODELS):
        row = measure(name, args.soc_version)
        rows.append(row)
        print(
            f"{name}: {row.ops} ge ops, compile {row.compile_seconds:.1f} s, "
            f"{row.transdata} runtime TransData, max error {row.max_error:.2e}"
            " x max|TF|",
            flush=True,
        )
        for site in row.transdata_sites:
            print(f"    {site}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
