"""`ge.stft` (ONNX STFT): windowed frames, each a DFT (a reduction with a
constant twiddle table). `frame_step` and `frame_length` known at import
fold to the static op; at run time the host binds them and runs the static
op on the JIT. Against onnxruntime at odd sizes (17-sample frames, steps
that leave samples over), real and complex signals, one- and two-sided,
with a window and with NaN and infinities."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx_jit import assert_runs_on_the_jit, onnxruntime_outputs

from ge_dialect.builder import GraphBuilder
from ge_dialect.ops import STFTOp
from ge_runtime.engines.scheduler import Executor, compile_model


def stft_model(signal_shape, windowed, run_time, onesided):
    """STFT of a graph-input signal; step and length graph inputs when
    `run_time`, else constants."""
    names = [
        "signal",
        "step",
        "window" if windowed else "",
        "" if windowed else "length",
    ]
    while not names[-1]:
        names.pop()
    node = helper.make_node("STFT", names, ["y"], onesided=onesided)
    inputs = [helper.make_tensor_value_info("signal", 1, signal_shape)]
    constants = []
    for name in filter(None, names[1:]):
        if name == "window":
            inputs.append(helper.make_tensor_value_info("window", 1, [17]))
        elif run_time:
            inputs.append(helper.make_tensor_value_info(name, 7, []))
        else:
            value = 5 if name == "step" else 17
            constants.append(helper.make_tensor(name, 7, [], [value]))
    graph = helper.make_graph(
        [node], "g", inputs, [helper.make_tensor_value_info("y", 1, None)], constants
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )


@pytest.mark.parametrize("onesided", [1, 0])
@pytest.mark.parametrize("windowed", [True, False])
@pytest.mark.parametrize("run_time", [True, False])
def test_matches_onnxruntime_on_the_jit(tmp_path, run_time, windowed, onesided):
    rng = np.random.default_rng(run_time + 2 * windowed + 4 * onesided)
    shape = [2, 61, 1 if onesided else 2]
    inputs = {"signal": rng.standard_normal(shape).astype(np.float32)}
    if run_time:
        inputs["step"] = np.array(5, np.int64)
    if windowed:
        inputs["window"] = np.hanning(17).astype(np.float32)
    elif run_time:
        inputs["length"] = np.array(17, np.int64)
    model = stft_model(shape, windowed, run_time, onesided)
    assert_runs_on_the_jit(model, inputs, tmp_path)


def test_special_values_on_the_jit():
    b = GraphBuilder("g")
    b.output(b.stft(b.data([1, 17, 1]), b.data([5]), frame_step=3, frame_length=5))
    model = compile_model(b.build())
    signal = np.random.default_rng(0).standard_normal((1, 17, 1)).astype(np.float32)
    signal[0, [1, 9], 0] = [np.nan, np.inf]
    window = np.array([0.5, 1, 1, 1, 0.5], np.float32)
    (got,) = model.run({0: signal, 1: window})
    assert all(e.executor == Executor.JIT for e in model.trace)
    want = STFTOp.numpy_kernel(
        signal, window, frame_step=3, frame_length=5, onesided=True
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert np.isnan(got[0, 0]).all() and np.isfinite(got[0, 4]).all()


def test_the_kernel_matches_onnxruntime_without_a_window():
    rng = np.random.default_rng(8)
    inputs = {
        "signal": rng.standard_normal((1, 40, 1)).astype(np.float32),
        "step": np.array(7, np.int64),
        "length": np.array(17, np.int64),
    }
    (expected,) = onnxruntime_outputs(stft_model([1, 40, 1], False, True, 1), inputs)
    got = STFTOp.numpy_kernel(
        inputs["signal"], None, frame_step=7, frame_length=17, onesided=True
    )
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
