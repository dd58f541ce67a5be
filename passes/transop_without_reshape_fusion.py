"""`transop-without-reshape-fusion`: shorten trans-op chains between real ops.

GE's TransOpWithoutReshapeFusionPass (docs/research/ge_behaviour.md §2.3), the
"depth" fusion. From each result `B` of an op that is not a trans op, every
path through trans ops (Cast, Reshape, Transpose/Permute, TransData) to the
first other consumer `E` is replaced by at most one TransData and one Cast,
when that is fewer ops than the path has:

```mlir
// %x : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
%c = ge.cast %x {dst_type = f32}
   : ... -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
%t = ge.transdata %c {src_format = NC1HWC0, dst_format = NCHW} : ...
%d = ge.cast %t {dst_type = f16} : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
%u = ge.transdata %d {src_format = NCHW, dst_format = NC1HWC0}
   : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
%r = ge.relu %u : ...
// after (B and E agree: bypass):
%r = ge.relu %x : ...
// with E = tensor<1x17x4x4xf32, #ge.layout<NCHW>> instead (TransData first,
// as E is not fp16):
%t = ge.transdata %x {src_format = NC1HWC0, dst_format = NCHW} : ...
%c = ge.cast %t {dst_type = f32} : ...
```

A path is kept as it is (GE's "break" paths, whose ops are marked remain)
when an edge `u -> v` on it has:
1. `v` a reshape;
2. `v` a transpose whose operand and result layouts are equal, or with
   unknown dims;
3. `v` a TransData or transpose whose operand's storage format is ND or not
   one of GE's supported NCHW, NHWC, FRACTAL_Z, NC1HWC0;
4. `u` or `v` a precision-losing Cast (GE's table: to bool, float to int);
5. beyond GE: a Cast that rounds (`cast_is_exact` fails) before the path's
   last Cast. The chain's casts then do not compose into one Cast;
6. a grouped TransData (groups are not part of a type).

GE's two other break rules, discontinuous formats and dtypes on an edge,
cannot occur in SSA: an edge has one type.

Each other path is rewritten:
- `B`'s storage format is supported and `B`, `E` have equal types: the
  consumer reads `B` directly;
- otherwise a TransData if the storage formats differ (both supported; else
  the path stays) and a Cast if the dtypes differ. The Cast comes first when
  `B` is not fp16 and `E` is (GE's order), else the TransData. Nothing
  changes unless 0 < new ops < path ops.

Differences from GE, from the IR (docs/GE_DEVIATIONS.md): a TransData keeps
the origin format and shape, so a path whose ends differ in them (a transpose
changed them) stays; GE would join, say, NHWC and NC1HWC0 of an NCHW tensor
in one TransData. A path whose transposes do not compose to the identity also
stays, as the new TransData could not permute. The unknown-shape rule (GE
skips heads with unknown dims) is kept.

Ops of a rewritten path are erased once unused; an op shared with a path
that stays is kept (GE's remain mark). New ops go right before the
consumer. Control edges: GE moves the control edges around the path to the
head, the new ops or the consumer. The new chain reads the same head and
feeds the same consumer, so the data dependencies alone order it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.formats import Format
from ge_dialect.layout import layout_attr, layout_of, shape_of
from ge_dialect.ops import CastOp, PermuteOp, ReshapeOp, TransDataOp, TransposeOp
from passes.layout_requirements import cast_first, cast_op, transdata_op
from passes.transop_utils import (
    cast_is_exact,
    compose_perms,
    dtype_of,
    ge_precision_loss,
    has_default_groups,
    is_identity_perm,
    permutation_of,
    tensor_of,
)

PATH_OPS = (CastOp, ReshapeOp, TransposeOp, PermuteOp, TransDataOp)
"""The trans ops this pass walks through (GE's local set)."""

SUPPORTED_FORMATS = frozenset(
    {Format.NCHW, Format.NHWC, Format.FRACTAL_Z, Format.NC1HWC0}
)
"""Storage formats GE lets this pass convert between."""


@dataclass(frozen=True)
class TransPath:
    """Trans ops `ops` from `head` to operand `operand_index` of `consumer`."""

    head: SSAValue
    ops: tuple[Operation, ...]
    consumer: Operation
    operand_index: int

    @property
    def end(self) -> SSAValue:
        """The value the consumer reads."""
        return self.ops[-1].results[0]


def trans_paths(head: SSAValue) -> Iterator[TransPath]:
    """Every path from `head` through `PATH_OPS` to another consumer."""
    pending: list[tuple[SSAValue, tuple[Operation, ...]]] = [(head, ())]
    while pending:
        value, ops = pending.pop()
        for use in sorted(value.uses, key=lambda u: u.index):
            if isinstance(use.operation, PATH_OPS):
                pending.append((use.operation.results[0], (*ops, use.operation)))
            elif ops:
                yield TransPath(head, ops, use.operation, use.index)


def _is_lossy_cast(op: Operation) -> bool:
    return isinstance(op, CastOp) and ge_precision_loss(dtype_of(op.x), dtype_of(op.y))


def _edge_break(u: Operation | None, v: Operation) -> str | None:
    """Why edge `u -> v` keeps its path (GE's rules 1-4), or None."""
    if isinstance(v, ReshapeOp):
        return "a reshape is on the path"
    if isinstance(v, TransposeOp | PermuteOp):
        if layout_attr(v.x.type) == layout_attr(v.y.type):
            return "a transpose keeps its layout"
        if -1 in shape_of(tensor_of(v.x)):
            return "a transpose has unknown dims"
    if isinstance(v, TransposeOp | PermuteOp | TransDataOp):
        storage = layout_of(tensor_of(v.operands[0]))[1]
        if storage not in SUPPORTED_FORMATS:
            return f"a trans op reads the unsupported format {storage}"
    if (u is not None and _is_lossy_cast(u)) or _is_lossy_cast(v):
        return "a cast loses precision"
    return None


def break_reason(path: TransPath) -> str | None:
    """Why `path` must stay as it is, or None if it may be rewritten."""
    owner = path.head.owner
    previous = owner if isinstance(owner, Operation) else None
    for op in (*path.ops, path.consumer):
        if (reason := _edge_break(previous, op)) is not None:
            return reason
        previous = op
    casts = [op for op in path.ops if isinstance(op, CastOp)]
    if any(not cast_is_exact(dtype_of(c.x), dtype_of(c.y)) for c in casts[:-1]):
        return "a cast before the last one rounds"
    if not all(has_default_groups(op) for op in path.ops):
        return "a grouped TransData is on the path"
    return None


def net_permutation(path: TransPath) -> list[int]:
    """The permutation all transposes of `path` apply, composed."""
    perm = list(range(tensor_of(path.head).get_num_dims()))
    for op in path.ops:
        if isinstance(op, TransposeOp | PermuteOp):
            perm = compose_perms(perm, permutation_of(op))
    return perm


def replacement_ops(path: TransPath) -> list[Operation] | None:
    """The new ops for `path` (empty: bypass), or None if the path stays."""
    begin, end = tensor_of(path.head), tensor_of(path.end)
    if not is_identity_perm(net_permutation(path)):
        return None  # a TransData cannot permute
    if begin == end and layout_of(begin)[1] in SUPPORTED_FORMATS:
        return []  # bypass
    begin_layout, end_layout = layout_attr(begin), layout_attr(end)
    relayout = begin_layout.storage_format != end_layout.storage_format
    if not relayout and begin_layout != end_layout:
        return None  # same storage format, another layout: GE's "remain"
    if relayout and not (
        {begin_layout.storage_format, end_layout.storage_format} <= SUPPORTED_FORMATS
    ):
        return None  # a conversion GE does not make here
    if relayout and (
        begin_layout.origin_format != end_layout.origin_format
        or shape_of(begin) != shape_of(end)
    ):
        return None  # a TransData keeps the origin format and shape
    recast = begin.element_type != end.element_type
    if not 0 < relayout + recast < len(path.ops):
        return None  # no fewer ops than the path has
    return _chain(path.head, end, relayout, recast)


def _chain(
    head: SSAValue, end: TensorType, relayout: bool, recast: bool
) -> list[Operation]:
    steps: list[Operation] = []
    value = head
    cast_goes_first = recast and cast_first(
        tensor_of(head).element_type, end.element_type
    )
    if cast_goes_first:
        steps.append(cast_op(value, end.element_type))
        value = steps[-1].results[0]
    if relayout:
        steps.append(transdata_op(value, layout_attr(end)))
        value = steps[-1].results[0]
    if recast and not cast_goes_first:
        steps.append(cast_op(value, end.element_type))
    return steps


class FuseTransChainsFromHead(RewritePattern):
    """Replace each trans-op path leaving a result of `op` by its fused form."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, PATH_OPS):
            return  # paths start at real ops
        if any(-1 in shape_of(tensor_of(r)) for r in op.results):
            return  # GE skips heads of unknown shape
        rewrites = [
            (path, new_ops)
            for head in op.results
            for path in trans_paths(head)
            if break_reason(path) is None
            and (new_ops := replacement_ops(path)) is not None
        ]
        for path, new_ops in rewrites:
            rewriter.insert(new_ops, InsertPoint.before(path.consumer))
            value = new_ops[-1].results[0] if new_ops else path.head
            path.consumer.operands[path.operand_index] = value
            rewriter.handle_operation_modification(path.consumer)
        for path, _ in rewrites:
            for trans in reversed(path.ops):
                if trans.parent is not None and not trans.results[0].uses:
                    rewriter.erase(trans)


@dataclass(frozen=True)
class TransOpWithoutReshapeFusionPass(ModulePass):
    """Replace each trans-op chain by at most one TransData and one Cast."""

    name = "transop-without-reshape-fusion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseTransChainsFromHead()).rewrite_module(op)
