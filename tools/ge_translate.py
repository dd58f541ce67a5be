"""`ge-translate`: import models from other formats as `ge` IR.

    ge-translate --import-onnx model.onnx -o model.mlir
    ge-translate --import-onnx model.onnx -o model.mlir --input-shape "data:1,3,224,224"
    ge-translate --import-onnx model.onnx --inline-weights          # to stdout
    ge-translate --import-tf frozen.pb -o model.mlir --input-shape "input:1,96,96,3" \
        [--out-nodes "logits:0;probs:0"]

`--import-tf` reads a TensorFlow frozen GraphDef (`.pb`, or `.pbtxt` text;
`ge_frontend/tf_import.py`), `--out-nodes` picks its outputs (ATC's
`--out_nodes`). Constants with more than `--inline-limit` elements (default
1024) are written to `OUT.weights.npz` next to `OUT.mlir`, keyed by their
ONNX value or TensorFlow node names; the IR
refers to them as `#ge.external<"name">` and the module attribute
`ge.weights = "OUT.weights.npz"` names the file (relative to the `.mlir`),
which `ge-run` and the reference evaluator read. `--inline-weights` keeps
every constant in the IR instead. Both files are written atomically and only
when the whole import succeeded; errors are one line and exit 1.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ge_dialect.diagnostics import GEError
from ge_dialect.files import write_atomically
from ge_dialect.input_files import MODEL_KINDS, check_input_kind
from ge_dialect.limits import DEFAULT_INLINE_LIMIT, budget_of

if TYPE_CHECKING:
    from ge_frontend.importing import ImportedModel
from tools.common import (
    accept_both_spellings,
    add_memory_budget_flag,
    one_line_errors,
    run_tool,
)


def build_parser() -> argparse.ArgumentParser:
    """The command line of `ge-translate`."""
    parser = argparse.ArgumentParser(
        prog="ge-translate", description="Import a model as GE IR (.mlir)."
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--import-onnx", metavar="MODEL.onnx", help="the ONNX model to import"
    )
    source.add_argument(
        "--import-tf",
        metavar="FROZEN.pb",
        help="the TensorFlow frozen graph (GraphDef .pb or .pbtxt) to import",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="OUT.mlir",
        help="output file (default: stdout, which needs --inline-weights "
        "for models with large constants)",
    )
    parser.add_argument(
        "--input-shape",
        metavar='"NAME:1,3,224,224;NAME2:..."',
        help="fix graph input shapes (e.g. dynamic batch dims)",
    )
    parser.add_argument(
        "--out-nodes",
        metavar='"NODE:0;NODE2:1"',
        help="with --import-tf: the graph outputs (default: what nothing reads)",
    )
    parser.add_argument(
        "--inline-weights",
        action="store_true",
        help="keep every constant in the IR (no .weights.npz)",
    )
    parser.add_argument(
        "--inline-limit",
        type=int,
        default=DEFAULT_INLINE_LIMIT,
        metavar="N",
        help="constants with more elements go to the .weights.npz "
        f"(default {DEFAULT_INLINE_LIMIT})",
    )
    add_memory_budget_flag(parser)
    return accept_both_spellings(one_line_errors(parser))


def weights_path(output: str) -> Path:
    """`OUT.weights.npz` next to `OUT.mlir`."""
    path = Path(output)
    return path.with_name(f"{path.stem}.weights.npz")


def module_text(imported: ImportedModel) -> str:
    """The printed module."""
    from xdsl.printer import Printer

    stream = io.StringIO()
    Printer(stream=stream).print_op(imported.module)
    stream.write("\n")
    return stream.getvalue()


def write_outputs(imported: ImportedModel, output: str) -> None:
    """Write the `.mlir` (and its `.weights.npz`), all or nothing."""
    from xdsl.dialects.builtin import StringAttr

    from ge_runtime.graph_io import WEIGHTS_ATTRIBUTE
    from ge_runtime.npy import npz_bytes

    if output == "-":
        if imported.weights:
            raise GEError(
                "error: the model has large constants; give -o OUT.mlir to write "
                "them to OUT.weights.npz, or pass --inline-weights"
            )
        sys.stdout.write(module_text(imported))
        return
    if not imported.weights:
        write_atomically(output, module_text(imported))
        return
    npz = weights_path(output)
    imported.module.attributes[WEIGHTS_ATTRIBUTE] = StringAttr(npz.name)
    write_atomically(npz, npz_bytes(imported.weights))
    try:
        write_atomically(output, module_text(imported))
    except BaseException:
        npz.unlink(missing_ok=True)
        raise


def run(argv: Sequence[str] | None) -> None:
    """Parse the command line, import and write."""
    args = build_parser().parse_args(argv)
    with budget_of(args.memory_budget):
        translate(args)


def translate(args: argparse.Namespace) -> None:
    """Import the model and write it."""
    if args.inline_limit < 0:
        raise GEError("error: --inline-limit must be >= 0")
    output_dir = Path(args.output).parent
    if args.output != "-" and not output_dir.is_dir():
        raise GEError(f"error: output directory '{output_dir}' does not exist")
    write_outputs(import_model(args), args.output)


def import_model(args: argparse.Namespace) -> ImportedModel:
    """The model the command line names, imported."""
    from ge_frontend.importing import parse_input_shapes

    check_input_kind(
        args.import_tf or args.import_onnx,
        "an ONNX or TensorFlow model",
        accepted=MODEL_KINDS,
    )
    options = {
        "input_shapes": (
            parse_input_shapes(args.input_shape) if args.input_shape else None
        ),
        "weights": "inline" if args.inline_weights else "external",
        "inline_limit": args.inline_limit,
    }
    if args.import_tf is not None:
        from ge_frontend.tf_import import import_tensorflow, parse_out_nodes

        out_nodes = parse_out_nodes(args.out_nodes) if args.out_nodes else None
        return import_tensorflow(args.import_tf, out_nodes=out_nodes, **options)
    if args.out_nodes is not None:
        raise GEError("error: --out-nodes is supported with --import-tf")
    from ge_frontend.onnx_import import import_onnx

    return import_onnx(args.import_onnx, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-translate`."""
    return run_tool("ge-translate", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
