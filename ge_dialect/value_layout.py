"""How a value's data is held at run time: its formats, dtype, reshape type
and groups, and the conversions between origin and storage arrays."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, reshape_type_of
from ge_dialect.ops import TransDataOp
from ge_dialect.relayout import from_storage, to_storage

GROUPED_STORAGE = (Format.FRACTAL_Z, Format.FRACTAL_Z_3D)
"""Storage formats whose layout depends on convolution groups."""


@dataclass(frozen=True)
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

    def load(self, stored: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        """The origin-layout array of `shape` held by a storage-layout array."""
        if self.is_plain:
            return stored
        return from_storage(stored, self.origin, self.storage, shape, **self._options())


def value_layout(value: SSAValue, target: str | None = None) -> ValueLayout:
    """The layout a value is held in, from its type.

    Groups are not part of a type: a FRACTAL_Z(_3D) value takes the `groups`
    of the `ge.transdata` that produces or consumes it.
    """
    tensor = value.type
    assert isinstance(tensor, TensorType)
    origin, storage = layout_of(tensor)
    groups = 1
    if storage in GROUPED_STORAGE:
        users = (use.operation for use in value.uses)
        for op in (value.owner, *users):
            if isinstance(op, TransDataOp):
                groups = op.value_of("groups")
                break
    return ValueLayout(
        origin,
        storage,
        dtype_name(tensor.element_type),
        reshape_type_of(tensor),
        groups,
        target,
    )
