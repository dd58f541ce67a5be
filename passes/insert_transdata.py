"""`insert-transdata`: materialise the layouts consumers require (GE's InsertTransOp).

**Representation.** After `refine-running-format` and `select-storage-format`
each value's type says how its *producer* writes it. What a *consumer* needs
is GE's input descriptor, the other end of the edge; in SSA a value has one
type (docs/GE_DEVIATIONS.md), so it is recorded on the consumer as the
discardable attribute `input_layouts` (one `#ge.layout` per operand) and, for
dtype gaps, `input_dtypes` (one type per operand). The attributes are written
only on ops where some operand differs from what is required, so they mark
exactly where conversions go. This pass inserts them and drops the
attributes:

```mlir
%x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
%y = ge.relu %x {input_layouts = [#ge.layout<NCHW, NC1HWC0>]}
   : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<...>>
```
becomes
```mlir
%x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
%t = ge.transdata %x {dst_format = #ge.format<NC1HWC0>, src_format = #ge.format<NCHW>}
   : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<...>>
%y = ge.relu %t : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<...>
```

Rules:
- each value is converted at most once per (layout, dtype), right after its
  producer, and every consumer needing that shares it (TVM's memoised
  transform);
- a layout change is one `ge.transdata`; an operand below its origin
  format's rank carries the reshape type in the required layout
  (`#ge.layout<NCHW, NC1HWC0, reshape_type = "C">` for a bias [C]), which
  says how the TransData expands it;
- a dtype change is a `ge.cast`; with both, the Cast goes first when the
  source is not fp16 and the target is (GE's TransOpWithoutReshapeFusion
  order), otherwise the TransData goes first;
- a scalar (one element) never gets a TransData, except into a
  `ge.transdata` (which reads its `src_format`) or a `ge.netoutput` (the
  graph interface);
- constants are converted at compile time into a new `ge.const` (the old
  one goes when unused). Inline dense values are relaid out here. An
  `#ge.external<"key">` constant whose data is in origin layout becomes
  `ge.const {value = #ge.external<"key@FORMAT">, storage_of = "key"}`:
  the derived key's array is `weights["key"]` converted to the const's
  layout, produced at weight-load time by `derive_storage_weights`;
- FRACTAL_Z here is always the groups = 1 packing of the filter (a tensor
  type has no groups field), also for grouped convolutions.

Padding contract: TransData and folded constants fill the padding of an
internal format with zeros; the reference evaluator drops it when it reads a
value back (`from_storage`), so padding never reaches results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.attributes import LayoutAttr
from ge_dialect.constants import relayout_constant
from ge_dialect.layout import is_scalar, layout_attr, retyped, satisfies
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    ConstOp,
    NetOutputOp,
    TransDataOp,
    enclosing_target,
)
from passes.layout_requirements import (
    INPUT_DTYPES,
    INPUT_LAYOUTS,
    cast_first,
    cast_op,
    origin_matches,
    required_layouts,
    transdata_op,
)

# ---------------------------------------------------------------------------
# Layouts of tensor types and the consumer-side requirements
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Constants converted at compile time
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------


@dataclass
class Materializer:
    """Creates each (value, layout, dtype) conversion once and remembers it."""

    target: str | None
    done: dict[tuple[SSAValue, LayoutAttr, Attribute], SSAValue] = field(
        default_factory=dict
    )

    def convert(
        self,
        value: SSAValue,
        layout: LayoutAttr,
        element: Attribute,
        rewriter: PatternRewriter,
        keep_scalar_layout: bool = True,
    ) -> SSAValue:
        """`value` in `layout` with element type `element` (memoised)."""
        tensor = value.type
        assert isinstance(tensor, TensorType)
        if keep_scalar_layout and is_scalar(tensor):
            layout = layout_attr(tensor)
            if tensor.element_type == element:
                return value
        key = (value, layout, element)
        if key not in self.done:
            self.done[key] = self._create(value, layout, element, rewriter)
        return self.done[key]

    def _create(
        self,
        value: SSAValue,
        layout: LayoutAttr,
        element: Attribute,
        rewriter: PatternRewriter,
    ) -> SSAValue:
        tensor = value.type
        assert isinstance(tensor, TensorType)
        final = retyped(
            TensorType(element, tensor.get_shape(), tensor.encoding), layout
        )
        if isinstance(value.owner, ConstOp):
            folded = relayout_constant(value.owner, final, self.target)
            if folded is not None:
                rewriter.insert(folded, InsertPoint.after(value.owner))
                return folded.output
        steps: list[Operation] = []
        current = value
        relayout = not satisfies(tensor, layout)
        recast = tensor.element_type != element
        if recast and (not relayout or cast_first(tensor.element_type, element)):
            steps.append(cast_op(current, element))
            current = steps[-1].results[0]
            recast = False
        if relayout:
            steps.append(transdata_op(current, layout))
            current = steps[-1].results[0]
        if recast:
            steps.append(cast_op(current, element))
        owner = value.owner
        assert isinstance(owner, Operation)
        rewriter.insert(steps, InsertPoint.after(owner))
        return steps[-1].results[0]


@dataclass
class MaterializeRequiredLayouts(RewritePattern):
    """Feeds each operand to its consumer in the layout and dtype it requires."""

    materializer: Materializer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        layouts = required_layouts(op)
        dtypes = op.attributes.get(INPUT_DTYPES)
        if layouts is None and dtypes is None:
            return
        if dtypes is not None and (
            not isinstance(dtypes, ArrayAttr) or len(dtypes.data) != len(op.operands)
        ):
            raise error_at(op, f"'{INPUT_DTYPES}' needs one type per operand")
        new_operands = []
        for index, value in enumerate(op.operands):
            tensor = value.type
            assert isinstance(tensor, TensorType)
            layout = layouts[index] if layouts else layout_attr(tensor)
            element = dtypes.data[index] if dtypes else tensor.element_type
            if not origin_matches(value, layout):
                raise error_at(
                    op,
                    f"operand #{index} has origin format "
                    f"{layout_attr(tensor).origin_format.value}, but its required "
                    f"layout {layout} has another",
                )
            if satisfies(tensor, layout) and tensor.element_type == element:
                new_operands.append(value)
            else:
                new_operands.append(
                    self.materializer.convert(
                        value,
                        layout,
                        element,
                        rewriter,
                        not isinstance(op, TransDataOp | NetOutputOp),
                    )
                )
        old_operands = list(op.operands)
        op.operands = new_operands
        op.attributes.pop(INPUT_LAYOUTS, None)
        op.attributes.pop(INPUT_DTYPES, None)
        rewriter.handle_operation_modification(op)
        for value in old_operands:
            if isinstance(value.owner, ConstOp) and not value.uses:
                rewriter.erase(value.owner)


@dataclass(frozen=True)
class InsertTransDataPass(ModulePass):
    """Insert ge.transdata/ge.cast where a consumer requires another layout or dtype."""

    name = "insert-transdata"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        materializer = Materializer(enclosing_target(op))
        PatternRewriteWalker(
            MaterializeRequiredLayouts(materializer), apply_recursively=False
        ).rewrite_module(op)
