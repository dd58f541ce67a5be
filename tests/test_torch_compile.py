"""`torch.compile(model, backend="ge")` against eager PyTorch.

Every comparison allows max |ge - eager| <= 1e-4 * max |eager| + 1e-6 per
output (float32). The models (`torch_models`) run static and with
`dynamic=True` at batch 1 and 3; the big ones are slow tests. Each compiled
graph's run is checked to have run on the JIT (sunk, or host kernels and
fallback dispatch under host scheduling), never on the reference evaluator.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import torch_models  # noqa: E402

from ge_dialect.diagnostics import GEError  # noqa: E402
from ge_dialect.opinfo import FallbackMode, op_info  # noqa: E402
from ge_runtime.engines.scheduler import ExecutionPath, Executor  # noqa: E402
from ge_xdsl.torch_backend import STATS, explain, ge_backend  # noqa: E402

ROOT = Path(__file__).parents[1]
FAST = {
    False: {"mlp", "depthwise17", "attention", "bert1"},
    True: {"mlp", "depthwise17"},
}
"""The models whose static (False) and dynamic (True) runs are in the default
test run: one of each kind static (CNN, MLP, attention, BERT); the others are
slow tests."""


pytestmark = pytest.mark.usefixtures("fresh_torch_compiler")


def assert_matches_eager(got, expected) -> None:
    got = got if isinstance(got, tuple | list) else (got,)
    expected = expected if isinstance(expected, tuple | list) else (expected,)
    assert len(got) == len(expected)
    for ours, reference in zip(got, expected, strict=True):
        assert ours.shape == reference.shape and ours.dtype == reference.dtype
        bound = 1e-4 * reference.abs().max().item() + 1e-6
        error = (ours - reference).abs().max().item()
        assert error <= bound, f"max error {error:.3e} > {bound:.3e}"


def assert_ran_on_the_jit(mode: str) -> None:
    """Every compiled graph ran in `mode`, each op on the JIT or through its
    host fallback (under host scheduling; sunk, only `aclnn_only` ops)."""
    graphs = STATS.graphs()
    assert graphs
    for graph in graphs:
        model = graph.model
        assert model.mode == mode
        assert model.trace, "the graph did not run"
        for entry in model.trace:
            if entry.path is ExecutionPath.FALLBACK:
                assert entry.executor is Executor.NUMPY_KERNEL, entry.line()
                if mode == "sink":  # only ops that never sink
                    assert op_info(entry.op).fallback_mode is FallbackMode.ACLNN_ONLY
            else:
                assert entry.executor is Executor.JIT, entry.line()


def cases(dynamic: bool) -> list:
    return [
        pytest.param(
            name, marks=() if name in FAST[dynamic] else (pytest.mark.slow,), id=name
        )
        for name in torch_models.MODELS
    ]


@pytest.mark.parametrize("name", cases(dynamic=False))
def test_static_graphs_sink_and_match_eager(name: str):
    model, inputs = torch_models.build(name)
    compiled = torch.compile(model, backend=ge_backend, dynamic=False)
    for batch in (1, 3):
        STATS.reset()
        args = inputs(batch)
        with torch.no_grad():
            assert_matches_eager(compiled(*args), model(*args))
        assert STATS.compiles == 1 and not STATS.graph_breaks
        assert_ran_on_the_jit("sink")


@pytest.mark.parametrize("name", cases(dynamic=True))
def test_dynamic_graphs_run_host_scheduled_and_match_eager(name: str):
    model, inputs = torch_models.build(name)
    compiled = torch.compile(model, backend=ge_backend, dynamic=True)
    with torch.no_grad():
        args = inputs(3)
        assert_matches_eager(compiled(*args), model(*args))
        assert_ran_on_the_jit("host")  # batch 3 is a symbol
        for batch in (1, 5):
            args = inputs(batch)
            assert_matches_eager(compiled(*args), model(*args))
    # torch specializes size 1 (a recompile); 5 reuses the symbolic graph
    assert STATS.compiles == 2 and not STATS.graph_breaks


# ---------------------------------------------------------------------------
# Registration and options
# ---------------------------------------------------------------------------


def test_the_backend_is_registered_by_its_entry_point(tmp_path: Path):
    """torch finds `backend="ge"` through the `torch_dynamo_backends` entry
    point that pyproject declares (given as installed metadata), with no
    import of the project by the user's code."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())
    backends = declared["project"]["entry-points"]["torch_dynamo_backends"]
    assert backends == {"ge": "ge_xdsl.torch_backend:ge_backend"}
    info = tmp_path / "ge_xdsl_entry-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: ge-xdsl-entry\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text(
        "[torch_dynamo_backends]\n"
        + "".join(f"{k} = {v}\n" for k, v in backends.items())
    )
    script = textwrap.dedent(
        """
        import sys, torch
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
        x = torch.randn(2, 4)
        with torch.no_grad():
            y = torch.compile(model, backend="ge")(x)
            assert torch.allclose(y, model(x), atol=1e-6)
        assert "ge_xdsl.torch_backend" in sys.modules
        print("ge" in torch._dynamo.list_backends())
        """
    )
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "True"


def test_options_are_atc_options():
    model = torch.nn.Sequential(torch.nn.Conv2d(17, 8, 3), torch.nn.ReLU()).eval()
    options = {"soc_version": "Ascend910", "precision_mode": "force_fp32"}
    compiled = torch.compile(model, backend=ge_backend, options=options)
    x = torch.randn(2, 17, 6, 6)
    with torch.no_grad():
        assert_matches_eager(compiled(x), model(x))
    (graph,) = STATS.graphs()
    assert graph.model.evaluator.target == "Ascend910"


def test_precision_mode_is_applied_not_ignored():
    """`precision_mode` reaches `select-precision`: with force_fp16 the
    convolution computes in float16 (close to eager at fp16's precision);
    unset, the graph keeps float32."""
    model = torch.nn.Sequential(torch.nn.Conv2d(17, 8, 3), torch.nn.ReLU()).eval()
    x = torch.randn(2, 17, 6, 6)
    for mode, dtype in ((None, "f32"), ("force_fp16", "f16")):
        STATS.reset()
        options = {} if mode is None else {"precision_mode": mode}
        compiled = torch.compile(model, backend=ge_backend, options=options)
        with torch.no_grad():
            result = compiled(x)
            torch.testing.assert_close(result, model(x), atol=2e-2, rtol=2e-2)
        (graph,) = STATS.graphs()
        (conv,) = [op for op in graph.model.graph.walk() if op.name == "ge.conv2d"]
        assert str(conv.results[0].type.element_type) == dtype


def test_3d_convolutions_and_pools_stay_3d_and_match_eager():
    """Conv3d, MaxPool3d (dilated, ceil mode), AvgPool3d (pads not counted)
    and a grouped ConvTranspose3d become GE's 3-D ops (`ge.conv3d`,
    `ge.max_pool3d`, `ge.avg_pool3d`, `ge.conv3d_transpose`) and match eager
    on odd sizes (17 channels; the special values are in test_volume.py
    and test_onnx_windows.py)."""
    model = torch.nn.Sequential(
        torch.nn.Conv3d(3, 17, 3, padding=(1, 0, 1)),
        torch.nn.MaxPool3d(2, stride=(1, 2, 2), dilation=(2, 1, 1), ceil_mode=True),
        torch.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False),
        torch.nn.ConvTranspose3d(17, 6, 3, stride=2, padding=1, output_padding=1),
    ).eval()
    x = torch.randn(2, 3, 7, 9, 5)
    compiled = torch.compile(model, backend=ge_backend)
    with torch.no_grad():
        assert_matches_eager(compiled(x), model(x))
    assert_ran_on_the_jit("sink")
    (graph,) = STATS.graphs()
    names = [op.name for op in graph.model.graph.walk()]
    windows = ("conv", "pool")
    assert [n for n in names if any(w in n for w in windows)] == [
        "ge.conv3d",
        "ge.max_pool3d",
        "ge.avg_pool3d",
        "ge.conv3d_transpose",
    ], names


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"soc": "Ascend910"}, "unknown ge backend option 'soc'"),
        ({"soc_version": "Ascend9"}, "soc_version: unknown target 'Ascend9'"),
        ({"precision_mode": "fp16"}, "precision_mode 'fp16' is not supported"),
        ({"auto_cast_mode": 2}, "bad value 2 for option 'auto_cast_mode'"),
        ({"auto_cast_mode": True}, "bad value True for option 'auto_cast_mode'"),
        ({"fusion": 1}, "bad value 1 for option 'fusion'"),
    ],
)
def test_bad_options_are_one_line_errors(options, message):
    compiled = torch.compile(torch.nn.ReLU(), backend=ge_backend, options=options)
    with pytest.raises(Exception) as caught:
        compiled(torch.randn(3))
    error = getattr(caught.value, "inner_exception", caught.value)  # torch's wrap
    assert isinstance(error, GEError) and message in str(error)
    assert "\n" not in str(error)


# ---------------------------------------------------------------------------
# Graph breaks
# ---------------------------------------------------------------------------


class WithCumsum(torch.nn.Module):
    """linear -> cumsum (no converter) -> relu: a graph break in the middle."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(17, 33)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.cumsum(self.fc(x), dim=1) - 1)


def test_an_unsupported_op_is_a_graph_break_with_one_log_line(caplog):
    model = WithCumsum().eval()
    compiled = torch.compile(model, backend=ge_backend)
    x = torch.randn(3, 17)
    with caplog.at_level(logging.WARNING, logger="ge_xdsl.torch"), torch.no_grad():
        assert_matches_eager(compiled(x), model(x))
    lines = [r.getMessage() for r in caplog.records if r.name == "ge_xdsl.torch"]
    assert len(lines) == 1 and "aten.cumsum.default" in lines[0], lines
    ((graph_break),) = STATS.graph_breaks
    assert (
        graph_break.op == "aten.cumsum.default" and "no converter" in graph_break.reason
    )
    assert len(STATS.graphs()) == 2  # the linear layer, then sub + relu
    assert_ran_on_the_jit("sink")


@pytest.mark.parametrize("name", ["BranchingHead", "IteratedLayer"])
def test_control_flow_is_a_graph_break_around_its_graphs(name: str, caplog):
    """`torch.cond` and `while_loop` (higher-order ops, their branches and
    body as graphs) run in eager PyTorch: one graph break, one log line."""
    from model_zoo import builders

    torch.manual_seed(0)
    model = getattr(builders, name)().eval()
    compiled = torch.compile(model, backend=ge_backend, dynamic=False)
    x = torch.randn(3, 17)
    with caplog.at_level(logging.WARNING, logger="ge_xdsl.torch"), torch.no_grad():
        assert_matches_eager(compiled(x), model(x))
        assert_matches_eager(compiled(-x), model(-x))
    (graph_break,) = STATS.graph_breaks
    assert graph_break.op.startswith("torch.ops.higher_order.")
    assert len([r for r in caplog.records if r.name == "ge_xdsl.torch"]) == 1


def test_explain_shows_the_ge_graph_breaks():
    output = explain(WithCumsum().eval())(torch.randn(3, 17))
    assert output.graph_count == 1  # one TorchDynamo graph
    assert output.graph_break_count == 1
    (reason,) = output.break_reasons
    assert "ge: aten.cumsum.default at node 'cumsum'" in reason.reason
    assert any(frame.name == "forward" for frame in reason.user_stack)


# ---------------------------------------------------------------------------
# Shapes, layouts, recompiles, parameters, training
# ---------------------------------------------------------------------------


def test_recompiles_are_counted_and_bounded():
    """Without `dynamic`, a second batch size recompiles once with a
    symbolic batch (TorchDynamo's automatic dynamic shapes); later sizes
    reuse it."""
    model, inputs = torch_models.build("mlp")
    compiled = torch.compile(model, backend=ge_backend)
    with torch.no_grad():
        for batch in (2, 3, 4, 6):
            args = inputs(batch)
            assert_matches_eager(compiled(*args), model(*args))
    assert STATS.compiles == 2
    first, second = STATS.graphs()
    assert first.model.mode == "sink" and second.model.mode == "host"


def test_recompiles_stop_at_torchs_limit_and_the_frame_runs_eagerly():
    """Past `recompile_limit` compiles of a frame, TorchDynamo runs it eagerly:
    the backend compiles no more graphs and the results stay eager's."""
    model, inputs = torch_models.build("mlp")
    compiled = torch.compile(model, backend=ge_backend, dynamic=False)
    with (
        torch._dynamo.config.patch(recompile_limit=2, automatic_dynamic_shapes=False),
        torch.no_grad(),
    ):
        for batch in (2, 3, 4, 5):
            args = inputs(batch)
            assert_matches_eager(compiled(*args), model(*args))
    assert STATS.compiles == 2


def test_dynamic_shapes_dispatch_fallback_ops_from_the_host(caplog):
    """Ops whose op information enables fallback are marked (GE's log line)
    and, under host scheduling, run through their host fallback."""
    model, inputs = torch_models.build("mlp")
    compiled = torch.compile(model, backend=ge_backend, dynamic=True)
    with caplog.at_level(logging.INFO, logger="passes.mark_fallback"), torch.no_grad():
        compiled(*inputs(3))
    marked = [
        r.getMessage() for r in caplog.records if r.name == "passes.mark_fallback"
    ]
    assert marked and all(", setting fallback attribute " in m for m in marked)
    (graph,) = STATS.graphs()
    paths = {entry.path for entry in graph.model.trace}
    assert paths == {ExecutionPath.FALLBACK, ExecutionPath.HOST_KERNEL}
    kernels = graph.model.evaluator.kernels
    compiled_kernels = kernels.compiled
    with torch.no_grad():
        compiled(*inputs(3))
    assert kernels.compiled == compiled_kernels  # per-shape kernels are cached


def test_channels_last_inputs_are_nhwc_data():
    model = torch.nn.Sequential(
        torch.nn.Conv2d(17, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU()
    )
    model = torch_models.randomize_norms(model).eval()
    x = torch.randn(2, 17, 7, 9).contiguous(memory_format=torch.channels_last)
    compiled = torch.compile(model, backend=ge_backend)
    with torch.no_grad():
        got, expected = compiled(x), model(x)
    assert_matches_eager(got, expected)
    assert got.is_contiguous(memory_format=torch.channels_last)
    (graph,) = STATS.graphs()
    data = graph.imported.model.module.body.block.first_op.body.block.first_op
    assert "NHWC" in str(data.output.type)


def test_a_parameter_changed_after_compiling_is_seen():
    model, inputs = torch_models.build("mlp")
    compiled = torch.compile(model, backend=ge_backend)
    args = inputs(3)
    with torch.no_grad():
        compiled(*args)
        model.fc1.weight.mul_(-2.0)  # in place: the graph's weights are stale
        assert_matches_eager(compiled(*args), model(*args))
    assert STATS.rebuilds == 1


def test_inputs_are_not_written():
    model, inputs = torch_models.build("depthwise17")
    (x,) = inputs(3)
    kept = x.clone()
    with torch.no_grad():
        torch.compile(model, backend=ge_backend)(x)
    assert torch.equal(x, kept)


def test_training_gradients_match_eager():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(17, 33), torch.nn.Tanh(), torch.nn.Linear(33, 5)
    )
    x = torch.randn(3, 17)
    compiled = torch.compile(model, backend=ge_backend)
    compiled(x).square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    for ours, parameter in zip(grads, model.parameters(), strict=True):
        assert_matches_eager(ours, parameter.grad)
    assert STATS.compiles == 2 and not STATS.graph_breaks  # forward, backward
