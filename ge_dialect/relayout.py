"""Storage shapes and data relayout between origin and storage formats.

GE's `TransferShape` and data transfer, in NumPy: `transfer_shape` gives the
storage shape of an origin-format tensor, `to_storage` / `from_storage`
convert the data (padding is zeros, the way back drops it exactly);
`ValueLayout` is how one value is held (formats, dtype, reshape type,
groups), what the runtime stores and loads its arrays by.

Where GE silently returns a shape that no data layout matches, this library
raises instead: an internal format whose rank cannot be reached (ND below
rank 4, FORBIDDEN), a 5-D origin stored in a 4-D format or the reverse, and
C1HWNCoC0 data with N > 1 (GE's shape rule keeps ceil(N/16) blocks while its
data transfer keeps N rows). A grouped FRACTAL_Z weight with unknown N gets
unknown leading dims rather than GE's ungrouped guess. ND reads as NCHW at
rank 4 and as NCDHW at rank 5.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ge_dialect.dtype_names import canonical_dtype
from ge_dialect.formats import (
    N0,
    ORIGIN_FORMATS,
    UNKNOWN_DIM,
    UNKNOWN_RANK,
    Format,
    FormatError,
    ShapeLike,
    checked_shape,
    expand_dims_to_full_rank,
    full_rank,
    parse_format,
    usable_format,
)
from ge_dialect.targets import Target, get_target


def _ceil_div(a: int, b: int) -> int:
    return UNKNOWN_DIM if a < 0 else -(-a // b)


def _product(*dims: int) -> int:
    return UNKNOWN_DIM if min(dims, default=0) < 0 else math.prod(dims)


def _enlarge(cin: int, cout: int, c0: int, groups: int) -> int:
    """GE's group enlarge factor e: groups packed into one cube block."""
    if cin == 0 or cout == 0:
        return 1
    return min(math.lcm(c0 // math.gcd(cin, c0), N0 // math.gcd(cout, N0)), groups)


# Origin ranks each 4-D/5-D internal format accepts.
_ORIGIN_RANKS: Mapping[Format, tuple[int, ...]] = {
    Format.NC1HWC0: (4,),
    Format.NC1HWC0_C04: (4,),
    Format.C1HWNCoC0: (4,),
    Format.FRACTAL_Z: (4,),
    Format.FRACTAL_Z_C04: (4,),
    Format.NDC1HWC0: (4, 5),
    Format.FRACTAL_Z_3D: (5,),
}

_GROUPED_FORMATS = (Format.FRACTAL_Z, Format.FRACTAL_Z_3D)


class _Kind(enum.Enum):
    IDENTITY = enum.auto()
    PERMUTE = enum.auto()
    NC1HWC0 = enum.auto()
    NDC1HWC0 = enum.auto()
    FRACTAL_Z = enum.auto()
    FRACTAL_Z_2D = enum.auto()
    FRACTAL_Z_C04 = enum.auto()
    C1HWNCoC0 = enum.auto()
    FRACTAL_NZ = enum.auto()


_KIND_OF: Mapping[Format, _Kind] = {
    Format.NC1HWC0: _Kind.NC1HWC0,
    Format.NC1HWC0_C04: _Kind.NC1HWC0,
    Format.NDC1HWC0: _Kind.NDC1HWC0,
    Format.FRACTAL_Z: _Kind.FRACTAL_Z,
    Format.FRACTAL_Z_3D: _Kind.FRACTAL_Z,
    Format.FRACTAL_Z_C04: _Kind.FRACTAL_Z_C04,
    Format.C1HWNCoC0: _Kind.C1HWNCoC0,
}


@dataclasses.dataclass(frozen=True)
class _Plan:
    """How one (origin, storage) pair lays out one shape."""

    kind: _Kind
    storage: Format
    full_shape: tuple[int, ...]
    """The origin shape after expansion to full rank."""
    storage_shape: tuple[int, ...]
    perm: tuple[int, ...] = ()
    """Origin axes → storage axes (PERMUTE) or → NCHW / NCDHW (others)."""
    c0: int = 0
    m0: int = 0
    groups: int = 1
    enlarge: int = 1

    @property
    def canonical_shape(self) -> tuple[int, ...]:
        return tuple(self.full_shape[p] for p in self.perm)


def _make_plan(
    shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: str | npt.DTypeLike,
    reshape_type: str | None,
    groups: int,
    target: str | Target | None,
) -> _Plan:
    origin = usable_format(origin_format, "origin")
    storage = usable_format(storage_format, "storage")
    if origin not in ORIGIN_FORMATS:
        raise FormatError(
            f"origin format must be one of {', '.join(ORIGIN_FORMATS)}; "
            f"{origin} is a storage-only format"
        )
    dtype = canonical_dtype(dtype)
    dims = checked_shape(shape)
    if type(groups) is not int or groups < 1:
        raise FormatError(f"groups must be a positive int, got {groups!r}")
    if groups > 1 and storage not in _GROUPED_FORMATS:
        raise FormatError(
            f"groups={groups} only applies to FRACTAL_Z and FRACTAL_Z_3D, not {storage}"
        )
    m0, c0, _ = get_target(target).mkn(dtype)

    identity = _Plan(_Kind.IDENTITY, storage, dims, dims)
    if (
        dims == (UNKNOWN_RANK,)
        or storage in (origin, Format.ND)
        or (origin is Format.ND and storage in ORIGIN_FORMATS)
    ):
        return identity
    origin_rank = full_rank(origin)
    if origin is not Format.ND and len(dims) > origin_rank:
        raise FormatError(
            f"shape {list(dims)} has rank {len(dims)}, more than the {origin_rank} "
            f"axes of {origin}"
        )
    if storage is Format.FRACTAL_NZ:
        return _nz_plan(dims, m0, c0)
    if storage in ORIGIN_FORMATS:
        return _permute_plan(dims, origin, storage, identity)
    return _internal_plan(dims, origin, storage, reshape_type, groups, m0, c0)


def _internal_plan(
    dims: tuple[int, ...],
    origin: Format,
    storage: Format,
    reshape_type: str | None,
    groups: int,
    m0: int,
    c0: int,
) -> _Plan:
    """The plan of a 4-D/5-D internal format: expand, then read N, C, (D), H, W."""
    full = expand_dims_to_full_rank(dims, origin, storage, reshape_type)
    rank = len(full)
    if rank == 0:
        return _Plan(_Kind.IDENTITY, storage, full, full)
    if storage is Format.NC1HWC0_C04:
        c0 = 4
    if storage is Format.FRACTAL_Z and rank == 2:
        if groups > 1:
            raise FormatError("groups do not apply to a 2-D FRACTAL_Z weight")
        d0, d1 = full
        shape2d = (_ceil_div(d0, c0), _ceil_div(d1, N0), N0, c0)
        return _Plan(_Kind.FRACTAL_Z_2D, storage, full, shape2d, (), c0)
    accepted = _ORIGIN_RANKS[storage]
    origin_rank = full_rank(origin)
    if origin is not Format.ND:
        if origin_rank not in accepted:
            raise FormatError(
                f"{storage} needs a {accepted[0]}-D origin format; "
                f"{origin} is {origin_rank}-D"
            )
        if rank < origin_rank:
            raise FormatError(
                f"cannot store shape {list(dims)} of {origin} as {storage}: it needs "
                f"rank {origin_rank} and reshape type {reshape_type!r} cannot expand it"
            )
    elif rank not in accepted:
        raise FormatError(
            f"an ND tensor of rank {rank} cannot be stored as {storage} "
            f"(needs rank {' or '.join(map(str, accepted))})"
        )
    reference = "NCHW" if rank == 4 else "NCDHW"
    axes = reference if origin is Format.ND else origin.value
    perm = tuple(axes.index(letter) for letter in reference)
    plan = _Plan(_KIND_OF[storage], storage, full, (), perm, c0, m0, groups)
    return _with_storage_shape(plan)


def _nz_plan(dims: tuple[int, ...], m0: int, c0: int) -> _Plan:
    if not dims:
        return _Plan(_Kind.IDENTITY, Format.FRACTAL_NZ, dims, dims)
    *batch, rows, cols = (*dims, 1) if len(dims) == 1 else dims
    storage_shape = (*batch, _ceil_div(cols, c0), _ceil_div(rows, m0), m0, c0)
    return _Plan(_Kind.FRACTAL_NZ, Format.FRACTAL_NZ, dims, storage_shape, (), c0, m0)


def _permute_plan(
    dims: tuple[int, ...], origin: Format, storage: Format, identity: _Plan
) -> _Plan:
    origin_rank = full_rank(origin)
    if len(dims) < origin_rank:
        return identity
    if full_rank(storage) != origin_rank:
        raise FormatError(
            f"cannot store a {origin_rank}-D {origin} tensor as "
            f"{full_rank(storage)}-D {storage}"
        )
    perm = tuple(origin.value.index(letter) for letter in storage.value)
    return _Plan(_Kind.PERMUTE, storage, dims, tuple(dims[p] for p in perm), perm=perm)


def _with_storage_shape(plan: _Plan) -> _Plan:
    c0 = plan.c0
    canonical = plan.canonical_shape
    match plan.kind:
        case _Kind.NC1HWC0:
            n, c, h, w = canonical
            shape = (n, _ceil_div(c, c0), h, w, c0)
        case _Kind.NDC1HWC0:
            n, c, *dhw = canonical
            d, h, w = dhw if len(dhw) == 3 else (1, *dhw)
            shape = (n, d, _ceil_div(c, c0), h, w, c0)
        case _Kind.C1HWNCoC0:
            n, c, h, w = canonical
            shape = (_ceil_div(c, c0), h, w, _ceil_div(n, N0), c0, c0)
        case _Kind.FRACTAL_Z_C04:
            n, c, h, w = canonical
            if c > 4:
                raise FormatError(f"FRACTAL_Z_C04 needs C <= 4, got C={c}")
            shape = (_ceil_div(_product(4, h, w), c0), _ceil_div(n, N0), N0, c0)
        case _:
            return _fractal_z_plan(plan)
    return dataclasses.replace(plan, storage_shape=shape)


def _fractal_z_plan(plan: _Plan) -> _Plan:
    """FRACTAL_Z(_3D): [G'·(D)·C1·H·W, N1, 16, C0] with GE's group packing."""
    n, c, *spatial = plan.canonical_shape
    groups, c0 = plan.groups, plan.c0
    if groups > 1 and n >= 0 and (n < groups or n % groups):
        raise FormatError(
            f"groups={groups} must divide N={n} of the {plan.storage} weight"
        )
    if c < 0 or min(spatial) < 0:
        # As GE: an unknown C/D/H/W makes the first dim unknown, groups unused.
        shape = (UNKNOWN_DIM, _ceil_div(n, N0), N0, c0)
        return dataclasses.replace(plan, storage_shape=shape)
    g_blocks, enlarge = 1, 1
    if groups > 1:
        if n < 0:
            # GE ignores the groups here and gives a wrong first dim; say unknown.
            return dataclasses.replace(
                plan, storage_shape=(UNKNOWN_DIM, UNKNOWN_DIM, N0, c0)
            )
        n //= groups
        enlarge = _enlarge(c, n, c0, groups)
        g_blocks = _ceil_div(groups, enlarge)
        c, n = c * enlarge, n * enlarge
    first = g_blocks * _ceil_div(c, c0) * math.prod(spatial)
    shape = (first, _ceil_div(n, N0), N0, c0)
    return dataclasses.replace(plan, storage_shape=shape, enlarge=enlarge)


def transfer_shape(
    shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: str | npt.DTypeLike,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | Target | None = None,
) -> tuple[int, ...]:
    """The storage shape of an origin-format tensor of `shape` (GE's TransferShape).

    Internal formats first expand under-rank shapes by `reshape_type` (or the
    default). Unchanged, as in GE: scalars, unknown rank, storage == origin or
    ND, ND origins to plain formats, and under-rank shapes to plain formats.
    `groups` packs grouped-convolution weights into FRACTAL_Z(_3D) blocks
    (the weight's C is the per-group input channel count).
    """
    plan = _make_plan(
        shape, origin_format, storage_format, dtype, reshape_type, groups, target
    )
    return plan.storage_shape


def _storage_shape_mismatch(
    storage_shape: ShapeLike,
    origin_shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: str | npt.DTypeLike,
    reshape_type: str | None,
    groups: int,
    target: str | Target | None,
) -> str | None:
    """Why `storage_shape` is not the transferred shape, or None if it is."""
    given = checked_shape(storage_shape)
    expected = transfer_shape(
        origin_shape,
        origin_format,
        storage_format,
        dtype,
        reshape_type=reshape_type,
        groups=groups,
        target=target,
    )
    if len(given) == len(expected) and all(
        a == b or UNKNOWN_DIM in (a, b) for a, b in zip(given, expected, strict=True)
    ):
        return None
    return (
        f"storage shape {list(given)} does not match the "
        f"{parse_format(storage_format)} shape {list(expected)} of "
        f"{parse_format(origin_format)} {list(checked_shape(origin_shape))} "
        f"({canonical_dtype(dtype)})"
    )


def check_storage_shape(
    storage_shape: ShapeLike,
    origin_shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: str | npt.DTypeLike,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | Target | None = None,
) -> None:
    """Raise FormatError unless `storage_shape` is the transferred shape.

    A -1 on either side matches any dim.
    """
    mismatch = _storage_shape_mismatch(
        storage_shape,
        origin_shape,
        origin_format,
        storage_format,
        dtype,
        reshape_type,
        groups,
        target,
    )
    if mismatch is not None:
        raise FormatError(mismatch)


def storage_shape_is_valid(
    storage_shape: ShapeLike,
    origin_shape: ShapeLike,
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: str | npt.DTypeLike,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | Target | None = None,
) -> bool:
    """Whether `storage_shape` matches `transfer_shape` (-1 matches any dim).

    Invalid formats, dtypes or shapes still raise FormatError.
    """
    mismatch = _storage_shape_mismatch(
        storage_shape,
        origin_shape,
        origin_format,
        storage_format,
        dtype,
        reshape_type,
        groups,
        target,
    )
    return mismatch is None


# --------------------------------------------------------------------------
# Data conversion
# --------------------------------------------------------------------------


def _padded(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """`x` zero-padded at the end of every axis to `shape`."""
    if tuple(shape) == x.shape:
        return x
    out = np.zeros(shape, dtype=x.dtype)
    out[tuple(slice(0, d) for d in x.shape)] = x
    return out


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort(perm))


def _nc1hwc0_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    n, c, h, w = x.shape
    c1, c0 = plan.storage_shape[1], plan.c0
    x = _padded(x, (n, c1 * c0, h, w)).reshape(n, c1, c0, h, w)
    return x.transpose(0, 1, 3, 4, 2)


def _nc1hwc0_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    n, c1, h, w, c0 = s.shape
    c = plan.canonical_shape[1]
    return s.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :c]


def _ndc1hwc0_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    if x.ndim == 4:
        x = x[:, :, np.newaxis]
    n, c, d, h, w = x.shape
    c1, c0 = plan.storage_shape[2], plan.c0
    x = _padded(x, (n, c1 * c0, d, h, w)).reshape(n, c1, c0, d, h, w)
    return x.transpose(0, 3, 1, 4, 5, 2)


def _ndc1hwc0_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    n, d, c1, h, w, c0 = s.shape
    c = plan.canonical_shape[1]
    x = s.transpose(0, 2, 5, 1, 3, 4).reshape(n, c1 * c0, d, h, w)[:, :c]
    return x[:, :, 0] if len(plan.full_shape) == 4 else x


def _fractal_z_order(spatial_rank: int) -> tuple[int, ...]:
    """(G', C1, C0, *S, N1·N0) → (G', (D), C1, H, W, N1·N0, C0)."""
    spatial = list(range(3, 3 + spatial_rank))
    return (0, *spatial[:-2], 1, *spatial[-2:], 3 + spatial_rank, 2)


def _fractal_z_blocks(plan: _Plan) -> tuple[int, ...]:
    """(G', C1·C0, *S, N1·N0): the padded, group-packed weight."""
    c, *spatial = plan.canonical_shape[1:]
    c0, enlarge = plan.c0, plan.enlarge
    g_blocks = _ceil_div(plan.groups, enlarge)
    return (
        g_blocks,
        _ceil_div(c * enlarge, c0) * c0,
        *spatial,
        plan.storage_shape[1] * N0,
    )


def _fractal_z_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    n, c, *spatial = x.shape
    groups, enlarge, c0 = plan.groups, plan.enlarge, plan.c0
    per_group = n // groups
    weights = np.moveaxis(x.reshape(groups, per_group, c, *spatial), 1, -1)
    blocks = np.zeros(_fractal_z_blocks(plan), dtype=x.dtype)
    # Group g lands in block g // e, on the diagonal slot e_val = g % e.
    for e_val in range(enlarge):
        part = weights[e_val::enlarge]
        blocks[
            : len(part),
            e_val * c : (e_val + 1) * c,
            ...,
            e_val * per_group : (e_val + 1) * per_group,
        ] = part
    g_blocks, cc, *_, nn = blocks.shape
    blocks = blocks.reshape(g_blocks, cc // c0, c0, *spatial, nn)
    return blocks.transpose(_fractal_z_order(len(spatial)))


def _fractal_z_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    n, c, *spatial = plan.canonical_shape
    groups, enlarge, c0 = plan.groups, plan.enlarge, plan.c0
    per_group = n // groups
    g_blocks, cc, *_, nn = _fractal_z_blocks(plan)
    order = _fractal_z_order(len(spatial))
    unpacked = (g_blocks, cc // c0, c0, *spatial, nn)
    blocks = s.reshape([unpacked[i] for i in order]).transpose(_inverse(order))
    blocks = blocks.reshape(g_blocks, cc, *spatial, nn)
    weights = np.empty((groups, c, *spatial, per_group), dtype=s.dtype)
    for e_val in range(enlarge):
        count = len(range(e_val, groups, enlarge))
        weights[e_val::enlarge] = blocks[
            :count,
            e_val * c : (e_val + 1) * c,
            ...,
            e_val * per_group : (e_val + 1) * per_group,
        ]
    return np.moveaxis(weights, -1, 1).reshape(n, c, *spatial)


def _fractal_z_2d_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    c1, n1, n0, c0 = plan.storage_shape
    return _padded(x, (c1 * c0, n1 * n0)).reshape(c1, c0, n1, n0).transpose(0, 2, 3, 1)


def _fractal_z_2d_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    c1, n1, n0, c0 = s.shape
    d0, d1 = plan.full_shape
    return s.transpose(0, 3, 1, 2).reshape(c1 * c0, n1 * n0)[:d0, :d1]


def _fractal_z_c04_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    n, _, h, w = x.shape
    k1, n1, n0, c0 = plan.storage_shape
    rows = _padded(x, (n, 4, h, w)).transpose(0, 2, 3, 1).reshape(n, 4 * h * w)
    return (
        _padded(rows, (n1 * n0, k1 * c0)).reshape(n1, n0, k1, c0).transpose(2, 0, 1, 3)
    )


def _fractal_z_c04_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    k1, n1, n0, c0 = s.shape
    n, c, h, w = plan.canonical_shape
    rows = s.transpose(1, 2, 0, 3).reshape(n1 * n0, k1 * c0)[:n, : 4 * h * w]
    return rows.reshape(n, h, w, 4)[..., :c].transpose(0, 3, 1, 2)


def _c1hwncoc0_check(plan: _Plan) -> None:
    n = plan.canonical_shape[0]
    if n > 1:
        raise FormatError(
            f"C1HWNCoC0 data conversion needs N <= 1 (depthwise weights), got N={n}: "
            "GE's shape rule keeps ceil(N/16) blocks but its data layout keeps N rows"
        )


def _c1hwncoc0_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    _c1hwncoc0_check(plan)
    n, _, h, w = x.shape
    c1, c0 = plan.storage_shape[0], plan.c0
    channels = _padded(x, (n, c1 * c0, h, w)).reshape(n, c1, c0, h, w)
    out = np.zeros(plan.storage_shape, dtype=x.dtype)
    diagonal = np.arange(c0)
    out[..., diagonal, diagonal] = channels.transpose(1, 3, 4, 0, 2)
    return out


def _c1hwncoc0_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    _c1hwncoc0_check(plan)
    c1, h, w, n, c0, _ = s.shape
    diagonal = np.arange(c0)
    channels = s[..., diagonal, diagonal].transpose(3, 0, 4, 1, 2)
    return channels.reshape(n, c1 * c0, h, w)[:, : plan.canonical_shape[1]]


def _nz_to(x: np.ndarray, plan: _Plan) -> np.ndarray:
    if x.ndim == 1:
        x = x[:, np.newaxis]
    *batch, rows, cols = x.shape
    *_, w1, h1, m0, c0 = plan.storage_shape
    b = len(batch)
    x = _padded(x, (*batch, h1 * m0, w1 * c0)).reshape(*batch, h1, m0, w1, c0)
    return x.transpose(*range(b), b + 2, b, b + 1, b + 3)


def _nz_from(s: np.ndarray, plan: _Plan) -> np.ndarray:
    *batch, w1, h1, m0, c0 = s.shape
    b = len(batch)
    x = s.transpose(*range(b), b + 1, b + 2, b, b + 3).reshape(*batch, h1 * m0, w1 * c0)
    rows, cols = (
        plan.full_shape[-2:] if len(plan.full_shape) > 1 else (*plan.full_shape, 1)
    )
    return x[..., :rows, :cols]


_Converter = Callable[[np.ndarray, _Plan], np.ndarray]

_CONVERTERS: Mapping[_Kind, tuple[_Converter, _Converter]] = {
    _Kind.NC1HWC0: (_nc1hwc0_to, _nc1hwc0_from),
    _Kind.NDC1HWC0: (_ndc1hwc0_to, _ndc1hwc0_from),
    _Kind.FRACTAL_Z: (_fractal_z_to, _fractal_z_from),
    _Kind.FRACTAL_Z_2D: (_fractal_z_2d_to, _fractal_z_2d_from),
    _Kind.FRACTAL_Z_C04: (_fractal_z_c04_to, _fractal_z_c04_from),
    _Kind.C1HWNCoC0: (_c1hwncoc0_to, _c1hwncoc0_from),
    _Kind.FRACTAL_NZ: (_nz_to, _nz_from),
}
"""Per kind: canonical (NCHW/NCDHW or as-is) array ↔ storage array."""


def _array(array: npt.ArrayLike) -> np.ndarray:
    x = np.asarray(array)
    if x.dtype == object:
        raise FormatError("cannot convert an array of Python objects")
    return x


def _fresh(result: np.ndarray, source: np.ndarray) -> np.ndarray:
    """`result` as a contiguous array that shares no memory with `source`."""
    result = np.ascontiguousarray(result)
    return result.copy() if np.may_share_memory(result, source) else result


def to_storage(
    array: npt.ArrayLike,
    origin_format: Format | str,
    storage_format: Format | str,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | Target | None = None,
    dtype: str | npt.DTypeLike | None = None,
) -> np.ndarray:
    """Lay out an origin-format array in `storage_format` (zero padding).

    C0 comes from the array's dtype unless `dtype` is given (e.g. "int4" for
    int4 values held in int8). The result's shape is `transfer_shape`.
    """
    x = _array(array)
    plan = _make_plan(
        x.shape,
        origin_format,
        storage_format,
        x.dtype if dtype is None else dtype,
        reshape_type,
        groups,
        target,
    )
    full = x.reshape(plan.full_shape)
    if plan.kind is _Kind.IDENTITY:
        result = full
    elif plan.kind is _Kind.PERMUTE:
        result = full.transpose(plan.perm)
    else:
        forward, _ = _CONVERTERS[plan.kind]
        result = forward(full.transpose(plan.perm) if plan.perm else full, plan)
    return _fresh(result, x).reshape(plan.storage_shape)


def from_storage(
    array: npt.ArrayLike,
    origin_format: Format | str,
    storage_format: Format | str,
    origin_shape: ShapeLike,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | Target | None = None,
    dtype: str | npt.DTypeLike | None = None,
) -> np.ndarray:
    """The origin-format array of shape `origin_shape` held by a storage array.

    The inverse of `to_storage`: padding is dropped. The storage array's
    shape must equal `transfer_shape(origin_shape, ...)`.
    """
    s = _array(array)
    origin_dims = checked_shape(origin_shape)
    if UNKNOWN_DIM in origin_dims or origin_dims == (UNKNOWN_RANK,):
        raise FormatError(f"origin shape {list(origin_dims)} must be fully known")
    plan = _make_plan(
        origin_dims,
        origin_format,
        storage_format,
        s.dtype if dtype is None else dtype,
        reshape_type,
        groups,
        target,
    )
    if s.shape != plan.storage_shape:
        raise FormatError(
            f"storage array has shape {list(s.shape)}, but {plan.storage} of "
            f"{parse_format(origin_format)} {list(origin_dims)} has shape "
            f"{list(plan.storage_shape)}"
        )
    if plan.kind is _Kind.IDENTITY:
        x = s
    elif plan.kind is _Kind.PERMUTE:
        x = s.transpose(_inverse(plan.perm))
    else:
        _, backward = _CONVERTERS[plan.kind]
        x = backward(s, plan)
        if plan.perm:
            x = x.transpose(_inverse(plan.perm))
    return _fresh(x, s).reshape(origin_dims)


def convert(
    array: npt.ArrayLike,
    origin_format: Format | str,
    src_storage: Format | str,
    dst_storage: Format | str,
    origin_shape: ShapeLike,
    *,
    reshape_type: str | None = None,
    src_groups: int = 1,
    dst_groups: int = 1,
    target: str | Target | None = None,
    dtype: str | npt.DTypeLike | None = None,
) -> np.ndarray:
    """Convert a storage array between two storage formats of one origin tensor."""
    origin = from_storage(
        array,
        origin_format,
        src_storage,
        origin_shape,
        reshape_type=reshape_type,
        groups=src_groups,
        target=target,
        dtype=dtype,
    )
    return to_storage(
        origin,
        origin_format,
        dst_storage,
        reshape_type=reshape_type,
        groups=dst_groups,
        target=target,
        dtype=dtype,
    )


@dataclasses.dataclass(frozen=True)
class ValueLayout:
    """How a value's data is held: its formats, dtype, reshape type and groups."""

    origin: Format
    storage: Format
    dtype: str
    reshape_type: str | None = None
    groups: int = 1
    target: str | None = None

    @property
    def is_plain(self) -> bool:
        """Whether the stored array is the origin array itself."""
        return self.storage in (self.origin, Format.ND)

    def _options(self) -> dict[str, Any]:
        return {
            "reshape_type": self.reshape_type,
            "groups": self.groups,
            "target": self.target,
            "dtype": self.dtype,
        }

    def store(self, origin: np.ndarray) -> np.ndarray:
        """The storage-layout array of an origin-layout array."""
        if self.is_plain:
            return origin
        return to_storage(origin, self.origin, self.storage, **self._options())

    def to_json(self) -> dict[str, Any]:
        """The layout as a JSON object (the target is the model's: not kept)."""
        return {
            "origin": self.origin.value,
            "storage": self.storage.value,
            "dtype": self.dtype,
            "reshape_type": self.reshape_type,
            "groups": self.groups,
        }

    @classmethod
    def of_json(cls, entry: Mapping[str, Any], target: str | None) -> ValueLayout:
        """The layout `to_json` gave, for `target`."""
        return cls(
            Format(entry["origin"]),
            Format(entry["storage"]),
            entry["dtype"],
            entry["reshape_type"],
            entry["groups"],
            target,
        )

    def load(self, stored: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        """The origin-layout array of `shape` held by a storage-layout array."""
        if self.is_plain:
            return stored
        return from_storage(stored, self.origin, self.storage, shape, **self._options())
