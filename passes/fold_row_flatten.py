"""`fold-row-flatten`: a flatten of the leading dims around row-wise ops goes.

ONNX defines LayerNormalization as a function whose body flattens `X`
`[B, S, H]` to rows `[B*S, H]`, normalises each row and reshapes back. The
flattened rows stop FRACTAL_NZ (rows of 11 tokens do not fill whole 16-row
fractals) and cost a TransData pair per LayerNorm. Each op in between works
row by row, so it computes the same on `[B, S, H]`: the flatten and the
reshapes back go, and the ops take the unflattened shape (a reduction over
the rows' axis reduces the last axis). GE fuses the body into one
LayerNorm op (LayerNormFusionPass) that runs in FRACTAL_NZ; here the body
stays, in FRACTAL_NZ once the flatten is gone. ATC-style graph fusion rule
`RowFlattenFold` (switchable with `disable`).

```mlir
%r = ge.flatten %x {axis = 2 : i64} : tensor<2x17x48xf32> -> tensor<34x48xf32>
%m = ge.reduce_mean %r {axes = array<i64: 1>} : tensor<34x48xf32> -> tensor<34x1xf32>
%d = ge.sub %r, %m : (tensor<34x48xf32>, tensor<34x1xf32>) -> tensor<34x48xf32>
%y = ge.reshape %d {shape = array<i64: 2, 17, 48>}
   : tensor<34x48xf32> -> tensor<2x17x48xf32>
// becomes
%m = ge.reduce_mean %x {axes = array<i64: 2>}
   : tensor<2x17x48xf32> -> tensor<2x17x1xf32>
%d = ge.sub %x, %m : (tensor<2x17x48xf32>, tensor<2x17x1xf32>) -> tensor<2x17x48xf32>
```

The region is every op reached from the flatten: elementwise ops (each
other operand a value of the region, or a constant of at most the row's
shape `[1, H]`, `[H]`, scalar, which broadcasts the same against
`[B, S, H]`), casts, and reductions of the row axis alone with `keep_dims`.
It must end only in reshapes back to the flatten's input shape. Bail-outs:
the flatten merges the last axis or keeps more than one, an op of the
region is none of these, or a value leaves the region any other way.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from ge_dialect.layout import shape_of
from ge_dialect.ops import CastOp, ConstOp, FlattenOp, ReshapeOp
from ge_dialect.ops.reduce import ReduceOp
from ge_dialect.traits import Elementwise
from passes.fuse_ops import check_disable_option, enabled_rules


def is_row_constant(value: SSAValue, columns: int) -> bool:
    """A constant broadcasting along rows: `[1, H]`, `[H]`, `[1]` or scalar."""
    if not isinstance(value.owner, ConstOp):
        return False
    shape = tuple(shape_of(value.type))  # type: ignore[arg-type]
    return shape in ((), (1,), (columns,), (1, 1), (1, columns))


@dataclass
class Region:
    """The row-wise ops after a flatten to `[rows, columns]`."""

    rows: int
    columns: int
    ops: list[Operation]
    exits: list[ReshapeOp]


def row_region(flatten: Operation, original: tuple[int, ...]) -> Region | str:
    """The region after `flatten`, or why there is none."""
    rows, columns = shape_of(flatten.results[0].type)  # type: ignore[arg-type]
    values = {flatten.results[0]}
    region = Region(rows, columns, [], [])
    pending = [flatten.results[0]]
    while pending:
        value = pending.pop()
        for use in list(value.uses):
            op = use.operation
            if op in region.ops or op in region.exits:
                continue
            if isinstance(op, ReshapeOp):
                if tuple(shape_of(op.y.type)) != original:
                    return "a reshape to another shape"
                region.exits.append(op)
                continue
            reason = _row_wise(op, values, columns)
            if reason is not None:
                return reason
            region.ops.append(op)
            values.update(op.results)
            pending.extend(op.results)
    for op in region.ops:
        for operand in op.operands:
            if operand not in values and not is_row_constant(operand, columns):
                return "an operand from outside the rows"
    return region


def _row_wise(op: Operation, values: set[SSAValue], columns: int) -> str | None:
    """Why `op` does not compute row by row, or None."""
    if isinstance(op, ReduceOp):
        axes = [a % 2 for a in op.value_of("axes")]
        if axes != [1] or not op.value_of("keep_dims"):
            return "a reduction that is not of the row axis with keep_dims"
        return None
    if isinstance(op, CastOp) or op.has_trait(Elementwise):
        for result in op.results:
            shape = tuple(shape_of(result.type))  # type: ignore[arg-type]
            if len(shape) != 2:
                return "an elementwise result that is not 2-D"
        return None
    return f"'{op.name}' is not row-wise"


@dataclass
class FoldRowFlatten(RewritePattern):
    """Remove a flatten of leading dims and its reshapes back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: FlattenOp | ReshapeOp, rewriter: PatternRewriter
    ) -> None:
        original = tuple(shape_of(op.x.type))  # type: ignore[arg-type]
        flat = tuple(shape_of(op.y.type))  # type: ignore[arg-type]
        if len(original) < 3 or len(flat) != 2 or -1 in original:
            return
        if flat != (flat[0], original[-1]):
            return  # the last axis is merged or split
        region = row_region(op, original)
        if isinstance(region, str):
            return
        lead = original[:-1]
        for inner in region.ops:
            for result in inner.results:
                _, last = shape_of(result.type)  # type: ignore[arg-type]
                unflat = TensorType(
                    result.type.element_type,  # type: ignore[attr-defined]
                    [*lead, last],
                )
                Rewriter.replace_value_with_new_type(result, unflat)
            if isinstance(inner, ReduceOp):
                last_axis = DenseArrayBase.from_list(i64, [len(original) - 1])
                inner.attributes["axes"] = last_axis
        op.y.replace_all_uses_with(op.x)
        rewriter.erase(op)
        for exit_op in region.exits:
            exit_op.y.replace_all_uses_with(exit_op.x)
            rewriter.erase(exit_op)


@dataclass(frozen=True)
class FoldRowFlattenPass(ModulePass):
    """Let row-wise ops (a LayerNorm body) work on the unflattened tensor."""

    name = "fold-row-flatten"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`RowFlattenFold`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not enabled_rules(self.name, self.disable):
            return
        PatternRewriteWalker(FoldRowFlatten()).rewrite_module(op)
