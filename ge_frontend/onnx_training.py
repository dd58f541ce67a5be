"""ONNX's training optimizers (domain `ai.onnx.preview.training`: Adagrad,
Momentum, Adam) as a decomposition into elementwise `ge` ops the JIT runs:
the update rules of ONNX's reference, in the same order, in the dtype of
the tensors updated (the learning rate `R` and the update count `T` are
run-time scalars; `T > 0` chooses with `ge.select`):

    Adagrad   r = R / (1 + T * decay_factor); g = norm_coefficient * X + G
              H' = H + g * g;  X' = X - r * g / (sqrt(H') + epsilon)
    Momentum  g = norm_coefficient * X + G;  b = T > 0 ? beta : 1
              V' = alpha * V + b * g
              X' = X - R * V'                  (mode "standard")
              X' = X - R * (g + alpha * V')    (mode "nesterov")
    Adam      g = norm_coefficient * X + G
              V' = alpha * V + (1 - alpha) * g
              H' = beta * H + (1 - beta) * (g * g)
              r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
              X' = (1 - norm_coefficient_post) * (X - r * (V' / (sqrt(H') + epsilon)))

Each node updates n tensors at once: its inputs are `R, T, X1..Xn, G1..Gn`
then the state (`H1..Hn`; `V1..Vn`; `V1..Vn, H1..Hn`), its outputs the new
`X`s then the new state in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ge_frontend.importing import Value, registrar
from ge_frontend.onnx_context import NodeContext

DOMAIN = "ai.onnx.preview.training"

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""`ai.onnx.preview.training` op type -> converter
(`onnx_ops.DOMAIN_CONVERTERS`)."""

converts = registrar(CONVERTERS)


class Update:
    """The scalars every tensor of a node's update shares, and arithmetic
    in the updated tensors' dtype (`ctx.op` with constants of it)."""

    def __init__(self, ctx: NodeContext, state_per_tensor: int):
        self.ctx = ctx
        count, rest = divmod(len(ctx.inputs) - 2, 2 + state_per_tensor)
        if rest or count < 1:
            raise ValueError(
                f"takes R, T and {2 + state_per_tensor} inputs per updated "
                f"tensor, got {len(ctx.inputs)} inputs"
            )
        self.count = count
        self.dtype = ctx.dtype(2)
        self.rate = self.cast(ctx.input(0), "rate")
        self.step = self.cast(ctx.input(1), "step")
        self.started = ctx.op(
            "greater", ctx.input(1), np.zeros((), ctx.dtype(1)), suffix="started"
        )

    def cast(self, value: Value, suffix: str) -> Value:
        return self.ctx.op("cast", value, dst_type=self.dtype, suffix=suffix)

    def const(self, value: float) -> np.ndarray:
        return np.array(value, self.dtype)

    def tensor(self, group: int, index: int) -> Value:
        """Input `index` of group `group` (0: X, 1: G, then the state)."""
        return self.ctx.input(2 + group * self.count + index)

    def op(self, name: str, *operands: Value | np.ndarray | float) -> Value:
        values = [self.const(v) if isinstance(v, float) else v for v in operands]
        return self.ctx.op(name, *values)

    def regularized(self, index: int, norm_coefficient: float) -> Value:
        """norm_coefficient * X + G."""
        x, g = self.tensor(0, index), self.tensor(1, index)
        return self.op("add", self.op("mul", norm_coefficient, x), g)


@converts("Adagrad")
def convert_adagrad(ctx: NodeContext) -> list[Value]:
    """X' and H' per tensor (module docstring)."""
    u = Update(ctx, 1)
    decay = float(ctx.attr("decay_factor", 0.0))
    epsilon = float(ctx.attr("epsilon", 0.0))
    norm = float(ctx.attr("norm_coefficient", 0.0))
    rate = u.op("div", u.rate, u.op("add", 1.0, u.op("mul", u.step, decay)))
    xs, hs = [], []
    for i in range(u.count):
        g = u.regularized(i, norm)
        h = u.op("add", u.tensor(2, i), u.op("mul", g, g))
        scale = u.op("add", u.op("sqrt", h), epsilon)
        xs.append(u.op("sub", u.tensor(0, i), u.op("div", u.op("mul", rate, g), scale)))
        hs.append(h)
    return xs + hs


@converts("Momentum")
def convert_momentum(ctx: NodeContext) -> list[Value]:
    """X' and V' per tensor, standard or Nesterov (module docstring)."""
    u = Update(ctx, 1)
    alpha, beta = float(ctx.attr("alpha")), float(ctx.attr("beta"))
    norm = float(ctx.attr("norm_coefficient"))
    mode = ctx.attr("mode")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in ("standard", "nesterov"):
        raise ValueError(f"mode must be 'standard' or 'nesterov', got {mode!r}")
    adjusted = ctx.op("select", u.started, u.const(beta), u.const(1.0), suffix="beta")
    xs, vs = [], []
    for i in range(u.count):
        g = u.regularized(i, norm)
        v = u.op("add", u.op("mul", alpha, u.tensor(2, i)), u.op("mul", adjusted, g))
        step = v if mode == "standard" else u.op("add", g, u.op("mul", alpha, v))
        xs.append(u.op("sub", u.tensor(0, i), u.op("mul", u.rate, step)))
        vs.append(v)
    return xs + vs


@converts("Adam")
def convert_adam(ctx: NodeContext) -> list[Value]:
    """X', V' and H' per tensor, bias-corrected once T > 0 (module docstring)."""
    u = Update(ctx, 2)
    alpha = float(ctx.attr("alpha", 0.9))
    beta = float(ctx.attr("beta", 0.999))
    epsilon = float(ctx.attr("epsilon", 0.0))
    norm = float(ctx.attr("norm_coefficient", 0.0))
    post = float(ctx.attr("norm_coefficient_post", 0.0))
    corrected = u.op(
        "div",
        u.op("mul", u.rate, u.op("sqrt", u.op("sub", 1.0, u.op("pow", beta, u.step)))),
        u.op("sub", 1.0, u.op("pow", alpha, u.step)),
    )
    rate = ctx.op("select", u.started, corrected, u.rate, suffix="rate")
    xs, vs, hs = [], [], []
    for i in range(u.count):
        g = u.regularized(i, norm)
        v = u.op("add", u.op("mul", alpha, u.tensor(2, i)), u.op("mul", 1 - alpha, g))
        h = u.op(
            "add",
            u.op("mul", beta, u.tensor(3, i)),
            u.op("mul", 1 - beta, u.op("mul", g, g)),
        )
        scale = u.op("add", u.op("sqrt", h), epsilon)
        x = u.op("sub", u.tensor(0, i), u.op("mul", rate, u.op("div", v, scale)))
        xs.append(u.op("mul", 1 - post, x))
        vs.append(v)
        hs.append(h)
    return xs + vs + hs
