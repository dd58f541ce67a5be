"""Targets (SoCs): the M0/K0/N0 cube block sizes, GE's `DtypeMKN` tables.

The registry holds the targets of `data/targets/*.json` (and any registered
later); the default target follows the seed rule C0 = 32 bytes / element
size, named targets hold GE's platform tables. Pure Python (no xDSL).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy.typing as npt

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import canonical_dtype, element_bits
from ge_dialect.formats import Format, FormatError, parse_format
from ge_dialect.input_files import read_json_file

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
        name = canonical_dtype(dtype)
        if name in self.dtype_mkn:
            return self.dtype_mkn[name]
        m0, k0, n0 = self.default_mkn
        if self.k0_bytes is not None:
            k0 = max(1, self.k0_bytes * 8 // element_bits(name))
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
                dtype = canonical_dtype(key)
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


PRECISION_MODES = (
    "must_keep_origin_dtype",
    "force_fp32",
    "force_fp16",
    "allow_fp32_to_fp16",
    "allow_mix_precision",
)
"""ATC's `--precision_mode` values (`passes/select_precision.py`; the mixed
one reads `precision_reduce`)."""
