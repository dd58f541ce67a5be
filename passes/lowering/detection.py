"""Lowering of `ge.non_max_suppression` (its result shape known: the host
schedules it once the scores are, see `NonMaxSuppressionOp.value_shapes`).

Per batch `b` and class `c`, over the `n` boxes:

1. `rank[i]` counts the boxes before box `i` in score order (candidates
   first, higher score first, equal scores by lower index; the rest by
   index): a reduction over pairs, as `ge.top_k` ranks. `order[p]` is the
   box of rank `p` (`max_i select(rank[i] == p, i, -1)`), `count` the
   candidates.
2. The boxes are gathered in rank order (`memref.load` at `order[p]`: a
   [B, C, n, 4] nest NumPy runs as one fancy index). The greedy selection
   is then one nest over (`p`, `q`) in order, `q` inner, of affine accesses
   only (so a C kernel runs it): at `(p, q < p)` the box of rank `q`, if it
   was kept, adds to `kept before p` and, if it overlaps the box of rank
   `p` (`suppresses`), to `hits[p]`; every step stores
   `kept[p] = p < count and hits[p] == 0 and before[p] < limit`, so once
   `q` has run to the end `kept[p]` is final before any later `p` reads it:

```mlir
affine.for %p, %q {
  %earlier = arith.cmpi slt, %q, %p
  %k = affine.load %kept[%q]
  ... %overlap = suppresses(boxes[order[p]], boxes[order[q]])
  affine.store (%hits[%p] + (%earlier and %k and %overlap)), %hits[%p]
  affine.store (%before[%p] + (%earlier and %k)), %before[%p]
  affine.store (%p < %count and %hits[%p] == 0 and %before[%p] < %limit), %kept[%p]
}
```

   A nest reading at `q` what it writes at `p` has no vectorised form: the
   JIT runs it in order, element by element (C), as the NumPy kernel's
   loop. Positions compared with i64 values are loaded from a constant
   `iota` table rather than cast (C kernels have no `index_cast`).
3. Each class's first output row is the kept boxes of the classes before it
   (a reduction over class pairs); each kept box is scattered to its row
   (`offset + before[p]`) of a scratch buffer whose extra last row takes
   the boxes not kept, and the rows are copied out.

Costs `O(n^2)` per batch and class (the ranks and the scan), no sort;
measured on 2 loaded cores: 200 boxes 32 ms per run, 1000 boxes 0.5 s,
80 classes of 1000 boxes 8.7 s (the NumPy kernel 0.8 s, which the host
also runs for the selection count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32, i1, i64
from xdsl.ir import Operation

from ge_dialect.ops.detection import NonMaxSuppressionOp, suppresses
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Nest, Value
from passes.lowering.index import Ix
from passes.lowering.layouts import plain_layout
from passes.lowering.movement import is_row_major, row_major_copy
from passes.lowering.nn import accumulate, initialise
from passes.lowering.registry import lowers


@dataclass(frozen=True)
class Float:
    """An f32 value of a nest with Python's arithmetic operators, so that
    `suppresses` builds the same float32 operations as in NumPy."""

    nest: Nest
    value: Value

    def operand(self, other: Any) -> Value:
        return (
            other.value
            if isinstance(other, Float)
            else self.nest.const(float(other), f32)
        )

    def _apply(self, op_class: Any, other: Any) -> Float:
        return Float(self.nest, self.nest.op(op_class, self.value, self.operand(other)))

    def __add__(self, other: Any) -> Float:
        return self._apply(arith.AddfOp, other)

    def __sub__(self, other: Any) -> Float:
        return self._apply(arith.SubfOp, other)

    def __mul__(self, other: Any) -> Float:
        return self._apply(arith.MulfOp, other)

    def __truediv__(self, other: Any) -> Float:
        return self._apply(arith.DivfOp, other)


def overlap(
    nest: Nest,
    candidate: list[Float],
    selected: list[Float],
    threshold: Float,
    center: bool,
) -> Value:
    """`suppresses` in arith ops (an i1)."""

    def compare(predicate: str):
        return lambda a, b: nest.op(arith.CmpfOp, a.value, a.operand(b), predicate)

    def where(condition: Value, a: Float, b: Float) -> Float:
        return Float(nest, nest.op(arith.SelectOp, condition, a.value, b.value))

    return suppresses(
        candidate,
        selected,
        threshold,
        center,
        (compare("ogt"), compare("ole"), where),
        lambda a, b: nest.op(arith.AndIOp, a, b),
        lambda a: nest.op(arith.XOrIOp, a, nest.const(1, i1)),
    )


@lowers(NonMaxSuppressionOp)
def lower_non_max_suppression(ctx: LoweringContext, op: Operation) -> None:
    """Ranks, the greedy scan, then the rows scattered (module docstring)."""
    boxes, scores, limit, iou, floor = (
        buffer if is_row_major(buffer.layout) else row_major_copy(ctx, buffer)
        for buffer in ctx.operands()
    )
    y = ctx.result()
    batches, classes, n = scores.layout.origin_shape
    rows = y.layout.origin_shape[0]
    center = bool(ctx.attr("center_point_box"))
    filtered = bool(ctx.attr("score_filtered"))

    def scalar(nest: Nest, buffer: Buffer) -> Value:
        return nest.load(buffer, [Ix.of(0)] * len(buffer.layout.origin_shape))

    def one_if(nest: Nest, condition: Value) -> Value:
        return nest.op(
            arith.SelectOp, condition, nest.const(1, i64), nest.const(0, i64)
        )

    def both(nest: Nest, *conditions: Value) -> Value:
        result = conditions[0]
        for condition in conditions[1:]:
            result = nest.op(arith.AndIOp, result, condition)
        return result

    def either(nest: Nest, a: Value, b: Value) -> Value:
        return nest.op(arith.OrIOp, a, b)

    def negated(nest: Nest, a: Value) -> Value:
        return nest.op(arith.XOrIOp, a, nest.const(1, i1))

    def candidate(nest: Nest, score: Value) -> Value:
        known = nest.op(arith.CmpfOp, score, score, "ord")
        if not filtered:
            return known
        above = nest.op(arith.CmpfOp, score, scalar(nest, floor), "ogt")
        return both(nest, known, above)

    def earlier(nest: Nest, a: Ix, b: Ix) -> Value:
        return nest.op(arith.CmpiOp, nest.index_value(a), nest.index_value(b), "slt")

    def counter(*shape: int, fill: int = 0) -> Buffer:
        buffer = ctx.temporary(plain_layout(shape, i64))
        initialise(ctx, buffer, lambda nest, _: nest.const(fill, i64))
        return buffer

    add = lambda nest, a, b: nest.op(arith.AddiOp, a, b)  # noqa: E731
    maximum = lambda nest, a, b: nest.op(arith.MaxSIOp, a, b)  # noqa: E731

    iota = ctx.table(np.arange(max(n, batches, classes), dtype=np.int64))
    """Positions as i64 values, loaded (an index cast has no C kernel)."""
    rank = counter(batches, classes, n)

    def before(nest: Nest, index: list[Ix]) -> Value:
        b, c, i, j = index
        si, sj = nest.load(scores, [b, c, i]), nest.load(scores, [b, c, j])
        ci, cj = candidate(nest, si), candidate(nest, sj)
        lower = earlier(nest, j, i)
        by_score = either(
            nest,
            nest.op(arith.CmpfOp, sj, si, "ogt"),
            both(nest, nest.op(arith.CmpfOp, sj, si, "oeq"), lower),
        )
        first = either(
            nest,
            both(nest, cj, negated(nest, ci)),
            either(
                nest,
                both(nest, cj, ci, by_score),
                both(nest, negated(nest, cj), negated(nest, ci), lower),
            ),
        )
        return one_if(nest, first)

    accumulate(ctx, rank, (batches, classes, n, n), lambda i: i[:3], before, add)
    order = counter(batches, classes, n, fill=-1)

    def ranked(nest: Nest, index: list[Ix]) -> Value:
        b, c, p, i = index
        hit = nest.op(
            arith.CmpiOp, nest.load(rank, [b, c, i]), nest.load(iota, [p]), "eq"
        )
        return nest.op(arith.SelectOp, hit, nest.load(iota, [i]), nest.const(-1, i64))

    accumulate(ctx, order, (batches, classes, n, n), lambda i: i[:3], ranked, maximum)
    count = counter(batches, classes)
    accumulate(
        ctx,
        count,
        (batches, classes, n),
        lambda i: i[:2],
        lambda nest, i: one_if(nest, candidate(nest, nest.load(scores, i))),
        add,
    )

    ranked_boxes = ctx.temporary(plain_layout((batches, classes, n, 4), f32))

    def gather_box(nest: Nest, index: list[Ix]) -> None:
        b, c, p, k = index
        at = nest.op(arith.IndexCastOp, nest.load(order, [b, c, p]), IndexType())
        coordinate = [nest.index_value(b), at, nest.index_value(k)]
        nest.store(nest.load_at(boxes, coordinate), ranked_boxes, index)

    ctx.emitter.for_each((batches, classes, n, 4), gather_box)
    kept, hits, kept_before = (counter(batches, classes, n) for _ in range(3))

    def box(nest: Nest, b: Ix, c: Ix, p: Ix) -> list[Float]:
        return [
            Float(nest, nest.load(ranked_boxes, [b, c, p, Ix.of(k)])) for k in range(4)
        ]

    def select(nest: Nest, index: list[Ix]) -> None:
        b, c, p, q = index
        counted = both(
            nest,
            earlier(nest, q, p),
            nest.op(arith.CmpiOp, nest.load(kept, [b, c, q]), nest.const(0, i64), "ne"),
        )
        suppressed = overlap(
            nest,
            box(nest, b, c, p),
            box(nest, b, c, q),
            Float(nest, scalar(nest, iou)),
            center,
        )
        hit = add(
            nest,
            nest.load(hits, [b, c, p]),
            one_if(nest, both(nest, counted, suppressed)),
        )
        nest.store(hit, hits, [b, c, p])
        ahead = add(nest, nest.load(kept_before, [b, c, p]), one_if(nest, counted))
        nest.store(ahead, kept_before, [b, c, p])
        keep = both(
            nest,
            nest.op(
                arith.CmpiOp, nest.load(iota, [p]), nest.load(count, [b, c]), "slt"
            ),
            nest.op(arith.CmpiOp, hit, nest.const(0, i64), "eq"),
            nest.op(arith.CmpiOp, ahead, scalar(nest, limit), "slt"),
        )
        nest.store(one_if(nest, keep), kept, [b, c, p])

    ctx.emitter.for_each((batches, classes, n, n), select)

    offset = counter(batches, classes)

    def kept_in_class(nest: Nest, b: Ix, c: Ix) -> Value:
        last = [b, c, Ix.of(n - 1)]
        return add(nest, nest.load(kept_before, last), nest.load(kept, last))

    def rows_before(nest: Nest, index: list[Ix]) -> Value:
        b, c, b2, c2 = index
        flat, other = b * classes + c, b2 * classes + c2
        return nest.op(
            arith.SelectOp,
            earlier(nest, other, flat),
            kept_in_class(nest, b2, c2),
            nest.const(0, i64),
        )

    accumulate(
        ctx,
        offset,
        (batches, classes, batches, classes),
        lambda i: i[:2],
        rows_before,
        add,
    )
    scattered = ctx.temporary(plain_layout((rows + 1, 3), i64))

    def scatter(nest: Nest, index: list[Ix]) -> None:
        b, c, p = index
        row = nest.op(
            arith.SelectOp,
            nest.op(arith.CmpiOp, nest.load(kept, index), nest.const(0, i64), "ne"),
            add(nest, nest.load(offset, [b, c]), nest.load(kept_before, index)),
            nest.const(rows, i64),
        )
        at = nest.op(arith.IndexCastOp, row, IndexType())
        triple = (nest.load(iota, [b]), nest.load(iota, [c]), nest.load(order, index))
        for k, value in enumerate(triple):
            nest.store_at(value, scattered, [at, nest.const(k, IndexType())])

    ctx.emitter.for_each((batches, classes, n), scatter)
    ctx.emitter.for_each(
        (rows, 3), lambda nest, i: nest.store(nest.load(scattered, i), y, i)
    )
