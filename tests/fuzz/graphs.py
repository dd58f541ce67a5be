"""Hypothesis strategies for random valid `ge` graphs (the differential fuzzer).

`fuzz_cases()` draws a `FuzzCase`: a verified module with one `ge.graph @main`,
the `ge-format-pipeline` options to compile it with and an input seed. A
graph is a pool of 4-D activations in one data format (NCHW or NHWC, on an
input with an explicit origin format, a user storage format, or none) grown
by random blocks:

- `conv`: `ge.conv2d` (1x1 or 3x3, stride 1 or 2, optional bias operand or
  `ge.bias_add`, grouped/depthwise sometimes, filter in OIHW/HWIO/OHWI),
  optional `ge.batch_norm`, an activation;
- `pool`: max/avg pooling (2x2/2, or 3x3/1 padded) or global pooling;
- `unary`: a bounded activation; `join`: a binary op or `ge.add_n` of two
  same-shape activations (a branch and its join), else a broadcast constant;
- `concat`: two activations along the channel axis;
- `relayout`: a `ge.transdata` already in the input graph (to NC1HWC0 or
  FRACTAL_Z, or back to the origin format);
- `chain`: a random trans-op chain (`ge.transdata` to NC1HWC0 / FRACTAL_Z /
  FRACTAL_NZ and back, casts fp16 <-> fp32, transposes NCHW <-> NHWC,
  reshapes, unsqueeze/squeeze), ending as a graph output;
- `matmul`: flatten (or a fresh 2-D input) into a chain of `ge.matmul` /
  `ge.batch_matmul` with odd sizes, ending in softmax or an activation;
- `attention`: a fresh `[B, S, K]` input through one QKV `ge.batch_matmul`
  and a `ge.split` of its columns (FRACTAL_NZ where Q, K and V are whole
  C0 blocks), head splits (`reshape`, `transpose`; K^T also as GPT-2
  exports it, over `[B*H, S, D]`), scores, softmax, context and the head
  merge, ending as a graph output;
- `shuffle`: ShuffleNet's channel shuffle (reshape to groups, transpose,
  reshape back) of an NCHW activation whose channels split into groups
  (else a unary op);
- `reduce`: softmax over channels or a mean over H and W;
- `if`: `ge.if` on an int32 input with shape-preserving branches;
- `while`: `ge.while` counting to 1-3 around a shape-preserving body.

Channel counts are odd (1, 3, 5, 17, 33) or exactly one block (16); dtypes
fp16 or fp32; pipeline options vary the data format, the target (seed C0
rule or Ascend910), the heavy-format spread and the passes beyond GE.
Every drawn choice shrinks toward the simplest graph: one `unary` block,
NCHW, fp32, 1 channel.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st
from test_transop_passes import ChainBuilder, Value
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.printer import Printer

from ge_dialect.builder import GraphBuilder, tensor_type
from ge_dialect.layout import layout_of
from ge_dialect.relayout import transfer_shape
from passes.format_pipeline import FormatPipelinePass

DTYPES = ("float32", "float16")
CHANNELS = (1, 3, 17, 5, 33, 16)
LAYOUTS = ("NCHW", "NHWC")
TARGETS = (None, "Ascend910")
UNARY = ("relu", "sigmoid", "tanh", "abs", "neg", "leaky_relu", "elu", "clip")
BINARY = ("add", "mul", "maximum", "sub", "minimum", "add_n")
FILTER_LAYOUTS = {"NCHW": "OIHW", "HWCN": "HWIO", "NHWC": "OHWI", None: "OIHW"}
"""How a filter of each origin format (None: ND, read as NCHW) is laid out."""

REPR_LIMIT = 20_000
"""A case's repr (hypothesis prints it for a failure) shows IR up to this size."""

BLOCKS = (
    "unary",
    "conv",
    "pool",
    "join",
    "concat",
    "chain",
    "matmul",
    "reduce",
    "if",
    "while",
    "conv",
    "chain",
    "relayout",
    "case",
    "attention",
    "shuffle",
    "split",
    "recurrent",
    "tokens",
)
"""Block kinds, simplest first (hypothesis shrinks toward the first); convs
and trans-op chains, where most layout work happens, are drawn twice as often."""


@dataclass(frozen=True)
class PipelineOptions:
    """Options of `ge-format-pipeline` for one case."""

    data_format: str = "NCHW"
    target: str | None = None
    spread: bool = True
    beyond_ge: bool = True

    def option_text(self) -> str:
        """The options as `ge-opt --ge-format-pipeline=...` takes them."""
        words = [
            f"data-format={self.data_format}",
            f"spread={str(self.spread).lower()}",
            f"beyond-ge={str(self.beyond_ge).lower()}",
        ]
        if self.target is not None:
            words.append(f"target={self.target}")
        return " ".join(words)

    def make_pass(self) -> FormatPipelinePass:
        """The configured pipeline pass."""
        return FormatPipelinePass(
            data_format=self.data_format,
            target=self.target,
            spread=self.spread,
            beyond_ge=self.beyond_ge,
        )


@dataclass
class FuzzCase:
    """A random graph, its pipeline options and the seed of its inputs."""

    module: ModuleOp
    options: PipelineOptions
    seed: int
    blocks: tuple[str, ...]

    def text(self) -> str:
        """The module as MLIR text."""
        stream = io.StringIO()
        Printer(stream=stream).print_op(self.module)
        return stream.getvalue()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis's printer would expand the fields

    def __repr__(self) -> str:
        text = self.text()
        shown = text if len(text) <= REPR_LIMIT else f"<{len(text)} characters of IR>"
        return (
            f"FuzzCase(blocks={list(self.blocks)}, options='"
            f"{self.options.option_text()}', seed={self.seed})\n{shown}"
        )


@dataclass
class Act:
    """A 4-D activation of the pool: its value and shape in the data format."""

    ssa: SSAValue
    shape: tuple[int, ...]


@dataclass
class GraphFuzzer:
    """Grows one graph from drawn choices (`draw` is hypothesis's)."""

    draw: Callable[[st.SearchStrategy[Any]], Any]
    b: GraphBuilder
    dtype: str
    layout: str
    target: str | None
    rng: np.random.Generator
    pool: list[Act] = field(default_factory=list)
    outputs: list[SSAValue] = field(default_factory=list)
    inputs: int = 0

    # -- helpers --------------------------------------------------------------

    def pick(self, options: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(options))

    def act(self) -> Act:
        """A pool activation (later ones shrink first: index from the end)."""
        return self.pool[-1 - self.draw(st.integers(0, len(self.pool) - 1))]

    def channel_axis(self) -> int:
        return 1 if self.layout == "NCHW" else 3

    def spatial(self, shape: Sequence[int]) -> tuple[int, int]:
        return (shape[2], shape[3]) if self.layout == "NCHW" else (shape[1], shape[2])

    def hw_list(self, h: int, w: int) -> list[int]:
        """A 4-entry attribute (strides, ksize) in the data format's axis order."""
        return [1, 1, h, w] if self.layout == "NCHW" else [1, h, w, 1]

    def weights(self, shape: Sequence[int], fan_in: int = 1) -> np.ndarray:
        scale = 1.0 / np.sqrt(max(fan_in, 1))
        return (self.rng.standard_normal(shape) * scale).astype(self.dtype)

    def const(self, array: np.ndarray, format: str | None = None) -> SSAValue:
        return self.b.const(array, format=format)

    def channel_vector(self, channels: int) -> SSAValue:
        return self.const(self.weights([channels]))

    def shape_of(self, value: SSAValue) -> tuple[int, ...]:
        return tuple(value.type.get_shape())  # type: ignore[attr-defined]

    def push(self, value: SSAValue) -> None:
        self.pool.append(Act(value, self.shape_of(value)))

    # -- graph inputs ---------------------------------------------------------

    def data_input(self) -> None:
        """The main 4-D input: explicit format, user storage format, or none."""
        n = self.draw(st.integers(1, 2))
        c = self.pick(CHANNELS)
        h, w = self.draw(st.integers(1, 6)), self.draw(st.integers(1, 6))
        shape = [n, c, h, w] if self.layout == "NCHW" else [n, h, w, c]
        how = self.pick(("format", "storage", "none"))
        kwargs: dict[str, Any] = {}
        if how != "none":
            kwargs["format"] = self.layout
        if how == "storage":
            # the user's storage shape, or [] (derive it); types verify explicit
            # storage shapes with the seed C0 rule, so only without a target
            explicit = self.target is None and self.draw(st.booleans())
            kwargs["storage_format"] = "NC1HWC0"
            kwargs["storage_shape"] = (
                transfer_shape(shape, self.layout, "NC1HWC0", self.dtype)
                if explicit
                else []
            )
        self.push(self.b.data(shape, self.dtype, name="x", **kwargs))
        self.inputs += 1

    def extra_input(self, shape: Sequence[int], dtype: str) -> SSAValue:
        self.inputs += 1
        return self.b.data(shape, dtype, name=f"in{self.inputs}")

    # -- blocks ---------------------------------------------------------------

    def unary(self, value: SSAValue) -> SSAValue:
        op = self.pick(UNARY)
        attrs: dict[str, Any] = {
            "leaky_relu": {"alpha": 0.1},
            "elu": {"alpha": 0.5},
            "clip": {"min": -0.5, "max": 0.75},
        }.get(op, {})
        return self.b.op(op, value, **attrs)

    def block_unary(self) -> None:
        self.push(self.unary(self.act().ssa))

    def conv(self, x: Act, cout: int, k: int, stride: int, groups: int) -> SSAValue:
        cin = x.shape[self.channel_axis()]
        # a plain activation takes its layout from the filter: keep it meaningful
        plain = layout_of(x.ssa.type)[0].value == "ND"  # type: ignore[arg-type]
        filter_format = self.pick(
            (None, self.layout) if plain else (self.layout, "HWCN", None)
        )
        sizes = {"O": cout, "I": cin // groups, "H": k, "W": k}
        shape = [sizes[axis] for axis in FILTER_LAYOUTS[filter_format]]
        filter_ = self.const(self.weights(shape, sizes["I"] * k * k), filter_format)
        bias = self.channel_vector(cout) if self.draw(st.booleans()) else None
        return self.b.conv2d(
            x.ssa,
            filter_,
            bias,
            strides=self.hw_list(stride, stride),
            pads=[k // 2] * 4,
            groups=groups,
            data_format=self.layout,
        )

    def block_conv(self) -> None:
        x = self.act()
        cin = x.shape[self.channel_axis()]
        k, stride = self.pick((1, 3)), self.pick((1, 2))
        grouping = self.pick(("dense", "dense", "depthwise", "grouped"))
        if grouping == "depthwise" and cin > 1:
            cout, groups = cin, cin
        elif grouping == "grouped" and cin % 2 == 0:
            cout, groups = self.pick((cin, 2 * cin)), 2
        else:
            cout, groups = self.pick(CHANNELS), 1
        y = self.conv(x, cout, k, stride, groups)
        if self.draw(st.booleans()):
            y = self.b.bias_add(y, self.channel_vector(cout), data_format=self.layout)
        if self.draw(st.booleans()):
            variance = np.abs(self.weights([cout])) + 0.5
            y = self.b.batch_norm(
                y,
                *(self.channel_vector(cout) for _ in range(3)),
                self.const(variance.astype(self.dtype)),
                data_format=self.layout,
            )
        self.push(self.unary(y))

    def block_pool(self) -> None:
        x = self.act()
        h, w = self.spatial(x.shape)
        kind = self.pick(("max_pool", "avg_pool", "global_avg_pool", "global_max_pool"))
        if kind.startswith("global"):
            self.push(self.b.op(kind, x.ssa, data_format=self.layout))
            return
        if h >= 2 and w >= 2 and self.draw(st.booleans()):
            window, stride, pads = 2, 2, [0, 0, 0, 0]
        else:
            window, stride, pads = 3, 1, [1, 1, 1, 1]
        attrs = {"count_include_pad": False} if kind == "avg_pool" else {}
        self.push(
            self.b.op(
                kind,
                x.ssa,
                ksize=self.hw_list(window, window),
                strides=self.hw_list(stride, stride),
                pads=pads,
                data_format=self.layout,
                **attrs,
            )
        )

    def block_join(self) -> None:
        x = self.act()
        partners = [a for a in self.pool if a.shape == x.shape and a is not x]
        op = self.pick(BINARY)
        if partners:
            other = partners[self.draw(st.integers(0, len(partners) - 1))].ssa
        else:  # a per-channel constant broadcast against the activation
            shape = [1, 1, 1, 1]
            shape[self.channel_axis()] = x.shape[self.channel_axis()]
            other = self.const(self.weights(shape))
            op = "add" if op == "add_n" else op
        if op == "add_n":
            self.push(self.b.add_n([x.ssa, other, x.ssa]))
        else:
            self.push(self.b.op(op, x.ssa, other))

    def block_concat(self) -> None:
        x = self.act()
        axis = self.channel_axis()
        same = [
            a for a in self.pool if _without(a.shape, axis) == _without(x.shape, axis)
        ]
        other = same[self.draw(st.integers(0, len(same) - 1))]
        self.push(self.b.concat([x.ssa, other.ssa], axis=axis))

    def block_chain(self) -> None:
        """A trans-op chain (moves of `ChainBuilder`) ending as an output."""
        x = self.act()
        origin, storage = (str(f) for f in layout_of(x.ssa.type))  # type: ignore[arg-type]
        chain = ChainBuilder(self.b)
        value = Value(x.ssa, x.shape, origin, storage, self.dtype)
        other_dtype = DTYPES[1 - DTYPES.index(self.dtype)]
        moves: dict[str, Callable[[Value], Value | None]] = {
            "nc1hwc0": lambda v: chain.transdata(v, "NC1HWC0"),
            "fractal_z": lambda v: chain.transdata(v, "FRACTAL_Z"),
            "fractal_nz": lambda v: chain.transdata(v, "FRACTAL_NZ"),
            "back": lambda v: chain.transdata(v, v.origin),
            "cast": lambda v: chain.cast(
                v, other_dtype if v.dtype == self.dtype else self.dtype
            ),
            "transpose": self._transpose_move(chain),
            "reshape": lambda v: (
                chain.reshape(v, (v.shape[0], v.shape[1], v.shape[2] * v.shape[3], 1))
                if len(v.shape) == 4
                else None
            ),
            "unsqueeze": lambda v: (
                chain.unsqueeze(v) if len(v.shape) == 4 else chain.squeeze(v, v.origin)
            ),
            "undo": lambda v: v.undo(chain, v) if v.undo else None,
            "real": chain.real_op,
        }
        for _ in range(self.draw(st.integers(1, 5))):
            value = moves[self.pick(tuple(moves))](value) or value
        self.outputs.extend([*chain.outputs, value.ssa])

    @staticmethod
    def _transpose_move(chain: ChainBuilder) -> Callable[[Value], Value | None]:
        def move(v: Value) -> Value | None:
            if v.origin == "NCHW":
                return chain.transpose(v, [0, 2, 3, 1], "NHWC")
            if v.origin == "NHWC":
                return chain.transpose(v, [0, 3, 1, 2], "NCHW")
            return None

        return move

    def block_relayout(self) -> None:
        """A `ge.transdata` in the input graph: NC1HWC0 and back, or FRACTAL_Z."""
        x = self.act()
        origin, storage = layout_of(x.ssa.type)  # type: ignore[arg-type]
        if origin.value not in LAYOUTS:
            self.push(self.unary(x.ssa))
            return
        wanted = (
            origin.value if storage != origin else self.pick(("NC1HWC0", "FRACTAL_Z"))
        )
        self.push(self.b.transdata(x.ssa, src_format=storage.value, dst_format=wanted))

    def block_matmul(self) -> None:
        """Flatten (or a fresh 2-D input) into matmuls with odd sizes; an output."""
        if self.draw(st.booleans()):
            x = self.b.flatten(self.act().ssa, axis=1)
        else:
            rows, depth = self.pick((1, 3, 17)), self.pick((5, 17, 33))
            x = self.extra_input([rows, depth], self.dtype)
        for _ in range(self.draw(st.integers(1, 3))):
            depth = self.shape_of(x)[1]
            width = self.pick((5, 17, 33, 16))
            kind = self.pick(("matmul", "matmul_t", "batch_matmul"))
            if kind == "batch_matmul":
                w = self.const(self.weights([1, depth, width], depth))
                y = self.b.batch_matmul(self.b.unsqueeze(x, axes=[0]), w)
                x = self.b.squeeze(y, axes=[0])
            else:
                transpose = kind == "matmul_t"
                shape = [width, depth] if transpose else [depth, width]
                bias = self.channel_vector(width) if self.draw(st.booleans()) else None
                x = self.b.matmul(
                    x,
                    self.const(self.weights(shape, depth)),
                    bias,
                    transpose_x2=transpose,
                )
            x = self.unary(x)
        if self.draw(st.booleans()):
            x = self.b.softmax(x, axis=-1)
        self.outputs.append(x)

    def block_attention(self) -> None:
        """Fused QKV projection, split, heads (as [B, H, S, D] or, as DeBERTa
        exports them, regrouped to [B*H, S, D]), attention, head merge; an
        output."""
        batch, seq = self.draw(st.integers(1, 2)), self.pick((3, 11, 17))
        heads, depth = self.pick((1, 2, 4)), self.pick((3, 8, 16))
        width = heads * depth
        x = self.extra_input([batch, seq, 5], self.dtype)
        w = self.const(self.weights([5, 3 * width], 5))
        q, k, v = self.b.split(
            self.b.batch_matmul(x, w), axis=2, sizes=[width, width, width]
        )

        def split_heads(value: SSAValue) -> SSAValue:
            four = self.b.reshape(value, shape=[batch, seq, heads, depth])
            return self.b.transpose(four, perm=[0, 2, 1, 3])

        q, v = split_heads(q), split_heads(v)
        if self.draw(st.booleans()):  # k^T as GPT-2 exports it
            rows = self.b.reshape(split_heads(k), shape=[batch * heads, seq, depth])
            swapped = self.b.transpose(rows, perm=[0, 2, 1])
            k_t = self.b.reshape(swapped, shape=[batch, heads, depth, seq])
        else:
            four = self.b.reshape(k, shape=[batch, seq, heads, depth])
            k_t = self.b.transpose(four, perm=[0, 2, 3, 1])
        if self.draw(st.booleans()):  # DeBERTa's 3-D products over [B*H, S, D]
            rows = [batch * heads, seq]
            q = self.b.reshape(q, shape=[*rows, depth])
            v = self.b.reshape(v, shape=[*rows, depth])
            k_t = self.b.reshape(k_t, shape=[batch * heads, depth, seq])
        probs = self.b.softmax(self.b.batch_matmul(q, k_t), axis=-1)
        context = self.b.reshape(
            self.b.batch_matmul(probs, v), shape=[batch, heads, seq, depth]
        )
        context = self.b.transpose(context, perm=[0, 2, 1, 3])
        self.outputs.append(self.b.reshape(context, shape=[batch, seq, width]))

    def block_shuffle(self) -> None:
        """reshape [N, g, C/g, H, W] -> transpose (0, 2, 1, 3, 4) -> reshape."""
        x = self.act()
        n, c, h, w = x.shape
        groups = [g for g in (2, 3, 4) if c % g == 0]
        if self.layout != "NCHW" or not groups:
            self.push(self.unary(x.ssa))
            return
        g = self.pick(groups)
        grouped = self.b.reshape(x.ssa, shape=[n, g, c // g, h, w])
        swapped = self.b.transpose(grouped, perm=[0, 2, 1, 3, 4])
        self.push(self.b.reshape(swapped, shape=[n, c, h, w]))

    def block_split(self) -> None:
        """YOLOv8's C2f: an activation split in two along C (or H), the
        second piece through a conv, both concatenated back along the axis."""
        x = self.act()
        axis = self.pick((self.channel_axis(), self.channel_axis(), 2))
        size = x.shape[axis]
        if size < 2:
            self.push(self.unary(x.ssa))
            return
        first = self.pick(sorted({size // 2, min(8, size - 1), 1}))
        a, b = self.b.split(x.ssa, axis=axis, sizes=[first, size - first])
        b = self.unary(b)
        self.push(self.b.concat([a, b], axis=axis))

    def block_recurrent(self) -> None:
        """An LSTM unrolled as the ONNX importer unrolls it: one product of
        the whole sequence, step t sliced and squeezed from it, the
        recurrent product of the state, gate columns, cell update, the
        hidden states stacked over time; an output."""
        steps, batch = self.pick((1, 3)), self.pick((1, 2, 17))
        hidden, inputs = self.pick((8, 16, 5)), self.pick((5, 16))
        x = self.extra_input([steps, batch, inputs], self.dtype)
        w = self.const(self.weights([4 * hidden, inputs], inputs))
        r = self.const(self.weights([4 * hidden, hidden], hidden))
        projected = self.b.batch_matmul(x, w, adj_x2=True)
        h = c = None
        states = []
        for t in range(steps):
            step = self.b.slice(
                projected, begins=[t], ends=[t + 1], axes=[0], steps=[1]
            )
            gates = self.b.squeeze(step, axes=[0])
            if h is not None:
                gates = self.b.add(gates, self.b.matmul(h, r, transpose_x2=True))
            i, o, f, g = (
                self.b.slice(
                    gates,
                    begins=[k * hidden],
                    ends=[(k + 1) * hidden],
                    axes=[1],
                    steps=[1],
                )
                for k in range(4)
            )
            i, o, f = self.b.sigmoid(i), self.b.sigmoid(o), self.b.sigmoid(f)
            new = self.b.mul(i, self.b.tanh(g))
            c = new if c is None else self.b.add(self.b.mul(f, c), new)
            h = self.b.mul(o, self.b.tanh(c))
            states.append(self.b.unsqueeze(h, axes=[0]))
        stacked = states[0] if steps == 1 else self.b.concat(states, axis=0)
        self.outputs.extend([stacked, c])

    def block_tokens(self) -> None:
        """A patch embedding and back (ViT, SVTR): a conv's result
        flattened into rows of channels (one confusion transpose, as
        `fold-reshape-transpose` fuses it), a class token concatenated
        before the rows, a product over the tokens, the class token sliced
        off and the rows folded back into an image for the next conv."""
        x = self.act()
        if self.layout != "NCHW":
            self.push(self.unary(x.ssa))
            return
        n, c, h, w = x.shape
        cout = self.pick(CHANNELS)
        image = self.conv(x, cout, 1, 1, 1)
        rows = self.b.confusion_transpose(image, perm=[0, 2, 1], shape=[n, cout, h * w])
        cls = self.const(self.weights([n, 1, cout]))
        tokens = self.b.concat([cls, rows], axis=1)
        mixed = self.b.batch_matmul(
            tokens, self.const(self.weights([cout, cout], cout))
        )
        patches = self.b.slice(
            self.unary(mixed), begins=[1], ends=[h * w + 1], axes=[1], steps=[1]
        )
        back = self.b.confusion_transpose(
            patches, perm=[0, 3, 1, 2], shape=[n, h, w, cout]
        )
        self.push(self.conv(Act(back, (n, cout, h, w)), self.pick(CHANNELS), 1, 1, 1))

    def block_reduce(self) -> None:
        x = self.act()
        if self.draw(st.booleans()):
            self.outputs.append(self.b.softmax(x.ssa, axis=self.channel_axis()))
        else:
            axes = [2, 3] if self.layout == "NCHW" else [1, 2]
            self.push(self.b.reduce_mean(x.ssa, axes=axes, keep_dims=True))

    def shape_preserving(self, sub: GraphBuilder, value: SSAValue) -> SSAValue:
        """A subgraph body: a bounded activation, or a same-channel conv first."""
        if self.draw(st.booleans()):
            shape = self.shape_of(value)
            channels = shape[self.channel_axis()]
            filter_ = sub.const(
                self.weights([channels, channels, 3, 3], 9 * channels)
                if self.layout == "NCHW"
                else self.weights([channels, 3, 3, channels], 9 * channels),
                format=self.layout,
            )
            value = sub.conv2d(
                value, filter_, pads=[1, 1, 1, 1], data_format=self.layout
            )
        return sub.op(self.pick(("tanh", "sigmoid", "relu")), value)

    def block_if(self) -> None:
        x = self.act()
        cond = self.extra_input([], "int32")
        branch = self.shape_preserving  # each call draws its own body
        (result,) = self.b.if_(cond, [x.ssa], branch, branch)
        self.push(result)

    def block_case(self) -> None:
        x = self.act()
        index = self.extra_input([], "int32")  # out of range: the last branch
        branches = [self.shape_preserving] * self.draw(st.integers(1, 3))
        (result,) = self.b.case(index, [x.ssa], branches)
        self.push(result)

    def block_while(self) -> None:
        x = self.act()
        limit = self.draw(st.integers(1, 3))
        scalar = tensor_type([], "int32")

        def cond(sub: GraphBuilder, i: SSAValue, v: SSAValue) -> SSAValue:
            bound = sub.const(np.array(limit, np.int32))
            return sub.sub(bound, i, result_types=[scalar])

        def body(sub: GraphBuilder, i: SSAValue, v: SSAValue) -> list[SSAValue]:
            one = sub.const(np.array(1, np.int32))
            step = sub.add(i, one, result_types=[scalar])
            return [step, self.shape_preserving(sub, v)]

        start = self.b.const(np.array(0, np.int32))
        _, result = self.b.while_([start, x.ssa], cond, body)
        self.push(result)

    def finish(self) -> None:
        """Output the last activation, a drawn subset of the others, the ends."""
        last = self.pool[-1].ssa
        extra = [a.ssa for a in self.pool[:-1] if self.draw(st.integers(0, 3)) == 0]
        values = list(dict.fromkeys([last, *extra, *self.outputs]))
        storage = None
        if (
            self.draw(st.integers(0, 3)) == 0
            and layout_of(last.type)[0].value in LAYOUTS
        ):  # type: ignore[arg-type]
            storage = ["NC1HWC0"] + ["ND"] * (len(values) - 1)
        self.b.output(*values, storage_formats=storage)


def _without(shape: Sequence[int], axis: int) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(shape) if i != axis)


@st.composite
def fuzz_cases(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    max_blocks: int = 6,
    blocks_from: Sequence[str] = BLOCKS,
) -> FuzzCase:
    """A random valid graph (of blocks drawn from `blocks_from`) with its
    pipeline options and input seed."""
    dtype = draw(st.sampled_from(DTYPES))
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2**16))
    options = PipelineOptions(
        data_format=draw(st.sampled_from((layout, "ND"))),
        target=draw(st.sampled_from(TARGETS)),
        spread=draw(st.booleans()),
        beyond_ge=draw(st.integers(0, 3)) != 0,
    )
    fuzzer = GraphFuzzer(
        draw,
        GraphBuilder("main"),
        dtype,
        layout,
        options.target,
        np.random.default_rng(seed),
    )
    fuzzer.data_input()
    blocks = tuple(
        draw(st.lists(st.sampled_from(blocks_from), min_size=1, max_size=max_blocks))
    )
    for block in blocks:
        getattr(fuzzer, f"block_{block}")()
    fuzzer.finish()
    return FuzzCase(fuzzer.b.build(), options, seed, blocks)
