"""ATen op -> `ge` op conversion rules (the policy; `torch_fx` is the driver).

Each converter takes a `TorchNodeContext` (the node's arguments by schema
name) and returns the node's results, in order. Converters are keyed by
overload (`aten.add.Tensor`) or by op (`aten.add`: every overload). They
raise `Unsupported` for what `ge` cannot express (the node becomes a graph
break) and never decide on the example values of symbolic sizes.

The graphs are aot_autograd's inference graphs, whose ATen ops are mostly
core ATen; ops without a converter here that torch can decompose into core
ATen are decomposed before import (`decomposition_table`, given to
aot_autograd by the backend: `silu`, `hardswish`, `masked_fill`, ...).

Layouts: tensors are in torch's logical order, and the convolution family
is `data_format = "NCHW"` with OIHW filters, as torch defines them. A 1-d
convolution or batch norm is its 2-d form on an inserted size-1 dim.

Written with several `ge` ops (the same arithmetic as eager's, up to
rounding): `rsqrt` (reciprocal of sqrt), `native_layer_norm` (mean,
centred square, mean, rsqrt), `gelu` (with `ge.erf`, or tanh), the CPU
flash attention (`q @ kᵀ · scale`, masked by `ge.select` or added,
softmax, `@ v`), `index` (gathers), `expand` (tiles).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ge_dialect.limits import INT64_MAX
from ge_frontend.importing import Unsupported, Value, normalize_axis, registrar
from ge_frontend.torch_fx import (
    Size,
    TorchNodeContext,
    dtype_name,
    is_symbolic,
    known_equal,
    meta_tensor,
    static_dim,
)

Converter = Callable[[TorchNodeContext], Any]

CONVERTERS: dict[str, Converter] = {}
"""ATen overload (`aten.add.Tensor`) or op (`aten.add`) -> converter."""

converts = registrar(CONVERTERS)
"""`@converts("aten.op.overload", "aten.op", ...)` registers a converter."""


def decomposition_table() -> dict[Any, Callable[..., Any]]:
    """torch's core ATen decompositions of the ops without a converter here."""
    from torch._decomp import core_aten_decompositions

    return {
        op: fn
        for op, fn in core_aten_decompositions().items()
        if str(op) not in CONVERTERS and str(op.overloadpacket) not in CONVERTERS
    }


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _axis(ctx: TorchNodeContext, value: Any, dim: int) -> int:
    return normalize_axis(int(dim), ctx.rank_of(value))


def _axes(ctx: TorchNodeContext, value: Any, dims: Sequence[int] | None) -> list[int]:
    rank = ctx.rank_of(value)
    if not dims:
        return list(range(rank))
    return sorted({normalize_axis(int(d), rank) for d in dims})


def _as_dtype(ctx: TorchNodeContext, value: Any, dtype: str, suffix: str) -> Any:
    """`value` in `dtype`: a Python number or array converted, a tensor cast."""
    if isinstance(value, bool | int | float):
        return np.asarray(value, dtype=dtype)
    if isinstance(value, np.ndarray):
        return value.astype(dtype, copy=False)
    if is_symbolic(value):  # a size: a 0-d tensor the host fills per call
        return ctx.host_full(meta_tensor((), dtype), value, suffix=suffix)
    if ctx.dtype_of(value) == dtype:
        return value
    return ctx.op("cast", value, dst_type=dtype, suffix=suffix)


def _elementwise(ctx: TorchNodeContext, op: str, *operands: Any) -> Value:
    """`ge.<op>` on operands in the result's dtype (torch's type promotion)."""
    dtype = ctx.result_dtype()
    values = [_as_dtype(ctx, v, dtype, f"cast{i}") for i, v in enumerate(operands)]
    return ctx.op(op, *values)


@dataclass(frozen=True)
class ReshapePlan:
    """How one `ge.reshape` (after an optional `ge.unsqueeze`) writes a
    reshape between (possibly symbolic) shapes."""

    unsqueeze: list[int]
    """Axes of size 1 inserted first, so that each symbolic dim the result
    keeps sits where `ge.reshape`'s 0 copies it from."""
    shape: list[int]
    """`ge.reshape`'s `shape`: known dims, 0 (copy), at most one -1."""


def plan_reshape(in_shape: Sequence[Size], out_shape: Sequence[Size]) -> ReshapePlan:
    """Write a reshape from `in_shape` to `out_shape` with `ge` ops.

    `ge.reshape` copies a dim (0) only from the same position and infers
    one (-1), so each symbolic result dim is matched, in order, to an equal
    input dim, which size-1 axes inserted before it move right into place;
    the others are known, or the one inferred dim. Unsupported when two
    symbolic dims cannot be matched.

    `[s0*4, s1, 16] -> [s0, 4, s1, 16]`: unsqueeze [1], then `[-1, 4, 0, 16]`.
    """
    inserted: list[int] = []
    padded = list(in_shape)
    matched: set[int] = set()
    next_input = 0
    for index, size in enumerate(out_shape):
        if not is_symbolic(size):
            continue
        for position in range(next_input, len(padded)):
            if known_equal(padded[position], size) and position <= index:
                ones = index - position
                padded[position:position] = [1] * ones
                inserted += range(position, position + ones)
                matched.add(index)
                next_input = index + 1
                break
    shape: list[int] = []
    for index, size in enumerate(out_shape):
        if index in matched:
            shape.append(0)
        elif is_symbolic(size):
            shape.append(-1)
        else:
            if int(size) == 0 and not (
                index < len(padded) and known_equal(padded[index], 0)
            ):
                raise Unsupported("to an empty shape")
            shape.append(int(size))
    if shape.count(-1) > 1:
        raise Unsupported("to several symbolic dims that no input dim gives")
    return ReshapePlan(inserted, shape)


def _reshape(
    ctx: TorchNodeContext,
    x: Any,
    out_shape: Sequence[Size],
    *,
    in_shape: Sequence[Size] | None = None,
    suffix: str | None = None,
) -> Any:
    """`x` (of shape `in_shape`, by default its own) reshaped to `out_shape`."""
    in_shape = ctx.sym_shape(x) if in_shape is None else in_shape
    if len(in_shape) == len(out_shape) and all(
        known_equal(a, b) for a, b in zip(in_shape, out_shape, strict=True)
    ):
        return x
    plan = plan_reshape(in_shape, out_shape)
    if not plan.unsqueeze:
        return ctx.op("reshape", x, shape=plan.shape, suffix=suffix)
    align = f"{suffix}/align" if suffix else "align"
    aligned = ctx.op("unsqueeze", x, axes=plan.unsqueeze, suffix=align)
    padded = list(in_shape)
    for axis in plan.unsqueeze:
        padded.insert(axis, 1)
    if all(
        d == 0 or known_equal(d, p) for d, p in zip(plan.shape, padded, strict=True)
    ):
        return aligned  # the size-1 axes were all it took
    return ctx.op("reshape", aligned, shape=plan.shape, suffix=suffix)


def _end_index(ctx: TorchNodeContext, end: Any, dim_size: Size) -> int:
    """A slice end: a known index, or INT64_MAX for one at or past the dim."""
    if end is None:
        return INT64_MAX
    if is_symbolic(end) or is_symbolic(dim_size):
        from torch.fx.experimental.symbolic_shapes import statically_known_true

        if statically_known_true(end >= dim_size):
            return INT64_MAX
        if is_symbolic(end):
            raise Unsupported("with a symbolic end inside the dim")
    return min(int(end), INT64_MAX)


# ---------------------------------------------------------------------------
# Values that pass through
# ---------------------------------------------------------------------------


@converts(
    "aten.clone",
    "aten.alias",
    "aten.detach",
    "aten.lift_fresh_copy",
    "aten.contiguous",
)
def convert_identity(ctx: TorchNodeContext) -> Any:
    """The same values (a copy or a view in torch; `ge` values are immutable)."""
    return ctx.tensor("self")


@converts("aten._to_copy")
def convert_to_copy(ctx: TorchNodeContext) -> Any:
    """A copy, cast when the dtype changes (CPU to CPU only)."""
    device = ctx.arg("device")
    if device is not None and torch.device(device).type != "cpu":
        raise Unsupported(f"to device {device}")
    return _as_dtype(ctx, ctx.tensor("self"), ctx.result_dtype(), "cast")


@converts("prims.convert_element_type")
def convert_element_type(ctx: TorchNodeContext) -> Any:
    """`a` in `dtype` (core ATen decompositions emit it): a cast."""
    return _as_dtype(ctx, ctx.tensor("a"), ctx.result_dtype(), "cast")


@converts("aten.full_like", "aten.zeros_like", "aten.ones_like", "aten.empty_like")
def convert_full_like(ctx: TorchNodeContext) -> Any:
    """A tensor shaped like `self`, filled: a constant when the shape is
    known, else `ge.select` broadcasting the value onto `self`'s shape."""
    fill = {"aten.zeros_like": 0, "aten.ones_like": 1, "aten.empty_like": 0}.get(
        ctx.packet
    )
    value = ctx.number("fill_value") if fill is None else fill
    dtype = ctx.result_dtype()
    shape = ctx.result().shape
    if not any(is_symbolic(d) for d in shape):
        return np.full([int(d) for d in shape], value, dtype=dtype)
    x = _as_dtype(ctx, ctx.tensor("self"), dtype, "cast")
    return ctx.op("select", np.asarray(True), np.asarray(value, dtype), x)


@converts("aten.new_zeros", "aten.new_ones", "aten.new_full", "aten.new_empty")
def convert_new_filled(ctx: TorchNodeContext) -> np.ndarray:
    """A filled tensor of a known size (its `self` only gives dtype/device)."""
    size = ctx.ints("size")
    fill = {"aten.new_zeros": 0, "aten.new_ones": 1, "aten.new_empty": 0}.get(
        ctx.packet
    )
    value = ctx.number("fill_value") if fill is None else fill
    return np.full(size, value, dtype=ctx.result_dtype())


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

UNARY = {
    "aten.relu": "relu",
    "aten.sigmoid": "sigmoid",
    "aten.tanh": "tanh",
    "aten.exp": "exp",
    "aten.log": "log",
    "aten.sqrt": "sqrt",
    "aten.neg": "neg",
    "aten.abs": "abs",
    "aten.reciprocal": "reciprocal",
}


@converts(*UNARY)
def convert_unary(ctx: TorchNodeContext) -> Value:
    return _elementwise(ctx, UNARY[ctx.packet], ctx.tensor("self"))


@converts("aten.rsqrt")
def convert_rsqrt(ctx: TorchNodeContext) -> Value:
    root = ctx.op(
        "sqrt",
        _as_dtype(ctx, ctx.tensor("self"), ctx.result_dtype(), "cast"),
        suffix="sqrt",
    )
    return ctx.op("reciprocal", root)


@converts("aten.clamp")
def convert_clamp(ctx: TorchNodeContext) -> Value:
    """clip(x, min, max); an absent bound is no bound. A symbolic bound (a
    size: `clamp(i, max=s0 - 1)`) is a maximum or minimum with a 0-d tensor
    the host fills per call."""
    low, high = ctx.arg("min"), ctx.arg("max")
    if not (is_symbolic(low) or is_symbolic(high)):
        return ctx.op(
            "clip",
            ctx.tensor("self"),
            min=float("-inf") if low is None else float(ctx.number("min")),
            max=float("inf") if high is None else float(ctx.number("max")),
        )
    value = ctx.tensor("self")
    for name, bound, op in (("min", low, "maximum"), ("max", high, "minimum")):
        if bound is None:
            continue
        last = name == "max" or high is None
        operand = _as_dtype(ctx, bound, ctx.result_dtype(), f"{name}/cast")
        value = ctx.op(op, value, operand, suffix=None if last else name)
    return value


@converts("aten.hardtanh")
def convert_hardtanh(ctx: TorchNodeContext) -> Value:
    """clip(x, min_val, max_val) (`relu6` is hardtanh(0, 6))."""
    low, high = float(ctx.number("min_val")), float(ctx.number("max_val"))
    return ctx.op("clip", ctx.tensor("self"), min=low, max=high)


@converts("aten.leaky_relu")
def convert_leaky_relu(ctx: TorchNodeContext) -> Value:
    return ctx.op(
        "leaky_relu", ctx.tensor("self"), alpha=float(ctx.number("negative_slope"))
    )


@converts("aten.elu")
def convert_elu(ctx: TorchNodeContext) -> Value:
    if ctx.number("scale") != 1 or ctx.number("input_scale") != 1:
        raise Unsupported("with a scale")
    return ctx.op("elu", ctx.tensor("self"), alpha=float(ctx.number("alpha")))


@converts("aten.gelu")
def convert_gelu(ctx: TorchNodeContext) -> Value:
    """x·(1 + erf(x/√2))/2, or with `approximate="tanh"`
    x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))/2, as torch computes them."""
    x = ctx.tensor("self")
    dtype = ctx.result_dtype()

    def const(value: float) -> np.ndarray:
        return np.asarray(value, dtype=dtype)

    if ctx.arg("approximate") == "tanh":
        cube = ctx.op("mul", ctx.op("mul", x, x, suffix="square"), x, suffix="cube")
        inner = ctx.op(
            "add", x, ctx.op("mul", cube, const(0.044715), suffix="c"), suffix="inner"
        )
        scaled = ctx.op("mul", inner, const(math.sqrt(2 / math.pi)), suffix="scaled")
        gate = ctx.op("tanh", scaled, suffix="tanh")
    else:
        scaled = ctx.op("mul", x, const(math.sqrt(0.5)), suffix="scaled")
        gate = ctx.op("erf", scaled, suffix="erf")
    gate = ctx.op("add", gate, const(1.0), suffix="gate")
    half = ctx.op("mul", x, const(0.5), suffix="half")
    return ctx.op("mul", half, gate)


BINARY = {
    "aten.add": "add",
    "aten.sub": "sub",
    "aten.mul": "mul",
    "aten.div": "div",
    "aten.true_divide": "div",
    "aten.maximum": "maximum",
    "aten.minimum": "minimum",
}


@converts(*BINARY)
def convert_binary(ctx: TorchNodeContext) -> Value:
    """`self op other` with broadcasting (add and sub scale `other` by `alpha`)."""
    if ctx.arguments.get("rounding_mode") is not None:
        return _integer_division(ctx, ctx.arg("rounding_mode"))
    other = ctx.tensor("other")
    alpha = ctx.arguments.get("alpha", 1)
    if alpha != 1:
        other = _elementwise(ctx, "mul", other, ctx.number("alpha"))
    return _elementwise(ctx, BINARY[ctx.packet], ctx.tensor("self"), other)


def _integer_division(ctx: TorchNodeContext, rounding_mode: str) -> Value:
    """Integer `div` rounded toward zero (`ge.div`, "trunc") or down
    ("floor": the quotient less one where the remainder is nonzero and its
    sign is not the divisor's)."""
    dtype = ctx.result_dtype()
    if rounding_mode not in ("trunc", "floor") or not dtype.startswith(("int", "uint")):
        raise Unsupported(f"with rounding_mode='{rounding_mode}' on {dtype}")
    x = _as_dtype(ctx, ctx.tensor("self"), dtype, "x")
    y = _as_dtype(ctx, ctx.tensor("other"), dtype, "y")
    if rounding_mode == "trunc":
        return ctx.op("div", x, y)
    quotient = ctx.op("div", x, y, suffix="trunc")
    zero = np.asarray(0, dtype)
    product = ctx.op("mul", quotient, y, suffix="product")
    remainder = ctx.op("sub", x, product, suffix="remainder")
    inexact = ctx.op("not_equal", remainder, zero, suffix="inexact")
    signs = ctx.op(
        "logical_xor",
        ctx.op("less", remainder, zero, suffix="remainder_negative"),
        ctx.op("less", y, zero, suffix="divisor_negative"),
        suffix="signs_differ",
    )
    down = ctx.op("logical_and", inexact, signs, suffix="down")
    step = ctx.op("cast", down, dst_type=dtype, suffix="step")
    return ctx.op("sub", quotient, step)


@converts("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor")
def convert_pow(ctx: TorchNodeContext) -> Value:
    return _elementwise(ctx, "pow", ctx.tensor("self"), ctx.tensor("exponent"))


COMPARISONS = {
    "aten.eq": "equal",
    "aten.ne": "not_equal",
    "aten.lt": "less",
    "aten.le": "less_equal",
    "aten.gt": "greater",
    "aten.ge": "greater_equal",
}


def _common_dtype(ctx: TorchNodeContext, *values: Any) -> str:
    """The dtype torch computes an op on `values` (tensors, Python numbers) in."""
    examples = [
        v if isinstance(v, bool | int | float) else ctx.example_of(v) for v in values
    ]
    return dtype_name(torch.result_type(*examples))


@converts(*COMPARISONS)
def convert_comparison(ctx: TorchNodeContext) -> Value:
    """`self <op> other` in their common dtype (torch's type promotion)."""
    x, other = ctx.tensor("self"), ctx.tensor("other")
    dtype = _common_dtype(ctx, x, other)
    op = COMPARISONS[ctx.packet]
    return ctx.op(
        op, _as_dtype(ctx, x, dtype, "cast0"), _as_dtype(ctx, other, dtype, "cast1")
    )


LOGIC = {
    "aten.logical_and": "logical_and",
    "aten.logical_or": "logical_or",
    "aten.logical_xor": "logical_xor",
    "aten.bitwise_and": "logical_and",
    "aten.bitwise_or": "logical_or",
    "aten.bitwise_xor": "logical_xor",
}


@converts(*LOGIC)
def convert_logic(ctx: TorchNodeContext) -> Value:
    """Logical ops (any dtype: non-zero is true); bitwise ones on booleans."""
    x, other = ctx.tensor("self"), ctx.tensor("other")
    packet = ctx.packet
    if packet.startswith("aten.bitwise") and ctx.result_dtype() != "bool":
        raise Unsupported("on integers (only booleans are logic)")
    if isinstance(other, bool | int | float):
        other = np.asarray(other, dtype=ctx.dtype_of(x))
    if not isinstance(other, np.ndarray) or other.dtype.name != ctx.dtype_of(x):
        dtype = _common_dtype(ctx, x, other)
        x, other = (
            _as_dtype(ctx, x, dtype, "cast0"),
            _as_dtype(ctx, other, dtype, "cast1"),
        )
    return ctx.op(LOGIC[packet], x, other)


@converts("aten.logical_not", "aten.bitwise_not")
def convert_logical_not(ctx: TorchNodeContext) -> Value:
    x = ctx.tensor("self")
    if ctx.packet == "aten.bitwise_not" and (ctx.dtype_of(x) != "bool"):
        raise Unsupported("on integers (only booleans are logic)")
    return ctx.op("logical_not", x)


@converts(
    "aten.where.self",
    "aten.where.ScalarSelf",
    "aten.where.ScalarOther",
    "aten.where.Scalar",
)
def convert_where(ctx: TorchNodeContext) -> Value:
    """`self` where `condition`, else `other`: `ge.select` (common dtype)."""
    dtype = ctx.result_dtype()
    return ctx.op(
        "select",
        ctx.tensor("condition"),
        _as_dtype(ctx, ctx.tensor("self"), dtype, "cast1"),
        _as_dtype(ctx, ctx.tensor("other"), dtype, "cast2"),
    )


# ---------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------


@converts("aten.addmm")
def convert_addmm(ctx: TorchNodeContext) -> Value:
    """beta·self + alpha·(mat1 @ mat2): `ge.gemm`."""
    return ctx.op(
        "gemm",
        ctx.tensor("mat1"),
        ctx.tensor("mat2"),
        ctx.tensor("self"),
        alpha=float(ctx.number("alpha")),
        beta=float(ctx.number("beta")),
    )


@converts("aten.mm")
def convert_mm(ctx: TorchNodeContext) -> Value:
    return ctx.op("matmul", ctx.tensor("self"), ctx.tensor("mat2"))


@converts("aten.matmul")
def convert_matmul(ctx: TorchNodeContext) -> Value:
    """N-d by 2-d (or N-d) products: `ge.batch_matmul` broadcasts."""
    x, other = ctx.tensor("self"), ctx.tensor("other")
    if ctx.rank_of(x) < 2 or ctx.rank_of(other) < 2:
        raise Unsupported("on a vector")
    return ctx.op("batch_matmul", x, other)


@converts("aten.bmm")
def convert_bmm(ctx: TorchNodeContext) -> Value:
    return ctx.op("batch_matmul", ctx.tensor("self"), ctx.tensor("mat2"))


# ---------------------------------------------------------------------------
# Shapes and data movement
# ---------------------------------------------------------------------------


@converts("aten.view", "aten._unsafe_view", "aten.reshape")
def convert_view(ctx: TorchNodeContext) -> Any:
    return _reshape(ctx, ctx.tensor("self"), ctx.result().shape)


@converts("aten.t")
def convert_t(ctx: TorchNodeContext) -> Any:
    x = ctx.tensor("self")
    if ctx.rank_of(x) < 2:
        return x
    return ctx.op("transpose", x, perm=[1, 0])


@converts("aten.permute")
def convert_permute(ctx: TorchNodeContext) -> Value:
    x = ctx.tensor("self")
    perm = [_axis(ctx, x, d) for d in ctx.ints("dims")]
    return ctx.op("transpose", x, perm=perm)


@converts("aten.transpose.int")
def convert_transpose(ctx: TorchNodeContext) -> Any:
    x = ctx.tensor("self")
    a, b = _axis(ctx, x, ctx.number("dim0")), _axis(ctx, x, ctx.number("dim1"))
    if a == b:
        return x
    perm = list(range(ctx.rank_of(x)))
    perm[a], perm[b] = perm[b], perm[a]
    return ctx.op("transpose", x, perm=perm)


@converts("aten.unsqueeze")
def convert_unsqueeze(ctx: TorchNodeContext) -> Value:
    x = ctx.tensor("self")
    axis = normalize_axis(int(ctx.number("dim")), ctx.rank_of(x) + 1)
    return ctx.op("unsqueeze", x, axes=[axis])


@converts("aten.squeeze")
def convert_squeeze(ctx: TorchNodeContext) -> Any:
    """Remove the given dims that are 1 (torch leaves the others)."""
    x = ctx.tensor("self")
    shape = ctx.sym_shape(x)
    if "dim" in ctx.arguments:
        dims = ctx.arguments["dim"]
        dims = [dims] if isinstance(dims, int) else list(dims)
    else:
        dims = list(range(len(shape)))
    axes = []
    for dim in dims:
        axis = normalize_axis(int(dim), len(shape))
        if is_symbolic(shape[axis]):
            raise Unsupported("on a symbolic dim (it may or may not be 1)")
        if shape[axis] == 1:
            axes.append(axis)
    if not axes:
        return x
    return ctx.op("squeeze", x, axes=sorted(axes))


@converts("aten.expand")
def convert_expand(ctx: TorchNodeContext) -> Any:
    """Broadcast to `size` (-1 keeps a dim): tiles along known sizes; onto a
    symbolic size, a `ge.select` with a host-filled condition of the size."""
    x = ctx.tensor("self")
    shape = ctx.sym_shape(x)
    out = ctx.result().shape
    extra = len(out) - len(shape)
    multiples = []
    for have, want in zip((1,) * extra + shape, out, strict=True):
        if known_equal(have, want):
            multiples.append(1)
        elif is_symbolic(want) or is_symbolic(have):
            truth = ctx.host_full(ctx.result().to(torch.bool), True)
            return ctx.op("select", truth, x, x)
        else:
            multiples.append(int(want))
    if extra:
        x = ctx.op("unsqueeze", x, axes=list(range(extra)), suffix="align")
    if all(m == 1 for m in multiples):
        return x
    return ctx.op("tile", x, multiples=multiples)


@converts("aten.slice.Tensor")
def convert_slice(ctx: TorchNodeContext) -> Any:
    x = ctx.tensor("self")
    axis = _axis(ctx, x, ctx.number("dim"))
    start = ctx.arg("start")
    if is_symbolic(start):
        raise Unsupported("with a symbolic start")
    start = 0 if start is None else int(start)
    end = _end_index(ctx, ctx.arg("end"), ctx.sym_shape(x)[axis])
    step = int(ctx.number("step"))
    if start == 0 and end == INT64_MAX and step == 1:
        return x
    return ctx.op("slice", x, begins=[start], ends=[end], axes=[axis], steps=[step])


@converts("aten.select.int")
def convert_select(ctx: TorchNodeContext) -> Value:
    """Index `index` of dim `dim`: a one-wide slice, squeezed."""
    x = ctx.tensor("self")
    axis = _axis(ctx, x, ctx.number("dim"))
    index = int(ctx.number("index"))
    end = INT64_MAX if index == -1 else index + 1
    taken = ctx.op(
        "slice", x, begins=[index], ends=[end], axes=[axis], steps=[1], suffix="slice"
    )
    return ctx.op("squeeze", taken, axes=[axis])


@converts("aten.cat")
def convert_cat(ctx: TorchNodeContext) -> Value:
    tensors = list(ctx.tensor("tensors"))
    axis = _axis(ctx, tensors[0], ctx.number("dim"))
    dtype = ctx.result_dtype()
    values = [_as_dtype(ctx, t, dtype, f"cast{i}") for i, t in enumerate(tensors)]
    return ctx.op("concat", values, axis=axis)


@converts("aten.split_with_sizes", "aten.split.Tensor")
def convert_split(ctx: TorchNodeContext) -> list[Value]:
    x = ctx.tensor("self")
    axis = _axis(ctx, x, ctx.number("dim"))
    sizes = [
        static_dim(r.shape[axis]) for r in map(ctx.result, range(len(ctx.outputs_used)))
    ]
    if -1 in sizes:
        raise Unsupported("on a symbolic dim")
    results = ctx.op("split", x, axis=axis, sizes=sizes)
    return results if isinstance(results, list) else [results]


@converts("aten.constant_pad_nd")
def convert_constant_pad(ctx: TorchNodeContext) -> Value:
    """torch's pad pairs run from the last dim; `ge` takes begins, then ends."""
    x = ctx.tensor("self")
    rank = ctx.rank_of(x)
    pad = ctx.ints("pad")
    if len(pad) % 2 or len(pad) > 2 * rank:
        raise ValueError(f"pad {pad} does not fit rank {rank}")
    if any(p < 0 for p in pad):
        raise Unsupported("with a negative pad (a crop)")
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        begins[rank - 1 - i], ends[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    return ctx.op(
        "pad",
        x,
        paddings=begins + ends,
        mode="constant",
        value=float(ctx.number("value")),
    )


@converts("aten.embedding")
def convert_embedding(ctx: TorchNodeContext) -> Value:
    """Rows of `weight` (the table) picked by `indices`: a gather on axis 0."""
    return ctx.op("gather", ctx.tensor("weight"), ctx.tensor("indices"), axis=0)


@converts("aten.gather")
def convert_gather(ctx: TorchNodeContext) -> Value:
    """`out[..., j, ...] = x[..., index[..., j, ...], ...]` along `dim`, as one
    gather of the flattened `x` at `index · stride(dim) + (the other dims'
    offsets)` (known shapes; torch rejects negative indices)."""
    x, index = ctx.tensor("self"), ctx.tensor("index")
    shape, index_shape = ctx.sym_shape(x), ctx.sym_shape(index)
    if any(is_symbolic(d) for d in (*shape, *index_shape)):
        raise Unsupported("on symbolic dims")
    shape, index_shape = [int(d) for d in shape], [int(d) for d in index_shape]
    axis = _axis(ctx, x, ctx.number("dim"))
    strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
    grid = np.indices(index_shape, dtype=np.int64)
    offsets = sum(
        (grid[d] * strides[d] for d in range(len(shape)) if d != axis),
        np.zeros(index_shape, np.int64),
    )
    if isinstance(index, np.ndarray):
        flat_index = index.astype(np.int64) * strides[axis] + offsets
    else:
        scaled = ctx.op(
            "mul", index, np.asarray(strides[axis], np.int64), suffix="scaled"
        )
        flat_index = ctx.op("add", scaled, offsets, suffix="flat_index")
    flat = ctx.op("reshape", x, shape=[-1], suffix="flat") if len(shape) > 1 else x
    return ctx.op("gather", flat, flat_index, axis=0)


@converts("aten.index.Tensor")
def convert_index(ctx: TorchNodeContext) -> Value:
    """Advanced indexing `x[i0, i1, ...]` (None: a whole dim).

    Index tensors known at import become one gather of the flattened indexed
    dims. Otherwise the index tensors must be *separable*, each varying along
    its own broadcast dims, in order (`x[b[:, None], k[None, :]]`): then the
    result is one gather per indexed dim, reshaped to the broadcast shape.
    Indexed dims after a whole one (`x[:, :, i, j]`) are moved last first.
    """
    x = ctx.tensor("self")
    indices = list(ctx.tensor("indices"))
    shape = ctx.sym_shape(x)
    taken = [i for i, index in enumerate(indices) if index is not None]
    if any(ctx.dtype_of(indices[i]) == "bool" for i in taken):
        raise Unsupported("with a boolean mask")
    indices = [indices[i] for i in taken]
    if taken != list(range(len(taken))):
        return _index_inner(ctx, x, taken, indices, shape)
    if all(isinstance(i, np.ndarray) for i in indices) and not any(
        is_symbolic(size) for size in shape[: len(indices)]
    ):
        return _index_flat(ctx, x, indices, shape)
    return _index_separable(ctx, x, indices, shape, ctx.result().shape)


def _index_inner(
    ctx: TorchNodeContext,
    x: Any,
    taken: list[int],
    indices: list[Any],
    shape: Sequence[Size],
) -> Value:
    """Indexed dims `taken` not all leading: `x` with them moved last is
    indexed there, then the broadcast dims go where torch puts them, in place
    of the indexed dims if these are adjacent, else first.

        x[:, :, i, j]  ->  gather(reshape(x, [n, c, h*w]), i*w + j, axis=2)
    """
    whole = [d for d in range(len(shape)) if d not in taken]
    lead, sizes = [shape[d] for d in whole], [shape[d] for d in taken]
    out = ctx.result().shape
    count = len(out) - len(whole)
    adjacent = taken == list(range(taken[0], taken[0] + len(taken)))
    first = taken[0] if adjacent else 0
    broadcast = list(out[first : first + count])
    moved = ctx.op("transpose", x, perm=[*whole, *taken], suffix="indexed_last")
    if all(isinstance(i, np.ndarray) for i in indices) and not any(
        is_symbolic(size) for size in sizes
    ):
        flat_index = _flat_indices(indices, [int(size) for size in sizes])
        flat = _reshape(
            ctx,
            moved,
            [*lead, math.prod(sizes)],
            in_shape=[*lead, *sizes],
            suffix="flat",
        )
        value = ctx.op("gather", flat, flat_index, axis=len(lead), suffix="gather")
    else:
        value = _index_separable(
            ctx, moved, indices, [*lead, *sizes], [*lead, *broadcast], len(lead)
        )
    perm = [*range(first), *range(len(lead), len(out)), *range(first, len(lead))]
    return ctx.op("transpose", value, perm=perm)


def _flat_indices(indices: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """The flat index into dims of `sizes` of each broadcast index tuple
    (negative indices counted from the end, as torch)."""
    wrapped = [np.where(i < 0, i + n, i) for i, n in zip(indices, sizes, strict=True)]
    return np.ravel_multi_index(np.broadcast_arrays(*wrapped), sizes).astype(np.int64)


def _index_flat(
    ctx: TorchNodeContext, x: Any, indices: list[np.ndarray], shape: Sequence[Size]
) -> Value:
    """One gather of the indexed dims, flattened, by the flat indices."""
    sizes = [int(size) for size in shape[: len(indices)]]
    rest = shape[len(indices) :]
    if len(indices) > 1:
        if any(is_symbolic(size) for size in rest):
            raise Unsupported("on symbolic dims after the indexed ones")
        x = ctx.op("reshape", x, shape=[-1, *map(int, rest)], suffix="flat")
    return ctx.op("gather", x, _flat_indices(indices, sizes), axis=0)


def _index_separable(
    ctx: TorchNodeContext,
    x: Any,
    indices: list[Any],
    shape: Sequence[Size],
    out: Sequence[Size],
    first_axis: int = 0,
) -> Value:
    """A gather per indexed dim (dims `first_axis`, ... of `x`, of `shape`)
    when index k varies along broadcast dim v_k only, v_0 < v_1 < ...: then
    the result, of shape `out`, is their outer product."""
    broadcast_rank = len(out) - (len(shape) - len(indices))
    varying: list[int] = []
    for index in indices:
        index_shape = ctx.sym_shape(index)
        offset = broadcast_rank - len(index_shape)
        dims = [
            offset + d
            for d, size in enumerate(index_shape)
            if is_symbolic(size) or int(size) != 1
        ]
        if len(dims) > 1 or (dims and varying and dims[0] <= varying[-1]):
            raise Unsupported("with index tensors that are not separable")
        varying += dims
    value, shape = x, list(shape)
    for k, index in enumerate(indices):
        axis = first_axis + k
        line = [size for size in ctx.sym_shape(index) if is_symbolic(size) or size != 1]
        line = line or [1]
        flat = _reshape(ctx, index, line, suffix=f"line{k}")
        value = ctx.op("gather", value, flat, axis=axis, suffix=f"gather{k}")
        shape[axis] = line[0]
    return _reshape(ctx, value, out, in_shape=shape, suffix="broadcast")


# ---------------------------------------------------------------------------
# Convolution, pooling, normalisation
# ---------------------------------------------------------------------------


def _spatial(values: Sequence[int]) -> list[int]:
    """[1, 1, h, w] (NCHW order) from torch's [h, w]."""
    return [1, 1, *values]


def _pads(padding: Sequence[int]) -> list[int]:
    """`ge` pads [top, bottom, left, right] from torch's symmetric [h, w]."""
    return [padding[0], padding[0], padding[1], padding[1]]


def _convolution_3d(
    ctx: TorchNodeContext,
    x: Value,
    weight: Value,
    window: tuple[list[int], list[int], list[int], list[int]],
) -> Value:
    """`ge.conv3d` or `ge.conv3d_transpose` on NCDHW (`window`: stride,
    padding, dilation, output_padding, one value per D, H, W)."""
    stride, padding, dilation, output_padding = window
    attrs: dict[str, Any] = {
        "strides": [1, 1, *stride],
        "pads": [pad for value in padding for pad in (value, value)],
        "dilations": [1, 1, *dilation],
        "groups": int(ctx.number("groups")),
        "data_format": "NCDHW",
    }
    bias = ctx.arg("bias")
    if ctx.arg("transposed"):
        return ctx.op(
            "conv3d_transpose", x, weight, bias, output_padding=output_padding, **attrs
        )
    if any(output_padding):
        raise ValueError("output_padding on a convolution that is not transposed")
    return ctx.op("conv3d", x, weight, bias, **attrs)


@converts("aten.convolution")
def convert_convolution(ctx: TorchNodeContext) -> Value:
    """2-d and 3-d convolution (transposed too) in NCHW / NCDHW; 1-d as 2-d
    on a size-1 H."""
    x, weight = ctx.tensor("input"), ctx.tensor("weight")
    rank = ctx.rank_of(x)
    if rank not in (3, 4, 5):
        raise Unsupported(f"on rank {rank} (1-d, 2-d and 3-d convolutions only)")
    count = rank - 2
    stride, padding = ctx.ints("stride", count), ctx.ints("padding", count)
    dilation = ctx.ints("dilation", count)
    output_padding = ctx.ints("output_padding", count)
    if rank == 5:
        window = (stride, padding, dilation, output_padding)
        return _convolution_3d(ctx, x, weight, window)
    if rank == 3:
        x = ctx.op("unsqueeze", x, axes=[2], suffix="as_2d")
        weight = ctx.op("unsqueeze", weight, axes=[2], suffix="filter_2d")
        stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
        output_padding = [0, *output_padding]
    attrs: dict[str, Any] = {
        "strides": _spatial(stride),
        "pads": _pads(padding),
        "dilations": _spatial(dilation),
        "groups": int(ctx.number("groups")),
        "data_format": "NCHW",
    }
    bias = ctx.arg("bias")
    if ctx.arg("transposed"):
        attrs["output_padding"] = output_padding
        y = ctx.op(
            "conv2d_transpose",
            x,
            weight,
            bias,
            suffix=None if rank == 4 else "conv",
            **attrs,
        )
    else:
        if any(output_padding):
            raise ValueError("output_padding on a convolution that is not transposed")
        y = ctx.op(
            "conv2d", x, weight, bias, suffix=None if rank == 4 else "conv", **attrs
        )
    return y if rank == 4 else ctx.op("squeeze", y, axes=[2])


def _window(ctx: TorchNodeContext) -> tuple[list[int], list[int], list[int]]:
    """(kernel, stride, padding) of a 2-d pool (an empty stride is the kernel)."""
    kernel = ctx.ints("kernel_size", 2)
    stride = ctx.ints("stride", 2) or kernel
    if len(kernel) == 1:
        kernel = kernel * 2
    if len(stride) == 1:
        stride = stride * 2
    padding = ctx.ints("padding", 2)
    if len(padding) == 1:
        padding = padding * 2
    return kernel, stride, padding


def _check_pool_rank(ctx: TorchNodeContext, x: Any) -> None:
    if ctx.rank_of(x) != 4:
        raise Unsupported("on an input that is not NCHW (rank 4)")


@converts("aten.max_pool2d_with_indices", "aten.max_pool2d")
def convert_max_pool(ctx: TorchNodeContext) -> list[Any]:
    x = ctx.tensor("self")
    _check_pool_rank(ctx, x)
    if len(ctx.outputs_used) > 1 and ctx.outputs_used[1]:
        raise Unsupported("with its indices read")
    if any(d != 1 for d in ctx.ints("dilation", 2)):
        raise Unsupported("with a dilation")
    kernel, stride, padding = _window(ctx)
    y = ctx.op(
        "max_pool",
        x,
        ksize=_spatial(kernel),
        strides=_spatial(stride),
        pads=_pads(padding),
        ceil_mode=bool(ctx.arg("ceil_mode")),
        data_format="NCHW",
    )
    return [y, None]


@converts("aten.avg_pool2d")
def convert_avg_pool(ctx: TorchNodeContext) -> Value:
    x = ctx.tensor("self")
    _check_pool_rank(ctx, x)
    if ctx.arg("divisor_override") is not None:
        raise Unsupported("with a divisor_override")
    kernel, stride, padding = _window(ctx)
    return ctx.op(
        "avg_pool",
        x,
        ksize=_spatial(kernel),
        strides=_spatial(stride),
        pads=_pads(padding),
        ceil_mode=bool(ctx.arg("ceil_mode")),
        count_include_pad=bool(ctx.arg("count_include_pad")),
        data_format="NCHW",
    )


def _window_3d(ctx: TorchNodeContext) -> tuple[list[int], list[int], list[int]]:
    """(ksize, strides, pads) of a 3-d pool in `ge` form: 5 values (N, C,
    D, H, W; an empty stride is the kernel) and 6 pads."""
    kernel = ctx.ints("kernel_size", 3)
    stride = ctx.ints("stride", 3) or kernel
    padding = ctx.ints("padding", 3)
    kernel, stride, padding = (
        v * 3 if len(v) == 1 else v for v in (kernel, stride, padding)
    )
    pads = [pad for value in padding for pad in (value, value)]
    return [1, 1, *kernel], [1, 1, *stride], pads


def _check_volume_rank(ctx: TorchNodeContext, x: Any) -> None:
    if ctx.rank_of(x) != 5:
        raise Unsupported("on an input that is not NCDHW (rank 5)")


@converts("aten.max_pool3d_with_indices", "aten.max_pool3d")
def convert_max_pool_3d(ctx: TorchNodeContext) -> list[Any]:
    """`ge.max_pool3d` (GE's MaxPool3D), dilations too."""
    x = ctx.tensor("self")
    _check_volume_rank(ctx, x)
    if len(ctx.outputs_used) > 1 and ctx.outputs_used[1]:
        raise Unsupported("with its indices read")
    ksize, strides, pads = _window_3d(ctx)
    dilation = ctx.ints("dilation", 3)
    y = ctx.op(
        "max_pool3d",
        x,
        ksize=ksize,
        strides=strides,
        pads=pads,
        dilations=[1, 1, *(dilation * 3 if len(dilation) == 1 else dilation)],
        ceil_mode=bool(ctx.arg("ceil_mode")),
        data_format="NCDHW",
    )
    return [y, None]


@converts("aten.avg_pool3d")
def convert_avg_pool_3d(ctx: TorchNodeContext) -> Value:
    """`ge.avg_pool3d` (GE's AvgPool3D)."""
    x = ctx.tensor("self")
    _check_volume_rank(ctx, x)
    if ctx.arg("divisor_override") is not None:
        raise Unsupported("with a divisor_override")
    ksize, strides, pads = _window_3d(ctx)
    return ctx.op(
        "avg_pool3d",
        x,
        ksize=ksize,
        strides=strides,
        pads=pads,
        ceil_mode=bool(ctx.arg("ceil_mode")),
        count_include_pad=bool(ctx.arg("count_include_pad")),
        data_format="NCDHW",
    )


@converts("aten._adaptive_avg_pool2d")
def convert_adaptive_avg_pool(ctx: TorchNodeContext) -> Value:
    """1x1: a global average pool; a size dividing the input: an average pool."""
    x = ctx.tensor("self")
    _check_pool_rank(ctx, x)
    out = ctx.ints("output_size", 2)
    if out == [1, 1]:
        return ctx.op("global_avg_pool", x, data_format="NCHW")
    spatial = ctx.sym_shape(x)[2:]
    if any(is_symbolic(s) for s in spatial):
        raise Unsupported("to a size other than 1 on symbolic dims")
    if any(int(s) % o for s, o in zip(spatial, out, strict=True)):
        raise Unsupported("to a size that does not divide the input")
    kernel = [int(s) // o for s, o in zip(spatial, out, strict=True)]
    return ctx.op(
        "avg_pool",
        x,
        ksize=_spatial(kernel),
        strides=_spatial(kernel),
        data_format="NCHW",
    )


def _to_4d(ctx: TorchNodeContext, x: Any) -> tuple[Any, list[int]]:
    """An (N, C[, L]) batch-norm input as NCHW, and the axes to squeeze back."""
    rank = ctx.rank_of(x)
    if rank == 4:
        return x, []
    if rank not in (2, 3):
        raise Unsupported(f"on rank {rank}")
    axes = [2, 3] if rank == 2 else [3]
    return ctx.op("unsqueeze", x, axes=axes, suffix="as_nchw"), axes


@converts("aten._native_batch_norm_legit_no_training")
def convert_batch_norm(ctx: TorchNodeContext) -> list[Any]:
    """Inference batch norm on the running statistics (C is dim 1)."""
    if any(ctx.outputs_used[1:]):
        raise Unsupported("with its saved statistics read")
    x = ctx.tensor("input")
    dtype = ctx.dtype_of(x)
    channels = ctx.sym_shape(x)[1]
    if is_symbolic(channels):
        raise Unsupported("with a symbolic channel count")
    weight = ctx.arg("weight")
    bias = ctx.arg("bias")
    scale = np.ones(int(channels), dtype) if weight is None else weight
    offset = np.zeros(int(channels), dtype) if bias is None else bias
    x4, axes = _to_4d(ctx, x)
    y = ctx.op(
        "batch_norm",
        x4,
        scale,
        offset,
        ctx.tensor("running_mean"),
        ctx.tensor("running_var"),
        epsilon=float(ctx.number("eps")),
        data_format="NCHW",
        suffix="bn" if axes else None,
    )
    if axes:
        y = ctx.op("squeeze", y, axes=axes)
    return [y, None, None]


@converts("aten.native_layer_norm")
def convert_layer_norm(ctx: TorchNodeContext) -> list[Any]:
    """(x - mean) · rsqrt(var + eps) · weight + bias over the last dims; the
    mean and rsqrt are results 1 and 2 (kept dims)."""
    x = ctx.tensor("input")
    rank = ctx.rank_of(x)
    count = len(ctx.ints("normalized_shape"))
    axes = list(range(rank - count, rank))
    dtype = ctx.dtype_of(x)
    mean = ctx.op("reduce_mean", x, axes=axes, keep_dims=True, suffix="mean")
    centred = ctx.op("sub", x, mean, suffix="centred")
    square = ctx.op("mul", centred, centred, suffix="square")
    variance = ctx.op("reduce_mean", square, axes=axes, keep_dims=True, suffix="var")
    eps = np.asarray(ctx.number("eps"), dtype=dtype)
    shifted = ctx.op("add", variance, eps, suffix="var_eps")
    rstd = ctx.op("reciprocal", ctx.op("sqrt", shifted, suffix="std"), suffix="rstd")
    y = ctx.op("mul", centred, rstd, suffix="normalized")
    if ctx.arg("weight") is not None:
        y = ctx.op("mul", y, ctx.arg("weight"), suffix="scaled")
    if ctx.arg("bias") is not None:
        y = ctx.op("add", y, ctx.arg("bias"), suffix="shifted")
    return [y, mean, rstd]


@converts("aten._softmax", "aten._log_softmax")
def convert_softmax(ctx: TorchNodeContext) -> Value:
    if ctx.arg("half_to_float"):
        raise Unsupported("with half_to_float")
    x = ctx.tensor("self")
    op = "softmax" if ctx.packet == "aten._softmax" else ("log_softmax")
    return ctx.op(op, x, axis=_axis(ctx, x, ctx.number("dim")))


@converts("aten._scaled_dot_product_flash_attention_for_cpu")
def convert_flash_attention(ctx: TorchNodeContext) -> list[Any]:
    """softmax(q @ kᵀ · scale + mask) @ v (no dropout; a row whose scores are
    all masked gives zeros, as torch's); results: the output, and the
    log-sum-exp (never read in inference)."""
    if any(ctx.outputs_used[1:]):
        raise Unsupported("with its log-sum-exp read")
    if ctx.number("dropout_p") != 0:
        raise Unsupported("with dropout")
    q, k, v = ctx.tensor("query"), ctx.tensor("key"), ctx.tensor("value")
    dtype = ctx.dtype_of(q)
    head = ctx.sym_shape(q)[-1]
    scale = ctx.arg("scale")
    if scale is None:
        if is_symbolic(head):
            raise Unsupported("with a symbolic head size and no scale")
        scale = 1 / math.sqrt(int(head))
    scores = ctx.op("batch_matmul", q, k, adj_x2=True, suffix="scores")
    scores = ctx.op("mul", scores, np.asarray(scale, dtype), suffix="scaled")
    mask = ctx.arg("attn_mask")
    if ctx.arg("is_causal"):
        length, source = ctx.sym_shape(q)[-2], ctx.sym_shape(k)[-2]
        if is_symbolic(length) or is_symbolic(source):
            raise Unsupported("causal on symbolic sequence lengths")
        causal = np.triu(np.full((int(length), int(source)), -np.inf, dtype), 1)
        scores = ctx.op("add", scores, causal, suffix="causal")
    if mask is not None and ctx.dtype_of(mask) == "bool":  # False: left out
        scores = ctx.op(
            "select", mask, scores, np.asarray(-np.inf, dtype), suffix="masked"
        )
    elif mask is not None:
        scores = ctx.op("add", scores, mask, suffix="masked")
    weights = ctx.op("softmax", scores, axis=-1, suffix="softmax")
    if mask is not None or ctx.arg("is_causal"):
        weights = _zero_masked_rows(ctx, scores, weights, dtype)
    return [ctx.op("batch_matmul", weights, v), None]


def _zero_masked_rows(ctx: TorchNodeContext, scores: Any, weights: Any, dtype: str):
    """Rows whose every score is -inf attend to nothing (zeros, as torch)."""
    minus_inf = np.asarray(-np.inf, dtype)
    kept = ctx.op("not_equal", scores, minus_inf, suffix="kept")
    kept = ctx.op("cast", kept, dst_type="float32", suffix="kept_float")
    some = ctx.op("reduce_max", kept, axes=[-1], keep_dims=True, suffix="some_kept")
    none = ctx.op("equal", some, np.zeros((), np.float32), suffix="none_kept")
    return ctx.op("select", none, np.zeros((), dtype), weights, suffix="attended")


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

REDUCTIONS = {
    "aten.mean": "reduce_mean",
    "aten.sum": "reduce_sum",
    "aten.amax": "reduce_max",
}


@converts("aten.mean.dim", "aten.sum.dim_IntList", "aten.amax")
def convert_reduction(ctx: TorchNodeContext) -> Value:
    x = ctx.tensor("self")
    dtype = ctx.result_dtype()
    x = _as_dtype(ctx, x, dtype, "cast")
    op = REDUCTIONS[ctx.packet]
    axes = _axes(ctx, x, ctx.arg("dim"))
    return ctx.op(op, x, axes=axes, keep_dims=bool(ctx.arg("keepdim")))


@converts("aten.any.dim", "aten.any.dims", "aten.any.default")
def convert_any(ctx: TorchNodeContext) -> Value:
    """Whether any element is true (non-zero): max(x != 0) over the dims."""
    x = ctx.tensor("self")
    truth = ctx.op("not_equal", x, np.zeros((), ctx.dtype_of(x)), suffix="truth")
    as_float = ctx.op("cast", truth, dst_type="float32", suffix="float")
    dims = ctx.arguments.get("dim")
    dims = [dims] if isinstance(dims, int) else dims
    largest = ctx.op(
        "reduce_max",
        as_float,
        axes=_axes(ctx, x, dims),
        keep_dims=bool(ctx.arguments.get("keepdim", False)),
        suffix="max",
    )
    return ctx.op("greater", largest, np.zeros((), np.float32))


@converts("aten.mean.default", "aten.sum.default")
def convert_full_reduction(ctx: TorchNodeContext) -> Value:
    x = _as_dtype(ctx, ctx.tensor("self"), ctx.result_dtype(), "cast")
    op = REDUCTIONS[ctx.packet]
    return ctx.op(op, x, axes=list(range(ctx.rank_of(x))), keep_dims=False)
