"""The differential check: pipeline + lowering + JIT against the reference.

`check_module(module, options, seed)` runs one graph through the stages and
raises `Mismatch` (one line, naming the stage) at the first that fails:

1. `pipeline`: `ge-format-pipeline` with the given options, the module
   verified after every inner pass (through the pipeline's
   `NESTED_PASS_CALLBACK`);
2. `idempotence`: a second pipeline run changes nothing;
3. `optimised graph`: the reference evaluator on the compiled graph agrees
   with it on the original graph (a pass changed the meaning);
4. `lowering`: `convert-ge-to-loops` gives a module that verifies;
5. `jit`: the JIT's outputs agree with the reference on the original graph
   (control flow included: `ge.if` / `ge.while` lower to `scf`, and the
   whole graph is compiled into one function).

Buffers start as NaN in the JIT (`poison`), so a read of memory the loops
never wrote shows up. Outputs agree when max |got - want| <= tolerance *
max(1, max |want|) (dtype and shape equal, NaN where the reference is NaN).

As a script it checks one `.mlir` file (the regression lit tests use it):

    python tests/fuzz/differential.py FILE.mlir --options "data-format=NCHW" --seed 3
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass, PassPipeline

from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.ops import enclosing_target
from ge_dialect.parsing import parse_module
from ge_dialect.verification import verify_module
from ge_runtime.engines.reference import evaluate
from ge_runtime.engines.scheduler import compile_model
from ge_runtime.graph_io import find_graph
from ge_runtime.jit.compiler import lowered_module, run_graph
from ge_xdsl.atc import CompileOptions, compile_module
from ge_xdsl.serving import graph_inputs
from passes import get_all_passes
from passes.format_pipeline import NESTED_PASS_CALLBACK, FormatPipelinePass

TOLERANCE = {np.dtype(np.float16): 2e-2, np.dtype(np.float32): 1e-4}
"""Relative tolerance per output dtype (others must be equal)."""


class Mismatch(AssertionError):
    """A stage of the differential check failed (one line: stage and reason)."""

    def __init__(self, stage: str, reason: str):
        super().__init__(f"{stage}: {reason}")
        self.stage = stage


def pipeline_pass(options: str) -> FormatPipelinePass:
    """`ge-format-pipeline` configured by its option text (`data-format=NCHW ...`)."""
    spec = f"ge-format-pipeline{{{options}}}"
    (pass_,) = PassPipeline.parse_spec(get_all_passes(), spec).passes
    assert isinstance(pass_, FormatPipelinePass)
    return pass_


def run_verified(
    pipeline: FormatPipelinePass, module: ModuleOp, stage_name: str = "pipeline"
) -> None:
    """Apply the pipeline, verifying the module after every inner pass."""

    def verify(inner: ModulePass | None, op: ModuleOp, _: ModulePass | None) -> None:
        try:
            verify_module(op)
        except GEError as error:
            name = inner.name if inner is not None else "?"
            raise Mismatch(stage_name, f"invalid IR after {name}: {error}") from None

    token = NESTED_PASS_CALLBACK.set(verify)
    try:
        pipeline.apply(Context(), module)
    finally:
        NESTED_PASS_CALLBACK.reset(token)


def run_jit(module: ModuleOp, inputs: Mapping[int, np.ndarray]) -> list[np.ndarray]:
    """The compiled graph's outputs through the JIT (origin layout)."""
    return run_graph(module, inputs, target=enclosing_target(module), poison=True)


def compare(
    stage: str,
    got: Sequence[np.ndarray],
    want: Sequence[np.ndarray],
    float_tolerance: float = 0.0,
) -> None:
    """Raise Mismatch unless every output agrees (see the module docstring);
    float outputs get at least `float_tolerance`."""
    if len(got) != len(want):
        raise Mismatch(stage, f"{len(got)} outputs, the reference has {len(want)}")
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            raise Mismatch(
                stage,
                f"output {index} is {g.dtype}{list(g.shape)}, the reference "
                f"{w.dtype}{list(w.shape)}",
            )
        tolerance = TOLERANCE.get(w.dtype, 0.0)
        if w.dtype.kind == "f":
            tolerance = max(tolerance, float_tolerance)
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        nan = np.isnan(w64)
        if not np.array_equal(np.isnan(g64), nan):
            raise Mismatch(stage, f"output {index} has NaN where the reference has not")
        error = float(np.abs(g64 - w64)[~nan].max(initial=0.0))
        scale = max(1.0, float(np.abs(w64[~nan]).max(initial=0.0)))
        if error > tolerance * scale:
            raise Mismatch(
                stage,
                f"output {index}: max |error| {error:.3g} > {tolerance:g} x "
                f"{scale:.3g}",
            )


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Report a one-line error raised inside as a Mismatch of stage `name`."""
    try:
        yield
    except GEError as error:
        raise Mismatch(name, str(error)) from None


def check_module(
    module: ModuleOp, pipeline: FormatPipelinePass, seed: int
) -> list[np.ndarray]:
    """Run every stage on a copy of `module`; its outputs, or raise Mismatch."""
    graph = find_graph(module)
    inputs = graph_inputs(graph, {}, random=True, seed=seed)
    want = evaluate(module, inputs)
    compiled = module.clone()
    with stage("pipeline"):
        run_verified(pipeline, compiled)
    once = str(compiled)
    with stage("idempotence"):
        run_verified(pipeline, compiled, "idempotence")
    if str(compiled) != once:
        raise Mismatch("idempotence", "a second pipeline run changed the IR")
    with stage("optimised graph"):
        optimised = evaluate(compiled, inputs, target=enclosing_target(compiled))
        compare("optimised graph", optimised, want)
    with stage("lowering"):
        verify_module(lowered_module(find_graph(compiled), enclosing_target(compiled)))
    with stage("jit"):
        compare("jit", run_jit(compiled, inputs), want)
    with stage("atc"):
        loosest = loosest_float_tolerance(module)
        compare("atc", run_atc(module, pipeline, inputs), want, loosest)
    return want


def loosest_float_tolerance(module: ModuleOp) -> float:
    """The tolerance of the least precise float dtype of any tensor in `module`."""
    dtypes = {
        np.dtype(numpy_dtype(dtype_name(value.type.element_type)))
        for op in module.walk()
        for value in op.results
        if isinstance(value.type, TensorType)
    }
    return max((TOLERANCE.get(dtype, 0.0) for dtype in dtypes), default=0.0)


def run_atc(
    module: ModuleOp,
    pipeline: FormatPipelinePass,
    inputs: Mapping[int, np.ndarray],
) -> list[np.ndarray]:
    """`module` compiled as `ge-atc` compiles a model and run as `ge-run` runs it."""
    options = CompileOptions(
        input_format=pipeline.data_format, soc_version=pipeline.target, max_streams=2
    )
    compiled = compile_module(module.clone(), {}, options, progress=logging.DEBUG)
    graph = find_graph(compiled.module)
    return compile_model(graph, compiled.weights, target=pipeline.target).run(inputs)


def main(argv: Sequence[str] | None = None) -> int:
    """Check one `.mlir` file; print `ok: N outputs agree` or the mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--options", default="", help="ge-format-pipeline options")
    parser.add_argument("--seed", type=int, default=0, help="seed of the inputs")
    args = parser.parse_args(argv)
    try:
        module = parse_module(make_context(), args.file.read_text(), str(args.file))
        outputs = check_module(module, pipeline_pass(args.options), args.seed)
    except (GEError, Mismatch) as error:
        print(f"{args.file}: error: {error}", file=sys.stderr)
        return 1
    print(f"ok: {len(outputs)} outputs agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
