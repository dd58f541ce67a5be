"""Signless integers in loop IR: upstream `arith` and `memref` take no `ui` types.

Ops lower with their tensors' element types, so a scalar body sees `ui8`
values and picks the unsigned variant of each op whose meaning depends on
the sign (`arith.divui`, `remui`, `shrui`, `maxui`, `minui`, `cmpi ult`,
`extui`, `uitofp`, `fptoui`, `index_castui`). Once a graph is lowered its
integer types become signless: the op choice carries the signedness, as in
upstream MLIR.

```mlir
%q = arith.divui %a, %b : ui8            // while lowering
%c = arith.constant 255 : ui8
// becomes
%q = arith.divui %a, %b : i8
%c = arith.constant -1 : i8              // the same bits
```

Which values a caller reads as unsigned is kept on the function's arguments
and results (`ELEMENT_TYPE_ATTR`, set by `convert_ge_to_loops`), so the JIT
takes and returns arrays of the graph's dtypes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

ELEMENT_TYPE_ATTR = "ge.element_type"
"""The argument/result attribute naming the unsigned type a signless memref's
data has (`{ge.element_type = ui8}` on a `memref<...xi8>`)."""


def signless(type_: IntegerType) -> IntegerType:
    """The signless integer type of `type_`'s width."""
    return IntegerType(type_.width.data)


def signless_attribute(attr: Attribute) -> Attribute:
    """`attr` with every `ui`/`si` integer type in it signless (memref and
    function types, dense and integer attributes, arrays, dictionaries); an
    integer attribute keeps its bits, written in the signed range."""
    if isinstance(attr, IntegerType):
        if attr.signedness.data == Signedness.SIGNLESS:
            return attr
        return signless(attr)
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
        width, value = attr.type.width.data, attr.value.data
        if width > 1 and value >= 1 << (width - 1):
            value -= 1 << width
        if attr.type == signless(attr.type) and value == attr.value.data:
            return attr
        return IntegerAttr.new([IntAttr(value), signless(attr.type)])
    if isinstance(attr, ArrayAttr):
        items = tuple(signless_attribute(a) for a in attr.data)
        return attr if items == attr.data else ArrayAttr(items)
    if isinstance(attr, DictionaryAttr):
        entries = {k: signless_attribute(v) for k, v in attr.data.items()}
        return attr if entries == dict(attr.data) else DictionaryAttr(entries)
    if isinstance(attr, ParametrizedAttribute):
        parameters = [signless_attribute(p) for p in attr.parameters]
        if parameters == list(attr.parameters):
            return attr
        return type(attr).new(parameters)
    return attr


class SignlessIntegers(RewritePattern):
    """An op's `ui`/`si` integer types (results, block arguments, properties
    and attributes) -> signless ones (`signless_attribute`).

    xDSL's `TypeConversionPattern` would do, but it keeps an attribute whose
    conversion is falsy (`0 : ui8`), so it would rewrite such a constant
    forever."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if (converted := signless_attribute(arg.type)) != arg.type:
                        rewriter.replace_value_with_new_type(arg, converted)
        result_types = [signless_attribute(r.type) for r in op.results]
        properties = {k: signless_attribute(v) for k, v in op.properties.items()}
        attributes = {k: signless_attribute(v) for k, v in op.attributes.items()}
        if (
            result_types == [r.type for r in op.results]
            and properties == op.properties
            and attributes == op.attributes
        ):
            return
        new_op = type(op).create(
            operands=op.operands,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
            successors=op.successors,
            regions=[op.detach_region(r) for r in list(op.regions)],
        )
        rewriter.replace(op, new_op)


def make_signless(ops: Sequence[Operation]) -> list[Operation]:
    """`ops` (detached top-level ops: functions, globals) with signless
    integer types everywhere; returns the ops that replace them."""
    holder = ModuleOp(list(ops))
    PatternRewriteWalker(SignlessIntegers()).rewrite_module(holder)
    converted = list(holder.body.block.ops)
    for op in converted:
        op.detach()
    return converted
