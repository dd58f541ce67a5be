"""`sink-trans-ops`: move TransData through layout-agnostic ops when that
removes relayouts (beyond GE: docs/GE_DEVIATIONS.md).

After `insert-transdata` an elementwise op left in the origin layout between
two internal-format ops sits between a TransData out of NC1HWC0 and one back
in. Running it in NC1HWC0 instead lets the pair disappear, as ONNX Runtime's
transpose optimizer pushes transposes through elementwise and broadcast ops
(docs/research/layout_optimizers.md §3):

```mlir
%a = ge.transdata %c {src_format = #ge.format<NC1HWC0>,
                      dst_format = #ge.format<NCHW>}
   : tensor<1x17x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
  -> tensor<1x17x8x8xf32, #ge.layout<NCHW>>
%m = ge.mul %a, %k : (tensor<1x17x8x8xf32, #ge.layout<NCHW>>, tensor<17x1x1xf32>)
   -> tensor<1x17x8x8xf32, #ge.layout<NCHW>>
%b = ge.transdata %m {src_format = #ge.format<NCHW>,
                      dst_format = #ge.format<NC1HWC0>}
   : tensor<1x17x8x8xf32, #ge.layout<NCHW>>
  -> tensor<1x17x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
```
becomes (the constant is relaid out at compile time, aligned as NumPy
broadcasting aligns it: [C,1,1] is "CHW")
```mlir
%k5 = ge.const {...}
    : tensor<17x1x1xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>
%m = ge.mul %c, %k5 : (...) -> tensor<1x17x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
```

**Regions and the cost rule.** A region is a connected set of
layout-agnostic ops; flipping it (`FlipPlan`) runs them in another layout:
an internal one instead of their origin layout, or the other way round (when
the format spread of `select-storage-format` put an op in NC1HWC0 at a
higher price than it saves). The relayouts at the region's boundary change:
- an operand produced by a TransData from the new layout is read from that
  TransData's input (-1 if the region was its only user);
- an operand another consumer already reads through a TransData into the
  new layout shares that TransData (0: a value the graph outputs in ND
  and a softmax reads in FRACTAL_NZ);
- a constant operand is relaid out at compile time (0); a one-element
  operand keeps its layout (0); any other operand needs a TransData (+1);
- a result consumed by a TransData into the new layout replaces it (-1
  each); any other consumer outside needs one TransData back (+1).
A region grows from a seed op next to a TransData between an internal layout
and the plain one (`SinkTransData`: its consumers take the TransData's input
layout; `HoistTransData`: its producer takes its result layout) one
neighbour at a time while the count does not rise, and is flipped only if
the count then strictly drops (ONNX Runtime's rule: move only when the
number of runtime relayouts goes down, so nothing oscillates and every
rewrite makes progress).

**Policy tables.** An op is layout-agnostic when its op information
(`ge_dialect/opinfo.py`) has an elementwise or broadcast fusion pattern
(`AGNOSTIC_PATTERNS`), and it may run in a layout when one of its format
combinations lists that layout for every input and output and it takes the
dtypes. Into an internal layout only layout-agnostic ops move; out of one
(to origin formats) any op with an all-origin combination may. Heavy ops
(conv, pooling, ...) never move: they are the anchors.
Lower-rank operands of broadcast ops must span the result's C axis
(NC1HWC0) or last two dims (FRACTAL_NZ), as in `select-storage-format`, and
are aligned as NumPy aligns them. Where the internal layout pads
(C % C0 != 0), only ops that keep zeros zero (`ZeroPreserving`) move, so
the padding never holds anything but zeros (research scenario 13).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import ExternalDataAttr, LayoutAttr
from ge_dialect.constants import relayout_constant
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import (
    INTERNAL_FORMATS,
    Format,
    FormatError,
    expand_dims_to_full_rank,
    full_rank,
)
from ge_dialect.layout import (
    check_tensor_type,
    is_scalar,
    layout_attr,
    layout_of,
    retyped,
    shape_of,
)
from ge_dialect.naming import node_label
from ge_dialect.opinfo import find_op_info
from ge_dialect.ops import (
    ConstOp,
    TransDataOp,
    enclosing_target,
)
from ge_dialect.traits import zero_preserved
from passes.dead_code import erase_dead
from passes.layout_requirements import transdata_op
from passes.transdata_report import recording, refuse, value_source
from passes.transop_utils import has_default_groups, storage_element_count, tensor_of

AGNOSTIC_PATTERNS: frozenset[str] = frozenset({"ElemWise", "Broadcast"})
"""Fusion patterns (op information) of ops that compute element by element,
so they run in any layout their operands share."""


def is_plain(tensor: TensorType) -> bool:
    """Whether a tensor is stored in its origin format."""
    origin, storage = layout_of(tensor)
    return origin == storage


def has_padding(tensor: TensorType) -> bool:
    """Whether the tensor's storage holds more elements than its shape."""
    count = storage_element_count(tensor)
    return count is None or count != math.prod(shape_of(tensor))


def agnostic_for(op: Operation, target: Format | None) -> bool:
    """Whether `op` may run with every tensor in the internal format `target`
    (a layout-agnostic op: elementwise or broadcast by its op information)
    or, `target` None, in origin formats (any op but a heavy one whose op
    information lists an all-origin combination: every kernel reads its
    origin layout, so leaving an internal format never pads or mixes)."""
    info = find_op_info(op)
    if info is None or not info.inputs or len(op.results) != 1 or info.heavy:
        return False
    if target is not None and info.fusion.get("pattern") not in AGNOSTIC_PATTERNS:
        return False
    dtypes = (
        dtype_name(tensor_of(v).element_type) for v in (*op.operands, *op.results)
    )
    if not all(info.supports_dtype(dtype) for dtype in dtypes):
        return False
    tensors = (*info.inputs, *info.outputs)
    return any(
        all(index < len(t.formats) and t.formats[index] is target for t in tensors)
        for index in range(info.num_combinations)
    )


def broadcasts_to(shape: tuple[int, ...], full: tuple[int, ...]) -> bool:
    """Whether `shape` broadcasts to `full` (NumPy's rule) without being it."""
    if len(shape) > len(full) or tuple(shape) == tuple(full):
        return False
    aligned = full[len(full) - len(shape) :]
    return all(d in (1, f) for d, f in zip(shape, aligned, strict=True))


def checked(tensor: TensorType, layout: LayoutAttr) -> TensorType | None:
    """`tensor` with `layout`, or None if that is not a valid layout for it."""
    result = retyped(tensor, layout)
    try:
        check_tensor_type(result)
    except (VerifyException, FormatError):
        return None
    return result


def internal_type(
    value: SSAValue, result: TensorType, storage: Format
) -> TensorType | None:
    """The type of operand `value` of an op whose result is `result`, when the
    op runs in `storage`: full rank, or aligned as NumPy broadcasts it and
    spanning the result's C axis (or last two dims for FRACTAL_NZ). For
    FRACTAL_NZ a plain operand that broadcasts over the matrix (a bias row
    `[1, N]`, a column `[M, 1]`) keeps its layout: the kernel reads it
    through it, as `select-storage-format` places such operands."""
    tensor = tensor_of(value)
    origin = layout_of(result)[0]
    shape, full = shape_of(tensor), shape_of(result)
    if storage is Format.FRACTAL_NZ:
        if len(shape) == len(full) and shape[-2:] == full[-2:]:
            return checked(tensor, LayoutAttr(origin, storage))
        if is_plain(tensor) and broadcasts_to(shape, full):
            return tensor
        return None
    rank = full_rank(origin) or 0
    if len(full) != rank or len(shape) > rank or "C" not in origin.value:
        return None
    reshape_type = None if len(shape) == rank else origin.value[rank - len(shape) :]
    try:
        expanded = expand_dims_to_full_rank(shape, origin, storage, reshape_type)
    except FormatError:
        return None
    channel = origin.value.index("C")
    if expanded[channel] != full[channel]:
        return None
    return checked(tensor, LayoutAttr(origin, storage, reshape_type=reshape_type))


def sibling_transdata(value: SSAValue, flipped: TensorType) -> TransDataOp | None:
    """A TransData among `value`'s users that makes the type `value` gets in
    the flipped region (a value read in two layouts)."""
    for use in value.uses:
        user = use.operation
        if (
            isinstance(user, TransDataOp)
            and has_default_groups(user)
            and user.y.type == flipped
        ):
            return user
    return None


def unwrapped(value: SSAValue, flipped: TensorType) -> SSAValue | None:
    """The input of the TransData producing `value`, if it already has the
    type `value` gets in the flipped region."""
    owner = value.owner
    if (
        isinstance(owner, TransDataOp)
        and has_default_groups(owner)
        and owner.x.type == flipped
    ):
        return owner.x
    return None


@dataclass
class FlipPlan:
    """Ops to run in another layout: internal format `target` (from their
    origin layout), or their origin layout (`target` None, from internal)."""

    target: Format | None
    ops: set[Operation] = field(default_factory=set)

    def eligible(self, op: Operation) -> bool:
        """Whether `op` can join: agnostic, one result in the other layout, fits."""
        return self.refusal(op) is None

    def refusal(self, op: Operation) -> str | None:
        """Why `op` cannot join the region (None: it can)."""
        if op.parent_block() is None:
            return "it is not in a block"
        if not agnostic_for(op, self.target):
            if self.target is None:
                return "its op information lists no all-origin combination"
            return "it is not layout-agnostic in that format (op information)"
        storage = layout_of(tensor_of(op.results[0]))[1]
        if (storage in INTERNAL_FORMATS) == (self.target is not None):
            return "it is already in that kind of layout"
        flipped = self.result_type(op)
        if flipped is None or flipped == op.results[0].type:
            return "its result has no such layout (rank or broadcast)"
        if self.target is not None and has_padding(flipped) and not zero_preserved(op):
            return "the layout pads and the op would write non-zeros into the padding"
        for value in op.operands:
            if self.operand_cost(value, op) is None:
                return (
                    f"an operand ({value_source(value)}) cannot be fed in that layout"
                )
        return None

    def result_type(self, op: Operation) -> TensorType | None:
        """The type of `op`'s result in the flipped region."""
        return self.operand_type(op.results[0], op)

    def operand_type(self, value: SSAValue, op: Operation) -> TensorType | None:
        """The type value `value` (an operand or the result of `op`) has in
        the flipped region."""
        tensor = tensor_of(value)
        if self.target is None:
            return checked(tensor, LayoutAttr(layout_of(tensor)[0]))
        return internal_type(value, tensor_of(op.results[0]), self.target)

    def operand_cost(self, value: SSAValue, op: Operation) -> int | None:
        """Relayouts an operand from outside adds (None: it cannot be fed)."""
        tensor = tensor_of(value)
        if is_scalar(tensor):
            return 0
        flipped = self.operand_type(value, op)
        if flipped is None:
            return None
        if flipped == tensor:
            return 0
        origin, storage = layout_of(tensor)
        if isinstance(value.owner, ConstOp):
            return 0 if self.foldable(value.owner, flipped) else None
        if unwrapped(value, flipped) is not None:
            users = {use.operation for use in value.uses}
            return -1 if users <= self.ops else 0
        if sibling_transdata(value, flipped) is not None:
            return 0  # another consumer's TransData already makes it
        if origin != layout_of(flipped)[0]:
            return None
        if self.target is not None and storage != origin:
            return None  # only plain values get a TransData into the target
        return 1

    def foldable(self, const: ConstOp, flipped: TensorType) -> bool:
        """Whether `const` can be relaid out to `flipped` at compile time."""
        tensor = tensor_of(const.output)
        origin = layout_of(tensor)[0]
        if self.target is None:
            return not isinstance(const.value, ExternalDataAttr)
        return origin in (Format.ND, layout_of(flipped)[0]) and is_plain(tensor)

    def result_cost(self, op: Operation) -> int:
        """Relayouts the users outside the region add or save."""
        flipped = self.result_type(op)
        cost, needs_back = 0, False
        for use in op.results[0].uses:
            user = use.operation
            if user in self.ops:
                continue
            if isinstance(user, TransDataOp) and user.y.type == flipped:
                cost -= 1
            else:
                needs_back = True
        return cost + needs_back

    def cost(self) -> int | None:
        """Change in runtime TransData if the region flips (None: it cannot)."""
        total = 0
        seen: set[SSAValue] = set()
        for op in self.ops:
            for value in op.operands:
                if value.owner in self.ops or value in seen:
                    continue
                seen.add(value)
                step = self.operand_cost(value, op)
                if step is None:
                    return None
                total += step
            total += self.result_cost(op)
        return total

    def grow(self, seed: Operation) -> int | None:
        """Grow the region from `seed` while the cost does not rise."""
        self.ops = {seed}
        best = self.cost()
        if best is None:
            return None
        frontier = list(neighbours(seed))
        while frontier:
            candidate = frontier.pop(0)
            if candidate in self.ops or not self.eligible(candidate):
                continue
            self.ops.add(candidate)
            cost = self.cost()
            if cost is None or cost > best:
                self.ops.discard(candidate)
                continue
            best = cost
            frontier.extend(neighbours(candidate))
        return best


def neighbours(op: Operation) -> Iterable[Operation]:
    """Producers of `op`'s operands and users of its results, in its block."""
    block = op.parent_block()
    for value in op.operands:
        if isinstance(value.owner, Operation) and value.owner.parent_block() is block:
            yield value.owner
    for result in op.results:
        for use in result.uses:
            if use.operation.parent_block() is block:
                yield use.operation


@dataclass
class RegionFlipper:
    """Rewrites a flip plan: new ops in the new layout, boundary fixed."""

    plan: FlipPlan
    target: str | None
    rewriter: PatternRewriter
    converted: dict[SSAValue, SSAValue] = field(default_factory=dict)

    def flip(self) -> None:
        """Flip every op of the plan (block order), then fix the boundary."""
        block = next(iter(self.plan.ops)).parent_block()
        assert block is not None
        ordered = [op for op in block.ops if op in self.plan.ops]
        for op in ordered:
            operands = [self.feed(value, op) for value in op.operands]
            new = type(op).create(
                operands=operands,
                result_types=[self.plan.result_type(op)],
                attributes=dict(op.attributes),
                properties=dict(op.properties),
            )
            new.results[0].name_hint = op.results[0].name_hint
            self.rewriter.insert(new, InsertPoint.before(op))
            self.converted[op.results[0]] = new.results[0]
        for op in reversed(ordered):
            self.rewire_users(op)
            self.rewriter.erase(op)

    def feed(self, value: SSAValue, op: Operation) -> SSAValue:
        """Operand `value` of `op` as the flipped op needs it."""
        if value in self.converted:
            return self.converted[value]
        flipped = self.plan.operand_type(value, op)
        if is_scalar(tensor_of(value)) or flipped == value.type:
            return value
        assert flipped is not None
        if (inner := unwrapped(value, flipped)) is not None:
            fed = inner
        elif isinstance(value.owner, ConstOp):
            folded = relayout_constant(value.owner, flipped, self.target)
            assert folded is not None
            self.rewriter.insert(folded, InsertPoint.after(value.owner))
            fed = folded.output
        else:
            sibling = sibling_transdata(value, flipped)
            fed = self.rewriter.insert(
                transdata_op(value, layout_attr(flipped)),
                InsertPoint.after(value.owner),
            ).y
            if sibling is not None:  # one TransData, right after `value`, for all
                self.rewriter.replace_all_uses_with(sibling.y, fed)
                self.rewriter.erase(sibling)
        self.converted[value] = fed
        return fed

    def rewire_users(self, op: Operation) -> None:
        """Users outside the region read the flipped result (TransData back)."""
        old, new = op.results[0], self.converted[op.results[0]]
        back: SSAValue | None = None
        for use in list(old.uses):
            user = use.operation
            if user in self.plan.ops:
                continue
            if isinstance(user, TransDataOp) and user.y.type == new.type:
                self.rewriter.replace_all_uses_with(user.y, new)
                self.rewriter.erase(user)
                continue
            if back is None:
                back = self.rewriter.insert(
                    transdata_op(new, layout_attr(old.type)),
                    InsertPoint.after(new.owner),
                ).y
            user.operands[use.index] = back
            self.rewriter.handle_operation_modification(user)


def try_flip(seed: Operation, target: Format | None, rewriter: PatternRewriter) -> None:
    """Flip the region grown from `seed` to `target` if that removes relayouts."""
    plan = FlipPlan(target)
    if (why := plan.refusal(seed)) is not None:
        refuse(seed, target, SinkTransOpsPass.name, why)
        return  # the seed cannot run in the target layout
    cost = plan.grow(seed)
    if cost is None or cost >= 0:
        if recording():
            region = ", ".join(sorted(node_label(op) for op in plan.ops))
            change = "cannot be fed" if cost is None else f"{cost:+d} runtime TransData"
            why = f"moving its region ({region}) would not remove a relayout: {change}"
            refuse(seed, target, SinkTransOpsPass.name, why)
        return  # no strict drop in runtime relayouts: ONNX Runtime's rule
    inputs = {v for op in plan.ops for v in op.operands if v.owner not in plan.ops}
    RegionFlipper(plan, enclosing_target(seed), rewriter).flip()
    erase_dead(rewriter, [v.owner for v in inputs])


def plan_target(tensor: TensorType) -> Format | None:
    """The flip target that puts values in the layout of `tensor`."""
    storage = layout_of(tensor)[1]
    return storage if storage in INTERNAL_FORMATS else None


def is_relayout_pair(op: TransDataOp) -> bool:
    """Whether `op` converts between an internal layout and the plain layout
    of the same origin tensor (the TransData this pass moves)."""
    if not has_default_groups(op):
        return False
    x_origin, x_storage = layout_of(tensor_of(op.x))
    y_origin, y_storage = layout_of(tensor_of(op.y))
    internal = [s in INTERNAL_FORMATS for s in (x_storage, y_storage)]
    plain = [x_storage == x_origin, y_storage == y_origin]
    return x_origin == y_origin and sorted(internal) == [False, True] and any(plain)


@dataclass
class SinkTransData(RewritePattern):
    """Sink a TransData into its consumers: they take its input's layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        if not is_relayout_pair(op):
            return  # not between an internal layout and the plain one
        for use in list(op.y.uses):
            try_flip(use.operation, plan_target(tensor_of(op.x)), rewriter)
            if rewriter.has_done_action:
                return


@dataclass
class HoistTransData(RewritePattern):
    """Hoist a TransData above its producer: it takes its result's layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        if not is_relayout_pair(op):
            return  # not between an internal layout and the plain one
        if not isinstance(op.x.owner, Operation):
            return  # fed by a block argument
        try_flip(op.x.owner, plan_target(tensor_of(op.y)), rewriter)


@dataclass(frozen=True)
class SinkTransOpsPass(ModulePass):
    """Move TransData through layout-agnostic ops when fewer relayouts remain."""

    name = "sink-trans-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([SinkTransData(), HoistTransData()])
        ).rewrite_module(op)
