"""`sink-trans-ops`: move TransData through layout-agnostic ops when that
removes relayouts (beyond GE).

After `insert-transdata` an elementwise op left in the origin layout between
two internal-format ops sits between a TransData out of NC1HWC0 and one back
in. Running it in NC1HWC0 instead lets the pair disappear, as ONNX Runtime's
transpose optimizer pushes transposes through elementwise and broadcast ops
(research/layout_optimizers.md §3):

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

**Regions and the cost rule.** A region is a connected set of layout-agnostic
ops computing in the origin layout; flipping it to an internal layout
(`FlipPlan`) changes the relayouts at its boundary:
- an operand produced by the inverse TransData is read from that
  TransData's input (-1 if the region was its only user);
- a constant operand is relaid out at compile time (0); a one-element
  operand keeps its layout (0); any other operand needs a TransData (+1);
- a result consumed by a TransData into the internal layout replaces it
  (-1 each); any other consumer outside needs one TransData back (+1).
A region grows from a seed op next to a TransData (`SinkTransData`: the
consumers of a TransData out of an internal layout; `HoistTransData`: the
producer feeding a TransData into one) one neighbour at a time while the
count does not rise, and is flipped only if the count then strictly drops
(ONNX Runtime's rule: move only when the number of runtime relayouts goes
down, so nothing oscillates and every rewrite makes progress).

**Policy tables.** An op is layout-agnostic for an internal format when its
op information (`ge_dialect/opinfo.py`) lists that format for every input and
output of one combination and takes its dtype. Lower-rank operands of
broadcast ops must span the result's C axis (NC1HWC0) or last two dims
(FRACTAL_NZ), as in `select-storage-format`. Where the internal layout pads
(C % C0 != 0), only ops that keep zeros zero (`ZERO_PRESERVING`) move, so
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

from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import (
    INTERNAL_FORMATS,
    Format,
    FormatError,
    expand_dims_to_full_rank,
    full_rank,
)
from ge_dialect.layout import check_tensor_type, layout_of, shape_of
from ge_dialect.opinfo import find_op_info, op_key
from ge_dialect.ops import ClipOp, ConstOp, TransDataOp, attribute_value
from passes.insert_transdata import (
    is_scalar,
    module_target,
    relayout_constant,
    retyped,
    transdata_op,
)
from passes.transop_utils import has_default_groups, storage_element_count, tensor_of

ZERO_PRESERVING: frozenset[str] = frozenset(
    {
        "relu",
        "neg",
        "abs",
        "sqrt",
        "tanh",
        "identity",
        "leaky_relu",
        "elu",
        "selu",
        "clip",
        "add",
        "sub",
        "mul",
        "maximum",
        "minimum",
        "prelu",
        "add_n",
    }
)
"""Ops (op-information keys) with f(0, ..., 0) == 0: they may run on padded
storage. `clip` only when its range contains 0."""


def keeps_zero(op: Operation) -> bool:
    """Whether `op` maps zero operands to zero (padding stays zero)."""
    if op_key(op) not in ZERO_PRESERVING:
        return False
    if isinstance(op, ClipOp):
        return attribute_value(op, "min") <= 0 <= attribute_value(op, "max")
    return True


def is_plain(tensor: TensorType) -> bool:
    """Whether a tensor is stored in its origin format."""
    origin, storage = layout_of(tensor)
    return origin == storage


def has_padding(tensor: TensorType) -> bool:
    """Whether the tensor's storage holds more elements than its shape."""
    count = storage_element_count(tensor)
    return count is None or count != math.prod(shape_of(tensor))


def agnostic_for(op: Operation, storage: Format) -> bool:
    """Whether the op information lets `op` run with every tensor in `storage`."""
    info = find_op_info(op)
    if info is None or not info.inputs or len(op.results) != 1:
        return False
    if not all(
        info.supports_dtype(dtype_name(tensor_of(v).element_type))
        for v in (*op.operands, *op.results)
    ):
        return False
    tensors = (*info.inputs, *info.outputs)
    return any(
        all(index < len(t.formats) and t.formats[index] is storage for t in tensors)
        for index in range(info.num_combinations)
    )


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
    spanning the result's C axis (or last two dims for FRACTAL_NZ)."""
    tensor = tensor_of(value)
    origin = layout_of(result)[0]
    shape, full = shape_of(tensor), shape_of(result)
    if storage is Format.FRACTAL_NZ:
        if len(shape) != len(full) or shape[-2:] != full[-2:]:
            return None
        return checked(tensor, LayoutAttr(origin, storage))
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
    """Ops to run in internal format `storage` instead of their origin layout."""

    storage: Format
    ops: set[Operation] = field(default_factory=set)

    def eligible(self, op: Operation) -> bool:
        """Whether `op` can join: agnostic, one plain full-rank result, fits."""
        if op.parent_block() is None or not agnostic_for(op, self.storage):
            return False
        result = tensor_of(op.results[0])
        if not is_plain(result) or layout_of(result)[0] is Format.ND:
            return False
        flipped = self.result_type(op)
        if flipped is None or (has_padding(flipped) and not keeps_zero(op)):
            return False
        return all(self.operand_cost(v, op) is not None for v in op.operands)

    def result_type(self, op: Operation) -> TensorType | None:
        """The type of `op`'s result in the flipped region."""
        result = tensor_of(op.results[0])
        return internal_type(op.results[0], result, self.storage)

    def operand_type(self, value: SSAValue, op: Operation) -> TensorType | None:
        """The type operand `value` of `op` needs in the flipped region."""
        return internal_type(value, tensor_of(op.results[0]), self.storage)

    def operand_cost(self, value: SSAValue, op: Operation) -> int | None:
        """Relayouts an operand from outside adds (None: it cannot be fed)."""
        tensor = tensor_of(value)
        if is_scalar(tensor):
            return 0
        flipped = self.operand_type(value, op)
        if flipped is None:
            return None
        origin = layout_of(tensor)[0]
        if isinstance(value.owner, ConstOp):
            fits = origin in (Format.ND, layout_of(flipped)[0]) and is_plain(tensor)
            return 0 if fits else None
        if unwrapped(value, flipped) is not None:
            users = {use.operation for use in value.uses}
            return -1 if users <= self.ops else 0
        if origin != layout_of(flipped)[0] or not is_plain(tensor):
            return None
        return 1

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
    """Rewrites a flip plan: new ops in the internal layout, boundary fixed."""

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
            flipped_type = self.plan.result_type(op)
            new = type(op).create(
                operands=operands,
                result_types=[flipped_type],
                attributes=dict(op.attributes),
                properties=dict(op.properties),
            )
            self.rewriter.insert_op(new, InsertPoint.before(op))
            self.converted[op.results[0]] = new.results[0]
        for op in reversed(ordered):
            self.rewire_users(op)
            self.rewriter.erase_op(op)

    def feed(self, value: SSAValue, op: Operation) -> SSAValue:
        """Operand `value` of `op` as the flipped op needs it."""
        if value in self.converted:
            return self.converted[value]
        if is_scalar(tensor_of(value)):
            return value
        flipped = self.plan.operand_type(value, op)
        assert flipped is not None
        if (inner := unwrapped(value, flipped)) is not None:
            fed = inner
        elif isinstance(value.owner, ConstOp):
            folded = relayout_constant(value.owner, flipped, self.target)
            assert folded is not None
            self.rewriter.insert_op(folded, InsertPoint.after(value.owner))
            fed = folded.output
        else:
            layout = flipped.encoding
            assert isinstance(layout, LayoutAttr)
            fed = self.rewriter.insert_op(
                transdata_op(value, layout), InsertPoint.after(value.owner)
            ).y
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
                self.rewriter.erase_op(user)
                continue
            if back is None:
                layout = LayoutAttr(layout_of(tensor_of(old))[0])
                back = self.rewriter.insert_op(
                    transdata_op(new, layout), InsertPoint.after(new.owner)
                ).y
            user.operands[use.index] = back


def erase_dead_inputs(values: Iterable[SSAValue], rewriter: PatternRewriter) -> None:
    """Erase TransData and constants the flip left without users."""
    for value in values:
        owner = value.owner
        if (
            isinstance(owner, TransDataOp | ConstOp)
            and owner.results[0].first_use is None
        ):
            rewriter.erase_op(owner)


def try_flip(seed: Operation, storage: Format, rewriter: PatternRewriter) -> None:
    """Flip the region grown from `seed` if that removes relayouts."""
    plan = FlipPlan(storage)
    if not plan.eligible(seed):
        return  # the seed cannot run in the internal layout
    cost = plan.grow(seed)
    if cost is None or cost >= 0:
        return  # no strict drop in runtime relayouts: ONNX Runtime's rule
    inputs = {v for op in plan.ops for v in op.operands if v.owner not in plan.ops}
    RegionFlipper(plan, module_target(seed), rewriter).flip()
    erase_dead_inputs(inputs, rewriter)


def internal_pair(op: TransDataOp) -> tuple[Format, Format] | None:
    """(internal storage, origin) of a TransData between one internal layout
    and the plain layout of the same origin tensor, else None."""
    if not has_default_groups(op):
        return None
    x_origin, x_storage = layout_of(tensor_of(op.x))
    y_origin, y_storage = layout_of(tensor_of(op.y))
    if x_origin != y_origin:
        return None
    if x_storage in INTERNAL_FORMATS and y_storage == y_origin:
        return x_storage, x_origin
    if y_storage in INTERNAL_FORMATS and x_storage == x_origin:
        return y_storage, y_origin
    return None


@dataclass
class SinkTransData(RewritePattern):
    """Sink a TransData out of an internal layout into the ops that consume it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        pair = internal_pair(op)
        if pair is None or layout_of(tensor_of(op.x))[1] != pair[0]:
            return  # not a TransData out of an internal layout
        for use in list(op.y.uses):
            try_flip(use.operation, pair[0], rewriter)
            if rewriter.has_done_action:
                return


@dataclass
class HoistTransData(RewritePattern):
    """Hoist a TransData into an internal layout above the op that feeds it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransDataOp, rewriter: PatternRewriter) -> None:
        pair = internal_pair(op)
        if pair is None or layout_of(tensor_of(op.y))[1] != pair[0]:
            return  # not a TransData into an internal layout
        if not isinstance(op.x.owner, Operation):
            return  # fed by a block argument
        try_flip(op.x.owner, pair[0], rewriter)


@dataclass(frozen=True)
class SinkTransOpsPass(ModulePass):
    """Move TransData through layout-agnostic ops when fewer relayouts remain."""

    name = "sink-trans-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([SinkTransData(), HoistTransData()])
        ).rewrite_module(op)
