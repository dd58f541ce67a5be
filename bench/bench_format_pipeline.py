"""Runtime TransData on the ONNX `light/` models: after insertion vs optimised.

Each model is imported, then `ge-format-pipeline` runs (convolution-family
ops in NC1HWC0, the default storage selection). Printed per model: runtime
TransData right after `insert-transdata`, after the optimisation rounds with
GE's passes only, and with the passes beyond GE; the bound the project holds
itself to (2: one TransData into NC1HWC0 after the input, one out before the
classifier, ShuffleNet's channel shuffles included); import and pipeline
(compile) time.

    python bench/bench_format_pipeline.py                 # every model
    python bench/bench_format_pipeline.py resnet50 vgg19  # some
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import onnx
from xdsl.context import Context

from ge_dialect.dialect import GE
from ge_frontend.onnx_import import import_onnx
from ge_frontend.onnx_weights import light_model_path
from passes.format_pipeline import FormatPipelinePass

MODELS: tuple[str, ...] = (
    "resnet50",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "vgg19",
    "bvlc_alexnet",
    "zfnet512",
    "squeezenet",
    "shufflenet",
)


TRANSDATA_BOUND = 2
"""At most one TransData in and one out; ShuffleNet's channel shuffles run in
NC1HWC0 (`ge.channel_shuffle`), so every model has the same bound."""


@dataclass(frozen=True)
class Counts:
    """Runtime TransData after insertion, after GE's passes, after all passes."""

    inserted: int
    ge_only: int
    optimised: int


@dataclass(frozen=True)
class Row:
    """What the bench measures for one model."""

    model: str
    spread: Counts
    no_spread: Counts
    bound: int
    import_seconds: float
    compile_seconds: float


def run_pipeline(
    proto: onnx.ModelProto, *, spread: bool, beyond_ge: bool
) -> tuple[list[tuple[str, int]], float, float]:
    """Import and compile once: (step counts, import seconds, pipeline seconds)."""
    start = time.perf_counter()
    module = import_onnx(proto).module
    imported = time.perf_counter()
    ctx = Context()
    ctx.load_dialect(GE)
    pipeline = FormatPipelinePass(
        data_format="NCHW", spread=spread, beyond_ge=beyond_ge
    )
    counts = pipeline.run(ctx, module)
    return counts, imported - start, time.perf_counter() - imported


def measure_counts(proto: onnx.ModelProto, spread: bool) -> tuple[Counts, float, float]:
    """Counts with or without the heavy-format spread (times of the full run)."""
    ge_counts, _, _ = run_pipeline(proto, spread=spread, beyond_ge=False)
    counts, import_seconds, seconds = run_pipeline(proto, spread=spread, beyond_ge=True)
    inserted = next(count for label, count in counts if label == "insert-transdata")
    return Counts(inserted, ge_counts[-1][1], counts[-1][1]), import_seconds, seconds


def measure(name: str) -> Row:
    """Compile model `name` with and without spread, GE-only and with all passes."""
    proto = onnx.load(light_model_path(name))
    spread, import_seconds, seconds = measure_counts(proto, spread=True)
    no_spread, _, _ = measure_counts(proto, spread=False)
    return Row(name, spread, no_spread, TRANSDATA_BOUND, import_seconds, seconds)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit status 1 if a model exceeds its bound."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help=", ".join(MODELS))
    names = parser.parse_args(argv).models or list(MODELS)
    if unknown := sorted(set(names) - set(MODELS)):
        parser.error(f"unknown models: {', '.join(unknown)}")
    print(
        "runtime TransData after insert-transdata / after GE's passes / after all "
        "passes;\nwith the heavy-format spread (default) and without it; "
        "compile s = the default pipeline"
    )
    header = (
        f"{'model':<14}{'spread':>16}{'no spread':>16}{'bound':>7}"
        f"{'import s':>10}{'compile s':>11}"
    )
    print(header)
    print("-" * len(header))
    over = 0
    for name in names:
        row = measure(name)
        over += row.spread.optimised > row.bound
        cells = [
            f"{c.inserted}/{c.ge_only}/{c.optimised}"
            for c in (row.spread, row.no_spread)
        ]
        print(
            f"{row.model:<14}{cells[0]:>16}{cells[1]:>16}{row.bound:>7}"
            f"{row.import_seconds:>10.2f}{row.compile_seconds:>11.2f}"
        )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
