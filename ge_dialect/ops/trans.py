"""Trans ops: ops that only move or reinterpret data (GE's trans ops).

`ge.transdata` relayouts between storage formats, `ge.cast` converts the
element type, and the shape ops (`ge.reshape`, `ge.flatten`, `ge.squeeze`,
`ge.unsqueeze`, `ge.expand_dims`, `ge.transpose`, `ge.permute`) regroup or
permute axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyAttr,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import FormatAttr, LayoutAttr
from ge_dialect.dtype_names import canonical_dtype, element_bits, numpy_dtype
from ge_dialect.dtypes import FLOAT_DTYPES, SATURATING_DTYPES, dtype_name
from ge_dialect.format_rules import (
    default_rule,
    permutation_rule,
    stop_rule,
    sync_transdata_formats,
)
from ge_dialect.formats import Format, FormatError
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.numpy_helpers import reduction_axes
from ge_dialect.ops.base import (
    UNARY_FORMAT,
    GEOperation,
    attribute_value,
    boolean,
    check_axis,
    check_permutation,
    check_rank,
    check_same_element_type,
    element_type_of,
    fractal_nz_placement,
    integer,
    ints,
    split_channel_axis,
    string,
)
from ge_dialect.scalar import ScalarBuilder, clamp, is_float
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    axis_index,
    parameter_axes,
    parameter_ints,
    parameter_length,
    product,
    required,
)
from ge_dialect.targets import c0_for, m0_for
from ge_dialect.traits import (
    KeepsLayout,
    RankBarrier,
    SameOriginFormat,
)


class TransOp(GEOperation):
    """Base of the trans ops: one input `x`, one result `y`."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = UNARY_FORMAT


# ---------------------------------------------------------------------------
# TransData and Cast
# ---------------------------------------------------------------------------


def letter_permutation(src: Format, dst: Format) -> tuple[int, ...] | None:
    """The axis permutation from origin format `src` to `dst` by axis letter.

    `perm[i]` is the position in `src` of `dst`'s axis i; None unless both are
    different formats naming the same axes (NCHW, NHWC, HWCN, CHWN; NCDHW,
    NDHWC, DHWCN).
    """
    if src == dst or src is Format.ND or sorted(src.value) != sorted(dst.value):
        return None
    if len(set(src.value)) != len(src.value):
        return None
    return tuple(src.value.index(letter) for letter in dst.value)


@irdl_op_definition
class TransDataOp(TransOp):
    """Relayout between storage formats; the origin shape is unchanged.

    ```mlir
    %y = ge.transdata %x {src_format = #ge.format<NCHW>,
                          dst_format = #ge.format<NC1HWC0>}
       : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
      -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
    ```
    """

    name = "ge.transdata"

    src_format = attr_def(FormatAttr)
    dst_format = attr_def(FormatAttr)
    groups = attr_def(IntegerAttr, default_value=integer(1))
    perm = opt_attr_def(DenseArrayBase)

    traits = traits_def(SameOriginFormat())
    FORMAT_RULE = staticmethod(default_rule)

    def origin_permutation(self) -> tuple[int, ...]:
        """Result origin axis i is operand origin axis `perm[i]`.

        The identity, except for a TransData that absorbed a transpose
        (`transpose-transdata-fusion`): it carries the transpose's `perm`, and
        its origin formats differ by that permutation of their axis letters
        (NHWC -> NCHW: perm [0, 3, 1, 2]).
        """
        if self.perm is not None:
            return tuple(attribute_value(self, "perm"))
        x_type = self.x.type
        assert isinstance(x_type, TensorType)
        return tuple(range(x_type.get_num_dims()))

    def refresh_format_attributes(self) -> None:
        sync_transdata_formats(self)

    def verify_(self) -> None:
        x_type, y_type = self.x.type, self.y.type
        assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
        if x_type.element_type != y_type.element_type:
            raise VerifyException("transdata cannot change the dtype (use ge.cast)")
        src_origin, src_storage = layout_of(x_type)
        dst_origin, dst_storage = layout_of(y_type)
        pending = self.attributes.get("input_layouts")
        if isinstance(pending, ArrayAttr) and isinstance(
            next(iter(pending.data), None), LayoutAttr
        ):
            # the operand is converted to this layout first (insert-transdata)
            src_storage = pending.data[0].storage_format
        if self.perm is not None:
            letters = letter_permutation(src_origin, dst_origin)
            if letters is None or list(letters) != attribute_value(self, "perm"):
                raise VerifyException(
                    f"perm must permute the axis letters of {src_origin.value} "
                    f"into {dst_origin.value}"
                )
        elif src_origin != dst_origin:
            raise VerifyException(
                f"origin formats differ: {src_origin.value} vs {dst_origin.value}"
            )
        expected = [shape_of(x_type)[p] for p in self.origin_permutation()]
        if list(shape_of(y_type)) != expected:
            raise VerifyException(
                f"origin shapes differ: {list(shape_of(x_type))} vs "
                f"{list(shape_of(y_type))}"
            )
        if self.src_format.data != src_storage:
            raise VerifyException(
                f"src_format {self.src_format.data.value} does not match the "
                f"operand's storage format {src_storage.value}"
            )
        if self.dst_format.data != dst_storage:
            raise VerifyException(
                f"dst_format {self.dst_format.data.value} does not match the "
                f"result's storage format {dst_storage.value}"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Relayout keeps the origin shape and dtype (permuted by `perm` when the
        TransData absorbed a transpose)."""
        perm = attrs.get("perm")
        if perm is None:
            return [(shapes[0], dtypes[0])]
        return [(tuple(shapes[0][p] for p in perm), dtypes[0])]

    @staticmethod
    def result_layout(
        operand_types: Sequence[TensorType], attrs: Mapping[str, Any]
    ) -> LayoutAttr | None:
        """The origin of the input (permuted by `perm`), storage `dst_format`."""
        origin = layout_of(operand_types[0])[0]
        if (perm := attrs.get("perm")) is not None:
            origin = Format("".join(origin.value[p] for p in perm))
        storage = attrs.get("dst_format", origin)
        return None if origin == storage == "ND" else LayoutAttr(origin, storage)

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, perm: Sequence[int] | None = None) -> np.ndarray:
        """The identity on origin values (a transpose by `perm` if it has one);
        the relayout itself is the result's storage format."""
        return x if perm is None else np.transpose(x, perm)


CAST_ROUND_MODES = ("up", "down", "nearest")
"""How a cast to float8_e8m0fnu rounds (ONNX Cast's `round_mode`)."""


def saturation_bound(dst_type: str, saturate: bool) -> float | None:
    """The magnitude a cast to `dst_type` clamps finite and infinite values to
    before rounding, or None (no clamping).

    ONNX Cast's `saturate` applies to the float8 types with a sign
    (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ): out-of-range values and infinities
    become the largest finite value of their sign, NaN stays NaN. Without it
    they round as IEEE does (to NaN where the type has no infinity).
    """
    if not saturate or dst_type not in SATURATING_DTYPES:
        return None
    import ml_dtypes  # only for float8 (its import costs about a second)

    return float(ml_dtypes.finfo(numpy_dtype(dst_type)).max)


def to_float8_e8m0(x: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """float32 values as float8_e8m0fnu (a power of two: the exponent only).

    The sign is dropped; NaN and ±inf become NaN (0xFF); a value with a
    fraction rounds up (`up`), is truncated (`down`), or rounds to nearest
    with ties to even on the exponent (`nearest`); with `saturate` nothing
    rounds past the largest value (2^127), else it becomes NaN.
    """
    bits = np.asarray(x, np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    special = exponent == 0xFF
    if round_mode == "up":
        bump = (bits & 0x7FFFFF) != 0
    elif round_mode == "nearest":
        guard = (bits & 0x400000) != 0
        sticky = (bits & 0x3FFFFF) != 0
        bump = guard & (sticky | (exponent > 0))
    else:
        bump = np.zeros(bits.shape, np.bool_)
    bump &= ~special
    if saturate:
        bump &= exponent != 0xFE
    exponent = np.where(special, 0xFF, exponent + bump).astype(np.uint8)
    return exponent.view(numpy_dtype("float8_e8m0fnu"))


def e8m0_element(
    b: ScalarBuilder, x: Any, e8m0: Attribute, saturate: bool, round_mode: str
) -> Any:
    """`to_float8_e8m0` of one element in `arith` ops on its float32 bits."""
    i32 = IntegerType(32)

    def masked(value: Any, mask: int) -> Any:
        return b.op(arith.AndIOp, value, b.const(mask, i32))

    def nonzero(value: Any) -> Any:
        return b.op(arith.CmpiOp, value, b.const(0, i32), "ne")

    bits = b.op(arith.BitcastOp, b.convert(x, f32), i32)
    exponent = masked(b.op(arith.ShRUIOp, bits, b.const(23, i32)), 0xFF)
    if round_mode == "up":
        bump = nonzero(masked(bits, 0x7FFFFF))
    elif round_mode == "nearest":
        guard = nonzero(masked(bits, 0x400000))
        sticky = nonzero(masked(bits, 0x3FFFFF))
        normal = b.op(arith.CmpiOp, exponent, b.const(0, i32), "sgt")
        bump = b.op(arith.AndIOp, guard, b.op(arith.OrIOp, sticky, normal))
    else:
        bump = None
    if bump is not None and saturate:
        below_max = b.op(arith.CmpiOp, exponent, b.const(0xFE, i32), "ne")
        bump = b.op(arith.AndIOp, bump, below_max)
    if bump is not None:
        rounded = b.op(arith.AddiOp, exponent, b.op(arith.ExtUIOp, bump, i32))
        special = b.op(arith.CmpiOp, exponent, b.const(0xFF, i32), "eq")
        exponent = b.op(arith.SelectOp, special, exponent, rounded)
    return b.op(arith.BitcastOp, b.op(arith.TruncIOp, exponent, IntegerType(8)), e8m0)


def dst_dtype(attrs: Mapping[str, Any]) -> str:
    """The dtype name a retyping op's `dst_type` attribute says (a dtype name
    or a NumPy dtype); ShapeError if it names none."""
    try:
        return canonical_dtype(required(attrs, "dst_type"))
    except FormatError as error:
        raise ShapeError(str(error)) from None


def check_retyped(op: CastOp | BitcastOp, what: str) -> None:
    """`op`'s result has its `dst_type` and its operand's shape."""
    if element_type_of(op.y) != op.dst_type:
        raise VerifyException(
            f"result dtype {element_type_of(op.y)} does not match dst_type "
            f"{op.dst_type}"
        )
    x_type, y_type = op.x.type, op.y.type
    assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
    if shape_of(x_type) != shape_of(y_type):
        raise VerifyException(f"{what} cannot change the shape")


@irdl_op_definition
class CastOp(TransOp):
    """Converts the element type to `dst_type` (ONNX Cast).

    Floats round to nearest even. `saturate` (the default) clamps values
    out of range of a float8 type with a sign to its largest finite value
    (`saturation_bound`); `round_mode` says how a cast to float8_e8m0fnu
    rounds (`to_float8_e8m0`). Float to integer truncates toward zero.
    """

    name = "ge.cast"

    dst_type = attr_def(AnyAttr())
    saturate = attr_def(IntegerAttr, default_value=boolean(True))
    round_mode = attr_def(StringAttr, default_value=string("up"))

    traits = traits_def(KeepsLayout())
    FORMAT_RULE = staticmethod(default_rule)

    def verify_(self) -> None:
        check_retyped(self, "cast")
        if self.round_mode.data not in CAST_ROUND_MODES:
            raise VerifyException(
                f"round_mode must be one of {', '.join(CAST_ROUND_MODES)}, got "
                f"'{self.round_mode.data}'"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape, dtype `dst_type` (a dtype name or a NumPy dtype)."""
        dtype = dst_dtype(attrs)
        return [(shapes[0], dtype)]

    def convert_element(self, b: ScalarBuilder, x: Any) -> Any:
        """One element `x` (as stored in the operand) on its way to `dst_type`:
        clamped to `saturation_bound` (in float32 unless `x` is a wider
        float), or, for float8_e8m0fnu, its bits computed (`e8m0_element`);
        the store then converts it to `dst_type` (`arith.truncf`, ...)."""
        dst = dtype_name(self.dst_type)
        saturate = bool(attribute_value(self, "saturate"))
        if dst == "float8_e8m0fnu":
            return e8m0_element(b, x, self.dst_type, saturate, self.round_mode.data)
        bound = saturation_bound(dst, saturate)
        if bound is None:
            return x
        if not is_float(x.type) or x.type.bitwidth < 32:
            x = b.convert(x, f32)
        return clamp(b, x, -bound, bound)

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, dst_type: str, saturate: bool, round_mode: str
    ) -> np.ndarray:
        """Convert to the NumPy dtype named `dst_type` (e.g. "float16")."""
        x = np.asarray(x)
        dst_type = canonical_dtype(dst_type)
        if dst_type == "float8_e8m0fnu":
            return to_float8_e8m0(x, bool(saturate), round_mode)
        bound = saturation_bound(dst_type, bool(saturate))
        if bound is not None:
            if x.dtype.name not in FLOAT_DTYPES:
                x = x.astype(np.float32)
            x = np.clip(x, -bound, bound)
        return x.astype(numpy_dtype(dst_type))


@irdl_op_definition
class BitcastOp(GEOperation):
    """Reinterprets the bits of each element as `dst_type`, of the same
    width (ONNX BitCast, GE Bitcast between equal sizes): float32 1.0 ->
    int32 1065353216; bool -> uint8 gives 0 or 1.

    ```mlir
    %y = ge.bitcast %x {dst_type = i32} : tensor<2x3xf32> -> tensor<2x3xi32>
    ```
    """

    name = "ge.bitcast"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    dst_type = attr_def(AnyAttr())

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(default_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_retyped(self, "bitcast")
        source, target = dtype_name(element_type_of(self.x)), dtype_name(self.dst_type)
        if (reason := bitcast_error(source, target)) is not None:
            raise VerifyException(reason)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Same shape, dtype `dst_type` of the same width."""
        dtype = dst_dtype(attrs)
        if (reason := bitcast_error(dtypes[0], dtype)) is not None:
            raise ShapeError(reason)
        return [(shapes[0], dtype)]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, dst_type: str) -> np.ndarray:
        """The same bytes viewed as `dst_type`."""
        x = np.array(x, copy=None, order="C")  # keeps a 0-d array 0-d
        return x.view(numpy_dtype(canonical_dtype(dst_type)))


def bitcast_error(source: str, target: str) -> str | None:
    """Why `source` elements cannot be reinterpreted as `target`, or None."""
    widths = element_bits(source), element_bits(target)
    if source == "bool":
        widths = (8, widths[1])  # a bool element is stored in a byte
    if (
        widths[0] != widths[1]
        or numpy_dtype(source).itemsize != numpy_dtype(target).itemsize
    ):
        return (
            f"cannot bitcast {source} ({widths[0]} bits) to {target} ({widths[1]} bits)"
        )
    if target == "bool":
        return "cannot bitcast to bool (not every byte is a bool)"
    return None


# ---------------------------------------------------------------------------
# Shape ops
# ---------------------------------------------------------------------------


class ShapeOp(TransOp):
    """Base of single-input, single-output ops that change the shape."""

    FORMAT_RULE = staticmethod(stop_rule)

    def verify_(self) -> None:
        check_same_element_type(self)
        self.verify_shape()

    def verify_shape(self) -> None:
        """Op-specific shape checks."""


def check_same_size(op: ShapeOp) -> None:
    """Operand and result hold the same number of elements (when known)."""
    x_type, y_type = op.x.type, op.y.type
    assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
    x_shape, y_shape = shape_of(x_type), shape_of(y_type)
    if -1 in x_shape or -1 in y_shape:
        return
    if product(x_shape) != product(y_shape):
        raise VerifyException(
            f"cannot reshape {list(x_shape)} ({product(x_shape)} elements) into "
            f"{list(y_shape)} ({product(y_shape)} elements)"
        )


@irdl_op_definition
class ReshapeOp(ShapeOp):
    """Reshape to `shape` (0 copies the input dim, one -1 is inferred).

    Without `shape`, the target is the declared result shape.
    """

    name = "ge.reshape"

    shape = opt_attr_def(DenseArrayBase)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ (in and out) when only the batch axes regroup (the
        last two dims stay, as `[B, H, S, D] -> [B*H, S, D]` before a
        batched product): the fractals are stored batch-major, so the
        buffer is the same bytes."""
        placed = fractal_nz_placement((*operands, *results))
        if placed is None:
            return True
        x_shape, y_shape = shape_of(self.x.type), shape_of(self.y.type)
        return (
            placed
            and len(x_shape) >= 2
            and len(y_shape) >= 2
            and UNKNOWN not in (*x_shape[-2:], *y_shape[-2:])
            and x_shape[-2:] == y_shape[-2:]
        )

    def verify_shape(self) -> None:
        check_same_size(self)

    def derived_attributes(self) -> dict[str, Any]:
        return {"shape": list(shape_of(self.y.type))}

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`shape` with 0 copying the input dim and one -1 inferred."""
        x = shapes[0]
        requested = list(required(attrs, "shape"))
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
        total = product([d for i, d in enumerate(x) if i not in copied])
        given = product([d for i, d in enumerate(requested) if d not in (0, UNKNOWN)])
        if UNKNOWN in requested:
            if total != UNKNOWN:
                if given == 0 or total % given:
                    raise ShapeError(f"cannot reshape {list(x)} into {requested}")
                target[requested.index(UNKNOWN)] = total // given
        elif total != UNKNOWN and given != total:
            raise ShapeError(
                f"cannot reshape {list(x)} ({product(x)} elements) into {target} "
                f"({product(target)} elements)"
            )
        return [(tuple(target), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, shape: Sequence[int]) -> np.ndarray:
        """Reshape; 0 copies the input dim, one -1 is inferred (ONNX Reshape)."""
        return np.reshape(x, [x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


@irdl_op_definition
class FlattenOp(ShapeOp):
    """Flatten to 2-D: dims before `axis` and dims from `axis` on."""

    name = "ge.flatten"

    axis = attr_def(IntegerAttr, default_value=integer(1))

    def verify_shape(self) -> None:
        axis, rank = self.value_of("axis"), self.x.type.get_num_dims()
        if not -rank <= axis <= rank:
            raise VerifyException(f"axis {axis} is out of range [{-rank}, {rank}]")
        check_rank(self.y, 2, "result")
        check_same_size(self)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[product of dims before `axis`, product of the rest]."""
        x = shapes[0]
        axis = axis_index(required(attrs, "axis"), len(x) + 1)
        return [((product(x[:axis]), product(x[axis:])), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, axis: int) -> np.ndarray:
        """Flatten to 2-D: dims before `axis` and from `axis` on (ONNX Flatten)."""
        return np.reshape(
            x, (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:])))
        )


@irdl_op_definition
class SqueezeOp(ShapeOp):
    """Remove the size-1 axes in `axes` (all size-1 axes when empty)."""

    name = "ge.squeeze"

    axes = attr_def(DenseArrayBase, default_value=ints())

    traits = traits_def(RankBarrier())

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ (in and out) when only batch axes go: the fractals
        stay as they are (an LSTM's step `[1, B, 4H] -> [B, 4H]`)."""
        placed = fractal_nz_placement((*operands, *results))
        if placed is None:
            return True
        shape = shape_of(self.x.type)
        axes = [a % len(shape) for a in self.value_of("axes")] or [
            index for index, dim in enumerate(shape) if dim == 1
        ]
        return placed and all(axis < len(shape) - 2 for axis in axes)

    def verify_shape(self) -> None:
        shape = shape_of(self.x.type)
        axes = self.value_of("axes")
        if axes and not shape:
            raise VerifyException("cannot squeeze axes of a rank-0 tensor")
        for axis in axes:
            index = check_axis(axis, len(shape))
            if shape[index] not in (1, -1):
                raise VerifyException(
                    f"cannot squeeze axis {axis} of size {shape[index]}"
                )
        check_same_size(self)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Drop the size-1 `axes` (every size-1 axis when empty)."""
        x = shapes[0]
        axes = {axis_index(a, len(x)) for a in attrs.get("axes") or []}
        for axis in axes:
            if x[axis] not in (1, UNKNOWN):
                raise ShapeError(f"cannot squeeze axis {axis} of size {x[axis]}")
        dropped = axes or {axis for axis, dim in enumerate(x) if dim == 1}
        kept = tuple(d for axis, d in enumerate(x) if axis not in dropped)
        return [(kept, dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axes",)
    """ONNX Squeeze's `axes` (opset 13 on: an input)."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`axes` checked, normalised and sorted."""
        return cls, {
            "axes": sorted(parameter_axes(values.get("axes", []), len(shapes[0])))
        }

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The rank drops by the number of axes; every dim unknown."""
        rank = len(known.shapes[0]) - parameter_length(known.parameter_shapes, "axes")
        if rank < 0:
            raise ShapeError(f"more axes than the {len(known.shapes[0])} of the input")
        return [((UNKNOWN,) * rank, known.dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, axes: Sequence[int]) -> np.ndarray:
        """Remove the given size-1 axes (all size-1 axes when empty)."""
        return np.squeeze(x, axis=reduction_axes(axes))


def insert_ones(x: Shape, axes: Sequence[int]) -> Shape:
    """`x` with size-1 axes at `axes` (positions in the result)."""
    rank = len(x) + len(axes)
    positions = {axis_index(a, rank) for a in axes}
    if len(positions) != len(axes):
        raise ShapeError(f"axes {list(axes)} repeat an axis")
    dims = iter(x)
    return tuple(1 if axis in positions else next(dims) for axis in range(rank))


@irdl_op_definition
class UnsqueezeOp(ShapeOp):
    """Insert size-1 axes at `axes` (positions in the result)."""

    name = "ge.unsqueeze"

    axes = attr_def(DenseArrayBase)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ (in and out) when only batch axes come in: the
        fractals stay as they are (an LSTM's hidden state `[B, H] ->
        [1, B, H]` before the steps are stacked)."""
        placed = fractal_nz_placement((*operands, *results))
        if placed is None:
            return True
        rank = self.y.type.get_num_dims()
        return placed and all(a % rank < rank - 2 for a in self.value_of("axes"))

    def verify_shape(self) -> None:
        rank = self.y.type.get_num_dims()
        for axis in self.value_of("axes"):
            check_axis(axis, rank)
        check_same_size(self)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Insert size-1 axes at `axes` (positions in the result)."""
        return [(insert_ones(shapes[0], list(required(attrs, "axes"))), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("axes",)
    """ONNX Unsqueeze's `axes` (opset 13 on: an input), positions in the result."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """`axes` checked against the result rank, normalised and sorted."""
        given = parameter_ints(required(values, "axes"), "axes")
        rank = len(shapes[0]) + len(given)
        return cls, {"axes": sorted(parameter_axes(given, rank))}

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """The rank grows by the number of axes; every dim unknown."""
        rank = len(known.shapes[0]) + parameter_length(known.parameter_shapes, "axes")
        return [((UNKNOWN,) * rank, known.dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, axes: Sequence[int]) -> np.ndarray:
        """Insert size-1 axes at `axes` (positions in the output rank)."""
        return np.expand_dims(x, tuple(axes))


@irdl_op_definition
class ExpandDimsOp(ShapeOp):
    """Insert one size-1 axis at `axis`."""

    name = "ge.expand_dims"

    axis = attr_def(IntegerAttr)

    traits = traits_def(RankBarrier())

    def verify_shape(self) -> None:
        check_axis(self.value_of("axis"), self.y.type.get_num_dims())
        check_same_size(self)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Insert one size-1 axis at `axis`."""
        return [(insert_ones(shapes[0], [required(attrs, "axis")]), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, axis: int) -> np.ndarray:
        """Insert one size-1 axis at `axis`."""
        return np.expand_dims(x, axis)


class PermutationOp(ShapeOp):
    """Base of ops that permute axes by an attribute (`PERMUTATION_ATTR`)."""

    PERMUTATION_ATTR: ClassVar[str] = "perm"

    def permutation(self) -> list[int]:
        """Result axis i is operand axis `permutation()[i]` (normalised)."""
        rank = max(self.x.type.get_num_dims(), 1)
        return [p % rank for p in self.value_of(self.PERMUTATION_ATTR)]

    def verify_shape(self) -> None:
        perm = self.value_of(self.PERMUTATION_ATTR)
        x_shape = shape_of(self.x.type)
        check_permutation(perm, len(x_shape), self.PERMUTATION_ATTR)
        expected = [x_shape[p] for p in perm]
        if list(shape_of(self.y.type)) != expected:
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} does not match the "
                f"permuted shape {expected}"
            )


def permuted_shape(x: Shape, perm: Sequence[int], name: str) -> Shape:
    """`x` permuted by `perm` (ShapeError unless it is a permutation)."""
    normalized = [p % max(len(x), 1) for p in perm]
    if sorted(normalized) != list(range(len(x))):
        raise ShapeError(f"'{name}' {list(perm)} is not a permutation of rank {len(x)}")
    return tuple(x[p] for p in normalized)


@irdl_op_definition
class TransposeOp(PermutationOp):
    """Permute axes: result dim i is input dim `perm[i]`."""

    name = "ge.transpose"

    perm = attr_def(DenseArrayBase)

    FORMAT_RULE = staticmethod(permutation_rule("perm"))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Result dim i is input dim `perm[i]`."""
        return [(permuted_shape(shapes[0], required(attrs, "perm"), "perm"), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, perm: Sequence[int]) -> np.ndarray:
        """Permute axes."""
        return np.transpose(x, perm)


@irdl_op_definition
class PermuteOp(PermutationOp):
    """GE/Caffe Permute: like transpose with attribute `order`."""

    name = "ge.permute"

    order = attr_def(DenseArrayBase)
    PERMUTATION_ATTR: ClassVar[str] = "order"

    traits = traits_def(RankBarrier())
    FORMAT_RULE = staticmethod(permutation_rule("order"))

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """Result dim i is input dim `order[i]`."""
        order = required(attrs, "order")
        return [(permuted_shape(shapes[0], order, "order"), dtypes[0])]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, order: Sequence[int]) -> np.ndarray:
        """GE/Caffe Permute: transpose with `order`."""
        return np.transpose(x, order)


def fractal_keys(
    coords: Sequence[np.ndarray], shape: Sequence[int], m0: int, c0: int
) -> tuple[np.ndarray, np.ndarray]:
    """(fractal number, position inside the fractal) of FRACTAL_NZ elements at
    origin `coords` of a tensor of `shape`: the leading dims and the row and
    column blocks of the last two dims number the M0 x C0 fractal."""
    *lead, rows, cols = coords
    *lead_dims, row_dims, col_dims = shape
    blocks = (*lead, rows // m0, cols // c0)
    counts = (*lead_dims, -(-row_dims // m0), -(-col_dims // c0))
    fractal = np.ravel_multi_index(blocks, counts) if counts else np.zeros(0)
    return fractal, (rows % m0) * c0 + cols % c0


def confusion_shape(
    x: Shape, perm: Sequence[int], shape: Sequence[int], transpose_first: bool
) -> Shape:
    """The result shape of a confusion transpose of `x` (see the op)."""
    if any(dim <= 0 for dim in shape):
        raise ShapeError(f"shape {list(shape)} has a dim that is not positive")
    if UNKNOWN not in x and product(x) != product(shape):
        raise ShapeError(
            f"cannot reshape {list(x)} ({product(x)} elements) into "
            f"{list(shape)} ({product(shape)} elements)"
        )
    if transpose_first:
        permuted_shape(x, perm, "perm")
        return tuple(shape)
    return permuted_shape(tuple(shape), perm, "perm")


@irdl_op_definition
class ConfusionTransposeOp(ShapeOp):
    """A reshape and a transpose in one op (CANN's ConfusionTransposeD).

    `transpose_first = false` (a head split): `y = transpose(reshape(x,
    shape), perm)`; `transpose_first = true` (a head merge): `y =
    reshape(transpose(x, perm), shape)`. `shape` is fully known (no 0 or
    -1). Where every M0 x C0 fractal of `x` lands whole on one fractal of
    `y` (`keeps_fractals`: the split or merge is of whole C0 column blocks,
    e.g. attention heads of a multiple of C0 lanes), the op runs in
    FRACTAL_NZ in and out, moving whole fractals, so a transformer's head
    split and merge do not leave FRACTAL_NZ.

    ```mlir
    %q = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>,
                                    shape = array<i64: 2, 11, 4, 16>}
       : tensor<2x11x64xf32> -> tensor<2x4x11x16xf32>
    ```
    """

    name = "ge.confusion_transpose"

    perm = attr_def(DenseArrayBase)
    shape = attr_def(DenseArrayBase)
    transpose_first = attr_def(IntegerAttr, default_value=boolean(False))

    def verify_shape(self) -> None:
        try:
            attrs = self.transpose_attributes()
            expected = confusion_shape(shape_of(self.x.type), **attrs)
        except ShapeError as error:
            raise VerifyException(str(error)) from error
        if list(shape_of(self.y.type)) != list(expected):
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} does not match "
                f"{list(expected)}"
            )

    def transpose_attributes(self) -> dict[str, Any]:
        """`perm`, `shape` and `transpose_first` as Python values."""
        return {
            "perm": list(self.value_of("perm")),
            "shape": list(self.value_of("shape")),
            "transpose_first": bool(self.value_of("transpose_first")),
        }

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`shape` permuted by `perm`, or (`transpose_first`) `shape` itself."""
        perm, shape = required(attrs, "perm"), required(attrs, "shape")
        first = bool(attrs.get("transpose_first"))
        return [(confusion_shape(shapes[0], perm, shape, first), dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        perm: Sequence[int],
        shape: Sequence[int],
        transpose_first: bool,
    ) -> np.ndarray:
        """Reshape then transpose, or (`transpose_first`) the other way round."""
        if transpose_first:
            return np.reshape(np.transpose(x, perm), shape)
        return np.transpose(np.reshape(x, shape), perm)

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """FRACTAL_NZ in and out only where whole fractals move
        (`keeps_fractals`); NC1HWC0 to FRACTAL_NZ or back where whole C0
        channel vectors move (`keeps_channel_vectors`: a patch embedding's
        `flatten(2).transpose(1, 2)` of a convolution's result into tokens,
        or tokens folded back into an image for the next convolution)."""
        (x,), (y,) = operands, results
        storages = (x.storage_format, y.storage_format)
        internal = {Format.FRACTAL_NZ, Format.NC1HWC0}
        if not internal & set(storages):
            return True
        dtype = dtype_name(element_type_of(self.x))
        m0, c0 = m0_for(dtype, target), c0_for(dtype, target)
        if storages == (Format.FRACTAL_NZ, Format.FRACTAL_NZ):
            return self.keeps_fractals(m0, c0)
        if storages == (Format.NC1HWC0, Format.FRACTAL_NZ):
            channel = split_channel_axis(x, self.x.type.get_num_dims())
            return channel is not None and self.keeps_channel_vectors(channel, c0)
        if storages == (Format.FRACTAL_NZ, Format.NC1HWC0):
            channel = split_channel_axis(y, self.y.type.get_num_dims())
            return channel is not None and self.keeps_channel_vectors(
                channel, c0, image_first=False
            )
        return False

    def source_coords(self) -> tuple[np.ndarray, ...] | None:
        """The origin index of `x` each element of `y` reads, in `y`'s
        row-major order (None: a dynamic or empty shape)."""
        x_shape, y_shape = shape_of(self.x.type), shape_of(self.y.type)
        if len(x_shape) < 2 or len(y_shape) < 2 or -1 in (*x_shape, *y_shape):
            return None
        size = product(x_shape)
        if size == 0:
            return None
        source = self.numpy_kernel(
            np.arange(size).reshape(x_shape), **self.transpose_attributes()
        )
        return np.unravel_index(source.ravel(), x_shape)

    def keeps_fractals(self, m0: int, c0: int) -> bool:
        """Whether each M0 x C0 fractal of `x` (FRACTAL_NZ) lands whole, in
        the same order, on one fractal of `y`: then the op moves fractals and
        runs in FRACTAL_NZ. Computed from the kernel's index map."""
        source = self.source_coords()
        if source is None:
            return False
        x_shape, y_shape = shape_of(self.x.type), shape_of(self.y.type)
        y_coords = np.unravel_index(np.arange(product(y_shape)), y_shape)
        return lands_whole(
            *fractal_keys(source, x_shape, m0, c0),
            *fractal_keys(y_coords, y_shape, m0, c0),
        )

    def keeps_channel_vectors(
        self, channel: int, c0: int, *, image_first: bool = True
    ) -> bool:
        """Whether each C0 channel vector of the image (`x`, or `y` without
        `image_first`; NC1HWC0, channels on axis `channel`) lands whole,
        lane for lane, on one fractal row of the other (FRACTAL_NZ: C0 lanes
        of one row), and back: then the op copies 32-byte vectors as they
        are and no lane changes place (when the rows fill whole fractals the
        two buffers are even the same bytes)."""
        source = self.source_coords()
        if source is None:
            return False
        x_shape, y_shape = shape_of(self.x.type), shape_of(self.y.type)
        y_coords = np.unravel_index(np.arange(product(y_shape)), y_shape)
        if image_first:
            x_keys = channel_vector_keys(source, x_shape, channel, c0)
            y_keys = fractal_row_keys(y_coords, y_shape, c0)
        else:
            x_keys = fractal_row_keys(source, x_shape, c0)
            y_keys = channel_vector_keys(y_coords, y_shape, channel, c0)
        return lands_whole(*x_keys, *y_keys) and lands_whole(*y_keys, *x_keys)


def channel_vector_keys(
    coords: Sequence[np.ndarray], shape: Sequence[int], channel: int, c0: int
) -> tuple[np.ndarray, np.ndarray]:
    """(C0 vector number, lane) of NC1HWC0 elements at origin `coords` of a
    tensor of `shape` whose channels are on axis `channel`."""
    blocks = list(coords)
    blocks[channel] = coords[channel] // c0
    return np.ravel_multi_index(blocks, shape), coords[channel] % c0


def fractal_row_keys(
    coords: Sequence[np.ndarray], shape: Sequence[int], c0: int
) -> tuple[np.ndarray, np.ndarray]:
    """(fractal row number, lane) of FRACTAL_NZ elements at origin `coords`
    of a tensor of `shape`: a row of C0 lanes of one column block."""
    *lead, rows, cols = coords
    return np.ravel_multi_index((*lead, rows, cols // c0), shape), cols % c0


def lands_whole(
    x_block: np.ndarray, x_lane: np.ndarray, y_block: np.ndarray, y_lane: np.ndarray
) -> bool:
    """Whether elements keep their lane and every block of `y` comes from
    one block of `x` (each element's block number and lane inside it, both
    in the same element order)."""
    if not np.array_equal(x_lane, y_lane):
        return False
    first = np.full(int(y_block.max()) + 1, -1)
    first[y_block] = x_block
    return bool(np.array_equal(first[y_block], x_block))


TRANS_OPS = (
    TransDataOp,
    CastOp,
    TransposeOp,
    PermuteOp,
    ReshapeOp,
    SqueezeOp,
    UnsqueezeOp,
    ExpandDimsOp,
)
"""GE's trans ops (what the trans-op passes move and cancel)."""
