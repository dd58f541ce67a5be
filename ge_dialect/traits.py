"""Traits: the facts about an op that passes and the runtime ask about.

Every `ge` op declares its traits in its definition (`traits_def(...)`,
inherited from its base classes), so a pass asks the op instead of keeping a
list of op names:

```python
if op.has_trait(ZeroPreserving) and zero_preserved(op):  # sink over padding
    ...
```

- `Pure` (xDSL): no side effects, so `dce` drops unused ops and `cse` merges
  equal ones;
- `Elementwise`: result element i reads operand elements at fixed positions
  (generic lowering, fusion epilogues);
- `ZeroPreserving`: f(0, ..., 0) == 0, the op may run on zero-padded storage
  (`sink-trans-ops`);
- `MayRunInPlace`: the result may reuse an operand's buffer of the same type
  (`plan-memory`, streams);
- `ViewOp`: the result is operand 0's buffer when both have one type;
- `FormatAgnostic`: runs in whatever storage format its operands share (op
  information defaults, `select-storage-format`);
- `Broadcasting`: NumPy broadcasting of its operands;
- `KeepsLayout`: results take the `#ge.layout` of a same-rank operand (the
  builder's result types);
- `RankBarrier`: GE writes no format into its tensors of rank < 4, and
  `SameOriginFormat`: operand 0 and result 0 share one origin format
  (`infer-origin-format`);
- `IsolatedFromAbove`: xDSL's, checked by one walk over the op's body
  (graphs, subgraphs, fused bodies);

Traits are a set: an op cannot override a trait it inherits. What an op
family sets and a subclass may override is therefore a class attribute, not
a trait: the infer-format rule (`FORMAT_RULE`, `REFRESH_RULE`) and the
methods of `ge_dialect.ops.base.GEOperation`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl import traits
from xdsl.ir import Operation, Region, SSAValue
from xdsl.traits import OpTrait


class Elementwise(OpTrait):
    """Result element `i` is a function of operand elements at fixed positions.

    The op says where each operand is read (`operand_axes`, NumPy
    broadcasting by default) and, to be lowered and fused without code of
    its own, how one element is computed: a method
    `scalar(self, builder, *values)` building the scalar body from xDSL's
    `arith`/`math` ops through `builder.op(OpClass, *args)` and
    `builder.const(value, type)`.
    """


class ZeroPreserving(OpTrait):
    """f(0, ..., 0) == 0 for every attribute value (see `zero_preserved`)."""


class MayRunInPlace(OpTrait):
    """The result may be written into an operand's buffer of the same type."""


class ViewOp(OpTrait):
    """The result aliases operand 0 whenever both have the same type."""


class FormatAgnostic(OpTrait):
    """Computes element by element in any storage format its tensors share."""


class Broadcasting(OpTrait):
    """Operands broadcast against each other by NumPy's rules."""


class KeepsLayout(OpTrait):
    """Results take the `#ge.layout` of the first operand of the same rank."""


class RankBarrier(OpTrait):
    """GE writes no format into this op's tensors of rank below 4."""


class SameOriginFormat(OpTrait):
    """Operand 0 and result 0 always share one origin format."""


class IsolatedFromAbove(traits.IsolatedFromAbove):
    """xDSL's `IsolatedFromAbove` (the ops inside use only values defined
    inside), found in one walk that gathers the values defined inside and
    the operands used: xDSL's own check, which walks up from each operand's
    definition to the op, runs only to report a use of a value it did not
    gather (a CRNN graph's check after each pass: 6 ms, 1.5 ms so)."""

    def verify(self, op: Operation) -> None:
        defined: set[SSAValue] = set()
        used: list[SSAValue] = []
        regions: list[Region] = list(op.regions)
        while regions:  # the ops xDSL's check visits
            for block in regions.pop().blocks:
                defined.update(block.args)
                for child in block.ops:
                    defined.update(child.results)
                    used += child.operands
                    if child.regions and not child.has_trait(traits.IsolatedFromAbove):
                        regions += child.regions
        if not defined.issuperset(used):
            super().verify(op)


def zero_preserved(op: Operation) -> bool:
    """Whether `op` maps zeros to zeros with its attributes (`ZeroPreserving`).

    An op may narrow the claim for some attribute values with a method
    `preserves_zero(self) -> bool` (a clip whose range excludes 0).
    """
    if not op.has_trait(ZeroPreserving):
        return False
    check: Callable[[], bool] | None = getattr(op, "preserves_zero", None)
    return check() if check is not None else True


def is_view(op: Operation) -> bool:
    """Whether `op`'s result is a view of operand 0 (same type, `ViewOp`)."""
    return (
        op.has_trait(ViewOp)
        and len(op.operands) >= 1
        and len(op.results) == 1
        and op.operands[0].type == op.results[0].type
    )
