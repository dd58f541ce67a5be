"""A zoo of real-export ONNX models, built here from configs with seeded weights.

```python
path = model_zoo.export("bert")                         # static shapes
path = model_zoo.export("bert", dynamic_batch=True)     # batch dim symbolic
path = model_zoo.export("bert", dynamic_sequence=True)  # batch and sequence
feeds = model_zoo.sample_inputs("bert", batch=3, sequence=17)
feeds = model_zoo.sample_inputs("bert", batch=3)        # name -> array
expected = model_zoo.onnxruntime_outputs(path, feeds)   # the reference
```

Every model is a torch module (`builders.py`) exported with
`torch.onnx.export` by either of torch's exporters: `"dynamo"`
(torch.export, the default of torch >= 2.9, with onnxscript's graph
optimisations; opset 18) or `"torchscript"` (the legacy tracer, opset 17,
which keeps the shape subgraphs `Shape -> Gather -> Concat -> Reshape` real
exports are full of). GPT-2 and the control-flow models export with dynamo
only (the tracer has no `aten::diff`, `torch.cond` or `torch.while_loop`).
Nothing is downloaded: the transformers models are random inits from their
configs, the others are written in `builders.py`.

Built files are cached under `$GE_XDSL_MODEL_CACHE` (default
`~/.cache/ge-xdsl/model_zoo`), keyed by the zoo's source files, the export
settings and the versions of torch, transformers, onnx and onnxscript, so a
change to any of them rebuilds and nothing stale is ever read.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model_zoo.architectures import ARCHITECTURES
from model_zoo.specs import OPSETS, InputSpec, ZooModel

EXPORT_BATCH = 2
"""The batch the models are exported at (static exports keep it)."""

SOURCES = tuple(
    Path(__file__).with_name(name)
    for name in ("__init__.py", "builders.py", "specs.py", "architectures.py")
)
"""The files whose contents key the cache."""


def _bert():
    from model_zoo.builders import BertEncoder

    return BertEncoder(layers=2, hidden=64, heads=4, intermediate=100)


def _gpt2():
    from model_zoo.builders import Gpt2Decoder

    return Gpt2Decoder(layers=2, hidden=64, heads=4)


def _vit():
    from model_zoo.builders import VitEncoder

    return VitEncoder(layers=2, hidden=48, heads=3, intermediate=100, image=32)


def _efficientnet():
    from model_zoo.builders import EfficientNetEncoder

    return EfficientNetEncoder(image=40, hidden=320)


def _mobilenet_v2():
    from model_zoo.builders import MobileNetV2

    return MobileNetV2(width=0.5, classes=10)


def _mobilenet_v3():
    from model_zoo.builders import MobileNetV3Small

    return MobileNetV3Small(width=0.5, classes=10)


def _yolo_head():
    from model_zoo.builders import YoloHead

    return YoloHead(classes=3, anchors=3, image=64)


def _video_net():
    from model_zoo.builders import VideoNet

    return VideoNet(channels=3, classes=5)


def _yolov8():
    from model_zoo.builders import Yolov8Detector

    return Yolov8Detector(classes=80, image=64)


def _crnn():
    from model_zoo.builders import CrnnRecognizer

    return CrnnRecognizer(classes=37, hidden=48)


def _lstm():
    from model_zoo.builders import LstmTagger

    return LstmTagger(features=17, hidden=33, tags=5)


def _gru_rnn():
    from model_zoo.builders import GruRnnEncoder

    return GruRnnEncoder(features=17, hidden=20)


def _if_model():
    from model_zoo.builders import BranchingHead

    return BranchingHead(features=17)


def _loop_model():
    from model_zoo.builders import IteratedLayer

    return IteratedLayer(features=17, steps=4)


def _mel_frontend():
    from model_zoo.builders import MelFrontEnd

    return MelFrontEnd(n_fft=64, hop=16, mels=20)


SEQUENCE = 11
VOCAB = 101

MODELS: dict[str, ZooModel] = {
    model.name: model
    for model in (
        ZooModel(
            "bert",
            _bert,
            (
                InputSpec("input_ids", (SEQUENCE,), "int64", "tokens", VOCAB),
                InputSpec("attention_mask", (SEQUENCE,), "int64", "mask"),
            ),
            ("last_hidden_state", "pooler_output"),
            sequence_axes=(
                ("input_ids", 1),
                ("attention_mask", 1),
                ("last_hidden_state", 1),
            ),
        ),
        ZooModel(
            "gpt2",
            _gpt2,
            (InputSpec("input_ids", (SEQUENCE,), "int64", "tokens", VOCAB),),
            ("last_hidden_state",),
            exporters=("dynamo",),  # the tracer has no aten::diff (the mask)
        ),
        ZooModel(
            "vit",
            _vit,
            (InputSpec("pixel_values", (3, 32, 32)),),
            ("last_hidden_state", "pooler_output"),
        ),
        ZooModel(
            "efficientnet",
            _efficientnet,
            (InputSpec("pixel_values", (3, 40, 40)),),
            ("last_hidden_state", "pooler_output"),
        ),
        ZooModel(
            "mobilenet_v2",
            _mobilenet_v2,
            (InputSpec("image", (3, 64, 64)),),
            ("logits",),
        ),
        ZooModel(
            "mobilenet_v3",
            _mobilenet_v3,
            (InputSpec("image", (3, 64, 64)),),
            ("logits",),
        ),
        ZooModel(
            "yolo_head", _yolo_head, (InputSpec("image", (3, 64, 64)),), ("detections",)
        ),
        ZooModel(
            "video_net",
            _video_net,
            (InputSpec("clip", (3, 6, 17, 15)),),
            ("logits",),
            tiny=True,
        ),
        ZooModel(
            "yolov8", _yolov8, (InputSpec("image", (3, 64, 64)),), ("detections",)
        ),
        ZooModel("crnn", _crnn, (InputSpec("image", (3, 32, 96)),), ("log_probs",)),
        ZooModel(
            "lstm",
            _lstm,
            (InputSpec("sequence", (7, 17)),),
            ("tags", "last_hidden"),
            tiny=True,
        ),
        ZooModel(
            "gru_rnn",
            _gru_rnn,
            (InputSpec("sequence", (7, 17)),),
            ("encoding",),
            tiny=True,
        ),
        ZooModel(
            "mel_frontend",
            _mel_frontend,
            (InputSpec("audio", (1, 4000)),),
            ("logits", "log_mel"),
            tiny=True,
        ),
        ZooModel(
            "if_model",
            _if_model,
            (InputSpec("x", (17,)),),
            ("y",),
            exporters=("dynamo",),  # the tracer cannot export torch.cond
            tiny=True,
        ),
        ZooModel(
            "loop_model",
            _loop_model,
            (InputSpec("x", (17,)),),
            ("y",),
            exporters=("dynamo",),  # nor torch.while_loop
            tiny=True,
        ),
    )
} | ARCHITECTURES


@dataclass(frozen=True)
class ShippedModel:
    """A trained model shipped inside a PyPI package (the `models` extra),
    at fixed input shapes: a generality check on exports nobody here made."""

    name: str
    distribution: str
    file: str
    inputs: tuple[InputSpec, ...]


def _fixed(name: str, shape: tuple[int, ...], dtype: str = "float32", **kw):
    return InputSpec(name, shape, dtype, batched=False, **kw)


SHIPPED: dict[str, ShippedModel] = {
    model.name: model
    for model in (
        ShippedModel(
            "magika",  # file-type classifier (Google)
            "magika",
            "magika/models/standard_v3_3/model.onnx",
            (_fixed("bytes", (1, 2048), "int32", kind="tokens", high=257),),
        ),
        ShippedModel(
            "silero_vad",  # voice activity detector, an If on the sample rate
            "silero-vad",
            "silero_vad/data/silero_vad_16k_op15.onnx",
            (
                _fixed("input", (1, 512)),
                _fixed("state", (2, 1, 128)),
                _fixed("sr", (), "int64", kind="fill", high=16000),
            ),
        ),
        ShippedModel(
            "silero_vad_ifless",  # the 16k and 8k paths both computed, selected
            "silero-vad",
            "silero_vad/data/silero_vad_op18_ifless.onnx",
            (
                _fixed("input", (1, 512)),
                _fixed("sr", (), "int64", kind="fill", high=16000),
                _fixed("state", (2, 1, 128)),
            ),
        ),
        ShippedModel(
            "ocr_det",  # PP-OCRv4 text detection (RapidOCR)
            "rapidocr-onnxruntime",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
            (_fixed("x", (1, 3, 64, 96)),),
        ),
        ShippedModel(
            "ocr_rec",  # PP-OCRv4 text recognition
            "rapidocr-onnxruntime",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
            (_fixed("x", (1, 3, 48, 96)),),
        ),
        ShippedModel(
            "ocr_cls",  # text-line orientation classifier
            "rapidocr-onnxruntime",
            "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
            (_fixed("x", (1, 3, 48, 192)),),
        ),
    )
}


def shipped_path(name: str) -> Path | None:
    """The file of shipped model `name`, None if its package is not installed
    (found through the package's metadata, without importing it)."""
    import importlib.metadata

    model = SHIPPED[name]
    try:
        distribution = importlib.metadata.distribution(model.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(distribution.locate_file(model.file)))
    return path if path.is_file() else None


def cache_dir() -> Path:
    """Where built models are kept (`$GE_XDSL_MODEL_CACHE` or ~/.cache)."""
    configured = os.environ.get("GE_XDSL_MODEL_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "ge-xdsl" / "model_zoo"


def cache_key(name: str, exporter: str, dynamic: tuple[bool, bool]) -> str:
    """A digest of the zoo's sources, the export settings and the libraries."""
    import onnx
    import onnxscript
    import torch
    import transformers

    digest = hashlib.sha256()
    for source in SOURCES:
        digest.update(source.read_bytes())
    versions = (torch.__version__, transformers.__version__, onnx.__version__)
    settings = (name, exporter, dynamic, OPSETS, onnxscript.__version__)
    digest.update(repr((versions, settings)).encode())
    return digest.hexdigest()[:16]


def model_spec(name: str) -> ZooModel | ShippedModel:
    """The zoo's or a shipped model `name` (a `KeyError` lists the names)."""
    if name in SHIPPED:
        return SHIPPED[name]
    if name not in MODELS:
        names = ", ".join([*MODELS, *SHIPPED])
        raise KeyError(f"no zoo model '{name}' (models: {names})")
    return MODELS[name]


def export(
    name: str,
    *,
    exporter: str | None = None,
    dynamic_batch: bool = False,
    dynamic_sequence: bool = False,
    directory: Path | None = None,
) -> Path:
    """The `.onnx` file of zoo model `name`, built (seed 0) unless cached;
    `dynamic_sequence` makes the batch and the sequence length symbolic;
    `exporter` defaults to the model's first."""
    spec = MODELS[name]
    exporter = exporter or spec.exporters[0]
    if exporter not in spec.exporters:
        raise ValueError(f"{name} is not exported with '{exporter}'")
    if dynamic_sequence and not spec.sequence_axes:
        raise ValueError(f"{name} has no sequence axis")
    directory = cache_dir() if directory is None else directory
    dynamic = (dynamic_batch or dynamic_sequence, dynamic_sequence)
    shapes = "dynseq" if dynamic_sequence else "dynbatch" if dynamic[0] else "static"
    key = cache_key(name, exporter, dynamic)
    path = directory / f"{name}-{exporter}-{shapes}-{key}.onnx"
    if path.is_file():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(suffix=".onnx", dir=directory)
    os.close(handle)
    try:
        _export(spec, exporter, dynamic, Path(scratch))
        os.replace(scratch, path)  # atomic: a concurrent build writes the same
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return path


def _export(
    spec: ZooModel, exporter: str, dynamic: tuple[bool, bool], path: Path
) -> None:
    """Export with (batch, sequence) symbolic as `dynamic` says."""
    import torch

    torch.manual_seed(0)
    module = spec.build()
    feeds = sample_inputs(spec.name, EXPORT_BATCH)
    args = tuple(torch.from_numpy(feeds[i.name]) for i in spec.inputs)
    names = [i.name for i in spec.inputs]
    dynamic_batch, dynamic_sequence = dynamic
    axes: dict[str, dict[int, str]] = {
        n: {0: "batch"} if dynamic_batch else {} for n in (*names, *spec.outputs)
    }
    for name, axis in spec.sequence_axes if dynamic_sequence else ():
        axes[name][axis] = "sequence"
    options: dict = {}
    if dynamic_batch and exporter == "dynamo":
        dims = {
            "batch": torch.export.Dim("batch", min=1, max=64),
            "sequence": torch.export.Dim("sequence", min=2, max=64),
        }
        options["dynamic_shapes"] = {
            n: {axis: dims[dim] for axis, dim in axes[n].items()} for n in names
        }
    elif dynamic_batch:
        options["dynamic_axes"] = axes
    if exporter == "dynamo":
        options["external_data"] = False
    quiet = io.StringIO()
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        _quiet_loggers(),
    ):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            args,
            str(path),
            dynamo=exporter == "dynamo",
            opset_version=OPSETS[exporter],
            input_names=names,
            output_names=list(spec.outputs),
            **options,
        )


@contextlib.contextmanager
def _quiet_loggers():
    """torch's exporter logs progress and optimiser notes at WARNING."""
    loggers = [logging.getLogger(n) for n in ("torch", "onnxscript", "onnx_ir")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def sample_inputs(
    name: str, batch: int = EXPORT_BATCH, seed: int = 0, sequence: int | None = None
):
    """Seeded inputs of model `name` for `batch` rows (and `sequence` long
    on its sequence axes): name -> array."""
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    model = model_spec(name)
    sequence_axes = dict(getattr(model, "sequence_axes", ()))
    for spec in model.inputs:
        shape = (batch, *spec.shape) if spec.batched else spec.shape
        if sequence is not None and spec.name in sequence_axes:
            axis = sequence_axes[spec.name]
            shape = (*shape[:axis], sequence, *shape[axis + 1 :])
        if spec.kind == "fill":
            value = np.full(shape, spec.high)
        elif spec.kind == "tokens":
            value = rng.integers(0, spec.high, shape)
        elif spec.kind == "mask":
            value = np.ones(shape)
            for row in range(shape[0]):
                padding = 2 * (row % 3)
                if padding:
                    value[row, -padding:] = 0
        else:
            value = rng.standard_normal(shape)
        feeds[spec.name] = value.astype(spec.dtype)
    return feeds


def onnxruntime_outputs(
    path: Path | str, feeds: Mapping[str, np.ndarray], threads: int = 1
) -> list[np.ndarray]:
    """The model's outputs computed by onnxruntime (CPU), in graph order."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(feeds))


# ---------------------------------------------------------------------------
# Checking a model: ge-atc's compile, the error against onnxruntime
# ---------------------------------------------------------------------------


def input_shape_flag(feeds: Mapping[str, np.ndarray]) -> str:
    """ge-atc's `--input_shape` for these inputs: `a:2,11;b:2,11`."""
    return ";".join(f"{k}:{','.join(map(str, v.shape))}" for k, v in feeds.items())


def compile_with_atc(
    onnx_path: Path, om_path: Path, shapes: str | None, flags: Sequence[str] = ()
):
    """Run `ge-atc` in-process (with more `flags`): (seconds, the one-line
    error or None)."""
    from tools.ge_atc import main as atc

    argv = [f"--model={onnx_path}", "--framework=5", f"--output={om_path}"]
    argv += ["--log=error"] + ([f"--input_shape={shapes}"] if shapes else [])
    argv += list(flags)
    stderr = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stderr(stderr):
        status = atc(argv)
    seconds = time.perf_counter() - start
    if status == 0:
        return seconds, None
    lines = [line for line in stderr.getvalue().splitlines() if line.strip()]
    return seconds, lines[-1] if lines else f"ge-atc exited with {status}"


def relative_error(ours, expected) -> float:
    """max |ours - ref| / max |ref| over all output pairs (inf: a shape or a
    NaN where the other has none)."""
    worst = 0.0
    for mine, ref in zip(ours, expected, strict=True):
        if np.shape(mine) != np.shape(ref):
            return float("inf")
        ref64 = np.asarray(ref, np.float64)
        mine64 = np.asarray(mine, np.float64)
        if not np.array_equal(np.isnan(mine64), np.isnan(ref64)):
            return float("inf")
        error = float(np.nan_to_num(np.abs(mine64 - ref64)).max(initial=0))
        worst = max(worst, error / max(float(np.abs(ref64).max(initial=0)), 1e-30))
    return worst
