"""Shared test helpers: one-node ONNX models run by onnxruntime, and tolerances."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from onnx import helper

ort = pytest.importorskip("onnxruntime")

OPSET = 18
BF16 = np.dtype(ml_dtypes.bfloat16)
# max |ours - ref| <= TOL * max |ref|
TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2, BF16: 2e-2}

_rng = np.random.default_rng(0)


def rand(*shape: int, dtype: Any = np.float32, lo: float = -1.0, hi: float = 1.0):
    """Uniform random array of the given dtype."""
    return _rng.uniform(lo, hi, shape).astype(dtype)


def run_onnx(
    op_type: str,
    inputs: Sequence[np.ndarray | None],
    n_outputs: int = 1,
    **attrs: Any,
) -> list[np.ndarray]:
    """Run a one-node ONNX model; None inputs are omitted optional operands.

    float16/bfloat16 inputs are fed as float32 so the reference is exact.
    """
    names = ["" if a is None else f"x{i}" for i, a in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()
    feeds = {
        n: a.astype(np.float32) if a.dtype in (np.float16, BF16) else a
        for n, a in zip(names, inputs, strict=False)
        if n
    }
    outs = [f"y{i}" for i in range(n_outputs)]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, outs, **attrs)],
        "one_node",
        [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in feeds.items()
        ],
        [helper.make_empty_tensor_value_info(o) for o in outs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    sess = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return sess.run(None, feeds)


def check(ours: np.ndarray, ref: np.ndarray, dtype: Any = np.float32) -> None:
    """Assert dtype, shape and closeness (exact for non-float results)."""
    dtype = np.dtype(dtype)
    assert ours.dtype == dtype
    assert ours.shape == ref.shape
    if dtype.kind in "iub":
        np.testing.assert_array_equal(ours, ref)
        return
    ours32 = ours.astype(np.float32)
    err = np.abs(ours32 - ref).max(initial=0.0)
    scale = np.abs(ref).max(initial=0.0)
    assert err <= TOL[dtype] * scale, f"max err {err} vs max|ref| {scale}"
