"""Max/min pooling windows in two passes over strided views (`_separable`).

A k x k window becomes a pass along its inner axis into whole input rows,
then one along its outer axis: the same taps in the same order, so the
results are bit for bit those of one pass per tap (ties between -0.0 and
0.0, NaNs included), and the reference's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.context import Context

from ge_dialect.builder import GraphBuilder
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import find_graph
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.compiler import compile_graph, run_graph
from ge_runtime.jit.emit import numpy_nest as jit_vectorize
from passes.format_pipeline import FormatPipelinePass


@pytest.fixture(autouse=True)
def numpy_calls(monkeypatch):
    """These tests read the NumPy vectoriser's code: no native kernels."""
    monkeypatch.setenv("GE_XDSL_KERNELS", "numpy")


def pooled(channels: int, size: int, kernel: int, stride: int, pad: int):
    b = GraphBuilder("main")
    x = b.data([1, channels, size, size], "float32", format="NCHW", name="x")
    y = b.max_pool(
        x,
        ksize=[1, 1, kernel, kernel],
        strides=[1, 1, stride, stride],
        pads=[pad, pad, pad, pad],
        data_format="NCHW",
    )
    b.output(y)
    module = b.build()
    FormatPipelinePass().apply(Context(), module)
    return module


def special_input(channels: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(channels * 100 + size)
    x = rng.integers(-2, 3, (1, channels, size, size)).astype(np.float32)  # ties
    x[x == 0] = rng.choice(np.array([0.0, -0.0], np.float32), int((x == 0).sum()))
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 5, replace=False)] = [
        np.nan,
        np.inf,
        -np.inf,
        np.nan,
        -0.0,
    ]
    return x


def two_pass_windows(source: str) -> int:
    """How many windows run as two passes (a row buffer fed by views)."""
    return len(
        re.findall(r"u\d+\(strided_view\(v\d+, \d+, .*out=s\d+\)$", source, re.M)
    )


@pytest.mark.parametrize(
    ("channels", "size", "kernel", "stride", "pad"),
    [(3, 17, 3, 2, 1), (17, 9, 3, 1, 0), (33, 8, 2, 2, 0), (100, 7, 3, 2, 1)],
)
def test_two_pass_window_is_the_one_pass_result_bit_for_bit(
    channels, size, kernel, stride, pad, monkeypatch
):
    module = pooled(channels, size, kernel, stride, pad)
    x = special_input(channels, size)
    source = compile_graph(find_graph(module)).source
    assert two_pass_windows(source) >= 1, source
    (got,) = run_graph(module, {"x": x})
    (expected,) = evaluate(module, {"x": x})
    np.testing.assert_array_equal(got, expected)  # NaN where NaN, values equal
    jit._CACHE.clear()
    jit._GRAPHS.clear()
    monkeypatch.setattr(jit_vectorize.NestVectoriser, "_separable", lambda *a: False)
    one_pass = compile_graph(find_graph(module)).source
    assert two_pass_windows(one_pass) == 0
    (tap_by_tap,) = run_graph(module, {"x": x})
    assert got.tobytes() == tap_by_tap.tobytes()
