"""A graph's framework inputs and outputs that are not tensors: ONNX
sequences and optionals, as the tensors that hold them.

The ONNX importer resolves a sequence whose length is known at compile time
into its tensors: an input sequence `x` of three tensors is three `ge.data`
named `x[0]`, `x[1]`, `x[2]`; an output sequence `y` is `ge.netoutput`
operands named `y[0]`, ...; an absent optional is no tensor at all, a present
one is its element. The graph op records what they were, so that whoever
runs it reads and writes each as one file:

```mlir
ge.graph @main attributes {structured_inputs = [{name = "x", kind = "sequence",
    position = 0 : i64, items = ["x[0]", "x[1]", "x[2]"]}]} { ... }
```

The file convention (`ge-run --input x=FILE.npz`, and the outputs it
writes): a sequence is an `.npz` whose arrays are named `0` to `n-1`; an
absent optional an `.npz` with no array (`NONE_KIND`). A present optional
is its element's file (an `.npy` for a tensor).

The entries' attributes (`StructuredValue.attribute`, `record`,
`structured`) import xDSL when called: a served run writes its outputs
with the rest, without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from xdsl.dialects.builtin import DictionaryAttr
    from xdsl.ir import Operation

STRUCTURED_INPUTS = "structured_inputs"
STRUCTURED_OUTPUTS = "structured_outputs"
SEQUENCE_KIND = "sequence"
NONE_KIND = "none"
"""An absent optional."""
RAGGED_KIND = "ragged"
"""A sequence whose length is known only at run time: three tensors, its
elements flattened one after the other, their shapes and their count
(`split_ragged`)."""
OPTIONAL_KIND = "optional"
"""An optional whose presence is known only at run time: a bool tensor
(present?), then its element: one tensor."""
OPTIONAL_SEQUENCE_KIND = "optional_sequence"
"""The same, its element a sequence: the presence, then the tensors."""
KINDS = (SEQUENCE_KIND, NONE_KIND, RAGGED_KIND, OPTIONAL_KIND, OPTIONAL_SEQUENCE_KIND)


def item_name(name: str, index: int | str) -> str:
    """The name of element `index` of sequence `name` (`x[0]`; of a
    sequence of run-time length, `x[values]`, `x[shapes]`, `x[length]`)."""
    return f"{name}[{index}]"


@dataclass(frozen=True)
class StructuredValue:
    """One framework input or output that is not a tensor.

    `position` is its place among the framework's inputs (outputs); `items`
    are the names of the `ge.data` (of the `ge.netoutput` operands) holding
    its tensors, in order.
    """

    name: str
    kind: str
    position: int
    items: tuple[str, ...] = ()

    def describe(self) -> str:
        """`a sequence of 3 tensors` / `an absent optional`, for messages."""
        if self.kind == NONE_KIND:
            return "an absent optional"
        if self.kind == RAGGED_KIND:
            return "a sequence of run-time length"
        if self.kind in (OPTIONAL_KIND, OPTIONAL_SEQUENCE_KIND):
            return "an optional present or not at run time"
        count = len(self.items)
        return f"a sequence of {count} tensor{'s' if count != 1 else ''}"

    def attribute(self) -> DictionaryAttr:
        """The entry as it is stored on the graph op."""
        from xdsl.dialects.builtin import (
            ArrayAttr,
            DictionaryAttr,
            IntegerAttr,
            StringAttr,
            i64,
        )

        return DictionaryAttr(
            {
                "name": StringAttr(self.name),
                "kind": StringAttr(self.kind),
                "position": IntegerAttr(self.position, i64),
                "items": ArrayAttr([StringAttr(i) for i in self.items]),
            }
        )


def record(graph: Operation, key: str, values: Sequence[StructuredValue]) -> None:
    """Store `values` on `graph` under `key` (nothing when there is none)."""
    from xdsl.dialects.builtin import ArrayAttr

    if values:
        graph.attributes[key] = ArrayAttr([v.attribute() for v in values])


def structured(graph: Operation, key: str) -> list[StructuredValue]:
    """The entries stored on `graph` under `key` (ValueError if malformed)."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr

    attr = graph.attributes.get(key)
    if attr is None:
        return []
    entries = []
    for entry in attr.data if isinstance(attr, ArrayAttr) else [None]:
        fields = entry.data if isinstance(entry, DictionaryAttr) else {}
        name, kind = fields.get("name"), fields.get("kind")
        position, items = fields.get("position"), fields.get("items")
        if not (
            isinstance(name, StringAttr)
            and isinstance(kind, StringAttr)
            and kind.data in KINDS
            and isinstance(position, IntegerAttr)
            and isinstance(items, ArrayAttr)
            and all(isinstance(i, StringAttr) for i in items.data)
        ):
            raise ValueError(
                f"graph attribute '{key}' must be a list of {{name, kind "
                f"({', '.join(KINDS)}), position, items}}"
            )
        entries.append(
            StructuredValue(
                name.data,
                kind.data,
                position.value.data,
                tuple(i.data for i in items.data),  # type: ignore[union-attr]
            )
        )
    return entries


def split_ragged(
    values: np.ndarray, shapes: np.ndarray, length: np.ndarray
) -> list[np.ndarray]:
    """The elements of a sequence of run-time length: `values` (1-D, the
    elements one after the other) cut and shaped by the rows of `shapes`
    (`length` of them); ValueError if they do not add up."""
    if values.ndim != 1 or shapes.ndim != 2 or shapes.shape[0] != int(length):
        raise ValueError(
            "a sequence of run-time length is a 1-D array, one row of dims per "
            "element and their count"
        )
    sizes = [int(np.prod(row)) for row in shapes]
    if sum(sizes) != values.size:
        raise ValueError(
            f"its shapes hold {sum(sizes)} elements, its values {values.size}"
        )
    ends = np.cumsum([0, *sizes])
    return [
        values[ends[i] : ends[i + 1]].reshape([int(d) for d in row])
        for i, row in enumerate(shapes)
    ]
