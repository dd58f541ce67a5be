"""GE-xDSL from Python: parse, transform and inspect `ge` IR.

```python
import ge_xdsl

module = ge_xdsl.parse(open("conv_block.mlir").read())
typed = ge_xdsl.apply_passes(module, "infer-origin-format,infer-shape")
```

Errors are `ge_dialect.diagnostics.GEError`s whose text is one located line.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

__all__ = ["apply_passes", "context", "parse"]


def context() -> Context:
    """A context with the `ge` dialect and the dialects of lowered loop IR."""
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
    from ge_dialect.diagnostics import parse_module

    return parse_module(context(), text, name)


def apply_passes(module: ModuleOp, pipeline: str) -> ModuleOp:
    """A copy of `module` after the passes `"pass-a,pass-b{opt=v}"`, verified.

    Pass and option names are those of `ge-opt --help` (`docs/PASSES.md`);
    options may be written `data-format` or `data_format`. `module` itself is
    left unchanged.
    """
    from ge_dialect.diagnostics import verify_module
    from passes.options import parse_passes

    passes = parse_passes(pipeline)
    result = module.clone()
    ctx = context()
    for module_pass in passes:
        module_pass.apply(ctx, result)
        verify_module(result)
    return result
