"""The compiler's passes, one per module, registered lazily by name.

`PASSES` maps each pass name to the module and class that implement it; the
module is imported only when the pass is requested. `pass_help` describes
every pass (summary and options) without importing any: `ge-opt --help`.
"""

import json
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

from xdsl.passes import ModulePass

PASSES: dict[str, tuple[str, str]] = {
    "infer-origin-format": ("infer_origin_format", "InferOriginFormatPass"),
    "infer-shape": ("infer_shape", "InferShapePass"),
    "refine-running-format": ("refine_running_format", "RefineRunningFormatPass"),
    "select-storage-format": ("select_storage_format", "SelectStorageFormatPass"),
    "insert-transdata": ("insert_transdata", "InsertTransDataPass"),
    "convert-ge-to-loops": ("lowering.convert_ge_to_loops", "ConvertGeToLoopsPass"),
    "transop-symmetry-elimination": (
        "transop_symmetry_elimination",
        "TransOpSymmetryEliminationPass",
    ),
    "transop-breadth-fusion": ("transop_breadth_fusion", "TransOpBreadthFusionPass"),
    "transop-without-reshape-fusion": (
        "transop_without_reshape_fusion",
        "TransOpWithoutReshapeFusionPass",
    ),
    "same-transdata-breadth-fusion": (
        "same_transdata_breadth_fusion",
        "SameTransdataBreadthFusionPass",
    ),
    "transpose-transdata-fusion": (
        "transpose_transdata_fusion",
        "TransposeTransDataFusionPass",
    ),
    "unchanged-transpose-remove": (
        "unchanged_transpose_remove",
        "UnchangedTransposeRemovePass",
    ),
    "cast-remove": ("cast_remove", "CastRemovePass"),
    "dim1-transpose-to-squeeze": (
        "dim1_transpose_to_squeeze",
        "Dim1TransposeToSqueezePass",
    ),
    "compose-trans-ops": ("compose_trans_ops", "ComposeTransOpsPass"),
    "sink-trans-ops": ("sink_trans_ops", "SinkTransOpsPass"),
    "fuse-confusion-transpose": (
        "fuse_confusion_transpose",
        "FuseConfusionTransposePass",
    ),
    "ge-format-pipeline": ("format_pipeline", "FormatPipelinePass"),
    "partition-engines": ("partition_engines", "PartitionEnginesPass"),
    "insert-aicpu-cast": ("insert_aicpu_cast", "InsertAICPUCastPass"),
    "mark-fallback": ("mark_fallback", "MarkFallbackPass"),
    "plan-memory": ("plan_memory", "PlanMemoryPass"),
    "assign-streams": ("assign_streams", "AssignStreamsPass"),
    "fold-bias-add": ("fold_bias_add", "FoldBiasAddPass"),
    "fold-batch-norm": ("fold_batch_norm", "FoldBatchNormPass"),
    "fold-reduce-reshape": ("fold_reduce_reshape", "FoldReduceReshapePass"),
    "fold-constants": ("fold_constants", "FoldConstantsPass"),
    "merge-identical-ops": ("merge_identical_ops", "MergeIdenticalOpsPass"),
    "select-precision": ("select_precision", "SelectPrecisionPass"),
    "fold-row-flatten": ("fold_row_flatten", "FoldRowFlattenPass"),
    "fold-squeeze-chain": ("fold_squeeze_chain", "FoldSqueezeChainPass"),
    "fold-transpose-into-matmul": (
        "fold_transpose_into_matmul",
        "FoldTransposeIntoMatMulPass",
    ),
    "fold-reshape-transpose": ("fold_reshape_transpose", "FoldReshapeTransposePass"),
    "fold-shapes": ("fold_shapes", "FoldShapesPass"),
    "fuse-ops": ("fuse_ops", "FuseOpsPass"),
}
"""Pass name -> (module in this package, ModulePass class name)."""


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"passes.{module}"), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass of the project, as xDSL's lazily-loading factories."""
    return {name: _loader(module, cls) for name, (module, cls) in PASSES.items()}


PASS_HELP_FILE = Path(__file__).with_name("pass_help.json")
"""Each pass's `--help` lines (`options.pass_help_lines`), generated from the
pass classes by `python -m ge_xdsl.docs`; tests/test_docs.py checks it is
current."""


def pass_help() -> dict[str, list[str]]:
    """Pass name -> its `--help` lines: its summary, then one per option."""
    return json.loads(PASS_HELP_FILE.read_text())
