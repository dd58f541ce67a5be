"""`torch.compile(backend="ge")` on models Hypothesis builds: random stacks of
CNN layers (convolutions with random kernel, stride, padding, dilation and
groups, batch norms with random statistics, activations, pools, residual
blocks, then a pooled linear head) and of sequence layers (linear, layer
norm, GELU, softmax, attention), at odd sizes, against eager PyTorch
(max |ge - eager| <= 1e-4 * max |eager| + 1e-6). A generated model must run
wholly on `ge`: no graph break.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
nn = torch.nn

import torch_models  # noqa: E402

from ge_xdsl.torch_backend import STATS, ge_backend  # noqa: E402


class Residual(nn.Module):
    """`x + body(x)`."""

    def __init__(self, body: nn.Module):
        super().__init__()
        self.body = body

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x)


class SelfAttention(nn.Module):
    """`nn.MultiheadAttention` on its input, batch first."""

    def __init__(self, features: int, heads: int):
        super().__init__()
        self.attention = nn.MultiheadAttention(features, heads, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attention(x, x, x, need_weights=False)[0]


ACTIVATIONS = {
    "relu": nn.ReLU,
    "relu6": nn.ReLU6,
    "gelu": nn.GELU,
    "gelu_tanh": lambda: nn.GELU(approximate="tanh"),
    "sigmoid": nn.Sigmoid,
    "tanh": nn.Tanh,
    "leaky_relu": lambda: nn.LeakyReLU(0.1),
}


@st.composite
def convolution(draw, channels: int, size: int) -> tuple[nn.Module, int, int]:
    """A convolution keeping the image non-empty: (layer, channels, size)."""
    kernel = draw(st.integers(1, min(3, size)))
    dilation = draw(st.integers(1, 2)) if size >= 2 * kernel else 1
    padding = draw(st.integers(0, kernel // 2 * dilation))
    reach = dilation * (kernel - 1) + 1
    stride = draw(st.integers(1, 2)) if size + 2 * padding - reach >= 2 else 1
    groups = draw(st.sampled_from([1, channels]))
    out = channels * draw(st.integers(1, 2)) if groups > 1 else draw(st.integers(1, 9))
    layer = nn.Conv2d(
        channels,
        out,
        kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
        bias=draw(st.booleans()),
    )
    return layer, out, (size + 2 * padding - reach) // stride + 1


@st.composite
def cnns(draw) -> tuple[nn.Module, tuple[int, ...]]:
    """A CNN and its input shape without the batch."""
    channels = first = draw(st.sampled_from([1, 3, 5, 17]))
    size = first_size = draw(st.integers(5, 11))
    layers: list[nn.Module] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["conv", "bn", "activation", "pool", "residual"]))
        if kind == "conv":
            layer, channels, size = draw(convolution(channels, size))
            layers.append(layer)
        elif kind == "bn":
            layers.append(nn.BatchNorm2d(channels))
        elif kind == "activation":
            layers.append(ACTIVATIONS[draw(st.sampled_from(sorted(ACTIVATIONS)))]())
        elif kind == "pool" and size >= 3:
            pool = draw(st.sampled_from([nn.MaxPool2d, nn.AvgPool2d]))
            layers.append(pool(3, stride=2, padding=1))
            size = (size - 1) // 2 + 1
        elif kind == "residual":
            body = nn.Sequential(
                nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
            )
            layers.append(Residual(body))
    head = [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, 7)]
    return nn.Sequential(*layers, *head), (first, first_size, first_size + 2)


@st.composite
def sequence_models(draw) -> tuple[nn.Module, tuple[int, ...]]:
    """A stack of sequence layers on (length, features) and that shape."""
    features = first = draw(st.sampled_from([4, 12, 17, 33]))
    layers: list[nn.Module] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(["linear", "norm", "activation", "softmax", "attention"])
        )
        if kind == "linear":
            out = draw(st.sampled_from([3, 16, 33]))
            layers.append(nn.Linear(features, out, bias=draw(st.booleans())))
            features = out
        elif kind == "norm":
            affine = draw(st.booleans())
            layers.append(nn.LayerNorm(features, elementwise_affine=affine))
        elif kind == "activation":
            layers.append(ACTIVATIONS[draw(st.sampled_from(sorted(ACTIVATIONS)))]())
        elif kind == "softmax":
            layers.append(nn.Softmax(dim=-1))
        elif kind == "attention":
            heads = draw(st.sampled_from([h for h in (1, 2, 4) if features % h == 0]))
            layers.append(Residual(SelfAttention(features, heads)))
    return nn.Sequential(*layers), (draw(st.sampled_from([1, 5, 9])), first)


def assert_compiled_matches_eager(
    model: nn.Module, shape: tuple[int, ...], seed: int, dynamic: bool
) -> None:
    torch.manual_seed(seed)
    for parameter in model.parameters():  # seeded, not torch's init order
        nn.init.normal_(parameter, std=0.5)
    model = torch_models.randomize_norms(model, seed).eval()
    torch._dynamo.reset()
    STATS.reset()
    compiled = torch.compile(model, backend=ge_backend, dynamic=dynamic)
    generator = torch.Generator().manual_seed(seed)
    for batch in (3, 2) if dynamic else (3,):
        x = torch.randn(batch, *shape, generator=generator)
        with torch.no_grad():
            got, expected = compiled(x), model(x)
        assert got.shape == expected.shape
        bound = 1e-4 * expected.abs().max().item() + 1e-6
        error = (got - expected).abs().max().item()
        assert error <= bound, f"{model}\nmax error {error:.3e} > {bound:.3e}"
    assert not STATS.graph_breaks, STATS.graph_breaks
    torch._dynamo.reset()


MODELS = st.one_of(cnns(), sequence_models())


@settings(max_examples=6, deadline=None)
@given(MODELS, st.integers(0, 2**16))
def test_generated_models_match_eager(case, seed):
    model, shape = case
    assert_compiled_matches_eager(model, shape, seed, dynamic=False)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(MODELS, st.integers(0, 2**16), st.booleans())
def test_many_generated_models_match_eager_static_and_dynamic(case, seed, dynamic):
    model, shape = case
    assert_compiled_matches_eager(model, shape, seed, dynamic)
