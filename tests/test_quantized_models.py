"""Models quantized by onnxruntime's own tool, through ge-atc and ge-run
(JIT and reference) against onnxruntime.

Three seeded torch exports (a CNN of 3 x 3 convolutions over 32 channels:
288 products a sum, past float32's exact 2^24 in int8; an LSTM with a
linear head; a one-layer transformer encoder), each through
`quantize_dynamic` (ConvInteger, MatMulInteger, DynamicQuantizeLSTM) and
`quantize_static` with a seeded calibration reader, in the QOperator format
(QLinearConv, QLinearMatMul and the com.microsoft QLinear* ops, QGemm) and
the QDQ format.

onnxruntime's graph optimizer fuses QDQ pairs into its integer kernels,
which round differently from the graph as written: a QDQ model is compared
with onnxruntime running the graph as written (optimizations off), and
onnxruntime's optimized result is checked to be within int8 tolerance of it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx_jit import assert_runs_on_the_jit

ort = pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")
quantization = pytest.importorskip("onnxruntime.quantization")

pytestmark = pytest.mark.slow


class SmallCNN(torch.nn.Module):
    """3 x 3 convolutions over 32 channels, a residual Add, Sigmoid * x,
    Concat, global average pooling and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = torch.nn.Conv2d(32, 32, 3, padding=1)
        self.c3 = torch.nn.Conv2d(32, 16, 1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        a = torch.relu(self.c1(x))
        b = torch.relu(self.c2(a)) + a
        b = torch.sigmoid(b) * b
        c = torch.cat([self.c3(b), self.c3(b) * 2], 1)
        return self.fc(torch.nn.functional.adaptive_avg_pool2d(c, 1).flatten(1))


class SmallLSTM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 16)
        self.fc = torch.nn.Linear(16, 5)

    def forward(self, x):
        return self.fc(self.lstm(x)[0])


class TinyTransformer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(
            32, 4, 64, dropout=0.0, batch_first=True
        )

    def forward(self, x):
        return self.layer(x)


MODELS = {
    "cnn": (SmallCNN, (1, 3, 15, 13)),
    "lstm": (SmallLSTM, (7, 1, 8)),
    "transformer": (TinyTransformer, (1, 6, 32)),
}


class SeededReader(quantization.CalibrationDataReader):
    """Four seeded standard-normal batches for calibration."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.batches = iter(
            {"x": np.random.default_rng(seed).standard_normal(shape).astype("f4")}
            for seed in range(4)
        )

    def get_next(self):
        return next(self.batches, None)


def exported(name: str, folder: Path) -> Path:
    """The seeded float model `name`, exported to ONNX."""
    module, shape = MODELS[name]
    torch.manual_seed(0)
    model = module().eval()
    path = folder / f"{name}.onnx"
    torch.onnx.export(
        model, (torch.randn(shape),), path, input_names=["x"], output_names=["y"],
        dynamo=False, opset_version=17,
    )  # fmt: skip
    return path


def quantized_model(name: str, mode: str, folder: Path) -> onnx.ModelProto:
    """`name` through quantize_dynamic ("dynamic") or quantize_static in the
    QOperator ("qoperator") or QDQ ("qdq") format."""
    source, target = exported(name, folder), folder / f"{name}-{mode}.onnx"
    if mode == "dynamic":
        quantization.quantize_dynamic(
            source, target, weight_type=quantization.QuantType.QInt8
        )
    else:
        quant_format = (
            quantization.QuantFormat.QDQ
            if mode == "qdq"
            else quantization.QuantFormat.QOperator
        )
        quantization.quantize_static(
            source, target, SeededReader(MODELS[name][1]), quant_format=quant_format
        )
    return onnx.load(target)


def onnxruntime_run(model: onnx.ModelProto, x: np.ndarray, optimized: bool):
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, {"x": x})


EXPECTED_OPS = {
    ("cnn", "dynamic"): {"ConvInteger", "MatMulInteger"},
    ("cnn", "qoperator"): {
        "QLinearConv", "com.microsoft.QLinearAdd", "com.microsoft.QLinearMul",
        "com.microsoft.QLinearSigmoid", "com.microsoft.QLinearConcat",
        "com.microsoft.QLinearGlobalAveragePool", "com.microsoft.QGemm",
    },
    ("lstm", "dynamic"): {"com.microsoft.DynamicQuantizeLSTM", "MatMulInteger"},
    ("lstm", "qoperator"): {"QLinearMatMul", "com.microsoft.QLinearAdd"},
    ("transformer", "dynamic"): {"MatMulInteger"},
    ("transformer", "qoperator"): {
        "QLinearMatMul", "com.microsoft.QLinearAdd", "com.microsoft.QLinearMul",
        "com.microsoft.QLinearSoftmax", "com.microsoft.QGemm",
    },
}  # fmt: skip
"""The quantized ops each model must hold (the tool's choice is checked)."""


@pytest.mark.parametrize("mode", ["dynamic", "qoperator", "qdq"])
@pytest.mark.parametrize("name", list(MODELS))
def test_quantized_model_matches_onnxruntime(name, mode, tmp_path):
    model = quantized_model(name, mode, tmp_path)
    ops = {
        f"{n.domain}.{n.op_type}" if n.domain else n.op_type for n in model.graph.node
    }
    assert EXPECTED_OPS.get((name, mode), set()) <= ops, ops
    x = np.random.default_rng(9).standard_normal(MODELS[name][1]).astype("f4")
    as_written = onnxruntime_run(model, x, optimized=False)
    optimized = onnxruntime_run(model, x, optimized=True)
    if mode == "qdq":
        # int8 tolerance: a few steps of the output's quantization
        scale = float(np.abs(as_written[0]).max()) / 127
        np.testing.assert_allclose(optimized[0], as_written[0], atol=8 * scale)
        assert_runs_on_the_jit(model, {"x": x}, tmp_path / "run", as_written)
    else:
        np.testing.assert_allclose(optimized[0], as_written[0], rtol=1e-5, atol=1e-6)
        assert_runs_on_the_jit(model, {"x": x}, tmp_path / "run", optimized)
