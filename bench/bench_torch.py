"""`torch.compile(model, backend="ge")` against eager PyTorch.

For each model of the tests (`tests/torch_models.py`: a ResNet-style CNN,
a depthwise-separable block with 17 channels, an MLP with GELU and
LayerNorm, a multi-head attention block, a 2-layer BERT from
`transformers`), static and with `dynamic=True`, at batch 1 and 3:

- the first call's seconds (TorchDynamo's capture, the import, ge-atc's
  compile and the first run; `dynamic=True` compiles again at batch 1,
  which torch specializes) and the backend's share of it;
- seconds per call after that (median of runs interleaved with eager's,
  the same inputs, 1 torch thread), and the ratio;
- max |ge - eager| / max |eager| over the outputs, the graph breaks
  (`aten.op` per node) and how the graphs ran (sink / host).

    python bench/bench_torch.py                  # every model
    python bench/bench_torch.py mlp bert --repeat 30 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


@dataclass
class Row:
    """One model in one mode at one batch size."""

    model: str
    mode: str
    batch: int
    first_call_seconds: float = 0.0
    backend_compile_seconds: float = 0.0
    ge_seconds: float = 0.0
    eager_seconds: float = 0.0
    max_error: float = 0.0
    schedule: str = ""
    graph_breaks: list[str] = field(default_factory=list)


def median_interleaved(
    calls: Sequence[Callable[[], object]], repeat: int
) -> list[float]:
    """Per call, the median seconds of `repeat` runs taken in turn."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(repeat):
        for index, call in enumerate(calls):
            start = time.perf_counter()
            call()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def relative_error(got: object, expected: object) -> float:
    got = got if isinstance(got, tuple | list) else (got,)
    expected = expected if isinstance(expected, tuple | list) else (expected,)
    return max(
        float((a - b).abs().max() / b.abs().max().clamp_min(1e-30))
        for a, b in zip(got, expected, strict=True)
    )


def measure(name: str, dynamic: bool, repeat: int) -> list[Row]:
    import torch
    import torch_models

    from ge_xdsl.torch_backend import STATS, ge_backend

    torch._dynamo.reset()
    STATS.reset()
    model, inputs = torch_models.build(name)
    compiled = torch.compile(model, backend=ge_backend, dynamic=dynamic)
    rows = []
    for batch in (3, 1):
        args = inputs(batch)
        row = Row(name, "dynamic" if dynamic else "static", batch)
        before = STATS.compile_seconds
        with torch.no_grad():
            start = time.perf_counter()
            got = compiled(*args)
            row.first_call_seconds = time.perf_counter() - start
            row.backend_compile_seconds = STATS.compile_seconds - before
            row.max_error = relative_error(got, model(*args))
            row.ge_seconds, row.eager_seconds = median_interleaved(
                [lambda a=args: compiled(*a), lambda a=args: model(*a)], repeat
            )
        graphs = STATS.graphs()
        row.schedule = ", ".join(sorted({g.model.mode for g in graphs[-1:]}))
        row.graph_breaks = [f"{b.op} ({b.node})" for b in STATS.graph_breaks]
        rows.append(row)
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| model | mode | batch | first call s (backend) | ge ms | eager ms | "
        "ge/eager | max err | runs | breaks |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.model} | {r.mode} | {r.batch} | {r.first_call_seconds:.2f} "
            f"({r.backend_compile_seconds:.2f}) | {r.ge_seconds * 1e3:.2f} | "
            f"{r.eager_seconds * 1e3:.2f} | {r.ge_seconds / r.eager_seconds:.2f} | "
            f"{r.max_error:.1e} | {r.schedule} | {len(r.graph_breaks)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import torch
    import torch_models

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(torch_models.MODELS))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    load = os.getloadavg()
    rows = [
        row
        for name in args.models
        for dynamic in (False, True)
        for row in measure(name, dynamic, args.repeat)
    ]
    print(f"load average {load[0]:.1f} (start), {os.getloadavg()[0]:.1f} (end)")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
