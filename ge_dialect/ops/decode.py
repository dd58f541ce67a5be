"""Decoding compressed data into tensors: ONNX ImageDecoder.

The op's result shape is what the encoded bytes say (the image's height and
width): its shape function gives dynamic dims and `value_shapes` the real
ones. Decoding is Pillow's (BMP, JPEG, JPEG 2000, PNG, PNM, TIFF, WebP), a
host kernel: there is no loop form of a codec.

```mlir
%image = ge.image_decoder %bytes {pixel_format = "BGR"}
    : (tensor<1058xui8>) -> tensor<?x?x3xui8>
```
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.ops.base import COMPUTE_FORMAT, GEOperation, string
from ge_dialect.shape_functions import UNKNOWN, Result, Shape, ShapeError

PIXEL_FORMATS = {"RGB": 3, "BGR": 3, "Grayscale": 1}
"""ImageDecoder's `pixel_format` -> channels."""


@irdl_op_definition
class ImageDecoderOp(GEOperation):
    """The image a 1-D uint8 tensor of encoded bytes holds, `[H, W, C]` uint8
    in `pixel_format` (RGB, BGR: 3 channels; Grayscale: 1, ITU-R 601 luma);
    an image of another mode (palette, RGBA, 16-bit) is converted first
    (ONNX ImageDecoder). Bytes that are no image Pillow reads are an error
    at run time."""

    name = "ge.image_decoder"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    pixel_format = attr_def(StringAttr, default_value=string("RGB"))

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if self.pixel_format.data not in PIXEL_FORMATS:
            raise VerifyException(
                f"pixel_format must be one of {', '.join(PIXEL_FORMATS)}, got "
                f"'{self.pixel_format.data}'"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """`[?, ?, C]` uint8 from 1-D uint8 bytes."""
        (x,) = shapes
        if len(x) != 1 or dtypes[0] != "uint8":
            raise ShapeError(f"x must be 1-D uint8, got {dtypes[0]} {list(x)}")
        channels = PIXEL_FORMATS.get(attrs.get("pixel_format", "RGB"))
        if channels is None:
            raise ShapeError(f"unknown pixel_format '{attrs['pixel_format']}'")
        return [((UNKNOWN, UNKNOWN, channels), "uint8")]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The decoded image's shape."""
        from ge_dialect.adapters import run_numpy_kernel

        return [result.shape for result in run_numpy_kernel(self, operands)]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, pixel_format: str) -> np.ndarray:
        import PIL.Image  # the codecs load on first use

        try:
            with PIL.Image.open(io.BytesIO(x.tobytes())) as image:
                if pixel_format == "Grayscale":
                    return np.asarray(image.convert("L"))[:, :, None]
                rgb = np.asarray(image.convert("RGB"))
        except (OSError, SyntaxError) as error:  # Pillow's "cannot identify image"
            raise ValueError(f"cannot decode the image: {error}") from None
        return rgb[:, :, ::-1].copy() if pixel_format == "BGR" else rgb
