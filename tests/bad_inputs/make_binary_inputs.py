"""Regenerate the binary files of the bad-input corpus (run from anywhere).

    python tests/bad_inputs/make_binary_inputs.py

Writes, next to this script: broken ONNX models (`onnx-*.onnx`), broken
offline models (`om-*.om`, derived from `valid.onnxtxt` compiled by
`ge-atc`: truncated, bad magic, future format version, bad checksum,
trailing bytes, unparsable IR, a missing weight) and broken `.npy` inputs
(`npy-*.npy`). The text inputs are written by hand. Rerun it when the
`.om` format version changes (then `om-valid.om` must still run).
"""

from __future__ import annotations

import dataclasses
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

from ge_runtime.offline_model import HEADER, MAGIC, decode, encode

HERE = Path(__file__).resolve().parent
SMALL_CNN = HERE.parent.parent / "examples" / "small_cnn.onnx"


def onnx_files() -> dict[str, bytes]:
    """Models that are not readable, or from a future ONNX version."""
    data = SMALL_CNN.read_bytes()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    future = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 99)])
    future.ir_version = 99
    return {
        "onnx-truncated.onnx": data[: len(data) // 2],
        "onnx-garbage.onnx": b"this is not a protobuf \xff\xfe\x00\x01 model\n" * 3,
        "onnx-empty.onnx": b"",
        "onnx-future-version.onnx": future.SerializeToString(),
    }


def compile_valid_model() -> bytes:
    """`valid.onnxtxt` compiled by `ge-atc` (the base of the `.om` cases)."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "valid"
        subprocess.run(
            [
                "ge-atc",
                f"--model={HERE / 'valid.onnxtxt'}",
                "--framework=5",
                f"--output={output}",
                "--soc_version=Ascend910",
                "--log=error",
            ],
            check=True,
        )
        return output.with_suffix(".om").read_bytes()


def om_files(valid: bytes) -> dict[str, bytes]:
    """The valid offline model and broken variants of it."""
    version = len(MAGIC)  # offset of the format version field
    middle = len(valid) // 2
    model = decode(valid)
    unparsable = dataclasses.replace(model, ir="ge.graph @main {\n  %x = \n")
    external = re.sub(
        r'value = dense<"0x[0-9A-F]+"> : tensor<[^>]*>',
        'value = #ge.external<"w">',
        model.ir,
    )
    assert external != model.ir, "the valid model has no inline weight to take out"
    weightless = dataclasses.replace(model, ir=external, weights={})
    return {
        "om-valid.om": valid,
        "om-truncated.om": valid[: len(valid) * 3 // 5],
        "om-header-only.om": valid[: HEADER.size],
        "om-bad-magic.om": b"NOTANOM!" + valid[len(MAGIC) :],
        "om-future-version.om": valid[:version]
        + struct.pack("<I", 99)
        + valid[version + 4 :],
        "om-bad-checksum.om": valid[:middle]
        + bytes([valid[middle] ^ 0xFF])
        + valid[middle + 1 :],
        "om-trailing-bytes.om": valid + b"extra",
        "om-unparsable-ir.om": encode(unparsable),
        "om-missing-weight.om": encode(weightless),
    }


def npy_files() -> dict[str, bytes]:
    """Inputs for `valid.mlir` (x: 1x3x4x4 f32) that do not fit or do not load."""

    def npy(array: np.ndarray) -> bytes:
        with tempfile.TemporaryFile() as stream:
            np.save(stream, array, allow_pickle=True)
            stream.seek(0)
            return stream.read()

    good = npy(np.zeros((1, 3, 4, 4), np.float32))
    return {
        "npy-wrong-shape.npy": npy(np.zeros((2, 2), np.float32)),
        "npy-wrong-dtype.npy": npy(np.zeros((1, 3, 4, 4), np.int64)),
        "npy-truncated.npy": good[: len(good) // 2],
        "npy-garbage.npy": b"not numpy at all\n",
        "npy-pickled-object.npy": npy(np.array([{"a": 1}], dtype=object)),
    }


def main() -> int:
    files = {**onnx_files(), **om_files(compile_valid_model()), **npy_files()}
    for name, data in files.items():
        (HERE / name).write_bytes(data)
    print(f"wrote {len(files)} files to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
