"""`ge.col2im` (ONNX Col2Im): blocks summed back into an image. Known sizes
fold to the static op at import; run-time `image_shape` and `block_shape`
are bound by the host (`ge.dynamic_attrs`), which runs the static op on
the JIT. Checked against the ONNX reference evaluator and onnxruntime at
odd sizes, with NaN and infinities (the gather-sum adds 0 where no value
lands, never NaN from a clamped load)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit, onnxruntime_outputs

from ge_dialect.builder import GraphBuilder
from ge_dialect.ops import Col2ImOp
from ge_runtime.engines.scheduler import Executor, compile_model

CASES = {
    "2d_strided_padded": (
        (2, 3 * 4, 9),
        [5, 6],
        [2, 2],
        dict(strides=[2, 2], pads=[0, 1, 1, 0]),
    ),
    "2d_dilated": ((1, 17 * 9, 9), [7, 7], [3, 3], dict(dilations=[2, 2])),
    "1d": ((2, 3 * 3, 9), [17], [3], dict(strides=[2], pads=[1, 1])),
    "3d": ((1, 3 * 8, 8), [3, 4, 5], [2, 2, 2], dict(strides=[1, 2, 3])),
}


def run_time_model(x_shape, count, attributes):
    """Col2Im whose image_shape and block_shape are graph inputs."""
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", 1, x_shape),
            helper.make_tensor_value_info("image", 7, [count]),
            helper.make_tensor_value_info("block", 7, [count]),
        ],
        [helper.make_tensor_value_info("y", 1, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_time_sizes_match_the_reference_on_the_jit(tmp_path, name):
    shape, image, block, attributes = CASES[name]
    x = np.random.default_rng(len(name)).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
    inputs = {
        "x": x,
        "image": np.array(image, np.int64),
        "block": np.array(block, np.int64),
    }
    model = run_time_model(shape, len(image), attributes)
    expected = ReferenceEvaluator(model).run(None, inputs)
    if len(image) == 2:  # onnxruntime's kernel takes 2-D images only
        np.testing.assert_allclose(
            onnxruntime_outputs(model, inputs)[0], expected[0], rtol=1e-5
        )
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_jit_matches_the_kernel(dtype):
    shape, image, block, attributes = CASES["2d_strided_padded"]
    b = GraphBuilder("g")
    options = {
        "image_shape": image,
        "block_shape": block,
        "strides": attributes["strides"],
        "dilations": [1, 1],
        "pads": attributes["pads"],
    }
    b.output(b.col2im(b.data(list(shape), dtype), **options))
    model = compile_model(b.build())
    x = (np.random.default_rng(3).standard_normal(shape) * 9).astype(dtype)
    (got,) = model.run({0: x})
    assert all(e.executor == Executor.JIT for e in model.trace)
    np.testing.assert_allclose(got, Col2ImOp.numpy_kernel(x, **options), rtol=1e-3)


def test_sizes_that_do_not_tile_fail_at_the_op():
    b = GraphBuilder("g")
    with pytest.raises(Exception, match="do not tile the image"):
        b.col2im(
            b.data([1, 4, 5]),
            image_shape=[5, 5],
            block_shape=[2, 2],
            strides=[1, 1],
            dilations=[1, 1],
            pads=[0, 0, 0, 0],
        )
