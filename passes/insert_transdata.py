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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
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

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.diagnostics import error_at
from ge_dialect.dtypes import dtype_name, numpy_dtype
from ge_dialect.formats import Format, from_storage, to_storage
from ge_dialect.layout import shape_of, storage_shape_of
from ge_dialect.ops import (
    CONTROL_FLOW_OPS,
    CastOp,
    ConstOp,
    DataOp,
    GraphOp,
    NetOutputOp,
    TransDataOp,
    WhileOp,
)

INPUT_LAYOUTS = "input_layouts"
"""Consumer attribute: the `#ge.layout` each operand must have."""

INPUT_DTYPES = "input_dtypes"
"""Consumer attribute: the element type each operand must have."""

STORAGE_OF = "storage_of"
"""`ge.const` attribute: its external data is the named weight, relaid out."""

TARGET_ATTRIBUTE = "ge.target"
"""Module attribute naming the target (SoC) whose C0 the layouts use."""


# ---------------------------------------------------------------------------
# Layouts of tensor types and the consumer-side requirements
# ---------------------------------------------------------------------------


def layout_attr(tensor: Attribute) -> LayoutAttr:
    """The `#ge.layout` of a tensor type (ND without an encoding)."""
    assert isinstance(tensor, TensorType)
    encoding = tensor.encoding
    return encoding if isinstance(encoding, LayoutAttr) else LayoutAttr(Format.ND)


def origin_layout(tensor: Attribute) -> LayoutAttr:
    """The plain layout of a tensor: storage = its origin format."""
    return LayoutAttr(layout_attr(tensor).origin_format)


def retyped(tensor: Attribute, layout: LayoutAttr) -> TensorType:
    """`tensor` with `layout` as its encoding (ND/ND drops the encoding)."""
    assert isinstance(tensor, TensorType)
    if layout == LayoutAttr(Format.ND):
        return TensorType(tensor.element_type, tensor.get_shape())
    return TensorType(tensor.element_type, tensor.get_shape(), layout)


def is_scalar(tensor: Attribute) -> bool:
    """Whether a tensor has exactly one element (it broadcasts by value)."""
    assert isinstance(tensor, TensorType)
    return all(d == 1 for d in shape_of(tensor))


def satisfies(tensor: Attribute, required: LayoutAttr) -> bool:
    """Whether a value of type `tensor` already has the `required` layout."""
    have = layout_attr(tensor)
    if have.origin_format != required.origin_format:
        return False
    if have.storage_format != required.storage_format:
        return False
    if required.storage_format == required.origin_format:
        return True
    return (
        have.explicit_reshape_type == required.explicit_reshape_type
        and storage_shape_of(retyped(tensor, have))
        == storage_shape_of(retyped(tensor, required))
    )


def required_layouts(op: Operation) -> list[LayoutAttr] | None:
    """The `input_layouts` of a consumer, if it has them."""
    attr = op.attributes.get(INPUT_LAYOUTS)
    if attr is None:
        return None
    if not isinstance(attr, ArrayAttr) or len(attr.data) != len(op.operands):
        raise error_at(
            op,
            f"'{INPUT_LAYOUTS}' needs one #ge.layout per operand ({len(op.operands)})",
        )
    if not all(isinstance(a, LayoutAttr) for a in attr.data):
        raise error_at(op, f"'{INPUT_LAYOUTS}' entries must be #ge.layout")
    return list(attr.data)


def set_required_layouts(op: Operation, layouts: Sequence[LayoutAttr]) -> bool:
    """Record what `op` needs; only if an operand differs. True if `op` changed."""
    mismatch = any(
        not satisfies(value.type, layout)
        for value, layout in zip(op.operands, layouts, strict=True)
    )
    old = op.attributes.get(INPUT_LAYOUTS)
    new = ArrayAttr(layouts) if mismatch else None
    if old == new:
        return False
    if new is None:
        del op.attributes[INPUT_LAYOUTS]
    else:
        op.attributes[INPUT_LAYOUTS] = new
    return True


def keep_consumer_layouts(value: SSAValue, layout: LayoutAttr) -> None:
    """After `value` was retyped: its consumers without requirements still
    need `layout`, its previous layout (GE changes only the producer's end)."""
    for use in list(value.uses):
        user = use.operation
        if required_layouts(user) is None:
            layouts = [layout_attr(v.type) for v in user.operands]
            layouts[use.index] = layout
            set_required_layouts(user, layouts)


def boundary_layouts(op: Operation) -> list[LayoutAttr]:
    """What an op without format choices needs (graph boundaries and the like).

    - a root `ge.netoutput`: the origin layout, or the user's
      `storage_formats` entry when it is not ND (the graph interface);
    - a subgraph `ge.netoutput`: the layout of the parent's result (a
      `ge.while` condition's: origin, it is no loop variable);
    - a control-flow op: the layout of the subgraph `ge.data` mirroring each
      operand (the first subgraph that has one), else origin;
    - a `ge.transdata`: its `src_format`;
    - anything else: origin.
    """
    operands = [value.type for value in op.operands]
    if isinstance(op, NetOutputOp):
        parent = op.parent_op()
        if isinstance(parent, WhileOp) and op.parent_region() is parent.cond:
            return [origin_layout(t) for t in operands]
        if parent is not None and not isinstance(parent, GraphOp):
            return [layout_attr(r.type) for r in parent.results]
        requested = op.storage_formats.data if op.storage_formats else ()
        return [
            origin_layout(t)
            if i >= len(requested) or requested[i].data == Format.ND
            else LayoutAttr(layout_attr(t).origin_format, requested[i].data)
            for i, t in enumerate(operands)
        ]
    if isinstance(op, CONTROL_FLOW_OPS):
        mirrors: dict[int, LayoutAttr] = {}
        for region in reversed(op.regions):
            for inner in region.block.ops:
                if isinstance(inner, DataOp) and inner.parent_index is not None:
                    mirrors[inner.index_value] = layout_attr(inner.output.type)
        return [mirrors.get(i, origin_layout(t)) for i, t in enumerate(operands)]
    if isinstance(op, TransDataOp):
        have = layout_attr(operands[0])
        if have.storage_format == op.src_format.data:
            return [have]
        return [LayoutAttr(have.origin_format, op.src_format.data)]
    return [origin_layout(t) for t in operands]


def origin_matches(value: SSAValue, layout: LayoutAttr) -> bool:
    """Whether `value` can be converted to `layout`: same origin format, or an
    ND constant (folded, so it may take its consumer's origin format)."""
    have = layout_attr(value.type).origin_format
    return have == layout.origin_format or (
        have is Format.ND and isinstance(value.owner, ConstOp)
    )


def module_target(op: Operation) -> str | None:
    """The target recorded on the enclosing module (`ge.target`), if any."""
    while op.parent_op() is not None:
        op = op.parent_op()  # type: ignore[assignment]
    attr = op.attributes.get(TARGET_ATTRIBUTE)
    return attr.data if isinstance(attr, StringAttr) else None


# ---------------------------------------------------------------------------
# Constants converted at compile time
# ---------------------------------------------------------------------------


def dense_from_numpy(array: np.ndarray, tensor: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute of type `tensor` holding `array` (same shape)."""
    struct_format = getattr(tensor.element_type, "format", None)
    if struct_format is None:
        return DenseIntOrFPElementsAttr.from_list(tensor, array.reshape(-1).tolist())
    data = np.ascontiguousarray(array, dtype=np.dtype(struct_format)).tobytes()
    return DenseIntOrFPElementsAttr(tensor, BytesAttr(data))


def origin_array(
    stored: np.ndarray, tensor: TensorType, target: str | None
) -> np.ndarray:
    """The origin-layout array held by `stored` in the layout of `tensor`."""
    layout = layout_attr(tensor)
    if layout.storage_format in (layout.origin_format, Format.ND):
        return stored
    return from_storage(
        stored,
        layout.origin_format,
        layout.storage_format,
        shape_of(tensor),
        reshape_type=layout.explicit_reshape_type,
        target=target,
        dtype=dtype_name(tensor.element_type),
    )


def stored_array(
    origin: np.ndarray, tensor: TensorType, target: str | None
) -> np.ndarray:
    """`origin` cast to the dtype of `tensor` and laid out in its storage format."""
    dtype = dtype_name(tensor.element_type)
    origin = origin.astype(numpy_dtype(dtype), copy=False)
    layout = layout_attr(tensor)
    if layout.storage_format in (layout.origin_format, Format.ND):
        return origin
    return to_storage(
        origin,
        layout.origin_format,
        layout.storage_format,
        reshape_type=layout.explicit_reshape_type,
        target=target,
        dtype=dtype,
    )


def derived_weight_key(key: str, tensor: TensorType) -> str:
    """The weight key of external data `key` relaid out to the type `tensor`."""
    layout = layout_attr(tensor)
    suffix = layout.storage_format.value
    if (reshape_type := layout.explicit_reshape_type) is not None:
        suffix += f".{reshape_type}"
    return f"{key}@{suffix}:{dtype_name(tensor.element_type)}"


def relayout_constant(
    const: ConstOp, tensor: TensorType, target: str | None
) -> ConstOp | None:
    """A new constant holding `const`'s value as type `tensor`, or None if the
    data is external and not in origin layout (it cannot be derived here)."""
    from ge_runtime.reference import dense_to_numpy

    old = const.output.type
    assert isinstance(old, TensorType)
    attributes = {k: v for k, v in const.attributes.items() if k != "value"}
    if isinstance(const.value, ExternalDataAttr):
        if const.attributes.get(STORAGE_OF) is not None or not satisfies(
            old, origin_layout(old)
        ):
            return None
        key = const.value.key.data
        attributes["value"] = ExternalDataAttr(derived_weight_key(key, tensor))
        attributes[STORAGE_OF] = StringAttr(key)
    else:
        origin = origin_array(dense_to_numpy(const.value), old, target)
        stored = stored_array(origin, tensor, target)
        value_type = TensorType(tensor.element_type, stored.shape)
        attributes["value"] = dense_from_numpy(stored, value_type)
    return ConstOp.create(attributes=attributes, result_types=[tensor])


def derive_storage_weights(
    module: ModuleOp, weights: Mapping[str, np.ndarray], target: str | None = None
) -> dict[str, np.ndarray]:
    """`weights` plus the array of every `storage_of` constant in `module`.

    Call it when loading weights for a module that went through this pass.
    """
    derived = dict(weights)
    for op in module.walk():
        source = op.attributes.get(STORAGE_OF)
        if not isinstance(op, ConstOp) or not isinstance(source, StringAttr):
            continue
        assert isinstance(op.value, ExternalDataAttr)
        if source.data not in weights:
            raise error_at(op, f"weight '{source.data}' is not in the weights")
        tensor = op.output.type
        assert isinstance(tensor, TensorType)
        derived[op.value.key.data] = stored_array(
            np.asarray(weights[source.data]), tensor, target
        )
    return derived


# ---------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------


def cast_first(source: Attribute, target: Attribute) -> bool:
    """GE's order: Cast before TransData iff the source is not fp16 and the
    target is (so the TransData moves the narrower data)."""
    return dtype_name(source) != "float16" and dtype_name(target) == "float16"


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


def transdata_op(value: SSAValue, layout: LayoutAttr) -> TransDataOp:
    """`ge.transdata` of `value` to `layout`."""
    src = layout_attr(value.type).storage_format
    return TransDataOp.create(
        operands=[value],
        result_types=[retyped(value.type, layout)],
        attributes={
            "src_format": FormatAttr(src),
            "dst_format": FormatAttr(layout.storage_format),
        },
    )


def cast_op(value: SSAValue, element: Attribute) -> CastOp:
    """`ge.cast` of `value` to element type `element`, keeping its layout."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    result = TensorType(element, tensor.get_shape(), tensor.encoding)
    return CastOp.create(
        operands=[value], result_types=[result], attributes={"dst_type": element}
    )


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
        materializer = Materializer(module_target(op))
        PatternRewriteWalker(
            MaterializeRequiredLayouts(materializer), apply_recursively=False
        ).rewrite_module(op)
