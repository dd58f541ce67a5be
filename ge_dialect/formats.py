"""GE tensor formats: names, axes, and expansion to full rank (reshape types).

Pure Python (no xDSL, no NumPy), the base of the format library shared by the
dialect, the passes, the lowering and the runtime. It reproduces GE's
`transformer` rules:

- every tensor has an **origin format** (what the framework meant: ND, NCHW,
  NHWC, ...) and a **storage format** (how its bytes are laid out: NC1HWC0,
  FRACTAL_Z, FRACTAL_NZ, ...);
- tensors below their origin format's full rank are first expanded by a
  **reshape type** (`expand_dims_to_full_rank`).

The cube block sizes of a target are `ge_dialect.targets`; storage shapes and
data conversion are `ge_dialect.relayout`; dtype names `ge_dialect.dtype_names`.

Shapes are tuples of ints; -1 is an unknown dim (it stays -1, as in GE) and
`(-2,)` an unknown rank (returned unchanged). Every invalid request raises
`FormatError`.
"""

from __future__ import annotations

import enum
import itertools
import operator
from collections.abc import Mapping, Sequence

UNKNOWN_DIM = -1
UNKNOWN_RANK = -2
FORBIDDEN = "FORBIDDEN"
"""The reshape type that turns off expansion to full rank."""

N0 = 16
"""GE's fixed N-block (`NI`) of the FRACTAL_Z family and of C1HWNCoC0."""

ShapeLike = Sequence[int]


class FormatError(ValueError):
    """An invalid format, dtype, target, shape or conversion request."""


class Format(enum.StrEnum):
    """GE tensor formats; the value is GE's serial name."""

    ND = "ND"
    NCHW = "NCHW"
    NHWC = "NHWC"
    HWCN = "HWCN"
    CHWN = "CHWN"
    NCDHW = "NCDHW"
    NDHWC = "NDHWC"
    DHWCN = "DHWCN"
    NC1HWC0 = "NC1HWC0"
    NDC1HWC0 = "NDC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"
    FRACTAL_Z_3D = "FRACTAL_Z_3D"
    FRACTAL_NZ = "FRACTAL_NZ"
    C1HWNCoC0 = "C1HWNCoC0"
    NC1HWC0_C04 = "NC1HWC0_C04"
    FRACTAL_Z_C04 = "FRACTAL_Z_C04"
    RESERVED = "RESERVED"


ORIGIN_FORMATS: tuple[Format, ...] = (
    Format.ND,
    Format.NCHW,
    Format.NHWC,
    Format.HWCN,
    Format.CHWN,
    Format.NCDHW,
    Format.NDHWC,
    Format.DHWCN,
)
"""Formats a framework can mean; ND has no layout meaning."""

INTERNAL_FORMATS: tuple[Format, ...] = (
    Format.NC1HWC0,
    Format.NDC1HWC0,
    Format.FRACTAL_Z,
    Format.FRACTAL_Z_3D,
    Format.FRACTAL_NZ,
    Format.C1HWNCoC0,
    Format.NC1HWC0_C04,
    Format.FRACTAL_Z_C04,
)
"""Storage-only formats of the cube unit."""

FORMAT_AXES: Mapping[Format, tuple[str, ...]] = {
    **{fmt: tuple(fmt.value) for fmt in ORIGIN_FORMATS if fmt is not Format.ND},
    Format.NC1HWC0: ("N", "C1", "H", "W", "C0"),
    Format.NC1HWC0_C04: ("N", "C1", "H", "W", "C0"),
    Format.NDC1HWC0: ("N", "D", "C1", "H", "W", "C0"),
    Format.C1HWNCoC0: ("C1", "H", "W", "N1", "Co", "C0"),
}
"""Axis names of the formats whose dims each have one meaning."""

_FULL_RANK: Mapping[Format, int] = {
    fmt: 4 if fmt is Format.ND else len(fmt.value) for fmt in ORIGIN_FORMATS
}

_FORMAT_BY_KEY: Mapping[str, Format] = {fmt.value.upper(): fmt for fmt in Format}


def parse_format(name: Format | str) -> Format:
    """The format called `name` (case-insensitive, optional `FORMAT_` prefix)."""
    if isinstance(name, Format):
        return name
    if not isinstance(name, str):
        raise FormatError(f"a format name must be a string, got {name!r}")
    fmt = _FORMAT_BY_KEY.get(name.strip().upper().removeprefix("FORMAT_"))
    if fmt is None:
        raise FormatError(
            f"unknown format '{name}'; valid formats: {', '.join(Format)}"
        )
    return fmt


def full_rank(fmt: Format | str) -> int | None:
    """The rank tensors of an origin format expand to (ND: 4), else None."""
    return _FULL_RANK.get(parse_format(fmt))


def axis_index(fmt: Format | str, letter: str) -> int:
    """The position of axis `letter` (e.g. "C", "C1") in format `fmt`."""
    fmt = parse_format(fmt)
    axes = FORMAT_AXES.get(fmt)
    if axes is None:
        raise FormatError(f"format {fmt} has no named axes")
    if letter not in axes:
        raise FormatError(
            f"format {fmt} has no axis '{letter}' (axes: {', '.join(axes)})"
        )
    return axes.index(letter)


def usable_format(fmt: Format | str, role: str) -> Format:
    """`fmt` parsed, refusing RESERVED (not usable as an origin or storage format)."""
    fmt = parse_format(fmt)
    if fmt is Format.RESERVED:
        raise FormatError(f"RESERVED is not a usable {role} format")
    return fmt


def checked_shape(shape: ShapeLike) -> tuple[int, ...]:
    """`shape` as a tuple of ints: dims >= 0, -1 unknown, or `(-2,)` (unknown rank)."""
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise FormatError(
            f"a shape must be a sequence of ints, got {shape!r}"
        ) from None
    if dims != (UNKNOWN_RANK,) and any(d < UNKNOWN_DIM for d in dims):
        raise FormatError(
            f"invalid shape {list(dims)}: dims are >= 0, or -1 if unknown"
        )
    return dims


# --------------------------------------------------------------------------
# Expanding to full rank (reshape types)
# --------------------------------------------------------------------------


_DEFAULT_RESHAPE_TYPES: Mapping[Format, tuple[str, ...]] = {
    Format.NCHW: ("", "C", "CH", "CHW"),
    Format.NHWC: ("", "C", "HW", "HWC"),
    Format.HWCN: ("", "C", "CN", "WCN"),
    Format.CHWN: ("", "C", "WN", "HWN"),
    Format.NDHWC: ("", "C", "WC", "HWC", "DHWC"),
    Format.NCDHW: ("", "C", "HW", "DHW", "CDHW"),
    Format.DHWCN: ("", "C", "CN", "WCN", "HWCN"),
}

_MASK_RANK_SHIFT = 56


def default_reshape_type(fmt: Format | str, rank: int) -> str | None:
    """GE's default reshape type of a rank-`rank` tensor in `fmt` (None: none)."""
    table = _DEFAULT_RESHAPE_TYPES.get(parse_format(fmt), ())
    return table[rank] if 0 <= rank < len(table) else None


def _reshape_type_is_valid(origin: Format, rank: int, reshape_type: str) -> bool:
    if not reshape_type:
        return rank == 0
    if origin is Format.ND:
        return False
    positions = [origin.value.find(letter) for letter in reshape_type]
    return min(positions) >= 0 and all(a < b for a, b in itertools.pairwise(positions))


def _expansion_type(
    origin: Format, storage: Format | None, rank: int, reshape_type: str | None
) -> str | None:
    """The reshape type GE would expand with, or None if it does not expand."""
    full = _FULL_RANK.get(origin)
    reshape_type = reshape_type or ""
    if (
        full is None
        or rank >= full
        or reshape_type == FORBIDDEN
        or storage in (Format.ND, Format.FRACTAL_NZ)
        or (origin is Format.ND and storage is Format.FRACTAL_Z)
    ):
        return None
    if not _reshape_type_is_valid(origin, rank, reshape_type):
        reshape_type = default_reshape_type(origin, rank)
    if reshape_type is None or rank > len(reshape_type):
        return None
    return reshape_type


def expand_dims_to_full_rank(
    shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str | None = None,
    reshape_type: str | None = None,
) -> tuple[int, ...]:
    """Pad `shape` with 1s to its origin format's full rank, as GE does.

    Each dim goes to the axis named by its letter in `reshape_type`; an
    invalid or missing reshape type falls back to `default_reshape_type`.
    Unchanged if already full, for FORBIDDEN, for FRACTAL_NZ/ND targets, for
    ND→FRACTAL_Z and for ND tensors of rank > 0 (ND has no default).
    """
    origin = usable_format(origin_format, "origin")
    storage = (
        None if storage_format is None else usable_format(storage_format, "storage")
    )
    dims = checked_shape(shape)
    if dims == (UNKNOWN_RANK,):
        return dims
    letters = _expansion_type(origin, storage, len(dims), reshape_type)
    if letters is None:
        return dims
    expanded = [1] * _FULL_RANK[origin]
    for dim, letter in zip(dims, letters, strict=False):
        expanded[origin.value.index(letter)] = dim
    return tuple(expanded)


def reshape_type_mask(
    origin_format: Format | str,
    storage_format: Format | str,
    rank: int,
    reshape_type: str | None = None,
) -> int:
    """GE's integer expand-dims type: bit i marks inserted axis i, bits 56+ hold
    the full rank; 0 means no expansion."""
    origin = usable_format(origin_format, "origin")
    storage = usable_format(storage_format, "storage")
    letters = _expansion_type(origin, storage, rank, reshape_type)
    if letters is None:
        return 0
    full = _FULL_RANK[origin]
    kept = {origin.value.index(letter) for letter in letters[:rank]}
    inserted = sum(1 << i for i in range(full) if i not in kept)
    return inserted | (full << _MASK_RANK_SHIFT)


def reshape_type_from_mask(origin_format: Format | str, rank: int, mask: int) -> str:
    """The reshape type (kept axis letters) an integer expand-dims type encodes."""
    origin = usable_format(origin_format, "origin")
    if origin is Format.ND:
        if mask != 0:
            raise FormatError("ND has no axes, so its expand-dims mask must be 0")
        return ""
    full = _FULL_RANK.get(origin)
    if full is None:
        raise FormatError(f"{origin} does not support expanding dims")
    if mask == 0 and rank == full:
        return origin.value
    if mask >> _MASK_RANK_SHIFT != full:
        raise FormatError(
            f"expand-dims mask holds full rank {mask >> _MASK_RANK_SHIFT}, "
            f"{origin} needs {full}"
        )
    letters = "".join(origin.value[i] for i in range(full) if not mask >> i & 1)
    if len(letters) != rank:
        raise FormatError(
            f"expand-dims mask keeps {len(letters)} axes, the tensor has rank {rank}"
        )
    return letters


def expand_dims_by_mask(shape: ShapeLike, mask: int) -> tuple[int, ...]:
    """Expand `shape` by an integer expand-dims type (GE's runtime form)."""
    dims = checked_shape(shape)
    full = mask >> _MASK_RANK_SHIFT
    if mask == 0 or len(dims) >= full:
        return dims
    rest = iter(dims)
    expanded = [1 if mask >> i & 1 else next(rest, 1) for i in range(full)]
    return (*expanded, *rest)


def shape_matches(shape: Sequence[int], expected: Sequence[int]) -> bool:
    """Whether a concrete shape fits an IR shape (a dynamic dim matches any)."""
    return len(shape) == len(expected) and all(
        e < 0 or s == e for s, e in zip(shape, expected, strict=True)
    )
