"""GE-xDSL from Python: compile, run, transform and inspect models.

```python
import ge_xdsl

model = ge_xdsl.compile("examples/small_cnn.onnx", soc_version="Ascend910")
outputs = model.run({"input": x})          # {"probs": array}, by output name
model.save("build/small_cnn.om")
same = ge_xdsl.load("build/small_cnn.om")

module = ge_xdsl.parse(open("examples/conv_block.mlir").read())
laid_out = ge_xdsl.apply_passes(module, "ge-format-pipeline{data-format=NCHW}")
expected = ge_xdsl.reference(module, {"x": x})
```

- `compile(model, *, input_shape=None, soc_version=None, framework=None,
  **atc_options) -> Model`: what `ge-atc` does. `model` is an `.onnx` or
  `.pb` file (a frozen TensorFlow `GraphDef`), an `onnx.ModelProto`, a
  TensorFlow `GraphDef`, or a `ge` `ModuleOp` (with `weights=` for its
  `#ge.external` constants); `framework` is "onnx", "tensorflow" or ATC's
  number (default: from the file's suffix or the message's type; TensorFlow
  models default to `input_format="NHWC"`, as ATC's `--framework=3`, and
  take `out_nodes="name:0;other:0"`); `input_shape` is ATC's text
  (`"x:1,3,224,224"`) or `{"x": (1, 3, 224, 224)}`; the other options are
  ATC's flags as keywords (`ge_xdsl.atc_flags.ATC_OPTIONS`: `input_format`,
  `out_nodes`, `auto_cast_mode`, `max_streams`, `fusion_switch_file`,
  `disable_fusion`, `dump_graph`, `time_passes`).
- `load(path, *, max_iterations=None) -> Model`: an `.om` file.
- `set_threads(count=None) -> int`: the threads models run on (C kernels
  and BLAS; default: every core), as `ge-run --threads`.
- `Model.run(inputs, *, max_iterations=None) -> dict[str, np.ndarray]`,
  `Model.save(path)`, `Model.module` (the IR after the pipeline), `Model.input_names`,
  `Model.output_names`, `Model.manifest`.
- `parse(text) -> ModuleOp`, `apply_passes(module, "pass-a,pass-b{opt=v}")
  -> ModuleOp` (a new module; `docs/PASSES.md`), `reference(module, inputs,
  *, weights=None, max_iterations=None) -> dict[str, np.ndarray]` (the NumPy
  reference evaluator). `max_iterations` is the most iterations one loop may
  run (default 10000, ge-run's `--max-iterations`).
- `ge_xdsl.run`: what `ge-run` does, call by call (`RunnableModel.load` of
  an `.mlir` or `.om`, `graph_inputs`, `compile`, `reference`, `expected`,
  `compare_outputs`, `time_runs`, `profile`, `run_kernel_runtime`).
- `torch.compile(module, backend="ge", options={...})`: the PyTorch online
  front end (`ge_xdsl/torch_backend.py`, registered by an entry point;
  `docs/TORCH.md`).

Errors in the input are `ge_dialect.diagnostics.GEError`s whose text is one
located line (`FILE:LINE:COL: error: ...`); an unknown keyword option is a
`TypeError`. The package imports what a call needs when it is called:
`load(...).run` of an `.om` served from its plan imports no xDSL.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

    from ge_xdsl.model import Model

__all__ = [
    "Model",
    "apply_passes",
    "compile",
    "context",
    "load",
    "parse",
    "reference",
    "set_threads",
]


def compile(  # noqa: A001 - the facade's name for ATC's job
    model: Any,
    *,
    input_shape: str | Mapping[str, Sequence[int]] | None = None,
    soc_version: str | None = None,
    framework: int | str | None = None,
    **atc_options: Any,
) -> Model:
    """Compile `model` as `ge-atc` does (see the module docstring)."""
    from ge_xdsl.arguments import check_arrays, check_input_shape, check_kind
    from ge_xdsl.atc import compile_offline_model, fewer_collections
    from ge_xdsl.model import Model
    from ge_xdsl.run import with_kernels

    check_input_shape(input_shape, "compile")
    check_kind(soc_version, (str, type(None)), "compile", "soc_version")
    check_kind(framework, (int, str, type(None)), "compile", "framework")
    weights = atc_options.pop("weights", None)
    check_arrays(weights, "compile", "weights", optional=True)
    with fewer_collections():
        offline, compiled = compile_offline_model(
            model,
            framework=framework,
            input_shape=input_shape,
            soc_version=soc_version,
            weights=weights,
            **atc_options,
        )
        offline = with_kernels(offline, compiled.module)
    return Model(offline, compiled.module, compiled.timer)


def load(path: str | os.PathLike[str], *, max_iterations: int | None = None) -> Model:
    """The offline model in the `.om` file at `path`; `max_iterations` is the
    iteration budget of its loops when it runs (default 10000)."""
    from ge_runtime.offline.om import load_offline_model
    from ge_xdsl.arguments import check_path, file_errors
    from ge_xdsl.model import Model

    with file_errors("load"):
        offline = load_offline_model(check_path(path, "load", "path"))
    return Model(offline, max_iterations=max_iterations)


def context() -> Context:
    """A context with the `ge` dialect and the dialects of lowered loop IR."""
    from xdsl.context import Context
    from xdsl.dialects import affine, arith, builtin, func, math, memref, scf

    from ge_dialect.dialect import GE

    ctx = Context()
    for dialect in (builtin.Builtin, GE, func.Func, memref.MemRef, affine.Affine):
        ctx.load_dialect(dialect)
    for dialect in (arith.Arith, math.Math, scf.Scf):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, *, name: str = "<string>") -> ModuleOp:
    """The verified module of MLIR `text` (`name` is the file named in errors)."""
    from ge_dialect.parsing import parse_module
    from ge_xdsl.arguments import check_kind

    check_kind(text, str, "parse", "text")
    check_kind(name, str, "parse", "name")
    return parse_module(context(), text, name)


def apply_passes(module: ModuleOp, pipeline: str) -> ModuleOp:
    """A copy of `module` after the passes `"pass-a,pass-b{opt=v}"`, verified.

    Pass and option names are those of `ge-opt --help` (`docs/PASSES.md`);
    options may be written `data-format` or `data_format`. `module` itself is
    left unchanged.
    """
    from xdsl.dialects.builtin import ModuleOp

    from ge_dialect.verification import StageVerifier
    from ge_xdsl.arguments import check_kind
    from passes.options import parse_passes

    check_kind(module, ModuleOp, "apply_passes", "module")
    check_kind(pipeline, str, "apply_passes", "pipeline")
    passes = parse_passes(pipeline)
    result = module.clone()
    ctx = context()
    verify = StageVerifier()
    for module_pass in passes:
        module_pass.apply(ctx, result)
        verify(result)
    return result


def reference(
    module: ModuleOp,
    inputs: Mapping[str, np.ndarray],
    *,
    weights: Mapping[str, np.ndarray] | None = None,
    max_iterations: int | None = None,
) -> dict[str, np.ndarray]:
    """`module`'s outputs for `inputs` by the NumPy reference evaluator, keyed
    by output name (`output_<i>` where unnamed), in origin layout;
    `max_iterations` is the iteration budget of its loops (default 10000).

    `weights` are the arrays of `#ge.external` constants (storage layout, as
    `Model.weights`); storage layouts follow the module's `ge.target`.
    """
    from xdsl.dialects.builtin import ModuleOp

    from ge_dialect.ops.base import enclosing_target
    from ge_runtime.engines.reference import evaluate
    from ge_xdsl.arguments import check_arrays, check_kind
    from ge_xdsl.model import graph_output_keys

    check_kind(module, ModuleOp, "reference", "module")
    arrays = evaluate(
        module,
        check_arrays(inputs, "reference", "inputs"),
        weights=check_arrays(weights, "reference", "weights", optional=True),
        target=enclosing_target(module),
        max_iterations=max_iterations,
    )
    return dict(zip(graph_output_keys(module), arrays, strict=True))


def set_threads(count: int | None = None) -> int:
    """Run models on `count` threads (None: every core this process may
    use, the default): the generated C kernels' loops and the BLAS's
    matrix products, as `ge-run --threads`. Returns the count."""
    from ge_runtime.engines import threads

    return threads.set_threads(count)


def __getattr__(name: str) -> Any:
    if name == "Model":
        from ge_xdsl.model import Model

        return Model
    raise AttributeError(f"module 'ge_xdsl' has no attribute {name!r}")
