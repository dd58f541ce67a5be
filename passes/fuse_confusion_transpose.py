"""`fuse-confusion-transpose`: a head split or merge between FRACTAL_NZ tensors
becomes one `ge.confusion_transpose` that stays in FRACTAL_NZ.

A transformer splits a matmul result into heads (`reshape [B,S,H] ->
[B,S,N,D]`, `transpose (0,2,1,3)`) and merges them back (the reverse) between
two FRACTAL_NZ matrix products. `insert-transdata` puts a TransData pair
around each such chain, since reshape and transpose run in origin format
only. CANN fuses the chain into `ConfusionTransposeD`, which runs in
FRACTAL_NZ when the heads are whole C0 column blocks; this pass does the
same where the pair shows it is needed:

```mlir
%a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>}
   : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x64xf32>
%r = ge.reshape %a {shape = array<i64: 2, 11, 4, 16>} : ... -> tensor<2x11x4x16xf32>
%t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>} : ... -> tensor<2x4x11x16xf32>
%b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>}
   : tensor<2x4x11x16xf32> -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
```
becomes
```mlir
%b = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>,
                                shape = array<i64: 2, 11, 4, 16>}
   : tensor<2x11x64xf32, #ge.layout<ND, FRACTAL_NZ>>
  -> tensor<2x4x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
```

The chain is one reshape-family op (reshape, flatten, squeeze, unsqueeze,
expand_dims), one transpose, or one of each in either order (a transpose
first sets `transpose_first`), each result read only by the next op. Each
bail-out is a reason: the TransData pair is not FRACTAL_NZ -> origin ->
FRACTAL_NZ, a value has other users, or the fused op would not move whole
fractals (`ConfusionTransposeOp.accepts_layouts`: e.g. heads of 12 fp16
lanes, C0 = 16), in which case the one TransData pair stays. GE fuses in
graph fusion, before format selection; here the fusion runs after
insertion so that it changes only chains that sit between FRACTAL_NZ
tensors (docs/GE_DEVIATIONS.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, StringAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.formats import INTERNAL_FORMATS, Format
from ge_dialect.layout import layout_attr, shape_of
from ge_dialect.ops import (
    ConfusionTransposeOp,
    ExpandDimsOp,
    FlattenOp,
    ReshapeOp,
    SqueezeOp,
    TransDataOp,
    UnsqueezeOp,
    enclosing_target,
)
from ge_dialect.ops.base import boolean
from ge_dialect.ops.trans import PermutationOp
from passes.dead_code import erase_dead

RESHAPES = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ExpandDimsOp)
"""Ops that regroup axes in row-major order (what a confusion transpose's
reshape does)."""


def single_use_producer(value: SSAValue) -> Operation | None:
    """The op defining `value` if `value` has no other user."""
    owner = value.owner
    return owner if isinstance(owner, Operation) and value.has_one_use() else None


def trans_chain(
    value: SSAValue,
) -> tuple[TransDataOp, list[Operation]] | None:
    """(the FRACTAL_NZ -> origin TransData, the shape ops after it) of the
    chain ending in `value`, or None if `value` is not such a chain."""
    chain: list[Operation] = []
    op = single_use_producer(value)
    while isinstance(op, (*RESHAPES, PermutationOp)) and len(chain) < 2:
        chain.insert(0, op)
        op = single_use_producer(op.operands[0])
    if not chain or not isinstance(op, TransDataOp):
        return None
    if op.src_format.data is not Format.FRACTAL_NZ:
        return None
    if layout_attr(op.y.type).storage_format in INTERNAL_FORMATS:
        return None
    return op, chain


def fused_attributes(chain: list[Operation]) -> dict[str, object] | None:
    """`perm`, `shape`, `transpose_first` of the confusion transpose doing
    `chain`, or None if the chain is two reshapes or two transposes."""
    kinds = [isinstance(op, PermutationOp) for op in chain]
    if len(chain) == 2 and kinds[0] == kinds[1]:
        return None
    transposes = [op for op in chain if isinstance(op, PermutationOp)]
    reshapes = [op for op in chain if not isinstance(op, PermutationOp)]
    if transposes:
        perm = transposes[0].permutation()
    else:
        perm = list(range(len(shape_of(chain[-1].results[0].type))))
    if reshapes:
        shape = list(shape_of(reshapes[0].results[0].type))
    else:
        shape = list(shape_of(chain[-1].results[0].type))
    return {"perm": perm, "shape": shape, "transpose_first": kinds[0]}


def chain_name(chain: list[Operation]) -> StringAttr | None:
    """The names of the fused ops, joined (GE names a fused node so)."""
    names = [op.attributes.get("name") for op in chain]
    if not all(isinstance(name, StringAttr) for name in names):
        return None
    return StringAttr("".join(name.data for name in names))  # type: ignore[union-attr]


@dataclass
class FuseHeadSplitOrMerge(RewritePattern):
    """`transdata(NZ->origin) -> reshape/transpose -> transdata(origin->NZ)`
    becomes one FRACTAL_NZ confusion transpose."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        if op.dst_format.data is not Format.FRACTAL_NZ:
            return
        found = trans_chain(op.x)
        if found is None:
            return
        head, chain = found
        attributes = fused_attributes(chain)
        if attributes is None:
            return
        fused = ConfusionTransposeOp.create(
            operands=[head.x],
            result_types=[op.y.type],
            attributes={
                "perm": DenseArrayBase.from_list(i64, attributes["perm"]),
                "shape": DenseArrayBase.from_list(i64, attributes["shape"]),
            },
        )
        if attributes["transpose_first"]:
            fused.attributes["transpose_first"] = boolean(True)
        if (name := chain_name(chain)) is not None:
            fused.attributes["name"] = name
        layouts = ([layout_attr(head.x.type)], [layout_attr(op.y.type)])
        if not fused.accepts_layouts(*layouts, enclosing_target(op)):
            return
        rewriter.replace(op, fused)
        erase_dead(rewriter, [*reversed(chain), head])


@dataclass(frozen=True)
class FuseConfusionTransposePass(ModulePass):
    """Fuse head splits and merges between FRACTAL_NZ tensors into one op."""

    name = "fuse-confusion-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseHeadSplitOrMerge()).rewrite_module(op)
