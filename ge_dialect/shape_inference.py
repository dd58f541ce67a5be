"""Shape and dtype functions of the `ge` ops, on plain Python values.

Each function takes the input shapes (tuples of ints, -1 for an unknown dim),
the input dtype names ("float32", ...) and the attributes as Python values,
and returns one (shape, dtype) per result. Nothing here touches the IR, so
the same functions type the graphs the builder makes, run in `infer-shape`,
and run at execution time on concrete shapes (host scheduling):

```python
infer_shapes("ge.conv2d", [(1, 3, 8, 8), (4, 3, 3, 3)], ["float32"] * 2,
             {"data_format": "NCHW", "pads": [1, 1, 1, 1]})
# [((1, 4, 8, 8), "float32")]
```

Invalid inputs raise `ShapeError` with a message that names the problem
(`input has 3 channels, filter expects 4 (groups = 1)`). Users register
functions for their own ops with `@register_shape_function("mydialect.op")`.
Control-flow results come from their subgraphs' outputs (`infer-shape` does
that); they have no function here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.formats import Format, FormatError
from ge_dialect.formats import dtype_name as canonical_dtype
from ge_dialect.layout import check_tensor_type, layout_of, shape_of
from ge_dialect.ops import GE_OPS, broadcast_shapes

Shape = tuple[int, ...]
Result = tuple[Shape, str]
ShapeFunction = Callable[
    [Sequence[Shape], Sequence[str], Mapping[str, Any]], list[Result]
]

UNKNOWN = -1


class ShapeError(ValueError):
    """The inputs or attributes of an op do not give a valid result shape."""


SHAPE_FUNCTIONS: dict[str, ShapeFunction] = {}
"""Op name -> shape function."""

ATTRIBUTE_DEFAULTS: dict[str, dict[str, Any]] = {
    op.name: dict(getattr(op, "ATTR_DEFAULTS", {})) for op in GE_OPS
}
"""Op name -> values of absent attributes (the op classes' ATTR_DEFAULTS)."""

LAYOUT_KEEPING_OPS: set[str] = set()
"""Ops whose results keep the layout of their first operand of the same rank."""

OPERAND_FORMAT_ATTRIBUTES: dict[str, dict[int, str]] = {
    "ge.conv2d": {1: "filter_format"},
}
"""Op name -> {operand index: attribute} for shape functions that read an
operand's origin format (ND reads as NCHW)."""

DECLARED_SHAPE_ATTRIBUTES: dict[str, str] = {"ge.reshape": "shape"}
"""Ops whose target shape may live only in the declared result type: when the
attribute is absent, `infer-shape` passes the declared shape as it."""


def register_shape_function(
    *op_names: str,
    defaults: Mapping[str, Any] | None = None,
    keeps_layout: bool = False,
) -> Callable[[ShapeFunction], ShapeFunction]:
    """Decorator registering a shape function for `op_names`.

    `defaults` gives values of absent attributes; `keeps_layout` makes
    `infer_result_types` give results their input's `#ge.layout`.
    """

    def register(function: ShapeFunction) -> ShapeFunction:
        for name in op_names:
            SHAPE_FUNCTIONS[name] = function
            if defaults:
                ATTRIBUTE_DEFAULTS.setdefault(name, {}).update(defaults)
            if keeps_layout:
                LAYOUT_KEEPING_OPS.add(name)
        return function

    return register


def infer_shapes(
    op_name: str,
    input_shapes: Sequence[Sequence[int]],
    input_dtypes: Sequence[str],
    attributes: Mapping[str, Any],
) -> list[Result]:
    """(shape, dtype) of each result of `op_name` (raises ShapeError)."""
    function = SHAPE_FUNCTIONS.get(op_name)
    if function is None:
        raise ShapeError(f"no shape function is registered for '{op_name}'")
    attrs = {**ATTRIBUTE_DEFAULTS.get(op_name, {})}
    attrs.update((k, v) for k, v in attributes.items() if v is not None)
    shapes = [tuple(int(d) for d in shape) for shape in input_shapes]
    return function(shapes, list(input_dtypes), attrs)


def infer_result_types(
    op_name: str,
    operand_types: Sequence[TensorType],
    attributes: Mapping[str, Any],
) -> list[TensorType]:
    """The result types of `op_name` applied to `operand_types`.

    Results carry no encoding, except for ops that keep their input layout
    (elementwise, convolutions, ...) and `ge.transdata` (origin of its input,
    storage `dst_format`).
    """
    attrs = dict(attributes)
    for index, name in OPERAND_FORMAT_ATTRIBUTES.get(op_name, {}).items():
        if index < len(operand_types) and name not in attrs:
            attrs[name] = operand_format(operand_types[index])
    shapes = [shape_of(t) for t in operand_types]
    dtypes = [dtype_name(t.element_type) for t in operand_types]
    return [
        _result_type(op_name, operand_types, attrs, shape, dtype)
        for shape, dtype in infer_shapes(op_name, shapes, dtypes, attrs)
    ]


def operand_format(tensor: Attribute) -> str:
    """The origin format name a shape function reads for an operand (ND: NCHW)."""
    if not isinstance(tensor, TensorType):
        return "NCHW"
    origin = layout_of(tensor)[0].value
    return "NCHW" if origin == "ND" else origin


def _result_type(
    op_name: str,
    operand_types: Sequence[TensorType],
    attrs: Mapping[str, Any],
    shape: Shape,
    dtype: str,
) -> TensorType:
    dims = [DYNAMIC_INDEX if d == UNKNOWN else d for d in shape]
    plain = TensorType(element_type(dtype), dims)
    layout = _result_layout(op_name, operand_types, attrs, len(shape))
    if layout is None:
        return plain
    typed = TensorType(plain.element_type, dims, layout)
    try:
        check_tensor_type(typed)
    except VerifyException:
        return plain
    return typed


def _result_layout(
    op_name: str,
    operand_types: Sequence[TensorType],
    attrs: Mapping[str, Any],
    rank: int,
) -> LayoutAttr | None:
    if op_name == "ge.transdata":
        origin = layout_of(operand_types[0])[0]
        if (perm := attrs.get("perm")) is not None:
            origin = Format("".join(origin.value[p] for p in perm))
        storage = attrs.get("dst_format", origin)
        return None if origin == storage == "ND" else LayoutAttr(origin, storage)
    if op_name not in LAYOUT_KEEPING_OPS:
        return None
    for tensor in operand_types:
        layout = tensor.encoding
        if tensor.get_num_dims() == rank and isinstance(layout, LayoutAttr):
            return LayoutAttr(
                layout.origin_format,
                layout.storage_format,
                reshape_type=layout.explicit_reshape_type,
            )
    return None


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _attr(attrs: Mapping[str, Any], name: str) -> Any:
    if name not in attrs:
        raise ShapeError(f"missing attribute '{name}'")
    return attrs[name]


def _axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"{what} {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _rank(shape: Shape, rank: int, what: str) -> Shape:
    if len(shape) != rank:
        raise ShapeError(f"{what} must have rank {rank}, got {len(shape)}")
    return shape


def _product(dims: Sequence[int]) -> int:
    return UNKNOWN if UNKNOWN in dims else math.prod(dims)


def _same_dtype(dtypes: Sequence[str]) -> str:
    if len(set(dtypes)) > 1:
        raise ShapeError(f"operand dtypes differ: {', '.join(dtypes)}")
    return dtypes[0]


def _match(a: int, b: int) -> bool:
    return UNKNOWN in (a, b) or a == b


def _broadcast(shapes: Sequence[Shape]) -> Shape:
    result = broadcast_shapes(*shapes)
    if result is None:
        listed = " and ".join(str(list(s)) for s in shapes)
        raise ShapeError(f"shapes {listed} do not broadcast")
    return result


def _spatial(attrs: Mapping[str, Any]) -> tuple[str, int, int, int]:
    """(data_format, C axis, H axis, W axis) of a 4-D NCHW/NHWC tensor."""
    data_format = _attr(attrs, "data_format")
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"data_format must be NCHW or NHWC, got '{data_format}'")
    return (
        data_format,
        data_format.index("C"),
        data_format.index("H"),
        data_format.index("W"),
    )


def _window(
    size: int, kernel: int, stride: int, dilation: int, pads: tuple[int, int]
) -> int:
    """Output size of a sliding window (floor mode)."""
    if UNKNOWN in (size, kernel):
        return UNKNOWN
    out = (size + pads[0] + pads[1] - dilation * (kernel - 1) - 1) // stride + 1
    if out < 1:
        raise ShapeError(
            f"window {kernel} (dilation {dilation}) does not fit input size {size} "
            f"with pads {list(pads)}"
        )
    return out


def _four(attrs: Mapping[str, Any], name: str) -> list[int]:
    values = list(_attr(attrs, name))
    if len(values) != 4:
        raise ShapeError(f"'{name}' must have 4 values, got {len(values)}")
    return values


# ---------------------------------------------------------------------------
# Elementwise and dtype ops
# ---------------------------------------------------------------------------


@register_shape_function(
    "ge.relu",
    "ge.sigmoid",
    "ge.tanh",
    "ge.softplus",
    "ge.neg",
    "ge.abs",
    "ge.exp",
    "ge.sqrt",
    "ge.log",
    "ge.reciprocal",
    "ge.identity",
    "ge.leaky_relu",
    "ge.elu",
    "ge.selu",
    "ge.clip",
    "ge.lrn",
    keeps_layout=True,
)
def same_shape(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """The result is shaped and typed like input 0."""
    return [(shapes[0], dtypes[0])]


@register_shape_function("ge.softmax", "ge.log_softmax", keeps_layout=True)
def softmax(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Same shape; `axis` must exist."""
    _axis(attrs.get("axis", -1), len(shapes[0]))
    return [(shapes[0], dtypes[0])]


@register_shape_function(
    "ge.add",
    "ge.sub",
    "ge.mul",
    "ge.div",
    "ge.pow",
    "ge.maximum",
    "ge.minimum",
    "ge.prelu",
    "ge.add_n",
    keeps_layout=True,
)
def broadcast(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """NumPy broadcasting of every input; all dtypes equal."""
    if not shapes:
        raise ShapeError("needs at least one input")
    return [(_broadcast(shapes), _same_dtype(dtypes))]


@register_shape_function("ge.cast", keeps_layout=True)
def cast(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Same shape, dtype `dst_type` (a dtype name or a NumPy dtype)."""
    try:
        dtype = canonical_dtype(_attr(attrs, "dst_type"))
    except FormatError as error:
        raise ShapeError(str(error)) from None
    return [(shapes[0], dtype)]


@register_shape_function("ge.transdata")
def transdata(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Relayout keeps the origin shape and dtype (permuted by `perm` when the
    TransData absorbed a transpose)."""
    perm = attrs.get("perm")
    if perm is None:
        return [(shapes[0], dtypes[0])]
    return [(tuple(shapes[0][p] for p in perm), dtypes[0])]


# ---------------------------------------------------------------------------
# Neural-network ops
# ---------------------------------------------------------------------------

_FILTER_AXES = {"NCHW": (0, 1, 2, 3), "HWCN": (3, 2, 0, 1), "NHWC": (0, 3, 1, 2)}
"""Filter origin format -> positions of (O, I, kh, kw)."""


@register_shape_function("ge.conv2d", keeps_layout=True)
def conv2d(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Convolution output from strides, pads [t, b, l, r], dilations and groups.

    The filter is OIHW, HWIO or OHWI as `filter_format` (NCHW, HWCN, NHWC) says.
    """
    x = _rank(shapes[0], 4, "input")
    w = _rank(shapes[1], 4, "filter")
    _, c, h, wi = _spatial(attrs)
    filter_format = attrs.get("filter_format", "NCHW")
    if filter_format not in _FILTER_AXES:
        raise ShapeError(
            f"filter format must be NCHW, HWCN or NHWC, got {filter_format}"
        )
    o_axis, i_axis, kh_axis, kw_axis = _FILTER_AXES[filter_format]
    out_channels, in_channels = w[o_axis], w[i_axis]
    groups = attrs.get("groups", 1)
    if groups < 1:
        raise ShapeError(f"groups must be positive, got {groups}")
    expected = UNKNOWN if in_channels == UNKNOWN else in_channels * groups
    if not _match(x[c], expected):
        raise ShapeError(
            f"input has {x[c]} channels, filter expects {expected} (groups = {groups})"
        )
    if out_channels != UNKNOWN and out_channels % groups:
        raise ShapeError(f"{out_channels} filters are not divisible by groups {groups}")
    if len(shapes) > 2:
        bias = _rank(shapes[2], 1, "bias")
        if not _match(bias[0], out_channels):
            raise ShapeError(f"bias has {bias[0]} entries for {out_channels} filters")
    if dtypes[0] != dtypes[1]:
        raise ShapeError(
            f"filter dtype {dtypes[1]} differs from input dtype {dtypes[0]}"
        )
    strides, dilations, pads = (
        _four(attrs, n) for n in ("strides", "dilations", "pads")
    )
    out_h = _window(x[h], w[kh_axis], strides[h], dilations[h], (pads[0], pads[1]))
    out_w = _window(x[wi], w[kw_axis], strides[wi], dilations[wi], (pads[2], pads[3]))
    shape = list(x)
    shape[c], shape[h], shape[wi] = out_channels, out_h, out_w
    return [(tuple(shape), dtypes[0])]


@register_shape_function("ge.conv2d_transpose", keeps_layout=True)
def conv2d_transpose(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """ONNX ConvTranspose output; the filter is [Cin, Cout / groups, kh, kw]."""
    x = _rank(shapes[0], 4, "input")
    w = _rank(shapes[1], 4, "filter")
    _, c, h, wi = _spatial(attrs)
    groups = attrs.get("groups", 1)
    if not _match(x[c], w[0]):
        raise ShapeError(f"input has {x[c]} channels, filter expects {w[0]}")
    out_channels = UNKNOWN if w[1] == UNKNOWN else w[1] * groups
    if len(shapes) > 2:
        bias = _rank(shapes[2], 1, "bias")
        if not _match(bias[0], out_channels):
            raise ShapeError(f"bias has {bias[0]} entries for {out_channels} channels")
    strides, dilations, pads = (
        _four(attrs, n) for n in ("strides", "dilations", "pads")
    )
    output_padding = list(attrs.get("output_padding", [0, 0]))
    shape = list(x)
    shape[c] = out_channels
    for axis, kernel, (begin, end), extra in (
        (h, w[2], pads[0:2], output_padding[0]),
        (wi, w[3], pads[2:4], output_padding[1]),
    ):
        size = x[axis]
        shape[axis] = (
            UNKNOWN
            if UNKNOWN in (size, kernel)
            else strides[axis] * (size - 1)
            + extra
            + dilations[axis] * (kernel - 1)
            + 1
            - begin
            - end
        )
    return [(tuple(shape), dtypes[0])]


@register_shape_function("ge.max_pool", "ge.avg_pool", keeps_layout=True)
def pool(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Window pooling; `ceil_mode` keeps a partial last window not in the end pad."""
    x = _rank(shapes[0], 4, "input")
    _, _, h, wi = _spatial(attrs)
    ksize, strides, pads = (_four(attrs, n) for n in ("ksize", "strides", "pads"))
    ceil_mode = bool(attrs.get("ceil_mode", False))
    shape = list(x)
    for axis, (begin, end) in ((h, pads[0:2]), (wi, pads[2:4])):
        size, kernel, stride = x[axis], ksize[axis], strides[axis]
        if size == UNKNOWN:
            continue
        if kernel > size + begin + end:
            raise ShapeError(
                f"window {kernel} is larger than the padded input {size + begin + end}"
            )
        out = (
            size + begin + end - kernel + (stride - 1 if ceil_mode else 0)
        ) // stride + 1
        if ceil_mode and (out - 1) * stride >= size + begin:
            out -= 1
        shape[axis] = out
    return [(tuple(shape), dtypes[0])]


@register_shape_function("ge.global_avg_pool", "ge.global_max_pool", keeps_layout=True)
def global_pool(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """H and W become 1."""
    x = _rank(shapes[0], 4, "input")
    _, _, h, wi = _spatial(attrs)
    shape = list(x)
    shape[h] = shape[wi] = 1
    return [(tuple(shape), dtypes[0])]


def _per_channel(shapes: Sequence[Shape], names: Sequence[str], channels: int) -> None:
    for shape, name in zip(shapes, names, strict=False):
        param = _rank(shape, 1, name)
        if not _match(param[0], channels):
            raise ShapeError(f"{name} has {param[0]} entries for {channels} channels")


@register_shape_function("ge.batch_norm", keeps_layout=True)
def batch_norm(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Same shape; scale/offset/mean/variance have one entry per channel."""
    x = _rank(shapes[0], 4, "input")
    _, c, _, _ = _spatial(attrs)
    _per_channel(shapes[1:], ("scale", "offset", "mean", "variance"), x[c])
    return [(x, dtypes[0])]


@register_shape_function("ge.instance_norm", keeps_layout=True)
def instance_norm(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Same shape; gamma/beta have one entry per channel."""
    x = _rank(shapes[0], 4, "input")
    _, c, _, _ = _spatial(attrs)
    _per_channel(shapes[1:], ("gamma", "beta"), x[c])
    return [(x, dtypes[0])]


@register_shape_function("ge.bias_add", keeps_layout=True)
def bias_add(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Same shape; the bias has one entry per channel of x."""
    x, bias = shapes[0], _rank(shapes[1], 1, "bias")
    data_format = _attr(attrs, "data_format")
    if not x:
        raise ShapeError("input must have rank >= 1")
    if len(x) == 4:
        channels = x[_spatial(attrs)[1]]
    else:
        channels = x[-1] if data_format == "NHWC" else x[min(1, len(x) - 1)]
    if not _match(bias[0], channels):
        raise ShapeError(f"bias has {bias[0]} entries for {channels} channels")
    return [(x, _same_dtype(dtypes))]


@register_shape_function("ge.matmul")
def matmul(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """[M, K] x [K, N] -> [M, N], each side optionally transposed; bias over N."""
    a = _rank(shapes[0], 2, "x1")
    b = _rank(shapes[1], 2, "x2")
    m, k1 = a[::-1] if attrs.get("transpose_x1") else a
    k2, n = b[::-1] if attrs.get("transpose_x2") else b
    if not _match(k1, k2):
        raise ShapeError(f"contraction sizes differ: {k1} vs {k2}")
    shape: Shape = (m, n)
    if len(shapes) > 2:
        shape = _broadcast([shape, shapes[2]])
    return [(shape, _same_dtype(dtypes[:2]))]


@register_shape_function("ge.batch_matmul")
def batch_matmul(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """NumPy matmul of rank >= 2 inputs; adj_x* swap the last two axes."""
    a, b = shapes
    if len(a) < 2 or len(b) < 2:
        raise ShapeError(f"inputs must have rank >= 2, got {len(a)} and {len(b)}")
    m, k1 = a[-1:-3:-1] if attrs.get("adj_x1") else a[-2:]
    k2, n = b[-1:-3:-1] if attrs.get("adj_x2") else b[-2:]
    if not _match(k1, k2):
        raise ShapeError(f"contraction sizes differ: {k1} vs {k2}")
    batch = _broadcast([a[:-2], b[:-2]])
    return [((*batch, m, n), _same_dtype(dtypes))]


@register_shape_function("ge.gemm")
def gemm(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """ONNX Gemm: op(a) [M, K] x op(b) [K, N]; c broadcasts to [M, N]."""
    a = _rank(shapes[0], 2, "a")
    b = _rank(shapes[1], 2, "b")
    m, k1 = a[::-1] if attrs.get("trans_a") else a
    k2, n = b[::-1] if attrs.get("trans_b") else b
    if not _match(k1, k2):
        raise ShapeError(f"contraction sizes differ: {k1} vs {k2}")
    if len(shapes) > 2 and broadcast_shapes((m, n), shapes[2]) != (m, n):
        raise ShapeError(f"c of shape {list(shapes[2])} does not broadcast to {[m, n]}")
    return [((m, n), _same_dtype(dtypes[:2]))]


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


@register_shape_function("ge.concat", keeps_layout=True)
def concat(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Dims agree except on `axis`, where they add up."""
    if not shapes:
        raise ShapeError("needs at least one input")
    rank = len(shapes[0])
    axis = _axis(_attr(attrs, "axis"), rank)
    result = list(shapes[0])
    for index, shape in enumerate(shapes[1:], 1):
        if len(shape) != rank:
            raise ShapeError(f"input #{index} has rank {len(shape)}, expected {rank}")
        for dim, (a, b) in enumerate(zip(result, shape, strict=True)):
            if dim != axis and not _match(a, b):
                raise ShapeError(
                    f"input #{index} has {b} at dim {dim}, input #0 has {a}"
                )
            if dim != axis and a == UNKNOWN:
                result[dim] = b
    sizes = [shape[axis] for shape in shapes]
    result[axis] = UNKNOWN if UNKNOWN in sizes else sum(sizes)
    return [(tuple(result), _same_dtype(dtypes))]


@register_shape_function("ge.split", keeps_layout=True)
def split(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """One result per entry of `sizes`, which add up to the split dim."""
    x = shapes[0]
    axis = _axis(_attr(attrs, "axis"), len(x))
    sizes = list(_attr(attrs, "sizes"))
    if min(sizes, default=0) < 0 or (x[axis] != UNKNOWN and sum(sizes) != x[axis]):
        raise ShapeError(f"sizes {sizes} do not add up to dim {axis} of size {x[axis]}")
    return [((*x[:axis], size, *x[axis + 1 :]), dtypes[0]) for size in sizes]


@register_shape_function("ge.slice", keeps_layout=True)
def slice_(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """ONNX Slice: negative bounds count from the end, bounds are clamped."""
    x = shapes[0]
    begins, ends = list(_attr(attrs, "begins")), list(_attr(attrs, "ends"))
    axes = list(attrs.get("axes") or range(len(begins)))
    steps = list(attrs.get("steps") or [1] * len(begins))
    if not len(ends) == len(axes) == len(steps) == len(begins):
        raise ShapeError("'begins', 'ends', 'axes' and 'steps' differ in length")
    shape = list(x)
    for begin, end, axis, step in zip(begins, ends, axes, steps, strict=True):
        axis = _axis(axis, len(x))
        if step == 0:
            raise ShapeError("'steps' cannot contain 0")
        dim = x[axis]
        if dim == UNKNOWN:
            continue
        begin, end = (
            (begin + dim if begin < 0 else begin),
            (end + dim if end < 0 else end),
        )
        if step > 0:
            begin, end = min(max(begin, 0), dim), min(max(end, 0), dim)
        else:
            begin, end = min(max(begin, 0), dim - 1), min(max(end, -1), dim - 1)
        shape[axis] = max(0, -(-(end - begin) // step))
    return [(tuple(shape), dtypes[0])]


@register_shape_function("ge.gather")
def gather(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """x dims before `axis`, the indices' dims, x dims after `axis`."""
    x, indices = shapes
    axis = _axis(attrs.get("axis", 0), len(x))
    if not dtypes[1].startswith(("int", "uint")):
        raise ShapeError(f"indices must be integers, got {dtypes[1]}")
    return [((*x[:axis], *indices, *x[axis + 1 :]), dtypes[0])]


@register_shape_function("ge.tile", keeps_layout=True)
def tile(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Each dim times its multiple."""
    x = shapes[0]
    multiples = list(_attr(attrs, "multiples"))
    if len(multiples) != len(x):
        raise ShapeError(f"'multiples' has {len(multiples)} entries for rank {len(x)}")
    shape = tuple(
        UNKNOWN if d == UNKNOWN else d * m for d, m in zip(x, multiples, strict=True)
    )
    return [(shape, dtypes[0])]


@register_shape_function("ge.pad", keeps_layout=True)
def pad(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Each dim grows by its begin and end padding (ONNX order [b0.., e0..])."""
    x = shapes[0]
    paddings = list(_attr(attrs, "paddings"))
    if len(paddings) != 2 * len(x):
        raise ShapeError(f"'paddings' has {len(paddings)} entries for rank {len(x)}")
    shape = []
    for axis, dim in enumerate(x):
        size = (
            UNKNOWN
            if dim == UNKNOWN
            else dim + paddings[axis] + paddings[len(x) + axis]
        )
        if size < 0 and dim != UNKNOWN:
            raise ShapeError(f"padding makes dim {axis} negative ({size})")
        shape.append(size)
    return [(tuple(shape), dtypes[0])]


@register_shape_function("ge.reshape")
def reshape(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """`shape` with 0 copying the input dim and one -1 inferred."""
    x = shapes[0]
    requested = list(_attr(attrs, "shape"))
    if requested.count(UNKNOWN) > 1:
        raise ShapeError(f"shape {requested} has more than one -1")
    copied = [i for i, dim in enumerate(requested) if dim == 0]
    if copied and copied[-1] >= len(x):
        raise ShapeError(
            f"shape {requested}: 0 at {copied[-1]} has no input dim to copy"
        )
    if any(dim < UNKNOWN for dim in requested):
        raise ShapeError(f"shape {requested} has a negative dim")
    target = [x[i] if dim == 0 else dim for i, dim in enumerate(requested)]
    # Copied dims cancel out, whether or not they are known.
    total = _product([d for i, d in enumerate(x) if i not in copied])
    given = _product([d for i, d in enumerate(requested) if d not in (0, UNKNOWN)])
    if UNKNOWN in requested:
        if total != UNKNOWN:
            if given == 0 or total % given:
                raise ShapeError(f"cannot reshape {list(x)} into {requested}")
            target[requested.index(UNKNOWN)] = total // given
    elif total != UNKNOWN and given != total:
        raise ShapeError(
            f"cannot reshape {list(x)} ({_product(x)} elements) into {target} "
            f"({_product(target)} elements)"
        )
    return [(tuple(target), dtypes[0])]


@register_shape_function("ge.flatten")
def flatten(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """[product of dims before `axis`, product of the rest]."""
    x = shapes[0]
    axis = _axis(attrs.get("axis", 1), len(x) + 1)
    return [((_product(x[:axis]), _product(x[axis:])), dtypes[0])]


@register_shape_function("ge.squeeze")
def squeeze(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Drop the size-1 `axes` (every size-1 axis when empty)."""
    x = shapes[0]
    axes = {_axis(a, len(x)) for a in attrs.get("axes") or []}
    for axis in axes:
        if x[axis] not in (1, UNKNOWN):
            raise ShapeError(f"cannot squeeze axis {axis} of size {x[axis]}")
    dropped = axes or {axis for axis, dim in enumerate(x) if dim == 1}
    return [(tuple(d for axis, d in enumerate(x) if axis not in dropped), dtypes[0])]


def _insert_ones(x: Shape, axes: Sequence[int]) -> Shape:
    rank = len(x) + len(axes)
    positions = {_axis(a, rank) for a in axes}
    if len(positions) != len(axes):
        raise ShapeError(f"axes {list(axes)} repeat an axis")
    dims = iter(x)
    return tuple(1 if axis in positions else next(dims) for axis in range(rank))


@register_shape_function("ge.unsqueeze")
def unsqueeze(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Insert size-1 axes at `axes` (positions in the result)."""
    return [(_insert_ones(shapes[0], list(_attr(attrs, "axes"))), dtypes[0])]


@register_shape_function("ge.expand_dims")
def expand_dims(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Insert one size-1 axis at `axis`."""
    return [(_insert_ones(shapes[0], [_attr(attrs, "axis")]), dtypes[0])]


def _permute(x: Shape, perm: Sequence[int], name: str) -> Shape:
    normalized = [p % max(len(x), 1) for p in perm]
    if sorted(normalized) != list(range(len(x))):
        raise ShapeError(f"'{name}' {list(perm)} is not a permutation of rank {len(x)}")
    return tuple(x[p] for p in normalized)


@register_shape_function("ge.transpose")
def transpose(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Result dim i is input dim `perm[i]`."""
    return [(_permute(shapes[0], _attr(attrs, "perm"), "perm"), dtypes[0])]


@register_shape_function("ge.permute")
def permute(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Result dim i is input dim `order[i]`."""
    return [(_permute(shapes[0], _attr(attrs, "order"), "order"), dtypes[0])]


@register_shape_function(
    "ge.reduce_sum", "ge.reduce_mean", "ge.reduce_max", keeps_layout=True
)
def reduce(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """`axes` (all when empty) become 1 with `keep_dims`, else disappear."""
    x = shapes[0]
    axes = {_axis(a, len(x)) for a in attrs.get("axes") or []} or set(range(len(x)))
    if attrs.get("keep_dims", True):
        shape = tuple(1 if axis in axes else d for axis, d in enumerate(x))
    else:
        shape = tuple(d for axis, d in enumerate(x) if axis not in axes)
    return [(shape, dtypes[0])]
