"""Splat constants stay splats through storage-format selection, and mean the
same numbers: written in the origin shape when the storage layout pads them
(padding zero), checked by the reference evaluator, the JIT and the kernel
runtime against the graph before layout, at odd channel counts."""

from __future__ import annotations

import numpy as np
import pytest

import ge_xdsl
from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.ops import ConstOp


def splat_graph(channels: int, value: float, dtype: str):
    """conv(x, splat filter) + splat bias, then a matmul with a splat matrix."""
    b = GraphBuilder("main")
    x = b.data([1, channels, 5, 5], dtype, name="x")
    w = b.const(np.full((channels, channels, 3, 3), value, dtype))
    bias = b.const(np.full((channels,), -value, dtype))
    y = b.conv2d(x, w, bias, data_format="NCHW", pads=[1, 1, 1, 1])
    flat = b.reshape(y, shape=[channels, 25])
    m = b.const(np.full((25, 17), value, dtype))
    b.output(b.matmul(flat, m))
    return b.build()


@pytest.mark.parametrize("channels", [3, 17, 33])
@pytest.mark.parametrize("value", [0.5, -0.0, 1.0e-3])
def test_padded_splats_are_splats_and_keep_their_values(channels: int, value: float):
    module = splat_graph(channels, value, "float32")
    laid_out = ge_xdsl.apply_passes(module, "ge-format-pipeline{target=Ascend910}")
    constants = [op for op in laid_out.walk() if isinstance(op, ConstOp)]
    assert constants and all(op.value.is_splat() for op in constants)
    assert 'dense<"0x' not in str(laid_out)
    x = np.random.default_rng(channels).standard_normal((1, channels, 5, 5))
    inputs = {"x": x.astype(np.float32)}
    expected = ge_xdsl.reference(module, inputs)["output_0"]
    reference = ge_xdsl.reference(ge_xdsl.parse(str(laid_out)), inputs)["output_0"]
    jit = ge_xdsl.compile(module, soc_version="Ascend910").run(inputs)["output_0"]
    scale = np.abs(expected).max() or 1.0
    assert np.abs(reference - expected).max() <= 1e-5 * scale
    assert np.abs(jit - expected).max() <= 1e-5 * scale


def test_a_non_splat_in_the_origin_shape_is_rejected():
    layout = "tensor<2x1x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>"
    value = "dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>"
    text = (
        f"ge.graph @main {{\n  %w = ge.const {{value = {value}}} : {layout}\n"
        f"  ge.netoutput %w : {layout}\n}}\n"
    )
    with pytest.raises(GEError, match=r"value shape \[2, 1, 1, 1\] does not match"):
        ge_xdsl.parse(text)
