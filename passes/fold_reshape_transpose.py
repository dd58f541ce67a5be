"""`fold-reshape-transpose`: an image regrouped into rows of channels, or
rows folded back into an image, becomes one `ge.confusion_transpose` that
reads NC1HWC0 and writes FRACTAL_NZ (or the other way round).

A patch embedding (ViT, Swin, SegFormer, ...) runs a convolution, flattens
its spatial axes and moves the channels last: `reshape [N, C, H, W] -> [N,
C, H*W]`, `transpose (0, 2, 1)`; a CTC head squeezes a unit H and moves the
channels last; SVTR's mixing blocks end with the reverse, `reshape [N, H*W,
C] -> [N, H, W, C]`, `transpose (0, 3, 1, 2)` into the next convolution.
Reshape and transpose run in origin format only, so each such chain costs
two runtime TransData (NC1HWC0 -> NCHW before it, ND -> FRACTAL_NZ after
it, or the mirror). Fused into one confusion transpose (CANN's
ReshapeTransposeFusionPass makes ConfusionTransposeD the same way, in graph
fusion, before format selection), the op runs between the two internal
formats where every C0 channel vector of the image lands whole, lane for
lane, on one row of a fractal (`ConfusionTransposeOp.keeps_channel_vectors`):
it copies 32-byte vectors and no lane changes place, where each TransData
transposes lanes. ATC-style graph fusion rule `ReshapeTransposeFusion`
(switchable with `disable`).

```mlir
%r = ge.reshape %c {shape = array<i64: 2, 48, 16>}
   : tensor<2x48x4x4xf32> -> tensor<2x48x16xf32>
%t = ge.transpose %r {perm = array<i64: 0, 2, 1>}
   : tensor<2x48x16xf32> -> tensor<2x16x48xf32>
// becomes
%t = ge.confusion_transpose %c {perm = array<i64: 0, 2, 1>,
                                shape = array<i64: 2, 48, 16>}
   : tensor<2x48x4x4xf32> -> tensor<2x16x48xf32>
```

The chain is reshape-family ops and transposes (each result read only by
the next, the whole run of them), amounting to one reshape and one
transpose (`fused_attributes`), either from a rank-4 value that a heavy op
writing NC1HWC0 produces through elementwise ops only
(`anchored_in_nc1hwc0`), or to a rank-4 value that only heavy ops reading
NC1HWC0 read (`read_in_nc1hwc0`). Bail-outs: neither end is such an image
(an attention head merge reads a matrix product: `fuse-confusion-transpose`
fuses it between FRACTAL_NZ values after TransData insertion), the chain
is more than a reshape and a transpose, or dynamic, or the fused op would
not keep channel vectors for either image format (C on axis 1, NCHW, or
axis 3, NHWC: the origin is inferred only later, and
`select-storage-format` asks the op again with it). Where the spread does
not reach the op it runs in origin format: one copy instead of two. It
runs before `fold-transpose-into-matmul`, so a CTC head's transpose reads
the convolution's NC1HWC0 result into the classifier's FRACTAL_NZ rather
than becoming the product's transpose attribute.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import shape_of
from ge_dialect.opinfo import find_op_info
from ge_dialect.ops import ConfusionTransposeOp, enclosing_target
from ge_dialect.ops.base import boolean, element_type_of
from ge_dialect.ops.trans import PermutationOp
from ge_dialect.targets import c0_for
from ge_dialect.traits import Elementwise
from passes.fuse_confusion_transpose import (
    RESHAPES,
    chain_name,
    fused_attributes,
    single_use_producer,
)
from passes.fuse_ops import check_disable_option, enabled_rules

IMAGE_CHANNEL_AXES = (1, 3)
"""Where a rank-4 image keeps its channels: NCHW, NHWC."""


SHAPE_OPS = (*RESHAPES, PermutationOp)


def shape_chain(end: Operation) -> list[Operation]:
    """The reshape-family ops and transposes ending in `end`, each result
    read only by the next, first op first."""
    chain = [end]
    while isinstance(producer := single_use_producer(chain[0].operands[0]), SHAPE_OPS):
        chain.insert(0, producer)
    return chain


def is_chain_end(op: Operation) -> bool:
    """Whether `op` is a shape op whose result is not read by a shape op alone."""
    if not isinstance(op, SHAPE_OPS):
        return False
    uses = list(op.results[0].uses)
    return len(uses) != 1 or not isinstance(uses[0].operation, SHAPE_OPS)


def anchored_in_nc1hwc0(value: SSAValue) -> bool:
    """Whether `value` comes from a heavy op writing NC1HWC0 (a convolution,
    a pooling), through elementwise ops only: an image the format selection
    anchors in NC1HWC0."""
    producer = value.owner
    while isinstance(producer, Operation):
        info = find_op_info(producer)
        if info is None:
            return False
        if info.heavy:
            return any(Format.NC1HWC0 in output.formats for output in info.outputs)
        if not producer.has_trait(Elementwise):
            return False
        producer = producer.operands[0].owner
    return False


def read_in_nc1hwc0(value: SSAValue) -> bool:
    """Whether every reader of `value` is a heavy op that reads NC1HWC0 (the
    next convolution)."""
    uses = list(value.uses)
    for use in uses:
        info = find_op_info(use.operation)
        if info is None or not info.heavy:
            return False
        if not any(Format.NC1HWC0 in tensor.formats for tensor in info.inputs):
            return False
    return bool(uses)


def channel_vector_fusion(chain: list[Operation]) -> ConfusionTransposeOp | None:
    """The confusion transpose doing `chain` if it turns an image anchored in
    NC1HWC0 into rows, or rows into an image read in NC1HWC0, keeping the
    C0 channel vectors whole (None: it does not)."""
    x, y = chain[0].operands[0], chain[-1].results[0]
    image_first = len(shape_of(x.type)) == 4 and anchored_in_nc1hwc0(x)  # type: ignore[arg-type]
    image_last = len(shape_of(y.type)) == 4 and read_in_nc1hwc0(y)  # type: ignore[arg-type]
    if image_first == image_last:
        return None
    attributes = fused_attributes(chain)
    if attributes is None or attributes["perm"] == sorted(attributes["perm"]):
        return None
    fused = ConfusionTransposeOp.create(
        operands=[x],
        result_types=[y.type],
        attributes={
            "perm": DenseArrayBase.from_list(i64, attributes["perm"]),
            "shape": DenseArrayBase.from_list(i64, attributes["shape"]),
        },
    )
    if attributes["transpose_first"]:
        fused.attributes["transpose_first"] = boolean(True)
    if (name := chain_name(chain)) is not None:
        fused.attributes["name"] = name
    c0 = c0_for(dtype_name(element_type_of(x)), enclosing_target(chain[-1]))
    if any(
        fused.keeps_channel_vectors(axis, c0, image_first=image_first)
        for axis in IMAGE_CHANNEL_AXES
    ):
        return fused
    fused.drop_all_references()  # the unused op must not read x
    return None


class FoldReshapeTranspose(RewritePattern):
    """A reshape and a transpose between an image and rows of its channels
    that keep the channel vectors whole become one confusion transpose."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not is_chain_end(op):
            return
        chain = shape_chain(op)
        fused = channel_vector_fusion(chain)
        if fused is None:
            return
        rewriter.replace(op, fused)
        for dead in reversed(chain[:-1]):
            rewriter.erase(dead)


@dataclass(frozen=True)
class FoldReshapeTransposePass(ModulePass):
    """Fuse an image's flatten into rows of channels into a confusion transpose."""

    name = "fold-reshape-transpose"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (`ReshapeTransposeFusion`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not enabled_rules(self.name, self.disable):
            return
        PatternRewriteWalker(FoldReshapeTranspose()).rewrite_module(op)
