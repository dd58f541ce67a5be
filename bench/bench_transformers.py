"""Transformers on the FRACTAL_NZ path: BERT, GPT-2 and ViT through `ge-atc`.

The test zoo's transformers (`tests/model_zoo`: 2 layers, random init from
`transformers` configs, torch's exporters) compile with plain `ge-atc` at
their export shapes, once per `--precision_mode` (none: every op keeps
float32),
and run as `ge-run` runs them, against onnxruntime (float32) on the same
seeded inputs, timed in turns (medians). Per model, exporter and mode:

- runtime TransData after the pipeline (the issue's bound: 12, the aim 2)
  and, with `--sites`, where each sits (`producer -> consumers`);
- how many matmul/batch_matmul read an operand that is not FRACTAL_NZ
  (the aim: none), and how many head splits/merges run as
  `ge.confusion_transpose`;
- max |ours - onnxruntime| / max |onnxruntime| against the mode's tolerance
  (`PRECISION_TOLERANCE` of tests/test_transformer_layout.py);
- seconds per inference, ours and onnxruntime's, and their ratio.

Measured (mode none, 2 cores, load average ~10): runtime TransData BERT
7 (dynamo) / 3 (torchscript), GPT-2 8, ViT 9 / 5; max error <= 3.9e-7.
Where the rest sit: the graph input and output (one each, every export);
ViT's patch conv (NCHW -> NC1HWC0 -> NCHW around the conv); BERT dynamo's
and ViT dynamo's key path (reshape, transpose, reshape to [B*N,S,D],
transpose, reshape back: five steps, one pair per layer) and the mask;
GPT-2's q/k/v from a Split of the fused qkv projection (one TransData per
head tensor and per attention output: Split has no FRACTAL_NZ path yet).

    python bench/bench_transformers.py                    # all, every mode
    python bench/bench_transformers.py vit --modes none allow_mix_precision
    python bench/bench_transformers.py --sites --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MODELS = ("bert", "gpt2", "vit")
MODES = ("none", "force_fp32", "allow_mix_precision", "force_fp16")
TRANSDATA_BOUND = 12


@dataclass
class Row:
    """One compile-and-run of one export in one precision mode."""

    model: str
    exporter: str
    mode: str
    error: str | None = None
    transdata: int | None = None
    sites: tuple[str, ...] = ()
    non_nz_products: int | None = None
    confusion_transposes: int | None = None
    max_error: float | None = None
    tolerance: float | None = None
    seconds: float | None = None
    ort_seconds: float | None = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS), metavar="MODEL")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--threads", type=int, default=1, help="BLAS/ort threads")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs")
    parser.add_argument("--sites", action="store_true", help="print TransData sites")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    return parser.parse_args(argv)


def measure(name: str, exporter: str, mode: str, args, work: Path) -> Row:
    """Compile one export in one mode, check it and time it."""
    import model_zoo
    from bench_models import run_and_time
    from test_transformer_layout import PRECISION_TOLERANCE

    from ge_dialect.formats import Format
    from ge_dialect.layout import layout_attr
    from ge_dialect.ops import BatchMatMulOp, ConfusionTransposeOp, MatMulOp
    from ge_runtime.engines.scheduler import compile_model
    from ge_runtime.offline.om import load_offline_model
    from passes.format_pipeline import runtime_transdata_sites

    row = Row(name, exporter, mode, tolerance=PRECISION_TOLERANCE.get(mode, 1e-3))
    path = model_zoo.export(name, exporter=exporter)
    feeds = model_zoo.sample_inputs(name)
    flags = () if mode == "none" else (f"--precision_mode={mode}",)
    om = work / f"{name}-{exporter}-{mode}"
    _, row.error = model_zoo.compile_with_atc(
        path, om, model_zoo.input_shape_flag(feeds), flags
    )
    if row.error is not None:
        return row
    offline = load_offline_model(f"{om}.om")
    module = offline.module()
    row.sites = tuple(runtime_transdata_sites(module))
    row.transdata = len(row.sites)
    ops = list(module.walk())
    row.non_nz_products = sum(
        any(
            layout_attr(v.type).storage_format is not Format.FRACTAL_NZ
            for v in op.operands
        )
        for op in ops
        if isinstance(op, (MatMulOp, BatchMatMulOp))
    )
    row.confusion_transposes = sum(isinstance(op, ConfusionTransposeOp) for op in ops)
    compiled = compile_model(module, offline.weights, target=offline.target)
    run_and_time(row, compiled, path, feeds, args)
    return row


def format_row(row: Row, sites: bool) -> str:
    def num(value, spec: str) -> str:
        return "–" if value is None else format(value, spec)

    ratio = (
        f"{row.seconds / row.ort_seconds:.1f}"
        if row.seconds and row.ort_seconds
        else "–"
    )
    ok = (
        row.error is None
        and row.max_error is not None
        and row.max_error <= (row.tolerance or 0)
        and (row.transdata or 0) <= TRANSDATA_BOUND
        and row.non_nz_products == 0
    )
    line = (
        f"{row.model:<6}{row.exporter:<12}{row.mode:<20}{num(row.transdata, 'd'):>4}"
        f"{num(row.non_nz_products, 'd'):>7}{num(row.confusion_transposes, 'd'):>5}"
        f"{num(row.max_error, '.1e'):>9}{num(row.tolerance, '.0e'):>7}"
        f"{num(row.seconds, '.4f'):>9}{num(row.ort_seconds, '.4f'):>9}{ratio:>7}"
        f"  {'ok' if ok else 'NO'}"
    )
    if row.error:
        line += f"\n    error: {row.error}"
    if sites:
        line += "".join(f"\n    transdata: {site}" for site in row.sites)
    return line


def main(argv: list[str] | None = None) -> int:
    """Print the table (exit 0: this bench reports, it does not judge)."""
    args = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(BENCH)]
    import model_zoo

    print(f"cpus {os.cpu_count()}, threads {args.threads}, load average", end=" ")
    print(" ".join(f"{load:.1f}" for load in os.getloadavg()))
    header = (
        f"{'model':<6}{'exporter':<12}{'precision_mode':<20}{'TD':>4}{'non-NZ':>7}"
        f"{'CT':>5}{'max err':>9}{'tol':>7}{'ours s':>9}{'ort s':>9}{'ratio':>7}"
    )
    print(header)
    print("-" * (len(header) + 4))
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.models:
            for exporter in model_zoo.MODELS[name].exporters:
                for mode in args.modes:
                    row = measure(name, exporter, mode, args, Path(scratch))
                    rows.append(row)
                    print(format_row(row, args.sites), flush=True)
    print(
        f"TD: runtime TransData (bound {TRANSDATA_BOUND}); non-NZ: matrix products "
        "with an operand not in FRACTAL_NZ; CT: ge.confusion_transpose ops"
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
