"""The torch importer's own mechanisms: reshape plans on symbolic sizes
(checked numerically for random bindings), the rollback of a converter that
fails half-way, host values cached per binding of the symbols."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.fx.experimental.symbolic_shapes import (  # noqa: E402
    DimDynamic,
    ShapeEnv,
    StatelessSymbolicContext,
)

from ge_dialect.adapters import call_kernel  # noqa: E402
from ge_dialect.ops import ReshapeOp, UnsqueezeOp  # noqa: E402
from ge_frontend import torch_fx  # noqa: E402
from ge_frontend.importing import Unsupported  # noqa: E402
from ge_frontend.torch_ops import CONVERTERS, plan_reshape  # noqa: E402


def symbols(count: int) -> list:
    """`count` independent symbolic sizes (hinted 2, 3, ...)."""
    mode = FakeTensorMode(shape_env=ShapeEnv())
    context = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * count)
    fake = mode.from_tensor(torch.empty(*range(2, 2 + count)), symbolic_context=context)
    return list(fake.shape)


def concrete(shape, bindings) -> list[int]:
    return [torch_fx.size_value(d, bindings) for d in shape]


def apply_plan(plan, x: np.ndarray) -> np.ndarray:
    """The plan run with the ge kernels (unsqueeze, then ge.reshape's 0/-1)."""
    if plan.unsqueeze:
        x = call_kernel(UnsqueezeOp, x, axes=plan.unsqueeze)
    return call_kernel(ReshapeOp, x, shape=plan.shape)


S0, S1, S2 = symbols(3)

PLANS = [
    # (in, out, unsqueeze, ge.reshape shape)
    ([S0, S1, 64], [S0 * S1, 64], [], [-1, 64]),
    ([S0, S1, 64], [S0, S1, 4, 16], [], [0, 0, 4, 16]),
    ([S0 * 4, S1, 16], [S0, 4, S1, 16], [1], [-1, 4, 0, 16]),
    ([S0, S1], [S0, 1, 1, S1], [1, 2], [0, 1, 1, 0]),
    ([S0, 3, S2], [S0, S2, 3], [], [0, -1, 3]),
    ([S0, S1], [S1, S0], [0], [-1, 0]),  # the -1 is s1, s0 copied from 1
    ([6, 5], [3, 10], [], [3, 10]),
    ([0, 5], [0, 5, 1], [], [0, 5, 1]),
]


@pytest.mark.parametrize(("source", "target", "unsqueeze", "shape"), PLANS)
def test_reshape_plans(source, target, unsqueeze, shape):
    plan = plan_reshape(source, target)
    assert (plan.unsqueeze, plan.shape) == (unsqueeze, shape)


@pytest.mark.parametrize(
    ("source", "target"),
    [([S0 * S1, 64], [S0, S1, 64]), ([S0, S1 * S2], [S0 * S1, S2]), ([5, 0], [0, 5])],
    ids=["split_of_a_product", "regrouped_products", "empty_moved"],
)
def test_reshapes_ge_cannot_write_are_unsupported(source, target):
    with pytest.raises(Unsupported):
        plan_reshape(source, target)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=3, max_size=3), st.sampled_from(PLANS[:6]))
def test_reshape_plans_compute_the_reshape_for_every_binding(values, case):
    source, target, _, _ = case
    bindings = {s.node.expr: v for s, v in zip((S0, S1, S2), values, strict=True)}
    x = np.arange(np.prod(concrete(source, bindings))).reshape(
        concrete(source, bindings)
    )
    got = apply_plan(plan_reshape(source, target), x)
    np.testing.assert_array_equal(got, x.reshape(concrete(target, bindings)))


def test_a_converter_failing_half_way_leaves_nothing_behind():
    """Ops, graph inputs and weights a converter emitted before raising
    Unsupported are removed; the node is a graph break."""

    def relu_then_refuse(ctx):
        ctx.op("relu", ctx.tensor("self"), suffix="emitted")
        ctx.op("add", ctx.tensor("self"), np.ones(5000, np.float32), suffix="weight")
        raise Unsupported("refused after emitting")

    graph = torch.fx.symbolic_trace(lambda x: torch.exp(torch.abs(x)))
    for node in graph.graph.nodes:
        node.target = {
            torch.exp: torch.ops.aten.exp.default,
            torch.abs: torch.ops.aten.abs.default,
        }.get(node.target, node.target)
    mode = FakeTensorMode()
    example = mode.from_tensor(torch.randn(5000))
    for node in graph.graph.nodes:
        if node.op != "output":
            node.meta["val"] = example
    emitter = torch_fx.TorchEmitter(torch_fx.GraphBuilder("main"))
    converters = {**CONVERTERS, "aten.abs.default": relu_then_refuse}
    imported = torch_fx.FxImporter(graph, {}, {}, converters).run(emitter)
    (node,) = imported.unsupported
    assert node.target is torch.ops.aten.abs.default
    assert "refused after emitting" in imported.unsupported[node]
    ops = [op.name for op in imported.model.module.body.block.first_op.body.block.ops]
    assert ops == ["ge.data", "ge.data", "ge.exp", "ge.netoutput"]
    assert not imported.model.weights


def test_host_values_are_computed_once_per_binding():
    def program(x):
        return x + torch.arange(x.shape[0])[:, None].to(torch.float32)

    torch._dynamo.reset()
    seen = []

    def backend(graph_module, example_inputs):
        from torch._dynamo.backends.common import aot_autograd

        def forward(gm, fake):
            with torch._subclasses.fake_tensor.unset_fake_temporarily():
                seen.append(torch_fx.import_fx_graph(gm))
            return gm

        return aot_autograd(fw_compiler=forward)(graph_module, example_inputs)

    torch.compile(program, backend=backend, dynamic=True)(torch.randn(3, 4))
    (imported,) = seen
    hosted = [i for i, feed in enumerate(imported.feeds_by_index) if feed.host]
    assert hosted
    sizes = range(2, 2 + torch_fx.HOST_CACHE_SIZE + 1)
    args = {n: [n, 4, torch.randn(n, 4)] for n in sizes}  # s0, s1, x
    first = imported.feeds(args[2])[hosted[0]]
    assert imported.feeds(args[2])[hosted[0]] is first  # cached
    np.testing.assert_array_equal(first.reshape(-1), np.arange(2))
    for n, call in args.items():
        assert imported.feeds(call)[hosted[0]].shape[0] == n
    assert len(imported._host_cache) == torch_fx.HOST_CACHE_SIZE
    assert imported.feeds(args[2])[hosted[0]] is not first  # dropped, computed again
