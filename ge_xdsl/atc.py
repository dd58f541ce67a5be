"""ATC's compile flow as a library: import, the compile stages, the offline model.

`ge_xdsl.compile` and `ge-atc` both run `compile_offline_model`: a model is
imported with its framework's front end (`FRONT_ENDS`), then graph fusion
(`fold-bias-add`, `fold-batch-norm`, `fold-reduce-reshape`,
`fold-row-flatten`, `fold-squeeze-chain`, `fold-reshape-transpose`,
`fold-transpose-into-matmul`), shape folding (`fold-shapes`), with
`precision_mode` the compute dtypes (`select-precision`), constant folding
(`fold-constants`), the format
pipeline (`ge-format-pipeline` with `input_format` as data format and the
`soc_version`'s C0 table), UB fusion (`fuse-ops`), the engine stages
(`insert-aicpu-cast` with `auto_cast_mode=1`, `partition-engines`,
`mark-fallback`), `assign-streams` with `max_streams`, and `plan-memory`.
Every stage is verified (not again when it left the module unchanged:
`StageVerifier`), logs one progress line (logger `ge_xdsl`) and, with
a dump directory, writes its IR and picture (`ge_runtime.offline.graphviz_dump`).

The options are ATC's flags, spelt as keywords (`ATC_OPTIONS`); a value
ATC would reject is a one-line `GEError` naming the flag.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ge_dialect.constants import StorageWeights, derive_storage_weights
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.formats import FormatError
from ge_dialect.limits import check_ops_memory
from ge_dialect.ops import TARGET_ATTRIBUTE
from ge_dialect.targets import PRECISION_MODES, get_target
from ge_dialect.verification import StageVerifier
from ge_frontend.importing import (
    ImportedModel,
    errors_located_in,
    parse_input_shapes,
)
from ge_runtime.offline.om import OfflineModel
from ge_runtime.offline.om_ir import make_offline_model
from ge_runtime.offline.progress import detail as progress_detail
from ge_runtime.offline.timing import PassTimer
from ge_xdsl.atc_flags import (
    ATC_OPTIONS,
    DEFAULT_INPUT_FORMATS,
    FRAMEWORK_MESSAGES,
    FRAMEWORK_SUFFIXES,
    FRAMEWORKS,
    INPUT_FORMATS,
    ONNX_FRAMEWORK,
    SUPPORTED_FRAMEWORKS,
    TENSORFLOW_FRAMEWORK,
)
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
from passes.memory_planning import PLAN_ATTRIBUTES
from passes.transdata_report import REFUSALS, transdata_sites

LOG = logging.getLogger("ge_xdsl")


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
    precision_mode: str | None = None
    """ATC's `--precision_mode` (`select-precision`); None keeps every dtype."""

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
                "precision_mode": self.precision_mode,
            }
        }


def compile_options(
    framework: int | None = None,
    *,
    input_format: str | None = None,
    input_shape: str | None = None,
    soc_version: str | None = None,
    auto_cast_mode: int = 0,
    max_streams: int | None = None,
    fusion_switch_file: str | os.PathLike[str] | None = None,
    disable_fusion: bool = False,
    precision_mode: str | None = None,
) -> CompileOptions:
    """Validated compile options (ATC's flags; errors name the flag)."""
    input_format = input_format or DEFAULT_INPUT_FORMATS.get(framework or 0, "NCHW")
    if input_format not in INPUT_FORMATS:
        raise GEError(
            f"error: --input_format={input_format} is not supported "
            f"(use one of {', '.join(INPUT_FORMATS)})"
        )
    soc = None
    if soc_version is not None:
        try:
            soc = get_target(soc_version).name
        except FormatError as error:
            raise GEError(f"error: --soc_version: {error}") from None
    if auto_cast_mode not in (0, 1):
        raise GEError(f"error: --auto_cast_mode={auto_cast_mode} must be 0 or 1")
    if max_streams is not None and not 1 <= max_streams <= MAX_STREAMS:
        raise GEError(
            f"error: --max-streams={max_streams} must be in [1, {MAX_STREAMS}]"
        )
    if precision_mode is not None and precision_mode not in PRECISION_MODES:
        raise GEError(
            f"error: --precision_mode={precision_mode} is not supported "
            f"(use one of {', '.join(PRECISION_MODES)})"
        )
    switched_off = (
        read_fusion_switch_file(str(fusion_switch_file))
        if fusion_switch_file is not None
        else frozenset()
    )
    return CompileOptions(
        input_format,
        input_shape,
        soc,
        framework,
        auto_cast_mode,
        max_streams,
        not disable_fusion,
        tuple(sorted(switched_off)),
        precision_mode,
    )


COMPILE_PARAMETERS = ("input_shape", "soc_version", "framework", "weights")
"""`ge_xdsl.compile`'s named parameters (suggested for a misspelt option)."""


def check_option_names(options: Mapping[str, object]) -> None:
    """TypeError for a keyword that is not one of `ATC_OPTIONS`."""
    for name in options:
        if name not in ATC_OPTIONS:
            known = (*ATC_OPTIONS, *COMPILE_PARAMETERS)
            close = get_close_matches(name, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise TypeError(
                f"unknown ATC option '{name}'{hint}; options: {', '.join(ATC_OPTIONS)}"
            )


def framework_id(framework: int | str | None, model: object) -> int | None:
    """ATC's framework number: given (number or name), or from the model."""
    if isinstance(framework, str):
        names = {name: number for number, name in SUPPORTED_FRAMEWORKS.items()}
        if framework.lower() not in names:
            raise GEError(
                f"error: framework '{framework}' is not supported "
                f"(frameworks: {', '.join(names)})"
            )
        return names[framework.lower()]
    if framework is not None:
        if framework not in SUPPORTED_FRAMEWORKS:
            name = FRAMEWORKS.get(framework, "unknown")
            raise GEError(
                f"error: --framework={framework} ({name}) is not supported; ge-atc "
                "reads TensorFlow (--framework=3) and ONNX (--framework=5) models"
            )
        return framework
    if isinstance(model, ModuleOp):
        return None
    if isinstance(model, str | os.PathLike):
        suffix = Path(model).suffix.lower()
        if suffix in FRAMEWORK_SUFFIXES:
            return FRAMEWORK_SUFFIXES[suffix]
        raise GEError(
            f"error: cannot tell the framework of '{model}' from its suffix "
            f"({', '.join(FRAMEWORK_SUFFIXES)}); give framework="
        )
    return FRAMEWORK_MESSAGES.get(_message_name(model), ONNX_FRAMEWORK)


def _message_name(model: object) -> str | None:
    """The protobuf message type of an in-memory model (`tensorflow.GraphDef`)."""
    descriptor = getattr(model, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None)


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------


def _import_onnx(
    model: Any, shapes: Any, out_nodes: Any, verify: bool
) -> ImportedModel:
    from ge_frontend.onnx_import import import_onnx

    if out_nodes is not None:
        raise GEError("error: --out_nodes is supported with --framework=3")
    return import_onnx(model, input_shapes=shapes, verify=verify)


def _import_tensorflow(
    model: Any, shapes: Any, out_nodes: Any, verify: bool
) -> ImportedModel:
    from ge_frontend.tf_import import import_tensorflow, parse_out_nodes

    if isinstance(out_nodes, str):
        out_nodes = parse_out_nodes(out_nodes)
    return import_tensorflow(
        model, input_shapes=shapes, out_nodes=out_nodes, verify=verify
    )


FRONT_ENDS: dict[int, Callable[[Any, Any, Any, bool], ImportedModel]] = {
    ONNX_FRAMEWORK: _import_onnx,
    TENSORFLOW_FRAMEWORK: _import_tensorflow,
}
"""ATC framework number -> its importer (model, input shapes, out_nodes,
whether to verify the module)."""


def import_model(
    model: Any,
    framework: int,
    input_shape: str | Mapping[str, Sequence[int]] | None = None,
    out_nodes: str | Sequence[tuple[str, int]] | None = None,
    verify: bool = True,
) -> ImportedModel:
    """`model` (a file or the framework's in-memory model) imported as a
    graph, verified unless `verify` is off (`compile_module` verifies the
    module before its first stage)."""
    shapes = (
        parse_input_shapes(input_shape)
        if isinstance(input_shape, str)
        else (input_shape)
    )
    return FRONT_ENDS[framework](model, shapes, out_nodes, verify)


def input_shape_text(
    input_shape: str | Mapping[str, Sequence[int]] | None,
) -> str | None:
    """ATC's `--input_shape` text (`x:1,3,8,8;y:2`) of a shape mapping."""
    if input_shape is None or isinstance(input_shape, str):
        return input_shape
    return ";".join(
        f"{name}:{','.join(str(d) for d in dims)}" for name, dims in input_shape.items()
    )


# ---------------------------------------------------------------------------
# The compile stages
# ---------------------------------------------------------------------------


@dataclass
class Compiled:
    """A compiled graph: the optimised module, its weights and its source."""

    module: ModuleOp
    weights: StorageWeights
    """The imported and folded weights, and the laid-out ones as they are read."""
    source: ModuleOp
    stages: list[str] = field(default_factory=list)
    timer: PassTimer | None = None
    """With `time_passes`: the time of each pass."""


def op_count(module: ModuleOp) -> int:
    """The number of ops in `module`'s graphs."""
    return sum(1 for _ in module.walk()) - 1


def stage_verifier() -> StageVerifier:
    """What verifies the module between the stages: again only where a stage
    may have made it invalid, the memory plan's attributes (`plan-memory`'s
    1,200 offsets on CRNN) as annotations, checked by the plan's own checker
    where the plan is used (`check_graph_plan`)."""
    return StageVerifier(PLAN_ATTRIBUTES)


@dataclass
class StageMonitor:
    """After each stage: verify, check the memory its tensors claim, log one
    progress line, dump with a dump directory.

    The memory check (`check_ops_memory`) refuses a graph whose static
    tensor types (inputs, intermediates, outputs) claim more than the memory
    budget, at the op that claims it: what `ge-run` would refuse before
    allocating, refused at compile time instead (dynamic dims are checked
    when they are known, at run time).

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
    """With `time_passes`: each pass's time (verification left out)."""
    verify: StageVerifier = field(default_factory=stage_verifier)
    """Verifies the module after each stage (not again when it is unchanged)."""

    def __call__(self, inner: ModulePass, module: ModuleOp, _: object) -> None:
        elapsed = time.perf_counter() - self.started
        verified = self.verify(module)
        self.rounds += inner.name == GE_OPTIMISATION[0]  # each round starts with it
        label = f"round {self.rounds}: {inner.name}" if self.rounds else inner.name
        self.record(label, module, elapsed, inner.name, verified)

    def record(
        self,
        stage: str,
        module: ModuleOp,
        elapsed: float | None = None,
        pass_name: str | None = None,
        verified: Iterable[Operation] | None = None,
    ) -> None:
        """Log and dump the module after `stage` (pass `pass_name`). The
        memory check is of the ops `verify` verified again (`verified`; by
        default all): the others' result types are what they were."""
        if elapsed is None:
            elapsed = time.perf_counter() - self.started
        check_ops_memory(module.walk() if verified is None else verified)
        if self.timer is not None and pass_name is not None:
            self.timer.record(pass_name, elapsed)
        number = len(self.stages)
        self.stages.append(stage)
        if LOG.isEnabledFor(self.progress):  # counting walks the module twice
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
"""Before memory planning, with `max_streams`."""
GRAPH_FUSION_STAGES = (
    "fold-bias-add",
    "fold-batch-norm",
    "fold-reduce-reshape",
    "fold-row-flatten",
    "fold-squeeze-chain",
    "fold-reshape-transpose",
    "fold-transpose-into-matmul",
)
"""ATC's graph fusion (unless `fusion` is off): biases and batch norms into
the conv or matmul before them, reshapes that restore reduced dims into the
reduction, flattens of the leading dims around row-wise ops (a LayerNorm
body), squeezes of unit axes around elementwise ops that unsqueezes put
back (1-D convolutions in a row), an image's flatten into rows of
channels (a patch embedding) or rows folded back into an image into one
confusion transpose, transposes of a product operand's innermost axis into
the product."""
PRECISION_STAGE = "select-precision"
"""With `precision_mode`: each op's compute dtype, before constants fold (the
casts of weights fold into float16 weights)."""
SHAPE_STAGE = "fold-shapes"
"""Shape computations over static dims become constants (before folding)."""
CONSTANT_STAGE = "fold-constants"
"""Before the format pipeline (the graph fusion unless fusion is disabled)."""
MERGE_STAGE = "merge-identical-ops"
"""After folding: what each layer recomputed (a mask from the same input,
equal constants) is computed once."""
UB_FUSION_STAGE = "fuse-ops"
"""After the format pipeline, unless fusion is disabled."""


def compile_module(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    options: CompileOptions,
    dump_dir: str | Path | None = None,
    progress: int = logging.INFO,
    timer: PassTimer | None = None,
    verifier: StageVerifier | None = None,
) -> Compiled:
    """Run graph fusion and constant folding, the format pipeline, UB fusion,
    the engine stages and memory planning on `module` (in place).

    The weights come back laid out, with the folded ones added. The
    result's `source` (what `ge-run --check` compares with) is the graph
    after graph fusion: it reads the weights the optimised graph reads, in
    origin layout (derived back from theirs, not stored again); the folds
    are exact arithmetic, checked against onnxruntime by their own tests.

    The module is verified first (with its target; not again if `verifier`
    found it valid as it is), then after each stage. Each stage logs one
    progress line at level `progress`; `timer` adds up the time of each pass.
    """
    set_target(module, options.soc_version)
    verify = stage_verifier() if verifier is None else verifier
    monitor = StageMonitor(progress, dump_dir, timer=timer, verify=verify)
    verify(module)  # again only if `verifier` did not find it valid as it is
    monitor.record("import", module)
    pass_options: dict[str, dict[str, Any]] = {
        STREAM_STAGE: {"max_streams": options.max_streams},
        **{name: {"disable": options.fusion_off} for name in GRAPH_FUSION_STAGES},
        UB_FUSION_STAGE: {"disable": options.fusion_off},
        PRECISION_STAGE: {"mode": options.precision_mode},
    }

    def run_stage(name: str) -> None:
        progress_detail(name)
        start = time.perf_counter()
        stage_pass = get_all_passes()[name]()(**pass_options.get(name, {}))
        stage_pass.apply(make_context(), module)
        elapsed = time.perf_counter() - start
        monitor.record(name, module, elapsed, name, monitor.verify(module))

    weights = dict(weights)  # the folding stages add their folded arrays
    graph_stages = GRAPH_FUSION_STAGES if options.fusion else ()
    token = FOLD_WEIGHTS.set(weights)
    try:
        for name in graph_stages:
            run_stage(name)
        source = module.clone()
        precision = () if options.precision_mode is None else (PRECISION_STAGE,)
        for name in (
            SHAPE_STAGE,
            *precision,
            CONSTANT_STAGE,
            MERGE_STAGE,
        ):
            run_stage(name)
    finally:
        FOLD_WEIGHTS.reset(token)
    pipeline = FormatPipelinePass(
        data_format=options.input_format, target=options.soc_version
    )
    token = NESTED_PASS_CALLBACK.set(monitor)
    progress_detail(pipeline.name)
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
    if (ledger := REFUSALS.get()) is not None:
        ledger.sites = transdata_sites(module, ledger)
    return Compiled(module, laid_out, source, monitor.stages, timer)


def set_target(module: ModuleOp, soc_version: str | None) -> None:
    """Name the target the module's layouts are for (`ge.target`), if any."""
    if soc_version is not None:
        module.attributes[TARGET_ATTRIBUTE] = StringAttr(soc_version)


def dump(
    directory: str | Path | None, index: int, stage: str, module: ModuleOp
) -> None:
    """With a dump directory: the IR and picture after a stage."""
    if directory is None:
        return
    from ge_runtime.offline.graphviz_dump import dump_stage

    slug = stage.replace(": ", "-").replace(" ", "-")
    for path in dump_stage(directory, index, slug, module):
        LOG.debug("wrote %s", path)


COMPILE_COLLECTION_THRESHOLD = 20_000
"""Allocations between two passes of Python's cyclic garbage collector over
its youngest objects while a model compiles (`fewer_collections`; Python's
default is 700)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within the body, Python's garbage collector runs less often: a compile
    makes millions of objects (IR, code) that mostly live until it ends, and
    each full pass walks all of them (ShuffleNet's `ge-atc`: 1.9 s of its
    14 s of Python in 10 full passes, 0.3 s with `COMPILE_COLLECTION_THRESHOLD`).
    The objects made before (the modules imported: xDSL, NumPy, ONNX) are
    frozen (`gc.freeze`): no pass walks them (CRNN's full passes: 0.4 s,
    0.01 s frozen). Garbage made within is still collected, in fewer
    passes."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(COMPILE_COLLECTION_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def compile_offline_model(
    model: Any,
    *,
    framework: int | str | None = None,
    input_shape: str | Mapping[str, Sequence[int]] | None = None,
    soc_version: str | None = None,
    weights: Mapping[str, np.ndarray] | None = None,
    path: str = "<offline model>",
    **atc_options: Any,
) -> tuple[OfflineModel, Compiled]:
    """Import `model` (a file, an `onnx.ModelProto`, a TensorFlow `GraphDef`
    or a `ge` module with its `weights`) and compile it into an offline model.

    `atc_options` are `ATC_OPTIONS`; with `time_passes=True` the result's
    `timer` holds each pass's time.
    """
    check_option_names(atc_options)
    timer = PassTimer() if atc_options.get("time_passes") else None
    number = framework_id(framework, model)
    options = compile_options(
        number,
        input_format=atc_options.get("input_format"),
        input_shape=input_shape_text(input_shape),
        soc_version=soc_version,
        auto_cast_mode=atc_options.get("auto_cast_mode", 0),
        max_streams=atc_options.get("max_streams"),
        fusion_switch_file=atc_options.get("fusion_switch_file"),
        disable_fusion=atc_options.get("disable_fusion", False),
        precision_mode=atc_options.get("precision_mode"),
    )
    start = time.perf_counter()
    from_file = isinstance(model, str | os.PathLike)
    verifier = stage_verifier()
    if number is None:
        imported = ImportedModel(model.clone(), dict(weights or {}))
        label = "mlir"
    else:
        progress_detail("import")
        imported = import_model(
            model, number, input_shape, atc_options.get("out_nodes"), not from_file
        )
        if from_file:  # verified once, with its target, by the stages' verifier;
            # its errors located in the file as the importer's are
            set_target(imported.module, options.soc_version)
            with errors_located_in(os.fspath(model)):
                verifier(imported.module)
        label = SUPPORTED_FRAMEWORKS[number]
        elapsed = time.perf_counter() - start
        LOG.info("parsed %s in %.3fs", _describe(model), elapsed)
        if timer is not None:
            timer.record("import", elapsed)
    with errors_located_in(os.fspath(model)) if from_file else nullcontext():
        compiled = compile_module(
            imported.module,
            imported.weights,
            options,
            atc_options.get("dump_graph"),
            timer=timer,
            verifier=verifier,
        )
    manifest = {"framework": label, "stages": compiled.stages, **options.manifest()}
    if from_file:
        manifest["model"] = Path(model).name
    progress_detail("laying out the weights")
    offline = make_offline_model(
        compiled.module,
        compiled.weights,
        manifest,
        source=compiled.source,
        path=path,
    )
    return offline, compiled


def _describe(model: object) -> str:
    return str(model) if isinstance(model, str | os.PathLike) else type(model).__name__
