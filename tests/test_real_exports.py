"""Real exports through the user's path: `ge-atc`, then the runtime, against
onnxruntime (max |ours - ref| <= 1e-3 * max |ref| over every output).

The models are the test zoo's (`tests/model_zoo`): built here from configs
or torch code with seeded weights and exported by torch's exporters, cached
between runs. Static exports compile at their shapes (`--input_shape`) and
run sunk; dynamic-batch exports compile without it and run under host
scheduling at batch 1 and 3. The big models are slow tests; the tiny ones
run by default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")

import model_zoo  # noqa: E402

from ge_runtime.offline_model import load_offline_model  # noqa: E402
from ge_runtime.scheduler import compile_model  # noqa: E402

TOLERANCE = 1e-3

SUPPORTED = ("mobilenet_v2",)
"""The zoo models that compile today (the others wait for their ops)."""


def cases() -> list:
    """(model, exporter) parameters, slow unless the model is tiny."""
    params = []
    for name in SUPPORTED:
        spec = model_zoo.MODELS[name]
        marks = () if spec.tiny else (pytest.mark.slow,)
        for exporter in spec.exporters:
            params.append(
                pytest.param(name, exporter, marks=marks, id=f"{name}-{exporter}")
            )
    return params


def compiled(path: Path, tmp_path: Path, shapes: str | None):
    """ge-atc's offline model of `path`, ready to run."""
    om = tmp_path / "model"
    _, error = model_zoo.compile_with_atc(path, om, shapes)
    assert error is None, error
    offline = load_offline_model(f"{om}.om")
    return compile_model(offline.module(), offline.weights, target=offline.target)


def check(model, path: Path, feeds) -> None:
    expected = model_zoo.onnxruntime_outputs(path, feeds)
    error = model_zoo.relative_error(model.run(feeds), expected)
    assert error <= TOLERANCE, f"max error {error:.2e} x max |reference|"


@pytest.mark.parametrize(("name", "exporter"), cases())
def test_static_export_matches_onnxruntime(name: str, exporter: str, tmp_path: Path):
    path = model_zoo.export(name, exporter=exporter)
    feeds = model_zoo.sample_inputs(name)
    model = compiled(path, tmp_path, model_zoo.input_shape_flag(feeds))
    assert model.mode == "sink"
    check(model, path, feeds)


@pytest.mark.parametrize(("name", "exporter"), cases())
def test_dynamic_batch_export_runs_host_scheduled(
    name: str, exporter: str, tmp_path: Path
):
    path = model_zoo.export(name, exporter=exporter, dynamic_batch=True)
    model = compiled(path, tmp_path, None)
    assert model.mode == "host"
    for batch in (1, 3):
        check(model, path, model_zoo.sample_inputs(name, batch))
