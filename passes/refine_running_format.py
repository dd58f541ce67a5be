"""`refine-running-format`: apply user storage formats (GE PrepareRunningFormatRefiner).

GE's `UpdateDataNetOutputByStorageFormat` (docs/research/ge_behaviour.md §4.1–4.2):

- `ge.data` with `storage_format` and `storage_shape`: the result type gets
  that storage format. A non-empty `storage_shape` without 0 dims is used as
  given (`storage_shape = [...]` in the layout; the dialect checks it
  against the derived shape unless the origin shape has unknown dims); one
  with no elements (`array<i64>`, or a 0 dim as in `array<i64: 0>`) means
  "derive it" with the reshape-type rules. Only the empty one (GE: the user
  gave no dims) also gives the op `is_heavy_op` = the
  `storage-format-spread` option (default true), which lets
  `select-storage-format` spread the format to its neighbours.
  `storage_format` without `storage_shape` is an error (GE's E14002).
- Inside a subgraph the parent op's operand is refreshed too: the parent
  gets `input_layouts` asking for the same layout, so `insert-transdata`
  converts the parent's operand.
- `ge.netoutput` `storage_formats` (ND: keep): the graph output j is asked
  for in that storage format (`input_layouts` on the netoutput).
- A constant placeholder, `ge.const` with `storage_format` and
  `storage_shape` on the op (both required), is relaid out at once.

Origin formats and origin shapes never change. The user attributes stay
(as in GE), so running the pass again changes nothing.

```mlir
%x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>,
              storage_shape = array<i64>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
// after:
%x = ge.data {index = 0 : i64, is_heavy_op = true, storage_format = ...}
   : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
```

Differences from GE (docs/GE_DEVIATIONS.md): the dialect has no
`_is_op_generalized` nor `expand_dims_rule`, so user dims are always used and
the reshape type is the default; a user storage shape must agree with the
derived one (GE takes any dims); `storage_format` on a `ge.while` subgraph
input is an error (GE silently skips While data).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import FormatAttr, LayoutAttr
from ge_dialect.constants import relayout_constant
from ge_dialect.formats import FormatError
from ge_dialect.layout import check_tensor_type, layout_attr, retyped
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    ConstOp,
    DataOp,
    GraphOp,
    NetOutputOp,
    WhileOp,
    enclosing_target,
)
from passes.layout_requirements import (
    boundary_layouts,
    keep_consumer_layouts,
    set_required_layouts,
)

HEAVY_ATTR = "is_heavy_op"
"""Set on a `ge.data` whose storage shape was derived: spread its format."""


def user_storage_type(op: Operation, tensor: TensorType) -> TensorType | None:
    """The type `tensor` gets from the op's `storage_format`/`storage_shape`.

    None if the op asks for nothing; a GEError if the request is invalid.
    """
    storage = op.attributes.get("storage_format")
    if storage is None:
        return None
    dims_attr = op.attributes.get("storage_shape")
    if not isinstance(storage, FormatAttr):
        raise error_at(op, "'storage_format' must be a #ge.format")
    if not isinstance(dims_attr, DenseArrayBase):
        raise error_at(
            op,
            "'storage_format' needs 'storage_shape' (GE E14002); an empty "
            "storage_shape derives it",
        )
    dims = tuple(dims_attr.get_values())
    current = layout_attr(tensor)
    layout = LayoutAttr(
        current.origin_format,
        storage.data,
        storage_shape=dims if dims and 0 not in dims else None,
        reshape_type=current.explicit_reshape_type,
    )
    result = retyped(tensor, layout)
    try:
        check_tensor_type(result)
    except (VerifyException, FormatError) as error:
        raise error_at(
            op, f"cannot store it as {storage.data.value}: {error}"
        ) from None
    return result


def derives_heavy_shape(op: Operation) -> bool:
    """Whether the storage shape is derived *because* the user gave no dims.

    GE derives the shape whenever the user dims have no elements (`[]` or a
    0 dim, §4.2 step 2.1) but marks the op heavy only for empty dims (step
    5.2): `array<i64: 0>` derives the shape and leaves the op alone.
    """
    dims = op.attributes.get("storage_shape")
    return isinstance(dims, DenseArrayBase) and not dims.get_values()


@dataclass
class RefineDataStorage(RewritePattern):
    """`ge.data` takes its user storage format (and refreshes the parent op)."""

    spread: bool

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DataOp, rewriter: PatternRewriter) -> None:
        tensor = op.output.type
        assert isinstance(tensor, TensorType)
        new_type = user_storage_type(op, tensor)
        if new_type is None:
            return
        parent = op.parent_op()
        if isinstance(parent, WhileOp):
            raise error_at(
                op, "'storage_format' on a 'ge.while' subgraph input is not supported"
            )
        if new_type != tensor:
            value = rewriter.replace_value_with_new_type(op.output, new_type)
            keep_consumer_layouts(value, layout_attr(tensor))
        heavy = None
        if derives_heavy_shape(op) and layout_attr(new_type).storage_format != (
            layout_attr(new_type).origin_format
        ):
            heavy = BoolAttr.from_bool(self.spread)
        if op.attributes.get(HEAVY_ATTR) != heavy and heavy is not None:
            op.attributes[HEAVY_ATTR] = heavy
            rewriter.handle_operation_modification(op)
        if parent is not None and not isinstance(parent, GraphOp):
            if set_required_layouts(parent, boundary_layouts(parent)):
                rewriter.handle_operation_modification(parent)


class RefineNetOutputStorage(RewritePattern):
    """The root `ge.netoutput` asks for its user `storage_formats`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NetOutputOp, rewriter: PatternRewriter) -> None:
        if op.storage_formats is None:
            return
        if not isinstance(op.parent_op(), GraphOp):
            raise error_at(op, "'storage_formats' is only allowed on a root graph")
        layouts = boundary_layouts(op)
        for index, (value, layout) in enumerate(zip(op.outputs, layouts, strict=True)):
            try:
                check_tensor_type(retyped(value.type, layout))
            except (VerifyException, FormatError) as error:
                raise error_at(op, f"output #{index}: {error}") from None
        if set_required_layouts(op, layouts):
            rewriter.handle_operation_modification(op)


@dataclass
class RefineConstStorage(RewritePattern):
    """A constant placeholder is relaid out to its user storage format."""

    target: str | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstOp, rewriter: PatternRewriter) -> None:
        tensor = op.output.type
        assert isinstance(tensor, TensorType)
        if op.attributes.get("storage_format") is None:
            return
        if not isinstance(op.attributes.get("storage_shape"), DenseArrayBase):
            raise error_at(
                op,
                "a constant placeholder needs both 'storage_format' and "
                "'storage_shape'",
            )
        new_type = user_storage_type(op, tensor)
        if new_type is None or new_type == tensor:
            return
        new_op = relayout_constant(op, new_type, self.target)
        if new_op is None:
            raise error_at(
                op, "external data not in origin layout cannot be relaid out"
            )
        rewriter.replace(op, new_op)
        keep_consumer_layouts(new_op.output, layout_attr(tensor))


@dataclass(frozen=True)
class RefineRunningFormatPass(ModulePass):
    """Apply user storage_format/storage_shape to graph inputs, outputs, constants."""

    name = "refine-running-format"

    storage_format_spread: bool = True
    """GE's `_enable_storage_format_spread`: mark derived-shape inputs as heavy."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    RefineDataStorage(self.storage_format_spread),
                    RefineNetOutputStorage(),
                    RefineConstStorage(enclosing_target(op)),
                ]
            ),
            apply_recursively=False,
        ).rewrite_module(op)
