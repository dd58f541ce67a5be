"""`ge-dump-compare`: name the first op whose dumped outputs diverge.

    ge-run model.om --random-inputs --dump ours/ --output-dir out/
    ge-dump-compare ours/ reference/          # two dump folders
    ge-dump-compare ours/ model.onnx          # onnxruntime on ours' inputs

Only the command line is read before `--help` answers; the comparison's
modules are imported once there is something to compare. Entries are
compared in the reference's (topological) order; an output
diverges when max |ours - reference| > atol + rtol * max |reference|. The
first diverging op is printed and the exit code is 1; otherwise one line
says how many ops agreed. `--all` compares and prints every output.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ge_dialect.diagnostics import GEError
from ge_dialect.limits import budget_of
from ge_runtime.engines.compare import DEFAULT_ATOL, DEFAULT_RTOL

if TYPE_CHECKING:
    import numpy as np
    import onnx

    from ge_runtime.engines.dump import Dump
from tools.common import (
    accept_both_spellings,
    add_memory_budget_flag,
    non_negative_float,
    one_line_errors,
    run_tool,
)


def onnx_dump(
    model: Any,
    inputs: Mapping[str, np.ndarray],
    directory: str | os.PathLike[str],
) -> Path:
    """Dump every node's outputs as onnxruntime computes them; the folder.

    `model` is an `onnx.ModelProto` or a path, read and checked as the
    importer does. Graph optimisations are off, so each value is the node's
    own. A model onnxruntime refuses is a one-line GEError.
    """
    import onnx
    from onnx import helper

    from ge_frontend.importing import one_line
    from ge_frontend.onnx_context import node_name
    from ge_frontend.onnx_import import load_model
    from ge_runtime.engines.dump import INPUT_OP, DumpWriter

    proto, label, mapped = load_model(model)
    graph_outputs = {o.name for o in proto.graph.output}
    extended = onnx.ModelProto()
    extended.CopyFrom(proto)
    for tensor in extended.graph.initializer:  # read in place: onnxruntime needs bytes
        if tensor.name in mapped:
            tensor.ClearField("external_data")
            tensor.data_location = onnx.TensorProto.DEFAULT
            tensor.raw_data = mapped[tensor.name].tobytes()
    for node in proto.graph.node:
        for value in node.output:
            if value and value not in graph_outputs:
                extended.graph.output.append(helper.make_empty_tensor_value_info(value))
                graph_outputs.add(value)
    try:
        values = _run_onnxruntime(extended, inputs)
    except Exception as error:  # onnxruntime's Fail, InvalidArgument, ...
        raise GEError(
            f"{label}: error: onnxruntime cannot run the model: {one_line(error)}"
        ) from None
    writer = DumpWriter(Path(directory), source="onnxruntime")
    for name, array in inputs.items():
        writer.add(name, INPUT_OP, [array])
    for node in proto.graph.node:
        writer.add(node_name(node), node.op_type, [values[v] for v in node.output if v])
    return writer.close()


def _run_onnxruntime(
    model: onnx.ModelProto, inputs: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Every graph output of `model` on `inputs`, by onnxruntime (CPU)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(inputs)), strict=True))


def build_parser() -> argparse.ArgumentParser:
    """The command line of `ge-dump-compare`."""
    parser = argparse.ArgumentParser(
        prog="ge-dump-compare",
        description="Name the first op whose dumped outputs diverge from a "
        "reference dump (or onnxruntime's intermediates of an ONNX model).",
    )
    parser.add_argument("ours", help="dump folder (ge-run --dump)")
    parser.add_argument("reference", help="reference dump folder, or a .onnx model")
    parser.add_argument(
        "--rtol",
        type=non_negative_float,
        default=DEFAULT_RTOL,
        help="relative tolerance",
    )
    parser.add_argument(
        "--atol",
        type=non_negative_float,
        default=DEFAULT_ATOL,
        help="absolute tolerance",
    )
    parser.add_argument(
        "--all", action="store_true", help="compare and print every output"
    )
    add_memory_budget_flag(parser)
    return accept_both_spellings(one_line_errors(parser))


def reference_dump(ours: Dump, reference: str, scratch: Path) -> Dump:
    """The reference side: a dump folder, or an ONNX model run on our inputs."""
    from ge_runtime.engines.dump import load_dump

    if reference.endswith(".onnx"):
        onnx_dump(reference, ours.inputs(), scratch)
        return load_dump(scratch)
    return load_dump(reference)


def run(argv: Sequence[str] | None) -> None:
    """Compare two dumps; GEError naming the first diverging op."""
    args = build_parser().parse_args(argv)
    with budget_of(args.memory_budget):
        compare(args)


def compare(args: argparse.Namespace) -> None:
    """Compare the dumps the command line names; print the verdict."""
    from ge_runtime.engines.dump import compare_dumps, load_dump

    ours = load_dump(args.ours)
    with tempfile.TemporaryDirectory() as scratch:
        reference = reference_dump(ours, args.reference, Path(scratch))
        comparison = compare_dumps(
            ours, reference, args.rtol, args.atol, stop_at_first=not args.all
        )
    shown = comparison.checks if args.all else comparison.checks[-1:]
    for check in shown:
        if args.all or not check.ok:
            print(check.line())
    if comparison.first_divergence is not None:
        raise GEError(f"error: {comparison.summary()}")
    print(comparison.summary())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-dump-compare`."""
    return run_tool("ge-dump-compare", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
