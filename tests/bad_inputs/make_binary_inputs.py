"""Regenerate the binary files of the bad-input corpus (run from anywhere).

    python tests/bad_inputs/make_binary_inputs.py

Writes, next to this script: broken ONNX models (`onnx-*.onnx`), broken
offline models (`om-*.om`, derived from `valid.onnxtxt` compiled by
`ge-atc`: truncated, bad magic, future format version, bad checksum,
trailing bytes, unparsable IR, a missing weight) and broken `.npy` inputs
(`npy-*.npy`). `hostile_files` adds what an attacker would hand over:
offline models whose manifest, IR or weights are forged with a correct
checksum (`om-forged-*.om`), `.npy` headers that lie (`npy-claims-*.npy`),
weights archives that are not what their graph says (`weights-*.npz`, read
through `run-weights-*.mlir`) and ONNX models whose external data points out
of their folder or past its file (`onnx-external-*.onnx`). The text inputs
are written by hand. Rerun it when the `.om` format version changes (then
`om-valid.om` must still run). `tests/data/om-version-1.om` is not written here:
it is the valid model as format version 1 wrote it (one `.npz` weights section),
kept to show old files still run; the `om-forged-weights-*.om` cases forge
that section, so they are version 1 files too.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

from ge_runtime.npy import npz_bytes
from ge_runtime.offline.om import (
    HEADER,
    MAGIC,
    MANIFEST,
    MODEL_IR,
    NPZ_WEIGHTS,
    decode,
    pack_sections,
)
from ge_runtime.offline.om_ir import encode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from test_bad_inputs import nested_graph  # noqa: E402 (the corpus generator)

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


def npy_header(descr: str, shape: str, version: int = 1) -> bytes:
    """A `.npy` header claiming `descr` and `shape` (Python literal text)."""
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    text = text.ljust(118) + "\n"
    return (
        b"\x93NUMPY"
        + bytes([version, 0])
        + struct.pack("<H", len(text))
        + text.encode()
    )


def forged_om_files(model_bytes: bytes) -> dict[str, bytes]:
    """Offline models with a correct checksum and forged contents."""
    model = decode(model_bytes)
    manifest = model.manifest

    def forged(**changes: object) -> bytes:
        return encode(dataclasses.replace(model, **changes))  # type: ignore[arg-type]

    def with_manifest(**fields: object) -> bytes:
        return forged(manifest={**manifest, **fields})

    def raw(manifest_text: bytes, ir: str = model.ir, weights: bytes = b"") -> bytes:
        """A version 1 file (its weights one `.npz` section, still read)."""
        return pack_sections(
            [
                (MANIFEST, manifest_text),
                (MODEL_IR, ir.encode()),
                (NPZ_WEIGHTS, weights or npz_bytes({})),
            ],
            version=1,
        )

    version_1 = json.dumps({**manifest, "format_version": 1}).encode()
    inputs = [dict(entry) for entry in manifest["inputs"]]
    as_text = dict(inputs[0], shape="1,3,4,4")
    wider = dict(inputs[0], shape=[1, 3, 8, 8])
    beyond = dict(inputs[0], shape=[1, 3, 4, 1 << 63])
    weight = re.sub(
        r'value = dense<"0x[0-9A-F]+"> : tensor<[^>]*>',
        'value = #ge.external<"w">',
        model.ir,
    )
    tensor = "tensor<1x3x4x4xf32>"
    cycle = (
        "ge.graph @main {\n"
        f'  %x = ge.data {{index = 0 : i64, name = "input"}} : {tensor}\n'
        f"  %a = ge.add %x, %b : ({tensor}, {tensor}) -> {tensor}\n"
        f"  %b = ge.relu %a : {tensor} -> {tensor}\n"
        f"  ge.netoutput %b : {tensor}\n}}\n"
    )
    deep = nested_graph(40)
    splat = model.ir.replace(
        "ge.graph @main attributes",
        "ge.graph @bomb {\n  %c = ge.const {value = dense<1.0> : "
        "tensor<65536x65536x4xf32>} : tensor<65536x65536x4xf32>\n"
        "  ge.netoutput %c : tensor<65536x65536x4xf32>\n}\n  ge.graph @main attributes",
    )
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    return {
        "om-forged-soc.om": with_manifest(soc_version="Ascend0"),
        "om-forged-field-type.om": with_manifest(inputs=[as_text]),
        "om-forged-unknown-field.om": with_manifest(run_this="rm -rf /"),
        "om-forged-format.om": with_manifest(format="some other format"),
        "om-forged-version-field.om": with_manifest(format_version="1"),
        "om-forged-inputs.om": with_manifest(inputs=[wider]),
        "om-forged-dims.om": with_manifest(inputs=[beyond]),
        "om-forged-memory.om": with_manifest(
            memory={"main": {**manifest["memory"]["main"], "peak_bytes": 1}}
        ),
        "om-forged-compile-options.om": with_manifest(
            compile_options={**manifest["compile_options"], "auto_cast_mode": 7}
        ),
        "om-forged-stages.om": with_manifest(stages="all of them"),
        "om-forged-manifest-list.om": raw(b"[1, 2, 3]"),
        "om-forged-manifest-nested.om": raw(b"[" * 5000 + b"]" * 5000),
        "om-forged-manifest-dupkey.om": raw(b'{"graph": "main", "graph": "other"}'),
        "om-forged-manifest-binary.om": raw(b"\xff\xfe{}"),
        "om-forged-weight-shape.om": forged(
            ir=weight, weights={"w": np.ones((3, 3), np.float32)}
        ),
        "om-forged-weight-dtype.om": forged(
            ir=weight, weights={"w": np.ones((1, 1, 16, 16), np.float64)}
        ),
        "om-forged-weights-not-zip.om": raw(
            version_1, weights=b"this is no zip archive"
        ),
        "om-forged-weights-pickled.om": raw(
            version_1, weights=zip_of({"w.npy": pickled.getvalue()})
        ),
        "om-forged-weights-huge.om": raw(
            version_1,
            weights=zip_of({"w.npy": npy_header("<f4", "(1099511627776,)")}),
        ),
        "om-forged-cycle.om": forged(ir=cycle),
        "om-forged-nesting.om": forged(ir=deep),
        "om-forged-splat.om": forged(ir=splat),
        "om-forged-target-attr.om": forged(
            ir=model.ir.replace('ge.target = "Ascend910"', 'ge.target = "Ascend0"')
        ),
        "om-forged-output-names.om": forged(
            ir=model.ir.replace(
                'output_names = ["output"]', 'output_names = ["a", "b"]'
            )
        ),
        "om-forged-index.om": forged(
            ir=model.ir.replace(
                'index = 0 : i64, name = "input"', 'index = -1 : i64, name = "input"'
            )
        ),
    }


def zip_of(members: dict[str, bytes]) -> bytes:
    """A stored zip archive of `members` (name -> bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def lying_npy_files() -> dict[str, bytes]:
    """`.npy` files whose header claims what the file does not hold, and
    weights archives (read by `run-weights-*.mlir`) that are not weights."""
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    structured = io.BytesIO()
    np.save(structured, np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]))
    good = io.BytesIO()
    np.save(good, np.zeros((4, 3, 3, 3), np.float32))
    return {
        "npy-claims-terabytes.npy": npy_header("<f4", "(1099511627776,)"),
        "npy-claims-megabytes.npy": npy_header("<f4", "(1000000,)") + b"\0" * 16,
        "npy-claims-beyond-int64.npy": npy_header("<f4", "(18446744073709551616,)"),
        "npy-claims-negative-dim.npy": npy_header("<f4", "(-4, 3)"),
        "npy-claims-bad-version.npy": npy_header("<f4", "(2,)", version=9),
        "npy-claims-unknown-dtype.npy": npy_header("<q9", "(2,)") + b"\0" * 64,
        "npy-structured.npy": structured.getvalue(),
        "weights-not-zip.npz": b"not a zip archive, and certainly no pickle\n",
        "weights-pickled.npz": zip_of({"w.npy": pickled.getvalue()}),
        "weights-claims-terabytes.npz": zip_of(
            {"w.npy": npy_header("<f4", "(1099511627776,)")}
        ),
        "weights-member-not-npy.npz": zip_of({"w.txt": b"hello"}),
        "weights-valid.npz": zip_of({"w.npy": good.getvalue()}),
    }


def external_onnx_files() -> dict[str, bytes]:
    """ONNX models whose initializer lives in external data that is out of
    the model's folder, past its file, or claimed far over the budget."""
    from onnx import numpy_helper

    def model_with(tensor: TensorProto) -> bytes:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
        graph = helper.make_graph(
            [helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [tensor]
        )
        return helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 13)]
        ).SerializeToString()

    def external(location: str, dims: list[int], length: int | None = None) -> bytes:
        tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=dims)
        tensor.data_location = TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", location
        if length is not None:
            entry = tensor.external_data.add()
            entry.key, entry.value = "length", str(length)
        return model_with(tensor)

    short = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    short.raw_data = b"1234567"
    return {
        "onnx-external-data.bin": np.arange(4, dtype=np.float32).tobytes(),
        "onnx-external-outside.onnx": external("../outside/w.bin", [4]),
        "onnx-external-absolute.onnx": external("/etc/hostname", [4]),
        "onnx-external-past-file.onnx": external("onnx-external-data.bin", [4], 4096),
        "onnx-external-terabytes.onnx": external(
            "onnx-external-data.bin", [1 << 38, 4]
        ),
        "onnx-raw-data-short.onnx": model_with(short),
    }


def hostile_files(valid_om: bytes) -> dict[str, bytes]:
    """What an attacker would hand over (see the module docstring)."""
    return {
        **forged_om_files(valid_om),
        **lying_npy_files(),
        **external_onnx_files(),
    }


def main() -> int:
    valid = compile_valid_model()
    files = {**onnx_files(), **om_files(valid), **npy_files(), **hostile_files(valid)}
    for name, data in files.items():
        (HERE / name).write_bytes(data)
    print(f"wrote {len(files)} files to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
