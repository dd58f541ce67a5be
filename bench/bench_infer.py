"""Time `infer-origin-format` and `infer-shape` against xDSL's parse + print.

Builds CNN-like graphs of about 1k, 10k and 100k ops with the GraphBuilder
(every value ND; one NCHW conv anchor per block of 10 ops), prints each to
MLIR text, and times, in the same run: xDSL parsing that text, printing the
module, and each pass on a fresh copy of the parsed module (CPU time of the
process, so other load on the machine does not count). Prints one table row
per size: the passes' cost relative to parse + print, and per op.

    python bench/bench_infer.py                 # 1k, 10k, 100k ops
    python bench/bench_infer.py --sizes 1000 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from ge_dialect.builder import GraphBuilder
from ge_dialect.dialect import GE
from passes.infer_origin_format import InferOriginFormatPass
from passes.infer_shape import InferShapePass

OPS_PER_BLOCK = 10


def build_graph(num_ops: int) -> ModuleOp:
    """A chain of residual conv blocks, `OPS_PER_BLOCK` ops each."""
    b = GraphBuilder("bench")
    x = b.data([1, 8, 16, 16], "float32")
    for _ in range(max(1, num_ops // OPS_PER_BLOCK)):
        w = b.const(np.ones((8, 8, 3, 3), np.float32))
        y = b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW")
        y = b.relu(y)
        y = b.add(y, x)
        y = b.sigmoid(y)
        y = b.mul(y, x)
        y = b.tanh(y)
        y = b.abs(y)
        y = b.neg(y)
        x = b.max_pool(y, ksize=[1, 1, 1, 1], data_format="NCHW")
    b.output(x)
    return b.build(verify=False)


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx


def to_text(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def best_of(
    repeat: int, setup: Callable[[], object], body: Callable[[object], object]
) -> float:
    """The fastest of `repeat` CPU timings of `body(setup())` (setup not timed).

    CPU time of this process, so other load on the machine does not count.
    """
    times = []
    for _ in range(repeat):
        argument = setup()
        start = time.process_time()
        body(argument)
        times.append(time.process_time() - start)
    return min(times)


def measure(num_ops: int, repeat: int) -> dict[str, float]:
    """Seconds for parse, print and each pass on one graph size."""
    text = to_text(build_graph(num_ops))
    ctx = context()

    def parse() -> ModuleOp:
        return Parser(ctx, text).parse_module()

    def run(pass_: ModulePass) -> Callable[[object], object]:
        return lambda module: pass_.apply(ctx, module)  # type: ignore[arg-type]

    parsed = parse()
    return {
        "ops": sum(1 for _ in parsed.walk()) - 2,
        "parse": best_of(repeat, lambda: None, lambda _: parse()),
        "print": best_of(repeat, lambda: parsed, to_text),  # type: ignore[arg-type]
        "infer-origin-format": best_of(
            repeat, parsed.clone, run(InferOriginFormatPass())
        ),
        "infer-shape": best_of(repeat, parsed.clone, run(InferShapePass())),
    }


def report(rows: Sequence[dict[str, float]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| ops | parse s | print s | parse+print s | infer-origin-format s (x) "
        "| infer-shape s (x) | format us/op | shape us/op |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        base = row["parse"] + row["print"]
        fmt, shape = row["infer-origin-format"], row["infer-shape"]
        lines.append(
            f"| {int(row['ops'])} | {row['parse']:.3f} | {row['print']:.3f} "
            f"| {base:.3f} | {fmt:.3f} ({fmt / base:.2f}x) "
            f"| {shape:.3f} ({shape / base:.2f}x) "
            f"| {1e6 * fmt / row['ops']:.1f} | {1e6 * shape / row['ops']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    rows = [measure(size, args.repeat) for size in args.sizes]
    print(report(rows))


if __name__ == "__main__":
    main()
