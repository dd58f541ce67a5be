"""ONNX import (`ge_frontend.onnx_import`, `ge-translate --import-onnx`).

Numbers are checked against onnxruntime: one-node models at the opsets where
ONNX moved attributes to inputs, the ONNX package's `pytorch-converted` and
`pytorch-operator` cases (against their stored outputs) and its nine `light/`
models with seeded random weights. The IR is checked for GE's conventions
(NCHW anchors, pads order, names, dynamic dims, external weights), and bad
files for one-line errors.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, StringAttr

from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import GE
from ge_dialect.ops import ConstOp, DataOp, GraphOp, NetOutputOp, python_attributes
from ge_dialect.parsing import parse_module
from ge_frontend.importing import parse_input_shapes, shape_of
from ge_frontend.onnx_import import import_onnx
from ge_frontend.onnx_weights import (
    LIGHT_MODELS_DIR,
    light_model_path,
    randomize_weights,
)
from ge_runtime.engines.reference import evaluate
from ge_runtime.graph_io import load_weights
from tools import ge_translate

ort = pytest.importorskip("onnxruntime")

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
LIGHT = sorted(LIGHT_MODELS_DIR.glob("light_*.onnx"))
PYTORCH_CASES = sorted(
    [*(DATA / "pytorch-converted").iterdir(), *(DATA / "pytorch-operator").iterdir()]
)
TOLERANCE = 1e-4
"""max |ours - onnxruntime| <= TOLERANCE * max |onnxruntime| (float32)."""


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def ops_of(module: ModuleOp) -> list[Any]:
    """The ops of the module's graph, in order."""
    graph = next(op for op in module.ops if isinstance(op, GraphOp))
    return list(graph.body.block.ops)


def op_names(module: ModuleOp) -> list[str]:
    """The names of the graph's ops (without `ge.`), in order."""
    return [op.name.removeprefix("ge.") for op in ops_of(module)]


def compute_ops(module: ModuleOp) -> list[Any]:
    """The graph's ops other than data, const and netoutput."""
    return [
        op
        for op in ops_of(module)
        if not isinstance(op, DataOp | ConstOp | NetOutputOp)
    ]


def assert_close(ours: np.ndarray, ref: np.ndarray, tolerance: float = TOLERANCE):
    """Same shape and dtype, and close relative to the reference's magnitude."""
    assert ours.shape == ref.shape, f"shape {ours.shape} vs {ref.shape}"
    assert ours.dtype == ref.dtype, f"dtype {ours.dtype} vs {ref.dtype}"
    if ref.dtype.kind in "iub":
        np.testing.assert_array_equal(ours, ref)
        return
    assert np.array_equal(np.isnan(ours), np.isnan(ref)), "NaNs differ"
    infinite = np.isinf(ref)
    assert np.array_equal(ours[infinite], ref[infinite]), "infinities differ"
    finite = np.isfinite(ref)
    err = np.abs(ours[finite].astype(np.float64) - ref[finite]).max(initial=0.0)
    scale = np.abs(ref[finite]).max(initial=0.0)
    assert err <= tolerance * max(scale, 1e-6), f"max err {err} vs max|ref| {scale}"


def value_info(name: str, array: np.ndarray) -> onnx.ValueInfoProto:
    """A tensor value info with the array's dtype and shape."""
    return helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape
    )


def ort_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's outputs of `model`."""
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


@dataclass
class Case:
    """A small ONNX graph: nodes, run-time inputs, initializers, opset."""

    nodes: list[onnx.NodeProto]
    inputs: dict[str, np.ndarray]
    initializers: dict[str, np.ndarray] = field(default_factory=dict)
    opset: int = 13
    outputs: Sequence[str] = ("y",)

    def model(self, output_infos: Sequence[onnx.ValueInfoProto] | None = None):
        """The model; outputs are untyped unless `output_infos` are given."""
        outputs = output_infos or [
            helper.make_empty_tensor_value_info(name) for name in self.outputs
        ]
        graph = helper.make_graph(
            self.nodes,
            "case",
            [value_info(name, array) for name, array in self.inputs.items()],
            list(outputs),
            [numpy_helper.from_array(a, name) for name, a in self.initializers.items()],
        )
        opsets = [helper.make_opsetid("", self.opset)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=7)

    def reference(self) -> tuple[onnx.ModelProto, list[np.ndarray]]:
        """onnxruntime's outputs and the model with typed outputs."""
        outputs = ort_run(self.model(), self.inputs)
        infos = [value_info(n, a) for n, a in zip(self.outputs, outputs, strict=True)]
        return self.model(infos), outputs


def check_case(case: Case) -> ModuleOp:
    """Import `case` and compare the reference evaluator with onnxruntime."""
    model, expected = case.reference()
    imported = import_onnx(model)
    got = evaluate(imported.module, case.inputs, weights=imported.weights)
    assert len(got) == len(expected)
    for ours, ref in zip(got, expected, strict=True):
        assert_close(ours, ref)
    return imported.module


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str] = ("y",), **attrs):
    """An ONNX node named after its op type."""
    return helper.make_node(op_type, list(inputs), list(outputs), name=op_type, **attrs)


rng = np.random.default_rng(0)


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    """Standard-normal data (odd shapes welcome)."""
    return rng.standard_normal(shape).astype(dtype)


def ints(*values: int) -> np.ndarray:
    """An int64 array (shape/axes/pads inputs)."""
    return np.array(values, np.int64)


# ---------------------------------------------------------------------------
# One-node models across opsets (numbers against onnxruntime)
# ---------------------------------------------------------------------------

X4 = rand(2, 3, 7, 5)
X3 = rand(2, 17, 9)

CASES: dict[str, Case] = {
    # Convolution: pads order, strides, dilations, groups, auto_pad, 1-D.
    "conv_pads_strides": Case(
        [node("Conv", ["x", "w", "b"], pads=[1, 0, 2, 1], strides=[2, 1])],
        {"x": X4},
        {"w": rand(4, 3, 3, 2), "b": rand(4)},
    ),
    "conv_dilated_grouped": Case(
        [node("Conv", ["x", "w"], dilations=[2, 1], group=3, pads=[1, 1, 1, 1])],
        {"x": X4},
        {"w": rand(6, 1, 3, 3)},
    ),
    "conv_same_upper": Case(
        [node("Conv", ["x", "w"], auto_pad="SAME_UPPER", strides=[2, 2])],
        {"x": X4},
        {"w": rand(5, 3, 4, 3)},
    ),
    "conv_same_lower": Case(
        [node("Conv", ["x", "w"], auto_pad="SAME_LOWER", strides=[2, 3])],
        {"x": X4},
        {"w": rand(5, 3, 4, 2)},
    ),
    "conv_valid": Case(
        [node("Conv", ["x", "w"], auto_pad="VALID", strides=[2, 2])],
        {"x": X4},
        {"w": rand(2, 3, 3, 3)},
    ),
    "conv_1d": Case(
        [node("Conv", ["x", "w", "b"], pads=[2, 1], strides=[2], dilations=[2])],
        {"x": X3},
        {"w": rand(5, 17, 3), "b": rand(5)},
    ),
    "conv_transpose": Case(
        [
            node(
                "ConvTranspose",
                ["x", "w", "b"],
                strides=[2, 3],
                pads=[1, 0, 0, 1],
                output_padding=[1, 2],
            )
        ],
        {"x": X4},
        {"w": rand(3, 4, 3, 3), "b": rand(4)},
    ),
    "conv_transpose_output_shape": Case(
        [node("ConvTranspose", ["x", "w"], strides=[2, 2], output_shape=[14, 10])],
        {"x": X4},
        {"w": rand(3, 2, 3, 3)},
    ),
    "conv_transpose_output_shape_beyond_full": Case(
        [node("ConvTranspose", ["x", "w"], strides=[2, 2], output_shape=[16, 9])],
        {"x": X4},
        {"w": rand(3, 2, 3, 3)},
    ),
    "conv_transpose_same_lower": Case(
        [node("ConvTranspose", ["x", "w"], strides=[3, 2], auto_pad="SAME_LOWER")],
        {"x": X4},
        {"w": rand(3, 2, 2, 4)},
    ),
    "conv_transpose_1d_grouped": Case(
        [node("ConvTranspose", ["x", "w"], strides=[2], group=17)],
        {"x": X3},
        {"w": rand(17, 2, 3)},
    ),
    # Pooling.
    "max_pool_ceil": Case(
        [
            node(
                "MaxPool",
                ["x"],
                kernel_shape=[3, 2],
                strides=[2, 2],
                ceil_mode=1,
                pads=[1, 0, 0, 1],
            )
        ],
        {"x": X4},
        opset=12,
    ),
    "avg_pool_count_pad": Case(
        [
            node(
                "AveragePool",
                ["x"],
                kernel_shape=[3, 3],
                pads=[1, 1, 1, 1],
                count_include_pad=1,
            )
        ],
        {"x": X4},
    ),
    "avg_pool_exclude_pad_same": Case(
        [
            node(
                "AveragePool",
                ["x"],
                kernel_shape=[3, 2],
                auto_pad="SAME_UPPER",
                strides=[2, 2],
            )
        ],
        {"x": X4},
    ),
    "max_pool_1d": Case(
        [node("MaxPool", ["x"], kernel_shape=[3], strides=[2], pads=[1, 1])],
        {"x": X3},
    ),
    "max_pool_indices_unused": Case(
        [node("MaxPool", ["x"], ["y", "indices"], kernel_shape=[2, 2])],
        {"x": X4},
    ),
    "global_avg_pool": Case([node("GlobalAveragePool", ["x"])], {"x": X4}),
    "global_max_pool_1d": Case([node("GlobalMaxPool", ["x"])], {"x": X3}),
    "global_avg_pool_3d": Case(
        [node("GlobalAveragePool", ["x"])], {"x": rand(2, 3, 2, 3, 4)}
    ),
    # Per-channel ops at several ranks.
    "batch_norm_opset7": Case(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)],
        {"x": X4},
        {"s": rand(3), "b": rand(3), "m": rand(3), "v": rand(3) ** 2 + 0.5},
        opset=7,
    ),
    "batch_norm_rank2": Case(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"])],
        {"x": rand(4, 17)},
        {"s": rand(17), "b": rand(17), "m": rand(17), "v": rand(17) ** 2 + 0.5},
        opset=15,
    ),
    "batch_norm_rank5": Case(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"])],
        {"x": rand(2, 3, 2, 3, 5)},
        {"s": rand(3), "b": rand(3), "m": rand(3), "v": rand(3) ** 2 + 0.5},
        opset=9,
    ),
    "instance_norm_rank3": Case(
        [node("InstanceNormalization", ["x", "s", "b"], epsilon=1e-4)],
        {"x": X3},
        {"s": rand(17), "b": rand(17)},
    ),
    "lrn": Case(
        [node("LRN", ["x"], size=3, alpha=0.01, beta=0.6, bias=2.0)], {"x": X4}
    ),
    # Matrix products.
    "gemm_transposed": Case(
        [node("Gemm", ["a", "b", "c"], alpha=0.5, beta=2.0, transA=1, transB=1)],
        {"a": rand(5, 3)},
        {"b": rand(4, 5), "c": rand(4)},
    ),
    "gemm_no_bias": Case(
        [node("Gemm", ["a", "b"])], {"a": rand(3, 5)}, {"b": rand(5, 4)}
    ),
    "matmul_2d": Case(
        [node("MatMul", ["a", "b"])], {"a": rand(3, 5)}, {"b": rand(5, 4)}
    ),
    "matmul_batched": Case(
        [node("MatMul", ["a", "b"])], {"a": rand(2, 1, 3, 5), "b": rand(3, 5, 4)}
    ),
    "matmul_vector_lhs": Case(
        [node("MatMul", ["a", "b"])], {"a": rand(5), "b": rand(2, 5, 3)}
    ),
    "matmul_vector_rhs": Case(
        [node("MatMul", ["a", "b"])], {"a": rand(3, 5), "b": rand(5)}
    ),
    # Softmax semantics before and from opset 13.
    "softmax_opset11_axis1": Case(
        [node("Softmax", ["x"], axis=1)], {"x": X4}, opset=11
    ),
    "softmax_opset11_default": Case([node("Softmax", ["x"])], {"x": X4}, opset=11),
    "log_softmax_opset11_axis2": Case(
        [node("LogSoftmax", ["x"], axis=2)], {"x": X4}, opset=11
    ),
    "softmax_opset13_axis1": Case([node("Softmax", ["x"], axis=1)], {"x": X4}),
    "log_softmax_opset13": Case([node("LogSoftmax", ["x"])], {"x": X4}),
    # Attribute-vs-input differences.
    "reshape_opset5": Case(
        [node("Reshape", ["x", "s"])], {"x": X4}, {"s": ints(0, -1, 5)}, opset=5
    ),
    "slice_opset9": Case(
        [node("Slice", ["x"], starts=[1, -4], ends=[1000, -1], axes=[1, 3])],
        {"x": X4},
        opset=9,
    ),
    "slice_opset13_steps": Case(
        [node("Slice", ["x", "s", "e", "a", "t"])],
        {"x": X4},
        {"s": ints(-1, 0), "e": ints(-1000, 7), "a": ints(-2, 1), "t": ints(-2, 2)},
    ),
    "pad_opset2": Case(
        [node("Pad", ["x"], pads=[0, 1, 2, 0, 0, 0, 1, 3], mode="reflect")],
        {"x": X4},
        opset=2,
    ),
    "pad_opset11_value": Case(
        [node("Pad", ["x", "p", "v"])],
        {"x": X4},
        {"p": ints(0, 0, 1, 2, 0, 1, 0, 1), "v": np.array(1.5, np.float32)},
        opset=11,
    ),
    "pad_opset18_axes_edge": Case(
        [node("Pad", ["x", "p", "", "a"], mode="edge")],
        {"x": X4},
        {"p": ints(2, 1, 0, 3), "a": ints(-1, 2)},
        opset=18,
    ),
    "squeeze_opset11": Case(
        [node("Squeeze", ["x"], axes=[-1])], {"x": rand(3, 1, 4, 1)}, opset=11
    ),
    "squeeze_opset13_all": Case([node("Squeeze", ["x"])], {"x": rand(3, 1, 4, 1)}),
    "unsqueeze_opset11": Case(
        [node("Unsqueeze", ["x"], axes=[0, -1])], {"x": X3}, opset=11
    ),
    "unsqueeze_opset13": Case(
        [node("Unsqueeze", ["x", "a"])], {"x": X3}, {"a": ints(3, 1)}
    ),
    "reduce_sum_opset11": Case(
        [node("ReduceSum", ["x"], axes=[1, -1], keepdims=0)], {"x": X4}, opset=11
    ),
    "reduce_sum_opset13": Case(
        [node("ReduceSum", ["x", "a"])], {"x": X4}, {"a": ints(2)}
    ),
    "reduce_sum_opset13_all": Case([node("ReduceSum", ["x"], keepdims=0)], {"x": X4}),
    "reduce_sum_noop": Case(
        [node("ReduceSum", ["x"], noop_with_empty_axes=1)], {"x": X4}
    ),
    "reduce_mean_opset13": Case([node("ReduceMean", ["x"], axes=[0, 2])], {"x": X4}),
    "reduce_max_opset18": Case(
        [node("ReduceMax", ["x", "a"], keepdims=0)],
        {"x": X4},
        {"a": ints(-1)},
        opset=18,
    ),
    "clip_opset6": Case([node("Clip", ["x"], min=-0.5, max=0.7)], {"x": X4}, opset=6),
    "clip_opset11_inputs": Case(
        [node("Clip", ["x", "lo", "hi"])],
        {"x": X4},
        {"lo": np.array(-0.3, np.float32), "hi": np.array(0.4, np.float32)},
        opset=11,
    ),
    "clip_opset13_max_only": Case(
        [node("Clip", ["x", "", "hi"])], {"x": X4}, {"hi": np.array(0.1, np.float32)}
    ),
    "split_opset11_attr": Case(
        [node("Split", ["x"], ["y", "z"], axis=1, split=[1, 2])],
        {"x": X4},
        opset=11,
        outputs=("y", "z"),
    ),
    "split_opset13_input": Case(
        [node("Split", ["x", "s"], ["y", "z"], axis=-1)],
        {"x": X4},
        {"s": ints(4, 1)},
        outputs=("y", "z"),
    ),
    "split_opset13_equal": Case(
        [node("Split", ["x"], ["y", "z", "w"], axis=0)],
        {"x": rand(6, 5)},
        outputs=("y", "z", "w"),
    ),
    "split_opset18_num_outputs": Case(
        [node("Split", ["x"], ["y", "z"], axis=2, num_outputs=2)],
        {"x": X4},
        opset=18,
        outputs=("y", "z"),
    ),
    "dropout_opset7": Case([node("Dropout", ["x"], ratio=0.3)], {"x": X4}, opset=7),
    "dropout_opset13_mask_unused": Case(
        [node("Dropout", ["x", "r"], ["y", "mask"])],
        {"x": X4},
        {"r": np.array(0.5, np.float32)},
    ),
    "upsample_opset7": Case(
        [node("Upsample", ["x"], scales=[1.0, 1.0, 2.0, 3.0])], {"x": X4}, opset=7
    ),
    "upsample_opset9": Case(
        [node("Upsample", ["x", "s"])],
        {"x": X4},
        {"s": np.array([1, 1, 3, 2], np.float32)},
        opset=9,
    ),
    # Data movement.
    "concat_negative_axis": Case(
        [node("Concat", ["a", "b", "c"], axis=-3)],
        {"a": X4, "b": rand(2, 1, 7, 5)},
        {"c": rand(2, 2, 7, 5)},
    ),
    "gather_axis1": Case(
        [node("Gather", ["x", "i"], axis=1)], {"x": X4}, {"i": ints(2, -1, 0, 2)}
    ),
    "gather_embedding": Case(
        [node("Gather", ["w", "i"])], {"i": ints(3, 0, 1)}, {"w": rand(4, 6)}
    ),
    "gather_elements_axis1": Case(
        [node("GatherElements", ["x", "i"], axis=1)],
        {"x": X3, "i": rng.integers(-17, 17, (2, 4, 9))},
    ),
    "gather_elements_last_axis_shorter_indices": Case(
        [node("GatherElements", ["x", "i"], axis=-1)],
        {"x": X3},
        {"i": rng.integers(-9, 9, (1, 3, 5))},
    ),
    "gather_nd": Case(
        [node("GatherND", ["x", "i"])],
        {"x": X3},
        {"i": np.array([[0, 16], [1, -1], [-2, 3]], np.int64)},
    ),
    "gather_nd_batch_dims": Case(
        [node("GatherND", ["x", "i"], batch_dims=1)],
        {"x": X3, "i": rng.integers(-9, 9, (2, 5, 2)) % [17, 9]},
    ),
    "reshape_to_a_runtime_shape": Case(
        [node("Reshape", ["x", "s"])], {"x": X4, "s": ints(2, 0, -1)}
    ),
    "expand_to_a_runtime_shape": Case(
        [node("Expand", ["x", "s"])], {"x": rand(3, 1), "s": ints(2, 1, 4)}
    ),
    "tile": Case([node("Tile", ["x", "r"])], {"x": X3}, {"r": ints(2, 1, 3)}),
    "expand": Case(
        [node("Expand", ["x", "s"])], {"x": rand(3, 1)}, {"s": ints(2, 1, 4)}
    ),
    "flatten_axis0": Case([node("Flatten", ["x"], axis=0)], {"x": X4}),
    "flatten_negative_axis": Case([node("Flatten", ["x"], axis=-1)], {"x": X4}),
    "transpose_default": Case([node("Transpose", ["x"])], {"x": X4}),
    "transpose_perm": Case([node("Transpose", ["x"], perm=[0, 2, 3, 1])], {"x": X4}),
    "cast_to_int32": Case([node("Cast", ["x"], to=TensorProto.INT32)], {"x": X4 * 10}),
    "castlike_to_int32": Case(
        [node("CastLike", ["x", "like"])],
        {"x": X4 * 10, "like": np.zeros((2,), np.int32)},
        opset=15,
    ),
    "castlike_constant_like_to_float16": Case(
        [node("CastLike", ["x", "like"])],
        {"x": X4},
        {"like": np.zeros((), np.float16)},
        opset=19,
    ),
    "identity": Case([node("Identity", ["x"])], {"x": X4}),
    # Elementwise.
    "relu_sigmoid_tanh": Case(
        [
            node("Relu", ["x"], ["a"]),
            node("Sigmoid", ["a"], ["b"]),
            node("Tanh", ["b"]),
        ],
        {"x": X4},
    ),
    "softplus_neg_abs_exp": Case(
        [
            node("Softplus", ["x"], ["a"]),
            node("Neg", ["a"], ["b"]),
            node("Abs", ["b"], ["c"]),
            node("Exp", ["c"]),
        ],
        {"x": X4},
    ),
    "sqrt_log_reciprocal": Case(
        [
            node("Sqrt", ["x"], ["a"]),
            node("Log", ["a"], ["b"]),
            node("Reciprocal", ["b"]),
        ],
        {"x": np.abs(X4) + 2},
    ),
    "leaky_relu": Case([node("LeakyRelu", ["x"], alpha=0.2)], {"x": X4}),
    "elu": Case([node("Elu", ["x"], alpha=0.7)], {"x": X4}),
    "selu_defaults": Case([node("Selu", ["x"])], {"x": X4}),
    "hard_sigmoid": Case([node("HardSigmoid", ["x"], alpha=0.3)], {"x": X4 * 3}),
    "hard_swish": Case(
        [node("HardSwish", ["x"])],
        {
            "x": np.array(
                [-1e30, -3.0, -1.5, -0.0, 0.0, 2.5, 3.0, 7.0, 1e30], np.float32
            )
        },
        opset=14,
    ),
    "softsign": Case([node("Softsign", ["x"])], {"x": X4}),
    "prelu_broadcast": Case(
        [node("PRelu", ["x", "s"])], {"x": X4}, {"s": rand(3, 1, 1)}
    ),
    "binary_broadcast": Case(
        [
            node("Add", ["x", "a"], ["t0"]),
            node("Sub", ["t0", "b"], ["t1"]),
            node("Mul", ["t1", "c"], ["t2"]),
            node("Div", ["t2", "d"]),
        ],
        {"x": X4},
        {
            "a": rand(5),
            "b": rand(3, 1, 1),
            "c": rand(1, 7, 1),
            "d": rand(2, 1, 1, 1) + 3,
        },
    ),
    "pow_int_exponent": Case(
        [node("Pow", ["x", "e"])], {"x": X4}, {"e": np.array(3, np.int64)}
    ),
    "variadic_sum_mean_max_min": Case(
        [
            node("Sum", ["x", "a", "b"], ["s"]),
            node("Mean", ["s", "a"], ["m"]),
            node("Max", ["m", "b", "x"], ["h"]),
            node("Min", ["h", "a"]),
        ],
        {"x": X4, "a": rand(7, 5)},
        {"b": rand(5)},
    ),
    # Constants and shape arithmetic folded at import time.
    "shape_arithmetic": Case(
        [
            node("Shape", ["x"], ["s"]),
            node("Gather", ["s", "i"], ["n"]),
            node("Unsqueeze", ["n", "zero"], ["n1"]),
            node("Concat", ["n1", "minus1"], ["target"], axis=0),
            node("Reshape", ["x", "target"]),
        ],
        {"x": X4},
        {"i": np.array(0, np.int64), "zero": ints(0), "minus1": ints(-1)},
    ),
    "constant_of_shape_and_constant": Case(
        [
            helper.make_node("Constant", [], ["shape"], value_ints=[7, 5]),
            node(
                "ConstantOfShape",
                ["shape"],
                ["c"],
                value=numpy_helper.from_array(np.array([0.25], np.float32)),
            ),
            helper.make_node("Constant", [], ["k"], value_float=2.0),
            node("Mul", ["c", "k"], ["ck"]),
            node("Add", ["x", "ck"]),
        ],
        {"x": X4},
    ),
    "bool_splat_concat": Case(
        [
            helper.make_node("Constant", [], ["shape"], value_ints=[2, 3]),
            node(
                "ConstantOfShape",
                ["shape"],
                ["ones"],
                value=numpy_helper.from_array(np.array([True])),
            ),
            node("Concat", ["b", "ones"], ["both"], axis=0),
            node("Cast", ["both"], to=TensorProto.FLOAT),
        ],
        {"b": rng.random((2, 3)) > 0.5},
    ),
    "size": Case(
        [
            node("Size", ["x"], ["n"]),
            node("Cast", ["n"], ["f"], to=TensorProto.FLOAT),
            node("Div", ["x", "f"]),
        ],
        {"x": X4},
    ),
}


SPECIALS = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3.0], np.float32)
XS = np.concatenate([SPECIALS, rand(25)]).reshape(3, 11)
YS = np.roll(XS, 5, axis=1) * np.float32(0.5)
I3 = rng.integers(-9, 10, (3, 11)).astype(np.int32)
J3 = (rng.integers(1, 7, (11,)) * np.where(rng.random(11) < 0.5, -1, 1)).astype(
    np.int32
)
B3 = rng.random((3, 11)) < 0.5
C3 = rng.random((11,)) < 0.5
U3 = rng.integers(0, 256, (3, 11)).astype(np.uint8)
S3 = rng.integers(0, 8, (11,)).astype(np.uint8)

LOGIC_AND_MATH: dict[str, Case] = {
    **{
        f"{op.lower()}_{kind}": Case([node(op, ["a", "b"])], inputs)
        for op in ("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual")
        for kind, inputs in (
            ("float_specials", {"a": XS, "b": YS}),
            ("int_broadcast", {"a": I3, "b": J3 % 5}),
            ("uint8", {"a": U3, "b": U3[::-1]}),
        )
        if op not in ("LessOrEqual", "GreaterOrEqual") or kind != "uint8"
    },
    "equal_bool": Case([node("Equal", ["a", "b"])], {"a": B3, "b": C3}, opset=19),
    **{
        f"{op.lower()}_broadcast": Case([node(op, ["a", "b"])], {"a": B3, "b": C3})
        for op in ("And", "Or", "Xor")
    },
    "not": Case([node("Not", ["a"])], {"a": B3}),
    "where_broadcast": Case(
        [node("Where", ["c", "a", "b"])], {"c": C3, "a": XS, "b": YS[0]}
    ),
    "where_int": Case([node("Where", ["c", "a", "b"])], {"c": B3, "a": I3, "b": J3}),
    "isnan": Case([node("IsNaN", ["a"])], {"a": XS}),
    "isinf": Case([node("IsInf", ["a"])], {"a": XS}, opset=10),
    "isinf_positive_only": Case(
        [node("IsInf", ["a"], detect_negative=0)], {"a": XS}, opset=10
    ),
    **{
        f"bitwise_{op.lower()}": Case(
            [node(f"Bitwise{op}", ["a", "b"])], {"a": I3, "b": J3}, opset=18
        )
        for op in ("And", "Or", "Xor")
    },
    "bitwise_not_uint8": Case([node("BitwiseNot", ["a"])], {"a": U3}, opset=18),
    "bitshift_left": Case(
        [node("BitShift", ["a", "b"], direction="LEFT")], {"a": U3, "b": S3}, opset=11
    ),
    "bitshift_right": Case(
        [node("BitShift", ["a", "b"], direction="RIGHT")], {"a": U3, "b": S3}, opset=11
    ),
    "mod_int": Case([node("Mod", ["a", "b"])], {"a": I3, "b": J3}, opset=13),
    "mod_int_fmod": Case(
        [node("Mod", ["a", "b"], fmod=1)], {"a": I3, "b": J3}, opset=13
    ),
    "mod_float_fmod": Case(
        [node("Mod", ["a", "b"], fmod=1)], {"a": XS * 7, "b": YS + 3}, opset=13
    ),
    **{
        op.lower(): Case([node(op, ["a"])], {"a": XS * 0.9 if op[0] == "A" else XS})
        for op in (
            "Erf",
            "Sin",
            "Cos",
            "Tan",
            "Asin",
            "Acos",
            "Atan",
            "Sinh",
            "Cosh",
            "Asinh",
            "Atanh",
            "Ceil",
            "Floor",
            "Round",
            "Sign",
        )
    },
    "acosh": Case([node("Acosh", ["a"])], {"a": np.abs(XS) + 1}),
    "sign_int": Case([node("Sign", ["a"])], {"a": I3}),
    "gelu": Case([node("Gelu", ["a"])], {"a": XS}, opset=20),
    "gelu_tanh": Case([node("Gelu", ["a"], approximate="tanh")], {"a": XS}, opset=20),
    "mish": Case([node("Mish", ["a"])], {"a": XS}, opset=18),
    "celu": Case([node("Celu", ["a"], alpha=2.0)], {"a": XS}, opset=12),
    "thresholded_relu": Case(
        [node("ThresholdedRelu", ["a"], alpha=0.5)], {"a": XS}, opset=10
    ),
    "shrink": Case([node("Shrink", ["a"], bias=0.5, lambd=1.0)], {"a": XS}, opset=9),
    # An empty graph input is known at import time: it has no elements.
    "reduce_sum_empty_axes_input": Case(
        [node("ReduceSum", ["a", "axes"], keepdims=1)],
        {"a": X3, "axes": np.zeros(0, np.int64)},
        opset=13,
    ),
    "reduce_sum_empty_axes_input_noop": Case(
        [node("ReduceSum", ["a", "axes"], keepdims=0, noop_with_empty_axes=1)],
        {"a": X3, "axes": np.zeros(0, np.int64)},
        opset=18,
    ),
    **{
        f"{op.lower()}_{variant}": Case(
            [node(op, ["a"], **attrs)], {"a": data}, opset=opset
        )
        for op in ("ArgMax", "ArgMin")
        for variant, attrs, data, opset in (
            ("default", {}, X3, 11),
            (
                "last_dropped",
                {"axis": -1, "keepdims": 0, "select_last_index": 1},
                np.round(X3),
                12,
            ),
            ("int", {"axis": 1}, I3, 13),
        )
    },
    "reduce_min_axes_input": Case(
        [node("ReduceMin", ["a", "axes"], keepdims=0)],
        {"a": X3},
        {"axes": ints(0, -1)},
        opset=18,
    ),
    "reduce_min_int": Case([node("ReduceMin", ["a"], axes=[1])], {"a": I3}, opset=13),
    "reduce_prod": Case(
        [node("ReduceProd", ["a"], axes=[1], keepdims=1)], {"a": X3 * 0.5 + 1}, opset=13
    ),
    "hardmax_ties": Case(
        [node("Hardmax", ["a"], axis=1)], {"a": np.round(X3)}, opset=13
    ),
    "hardmax_opset11_coerced": Case(
        [node("Hardmax", ["a"], axis=1)], {"a": rand(3, 4, 5)}, opset=11
    ),
    "trilu_upper": Case([node("Trilu", ["a"])], {"a": X3}, opset=14),
    "trilu_lower_run_time_k": Case(
        [node("Trilu", ["a", "k"], upper=0)],
        {"a": I3, "k": np.array(-2, np.int64)},
        opset=14,
    ),
    "gather_elements_longer_gather_axis": Case(
        [node("GatherElements", ["a", "i"], axis=1)],
        {"a": X3, "i": rng.integers(-17, 17, (2, 33, 5))},
        opset=13,
    ),
    "gather_elements_int_negative_axis": Case(
        [node("GatherElements", ["a", "i"], axis=-2)],
        {"a": I3, "i": rng.integers(-3, 3, (5, 1)).astype(np.int32)},
        opset=11,
    ),
}
"""Comparisons, logic, bit ops, select, mod and unary math (special values,
broadcasting, ints)."""
CASES.update(LOGIC_AND_MATH)


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_node_models_match_onnxruntime(name: str):
    check_case(CASES[name])


# ---------------------------------------------------------------------------
# The IR the importer writes
# ---------------------------------------------------------------------------


def test_conv_follows_ge_attribute_conventions():
    module = check_case(CASES["conv_pads_strides"])
    (conv,) = compute_ops(module)
    attrs = python_attributes(conv)
    assert conv.name == "ge.conv2d"
    assert attrs["data_format"] == "NCHW"
    assert attrs["pads"] == [1, 2, 0, 1]  # ONNX [t, l, b, r] -> ge [t, b, l, r]
    assert attrs["strides"] == [1, 1, 2, 1]
    assert attrs["dilations"] == [1, 1, 1, 1]
    assert attrs["name"] == "Conv"


def test_auto_pad_is_computed_into_pads():
    same_upper = compute_ops(check_case(CASES["conv_same_upper"]))[0]
    # H: 7 -> 4 outputs, total 3 (1 before, 2 after); W: 5 -> 3, total 2.
    assert python_attributes(same_upper)["pads"] == [1, 2, 1, 1]
    same_lower = compute_ops(check_case(CASES["conv_same_lower"]))[0]
    # H: 7 -> 4, total 3 (2 before); W: 5 -> 2 (stride 3), total 0.
    assert python_attributes(same_lower)["pads"] == [2, 1, 0, 0]


def test_every_windowed_op_is_an_nchw_anchor():
    names = [
        "conv_1d",
        "conv_transpose",
        "max_pool_ceil",
        "avg_pool_count_pad",
        "global_avg_pool",
        "batch_norm_opset7",
        "instance_norm_rank3",
        "lrn",
    ]
    for name in names:
        anchors = [
            op
            for op in compute_ops(check_case(CASES[name]))
            if "data_format" in op.attributes
        ]
        assert anchors, name
        assert all(python_attributes(op)["data_format"] == "NCHW" for op in anchors)


def test_1d_conv_runs_as_2d_over_an_inserted_axis():
    module = check_case(CASES["conv_1d"])
    assert [op.name for op in compute_ops(module)] == [
        "ge.unsqueeze",
        "ge.conv2d",
        "ge.squeeze",
    ]
    conv = compute_ops(module)[1]
    assert python_attributes(conv)["pads"] == [0, 0, 2, 1]
    assert python_attributes(conv)["strides"] == [1, 1, 1, 2]
    assert python_attributes(conv)["dilations"] == [1, 1, 1, 2]


def test_softmax_before_opset_13_flattens_at_axis():
    module = check_case(CASES["softmax_opset11_axis1"])
    assert [op.name for op in compute_ops(module)] == [
        "ge.flatten",
        "ge.softmax",
        "ge.reshape",
    ]
    module = check_case(CASES["softmax_opset13_axis1"])
    (softmax,) = compute_ops(module)
    assert python_attributes(softmax)["axis"] == 1


def test_matmul_rank_picks_the_ge_op():
    assert [op.name for op in compute_ops(check_case(CASES["matmul_2d"]))] == [
        "ge.matmul"
    ]
    assert [op.name for op in compute_ops(check_case(CASES["matmul_batched"]))] == [
        "ge.batch_matmul"
    ]


def test_shape_arithmetic_is_folded_away():
    module = check_case(CASES["shape_arithmetic"])
    (reshape,) = compute_ops(module)
    assert python_attributes(reshape)["shape"] == [2, -1]


def test_dropout_and_identity_become_ge_identity():
    assert [op.name for op in compute_ops(check_case(CASES["dropout_opset7"]))] == [
        "ge.identity"
    ]


def test_local_functions_are_inlined():
    function = helper.make_function(
        "local",
        "NegRelu",
        ["a"],
        ["b"],
        [helper.make_node("Neg", ["a"], ["n"]), helper.make_node("Relu", ["n"], ["b"])],
        [helper.make_opsetid("", 13)],
    )
    model = CASES["identity"].model([value_info("y", X4)])
    model.graph.node[0].CopyFrom(
        helper.make_node("NegRelu", ["x"], ["y"], domain="local")
    )
    model.opset_import.append(helper.make_opsetid("local", 1))
    model.functions.append(function)
    imported = import_onnx(model)
    assert [op.name for op in compute_ops(imported.module)] == ["ge.neg", "ge.relu"]
    (y,) = evaluate(imported.module, {"x": X4}, weights={})
    assert_close(y, np.maximum(-X4, 0))


def test_names_are_kept():
    module = check_case(CASES["binary_broadcast"])
    data = [op for op in ops_of(module) if isinstance(op, DataOp)]
    assert [d.attributes["name"] for d in data] == [StringAttr("x")]
    assert [python_attributes(op)["name"] for op in compute_ops(module)] == [
        "Add",
        "Sub",
        "Mul",
        "Div",
    ]
    consts = [op for op in ops_of(module) if isinstance(op, ConstOp)]
    assert [python_attributes(c)["name"] for c in consts] == ["a", "b", "c", "d"]
    output = ops_of(module)[-1]
    assert python_attributes(output)["output_names"] == ["y"]


def test_unnamed_nodes_take_their_output_name():
    case = Case(
        [helper.make_node("Relu", ["x"], ["relu_out"])],
        {"x": X4},
        outputs=("relu_out",),
    )
    (relu,) = compute_ops(check_case(case))
    assert python_attributes(relu)["name"] == "relu_out"


DYNAMIC_WEIGHT = rand(4, 3, 3, 3)


def dynamic_model() -> onnx.ModelProto:
    graph = helper.make_graph(
        [
            node("Conv", ["x", "w"], pads=[1, 1, 1, 1]),
        ],
        "dynamic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, None, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, None, 5])],
        [numpy_helper.from_array(DYNAMIC_WEIGHT, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_dynamic_dims_become_question_marks():
    module = import_onnx(dynamic_model()).module
    (data,) = [op for op in ops_of(module) if isinstance(op, DataOp)]
    assert shape_of(data.output) == (-1, 3, -1, 5)
    assert "tensor<?x3x?x5xf32>" in str(module)
    x = rand(2, 3, 6, 5)
    (y,) = evaluate(module, {"x": x}, weights={})
    (expected,) = ort_run(dynamic_model(), {"x": x})
    assert_close(y, expected)


def test_input_shapes_fix_dynamic_dims():
    module = import_onnx(dynamic_model(), input_shapes={"x": [2, 3, 6, -1]}).module
    (data,) = [op for op in ops_of(module) if isinstance(op, DataOp)]
    assert data.output.type.get_shape() == (2, 3, 6, 5)
    assert compute_ops(module)[0].results[0].type.get_shape() == (2, 4, 6, 5)


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (
            {"nope": [1, 3, 4, 5]},
            "an input shape is given for 'nope', but the graph inputs are: x",
        ),
        ({"x": [1, 3, 4]}, "has rank 3, the model's has rank 4"),
        ({"x": [1, 4, 4, 5]}, "sets dim 1 to 4, the model fixes it to 3"),
    ],
)
def test_bad_input_shapes_are_one_line_errors(shapes, message):
    with pytest.raises(GEError, match=message):
        import_onnx(dynamic_model(), input_shapes=shapes)


def test_parse_input_shapes():
    assert parse_input_shapes("data:1,3,224,224; gpu_0/x:y:8,-1") == {
        "data": [1, 3, 224, 224],
        "gpu_0/x:y": [8, -1],
    }
    for bad in ["data", "data:1,a", ":1", "a:1;a:2", ";", "a:1,-2"]:
        with pytest.raises(GEError):
            parse_input_shapes(bad)


WEIGHTS_CASE = Case(
    [
        node("MatMul", ["x", "w"], ["t"]),
        node("Add", ["t", "b"], ["u"]),
        node("Mul", ["u", "half"]),
    ],
    {"x": rand(2, 40)},
    {"w": rand(40, 33), "b": rand(33), "half": np.full((2, 33), 0.5, np.float32)},
)


def test_large_constants_are_external_small_inline_splats_compact():
    model, expected = WEIGHTS_CASE.reference()
    imported = import_onnx(model)
    consts = {
        python_attributes(op)["name"]: op
        for op in ops_of(imported.module)
        if isinstance(op, ConstOp)
    }
    assert isinstance(consts["w"].value, ExternalDataAttr)
    assert consts["w"].value.key.data == "w"
    assert set(imported.weights) == {"w"}
    np.testing.assert_array_equal(
        imported.weights["w"], numpy_helper.to_array(model.graph.initializer[0])
    )
    assert not isinstance(consts["b"].value, ExternalDataAttr)
    assert "dense<5.000000e-01> : tensor<2x33xf32>" in str(imported.module)
    (got,) = evaluate(imported.module, WEIGHTS_CASE.inputs, weights=imported.weights)
    assert_close(got, expected[0])


def test_inline_weights_and_inline_limit():
    model, _ = WEIGHTS_CASE.reference()
    assert import_onnx(model, weights="inline").weights == {}
    assert "dense<[" in str(import_onnx(model, weights="inline").module)
    assert set(import_onnx(model, inline_limit=10).weights) == {"w", "b"}
    with pytest.raises(GEError, match="weights must be one of inline, external"):
        import_onnx(model, weights="separate")


def test_imported_module_round_trips_through_text():
    model, _ = WEIGHTS_CASE.reference()
    module = import_onnx(model).module
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    assert str(parse_module(ctx, str(module))) == str(module)


# ---------------------------------------------------------------------------
# Ops ONNX defines as functions
# ---------------------------------------------------------------------------


FUNCTION_CASES = {
    "mean_variance_normalization": Case(
        [node("MeanVarianceNormalization", ["x"])], {"x": X4}
    ),
    "layer_normalization_three_outputs": Case(
        [node("LayerNormalization", ["x", "s", "b"], ["y", "m", "r"], axis=-2)],
        {"x": X3},
        {"s": rand(17, 9), "b": rand(17, 9)},
        opset=17,
        outputs=("y", "m", "r"),
    ),
    "group_normalization": Case(
        [node("GroupNormalization", ["x", "s", "b"], num_groups=3, epsilon=1e-3)],
        {"x": rand(2, 6, 5)},
        {"s": rand(6), "b": rand(6)},
        opset=21,
    ),
}


@pytest.mark.parametrize("name", sorted(FUNCTION_CASES))
def test_function_ops_import_as_their_body(name: str):
    """No converter: the op's ONNX function body is imported (matching
    onnxruntime), its nodes named inside the node's (`NODE/...`)."""
    module = check_case(FUNCTION_CASES[name])
    names = [op.attributes["name"].data for op in compute_ops(module)]
    assert names and all("/" in n for n in names), names


def test_a_function_body_resolves_attributes_and_defaults():
    from ge_frontend.onnx_functions import function_body

    celu = helper.make_node("Celu", ["x"], ["y"], alpha=2.0)
    body = function_body(celu, 13, [onnx.TypeProto()])
    assert body is not None and body.opset <= 13
    attributes = [a for n in body.nodes for a in n.attribute]
    assert not any(a.ref_attr_name for a in attributes)
    constants = [
        numpy_helper.to_array(a.t).item()
        for a in attributes
        if a.type == onnx.AttributeProto.TENSOR
    ]
    assert constants == [2.0]  # alpha, from the node (the default is 1.0)
    assert body.nodes[-1].output == ["y"]
    assert all(n.name.startswith("y/") for n in body.nodes)
    assert all(i == "x" or i.startswith("y/") for n in body.nodes for i in n.input)
    assert function_body(helper.make_node("Relu", ["x"], ["y"]), 13, []) is None


# ---------------------------------------------------------------------------
# Unsupported ops
# ---------------------------------------------------------------------------


def two_unsupported_ops_model() -> onnx.ModelProto:
    nodes = [
        node("Relu", ["x"], ["r"]),
        helper.make_node("RandomUniformLike", ["r"], ["e1"], name="rand_a"),
        helper.make_node("RandomUniformLike", ["e1"], ["e2"], name="rand_b"),
        helper.make_node("Mystery", ["r"], ["m"], name="mystery", domain="my.domain"),
        node("Add", ["e2", "m"]),
    ]
    graph = helper.make_graph(
        nodes,
        "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("my.domain", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def test_unsupported_ops_are_listed_in_one_error():
    with pytest.raises(GEError) as info:
        import_onnx(two_unsupported_ops_model())
    assert str(info.value) == (
        "<onnx model>: error: unsupported ONNX ops: RandomUniformLike (nodes: rand_a, "
        "rand_b); "
        "my.domain.Mystery (nodes: mystery)"
    )


def test_an_unnamed_node_is_named_by_its_first_named_output():
    """An LSTM-like node whose first output is unused (`""`) is named by the
    next one, not by the empty string."""
    graph = helper.make_graph(
        [helper.make_node("Mystery", ["x"], ["", "h"], domain="my.domain")],
        "unnamed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, [2, 3])],
    )
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("my.domain", 1)]
    with pytest.raises(GEError) as info:
        import_onnx(helper.make_model(graph, opset_imports=opsets))
    assert str(info.value).endswith("my.domain.Mystery (nodes: h)")


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            Case(
                [node("Dropout", ["x", "ratio", "training"])],
                {"x": X4},
                {"ratio": np.array(0.5, np.float32), "training": np.array(True)},
                opset=13,
            ),
            "Dropout in training mode with ratio 0.5 (a random mask) (nodes: Dropout)",
        ),
        (
            Case(
                [node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2, 2])],
                {"x": rand(1, 2, 3, 3, 3)},
                opset=12,
                outputs=("y", "i"),
            ),
            "MaxPool with its Indices output on 3-D spatial input (nodes: MaxPool)",
        ),
        (
            Case(
                [node("Conv", ["x", "w"])],
                {"x": rand(1, 2, 3, 3, 3, 3)},
                {"w": rand(2, 2, 1, 1, 1, 1)},
            ),
            "Conv with 4-D spatial input (nodes: Conv)",
        ),
    ],
    ids=[
        "dropout_training",
        "pool_indices",
        "conv4d",
    ],
)
def test_unsupported_configurations(case: Case, message: str):
    model, _ = case.reference()
    with pytest.raises(GEError, match=re.escape(f"unsupported ONNX ops: {message}")):
        import_onnx(model)


def test_allowzero_reshape_to_a_run_time_shape_runs_and_refuses_a_zero():
    """The dynamo exporter's `view`: Reshape(allowzero=1) to a shape computed
    at run time; a 0 entry (an empty dim) is an error when it runs."""
    case = Case(
        [node("Reshape", ["x", "s"], allowzero=1)],
        {"x": rand(3, 17, 2), "s": ints(17, -1, 3)},
        opset=14,
    )
    module = check_case(case)
    (reshape,) = [op for op in ops_of(module) if op.name == "ge.dynamic_reshape"]
    assert reshape.value_of("allowzero")
    with pytest.raises(GEError, match=r"shape \[0, 34, 3\] has a 0 entry with allowz"):
        evaluate(module, {"x": rand(3, 17, 2), "s": ints(0, 34, 3)}, weights={})


def test_a_node_refused_on_dynamic_dims_suggests_input_shape():
    """The refusal names the graph inputs' dynamic dims as `--input_shape`
    takes them; given fixed dims, the model compiles."""
    graph = helper.make_graph(
        [node("MaxPool", ["x"], kernel_shape=[3, 3], auto_pad="SAME_UPPER")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "h", 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, "h", 17])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    with pytest.raises(GEError) as error:
        import_onnx(model)
    assert str(error.value) == (
        "<onnx model>: error: unsupported ONNX ops: MaxPool with auto_pad "
        "SAME_UPPER on dynamic spatial dims (nodes: MaxPool) (they read dynamic "
        'dims: --input_shape="x:batch,3,h,17" with numbers for the dynamic dims '
        "may compile them)"
    )
    x = rand(2, 3, 5, 17)
    fixed = import_onnx(model, input_shapes={"x": [2, 3, 5, 17]})
    (ours,) = evaluate(fixed.module, {"x": x}, weights={})
    np.testing.assert_array_equal(ours, ort_run(model, {"x": x})[0])


def test_nodes_after_an_unsupported_one_are_not_reported():
    """A function-defined op (LayerNormalization) reading an unsupported
    node's output is downstream of it, not unsupported itself."""
    graph = helper.make_graph(
        [
            node("RandomUniformLike", ["x"], ["r"]),
            node("LayerNormalization", ["r", "s"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 17])],
        [numpy_helper.from_array(rand(17), "s")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(GEError) as error:
        import_onnx(model)
    assert str(error.value).endswith(
        "unsupported ONNX ops: RandomUniformLike (nodes: RandomUniformLike)"
    )


# ---------------------------------------------------------------------------
# Control flow: If
# ---------------------------------------------------------------------------

BRANCHES = Path(__file__).parent / "filecheck" / "ge-translate" / "models"


def branch(name: str, nodes: list[onnx.NodeProto], output: str, shape) -> Any:
    """A branch graph without inputs, one float output."""
    return helper.make_graph(
        nodes,
        name,
        [],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)],
    )


def if_model(then_graph, else_graph, x_shape=(3, 5)) -> onnx.ModelProto:
    """`y = If(c)` over a bool input `c` and a float input `x`."""
    graph = helper.make_graph(
        [
            helper.make_node(
                "If",
                ["c"],
                ["y"],
                name="if",
                then_branch=then_graph,
                else_branch=else_graph,
            )
        ],
        "if",
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape)),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(x_shape))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("c", [True, False])
@pytest.mark.parametrize("d", [True, False])
def test_nested_if_matches_onnxruntime(c: bool, d: bool):
    model = onnx.load(BRANCHES / "branches.onnxtxt")
    imported = import_onnx(model)
    feeds = {"c": np.array(c), "d": np.array(d), "x": rand(3, 5)}
    ours = evaluate(imported.module, feeds, weights=imported.weights)
    for mine, ref in zip(ours, ort_run(model, feeds), strict=True):
        assert_close(mine, ref)


def test_if_on_a_known_condition_inlines_the_branch_taken():
    model = onnx.load(BRANCHES / "branches.onnxtxt")
    ops = [op.name for op in import_onnx(model).module.walk()]
    assert ops.count("ge.if") == 2  # y's If and the If nested in it; not k's
    assert "ge.abs" in ops and "ge.exp" not in ops


def test_if_branches_of_different_types_are_refused():
    then_graph = branch("then", [node("Relu", ["x"], ["t"])], "t", [3, 5])
    else_graph = branch("else", [node("ReduceSum", ["x"], ["e"], keepdims=0)], "e", [])
    with pytest.raises(GEError) as info:
        import_onnx(if_model(then_graph, else_graph))
    assert str(info.value) == (
        "<onnx model>: error: unsupported ONNX ops: If whose branches give output "
        "#0 different types (tensor<3x5xf32> and tensor<f32>) (nodes: if)"
    )


def test_an_unsupported_op_in_a_branch_is_reported_once():
    then_graph = branch(
        "then",
        [helper.make_node("RandomUniformLike", ["x"], ["t"], name="rand")],
        "t",
        [3, 5],
    )
    else_graph = branch("else", [node("Neg", ["x"], ["e"])], "e", [3, 5])
    with pytest.raises(GEError) as info:
        import_onnx(if_model(then_graph, else_graph))
    assert str(info.value).endswith(
        "unsupported ONNX ops: RandomUniformLike (nodes: rand)"
    )


# ---------------------------------------------------------------------------
# The ONNX package's test models
# ---------------------------------------------------------------------------


def load_tensors(directory: Path, prefix: str) -> list[np.ndarray]:
    """`prefix_<i>.pb` tensors of a test data set, in order."""
    files = sorted(
        directory.glob(f"{prefix}_*.pb"), key=lambda p: int(p.stem.split("_")[-1])
    )
    return [numpy_helper.to_array(onnx.load_tensor(str(f))) for f in files]


def run_pytorch_case(case: Path) -> str | None:
    """None if the case imports and matches its stored outputs, else why not."""
    imported = import_onnx(case / "model.onnx")
    data = case / "test_data_set_0"
    inputs = dict(zip(imported.input_names, load_tensors(data, "input"), strict=True))
    expected = load_tensors(data, "output")
    try:
        got = evaluate(imported.module, inputs, weights=imported.weights)
        assert len(got) == len(expected), (
            f"{len(got)} outputs, expected {len(expected)}"
        )
        for ours, ref in zip(got, expected, strict=True):
            assert_close(ours, ref, 1e-3)
    except (AssertionError, GEError) as error:
        return " ".join(str(error).split())[:200]
    return None


EXPECTED_UNSUPPORTED: set[str] = set()


def test_pytorch_cases_match_their_expected_outputs():
    passed, failures, unsupported = [], {}, {}
    for case in PYTORCH_CASES:
        try:
            reason = run_pytorch_case(case)
        except GEError as error:
            if "unsupported ONNX ops" not in str(error):
                raise
            unsupported[case.name] = str(error).split("unsupported ONNX ops: ")[1]
            continue
        if reason is None:
            passed.append(case.name)
        else:
            failures[case.name] = reason
    supported = len(passed) + len(failures)
    assert len(passed) >= 0.8 * supported, (
        f"{len(passed)}/{supported} supported cases pass; failing: {failures}"
    )
    kinds = {kind.split(" (nodes")[0] for kind in unsupported.values()}
    assert kinds == EXPECTED_UNSUPPORTED


@pytest.mark.parametrize("path", LIGHT, ids=[p.stem for p in LIGHT])
def test_light_models_import(path: Path):
    imported = import_onnx(path)
    ops = compute_ops(imported.module)
    convs = [op for op in ops if op.name == "ge.conv2d"]
    model = onnx.load(str(path))
    assert len(convs) == sum(n.op_type == "Conv" for n in model.graph.node)
    assert all(python_attributes(op)["data_format"] == "NCHW" for op in convs)
    (output,) = ops_of(imported.module)[-1].operands
    assert output.type.get_shape() in [(1, 1000), (1, 1000, 1, 1)]
    assert imported.weights == {}  # placeholder weights are splats, kept inline


def with_logits(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with the input of its last Softmax as an extra output."""
    softmax = [n for n in model.graph.node if n.op_type == "Softmax"]
    if softmax:
        inferred = onnx.shape_inference.infer_shapes(model).graph.value_info
        info = {v.name: v for v in inferred}
        model.graph.output.append(info[softmax[-1].input[0]])
    return model


def check_light_model(path: Path) -> None:
    """Random weights: the reference evaluator matches onnxruntime (logits too)."""
    model = with_logits(randomize_weights(onnx.load(str(path)), seed=0))
    imported = import_onnx(model)
    (name,) = imported.input_names
    data = model.graph.input[[i.name for i in model.graph.input].index(name)]
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    expected = ort_run(model, {name: x})
    got = evaluate(imported.module, {name: x}, weights=imported.weights)
    for ours, ref in zip(got, expected, strict=True):
        assert_close(ours, ref, 1e-3)


SMALL_LIGHT = {"light_squeezenet", "light_inception_v1", "light_shufflenet"}
"""Light models fast enough for every run; the others are marked slow."""


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=[] if p.stem in SMALL_LIGHT else [pytest.mark.slow])
        for p in LIGHT
    ],
    ids=[p.stem for p in LIGHT],
)
def test_light_models_match_onnxruntime(path: Path):
    check_light_model(path)


def test_randomize_weights():
    model = onnx.load(light_model_path("shufflenet"))
    a, b, c = (randomize_weights(model, seed) for seed in (0, 0, 1))
    assert a == b and a != c
    assert not any(n.op_type == "ConstantOfShape" for n in a.graph.node)
    onnx.checker.check_model(a)
    inits = {i.name: numpy_helper.to_array(i) for i in a.graph.initializer}
    variances = [
        inits[n.input[4]]
        for n in a.graph.node
        if n.op_type == "BatchNormalization" and n.input[4] in inits
    ]
    assert variances and all((v > 0).all() for v in variances)
    first_conv = next(n for n in a.graph.node if n.op_type == "Conv")
    weight = inits[first_conv.input[1]]
    assert weight.shape == (24, 3, 3, 3)
    assert 0.8 < weight.std() * np.sqrt(3 * 3 * 3) < 1.2  # ~ N(0, 1 / fan_in)


# ---------------------------------------------------------------------------
# ge-translate
# ---------------------------------------------------------------------------


def translate(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `ge-translate` as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "tools.ge_translate", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_ge_translate_writes_mlir_and_weights(tmp_path: Path):
    model, expected = WEIGHTS_CASE.reference()
    onnx.save(model, tmp_path / "mm.onnx")
    result = translate(
        "--import-onnx", str(tmp_path / "mm.onnx"), "-o", str(tmp_path / "mm.mlir")
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "mm.mlir",
        "mm.onnx",
        "mm.weights.npz",
    ]
    text = (tmp_path / "mm.mlir").read_text()
    assert 'attributes {ge.weights = "mm.weights.npz"}' in text
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    module = parse_module(ctx, text, "mm.mlir")
    weights = load_weights(module, tmp_path / "mm.mlir")
    assert set(weights) == {"w"}
    (got,) = evaluate(module, WEIGHTS_CASE.inputs, weights=weights)
    assert_close(got, expected[0])


def test_ge_translate_inline_weights_to_stdout(tmp_path: Path):
    model, _ = WEIGHTS_CASE.reference()
    onnx.save(model, tmp_path / "mm.onnx")
    result = translate("--import-onnx", str(tmp_path / "mm.onnx"), "--inline-weights")
    assert result.returncode == 0, result.stderr
    assert "ge.matmul" in result.stdout and "ge.weights" not in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mm.onnx"]


def write_bad_inputs(tmp_path: Path) -> dict[str, Path]:
    """Files that are not importable ONNX models."""
    model, _ = WEIGHTS_CASE.reference()
    good = model.SerializeToString()
    paths = {
        "truncated": good[: len(good) // 2],
        "random": np.random.default_rng(3).bytes(3000),
        "empty": b"",
        "unsupported": two_unsupported_ops_model().SerializeToString(),
    }
    files = {}
    for name, blob in paths.items():
        files[name] = tmp_path / f"{name}.onnx"
        files[name].write_bytes(blob)
    files["missing"] = tmp_path / "missing.onnx"
    files["directory"] = tmp_path
    return files


BAD_INPUT_MESSAGES = {
    "truncated": "truncated.onnx: error: not a readable ONNX model",
    "random": "random.onnx: error: not a readable ONNX model",
    "empty": "empty.onnx: error: not an ONNX model (it has no graph)",
    "unsupported": "unsupported.onnx: error: unsupported ONNX ops: RandomUniformLike "
    "(nodes: rand_a, rand_b); my.domain.Mystery (nodes: mystery)",
    "missing": "error: cannot open ONNX model '{path}': no such file",
    "directory": "error: cannot open ONNX model '{path}': is a directory",
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUT_MESSAGES))
def test_ge_translate_bad_inputs_fail_cleanly(tmp_path: Path, kind: str):
    path = write_bad_inputs(tmp_path)[kind]
    out = tmp_path / "out" / "model.mlir"
    out.parent.mkdir()
    result = translate("--import-onnx", str(path), "-o", str(out))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert BAD_INPUT_MESSAGES[kind].format(path=path) in lines[0]
    assert list(out.parent.iterdir()) == []
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "one of the arguments --import-onnx --import-tf is required"),
        (["--import-onnx", "m.onnx", "--bogus"], "unrecognized arguments: --bogus"),
        (
            ["--import-onnx", "m.onnx", "--input-shape", "x:1,y"],
            "bad input shape 'x:1,y'",
        ),
        (
            ["--import-onnx", "m.onnx", "--inline-limit", "-1"],
            "--inline-limit must be >= 0",
        ),
        (
            ["--import-onnx", "m.onnx", "-o", "no/such/dir/m.mlir"],
            "output directory 'no/such/dir' does not exist",
        ),
    ],
)
def test_ge_translate_bad_flags(args: list[str], message: str, capsys):
    assert ge_translate.main(args) == 1
    stderr = capsys.readouterr().err
    assert message in stderr and len(stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------------
# Shape and Size on dynamic dims
# ---------------------------------------------------------------------------


def shape_model() -> onnx.ModelProto:
    """Shape (all dims, and from dim 1), Size of an input with a dynamic batch."""
    graph = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["s"], name="s"),
            helper.make_node("Shape", ["x"], ["tail"], name="tail", start=-2),
            helper.make_node("Size", ["x"], ["n"], name="n"),
        ],
        "shapes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 5])],
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, shape)
            for name, shape in (("s", [3]), ("tail", [2]), ("n", []))
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


@pytest.mark.parametrize("batch", [1, 3])
def test_shape_of_dynamic_dims_is_computed_at_run_time(batch: int):
    from ge_runtime.engines.scheduler import compile_model

    imported = import_onnx(shape_model())
    ops = [op.name for op in ops_of(imported.module)]
    assert ops.count("ge.shape") == 1 and "ge.size" in ops  # the tail folded
    model = compile_model(imported.module, imported.weights)
    assert model.mode == "host"
    feeds = {"x": rand(batch, 3, 5)}
    for ours, ref in zip(model.run(feeds), ort_run(shape_model(), feeds), strict=True):
        np.testing.assert_array_equal(ours, ref)


def test_shape_of_frozen_dims_folds_at_import():
    imported = import_onnx(shape_model(), input_shapes={"x": [2, 3, 5]})
    assert compute_ops(imported.module) == []
    assert evaluate(imported.module, {"x": rand(2, 3, 5)}, weights={})[0].tolist() == [
        2,
        3,
        5,
    ]


def test_a_minus_one_input_dim_is_dynamic_and_other_negatives_are_errors():
    """Exporters (paddle2onnx) write a dynamic dim as `dim_value: -1`."""

    def relu_of(dims: list[int]) -> onnx.ModelProto:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [])
        x.type.tensor_type.shape.ClearField("dim")
        for dim in dims:
            x.type.tensor_type.shape.dim.add().dim_value = dim
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])
        graph = helper.make_graph([node("Relu", ["x"])], "g", [x], [y])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    (data,) = [
        op
        for op in ops_of(import_onnx(relu_of([-1, 3])).module)
        if isinstance(op, DataOp)
    ]
    assert shape_of(data.results[0]) == (-1, 3)
    fixed = import_onnx(relu_of([-1, 3]), input_shapes={"x": [2, 3]}).module
    (data,) = [op for op in ops_of(fixed) if isinstance(op, DataOp)]
    assert shape_of(data.results[0]) == (2, 3)
    with pytest.raises(GEError) as error:
        import_onnx(relu_of([-2, 3]))
    assert str(error.value) == (
        "<onnx model>: error: graph input 'x' has dim 0 = -2 (a dim is >= 0, or -1 "
        "or no dim_value when dynamic)"
    )


def stale_output_model() -> onnx.ModelProto:
    """A transpose of [16, 1, 17] whose output is declared `[1, -1]` (a
    CNN+BiLSTM export's stale annotation: it computes [16, 1, 8210])."""
    graph = helper.make_graph(
        [node("Transpose", ["x"], perm=[1, 0, 2])],
        "stale",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "n"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_declared_output_shape_the_graph_disagrees_with_is_a_warning(caplog):
    """onnxruntime warns and runs such a model: so do we, with the computed
    shape."""
    with caplog.at_level("WARNING", logger="ge_frontend"):
        imported = import_onnx(stale_output_model())
    assert caplog.messages == [
        "<onnx model>: graph output 'y' is declared with shape [1, -1], the graph "
        "computes [16, 1, 17]: the computed shape is used"
    ]
    x = rand(1, 16, 17)
    (ours,) = evaluate(imported.module, {"x": x}, weights={})
    (ref,) = ort_run(stale_output_model(), {"x": x})
    assert ours.shape == ref.shape == (16, 1, 17)
    np.testing.assert_array_equal(ours, ref)


def test_ge_atc_compiles_a_stale_output_shape_with_one_warning(tmp_path, capsys):
    from tools import ge_atc

    path = tmp_path / "stale.onnx"
    onnx.save(stale_output_model(), path)
    code = ge_atc.main([f"--model={path}", "--framework=5", f"--output={tmp_path}/m"])
    err = capsys.readouterr().err
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert warnings == [
        f"ge-atc: warning: {path}: graph output 'y' is declared with shape [1, -1], "
        "the graph computes [16, 1, 17]: the computed shape is used"
    ]
    assert (tmp_path / "m.om").exists()


def test_a_declared_output_dtype_the_graph_disagrees_with_is_an_error():
    model = stale_output_model()
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    with pytest.raises(GEError, match="graph output 'y' is declared INT64, the graph"):
        import_onnx(model)


@pytest.mark.parametrize(
    ("batch_axis", "time_axis", "shape"),
    [(1, 0, (5, 3, 17)), (0, 1, (3, 5, 2, 3)), (1, 0, (17, 3))],
)
def test_reverse_sequence_runs_on_the_jit(batch_axis, time_axis, shape, tmp_path):
    """Each batch entry's first L[b] steps reversed (L = the whole sequence,
    one step, and in between), special values carried along."""
    from onnx_jit import assert_runs_on_the_jit, one_node_model

    x = rand(*shape)
    x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan]
    lengths = np.array([shape[time_axis], 1, 2][: shape[batch_axis]], np.int64)
    lengths = np.resize(lengths, shape[batch_axis])
    inputs = {"x": x, "sequence_lens": lengths}
    model = one_node_model(
        "ReverseSequence", inputs, opset=10, batch_axis=batch_axis, time_axis=time_axis
    )
    assert_runs_on_the_jit(model, inputs, tmp_path)


@pytest.mark.parametrize(
    ("k", "dtype"), [(0, None), (2, TensorProto.INT32), (-1, None)]
)
def test_eye_like_is_a_constant_of_the_input_shape(k, dtype, tmp_path):
    from onnx_jit import (
        assert_runs_on_the_jit,
        one_node_model,
        onnxruntime_outputs,
        with_output_types,
    )

    options = {} if dtype is None else {"dtype": dtype}
    x = rand(3, 17)
    model = one_node_model("EyeLike", {"x": x}, opset=9, k=k, **options)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path)
    typed = with_output_types(model, onnxruntime_outputs(model, {"x": x}))
    imported = import_onnx(typed)
    assert [op.name for op in ops_of(imported.module)].count("ge.const") == 1


@pytest.mark.parametrize(
    "pads",
    [
        [0, 0, 1, 2, 0, 0, 2, 1],  # within the axis
        [0, 1, 7, 0, 0, 2, 0, 11],  # several turns around an axis
        [0, 0, -1, 3, 0, 0, 2, -2],  # crops, then wraps the rest
    ],
)
def test_wrap_pad_runs_on_the_jit(pads, tmp_path):
    """Pad mode 'wrap' (opset 19) with pads given at run time."""
    from onnx_jit import assert_runs_on_the_jit, one_node_model

    x = rand(1, 3, 4, 5)
    x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan]
    inputs = {"x": x, "pads": ints(*pads)}
    model = one_node_model("Pad", inputs, opset=19, mode="wrap")
    assert_runs_on_the_jit(model, inputs, tmp_path)


BITCASTS = {
    "float32_to_int32": (
        np.array([[1.0, -0.0, np.inf], [np.nan, 3e-39, -2.5]]),
        "int32",
    ),
    "int32_to_float32": (np.array([1065353216, -1, 2139095040], np.int32), "float32"),
    "float64_to_int64": (np.array([1.0, -np.inf, 1e-310]), "int64"),
    "uint32_to_float32": (np.array([4294967295, 8388608, 17], np.uint32), "float32"),
    "float16_to_int16": (np.array([1.5, -0.0, np.inf], np.float16), "int16"),
    "int8_to_uint8": (np.array([-1, 5, -128], np.int8), "uint8"),
    "bool_to_uint8": (np.array([True, False, True]), "uint8"),
}


@pytest.mark.parametrize("name", sorted(BITCASTS))
def test_bitcast_reinterprets_bits_on_the_jit(name, tmp_path):
    """ONNX BitCast (opset 26) against NumPy's view of the same bytes (the
    onnx reference's definition; onnxruntime has no bool BitCast)."""
    from onnx_jit import assert_runs_on_the_jit, one_node_model

    values, target = BITCASTS[name]
    x = (
        values.astype(np.float32)
        if values.dtype == np.float64 and "32" in name
        else values
    )
    to = helper.np_dtype_to_tensor_dtype(np.dtype(target))
    model = one_node_model("BitCast", {"x": x}, opset=26, to=to)
    assert_runs_on_the_jit(model, {"x": x}, tmp_path, [x.view(target)])


def test_bitcast_between_widths_is_one_line():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [3])
    to = TensorProto.INT64
    graph = helper.make_graph([node("BitCast", ["x"], to=to)], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    with pytest.raises(GEError, match=r"cannot bitcast float32 \(32 bits\) to int64"):
        import_onnx(model)


@pytest.mark.parametrize(
    ("mode", "axis", "with_indices"),
    [("linear", -2, True), ("circular", 2, True), ("linear", 1, False)],
)
def test_tensor_scatter_writes_the_kv_cache_on_the_jit(
    mode, axis, with_indices, tmp_path
):
    """TensorScatter (opset 24) against the onnx reference: a [3, 5, 17, 4]
    cache, 3 new steps at per-batch write indices (wrapping around in
    circular mode)."""
    from onnx.reference import ReferenceEvaluator
    from onnx_jit import assert_runs_on_the_jit, one_node_model

    cache = rand(3, 5, 17, 4)
    update_shape = list(cache.shape)
    update_shape[axis] = 3
    inputs = {"past_cache": cache, "update": rand(*update_shape)}
    if with_indices:
        length = cache.shape[axis]
        last = length - 3 if mode == "linear" else length - 1
        inputs["write_indices"] = np.array([0, 7, last], np.int64)
    model = one_node_model("TensorScatter", inputs, opset=24, mode=mode, axis=axis)
    expected = ReferenceEvaluator(model).run(None, inputs)
    assert_runs_on_the_jit(model, inputs, tmp_path, expected)


DETERMINANTS = {
    "2x2": rand(2, 2),
    "batched_3x3": rand(17, 3, 3),
    "nested_batch_5x5": rand(2, 3, 5, 5),
    "singular": np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], np.float32),
    "zeros": np.zeros((3, 3), np.float32),
    "permutation": np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], np.float32),
    "needs_pivoting": np.array([[0, 2, 1], [3, 0, 0], [1, 1, 0]], np.float32),
}


@pytest.mark.parametrize("name", sorted(DETERMINANTS))
def test_det_matches_onnxruntime_on_the_jit(name, tmp_path):
    """Det by Gaussian elimination with partial pivoting: random, singular,
    all-zero and zero-pivot matrices, batched."""
    from onnx_jit import assert_runs_on_the_jit, one_node_model

    x = DETERMINANTS[name]
    assert_runs_on_the_jit(
        one_node_model("Det", {"x": x}, opset=11), {"x": x}, tmp_path
    )
