"""`ge.mel_weight_matrix` (ONNX MelWeightMatrix): triangular mel filters
from five run-time scalars; the result shape is their values, so the host
schedules it (`value_shapes`) and a JIT kernel per shape computes the bins
(`mel_points`, the reference's operations and dtypes) and the weights.
Against ONNX's reference evaluator (onnxruntime has no kernel for it) at
odd sizes, filters narrower than a bin, and bins outside the spectrogram
(an error at the op, where the reference would index around)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_jit import assert_runs_on_the_jit

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_runtime.engines.scheduler import Executor, compile_model

NAMES = ("n", "d", "s", "l", "u")


def mel_model():
    node = helper.make_node("MelWeightMatrix", list(NAMES), ["y"])
    types = [7, 7, 7, 1, 1]
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, t, [])
            for n, t in zip(NAMES, types, strict=True)
        ],
        [helper.make_tensor_value_info("y", 1, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )


def feeds(bins, length, rate, lower, upper):
    values = [np.array(v, np.int64) for v in (bins, length, rate)]
    values += [np.array(v, np.float32) for v in (lower, upper)]
    return dict(zip(NAMES, values, strict=True))


@pytest.mark.parametrize(
    "parameters",
    [
        (8, 16, 8192, 0, 4096),
        (17, 63, 16000, 20, 7000),
        (3, 17, 100, 0, 50),
        (5, 31, 1000, 300, 100),
    ],
    ids=["suite", "odd_sizes", "narrow_filters", "upper_below_lower"],
)
def test_matches_the_onnx_reference_on_the_jit(tmp_path, parameters):
    inputs = feeds(*parameters)
    expected = ReferenceEvaluator(mel_model()).run(None, inputs)
    assert_runs_on_the_jit(mel_model(), inputs, tmp_path, expected)


def test_a_kernel_per_shape_and_bins_outside_the_spectrogram():
    b = GraphBuilder("g")
    operands = [
        b.data([], t) for t in ("int64", "int64", "int64", "float32", "float32")
    ]
    b.output(b.mel_weight_matrix(*operands, dst_type="float32"))
    model = compile_model(b.build())
    for parameters in [(4, 17, 1000, 0, 400), (4, 17, 1000, 100, 300)]:
        (got,) = model.run(dict(enumerate(feeds(*parameters).values())))
        assert got.shape == (9, 4)
        assert all(e.executor == Executor.JIT for e in model.trace)
    with pytest.raises(GEError, match="outside the 9 spectrogram bins"):
        model.run(dict(enumerate(feeds(4, 17, 1000, 0, 900).values())))
