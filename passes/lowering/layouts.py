"""Storage layouts as index maps: origin index -> storage (memref) index.

This is the index form of `ge_dialect.relayout.to_storage`: a tensor element
at origin index `(n, c, h, w)` of an NCHW tensor stored as NC1HWC0 lives at
`(n, c floordiv C0, h, w, c mod C0)` of the storage buffer. Every layout the
format library converts has its map here (checked element by element against
`to_storage` in `tests/test_lowering.py`):

| storage | storage index of canonical (N, C, [D,] H, W) |
|---|---|
| plain / permuted | the origin index (permuted) |
| NC1HWC0(_C04) | (n, c // C0, h, w, c % C0) |
| NDC1HWC0 | (n, d, c // C0, h, w, c % C0) |
| FRACTAL_Z(_3D) | (((g // e · D + d) · C1 + cb // C0) · H + h) · W + w, nb // 16, |
|                | nb % 16, cb % C0), e groups packed per block |
| FRACTAL_Z (2-D) | (r // C0, k // 16, k % 16, r % C0) |
| FRACTAL_Z_C04 | (K // C0, n // 16, n % 16, K % C0), K = (h · W + w) · 4 + c |
| C1HWNCoC0 | (c // C0, h, w, n // 16, c % C0, c % C0) (N <= 1) |
| FRACTAL_NZ | (..., col // C0, row // M0, row % M0, col % C0) |

Tensors of lower rank are first expanded to the origin format's full rank by
their reshape type, exactly as the format library does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypeVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import (
    N0,
    ORIGIN_FORMATS,
    Format,
    FormatError,
    expand_dims_to_full_rank,
    full_rank,
)
from ge_dialect.layout import layout_of, reshape_type_of
from ge_dialect.relayout import _enlarge, transfer_shape
from ge_dialect.targets import c0_for, m0_for
from passes.lowering.index import Ix

T = TypeVar("T")

_BLOCKED_ORIGIN_RANKS = {
    Format.NC1HWC0: (4,),
    Format.NC1HWC0_C04: (4,),
    Format.C1HWNCoC0: (4,),
    Format.FRACTAL_Z: (2, 4),
    Format.FRACTAL_Z_C04: (4,),
    Format.NDC1HWC0: (4, 5),
    Format.FRACTAL_Z_3D: (5,),
}
"""Full ranks each internal format has an index map for."""


@lru_cache(maxsize=1 << 16)
def _cached_storage_index(layout: Layout, index: tuple[Ix, ...]) -> tuple[Ix, ...]:
    """`Layout.storage_index`, computed once per layout and index: the
    lowering's probes ask for the same ones again (ShuffleNet: 43508 times
    for 2409 of them, 40 % of its lowering)."""
    return tuple(layout._storage_index(index))


@dataclass(frozen=True)
class Layout:
    """How a tensor of `origin_shape` is laid out in a buffer of `storage_shape`."""

    origin_shape: tuple[int, ...]
    storage_shape: tuple[int, ...]
    element_type: Attribute
    origin_format: Format = Format.ND
    storage_format: Format = Format.ND
    reshape_type: str | None = None
    groups: int = 1
    target: str | None = None
    c0: int = 1
    m0: int = 1

    @property
    def has_padding(self) -> bool:
        """Whether the buffer has elements that hold no tensor element."""
        return math.prod(self.storage_shape) > math.prod(self.origin_shape)

    def padding_boxes(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]] | None:
        """(start, extent) in the buffer of boxes that together hold exactly
        its padding: NC1HWC0's lanes past the channels in the last C1 block
        (one box), FRACTAL_NZ's rows past the matrix in the last row block
        and its columns past it in the last column block (two, sharing the
        corner); None where the padding is not such boxes."""
        if self.storage_format == Format.FRACTAL_NZ:
            return self._nz_padding_boxes()
        c1_c0 = {
            Format.NC1HWC0: (1, 4),
            Format.NC1HWC0_C04: (1, 4),
            Format.NDC1HWC0: (2, 5),
        }.get(self.storage_format)
        if c1_c0 is None or self._kind() != "blocked":
            return None
        box = self._last_block_box(*c1_c0, self._canonical_shape()[1])
        padding = math.prod(self.storage_shape) - math.prod(self.origin_shape)
        return [box] if box and math.prod(box[1]) == padding else None

    def _last_block_box(
        self, blocks_axis: int, lanes_axis: int, size: int
    ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The box of the lanes past `size` elements blocked over
        `blocks_axis` x `lanes_axis` (None: `size` fills its last block)."""
        blocks, lanes = self.storage_shape[blocks_axis], self.storage_shape[lanes_axis]
        real = size - (blocks - 1) * lanes
        if not 0 < real < lanes:
            return None
        start = [0] * len(self.storage_shape)
        extent = list(self.storage_shape)
        start[blocks_axis], extent[blocks_axis] = blocks - 1, 1
        start[lanes_axis], extent[lanes_axis] = real, lanes - real
        return tuple(start), tuple(extent)

    def _nz_padding_boxes(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]] | None:
        """FRACTAL_NZ (..., col // C0, row // M0, row % M0, col % C0): the
        rows past the matrix, the columns past it."""
        rows, cols = (
            (self.origin_shape[0], 1)
            if len(self.origin_shape) == 1
            else self.origin_shape[-2:]
        )
        rank = len(self.storage_shape)
        if rank < 4 or len(self.origin_shape) == 0:
            return None
        boxes = [
            box
            for box in (
                self._last_block_box(rank - 3, rank - 2, rows),
                self._last_block_box(rank - 4, rank - 1, cols),
            )
            if box is not None
        ]
        sizes = [math.prod(extent) for _, extent in boxes]
        if len(boxes) == 2:  # the corner both hold, counted once
            corner = [
                min(start_a + extent_a, start_b + extent_b) - max(start_a, start_b)
                for start_a, extent_a, start_b, extent_b in zip(
                    *boxes[0], *boxes[1], strict=True
                )
            ]
            sizes.append(-math.prod(corner))
        padding = math.prod(self.storage_shape) - math.prod(self.origin_shape)
        return boxes if boxes and sum(sizes) == padding else None

    def retyped(self, element_type: Attribute) -> Layout:
        """The same index map over a buffer of another element type."""
        return replace(self, element_type=element_type)

    def resized(self, origin_shape: Sequence[int]) -> Layout:
        """The layout of a same-format tensor of another origin shape."""
        return make_layout(
            tuple(origin_shape),
            self.element_type,
            self.origin_format,
            self.storage_format,
            reshape_type=self.reshape_type,
            groups=self.groups,
            target=self.target,
        )

    def storage_index(self, index: Sequence[Ix]) -> list[Ix]:
        """The buffer index of the element at origin index `index`."""
        return list(_cached_storage_index(self, tuple(index)))

    def _storage_index(self, index: Sequence[Ix]) -> list[Ix]:
        kind = self._kind()
        if kind == "plain":
            return list(index)
        if kind == "permuted":
            letters = self.origin_format.value
            return [
                index[letters.index(letter)] for letter in self.storage_format.value
            ]
        if self.storage_format == Format.FRACTAL_NZ:
            return self._nz_index(index)
        full = self._full_index(index)
        if len(full) == 2:
            rows, cols = full
            return [
                rows.floordiv(self.c0),
                cols.floordiv(N0),
                cols.mod(N0),
                rows.mod(self.c0),
            ]
        return self._blocked_index(self._canonical(full))

    def _kind(self) -> str:
        origin, storage = self.origin_format, self.storage_format
        if storage in (origin, Format.ND) or (
            origin == Format.ND and storage in ORIGIN_FORMATS
        ):
            return "plain"
        if storage in ORIGIN_FORMATS:
            full = full_rank(origin)
            return "permuted" if len(self.origin_shape) == full else "plain"
        return "blocked"

    def _full_index(self, index: Sequence[Ix]) -> list[Ix]:
        """The index expanded to the origin format's full rank (reshape type)."""
        markers = tuple(range(2, 2 + len(index)))
        expanded = expand_dims_to_full_rank(
            markers, self.origin_format, self.storage_format, self.reshape_type
        )
        full = [Ix.of(0)] * len(expanded)
        for marker, value in zip(markers, index, strict=True):
            full[expanded.index(marker)] = value
        return full

    def _canonical(self, full: list[T]) -> list[T]:
        """A full-rank index (or shape) in NCHW / NCDHW order."""
        reference = "NCHW" if len(full) == 4 else "NCDHW"
        axes = (
            reference if self.origin_format == Format.ND else self.origin_format.value
        )
        return [full[axes.index(letter)] for letter in reference]

    def _canonical_shape(self) -> list[int]:
        full = expand_dims_to_full_rank(
            self.origin_shape,
            self.origin_format,
            self.storage_format,
            self.reshape_type,
        )
        return self._canonical(list(full))

    def _blocked_index(self, canonical: list[Ix]) -> list[Ix]:
        c0 = self.c0
        storage = self.storage_format
        if storage in (Format.NC1HWC0, Format.NC1HWC0_C04):
            n, c, h, w = canonical
            return [n, c.floordiv(c0), h, w, c.mod(c0)]
        if storage == Format.NDC1HWC0:
            if len(canonical) == 4:
                n, c, h, w = canonical
                d = Ix.of(0)
            else:
                n, c, d, h, w = canonical
            return [n, d, c.floordiv(c0), h, w, c.mod(c0)]
        if storage == Format.C1HWNCoC0:
            n, c, h, w = canonical
            return [c.floordiv(c0), h, w, n.floordiv(N0), c.mod(c0), c.mod(c0)]
        if storage == Format.FRACTAL_Z_C04:
            n, c, h, w = canonical
            width = self._canonical_shape()[3]
            k = (h * width + w) * 4 + c
            return [k.floordiv(c0), n.floordiv(N0), n.mod(N0), k.mod(c0)]
        return self._fractal_z_index(canonical)

    def _fractal_z_index(self, canonical: list[Ix]) -> list[Ix]:
        """FRACTAL_Z(_3D) with GE's group packing: e groups share one block."""
        n, c, *spatial = canonical
        shape = self._canonical_shape()
        cout, cin, *sizes = shape
        per_group = cout // self.groups
        enlarge = (
            _enlarge(cin, per_group, self.c0, self.groups) if self.groups > 1 else 1
        )
        c1_blocks = -(-cin * enlarge // self.c0)
        group = n.floordiv(per_group)
        slot = group.mod(enlarge)
        cb = slot * cin + c
        nb = slot * per_group + n.mod(per_group)
        first = group.floordiv(enlarge)
        if len(spatial) == 3:
            first = first * sizes[0] + spatial[0]
            spatial, sizes = spatial[1:], sizes[1:]
        first = first * c1_blocks + cb.floordiv(self.c0)
        for position, size in zip(spatial, sizes, strict=True):
            first = first * size + position
        return [first, nb.floordiv(N0), nb.mod(N0), cb.mod(self.c0)]

    def _nz_index(self, index: Sequence[Ix]) -> list[Ix]:
        *batch, rows, cols = (*index, Ix.of(0)) if len(index) == 1 else index
        return [
            *batch,
            cols.floordiv(self.c0),
            rows.floordiv(self.m0),
            rows.mod(self.m0),
            cols.mod(self.c0),
        ]


@lru_cache(maxsize=1 << 12)
def make_layout(
    origin_shape: tuple[int, ...],
    element_type: Attribute,
    origin_format: Format | str = Format.ND,
    storage_format: Format | str = Format.ND,
    *,
    reshape_type: str | None = None,
    groups: int = 1,
    target: str | None = None,
) -> Layout:
    """The layout of a static-shape tensor; raises FormatError if unsupported.

    Made once per shape, type, formats, groups and target (layouts are
    values; a model's tensors share a few hundred, each asked for by every
    op reading it)."""
    dtype = dtype_name(element_type)
    origin_format, storage_format = Format(origin_format), Format(storage_format)
    storage_shape = transfer_shape(
        origin_shape,
        origin_format,
        storage_format,
        dtype,
        reshape_type=reshape_type,
        groups=groups,
        target=target,
    )
    layout = Layout(
        origin_shape,
        tuple(storage_shape),
        element_type,
        origin_format,
        storage_format,
        reshape_type,
        groups,
        target,
        c0_for(dtype, target, storage_format=storage_format),
        m0_for(dtype, target),
    )
    if layout._kind() == "blocked" and storage_format != Format.FRACTAL_NZ:
        full = expand_dims_to_full_rank(
            origin_shape, origin_format, storage_format, reshape_type
        )
        if len(full) not in _BLOCKED_ORIGIN_RANKS.get(storage_format, ()):
            raise FormatError(
                f"no index map for a rank-{len(full)} tensor stored as "
                f"{storage_format.value}"
            )
        if storage_format == Format.C1HWNCoC0 and layout._canonical_shape()[0] > 1:
            raise FormatError("C1HWNCoC0 index maps need N <= 1 (depthwise weights)")
    return layout


def plain_layout(shape: Sequence[int], element_type: Attribute) -> Layout:
    """A row-major buffer of `shape` (temporaries)."""
    return Layout(tuple(shape), tuple(shape), element_type)


def tensor_layout(
    tensor: Attribute, target: str | None = None, groups: int = 1
) -> Layout:
    """The layout of a `ge` tensor type, or a GEError-ready message if it has none."""
    if not isinstance(tensor, TensorType):
        raise GEError(f"expected a tensor, got {tensor}")
    shape = tuple(tensor.get_shape())
    if any(d < 0 for d in shape):
        raise GEError(f"dynamic shape {list(shape)} cannot be lowered to loops")
    origin, storage = layout_of(tensor)
    try:
        layout = make_layout(
            shape,
            tensor.element_type,
            origin,
            storage,
            reshape_type=reshape_type_of(tensor),
            groups=groups,
            target=target,
        )
    except FormatError as error:
        raise GEError(str(error)) from None
    encoding = tensor.encoding
    explicit = getattr(encoding, "explicit_storage_shape", None)
    if explicit is not None and tuple(explicit) != layout.storage_shape:
        raise GEError(
            f"storage_shape {list(explicit)} differs from the derived "
            f"{list(layout.storage_shape)} (wrong target or groups?)"
        )
    return layout
