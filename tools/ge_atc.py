"""`ge-atc`: the ATC-style offline compiler (ONNX, TensorFlow or single-op JSON in).

    ge-atc --model=net.onnx --framework=5 --output=net [--input_shape="x:1,3,224,224"]
           [--input_format=NCHW] [--soc_version=Ascend910] [--dump-graph=DIR]
           [--auto_cast_mode=1] [--memory-report=mem.json] [--time-passes]
           [--max-streams=2] [--fusion_switch_file=off.cfg] [--disable-fusion]
    ge-atc --model=frozen.pb --framework=3 --output=net --input_format=NHWC
           --input_shape="input:1,224,224,3" [--out_nodes="logits:0;probs:0"]
    ge-atc --singleop=ops.json --output=DIR [--soc_version=...]
    ge-atc --mode=1 --om=net.om --json=net.json
    ge-run net.om --random-inputs --check --output-dir out/

The flags are ATC's (`--flag=value` or `--flag value`; `--input-shape` for
`--input_shape` too); the compiler is imported only once the command line is
read, so `--help` is quick. The compile flow is
`ge_xdsl.atc`, what `ge_xdsl.compile` runs from Python. A model is imported
(`--framework=5`: ONNX, `ge_frontend/onnx_import.py`; `--framework=3`: a
TensorFlow frozen GraphDef, `ge_frontend/tf_import.py`, whose outputs
`--out_nodes` picks; `--input_format` defaults to NHWC for TensorFlow and
NCHW otherwise, as in ATC); ATC's graph fusion folds constant biases
(`fold-bias-add`) and inference batch norm (`fold-batch-norm`) into the
convolution or matmul before them and a reshape that restores a
reduction's reduced dims into the reduction (`fold-reduce-reshape`), and
constant sub-graphs are computed (`fold-constants`, with the weights in
hand); then it goes through the format pipeline
(`ge-format-pipeline`, SPEC §4 steps 2-7: origin-format inference with
`--input_format` as data format, shape inference, running formats,
storage-format selection for `--soc_version`, TransData insertion, then the
optimisation rounds to a fixed point), then UB fusion groups AI Core ops
into `ge.fused` kernels (`fuse-ops`), then the engine stages (SPEC §4 step
8: `partition-engines`, `mark-fallback`, preceded by `insert-aicpu-cast`
with `--auto_cast_mode=1`, ATC's AutoCastMode; without it an AI CPU op
lacking the graph's dtype is an error), and last memory planning (step 9:
`plan-memory`; its figures go in the manifest's `memory` entry and, with
`--memory-report FILE`, in a JSON file), preceded with `--max-streams=N` by
`assign-streams` (independent branches on up to N streams, with events;
`ge-run` then runs the streams concurrently). Fusion is on by default:
`--fusion_switch_file FILE` switches named fusion rules off (ATC's fusion
switch file: `{"Switch": {"GraphFusion": {"ConvBatchNormFold": "off"},
"UBFusion": {"ALL": "off"}}}`, or a list of rule names, see
`passes/fuse_ops.py`), `--disable-fusion` all of them. Each stage (each pass; `round N:
PASS` in the optimisation rounds) is verified and logs one progress line to
stderr (`--log`: debug, info (default), warning, error or null);
`--time-passes` adds up each pass's time into a table on stderr;
`--dump-graph DIR` writes `NN-STAGE.mlir` and a Graphviz picture
`NN-STAGE.dot` after each (`.svg` too when Graphviz's `dot` is installed).
The result is an offline model (`ge_runtime/offline/om.py`) holding the
optimised IR, its weights laid out at compile time (ATC's weight
reordering; each stored once), the graph after graph fusion (for `ge-run
--check`: it reads the same weights, derived back to origin layout)
and the compiled kernels (`ge_xdsl.run.with_kernels`: a first `ge-run`
on this machine compiles nothing).

`--report-transdata` prints each runtime TransData the format pipeline left,
where it sits and which neighbour refused which format, and why (the format
passes record their refusals: `passes/transdata_report.py`).

`--singleop` compiles each entry of an ATC single-op description list
(`ge_frontend/singleop.py`) into `DIR/<index>_<OpType>_<descs>.om`.
`--mode=1` writes an offline model as readable JSON. Bad flags and bad input
are one-line errors with exit code 1; nothing is written unless everything
succeeded.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ge_dialect.diagnostics import GEError
from ge_dialect.files import FileData, staged, write_all_or_none, write_atomically
from ge_dialect.input_files import MODEL_KINDS, check_input_kind
from ge_dialect.limits import budget_of
from ge_xdsl.atc_flags import ATC_OPTIONS, INPUT_FORMATS

if TYPE_CHECKING:
    from ge_runtime.offline.om import OfflineModel
    from ge_runtime.offline.timing import PassTimer
from tools.common import (
    LOG_LEVELS,
    accept_both_spellings,
    add_memory_budget_flag,
    logging_to_stderr,
    one_line_errors,
    run_tool,
)

LOG = logging.getLogger("ge_atc")

LOGGERS = ("ge_atc", "ge_xdsl", "ge_frontend", "ge_runtime", "passes")
"""The loggers whose records `--log` routes to stderr (passes: `mark-fallback`;
ge_frontend: an importer's warnings)."""

MODES = {0: "generate an offline model", 1: "offline model to JSON"}
"""ATC's `--mode` values that `ge-atc` implements."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of `ge-atc` (ATC's flag names)."""
    parser = argparse.ArgumentParser(
        prog="ge-atc",
        description="Compile an ONNX model or single-op description into an "
        "offline model (.om), as ATC does.",
    )
    parser.add_argument("--model", metavar="FILE", help="the model to compile")
    parser.add_argument(
        "--framework",
        type=int,
        metavar="N",
        help="framework of --model: 3 = TensorFlow (frozen GraphDef .pb), 5 = ONNX",
    )
    parser.add_argument(
        "--output",
        metavar="PATH",
        help="offline model to write (PATH.om), or the directory for --singleop",
    )
    parser.add_argument(
        "--input_format",
        metavar="FORMAT",
        help=f"format of 4-D/5-D inputs ({', '.join(INPUT_FORMATS)}; default "
        "NHWC for TensorFlow, NCHW otherwise)",
    )
    parser.add_argument(
        "--input_shape",
        metavar='"NAME:1,3,224,224;NAME2:..."',
        help="fix input shapes (dynamic dims); an ONNX sequence input's element "
        'shapes as "NAME:([2,3],[4])", an absent optional input as "NAME:none"',
    )
    parser.add_argument(
        "--out_nodes",
        metavar='"NODE:0;NODE2:1"',
        help="TensorFlow: the graph outputs (default: the outputs nothing reads)",
    )
    parser.add_argument(
        "--soc_version",
        metavar="SOC",
        help="target whose C0 table the layouts use (e.g. Ascend910; default: "
        "C0 = 32 bytes / element size)",
    )
    parser.add_argument(
        "--singleop", metavar="FILE.json", help="single-op description list"
    )
    parser.add_argument(
        "--auto_cast_mode",
        type=int,
        default=0,
        choices=(0, 1),
        metavar="N",
        help="1: cast around AI CPU ops that lack the incoming dtype "
        "(insert-aicpu-cast); 0: such ops are an error (default)",
    )
    parser.add_argument(
        "--precision_mode",
        metavar="MODE",
        help="compute dtypes (select-precision): force_fp32, force_fp16, "
        "allow_fp32_to_fp16, allow_mix_precision (cube ops in float16, "
        "softmax/reductions/normalisations in float32) or must_keep_origin_dtype; "
        "without it every op keeps its dtype",
    )
    parser.add_argument(
        "--mode",
        type=int,
        default=0,
        metavar="N",
        help="0: compile (default), 1: offline model to JSON (--om, --json)",
    )
    parser.add_argument("--om", metavar="FILE.om", help="offline model for --mode=1")
    parser.add_argument("--json", metavar="FILE.json", help="JSON for --mode=1")
    parser.add_argument(
        "--log",
        default="info",
        choices=tuple(LOG_LEVELS),
        help="log level of the progress lines on stderr (default info)",
    )
    parser.add_argument(
        "--memory-report",
        metavar="FILE.json",
        help="write the memory plan's figures (peak, lower bound, first fit, "
        "no reuse, per strategy) as JSON",
    )
    parser.add_argument(
        "--max-streams",
        type=int,
        metavar="N",
        help="run independent branches on up to N streams (assign-streams); "
        "default: one stream, no stream plan",
    )
    parser.add_argument(
        "--fusion_switch_file",
        metavar="FILE",
        help="fusion rules to switch off (ATC's JSON switch file, a JSON list "
        "or one rule name per line)",
    )
    parser.add_argument(
        "--disable-fusion",
        action="store_true",
        help="no graph or UB fusion (fold-batch-norm, fuse-ops)",
    )
    parser.add_argument(
        "--time-passes",
        action="store_true",
        help="print the time of each compile pass to stderr",
    )
    parser.add_argument(
        "--dump-graph",
        metavar="DIR",
        help="write the IR and a Graphviz picture after each stage",
    )
    parser.add_argument(
        "--report-transdata",
        action="store_true",
        help="print each runtime TransData left and why it could not move (stdout)",
    )
    add_memory_budget_flag(parser)
    return accept_both_spellings(one_line_errors(parser))


# ---------------------------------------------------------------------------
# The three jobs
# ---------------------------------------------------------------------------


def output_path(output: str) -> Path:
    """ATC's `--output`: the offline model is `OUTPUT.om` (a folder is an error:
    `DIR/` would write the hidden `DIR/.om`)."""
    if output.endswith(("/", os.sep)) or os.path.basename(output) in ("", ".", ".."):
        raise GEError(
            f"error: --output '{output}' names a folder; give the model's path "
            "without .om (ATC writes OUTPUT.om)"
        )
    return Path(output if output.endswith(".om") else f"{output}.om")


def compile_model(args: argparse.Namespace) -> None:
    """`--model X --framework=3|5 --output Y`: write `Y.om` (`ge_xdsl.compile`)."""
    from ge_runtime.offline.progress import step
    from ge_xdsl.atc import compile_offline_model, fewer_collections, framework_id
    from ge_xdsl.run import with_kernels
    from passes.transdata_report import recording_refusals

    if args.framework is None:
        raise GEError(
            "error: --framework is required with --model (3 = TensorFlow, 5 = ONNX)"
        )
    framework_id(args.framework, args.model)
    check_input_kind(args.model, "an ONNX or TensorFlow model", accepted=MODEL_KINDS)
    if args.output is None:
        raise GEError("error: --output is required")
    path = output_path(args.output)
    with (
        recording_refusals() if args.report_transdata else nullcontext() as ledger,
        fewer_collections(),
    ):
        with step("ge-atc", f"compiling {Path(args.model).name}"):
            offline, compiled = compile_offline_model(
                args.model,
                framework=args.framework,
                input_shape=args.input_shape,
                soc_version=args.soc_version,
                path=str(path),
                **{name: getattr(args, name) for name in ATC_OPTIONS},
            )
        start = time.perf_counter()
        with step("ge-atc", "compiling the kernels"):
            offline = with_kernels(offline, compiled.module)
        LOG.info("compiled the kernels in %.3fs", time.perf_counter() - start)
    with step("ge-atc", f"writing {path}"):
        write_all([offline], memory_report(args, offline.manifest.get("memory", {})))
    print_pass_times(compiled.timer)
    if ledger is not None:
        print(f"{len(ledger.sites)} runtime TransData")
        for site in ledger.sites:
            print(site.text())


def compile_singleop(args: argparse.Namespace) -> None:
    """`--singleop ops.json --output DIR`: one offline model per op."""
    from ge_frontend.importing import errors_located_in
    from ge_frontend.singleop import load_singleop_file
    from ge_runtime.offline.om_ir import make_offline_model
    from ge_runtime.offline.timing import PassTimer
    from ge_xdsl.atc import compile_module, compile_options, fewer_collections

    if args.output is None:
        raise GEError("error: --output (a directory) is required with --singleop")
    if args.model is not None:
        raise GEError("error: give --model or --singleop, not both")
    options = compile_options(
        input_format=args.input_format,
        soc_version=args.soc_version,
        auto_cast_mode=args.auto_cast_mode,
        precision_mode=args.precision_mode,
        max_streams=args.max_streams,
        fusion_switch_file=args.fusion_switch_file,
        disable_fusion=args.disable_fusion,
    )
    entries = load_singleop_file(args.singleop, options.soc_version)
    timer = PassTimer() if args.time_passes else None
    models: list[OfflineModel] = []
    for entry in entries:
        LOG.info("op #%d: %s", entry.index, entry.op_type)
        dump_dir = Path(args.dump_graph) / entry.stem if args.dump_graph else None
        with (
            errors_located_in(args.singleop, f"op #{entry.index} ({entry.op_type})"),
            fewer_collections(),
        ):
            compiled = compile_module(
                entry.module, {}, options, dump_dir, progress=logging.DEBUG, timer=timer
            )
        manifest = {
            "framework": "singleop",
            "model": Path(args.singleop).name,
            "op": entry.op_type,
            "op_index": entry.index,
            "stages": compiled.stages,
            **options.manifest(),
        }
        path = Path(args.output) / f"{entry.stem}.om"
        models.append(
            make_offline_model(
                compiled.module,
                compiled.weights,
                manifest,
                source=compiled.source,
                path=str(path),
            )
        )
    reports = {Path(m.path).stem: m.manifest.get("memory", {}) for m in models}
    write_all(models, memory_report(args, reports))
    print_pass_times(timer)


def memory_report(args: argparse.Namespace, report: object) -> list[tuple[Path, str]]:
    """With `--memory-report FILE`: the report as a file to write."""
    if args.memory_report is None:
        return []
    return [(Path(args.memory_report), json.dumps(report, indent=2) + "\n")]


def print_pass_times(timer: PassTimer | None) -> None:
    """With `--time-passes`: the per-pass table on stderr."""
    if timer is not None:
        for line in timer.lines():
            print(f"ge-atc: time-passes: {line}", file=sys.stderr)


def write_all(
    models: Sequence[OfflineModel], extras: Sequence[tuple[Path, str]] = ()
) -> None:
    """Write every model (and extra files), or none (`write_all_or_none`: a
    new output folder appears only if everything was written)."""
    from ge_runtime.offline.om_ir import write_offline_model

    files: list[tuple[Path, FileData]] = [
        (Path(model.path), functools.partial(write_offline_model, model))
        for model in models
    ]
    write_all_or_none([*files, *extras])
    for path, _ in [*files, *extras]:
        LOG.info("wrote %s (%d bytes)", path, path.stat().st_size)


def convert_to_json(args: argparse.Namespace) -> None:
    """`--mode=1 --om X.om --json X.json`: the offline model as readable JSON."""
    from ge_runtime.offline.om import load_offline_model
    from ge_runtime.offline.om_ir import describe_model

    if args.om is None or args.json is None:
        raise GEError("error: --mode=1 needs --om=FILE.om and --json=FILE.json")
    model = load_offline_model(args.om)
    text = json.dumps(describe_model(model), indent=2) + "\n"
    write_atomically(args.json, text)
    LOG.info("wrote %s", args.json)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


class LogFormatter(logging.Formatter):
    """`ge-atc: message` for info, `ge-atc: warning: message` otherwise."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.levelno == logging.INFO:
            return f"ge-atc: {message}"
        return f"ge-atc: {record.levelname.lower()}: {message}"


Job = Callable[[argparse.Namespace], None]


def select_job(args: argparse.Namespace) -> Job:
    """The job the command line asks for."""
    if args.mode not in MODES:
        listed = ", ".join(f"{k} ({v})" for k, v in MODES.items())
        raise GEError(f"error: --mode={args.mode} is not supported (modes: {listed})")
    if args.mode == 1:
        return convert_to_json
    if args.singleop is not None:
        return compile_singleop
    if args.model is None:
        raise GEError("error: --model is required (or --singleop, or --mode=1)")
    return compile_model


def run(argv: Sequence[str] | None) -> None:
    """Parse the command line and run the chosen job."""
    args = build_parser().parse_args(argv)
    job = select_job(args)
    with (
        budget_of(args.memory_budget),
        logging_to_stderr(LOGGERS, args.log, LogFormatter()),
        staged(args.dump_graph) as dump_folder,
    ):
        args.dump_graph = dump_folder  # the stages go there until the job is done
        job(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-atc`."""
    return run_tool("ge-atc", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
