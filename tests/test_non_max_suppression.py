"""`ge.non_max_suppression` (ONNX NonMaxSuppression): how many boxes are
selected is known only from the values, so the host schedules it
(`NonMaxSuppressionOp.value_shapes`) and a JIT kernel compiled for that
count runs. The NumPy kernel is checked against ONNX's reference evaluator
and onnxruntime, the JIT against the kernel, and ONNX models through
`ge-atc` + `ge-run` against onnxruntime, at odd sizes (3, 17 boxes), with
NaN and infinite coordinates and scores, boxes of no area, ties, limits of
0 and below, and the optional inputs left out."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, one_node_model, onnxruntime_outputs

from ge_dialect.builder import GraphBuilder
from ge_dialect.ops import NonMaxSuppressionOp
from ge_runtime.engines.scheduler import Executor, compile_model

NAMES = (
    "boxes",
    "scores",
    "max_output_boxes_per_class",
    "iou_threshold",
    "score_threshold",
)


def random_case(rng, batches, classes, boxes, center_point_box, special=False):
    """Boxes (half of them with their corners swapped), coarse scores (many
    ties) and thresholds; `special` puts NaN and infinities in."""
    corner = rng.uniform(0, 10, (batches, boxes, 2)).astype(np.float32)
    size = rng.uniform(-1, 5, (batches, boxes, 2)).astype(np.float32)
    if center_point_box:
        data = np.concatenate([corner, size], -1)
    else:
        data = np.concatenate([corner, corner + size], -1)[..., [1, 0, 3, 2]]
    scores = (rng.integers(0, 5, (batches, classes, boxes)) / 4).astype(np.float32)
    if special:
        data[rng.random(data.shape) < 0.08] = np.nan
        data[rng.random(data.shape) < 0.04] = np.inf
        scores[rng.random(scores.shape) < 0.15] = np.nan
        scores[rng.random(scores.shape) < 0.1] = -np.inf
    return (
        data.astype(np.float32),
        scores,
        np.array([rng.integers(0, 6)], np.int64),
        np.array([rng.uniform(0, 0.7)], np.float32),
        np.array([rng.uniform(-0.1, 0.6)], np.float32),
    )


def kernel(arrays, center_point_box, score_filtered=True):
    return NonMaxSuppressionOp.numpy_kernel(
        *arrays, center_point_box=center_point_box, score_filtered=score_filtered
    )


def onnx_model(center_point_box, present=NAMES, opset=11):
    """One NonMaxSuppression node; inputs not `present` are left out."""
    types = {"max_output_boxes_per_class": 7}
    names = [name if name in present else "" for name in NAMES]
    while not names[-1]:
        names.pop()
    node = helper.make_node(
        "NonMaxSuppression", names, ["y"], center_point_box=center_point_box
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, types.get(n, 1), None) for n in names if n],
        [helper.make_tensor_value_info("y", 7, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8
    )


@pytest.mark.parametrize("center_point_box", [0, 1])
def test_kernel_matches_the_onnx_reference_and_onnxruntime(center_point_box):
    """NaN coordinates too (the reference's comparisons, step by step); NaN
    scores only without NaN in the reference's sort (its order is undefined)."""
    rng = np.random.default_rng(center_point_box)
    model = onnx_model(center_point_box)
    reference = ReferenceEvaluator(model)
    for trial in range(60):
        arrays = random_case(
            rng, 1 + trial % 3, 1 + trial % 2, (3, 17, 5)[trial % 3], center_point_box
        )
        if trial % 4 == 0:
            arrays[0][rng.random(arrays[0].shape) < 0.08] = np.nan
        feeds = dict(zip(NAMES, arrays, strict=True))
        want = reference.run(None, feeds)[0]
        np.testing.assert_array_equal(kernel(arrays, center_point_box), want)
        (runtime,) = onnxruntime_outputs(model, feeds)
        if trial % 4:
            np.testing.assert_array_equal(kernel(arrays, center_point_box), runtime)


def nms_graph(batches, classes, boxes, center_point_box, score_filtered=True):
    b = GraphBuilder("g")
    operands = [
        b.data([batches, boxes, 4], "float32"),
        b.data([batches, classes, boxes], "float32"),
        b.data([1], "int64"),
        b.data([1], "float32"),
        b.data([], "float32"),
    ]
    b.output(
        b.non_max_suppression(
            *operands, center_point_box=center_point_box, score_filtered=score_filtered
        )
    )
    return b.build()


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("score_filtered", [True, False])
@pytest.mark.parametrize("center_point_box", [0, 1])
@pytest.mark.parametrize("shape", [(1, 1, 3), (2, 3, 17)])
def test_jit_matches_the_kernel(shape, center_point_box, score_filtered, special):
    rng = np.random.default_rng(sum(shape) + center_point_box)
    model = compile_model(nms_graph(*shape, center_point_box, score_filtered))
    for _ in range(4):
        arrays = list(random_case(rng, *shape, center_point_box, special))
        arrays[4] = arrays[4].reshape(())
        (got,) = model.run(dict(enumerate(arrays)))
        entry = next(e for e in model.trace if e.op == "ge.non_max_suppression")
        assert entry.executor == Executor.JIT, entry.detail
        assert entry.detail.startswith("jit kernel"), entry.detail
        np.testing.assert_array_equal(
            got, kernel(arrays, center_point_box, score_filtered)
        )


def test_nothing_selected_and_limits():
    """No area, a limit of 0 or below, every score under the threshold: an
    empty [0, 3] result; a large limit keeps every box that is not
    suppressed; identical boxes keep the lowest index of the top score."""
    model = compile_model(nms_graph(1, 2, 3, 0))
    boxes = np.zeros((1, 3, 4), np.float32)
    scores = np.array([[[0.5, 0.9, 0.9], [0.1, 0.2, 0.3]]], np.float32)
    floor = np.float32(0.0)

    def run(boxes, limit, floor=floor):
        inputs = [
            boxes,
            scores,
            np.array([limit], np.int64),
            np.array([0.5], np.float32),
            floor,
        ]
        (got,) = model.run(dict(enumerate(inputs)))
        np.testing.assert_array_equal(got, kernel(inputs, 0))
        return got.tolist()

    assert run(boxes, 5) == [
        [0, 0, 1],
        [0, 0, 2],
        [0, 0, 0],
        [0, 1, 2],
        [0, 1, 1],
        [0, 1, 0],
    ]
    assert run(boxes, 0) == run(boxes, -3) == []
    assert run(boxes, 5, np.float32(0.95)) == []
    same = np.tile(np.array([0, 0, 1, 1], np.float32), (1, 3, 1))
    assert run(same, 2**62) == [[0, 0, 1], [0, 1, 2]]


@pytest.mark.parametrize(
    "present",
    [NAMES, NAMES[:4], NAMES[:3], NAMES[:2]],
    ids=["all", "no-score-threshold", "no-thresholds", "no-limit"],
)
def test_onnx_models_match_onnxruntime_on_the_jit(tmp_path, present):
    rng = np.random.default_rng(len(present))
    arrays = random_case(rng, 2, 3, 17, 0)
    inputs = dict(zip(present, arrays, strict=False))
    model = one_node_model("NonMaxSuppression", inputs, opset=11)
    if len(present) == 2:  # no limit: nothing is selected, an empty result
        assert onnxruntime_outputs(model, inputs)[0].shape == (0, 3)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def test_one_node_model_of_opset_21(tmp_path):
    rng = np.random.default_rng(9)
    inputs = dict(zip(NAMES, random_case(rng, 1, 2, 17, 1), strict=True))
    model = one_node_model("NonMaxSuppression", inputs, opset=21, center_point_box=1)
    assert_runs_on_the_jit(model, inputs, tmp_path)
