"""Small torch models for the `torch.compile(backend="ge")` tests.

Each is built with seeded random weights in eval mode; batch norms get
random running statistics and affine parameters, so folding them is not
trivial. `MODELS` maps a name to (builder, inputs for a batch size).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn


class ResidualBlock(nn.Module):
    """conv-bn-relu, conv-bn, + the input, relu."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class ResNet(nn.Module):
    """A ResNet-style CNN: stem, max pool, two residual blocks, adaptive
    average pool, linear."""

    def __init__(self, channels: int = 16, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(5, channels, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.blocks = nn.Sequential(ResidualBlock(channels), ResidualBlock(channels))
        self.head = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.blocks(self.pool(self.stem(x)))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class DepthwiseSeparable(nn.Module):
    """Depthwise 3x3 (groups = channels) - bn - relu6, pointwise 1x1 - bn."""

    def __init__(self, channels: int = 17, out: int = 33):
        super().__init__()
        self.depthwise = nn.Conv2d(
            channels, channels, 3, padding=1, groups=channels, bias=False
        )
        self.bn1 = nn.BatchNorm2d(channels)
        self.pointwise = nn.Conv2d(channels, out, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn2(self.pointwise(F.relu6(self.bn1(self.depthwise(x)))))


class Mlp(nn.Module):
    """Pre-norm MLP block: x + fc2(gelu(fc1(layer_norm(x))))."""

    def __init__(self, features: int = 33, hidden: int = 100):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class AttentionBlock(nn.Module):
    """Multi-head self-attention (`nn.MultiheadAttention`), residual, norm."""

    def __init__(self, features: int = 64, heads: int = 4):
        super().__init__()
        self.attention = nn.MultiheadAttention(features, heads, batch_first=True)
        self.norm = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.attention(x, x, x, need_weights=False)
        return self.norm(x + y)


def bert(layers: int = 2, hidden: int = 64) -> nn.Module:
    """A BERT from `transformers` (random init), with an attention mask."""
    from model_zoo.builders import BertEncoder

    return BertEncoder(layers, hidden, heads=4, intermediate=100)


def randomize_norms(model: nn.Module, seed: int = 1) -> nn.Module:
    """Random running statistics and affine parameters for the batch norms."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                n = module.num_features
                module.running_mean.copy_(torch.rand(n, generator=generator) - 0.5)
                module.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                module.bias.copy_(torch.rand(n, generator=generator) - 0.5)
    return model


def token_inputs(batch: int, length: int = 13) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and a padding mask (row b has its last 2·(b mod 3) tokens off)."""
    generator = torch.Generator().manual_seed(batch)
    ids = torch.randint(0, 101, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.int64)
    for row in range(batch):
        if row % 3:
            mask[row, length - 2 * (row % 3) :] = 0
    return ids, mask


def normal(*shape: int) -> Callable[[int], tuple[torch.Tensor, ...]]:
    """Inputs: one seeded normal tensor of shape (batch, *shape)."""
    return lambda batch: (
        torch.randn(batch, *shape, generator=torch.Generator().manual_seed(batch)),
    )


MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[int], tuple]]] = {
    "resnet": (lambda: randomize_norms(ResNet()), normal(5, 20, 20)),
    "depthwise17": (lambda: randomize_norms(DepthwiseSeparable()), normal(17, 9, 11)),
    "mlp": (Mlp, normal(7, 33)),
    "attention": (AttentionBlock, normal(9, 64)),
    "bert": (bert, token_inputs),
    "bert1": (lambda: bert(layers=1, hidden=16), token_inputs),
}
"""Model name -> (builder, batch size -> inputs). `bert` is the 2-layer BERT
of the issue; `bert1`, one layer of width 16, the same ops in a graph small
enough for the default test run."""


def build(name: str) -> tuple[nn.Module, Callable[[int], tuple]]:
    """Model `name` (seeded, eval mode) and its input maker."""
    builder, inputs = MODELS[name]
    torch.manual_seed(0)
    return builder().eval(), inputs
