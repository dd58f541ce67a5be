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

from collections.abc import Iterable, Sequence
from functools import lru_cache

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
from xdsl.rewriter import Rewriter

ELEMENT_TYPE_ATTR = "ge.element_type"
"""The argument/result attribute naming the unsigned type a signless memref's
data has (`{ge.element_type = ui8}` on a `memref<...xi8>`)."""


def signless(type_: IntegerType) -> IntegerType:
    """The signless integer type of `type_`'s width."""
    return IntegerType(type_.width.data)


@lru_cache(maxsize=1 << 14)
def signless_attribute(attr: Attribute) -> Attribute:
    """`attr` with every `ui`/`si` integer type in it signless (memref and
    function types, dense and integer attributes, arrays, dictionaries); an
    integer attribute keeps its bits, written in the signed range.

    Found once per attribute (attributes are values: a lowered model's tens
    of thousands of ops hold a few hundred types and maps)."""
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


class _Signless:
    """`signless_attribute` looked up by the attribute's identity first: a
    lowered model's ops share a few hundred attribute objects (types,
    maps, loop steps), and hashing one for the cache walks its
    parameters."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Attribute, Attribute]] = {}
        self.kept: set[int] = set()
        """The ids of the attributes found signless already (kept alive by
        `_by_id`, so an id stays its attribute's)."""

    def __call__(self, attr: Attribute) -> Attribute:
        found = self._by_id.get(id(attr))
        if found is None:  # the attribute is kept: its id stays its own
            converted = signless_attribute(attr)
            found = self._by_id[id(attr)] = (attr, converted)
            if converted is attr or converted == attr:
                self.kept.add(id(attr))
        return found[1]

    def changes(self, attrs: Iterable[Attribute]) -> bool:
        """Whether `self` changes one of `attrs`."""
        kept = self.kept
        for attr in attrs:
            if id(attr) not in kept:
                converted = self(attr)
                if converted is not attr and converted != attr:
                    return True
        return False


def make_op_signless(op: Operation, convert: _Signless) -> None:
    """`op`'s `ui`/`si` integer types (results, block arguments, properties
    and attributes) -> signless ones (`convert`, a `signless_attribute`);
    the op is replaced by one with the converted types if any of its own
    changed.

    xDSL's `TypeConversionPattern` would do, but it keeps an attribute whose
    conversion is falsy (`0 : ui8`), so it would rewrite such a constant
    forever."""
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                if (converted := convert(arg.type)) != arg.type:
                    Rewriter.replace_value_with_new_type(arg, converted)
    if not (
        convert.changes([r.type for r in op.results])
        or convert.changes(op.properties.values())
        or convert.changes(op.attributes.values())
    ):
        return
    result_types = [convert(r.type) for r in op.results]
    properties = {k: convert(v) for k, v in op.properties.items()}
    attributes = {k: convert(v) for k, v in op.attributes.items()}
    new_op = type(op).create(
        operands=op.operands,
        result_types=result_types,
        properties=properties,
        attributes=attributes,
        successors=op.successors,
        regions=[op.detach_region(r) for r in list(op.regions)],
    )
    Rewriter.replace_op(op, new_op)


def _all_ops(ops: Iterable[Operation]) -> list[Operation]:
    """`ops` and the ops nested in them, in walk order (pre-order), by
    following each block's op links: xDSL's `walk` nests a generator per
    region, block and op, a third of this pass on a model's tens of
    thousands of ops."""
    found: list[Operation] = []
    stack = list(reversed(list(ops)))
    while stack:
        op = stack.pop()
        found.append(op)
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                inner = block.last_op
                while inner is not None:
                    stack.append(inner)
                    inner = inner.prev_op
    return found


def make_signless(ops: Sequence[Operation]) -> list[Operation]:
    """`ops` (detached top-level ops: functions, globals) with signless
    integer types everywhere; returns the ops that replace them.

    One walk over the ops as they were: converting an op reads its own
    types only, and a replaced op's regions move to its replacement, their
    ops still to come (a pattern walker's worklist and rewrite notifications
    took two thirds of the time)."""
    holder = ModuleOp(list(ops))
    convert = _Signless()
    for op in _all_ops(holder.body.block.ops):
        make_op_signless(op, convert)
    converted = list(holder.body.block.ops)
    for op in converted:
        op.detach()
    return converted
