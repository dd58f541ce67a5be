"""`ge.image_decoder` (ONNX ImageDecoder): images Pillow encodes at odd sizes
through `ge-atc` + `ge-run`, against the pixels encoded (lossless formats)
and the ONNX reference evaluator (JPEG); it runs on the host through the
NumPy kernel library; bytes that are no image are a one-line error."""

from __future__ import annotations

import io

import numpy as np
import PIL.Image
import pytest
from conformance.suite import Case, Status, run_case
from onnx.reference import ReferenceEvaluator
from onnx_jit import one_node_model, with_output_types

RNG = np.random.default_rng(9)
PIXELS = RNG.integers(0, 256, size=(7, 13, 3), dtype=np.uint8)


def encoded(image: PIL.Image.Image, format: str, **options) -> np.ndarray:
    buffer = io.BytesIO()
    image.save(buffer, format=format, **options)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def decodes_to(data: np.ndarray, expected: np.ndarray, workdir, **attributes):
    inputs = {"data": data}
    model = one_node_model("ImageDecoder", inputs, opset=20, **attributes)
    case = Case(
        "case", "op", with_output_types(model, [expected]), (data,), (expected,)
    )
    outcome = run_case(case, workdir)
    assert outcome.status == Status.NOT_JIT, outcome.message
    assert "fallback (ImageDecoderOp.numpy_kernel, NumPy kernel library)" in (
        outcome.message
    )
    return model


@pytest.mark.parametrize(
    ("format", "options"),
    [("PNG", {}), ("BMP", {}), ("TIFF", {}), ("PPM", {}), ("WEBP", {"lossless": True})],
)
@pytest.mark.parametrize("pixel_format", ["RGB", "BGR"])
def test_lossless_images_decode_to_their_pixels(
    format, options, pixel_format, tmp_path
):
    data = encoded(PIL.Image.fromarray(PIXELS), format, **options)
    expected = PIXELS[:, :, ::-1] if pixel_format == "BGR" else PIXELS
    decodes_to(
        data, np.ascontiguousarray(expected), tmp_path, pixel_format=pixel_format
    )


@pytest.mark.parametrize("pixel_format", ["RGB", "BGR", "Grayscale"])
def test_jpeg_matches_the_onnx_reference(pixel_format, tmp_path):
    data = encoded(PIL.Image.fromarray(PIXELS), "JPEG", quality=80)
    inputs = {"data": data}
    model = one_node_model("ImageDecoder", inputs, opset=20, pixel_format=pixel_format)
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    assert expected.shape == (7, 13, 1 if pixel_format == "Grayscale" else 3)
    decodes_to(data, expected, tmp_path, pixel_format=pixel_format)


def test_palette_and_alpha_images_are_converted(tmp_path):
    rgba = np.concatenate([PIXELS, np.full((7, 13, 1), 128, np.uint8)], axis=2)
    decodes_to(encoded(PIL.Image.fromarray(rgba), "PNG"), PIXELS, tmp_path / "rgba")
    palette = PIL.Image.fromarray(PIXELS).quantize(5)
    expected = np.asarray(palette.convert("RGB"))
    decodes_to(encoded(palette, "PNG"), expected, tmp_path / "palette")


def test_bytes_that_are_no_image_are_a_one_line_error(tmp_path):
    data = np.frombuffer(b"not an image at all", np.uint8).copy()
    inputs = {"data": data}
    model = one_node_model("ImageDecoder", inputs, opset=20)
    expected = np.zeros((1, 1, 3), np.uint8)
    case = Case(
        "case", "op", with_output_types(model, [expected]), (data,), (expected,)
    )
    outcome = run_case(case, tmp_path)
    assert outcome.status == Status.REFUSED, outcome.message
    assert "cannot decode the image" in outcome.message
    assert "ImageDecoder" in outcome.message
