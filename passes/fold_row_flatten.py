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

A flatten whose columns merge trailing axes (`[B, S, H, D] -> [B*S, H*D]`,
a head merge before the output projection) becomes a reshape of those
alone (`[B, S, H*D]`), and the rest goes the same way.

A matrix product by a constant weight is row-wise too: GPT-2's `Conv1D`
exports as `reshape [B, S, K] -> [B*S, K]`, `Gemm` by the weight `[K, N]`,
`reshape -> [B, S, N]`. On the unflattened rows it becomes a
`ge.batch_matmul` (the weight broadcast over the batch dims, as BERT's
`MatMul`s are) and an `add` of the addend `c`, so it runs in FRACTAL_NZ
with the ops around it:

```mlir
%r = ge.reshape %x {shape = array<i64: -1, 64>}
   : tensor<2x11x64xf32> -> tensor<22x64xf32>
%p = ge.gemm %r, %w, %c : (tensor<22x64xf32>, tensor<64x192xf32>, tensor<192xf32>)
   -> tensor<22x192xf32>
%y = ge.reshape %p {shape = array<i64: 2, 11, 192>} : ... -> tensor<2x11x192xf32>
// becomes
%p = ge.batch_matmul %x, %w : (tensor<2x11x64xf32>, tensor<64x192xf32>)
   -> tensor<2x11x192xf32>
%y = ge.add %p, %c : (tensor<2x11x192xf32>, tensor<192xf32>) -> tensor<2x11x192xf32>
```

The region is every op reached from the flatten: elementwise ops (each
other operand a value of the region, or a constant of at most the row's
shape `[1, H]`, `[H]`, scalar, which broadcasts the same against
`[B, S, H]`), casts, reductions of the row axis alone with `keep_dims`, and
`ge.matmul`/`ge.gemm` of a region value (not transposed, alpha and beta 1)
by a constant weight, with a row constant as addend. It must end only in
reshapes back to the leading dims of the flatten's input (`[B, S, H']`).
Bail-outs: the flatten merges the last axis or keeps more than one, an op
of the region is none of these, or a value leaves the region any other
way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from ge_dialect.layout import shape_of
from ge_dialect.ops import (
    AddOp,
    BatchMatMulOp,
    CastOp,
    ConstOp,
    FlattenOp,
    GemmOp,
    MatMulOp,
    ReshapeOp,
)
from ge_dialect.ops.base import boolean
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


def row_leads(original: tuple[int, ...], rows: int) -> list[tuple[int, ...]]:
    """The leading dims of `original` (at least two) whose product is `rows`,
    fewest first (several when size-1 axes follow); none if the rows end
    inside an axis."""
    return [
        original[:end]
        for end in range(2, len(original))
        if math.prod(original[:end]) == rows
    ]


def row_region(flatten: Operation, lead: tuple[int, ...]) -> Region | str:
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
                last = shape_of(op.x.type)[-1]  # type: ignore[arg-type]
                if tuple(shape_of(op.y.type)) != (*lead, last):
                    return "a reshape to another shape"
                region.exits.append(op)
                continue
            reason = _row_wise(op, values)
            if reason is not None:
                return reason
            region.ops.append(op)
            values.update(op.results)
            pending.extend(op.results)
    for op in region.ops:
        outside = op.operands[2:] if is_row_product(op) else op.operands
        for operand in outside:
            if operand not in values and not is_row_constant(
                operand,
                shape_of(op.results[0].type)[-1],  # type: ignore[arg-type]
            ):
                return "an operand from outside the rows"
    return region


def is_row_product(op: Operation) -> bool:
    """A 2-D matmul/gemm (no transposed rows, alpha and beta 1) of rows by a
    constant weight: it maps each row of its first operand to a row."""
    if not isinstance(op, MatMulOp | GemmOp) or len(op.operands) < 2:
        return False
    form = op.product_form()
    return (
        not form.transpose_a
        and form.alpha == 1.0
        and form.beta == 1.0
        and isinstance(op.operands[1].owner, ConstOp)
    )


def _row_wise(op: Operation, values: set[SSAValue]) -> str | None:
    """Why `op` does not compute row by row, or None."""
    if isinstance(op, MatMulOp | GemmOp):
        if not is_row_product(op) or op.operands[0] not in values:
            return "a matrix product that is not of the rows by a constant weight"
        return None
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


def batched_product(
    product: Operation, lead: tuple[int, ...], rewriter: PatternRewriter
) -> None:
    """Replace a row product by a `ge.batch_matmul` of the unflattened rows
    (and an `add` of its addend)."""
    assert isinstance(product, MatMulOp | GemmOp)
    rows, weight, *addend = product.operands
    result = product.results[0]
    columns = shape_of(result.type)[-1]  # type: ignore[arg-type]
    unflat = TensorType(result.type.element_type, [*lead, columns])  # type: ignore[attr-defined]
    attributes: dict[str, Attribute] = {}
    if product.product_form().transpose_b:
        attributes["adj_x2"] = boolean(True)
    name = product.attributes.get("name")
    if isinstance(name, StringAttr):
        attributes["name"] = name
    new: list[Operation] = [
        BatchMatMulOp.create(
            operands=[rows, weight], result_types=[unflat], attributes=attributes
        )
    ]
    if addend:
        named = {"name": StringAttr(f"{name.data}/c")} if "name" in attributes else {}
        add = AddOp.create(
            operands=[new[0].results[0], addend[0]],
            result_types=[unflat],
            attributes=named,
        )
        new.append(add)
    rewriter.replace(product, new, [new[-1].results[0]])


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
        regions = [
            (lead, row_region(op, lead)) for lead in row_leads(original, flat[0])
        ]
        found = [(lead, r) for lead, r in regions if isinstance(r, Region)]
        if not found:
            return  # the rows end inside an axis, or no region ends as the rows
        lead, region = found[0]
        for inner in list(region.ops):
            if is_row_product(inner):
                batched_product(inner, lead, rewriter)
                continue
            for result in inner.results:
                _, last = shape_of(result.type)  # type: ignore[arg-type]
                unflat = TensorType(
                    result.type.element_type,  # type: ignore[attr-defined]
                    [*lead, last],
                )
                Rewriter.replace_value_with_new_type(result, unflat)
            if isinstance(inner, ReduceOp):
                last_axis = DenseArrayBase.from_list(i64, [len(lead)])
                inner.attributes["axes"] = last_axis
        if len(lead) == len(original) - 1:
            op.y.replace_all_uses_with(op.x)
            rewriter.erase(op)
        else:  # the columns merge trailing axes: only they are flattened
            columns = [*lead, flat[1]]
            merged = ReshapeOp.create(
                operands=[op.x],
                result_types=[TensorType(op.y.type.element_type, columns)],  # type: ignore[attr-defined]
                attributes={
                    "shape": DenseArrayBase.from_list(i64, columns),
                    **{k: v for k, v in op.attributes.items() if k == "name"},
                },
            )
            rewriter.replace(op, merged)
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
