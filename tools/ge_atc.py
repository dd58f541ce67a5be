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

The flags are ATC's (`--flag=value` or `--flag value`). A model is imported
(`--framework=5`: ONNX, `ge_frontend/onnx_import.py`; `--framework=3`: a
TensorFlow frozen GraphDef, `ge_frontend/tf_import.py`, whose outputs
`--out_nodes` picks; `--input_format` defaults to NHWC for TensorFlow and
NCHW otherwise, as in ATC); ATC's graph fusion folds inference batch
norm into the convolution or matmul before it (`fold-batch-norm`) and
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
The result is an offline model (`ge_runtime/offline_model.py`) holding the
optimised IR, its weights laid out at compile time (ATC's weight
reordering) and the imported graph (for `ge-run --check`).

`--singleop` compiles each entry of an ATC single-op description list
(`ge_frontend/singleop.py`) into `DIR/<index>_<OpType>_<descs>.om`.
`--mode=1` writes an offline model as readable JSON. Bad flags and bad input
are one-line errors with exit code 1; nothing is written unless everything
succeeded.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from ge_dialect.constants import derive_storage_weights
from ge_dialect.diagnostics import GEError, verify_module
from ge_dialect.files import write_atomically
from ge_dialect.formats import FormatError, get_target
from ge_dialect.limits import budget_of
from ge_dialect.ops import TARGET_ATTRIBUTE
from ge_frontend.importing import ImportedModel
from ge_runtime.offline_model import (
    OfflineModel,
    describe_model,
    encode,
    load_offline_model,
    make_offline_model,
)
from ge_runtime.profiling import PassTimer
from passes import get_all_passes
from passes.assign_streams import MAX_STREAMS
from passes.fold_constants import FOLD_WEIGHTS
from passes.format_pipeline import (
    GE_OPTIMISATION,
    NESTED_PASS_CALLBACK,
    FormatPipelinePass,
    runtime_transdata_count,
)
from passes.fuse_ops import read_fusion_switch_file
from tools.common import (
    LOG_LEVELS,
    add_memory_budget_flag,
    logging_to_stderr,
    one_line_errors,
    run_tool,
)

LOG = logging.getLogger("ge_atc")

FRAMEWORKS = {0: "Caffe", 1: "MindSpore", 3: "TensorFlow", 5: "ONNX"}
"""ATC's `--framework` values; this compiler reads TensorFlow (3) and ONNX (5)."""
TENSORFLOW_FRAMEWORK = 3
ONNX_FRAMEWORK = 5
SUPPORTED_FRAMEWORKS = {TENSORFLOW_FRAMEWORK: "tensorflow", ONNX_FRAMEWORK: "onnx"}
"""`--framework` values ge-atc reads -> the manifest's framework name."""
DEFAULT_INPUT_FORMATS = {TENSORFLOW_FRAMEWORK: "NHWC"}
"""ATC's default `--input_format` per framework (NCHW for the others)."""

INPUT_FORMATS = ("NCHW", "NHWC", "ND", "NCDHW", "NDHWC")
"""`--input_format` values: the `data-format` of `infer-origin-format`."""

LOGGERS = ("ge_atc", "ge_runtime", "passes")
"""The loggers whose records `--log` routes to stderr (passes: `mark-fallback`)."""

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
        help="fix input shapes (dynamic dims)",
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
    add_memory_budget_flag(parser)
    return one_line_errors(parser)


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileOptions:
    """What a compile depends on, as recorded in the offline model's manifest."""

    input_format: str = "NCHW"
    input_shape: str | None = None
    soc_version: str | None = None
    framework: int | None = None
    auto_cast_mode: int = 0
    max_streams: int | None = None
    fusion: bool = True
    fusion_off: tuple[str, ...] = ()
    """Fusion rules switched off (`--fusion_switch_file`)."""

    def manifest(self) -> dict[str, Any]:
        """The options as manifest entries."""
        return {
            "compile_options": {
                "framework": self.framework,
                "input_format": self.input_format,
                "input_shape": self.input_shape,
                "soc_version": self.soc_version,
                "auto_cast_mode": self.auto_cast_mode,
                "max_streams": self.max_streams,
                "fusion": self.fusion,
                "fusion_off": list(self.fusion_off),
            }
        }


def compile_options(args: argparse.Namespace) -> CompileOptions:
    """Validated compile options from the command line."""
    input_format = args.input_format or DEFAULT_INPUT_FORMATS.get(
        args.framework, "NCHW"
    )
    if input_format not in INPUT_FORMATS:
        raise GEError(
            f"error: --input_format={input_format} is not supported "
            f"(use one of {', '.join(INPUT_FORMATS)})"
        )
    soc = None
    if args.soc_version is not None:
        try:
            soc = get_target(args.soc_version).name
        except FormatError as error:
            raise GEError(f"error: --soc_version: {error}") from None
    if args.max_streams is not None and not 1 <= args.max_streams <= MAX_STREAMS:
        raise GEError(
            f"error: --max-streams={args.max_streams} must be in [1, {MAX_STREAMS}]"
        )
    switched_off = (
        read_fusion_switch_file(args.fusion_switch_file)
        if args.fusion_switch_file is not None
        else frozenset()
    )
    return CompileOptions(
        input_format,
        args.input_shape,
        soc,
        args.framework,
        args.auto_cast_mode,
        args.max_streams,
        not args.disable_fusion,
        tuple(sorted(switched_off)),
    )


# ---------------------------------------------------------------------------
# The compile stages
# ---------------------------------------------------------------------------


@dataclass
class Compiled:
    """A compiled graph: the optimised module, its weights and its source."""

    module: ModuleOp
    weights: dict[str, np.ndarray]
    source: ModuleOp
    stages: list[str] = field(default_factory=list)


def op_count(module: ModuleOp) -> int:
    """The number of ops in `module`'s graphs."""
    return sum(1 for _ in module.walk()) - 1


@dataclass
class StageMonitor:
    """After each stage: verify, log one progress line, dump with `--dump-graph`.

    Called by the format pipeline after each of its passes
    (`NESTED_PASS_CALLBACK`); passes of the optimisation rounds are labelled
    `round N: PASS`.
    """

    progress: int = logging.INFO
    dump_dir: str | Path | None = None
    stages: list[str] = field(default_factory=list)
    rounds: int = 0
    started: float = field(default_factory=time.perf_counter)
    timer: PassTimer | None = None
    """With `--time-passes`: each pass's time (verification left out)."""

    def __call__(self, inner: ModulePass, module: ModuleOp, _: object) -> None:
        elapsed = time.perf_counter() - self.started
        verify_module(module)
        self.rounds += inner.name == GE_OPTIMISATION[0]  # each round starts with it
        label = f"round {self.rounds}: {inner.name}" if self.rounds else inner.name
        self.record(label, module, elapsed, inner.name)

    def record(
        self,
        stage: str,
        module: ModuleOp,
        elapsed: float | None = None,
        pass_name: str | None = None,
    ) -> None:
        """Log and dump the module after `stage` (pass `pass_name`)."""
        if elapsed is None:
            elapsed = time.perf_counter() - self.started
        if self.timer is not None and pass_name is not None:
            self.timer.record(pass_name, elapsed)
        number = len(self.stages)
        self.stages.append(stage)
        LOG.log(
            self.progress,
            "[%02d] %s: %.3fs, %d ops, %d runtime TransData",
            number,
            stage,
            elapsed,
            op_count(module),
            runtime_transdata_count(module),
        )
        dump(self.dump_dir, number, stage, module)
        self.started = time.perf_counter()


ENGINE_STAGES = ("insert-aicpu-cast", "partition-engines", "mark-fallback")
"""After the format pipeline (SPEC §4 step 8); the first only with AutoCastMode."""
MEMORY_STAGE = "plan-memory"
"""The last stage (SPEC §4 step 9)."""
STREAM_STAGE = "assign-streams"
"""Before memory planning, with `--max-streams`."""
GRAPH_FUSION_STAGE = "fold-batch-norm"
CONSTANT_STAGE = "fold-constants"
"""Before the format pipeline (the graph fusion unless `--disable-fusion`)."""
UB_FUSION_STAGE = "fuse-ops"
"""After the format pipeline, unless `--disable-fusion`."""


def compile_module(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    options: CompileOptions,
    dump_dir: str | Path | None = None,
    progress: int = logging.INFO,
    timer: PassTimer | None = None,
) -> Compiled:
    """Run graph fusion and constant folding, the format pipeline, UB fusion,
    the engine stages and memory planning on `module` (in place).

    The weights come back laid out, with the folded ones added.

    Each stage logs one progress line at level `progress`; `timer` adds up
    the time of each pass.
    """
    from ge_dialect.dialect import make_context

    source = module.clone()
    if options.soc_version is not None:
        module.attributes[TARGET_ATTRIBUTE] = StringAttr(options.soc_version)
    monitor = StageMonitor(progress, dump_dir, timer=timer)
    monitor.record("import", module)
    pass_options: dict[str, dict[str, Any]] = {
        STREAM_STAGE: {"max_streams": options.max_streams},
        GRAPH_FUSION_STAGE: {"disable": options.fusion_off},
        UB_FUSION_STAGE: {"disable": options.fusion_off},
    }

    def run_stage(name: str) -> None:
        start = time.perf_counter()
        stage_pass = get_all_passes()[name]()(**pass_options.get(name, {}))
        stage_pass.apply(make_context(), module)
        elapsed = time.perf_counter() - start
        verify_module(module)
        monitor.record(name, module, elapsed, name)

    weights = dict(weights)  # the folding stages add their folded arrays
    graph_stages = (GRAPH_FUSION_STAGE,) if options.fusion else ()
    token = FOLD_WEIGHTS.set(weights)
    try:
        for name in (*graph_stages, CONSTANT_STAGE):
            run_stage(name)
    finally:
        FOLD_WEIGHTS.reset(token)
    pipeline = FormatPipelinePass(
        data_format=options.input_format, target=options.soc_version
    )
    token = NESTED_PASS_CALLBACK.set(monitor)
    try:
        pipeline.apply(make_context(), module)
    finally:
        NESTED_PASS_CALLBACK.reset(token)
    laid_out = derive_storage_weights(module, weights, options.soc_version)
    fusion = (UB_FUSION_STAGE,) if options.fusion else ()
    stages = ENGINE_STAGES if options.auto_cast_mode else ENGINE_STAGES[1:]
    streams = () if options.max_streams is None else (STREAM_STAGE,)
    for name in (*fusion, *stages, *streams, MEMORY_STAGE):
        run_stage(name)
    return Compiled(module, laid_out, source, monitor.stages)


def dump(
    directory: str | Path | None, index: int, stage: str, module: ModuleOp
) -> None:
    """With `--dump-graph`: the IR and picture after a stage."""
    if directory is None:
        return
    from ge_runtime.graphviz_dump import dump_stage

    slug = stage.replace(": ", "-").replace(" ", "-")
    for path in dump_stage(directory, index, slug, module):
        LOG.debug("wrote %s", path)


# ---------------------------------------------------------------------------
# The three jobs
# ---------------------------------------------------------------------------


def output_path(output: str) -> Path:
    """ATC's `--output`: the offline model is `OUTPUT.om`."""
    return Path(output if output.endswith(".om") else f"{output}.om")


def import_model(args: argparse.Namespace) -> ImportedModel:
    """The `--model` imported with the `--framework`'s front end."""
    from ge_frontend.importing import parse_input_shapes

    shapes = parse_input_shapes(args.input_shape) if args.input_shape else None
    if args.framework == TENSORFLOW_FRAMEWORK:
        from ge_frontend.tf_import import import_tensorflow, parse_out_nodes

        out_nodes = parse_out_nodes(args.out_nodes) if args.out_nodes else None
        return import_tensorflow(args.model, input_shapes=shapes, out_nodes=out_nodes)
    from ge_frontend.onnx_import import import_onnx

    if args.out_nodes is not None:
        raise GEError("error: --out_nodes is supported with --framework=3")
    return import_onnx(args.model, input_shapes=shapes)


def compile_model(args: argparse.Namespace) -> None:
    """`--model X --framework=3|5 --output Y`: write `Y.om`."""
    if args.framework is None:
        raise GEError(
            "error: --framework is required with --model (3 = TensorFlow, 5 = ONNX)"
        )
    if args.framework not in SUPPORTED_FRAMEWORKS:
        name = FRAMEWORKS.get(args.framework, "unknown")
        raise GEError(
            f"error: --framework={args.framework} ({name}) is not supported; "
            "ge-atc reads TensorFlow (--framework=3) and ONNX (--framework=5) models"
        )
    if args.output is None:
        raise GEError("error: --output is required")
    options = compile_options(args)
    timer = PassTimer() if args.time_passes else None
    start = time.perf_counter()
    imported = import_model(args)
    elapsed = time.perf_counter() - start
    LOG.info("parsed %s in %.3fs", args.model, elapsed)
    if timer is not None:
        timer.record("import", elapsed)
    compiled = compile_module(
        imported.module, imported.weights, options, args.dump_graph, timer=timer
    )
    manifest = {
        "framework": SUPPORTED_FRAMEWORKS[args.framework],
        "model": Path(args.model).name,
        "stages": compiled.stages,
        **options.manifest(),
    }
    model = make_offline_model(
        compiled.module,
        {**imported.weights, **compiled.weights},
        manifest,
        source=compiled.source,
        path=str(output_path(args.output)),
    )
    write_all([model], memory_report(args, model.manifest.get("memory", {})))
    print_pass_times(timer)


def compile_singleop(args: argparse.Namespace) -> None:
    """`--singleop ops.json --output DIR`: one offline model per op."""
    from ge_frontend.singleop import load_singleop_file

    if args.output is None:
        raise GEError("error: --output (a directory) is required with --singleop")
    if args.model is not None:
        raise GEError("error: give --model or --singleop, not both")
    options = compile_options(args)
    entries = load_singleop_file(args.singleop, options.soc_version)
    timer = PassTimer() if args.time_passes else None
    models: list[OfflineModel] = []
    for entry in entries:
        LOG.info("op #%d: %s", entry.index, entry.op_type)
        dump_dir = Path(args.dump_graph) / entry.stem if args.dump_graph else None
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
    """Write every model (and extra files), or none: files already written go
    if one fails."""
    blobs: list[tuple[Path, bytes | str]] = [
        (Path(model.path), encode(model)) for model in models
    ]
    blobs += extras
    written: list[Path] = []
    try:
        for path, blob in blobs:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, blob)
            written.append(path)
            LOG.info("wrote %s (%d bytes)", path, len(blob))
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise


def convert_to_json(args: argparse.Namespace) -> None:
    """`--mode=1 --om X.om --json X.json`: the offline model as readable JSON."""
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
    ):
        job(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-atc`."""
    return run_tool("ge-atc", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
