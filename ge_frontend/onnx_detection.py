"""ONNX's detection post-processing: NonMaxSuppression as
`ge.non_max_suppression` (how many boxes it selects is known at run time:
the host schedules it, see `NonMaxSuppressionOp.value_shapes`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ge_frontend.importing import Value, registrar
from ge_frontend.onnx_context import NodeContext

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""The detection ops -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)


@converts("NonMaxSuppression")
def convert_non_max_suppression(ctx: NodeContext) -> list[Value]:
    """Boxes and scores, then the optional inputs ONNX's reference defaults:
    no `max_output_boxes_per_class` selects nothing, no `iou_threshold` is
    0, no `score_threshold` filters no box out."""
    limit = ctx.optional_input(2)
    iou = ctx.optional_input(3)
    floor = ctx.optional_input(4)
    return [
        ctx.op(
            "non_max_suppression",
            ctx.input(0),
            ctx.input(1),
            np.zeros(1, np.int64) if limit is None else limit,
            np.zeros(1, np.float32) if iou is None else iou,
            np.zeros(1, np.float32) if floor is None else floor,
            center_point_box=int(ctx.attr("center_point_box", 0)),
            score_filtered=floor is not None,
        )
    ]
