"""ONNX LSTM, GRU and RNN as a decomposition into matmuls and elementwise ops.

`ge` has no recurrent op: each node becomes the loop it defines, unrolled
over the sequence (whose length must be known at import), as GE's
`DynamicRNN`-less graphs do:

1. the input projection of every step at once, one matmul per direction
   over `[seq * batch, input]` (`X * W^T + Wb (+ Rb)`);
2. per step, in the direction's order: the recurrent matmul `H_{t-1} * R^T`,
   the gate arithmetic of the op's equations (ONNX's, with `clip` on the
   input of every activation but LSTM's h(Ct), as onnxruntime does; the
   activations and their `activation_alpha/beta`,
   LSTM's peepholes `P` and `input_forget`, GRU's `linear_before_reset`);
   without an initial state the first step drops the terms of the zero state
   (exact, and the batch may stay dynamic);
3. `Y` stacks the steps' hidden states (`[seq, dirs, batch, hidden]`, or
   `[batch, seq, dirs, hidden]` with `layout = 1`), `Y_h`/`Y_c` are the last
   states. Only the outputs the model reads are built.

Weights are constants in real models, so the per-direction slices and
transposes fold at import. Per-row `sequence_lens` (shorter than the
sequence, or known only at run time) select per step: a row past its
length keeps its state and outputs zeros (forward direction only). Refused:
an unknown sequence length, per-row lengths in the reverse direction, and
the ThresholdedRelu activation.

ONNX gate orders: LSTM `iofc` (input, output, forget, cell), GRU `zrh`
(update, reset, hidden).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ge_frontend.importing import Unsupported, Value, registrar, shape_of
from ge_frontend.onnx_context import NodeContext

CONVERTERS: dict[str, Callable[[NodeContext], Sequence[Value]]] = {}
"""LSTM, GRU, RNN -> converter (merged into `onnx_ops.CONVERTERS`)."""

converts = registrar(CONVERTERS)

ACTIVATION_PARAMETERS: dict[str, tuple[float | None, float | None]] = {
    "sigmoid": (None, None),
    "tanh": (None, None),
    "relu": (None, None),
    "softsign": (None, None),
    "softplus": (None, None),
    "leakyrelu": (0.01, None),
    "elu": (1.0, None),
    "thresholdedrelu": (1.0, None),
    "hardsigmoid": (0.2, 0.5),
    "affine": (1.0, 0.0),
    "scaledtanh": (1.0, 1.0),
}
"""Activation -> default (alpha, beta); None: it takes no such parameter.
An activation consumes the next `activation_alpha` (`_beta`) entry for each
parameter it takes, in the order the activations are listed."""

DEFAULT_ACTIVATIONS = {
    4: ("Sigmoid", "Tanh", "Tanh"),  # LSTM
    3: ("Sigmoid", "Tanh"),  # GRU
    1: ("Tanh",),  # RNN
}


@dataclass(frozen=True)
class Activation:
    """One activation function with its parameters."""

    kind: str
    alpha: float | None
    beta: float | None

    def __call__(self, ctx: NodeContext, x: Value, suffix: str) -> Value:
        """Emit the activation of `x` (ops named `node/suffix...`)."""
        alpha, beta = self.alpha, self.beta
        if self.kind in ("sigmoid", "tanh", "relu", "softplus"):
            return ctx.op(self.kind, x, suffix=suffix)
        if self.kind == "leakyrelu":
            return ctx.op("leaky_relu", x, alpha=alpha, suffix=suffix)
        if self.kind == "elu":
            return ctx.op("elu", x, alpha=alpha, suffix=suffix)
        if self.kind == "softsign":
            magnitude = ctx.op("abs", x, suffix=f"{suffix}/abs")
            one_plus = ctx.op("add", magnitude, ctx.array(1.0), suffix=f"{suffix}/den")
            return ctx.op("div", x, one_plus, suffix=suffix)
        if self.kind == "scaledtanh":
            inner = ctx.op("mul", x, ctx.array(beta), suffix=f"{suffix}/scale")
            tanh = ctx.op("tanh", inner, suffix=f"{suffix}/tanh")
            return ctx.op("mul", tanh, ctx.array(alpha), suffix=suffix)
        scaled = ctx.op("mul", x, ctx.array(alpha), suffix=f"{suffix}/scale")
        shifted = ctx.op("add", scaled, ctx.array(beta), suffix=f"{suffix}/shift")
        if self.kind == "affine":
            return shifted
        assert self.kind == "hardsigmoid"
        return ctx.op("clip", shifted, min=0.0, max=1.0, suffix=suffix)


def activations(
    ctx: NodeContext, directions: int, gates: int
) -> list[list[Activation]]:
    """Each direction's activation functions (the node's or the defaults of
    the op with `gates` gate blocks)."""
    defaults = DEFAULT_ACTIVATIONS[gates]
    names = ctx.attr("activations") or list(defaults) * directions
    per_direction = len(defaults)
    if len(names) != per_direction * directions:
        raise ValueError(
            f"'activations' has {len(names)} entries, expected "
            f"{per_direction * directions}"
        )
    alphas = list(ctx.attr("activation_alpha") or [])
    betas = list(ctx.attr("activation_beta") or [])
    functions = []
    for name in names:
        kind = name.lower()
        if kind not in ACTIVATION_PARAMETERS:
            raise ValueError(f"unknown activation '{name}'")
        if kind == "thresholdedrelu":
            raise Unsupported("with the ThresholdedRelu activation")
        alpha, beta = ACTIVATION_PARAMETERS[kind]
        if alpha is not None and alphas:
            alpha = float(alphas.pop(0))
        if beta is not None and betas:
            beta = float(betas.pop(0))
        functions.append(Activation(kind, alpha, beta))
    return [
        functions[d * per_direction : (d + 1) * per_direction]
        for d in range(directions)
    ]


@dataclass
class Recurrence:
    """What every recurrent op shares: inputs in `[seq, batch, *]` order,
    per-direction weights, and the output assembly."""

    ctx: NodeContext
    gates: int
    """Gate blocks in W and R (LSTM 4, GRU 3, RNN 1)."""
    quantize: Callable[[Value, str], Value] | None = None
    """What the left operand of every matmul goes through first (onnxruntime's
    DynamicQuantizeLSTM quantizes X and each step's H to uint8 and back);
    None: used as is."""

    def __post_init__(self) -> None:
        ctx = self.ctx
        direction = ctx.attr("direction", "forward")
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ValueError(f"unknown direction '{direction}'")
        self.reverse = direction == "reverse"
        self.directions = 2 if direction == "bidirectional" else 1
        self.batch_first = bool(ctx.attr("layout", 0))
        x = ctx.input(0)
        if self.batch_first:
            x = ctx.op("transpose", x, perm=[1, 0, 2], suffix="seq_first")
        self.x = x
        shape = ctx.shape(0)
        if len(shape) != 3:
            raise ValueError(f"X has rank {len(shape)}, not 3")
        self.steps, self.batch = (shape[1], shape[0]) if self.batch_first else shape[:2]
        if self.steps == -1:
            raise Unsupported("on a sequence of unknown length")
        self.inputs = shape[2]
        weight_shape = ctx.shape(2)
        self.hidden = int(ctx.attr("hidden_size", weight_shape[-1]))
        if ctx.shape(1)[:2] != (self.directions, self.gates * self.hidden):
            raise ValueError(
                f"W has shape {list(ctx.shape(1))}, expected "
                f"[{self.directions}, {self.gates * self.hidden}, {self.inputs}]"
            )
        self.clip = ctx.attr("clip")
        self.functions = activations(ctx, self.directions, self.gates)
        self._check_sequence_lens()

    def _check_sequence_lens(self) -> None:
        """Per-row lengths (known shorter than the sequence, or known only
        at run time) become `self.lengths` [batch, 1] for `valid`."""
        self.lengths: Value | None = None
        lens = self.ctx.optional_input(4)
        if lens is None:
            return
        if isinstance(lens, np.ndarray) and np.all(lens == self.steps):
            return
        if self.reverse or self.directions == 2:
            raise Unsupported("with per-row sequence_lens in the reverse direction")
        self.lengths = self.ctx.op("reshape", lens, shape=[-1, 1], suffix="lengths")

    def valid(self, t: int) -> Value | None:
        """[batch, 1] bool: the rows whose sequence reaches step `t` (None:
        every row does)."""
        if self.lengths is None:
            return None
        step = np.array(t, self.ctx.dtype(4))
        return self.ctx.op("less", step, self.lengths, suffix=f"t{t}/valid")

    def held(
        self, valid: Value | None, new: Value, old: Value | None, suffix: str
    ) -> Value:
        """`new` in the rows whose sequence goes on, else `old` (zeros when
        None): a finished row keeps its state and outputs zeros, as
        onnxruntime does."""
        if valid is None:
            return new
        kept = self.ctx.array(0.0) if old is None else old
        return self.ctx.op("select", valid, new, kept, suffix=suffix)

    # -- pieces ---------------------------------------------------------------

    def direction(self, index: int, value: Value, what: str) -> Value:
        """`value[index]` of a `[dirs, ...]` input (`what` names the ops)."""
        part = self.ctx.op(
            "slice",
            value,
            begins=[index],
            ends=[index + 1],
            axes=[0],
            steps=[1],
            suffix=f"d{index}/{what}_slice",
        )
        return self.ctx.op("squeeze", part, axes=[0], suffix=f"d{index}/{what}")

    def block(self, value: Value, index: int, width: int, suffix: str) -> Value:
        """Columns `[index * width, (index + 1) * width)` of the last axis."""
        return self.span(value, -1, index * width, (index + 1) * width, suffix)

    def span(self, value: Value, axis: int, begin: int, end: int, suffix: str):
        """`value[begin:end]` along `axis`."""
        return self.ctx.op(
            "slice",
            value,
            begins=[begin],
            ends=[end],
            axes=[axis % len(shape_of(value))],
            steps=[1],
            suffix=suffix,
        )

    def initial_state(self, input_index: int, d: int, what: str) -> Value | None:
        """Direction `d` of initial_h / initial_c (None: zeros)."""
        state = self.ctx.optional_input(input_index)
        if state is None:
            return None
        if self.batch_first:
            state = self.ctx.op(
                "transpose", state, perm=[1, 0, 2], suffix=f"{what}_dir_first"
            )
        return self.direction(d, state, what)

    def projections(self, d: int, weights: Value, bias: Value | None) -> list[Value]:
        """X_t * W^T + bias for every step t: `[batch, gates * hidden]` each,
        sliced from one product of the whole sequence `[seq, batch, gates *
        hidden]` (the weight broadcast over the steps: a FRACTAL_NZ product
        whose step t is whole fractals, so the steps stay in FRACTAL_NZ)."""
        ctx = self.ctx
        w = self.direction(d, weights, "w")
        x = self.x
        if self.quantize is not None:
            x = self.quantize(x, f"d{d}/x_w/quantized")
        steps = ctx.op("batch_matmul", x, w, adj_x2=True, suffix=f"d{d}/x_w")
        if bias is not None:
            steps = ctx.op("add", steps, bias, suffix=f"d{d}/x_w_bias")
        return [
            ctx.op(
                "squeeze",
                ctx.op(
                    "slice",
                    steps,
                    begins=[t],
                    ends=[t + 1],
                    axes=[0],
                    steps=[1],
                    suffix=f"d{d}/t{t}/x_slice",
                ),
                axes=[0],
                suffix=f"d{d}/t{t}/x",
            )
            for t in range(self.steps)
        ]

    def matmul(self, x: Value, w: Value, suffix: str) -> Value:
        """x * w^T, x through `quantize` first when set."""
        if self.quantize is not None:
            x = self.quantize(x, f"{suffix}/quantized")
        return self.ctx.op("matmul", x, w, transpose_x2=True, suffix=suffix)

    def order(self, d: int) -> list[int]:
        """The time steps direction `d` visits, in order."""
        backwards = self.reverse or d == 1
        steps = list(range(self.steps))
        return steps[::-1] if backwards else steps

    def clipped(self, value: Value, suffix: str) -> Value:
        """`value` clipped to [-clip, clip] (the input of every activation)."""
        if self.clip is None:
            return value
        bound = float(self.clip)
        return self.ctx.op("clip", value, min=-bound, max=bound, suffix=suffix)

    def activate(self, d: int, which: int, value: Value, suffix: str) -> Value:
        """Activation number `which` of direction `d` on the clipped `value`."""
        clipped = self.clipped(value, f"{suffix}/clip")
        return self.functions[d][which](self.ctx, clipped, suffix)

    # -- outputs --------------------------------------------------------------

    def sequence_output(self, states: list[dict[int, Value]]) -> Value:
        """Y: `[seq, dirs, batch, hidden]` (`[batch, seq, dirs, hidden]`)."""
        ctx = self.ctx
        per_direction = []
        for d, by_step in enumerate(states):
            rows = [
                ctx.op("unsqueeze", by_step[t], axes=[0], suffix=f"d{d}/t{t}/y")
                for t in range(self.steps)
            ]
            stacked = ctx.op("concat", rows, axis=0, suffix=f"d{d}/y")
            per_direction.append(
                ctx.op("unsqueeze", stacked, axes=[1], suffix=f"d{d}/y_4d")
            )
        y = (
            per_direction[0]
            if len(per_direction) == 1
            else ctx.op("concat", per_direction, axis=1, suffix="y_dirs")
        )
        if self.batch_first:
            return ctx.op("transpose", y, perm=[2, 0, 1, 3], suffix="y")
        return y

    def last_output(self, finals: list[Value], what: str) -> Value:
        """Y_h / Y_c: `[dirs, batch, hidden]` (`[batch, dirs, hidden]`)."""
        ctx = self.ctx
        rows = [
            ctx.op("unsqueeze", final, axes=[0], suffix=f"d{d}/{what}")
            for d, final in enumerate(finals)
        ]
        out = rows[0] if len(rows) == 1 else ctx.op("concat", rows, axis=0, suffix=what)
        if self.batch_first:
            return ctx.op("transpose", out, perm=[1, 0, 2], suffix=f"{what}_batch")
        return out

    def outputs(
        self, states: list[dict[int, Value]], finals: Sequence[list[Value]]
    ) -> list[Value | None]:
        """[Y, Y_h, (Y_c)]: the used ones built, None for the others."""
        used = self.ctx.outputs_used
        results: list[Value | None] = [
            self.sequence_output(states) if used and used[0] else None
        ]
        for index, (final, what) in enumerate(
            zip(finals, ("y_h", "y_c"), strict=False)
        ):
            wanted = index + 1 < len(used) and used[index + 1]
            results.append(self.last_output(final, what) if wanted else None)
        return results[: len(used)]

    def bias_halves(self, d: int) -> tuple[Value, Value] | None:
        """Direction `d`'s (Wb, Rb), or None without B."""
        bias = self.ctx.optional_input(3)
        if bias is None:
            return None
        both = self.direction(d, bias, "b")
        width = self.gates * self.hidden
        return (
            self.block(both, 0, width, f"d{d}/wb"),
            self.block(both, 1, width, f"d{d}/rb"),
        )


def _add(ctx: NodeContext, a: Value | None, b: Value, suffix: str) -> Value:
    """a + b, or b when a is absent (a zero state's term)."""
    return b if a is None else ctx.op("add", a, b, suffix=suffix)


def _mul(ctx: NodeContext, a: Value | None, b: Value, suffix: str) -> Value | None:
    """a * b, None when a is absent (zero)."""
    return None if a is None else ctx.op("mul", a, b, suffix=suffix)


@converts("LSTM")
def convert_lstm(ctx: NodeContext) -> list[Value | None]:
    """it = f(x Wi + h Ri + Pi c + b), ft likewise, ct~ = g(...), Ct = ft Ct-1
    + it ct~, ot = f(x Wo + h Ro + Po Ct + b), Ht = ot h(Ct)."""
    return lstm(Recurrence(ctx, gates=4))


def lstm(rec: Recurrence) -> list[Value | None]:
    """`convert_lstm` on `rec`'s node (also DynamicQuantizeLSTM's)."""
    ctx, hidden = rec.ctx, rec.hidden
    couple = bool(ctx.attr("input_forget", 0))
    peepholes = ctx.optional_input(7)
    states: list[dict[int, Value]] = []
    finals_h, finals_c = [], []
    for d in range(rec.directions):
        halves = rec.bias_halves(d)
        bias = None if halves is None else ctx.op("add", *halves, suffix=f"d{d}/bias")
        x_parts = rec.projections(d, ctx.input(1), bias)
        r = rec.direction(d, ctx.input(2), "r")
        p = None if peepholes is None else rec.direction(d, peepholes, "p")
        p_i, p_o, p_f = (
            (None, None, None)
            if p is None
            else (rec.block(p, k, hidden, f"d{d}/p{k}") for k in range(3))
        )
        h = rec.initial_state(5, d, "h0")
        c = rec.initial_state(6, d, "c0")
        by_step: dict[int, Value] = {}
        for t in rec.order(d):
            name = f"d{d}/t{t}"
            h_before, c_before = h, c
            gates = x_parts[t]
            if h is not None:
                recurrent = rec.matmul(h, r, f"{name}/h_r")
                gates = ctx.op("add", gates, recurrent, suffix=f"{name}/gates")
            i, o, f, g = (
                rec.block(gates, k, hidden, f"{name}/{gate}")
                for k, gate in enumerate("iofc")
            )
            if p_i is not None:
                i = _add(ctx, _mul(ctx, c, p_i, f"{name}/pi_c"), i, f"{name}/i_peep")
            i = rec.activate(d, 0, i, f"{name}/i_act")
            if couple:
                f = ctx.op("sub", ctx.array(1.0), i, suffix=f"{name}/f_act")
            else:
                if p_f is not None:
                    f = _add(
                        ctx, _mul(ctx, c, p_f, f"{name}/pf_c"), f, f"{name}/f_peep"
                    )
                f = rec.activate(d, 0, f, f"{name}/f_act")
            g = rec.activate(d, 1, g, f"{name}/c_act")
            c = _add(
                ctx,
                _mul(ctx, c, f, f"{name}/f_c"),
                ctx.op("mul", i, g, suffix=f"{name}/i_g"),
                f"{name}/c",
            )
            if p_o is not None:
                o = ctx.op(
                    "add",
                    o,
                    ctx.op("mul", c, p_o, suffix=f"{name}/po_c"),
                    suffix=f"{name}/o_peep",
                )
            o = rec.activate(d, 0, o, f"{name}/o_act")
            # onnxruntime clips the gates, not the cell state h() reads
            cell = rec.functions[d][2](ctx, c, f"{name}/h_act")
            h = ctx.op("mul", o, cell, suffix=f"{name}/h")
            valid = rec.valid(t)
            by_step[t] = rec.held(valid, h, None, f"{name}/y")
            h = rec.held(valid, h, h_before, f"{name}/h_held")
            c = rec.held(valid, c, c_before, f"{name}/c_held")
        states.append(by_step)
        finals_h.append(h)
        finals_c.append(c)
    return rec.outputs(states, (finals_h, finals_c))


@converts("GRU")
def convert_gru(ctx: NodeContext) -> list[Value | None]:
    """zt = f(x Wz + h Rz + b), rt = f(x Wr + h Rr + b), ht~ = g(x Wh + (rt h)
    Rh + b) or, with linear_before_reset, g(x Wh + rt (h Rh + Rbh) + Wbh),
    Ht = (1 - zt) ht~ + zt Ht-1."""
    rec = Recurrence(ctx, gates=3)
    hidden = rec.hidden
    linear_before_reset = bool(ctx.attr("linear_before_reset", 0))
    states: list[dict[int, Value]] = []
    finals: list[Value] = []
    for d in range(rec.directions):
        halves = rec.bias_halves(d)
        if halves is None:
            x_bias, rb_h = None, None
        else:
            wb, rb = halves
            rb_h = rec.block(rb, 2, hidden, f"d{d}/rb_h")
            if linear_before_reset:  # Rbh is added before the reset gate
                rb_zr = rec.block(rb, 0, 2 * hidden, f"d{d}/rb_zr")
                no_rbh = ctx.array(np.zeros(hidden))
                rb = ctx.op("concat", [rb_zr, no_rbh], axis=0, suffix=f"d{d}/rb_x")
            x_bias = ctx.op("add", wb, rb, suffix=f"d{d}/bias")
        x_parts = rec.projections(d, ctx.input(1), x_bias)
        r = rec.direction(d, ctx.input(2), "r")
        r_zr = rec.span(r, 0, 0, 2 * hidden, f"d{d}/r_zr")
        r_h = rec.span(r, 0, 2 * hidden, 3 * hidden, f"d{d}/r_h")
        h = rec.initial_state(5, d, "h0")
        by_step: dict[int, Value] = {}
        for t in rec.order(d):
            name = f"d{d}/t{t}"
            h_before = h
            x_zr = rec.block(x_parts[t], 0, 2 * hidden, f"{name}/x_zr")
            x_h = rec.block(x_parts[t], 2, hidden, f"{name}/x_h")
            zr = x_zr
            if h is not None:
                h_zr = rec.matmul(h, r_zr, f"{name}/h_rzr")
                zr = ctx.op("add", zr, h_zr, suffix=f"{name}/zr")
            z = rec.activate(
                d, 0, rec.block(zr, 0, hidden, f"{name}/z"), f"{name}/z_act"
            )
            reset = rec.activate(
                d, 0, rec.block(zr, 1, hidden, f"{name}/r"), f"{name}/r_act"
            )
            candidate = x_h
            if linear_before_reset:
                h_rh = None if h is None else rec.matmul(h, r_h, f"{name}/h_rh")
                if rb_h is not None:
                    h_rh = _add(ctx, h_rh, rb_h, f"{name}/h_rh_b")
                if h_rh is not None:
                    gated = ctx.op("mul", reset, h_rh, suffix=f"{name}/r_h_rh")
                    candidate = ctx.op("add", candidate, gated, suffix=f"{name}/hh")
            elif h is not None:
                gated = ctx.op("mul", reset, h, suffix=f"{name}/r_h")
                recurrent = rec.matmul(gated, r_h, f"{name}/rh_r")
                candidate = ctx.op("add", candidate, recurrent, suffix=f"{name}/hh")
            candidate = rec.activate(d, 1, candidate, f"{name}/h_act")
            keep = ctx.op("sub", ctx.array(1.0), z, suffix=f"{name}/one_minus_z")
            fresh = ctx.op("mul", keep, candidate, suffix=f"{name}/new")
            h = _add(ctx, _mul(ctx, h, z, f"{name}/z_h"), fresh, f"{name}/h")
            valid = rec.valid(t)
            by_step[t] = rec.held(valid, h, None, f"{name}/y")
            h = rec.held(valid, h, h_before, f"{name}/h_held")
        states.append(by_step)
        finals.append(h)
    return rec.outputs(states, (finals,))


@converts("RNN")
def convert_rnn(ctx: NodeContext) -> list[Value | None]:
    """Ht = f(x Wi + h Ri + Wbi + Rbi)."""
    rec = Recurrence(ctx, gates=1)
    states: list[dict[int, Value]] = []
    finals: list[Value] = []
    for d in range(rec.directions):
        halves = rec.bias_halves(d)
        bias = None if halves is None else ctx.op("add", *halves, suffix=f"d{d}/bias")
        x_parts = rec.projections(d, ctx.input(1), bias)
        r = rec.direction(d, ctx.input(2), "r")
        h = rec.initial_state(5, d, "h0")
        by_step: dict[int, Value] = {}
        for t in rec.order(d):
            name = f"d{d}/t{t}"
            pre = x_parts[t]
            if h is not None:
                recurrent = rec.matmul(h, r, f"{name}/h_r")
                pre = ctx.op("add", pre, recurrent, suffix=f"{name}/pre")
            fresh = rec.activate(d, 0, pre, f"{name}/h")
            valid = rec.valid(t)
            by_step[t] = rec.held(valid, fresh, None, f"{name}/y")
            h = rec.held(valid, fresh, h, f"{name}/h_held")
        states.append(by_step)
        finals.append(h)
    return rec.outputs(states, (finals,))
