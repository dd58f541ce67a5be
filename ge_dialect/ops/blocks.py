"""Sliding blocks folded back into an image: `ge.col2im` (ONNX Col2Im,
PyTorch's `fold`).

`x` is [N, C * prod(block_shape), L]: for each of the L block positions (a
grid over the padded image, row-major) the C blocks' values, channel by
channel, each block row-major. Every value lands at its block position's
offset (`g * stride`) plus its place in the block (`k * dilation`) in the
padded image; values landing on one pixel add up (in block order) and the
padding is cropped:

```mlir
%y = ge.col2im %x {image_shape = array<i64: 5, 5>, block_shape = array<i64: 1, 5>,
                   strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                   pads = array<i64: 0, 0, 0, 0>}
    : tensor<1x5x5xf32> -> tensor<1x1x5x5xf32>
```

ONNX gives `image_shape` and `block_shape` as tensors: known at import they
become the attributes, else the host binds them at run time
(`RUN_TIME_PARAMETERS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.ops.base import UNARY_FORMAT, GEOperation, check_same_element_type
from ge_dialect.ops.windows import window_count
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    Unbound,
    parameter_ints,
    required,
)

ATTRIBUTES = ("image_shape", "block_shape", "strides", "dilations", "pads")
"""`ge.col2im`'s attributes, in `Folding`'s order."""


@dataclass(frozen=True)
class Folding:
    """Where Col2Im puts each value: image and block shapes, strides,
    dilations, pads (ONNX order, begins then ends), and the grid of block
    positions over the padded image."""

    image: tuple[int, ...]
    block: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads: tuple[int, ...]

    @classmethod
    def of(cls, attrs: Mapping[str, Any]) -> Folding:
        """From the attributes (missing strides, dilations, pads: 1, 1, 0);
        ShapeError when they do not fit together."""
        image = tuple(parameter_ints(required(attrs, "image_shape"), "image_shape"))
        block = tuple(parameter_ints(required(attrs, "block_shape"), "block_shape"))
        count = len(block)
        if len(image) != count or count < 1:
            raise ShapeError(
                f"image_shape {list(image)} and block_shape {list(block)} do not fit"
            )

        def per_axis(name: str, length: int, fill: int) -> tuple[int, ...]:
            values = attrs.get(name)
            values = [fill] * length if values is None or len(values) == 0 else values
            if len(values) != length:
                raise ShapeError(f"{name} needs {length} values, got {len(values)}")
            return tuple(int(v) for v in values)

        folding = cls(
            image,
            block,
            per_axis("strides", count, 1),
            per_axis("dilations", count, 1),
            per_axis("pads", 2 * count, 0),
        )
        if min(image + block + folding.strides + folding.dilations) < 1:
            raise ShapeError(
                "image_shape, block_shape, strides and dilations must be positive"
            )
        if min(folding.pads) < 0:
            raise ShapeError(f"pads {list(folding.pads)} has a negative entry")
        if min(folding.grid) < 1:
            raise ShapeError(
                f"the blocks do not fit in the image (grid {list(folding.grid)})"
            )
        return folding

    @property
    def padded(self) -> tuple[int, ...]:
        """The image with its padding, per axis."""
        count = len(self.block)
        return tuple(
            self.image[a] + self.pads[a] + self.pads[a + count] for a in range(count)
        )

    @property
    def grid(self) -> tuple[int, ...]:
        """Block positions per axis."""
        return tuple(
            window_count(p, k, s, d)
            for p, k, s, d in zip(
                self.padded, self.block, self.strides, self.dilations, strict=True
            )
        )

    def result_shape(self, x: Shape) -> Shape:
        """[N, C, *image] for x [N, C * prod(block), L]; ShapeError if x does
        not hold whole blocks at every grid position."""
        if len(x) != 3:
            raise ShapeError(f"x must be [N, C * prod(block_shape), L], got {list(x)}")
        n, columns, length = x
        positions = math.prod(self.block)
        if columns != UNKNOWN and columns % positions:
            raise ShapeError(f"{columns} columns are not a multiple of {positions}")
        if length != UNKNOWN and length != math.prod(self.grid):
            raise ShapeError(
                f"{length} blocks do not tile the image (grid {list(self.grid)})"
            )
        channels = UNKNOWN if columns == UNKNOWN else columns // positions
        return (n, channels, *self.image)

    def attributes(self) -> dict[str, list[int]]:
        """`ge.col2im`'s attributes."""
        values = (self.image, self.block, self.strides, self.dilations, self.pads)
        return {name: list(v) for name, v in zip(ATTRIBUTES, values, strict=True)}


@irdl_op_definition
class Col2ImOp(GEOperation):
    """Blocks [N, C * prod(block_shape), L] summed back into an image [N, C,
    *image_shape] (module docstring)."""

    name = "ge.col2im"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    image_shape = attr_def(DenseArrayBase)
    block_shape = attr_def(DenseArrayBase)
    strides = attr_def(DenseArrayBase)
    dilations = attr_def(DenseArrayBase)
    pads = attr_def(DenseArrayBase)

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = UNARY_FORMAT

    def verify_(self) -> None:
        check_same_element_type(self)
        attrs = {name: self.value_of(name) for name in ATTRIBUTES}
        try:
            Folding.of(attrs).result_shape(tuple(self.x.type.get_shape()))
        except ShapeError as error:
            raise VerifyException(str(error)) from None

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """[N, C, *image_shape] in x's dtype."""
        return [(Folding.of(attrs).result_shape(shapes[0]), dtypes[0])]

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ("image_shape", "block_shape")
    """ONNX Col2Im's `image_shape` and `block_shape` inputs (1-D int64); the
    options `strides`, `dilations`, `pads`."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """The shapes and options checked against x's shape."""
        folding = Folding.of(values)
        folding.result_shape(shapes[0])
        return cls, folding.attributes()

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """[N, ?, ?...]: one spatial dim per entry of `image_shape`."""
        image = known.values.get("image_shape")
        if image is not None:
            spatial = [int(d) for d in image]
        else:
            (count,) = known.parameter_shapes["image_shape"]
            if count == UNKNOWN:
                raise ShapeError("image_shape has an unknown length (the result rank)")
            spatial = [UNKNOWN] * count
        return [((known.shapes[0][0], UNKNOWN, *spatial), known.dtypes[0])]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        image_shape: Sequence[int],
        block_shape: Sequence[int],
        strides: Sequence[int],
        dilations: Sequence[int],
        pads: Sequence[int],
    ) -> np.ndarray:
        """Each block position's values added into the padded image, then cropped."""
        values = (image_shape, block_shape, strides, dilations, pads)
        folding = Folding.of(dict(zip(ATTRIBUTES, values, strict=True)))
        n, channels = x.shape[0], x.shape[1] // math.prod(folding.block)
        blocks = x.reshape(n, channels, math.prod(folding.block), *folding.grid)
        image = np.zeros((n, channels, *folding.padded), x.dtype)
        for k, offsets in enumerate(np.ndindex(*folding.block)):
            window = tuple(
                slice(o * d, o * d + (g - 1) * s + 1, s)
                for o, d, g, s in zip(
                    offsets,
                    folding.dilations,
                    folding.grid,
                    folding.strides,
                    strict=True,
                )
            )
            image[(slice(None), slice(None), *window)] += blocks[:, :, k]
        count = len(folding.block)
        crop = tuple(
            slice(folding.pads[a], folding.pads[a] + folding.image[a])
            for a in range(count)
        )
        return image[(slice(None), slice(None), *crop)]
