"""Shared helpers of the trans-op passes (GE's `TransOpUtil` and its friends).

What a trans op is and does, when two of them cancel, and which dtype
conversions lose information. The trans-op passes
(`transop-symmetry-elimination`, `transop-breadth-fusion`,
`transop-without-reshape-fusion`, `same-transdata-breadth-fusion`,
`cast-remove`, ...) ask these questions here, so each rule lives in one place:

- classification: `trans_kind(op)` (`TransKind`, or None for other ops),
  `spelled_by_result_type(op)` (a regrouping op's attributes add nothing
  to its result type);
- permutations: `permutation_of`, `compose_perms`, `inverse_perm`,
  `is_identity_perm`, `perms_are_inverse` (GE's TransposeD symmetry check);
- dtypes: `ge_precision_loss` (GE's `IsPrecisionLoss` table), `cast_is_exact`
  (every source value survives the conversion), `loses_precision(op)`;
- inverse pairs: `inverse_pair_failure(first, second)` and GE's NCHW <->
  NC1HWC0 "second chance" rule `transdata_second_chance_failure`. Both return
  None when the pair may be removed and otherwise the reason it may not, so
  callers can bail out with that reason.

SSA note (docs/GE_DEVIATIONS.md): GE compares the descriptors at the two ends
of each edge (`DescAreSymmetry`). Here a value has one type, so "T1 input
equals T2 output" is `first.x.type == second.y.type`, which covers dtype,
origin format and shape, storage format, storage shape and reshape type at
once, and "format continuous" always holds.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format, FormatError
from ge_dialect.layout import layout_of, reshape_type_of, shape_of, storage_shape_of
from ge_dialect.ops import (
    CastOp,
    ExpandDimsOp,
    PermuteOp,
    ReshapeOp,
    SqueezeOp,
    TransDataOp,
    TransposeOp,
    UnsqueezeOp,
    attribute_value,
)

# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------


class TransKind(enum.StrEnum):
    """What a trans op does; ops of one kind can cancel each other."""

    TRANSDATA = "transdata"
    CAST = "cast"
    TRANSPOSE = "transpose"
    RESHAPE = "reshape"
    SQUEEZE = "squeeze"
    UNSQUEEZE = "unsqueeze"
    EXPAND_DIMS = "expand_dims"


TRANS_KINDS: dict[type[Operation], TransKind] = {
    TransDataOp: TransKind.TRANSDATA,
    CastOp: TransKind.CAST,
    TransposeOp: TransKind.TRANSPOSE,
    PermuteOp: TransKind.TRANSPOSE,
    ReshapeOp: TransKind.RESHAPE,
    SqueezeOp: TransKind.SQUEEZE,
    UnsqueezeOp: TransKind.UNSQUEEZE,
    ExpandDimsOp: TransKind.EXPAND_DIMS,
}
"""Every trans op of the dialect and its kind. `ge.permute` counts as a
transpose: GE's PermutePass turns Permute into TransposeD before the trans-op
passes run."""


def trans_kind(op: Operation) -> TransKind | None:
    """The kind of a trans op, or None if `op` is not one."""
    return TRANS_KINDS.get(type(op))


REGROUPING_KINDS = frozenset(
    {TransKind.RESHAPE, TransKind.SQUEEZE, TransKind.UNSQUEEZE, TransKind.EXPAND_DIMS}
)
"""Kinds that regroup the row-major elements of their input: the result is the
input read in the result's shape, whatever attribute spells that shape."""


def spelled_by_result_type(op: Operation) -> bool:
    """Whether `op`'s own attributes only spell what its result type says.

    True for a regrouping op whose result has at most one unknown dim (the
    element count fixes it): `ge.reshape {shape = [3, -1]}` and
    `{shape = [3, 17]}` to `tensor<3x17xf32>`, or `ge.expand_dims` with axis
    0 and -2 to `tensor<1x3xf32>`, compute the same value.
    """
    if trans_kind(op) not in REGROUPING_KINDS:
        return False
    return list(shape_of(tensor_of(op.results[0]))).count(-1) <= 1


def tensor_of(value: SSAValue) -> TensorType:
    """The tensor type of a value (every `ge` value is a tensor)."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tensor


def dtype_of(value: SSAValue) -> str:
    """The dtype name ("float16", ...) of a tensor value."""
    return dtype_name(tensor_of(value).element_type)


def storage_element_count(tensor: TensorType) -> int | None:
    """How many elements the tensor's storage holds (padding included), or
    None when a dim is unknown or the layout has no storage shape."""
    try:
        shape = storage_shape_of(tensor)
    except FormatError:
        return None
    return None if -1 in shape else math.prod(shape)


def has_default_groups(op: Operation) -> bool:
    """False for a `ge.transdata` with groups != 1.

    A tensor type does not carry the groups of a FRACTAL_Z packing (the
    reference reads them from the TransData next to the value), so passes
    leave grouped TransData alone.
    """
    return not isinstance(op, TransDataOp) or op.value_of("groups") == 1


# ---------------------------------------------------------------------------
# Permutations (result dim i is input dim perm[i])
# ---------------------------------------------------------------------------


def permutation_of(op: TransposeOp | PermuteOp) -> list[int]:
    """The permutation of a transpose or permute, with negative axes normalised."""
    perm = attribute_value(op, op.PERMUTATION_ATTR)
    rank = len(perm)
    return [p % rank for p in perm]


def compose_perms(first: Sequence[int], second: Sequence[int]) -> list[int]:
    """The single permutation equal to applying `first`, then `second`."""
    return [first[axis] for axis in second]


def inverse_perm(perm: Sequence[int]) -> list[int]:
    """The permutation that undoes `perm`."""
    inverse = [0] * len(perm)
    for position, axis in enumerate(perm):
        inverse[axis] = position
    return inverse


def is_identity_perm(perm: Sequence[int]) -> bool:
    """Whether `perm` leaves every axis in place."""
    return list(perm) == list(range(len(perm)))


def perms_are_inverse(first: Sequence[int], second: Sequence[int]) -> bool:
    """GE's TransposeD symmetry: equal lengths and `first[second[i]] == i`.

    An index out of range means "not symmetric".
    """
    if len(first) != len(second):
        return False
    return all(
        0 <= axis < len(first) and first[axis] == i for i, axis in enumerate(second)
    )


# ---------------------------------------------------------------------------
# Dtypes and precision
# ---------------------------------------------------------------------------

_GE_LOSSY_FLOATS = frozenset({"float32", "float16", "float64", "bfloat16"})
_GE_LOSSY_INTS = frozenset({"int32", "int64"})

_INTEGERS: dict[str, tuple[int, int]] = {
    "int4": (-(2**3), 2**3 - 1),
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint4": (0, 2**4 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
"""Value range of each integer dtype."""

_FLOATS: dict[str, tuple[int, int, int]] = {
    "float16": (11, 15, -24),
    "bfloat16": (8, 127, -133),
    "float32": (24, 127, -149),
    "float64": (53, 1023, -1074),
}
"""Per float dtype: significand digits, largest exponent, smallest subnormal
exponent (the value 2**e)."""


def ge_precision_loss(src: str, dst: str) -> bool:
    """GE's `TransOpUtil::IsPrecisionLoss` table for a conversion `src` -> `dst`.

    True for anything -> bool (except bool -> bool) and for
    {float, float16, double, bf16} -> {int32, int64}. Narrowing float
    conversions (fp32 -> fp16) do not count: GE has a TODO about it. Use
    `cast_is_exact` where values must survive.
    """
    if dst == "bool":
        return src != "bool"
    return src in _GE_LOSSY_FLOATS and dst in _GE_LOSSY_INTS


def cast_is_exact(src: str, dst: str) -> bool:
    """Whether `dst` holds every value of `src` exactly, so that converting
    back gives the original (fp16 -> fp32: yes; fp32 -> fp16: no)."""
    if src == dst or src == "bool":
        return True
    if dst == "bool":
        return False
    if src in _INTEGERS:
        low, high = _INTEGERS[src]
        if dst in _INTEGERS:
            dst_low, dst_high = _INTEGERS[dst]
            return dst_low <= low and high <= dst_high
        digits, _, _ = _FLOATS[dst]
        return max(-low, high) <= 2**digits
    if dst in _INTEGERS:
        return False
    digits, max_exp, min_exp = _FLOATS[src]
    dst_digits, dst_max_exp, dst_min_exp = _FLOATS[dst]
    return digits <= dst_digits and max_exp <= dst_max_exp and min_exp >= dst_min_exp


def loses_precision(op: Operation) -> bool:
    """Whether `op` may change values: its result dtype cannot hold every
    value of its operand's dtype (only a Cast can; stricter than GE)."""
    if not op.operands or not op.results:
        return False
    return not cast_is_exact(dtype_of(op.operands[0]), dtype_of(op.results[0]))


# ---------------------------------------------------------------------------
# Inverse pairs (GE's TransOpSymmetryElimination preconditions)
# ---------------------------------------------------------------------------


def _normalised_axes(axes: Sequence[int], rank: int) -> list[int]:
    return sorted(axis % max(rank, 1) for axis in axes)


def squeeze_axes(op: SqueezeOp | UnsqueezeOp) -> list[int] | None:
    """The sorted non-negative axes a squeeze removes (input positions) or an
    unsqueeze inserts (output positions); None when a squeeze without axes
    meets unknown dims (which axes it removes is not known)."""
    if isinstance(op, UnsqueezeOp):
        return _normalised_axes(op.value_of("axes"), tensor_of(op.y).get_num_dims())
    shape = shape_of(tensor_of(op.x))
    if axes := op.value_of("axes"):
        return _normalised_axes(axes, len(shape))
    if -1 in shape:
        return None
    return [axis for axis, size in enumerate(shape) if size == 1]


def _transdata_pair(first: Operation, second: Operation) -> str | None:
    if not (has_default_groups(first) and has_default_groups(second)):
        return "grouped FRACTAL_Z packing (groups are not part of a type)"
    return None


def _transpose_pair(first: Operation, second: Operation) -> str | None:
    assert isinstance(first, TransposeOp | PermuteOp)
    assert isinstance(second, TransposeOp | PermuteOp)
    if not perms_are_inverse(permutation_of(first), permutation_of(second)):
        return "the permutations do not compose to the identity"
    return None


def _reshape_pair(first: Operation, second: Operation) -> str | None:
    if shape_of(tensor_of(first.operands[0])).count(-1) > 1:
        return "the reshape input has more than one unknown dim"
    return None


def _cast_pair(first: Operation, second: Operation) -> str | None:
    return None  # the precision guard, common to every pair, is all it takes


def _squeeze_pair(first: Operation, second: Operation) -> str | None:
    assert isinstance(first, SqueezeOp | UnsqueezeOp)
    assert isinstance(second, SqueezeOp | UnsqueezeOp)
    axes = squeeze_axes(first)
    if axes is None or axes != squeeze_axes(second):
        return "the squeeze and unsqueeze axes differ"
    return None


PAIR_RULES: dict[
    tuple[TransKind, TransKind], Callable[[Operation, Operation], str | None]
] = {
    (TransKind.TRANSDATA, TransKind.TRANSDATA): _transdata_pair,
    (TransKind.TRANSPOSE, TransKind.TRANSPOSE): _transpose_pair,
    (TransKind.RESHAPE, TransKind.RESHAPE): _reshape_pair,
    (TransKind.CAST, TransKind.CAST): _cast_pair,
    (TransKind.SQUEEZE, TransKind.UNSQUEEZE): _squeeze_pair,
    (TransKind.UNSQUEEZE, TransKind.SQUEEZE): _squeeze_pair,
}
"""GE's symmetry whitelist (TransposeD, Reshape, Cast, TransData and the
SqueezeV2/UnsqueezeV2 pair; ReFormat does not exist here) with each pair's
extra precondition. ExpandDims is not in GE's whitelist."""


def inverse_pair_failure(first: Operation, second: Operation) -> str | None:
    """None if `second(first(x))` is `x` for every `x` and may be replaced by
    it (GE's TransOpSymmetryElimination test), else the reason it may not.

    `second` must consume `first`'s result. Checks, in GE's order: the pair
    is in the whitelist, the pair's own precondition, `first` is not
    precision-losing (`loses_precision`: fp32 -> fp16 -> fp32 stays, fp16 ->
    fp32 -> fp16 goes) and the descriptors are symmetric (equal types).
    """
    first_kind, second_kind = trans_kind(first), trans_kind(second)
    if first_kind is None or second_kind is None:
        return "not a pair of trans ops"
    rule = PAIR_RULES.get((first_kind, second_kind))
    if rule is None:
        return f"{first_kind} followed by {second_kind} is not a symmetric pair"
    if (reason := rule(first, second)) is not None:
        return reason
    if loses_precision(first):
        return "the first op loses precision"
    if first.operands[0].type != second.results[0].type:
        return "the descriptors are not symmetric (types differ)"
    return None


_PRIMARY_5HD = {
    (Format.NCHW, Format.NC1HWC0),
    (Format.NC1HWC0, Format.NCHW),
}


def transdata_second_chance_failure(
    first: TransDataOp, second: TransDataOp
) -> str | None:
    """GE's "second chance" for a TransData pair whose shapes differ because
    a reshape sat between them (GE removes it first; here it is still there).

    None if the pair mirrors NCHW <-> NC1HWC0 so that the NC1HWC0 bytes of
    the two NCHW shapes coincide: mirrored formats and element counts,
    4-D known NCHW shapes with equal H*W, and equal C when the NCHW ->
    NC1HWC0 side pads the channels. Otherwise the reason.
    """
    if not (has_default_groups(first) and has_default_groups(second)):
        return "grouped TransData"
    first_in, first_out = tensor_of(first.x), tensor_of(first.y)
    second_in, second_out = tensor_of(second.x), tensor_of(second.y)
    first_formats = (layout_of(first_in)[1], layout_of(first_out)[1])
    second_formats = (layout_of(second_in)[1], layout_of(second_out)[1])
    if first_formats not in _PRIMARY_5HD:
        return "not a primary NCHW <-> NC1HWC0 conversion"
    if second_formats != first_formats[::-1]:
        return "the formats do not mirror"
    tensors = (first_in, first_out, second_in, second_out)
    if any(layout_of(t)[0] != Format.NCHW or reshape_type_of(t) for t in tensors):
        return "the origin format is not a 4-D NCHW"
    if first_in.element_type != second_out.element_type:
        return "the dtypes do not mirror"
    counts = [storage_element_count(t) for t in tensors]
    if None in counts or counts[0] != counts[3] or counts[1] != counts[2]:
        return "the element counts do not mirror"
    first_nchw, second_nchw = shape_of(first_in), shape_of(second_in)
    if len(first_nchw) != 4 or len(second_nchw) != 4:
        return "the NCHW shapes are not 4-D"
    if first_nchw[2] * first_nchw[3] != second_nchw[2] * second_nchw[3]:
        return "H*W differs"
    packing = first if first_formats[0] == Format.NCHW else second
    pads = storage_element_count(tensor_of(packing.x)) != storage_element_count(
        tensor_of(packing.y)
    )
    if pads and first_nchw[1] != second_nchw[1]:
        return "the channels are padded and C differs"
    return None
