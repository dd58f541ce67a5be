"""Object-detection post-processing: `ge.non_max_suppression` (ONNX
NonMaxSuppression, GE NonMaxSuppressionV3).

Per batch and class, the boxes are taken in score order (highest first,
equal scores by lower box index); a box is selected unless the class
already has `max_output_boxes_per_class` selected boxes or one of them
overlaps it by an IoU above `iou_threshold`. With `score_filtered`, only
boxes scoring above `score_threshold` are candidates. The result lists
`(batch, class, box)` int64 triples, batch by batch, class by class, in
selection order. How many there are is known only from the values: the
result's first dim is dynamic and `value_shapes` gives it.

```mlir
%s = ge.non_max_suppression %boxes, %scores, %max, %iou, %score
    {center_point_box = 0 : i64, score_filtered = true}
    : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>,
       tensor<1xf32>) -> tensor<?x3xi64>
```

The overlap test is ONNX's reference one step by step, in float32
(`suppresses`): corners sorted per axis (`center_point_box = 0`: boxes are
`[y1, x1, y2, x2]`, either corner first; `1`: `[x_center, y_center, width,
height]`), an empty intersection, a non-positive area or union never
suppresses; a NaN coordinate fails every comparison, as there. A NaN score
is never a candidate (ONNX leaves its order undefined).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, f32, i64
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    boolean,
    element_count,
    element_type_of,
    integer,
)
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    required,
)

Ops = tuple[
    Callable[[Any, Any], Any],  # a > b
    Callable[[Any, Any], Any],  # a <= b
    Callable[[Any, Any, Any], Any],  # where(c, a, b)
]
"""The comparisons and selection `suppresses` is written in."""


def corner_bounds(
    box: Sequence[Any], center_point_box: bool, ops: Ops
) -> tuple[Any, Any, Any, Any]:
    """(x_min, x_max, y_min, y_max) of a box, as ONNX's reference finds them:
    corners ordered with `lhs >= rhs` (so a NaN leaves them as given), or
    the center plus and minus half the size."""
    _, at_most, where = ops
    if center_point_box:
        x, y, width, height = box
        half_w, half_h = width / np.float32(2), height / np.float32(2)
        return x - half_w, x + half_w, y - half_h, y + half_h

    def ordered(lhs: Any, rhs: Any) -> tuple[Any, Any]:
        swap = at_most(rhs, lhs)  # lhs >= rhs
        return where(swap, rhs, lhs), where(swap, lhs, rhs)

    y1, x1, y2, x2 = box
    return (*ordered(x1, x2), *ordered(y1, y2))


def suppresses(
    candidate: Sequence[Any],
    selected: Sequence[Any],
    threshold: Any,
    center_point_box: bool,
    ops: Ops,
    logical_and: Callable[[Any, Any], Any],
    logical_not: Callable[[Any], Any],
) -> Any:
    """Whether the selected box suppresses the candidate (ONNX's
    `suppress_by_iou`: Python's `max(a, b)` keeps `a` unless `b > a`)."""
    greater, at_most, where = ops
    cx0, cx1, cy0, cy1 = corner_bounds(candidate, center_point_box, ops)
    sx0, sx1, sy0, sy1 = corner_bounds(selected, center_point_box, ops)
    low_x, high_x = (
        where(greater(sx0, cx0), sx0, cx0),
        where(greater(cx1, sx1), sx1, cx1),
    )
    low_y, high_y = (
        where(greater(sy0, cy0), sy0, cy0),
        where(greater(cy1, sy1), sy1, cy1),
    )
    intersection = (high_x - low_x) * (high_y - low_y)
    area_c = (cx1 - cx0) * (cy1 - cy0)
    area_s = (sx1 - sx0) * (sy1 - sy0)
    union = area_c + area_s - intersection
    zero = np.float32(0)
    result = greater(intersection / union, threshold)
    for low, high in ((low_x, high_x), (low_y, high_y)):
        result = logical_and(result, logical_not(at_most(high, low)))
    for positive in (intersection, area_c, area_s, union):
        result = logical_and(result, logical_not(at_most(positive, zero)))
    return result


NUMPY_OPS: Ops = (np.greater, np.less_equal, np.where)


@irdl_op_definition
class NonMaxSuppressionOp(GEOperation):
    """Greedy non-maximum suppression per batch and class (module doc):
    boxes [B, N, 4] float32, scores [B, C, N] float32, one-element
    `max_output_boxes_per_class` (int64), `iou_threshold` and
    `score_threshold` (float32); the result [S, 3] int64."""

    name = "ge.non_max_suppression"

    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_output_boxes_per_class = operand_def(TensorType)
    iou_threshold = operand_def(TensorType)
    score_threshold = operand_def(TensorType)
    selected_indices = result_def(TensorType)
    center_point_box = attr_def(IntegerAttr, default_value=integer(0))
    score_filtered = attr_def(IntegerAttr, default_value=boolean(True))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        boxes, scores = shape_of(self.boxes.type), shape_of(self.scores.type)
        try:
            _check_shapes(boxes, scores, int(self.value_of("center_point_box")))
        except ShapeError as error:
            raise VerifyException(str(error)) from None
        for value in (
            self.boxes,
            self.scores,
            self.iou_threshold,
            self.score_threshold,
        ):
            if element_type_of(value) != f32:
                raise VerifyException("boxes, scores and the thresholds must be f32")
        if element_type_of(self.max_output_boxes_per_class) != i64:
            raise VerifyException("max_output_boxes_per_class must be i64")
        for value in (
            self.max_output_boxes_per_class,
            self.iou_threshold,
            self.score_threshold,
        ):
            if element_count(value) != 1:
                raise VerifyException(
                    "max_output_boxes_per_class and the thresholds hold one element"
                )
        if element_type_of(self.selected_indices) != i64:
            raise VerifyException("the result must be i64")
        if shape_of(self.selected_indices.type)[1:] != (3,):
            raise VerifyException("the result must be [S, 3]")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[?, 3] int64: how many boxes are selected is data-dependent."""
        _check_shapes(shapes[0], shapes[1], int(required(attrs, "center_point_box")))
        for shape in shapes[2:]:
            if UNKNOWN not in shape and int(np.prod(shape)) != 1:
                raise ShapeError(
                    "max_output_boxes_per_class and the thresholds hold one "
                    f"element, got {list(shape)}"
                )
        return [((UNKNOWN, 3), "int64")]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shape: how many boxes the kernel selects."""
        selected = self.numpy_kernel(
            *operands,
            center_point_box=int(self.value_of("center_point_box")),
            score_filtered=bool(self.value_of("score_filtered")),
        )
        return [selected.shape]

    @staticmethod
    def numpy_kernel(
        boxes: np.ndarray,
        scores: np.ndarray,
        max_output_boxes_per_class: np.ndarray,
        iou_threshold: np.ndarray,
        score_threshold: np.ndarray,
        *,
        center_point_box: int,
        score_filtered: bool,
    ) -> np.ndarray:
        """Candidates in score order, then the greedy selection (each
        candidate against the boxes already selected in its class)."""
        limit = int(max_output_boxes_per_class.reshape(-1)[0])
        threshold = np.float32(iou_threshold.reshape(-1)[0])
        floor = np.float32(score_threshold.reshape(-1)[0])
        with np.errstate(all="ignore"):
            overlaps = suppresses(
                np.moveaxis(boxes[:, :, None, :], -1, 0),
                np.moveaxis(boxes[:, None, :, :], -1, 0),
                threshold,
                bool(center_point_box),
                NUMPY_OPS,
                np.logical_and,
                np.logical_not,
            )  # [B, candidate, selected]
        rows = []
        for batch, classes in enumerate(scores):
            for klass, score in enumerate(classes):
                candidate = ~np.isnan(score)
                if score_filtered:
                    candidate &= score > floor
                boxes_in_order = [
                    int(i) for i in np.argsort(-score, kind="stable") if candidate[i]
                ]
                kept: list[int] = []
                for box in boxes_in_order:
                    if len(kept) >= limit:
                        break
                    if not overlaps[batch, box, kept].any():
                        kept.append(box)
                rows += [(batch, klass, box) for box in kept]
        return np.array(rows, np.int64).reshape(len(rows), 3)


def _check_shapes(boxes: Shape, scores: Shape, center_point_box: int) -> None:
    """boxes [B, N, 4] and scores [B, C, N] agree; `center_point_box` 0 or 1."""
    if center_point_box not in (0, 1):
        raise ShapeError(f"center_point_box must be 0 or 1, got {center_point_box}")
    if len(boxes) != 3 or boxes[2] not in (4, UNKNOWN):
        raise ShapeError(f"boxes must be [batches, boxes, 4], got {list(boxes)}")
    if len(scores) != 3:
        raise ShapeError(
            f"scores must be [batches, classes, boxes], got {list(scores)}"
        )
    for what, a, b in (
        ("batches", boxes[0], scores[0]),
        ("boxes", boxes[1], scores[2]),
    ):
        if UNKNOWN not in (a, b) and a != b:
            raise ShapeError(f"boxes and scores disagree on the {what}: {a} and {b}")
