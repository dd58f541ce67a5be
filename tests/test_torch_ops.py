"""One ATen op (or a small pattern of them) at a time through
`torch.compile(backend="ge")`, against eager PyTorch: odd sizes (3, 17, 33),
special values (±inf, NaN, -0.0) where the op is elementwise, every
converter's options. No case may break the graph: each runs wholly on `ge`.
A subset runs again with `dynamic=True` (symbolic sizes, host scheduling)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from ge_xdsl.torch_backend import STATS, ge_backend  # noqa: E402

GENERATOR = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=GENERATOR)


def special(*shape: int, infinities: bool = True) -> torch.Tensor:
    """Normal values with NaN, ±0 (and ±inf) in the first elements."""
    x = randn(*shape) * 3
    values = [float("nan"), 0.0, -0.0]
    values += [float("inf"), float("-inf")] if infinities else []
    x.view(-1)[: len(values)] = torch.tensor(values)
    return x


def row_masked(rows: int, columns: int) -> torch.Tensor:
    """A random boolean mask whose first row masks everything."""
    mask = torch.rand(rows, columns, generator=GENERATOR) > 0.2
    mask[0] = False
    return mask


W17x33 = randn(33, 17)
B33 = randn(33)


class Conv(torch.nn.Module):
    def __init__(self, *args, transposed=False, dims=2, **kwargs):
        super().__init__()
        kind = {
            (2, False): torch.nn.Conv2d,
            (2, True): torch.nn.ConvTranspose2d,
            (1, False): torch.nn.Conv1d,
        }[(dims, transposed)]
        self.conv = kind(*args, **kwargs)

    def forward(self, x):
        return self.conv(x)


def module(factory: Callable[[], torch.nn.Module]) -> Callable:
    """A seeded module in eval mode, as a case's function."""
    torch.manual_seed(1)
    built = factory().eval()
    if isinstance(built, torch.nn.BatchNorm1d | torch.nn.BatchNorm2d):
        with torch.no_grad():
            built.running_mean.uniform_(-1, 1)
            built.running_var.uniform_(0.5, 2)
            built.weight.uniform_(0.5, 1.5)
    return built


def attention_mask(mask: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A padding mask built as transformers builds it: arange, >=, &, index,
    expand, where (scalar_tensor), then attention."""
    batch, length = mask.shape
    rows = torch.arange(batch)[:, None, None, None]
    keys = torch.arange(length)[None, None, None, :]
    keep = torch.ones((), dtype=torch.bool).new_ones(()) & (keys >= 0)
    keep = keep & mask.to(torch.bool)[rows, keys]
    keep = keep.expand(batch, 1, length, length)
    bias = torch.where(keep, torch.tensor(0.0), torch.tensor(float("-inf")))
    q = x.view(batch, length, 3, 11).transpose(1, 2)
    return F.scaled_dot_product_attention(q, q, q, attn_mask=bias)


CASES: dict[str, tuple[Callable, Callable[[], tuple]]] = {
    # elementwise, special values
    "relu": (torch.relu, lambda: (special(3, 17),)),
    "tanh": (torch.tanh, lambda: (special(3, 17),)),
    "sigmoid": (torch.sigmoid, lambda: (special(3, 17),)),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), lambda: (special(3, 17),)),
    "relu6": (F.relu6, lambda: (special(3, 17),)),
    # eager's GELU of ±inf is NaN (its vectorised erf), ours is ±inf
    "gelu": (F.gelu, lambda: (special(3, 33, infinities=False),)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda: (special(3, 33),)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda: (special(3, 17),)),
    "elu": (F.elu, lambda: (special(3, 17),)),
    "silu": (F.silu, lambda: (randn(3, 17),)),  # decomposed to core ATen
    "hardswish": (F.hardswish, lambda: (special(3, 17),)),
    "neg_abs_exp": (lambda x: torch.exp(-torch.abs(x)), lambda: (special(3, 17),)),
    "log_sqrt_rsqrt": (
        lambda x: torch.log(x) + torch.sqrt(x) + torch.rsqrt(x),
        lambda: (randn(3, 17).abs() + 0.1,),
    ),
    "add_alpha": (
        lambda x, y: torch.add(x, y, alpha=2.5),
        lambda: (special(3, 17), randn(17)),
    ),
    "add_scalar": (lambda x: x + 1.5, lambda: (special(3, 17),)),
    "sub_mul_div": (
        lambda x, y: (x - y) * y / 3.0,
        lambda: (special(3, 17), randn(3, 1)),
    ),
    "int_plus_float": (lambda x: x + 0.5, lambda: (torch.arange(17).view(1, 17),)),
    "maximum_pow": (
        lambda x, y: torch.maximum(x, y) ** 2,
        lambda: (randn(3, 17), randn(17)),
    ),
    # comparisons, logic, where
    "comparisons": (
        lambda x, y: torch.stack([x == y, x != y, x < y, x <= y, x > 0.5, x >= y]),
        lambda: (special(3, 17), special(1, 17).flip(1)),
    ),
    "logic": (
        lambda x, y: (x > 0) & (y < 0) | ~(x > y) ^ (x == 0),
        lambda: (special(3, 17), randn(3, 17)),
    ),
    "where": (
        lambda c, x: torch.where(c > 0, x, -x),
        lambda: (randn(3, 1), special(3, 17)),
    ),
    "masked_fill": (
        lambda x: x.masked_fill(x < 0, float("-inf")),
        lambda: (randn(3, 17),),
    ),
    # shapes and data movement
    "view_t_addmm": (
        lambda x: F.linear(x.view(3, 17), W17x33, B33),
        lambda: (randn(51),),
    ),
    "linear_3d": (lambda x: F.linear(x, W17x33, B33), lambda: (randn(3, 5, 17),)),
    "addmm_scaled": (
        lambda b, x, w: torch.addmm(b, x, w, beta=0.5, alpha=2.0),
        lambda: (randn(33), randn(3, 17), randn(17, 33)),
    ),
    "mm_bmm_matmul": (
        lambda a, b, c: (torch.mm(a, b), torch.bmm(c, c.transpose(1, 2)), c @ b),
        lambda: (randn(3, 17), randn(17, 5), randn(2, 3, 17)),
    ),
    "permute_clone": (
        lambda x: x.permute(2, 0, 1).contiguous().view(17, -1),
        lambda: (randn(3, 5, 17),),
    ),
    "transpose_expand": (
        lambda x: x.transpose(0, 1).expand(4, 17, 3) + 1,
        lambda: (randn(3, 17),),
    ),
    "select_slice": (
        lambda x: (x[1], x[-1], x[:, 2:15:3], x[..., -4:]),
        lambda: (randn(3, 17, 5),),
    ),
    "unsqueeze_squeeze_flatten": (
        lambda x: (
            x.unsqueeze(1).squeeze(1),
            x[:, None].flatten(1),
            x.view(3, 17, 1).squeeze(-1),
        ),
        lambda: (randn(3, 17),),
    ),
    "cat_split": (
        lambda x, y: torch.cat([x, y], dim=1).split([5, 12, 10], dim=1),
        lambda: (randn(3, 17), randn(3, 10)),
    ),
    "pad": (lambda x: F.pad(x, (1, 2, 0, 3), value=-1.0), lambda: (randn(2, 3, 5, 4),)),
    "embedding": (
        lambda ids: F.embedding(ids, W17x33),
        lambda: (torch.randint(0, 33, (3, 5), generator=GENERATOR),),
    ),
    "gather": (
        lambda x, i: torch.gather(x, 1, i),
        lambda: (randn(3, 17), torch.randint(0, 17, (3, 5), generator=GENERATOR)),
    ),
    "index_constant": (
        lambda x: x[torch.tensor([2, 0, -1])],
        lambda: (randn(3, 17),),
    ),
    "integer_division": (
        lambda a, b: (
            torch.div(a, b, rounding_mode="floor"),
            torch.div(a, b, rounding_mode="trunc"),
            a // 3,
            torch.div(a, -4, rounding_mode="floor"),
        ),
        lambda: (
            torch.randint(-50, 50, (3, 17), generator=GENERATOR),
            torch.randint(1, 9, (17,), generator=GENERATOR)
            * torch.tensor([1, -1]).repeat(9)[:17],
        ),
    ),
    "scale_by_sizes": (
        lambda x: x * x.shape[0] + x.shape[1],
        lambda: (special(3, 17),),
    ),
    "clamp_to_sizes": (
        lambda x: torch.clamp(x * 9, min=-x.shape[0], max=x.shape[1] - 1),
        lambda: (special(3, 17),),
    ),
    "index_inner_adjacent": (
        lambda x: x[:, :, torch.tensor([[4, 0], [-1, 2]]), torch.tensor([1, 0])],
        lambda: (randn(3, 2, 5, 3, 7),),
    ),
    "index_inner_apart": (
        lambda x: x[:, torch.tensor([1, 0, 1]), :, torch.tensor([2, 2, 0])],
        lambda: (randn(3, 2, 5, 3),),
    ),
    "index_inner_run_time": (
        lambda x, i, j: x[:, i[:, None], j[None, :]],
        lambda: (
            randn(3, 5, 7),
            torch.randint(0, 5, (4,), generator=GENERATOR),
            torch.randint(0, 7, (6,), generator=GENERATOR),
        ),
    ),
    "upsample": (
        lambda x: (
            F.interpolate(x, scale_factor=2.0, mode="nearest"),
            F.interpolate(x, size=(9, 4), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(7, 11), mode="bilinear", align_corners=True),
        ),
        lambda: (randn(2, 3, 5, 7),),
    ),
    # reductions, softmax, normalisation
    "mean_sum_amax": (
        lambda x: (x.mean(dim=(-1, -2), keepdim=True), x.sum(1), x.amax(0), x.mean()),
        lambda: (randn(3, 17, 5),),
    ),
    "softmax": (
        lambda x: (torch.softmax(x, -1), torch.log_softmax(x, 1)),
        lambda: (randn(3, 17, 5),),
    ),
    "layer_norm": (
        module(lambda: torch.nn.LayerNorm([5, 17])),
        lambda: (randn(3, 5, 17),),
    ),
    "batch_norm2d": (
        module(lambda: torch.nn.BatchNorm2d(17)),
        lambda: (randn(3, 17, 4, 5),),
    ),
    "batch_norm1d": (module(lambda: torch.nn.BatchNorm1d(17)), lambda: (randn(3, 17),)),
    "batch_norm1d_seq": (
        module(lambda: torch.nn.BatchNorm1d(17)),
        lambda: (randn(3, 17, 5),),
    ),
    # convolution and pooling
    "conv_stride_pad": (
        module(lambda: Conv(17, 8, 3, stride=2, padding=1)),
        lambda: (randn(3, 17, 9, 8),),
    ),
    "conv_dilated_grouped": (
        module(lambda: Conv(6, 9, 3, dilation=2, groups=3, bias=False)),
        lambda: (randn(2, 6, 11, 9),),
    ),
    "conv1d": (
        module(lambda: Conv(5, 7, 3, padding=2, dims=1)),
        lambda: (randn(3, 5, 17),),
    ),
    "conv_transpose": (
        module(
            lambda: Conv(
                4, 6, 3, stride=2, padding=1, output_padding=1, transposed=True
            )
        ),
        lambda: (randn(2, 4, 5, 7),),
    ),
    "max_pool": (
        lambda x: (F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2, ceil_mode=True)),
        lambda: (special(2, 3, 9, 7),),
    ),
    "avg_pool": (
        lambda x: (
            F.avg_pool2d(x, 3, 2, 1),
            F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
            F.avg_pool2d(x, 2, ceil_mode=True),
        ),
        lambda: (randn(2, 3, 9, 7),),
    ),
    "adaptive_avg_pool": (
        lambda x: (F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, (3, 2))),
        lambda: (randn(2, 3, 9, 8),),
    ),
    # attention
    "sdpa_float_mask": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        lambda: (
            randn(2, 3, 5, 11),
            randn(2, 3, 7, 11),
            randn(2, 3, 7, 4),
            randn(5, 7),
        ),
    ),
    "sdpa_bool_mask_scale": (  # a fully masked row: zeros, as eager
        lambda q, k, m: F.scaled_dot_product_attention(q, k, k, attn_mask=m, scale=0.3),
        lambda: (randn(2, 3, 5, 11), randn(2, 3, 7, 11), row_masked(5, 7)),
    ),
    "sdpa_causal": (
        lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True),
        lambda: (randn(2, 3, 5, 11),),
    ),
    "attention_mask": (
        attention_mask,
        lambda: (
            torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]]),
            randn(3, 4, 33),
        ),
    ),
}

DYNAMIC = [
    "relu",
    "add_alpha",
    "gelu",
    "linear_3d",
    "permute_clone",
    "select_slice",
    "softmax",
    "layer_norm",
    "conv_stride_pad",
    "max_pool",
    "embedding",
    "index_inner_run_time",
    "clamp_to_sizes",
    "scale_by_sizes",
    "integer_division",
    "upsample",
    "attention_mask",
]
"""The cases that run again with symbolic sizes."""


pytestmark = pytest.mark.usefixtures("fresh_torch_compiler")


def assert_same(got, expected) -> None:
    """Equal dtypes and shapes; NaN where eager has NaN, the same infinities,
    the rest within 1e-4 * max |eager| + 1e-6."""
    if isinstance(expected, tuple | list):
        assert len(got) == len(expected)
        for ours, reference in zip(got, expected, strict=True):
            assert_same(ours, reference)
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if not expected.dtype.is_floating_point:
        assert torch.equal(got, expected)
        return
    assert torch.equal(got.isnan(), expected.isnan())
    finite = expected.isfinite()
    assert torch.equal(
        got[~finite & ~expected.isnan()], expected[~finite & ~expected.isnan()]
    )
    if finite.any():
        scale = expected[finite].abs().max().item()
        error = (got[finite] - expected[finite]).abs().max().item()
        assert error <= 1e-4 * scale + 1e-6, (
            f"max error {error:.3e} (scale {scale:.3e})"
        )


def run_case(name: str, dynamic: bool) -> None:
    fn, inputs = CASES[name]
    args = inputs()
    compiled = torch.compile(fn, backend=ge_backend, dynamic=dynamic)
    with torch.no_grad():
        assert_same(compiled(*args), fn(*args))
    assert not STATS.graph_breaks, [(b.op, b.reason) for b in STATS.graph_breaks]
    assert STATS.graphs(), "nothing was compiled"


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str):
    run_case(name, dynamic=False)


@pytest.mark.parametrize("name", DYNAMIC)
def test_op_matches_eager_with_symbolic_sizes(name: str):
    run_case(name, dynamic=True)
    assert any(graph.model.mode == "host" for graph in STATS.graphs())
