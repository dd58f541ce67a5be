"""GE tensor formats: names, cube block sizes, shape transfer and data conversion.

A pure Python/NumPy library (no xDSL) shared by the dialect, the passes, the
lowering and the runtime. It reproduces GE's `transformer` rules:

- every tensor has an **origin format** (what the framework meant: ND, NCHW,
  NHWC, ...) and a **storage format** (how its bytes are laid out: NC1HWC0,
  FRACTAL_Z, FRACTAL_NZ, ...);
- the cube block sizes M0, K0 (= C0) and N0 come from a **target** table
  (`data/targets/*.json`); the default target follows the seed rule
  C0 = 32 bytes / element size, named targets hold GE's platform tables;
- tensors below their origin format's full rank are first expanded by a
  **reshape type** (`expand_dims_to_full_rank`);
- `transfer_shape` gives the storage shape, `to_storage` / `from_storage`
  convert the data (padding is zeros, the way back drops it exactly).

Shapes are tuples of ints; -1 is an unknown dim (it stays -1, as in GE) and
`(-2,)` an unknown rank (returned unchanged). Every invalid request raises
`FormatError`.

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
import functools
import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import read_json_file

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


def _usable_format(fmt: Format | str, role: str) -> Format:
    fmt = parse_format(fmt)
    if fmt is Format.RESERVED:
        raise FormatError(f"RESERVED is not a usable {role} format")
    return fmt


# --------------------------------------------------------------------------
# Dtypes
# --------------------------------------------------------------------------

_DTYPE_BITS: Mapping[str, int] = {
    "float16": 16,
    "bfloat16": 16,
    "float32": 32,
    "float64": 64,
    "int8": 8,
    "uint8": 8,
    "int16": 16,
    "uint16": 16,
    "int32": 32,
    "uint32": 32,
    "int64": 64,
    "uint64": 64,
    "bool": 8,
    "int4": 4,
    "uint4": 4,
    "int2": 2,
    "uint2": 2,
    "float8_e4m3fn": 8,
    "float8_e4m3fnuz": 8,
    "float8_e5m2": 8,
    "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8,
    "float4_e2m1fn": 4,
}

_DTYPE_ALIASES: Mapping[str, str] = {
    "half": "float16",
    "fp16": "float16",
    "f16": "float16",
    "bf16": "bfloat16",
    "float": "float32",
    "fp32": "float32",
    "f32": "float32",
    "double": "float64",
    "fp64": "float64",
    "f64": "float64",
    "i1": "bool",
    "i2": "int2",
    "ui2": "uint2",
    "i4": "int4",
    "ui4": "uint4",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2": "float8_e5m2",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
    "f4e2m1fn": "float4_e2m1fn",
    "i8": "int8",
    "ui8": "uint8",
    "i16": "int16",
    "ui16": "uint16",
    "i32": "int32",
    "ui32": "uint32",
    "i64": "int64",
    "ui64": "uint64",
}


def dtype_name(dtype: str | npt.DTypeLike) -> str:
    """The canonical dtype name ("float16", "int4", ...) of a name or NumPy dtype.

    Strings may also be GE names (`DT_FLOAT16`) or MLIR names (`f16`, `i8`).
    """
    if isinstance(dtype, str):
        key = dtype.strip().lower().removeprefix("dt_")
        name = _DTYPE_ALIASES.get(key, key)
    elif dtype is None:
        name = "None"
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = repr(dtype)
    if name not in _DTYPE_BITS:
        raise FormatError(
            f"unsupported dtype '{dtype}'; supported: {', '.join(_DTYPE_BITS)}"
        )
    return name


def element_bits(dtype: str | npt.DTypeLike) -> int:
    """The size of one element of `dtype` in bits (int4: 4, bool: 8)."""
    return _DTYPE_BITS[dtype_name(dtype)]


# --------------------------------------------------------------------------
# Targets: the M0/K0/N0 cube block sizes
# --------------------------------------------------------------------------

_TARGET_DIR = Path(__file__).parent / "data" / "targets"
_TARGET_KEYS = frozenset({"name", "aliases", "description", "k0_bytes", "dtype_mkn"})


@dataclasses.dataclass(frozen=True, eq=False)
class Target:
    """A platform's cube block sizes: GE's `DtypeMKN` table.

    `default_mkn` is (M0, K0, N0) for dtypes without an entry in `dtype_mkn`;
    if `k0_bytes` is set, their K0 is instead `k0_bytes` / element size (the
    seed rule). C0 is K0.
    """

    name: str
    default_mkn: tuple[int, int, int]
    dtype_mkn: Mapping[str, tuple[int, int, int]] = dataclasses.field(
        default_factory=dict
    )
    k0_bytes: int | None = None
    aliases: tuple[str, ...] = ()
    description: str = ""

    def mkn(self, dtype: str | npt.DTypeLike) -> tuple[int, int, int]:
        """(M0, K0, N0) for `dtype` on this target."""
        name = dtype_name(dtype)
        if name in self.dtype_mkn:
            return self.dtype_mkn[name]
        m0, k0, n0 = self.default_mkn
        if self.k0_bytes is not None:
            k0 = max(1, self.k0_bytes * 8 // _DTYPE_BITS[name])
        return m0, k0, n0

    @classmethod
    def from_json(cls, data: Any, source: str = "<json>") -> Target:
        """A target from its JSON object (schema: `data/targets/*.json`)."""

        def fail(message: str) -> FormatError:
            return FormatError(f"invalid target description {source}: {message}")

        def block(value: Any, key: str) -> tuple[int, int, int]:
            if not (
                isinstance(value, list)
                and len(value) == 3
                and all(type(v) is int and v > 0 for v in value)
            ):
                raise fail(f"dtype_mkn '{key}' must be [M0, K0, N0] of positive ints")
            return value[0], value[1], value[2]

        if not isinstance(data, dict):
            raise fail("expected a JSON object")
        if unknown := sorted(set(data) - _TARGET_KEYS):
            raise fail(
                f"unknown key '{unknown[0]}' (keys: {', '.join(sorted(_TARGET_KEYS))})"
            )
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise fail("'name' must be a non-empty string")
        table = data.get("dtype_mkn")
        if not isinstance(table, dict) or "default" not in table:
            raise fail("'dtype_mkn' must be an object with a 'default' entry")
        overrides: dict[str, tuple[int, int, int]] = {}
        for key, value in table.items():
            if key == "default":
                continue
            try:
                dtype = dtype_name(key)
            except FormatError:
                raise fail(f"unknown dtype '{key}' in dtype_mkn") from None
            overrides[dtype] = block(value, key)
        k0_bytes = data.get("k0_bytes")
        if k0_bytes is not None and not (type(k0_bytes) is int and k0_bytes > 0):
            raise fail("'k0_bytes' must be a positive int")
        aliases = data.get("aliases", [])
        if not isinstance(aliases, list) or not all(
            isinstance(a, str) for a in aliases
        ):
            raise fail("'aliases' must be a list of strings")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise fail("'description' must be a string")
        return cls(
            name=name.strip(),
            default_mkn=block(table["default"], "default"),
            dtype_mkn=overrides,
            k0_bytes=k0_bytes,
            aliases=tuple(aliases),
            description=description,
        )


def load_target(path: str | Path) -> Target:
    """Read a target description from a JSON file (without registering it)."""
    try:
        data = read_json_file(path, "target file")
    except OSError as error:
        raise FormatError(f"cannot read target file {path}: {error.strerror}") from None
    except GEError as error:
        raise FormatError(str(error).split(": error: ", 1)[-1]) from None
    return Target.from_json(data, str(path))


@functools.cache
def _registry() -> dict[str, Target]:
    targets: dict[str, Target] = {}
    for path in sorted(_TARGET_DIR.glob("*.json")):
        _add_target(targets, load_target(path))
    return targets


def _add_target(targets: dict[str, Target], target: Target) -> None:
    for name in (target.name, *target.aliases):
        targets[name.lower()] = target


def register_target(target: Target) -> Target:
    """Make `target` (and its aliases) known by name; replaces a same-named one."""
    _add_target(_registry(), target)
    return target


def register_target_file(path: str | Path) -> Target:
    """Load a target JSON file and register it."""
    return register_target(load_target(path))


def known_targets() -> tuple[str, ...]:
    """The names of the registered targets (without aliases)."""
    return tuple(sorted({t.name for t in _registry().values()}, key=str.lower))


def get_target(target: str | Target | None = None) -> Target:
    """The target called `target` (case-insensitive); None means "default"."""
    if isinstance(target, Target):
        return target
    name = "default" if target is None else target
    if not isinstance(name, str) or name.lower() not in _registry():
        raise FormatError(
            f"unknown target '{name}'; known targets: {', '.join(known_targets())}"
        )
    return _registry()[name.lower()]


def c0_for(
    dtype: str | npt.DTypeLike,
    target: str | Target | None = None,
    *,
    storage_format: Format | str | None = None,
) -> int:
    """C0 (= K0) for `dtype` on `target`; NC1HWC0_C04 forces 4."""
    k0 = get_target(target).mkn(dtype)[1]
    if storage_format is None:
        return k0
    return 4 if parse_format(storage_format) is Format.NC1HWC0_C04 else k0


def m0_for(dtype: str | npt.DTypeLike, target: str | Target | None = None) -> int:
    """M0 (the FRACTAL_NZ row block) for `dtype` on `target`."""
    return get_target(target).mkn(dtype)[0]


def n0_for(dtype: str | npt.DTypeLike, target: str | Target | None = None) -> int:
    """N0 of the target's DtypeMKN table for `dtype`."""
    return get_target(target).mkn(dtype)[2]


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
    origin = _usable_format(origin_format, "origin")
    storage = (
        None if storage_format is None else _usable_format(storage_format, "storage")
    )
    dims = _check_shape(shape)
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
    origin = _usable_format(origin_format, "origin")
    storage = _usable_format(storage_format, "storage")
    letters = _expansion_type(origin, storage, rank, reshape_type)
    if letters is None:
        return 0
    full = _FULL_RANK[origin]
    kept = {origin.value.index(letter) for letter in letters[:rank]}
    inserted = sum(1 << i for i in range(full) if i not in kept)
    return inserted | (full << _MASK_RANK_SHIFT)


def reshape_type_from_mask(origin_format: Format | str, rank: int, mask: int) -> str:
    """The reshape type (kept axis letters) an integer expand-dims type encodes."""
    origin = _usable_format(origin_format, "origin")
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
    dims = _check_shape(shape)
    full = mask >> _MASK_RANK_SHIFT
    if mask == 0 or len(dims) >= full:
        return dims
    rest = iter(dims)
    expanded = [1 if mask >> i & 1 else next(rest, 1) for i in range(full)]
    return (*expanded, *rest)


# --------------------------------------------------------------------------
# Shape transfer
# --------------------------------------------------------------------------


def _check_shape(shape: ShapeLike) -> tuple[int, ...]:
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
    origin = _usable_format(origin_format, "origin")
    storage = _usable_format(storage_format, "storage")
    if origin not in ORIGIN_FORMATS:
        raise FormatError(
            f"origin format must be one of {', '.join(ORIGIN_FORMATS)}; "
            f"{origin} is a storage-only format"
        )
    dtype = dtype_name(dtype)
    dims = _check_shape(shape)
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
    origin_rank = _FULL_RANK[origin]
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
    origin_rank = _FULL_RANK[origin]
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
    origin_rank = _FULL_RANK[origin]
    if len(dims) < origin_rank:
        return identity
    if _FULL_RANK[storage] != origin_rank:
        raise FormatError(
            f"cannot store a {origin_rank}-D {origin} tensor as "
            f"{_FULL_RANK[storage]}-D {storage}"
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
    given = _check_shape(storage_shape)
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
        f"{parse_format(origin_format)} {list(_check_shape(origin_shape))} "
        f"({dtype_name(dtype)})"
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
    origin_dims = _check_shape(origin_shape)
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
