"""An ONNX file's large initializers read in place: arrays over the mapped file.

`onnx.load` copies every initializer's bytes into the `ModelProto`, and
`numpy_helper.to_array` copies them again, so a model's weights were held
twice while it was imported (three times while `onnx.checker` serialised the
proto). `strip_initializers` instead scans the file's protobuf wire format
for the main graph's initializers and takes the `raw_data` of each large one
out of a copy of the message bytes, which `ModelProto.FromString` then
parses (megabytes of graph, no weights): in its place the tensor says its
data is external, at its offset in the model file itself (`checkable`
hands `onnx.checker` the message with those tensors empty: their bytes
were checked here against their dims and dtype). The arrays are views of the
file mapped copy-on-write, so only what is read becomes resident (in the
page cache, once) and nothing is written back.

Only what it can read exactly is taken out: little-endian `raw_data` of a
dtype NumPy holds one element per item (not the packed 4- and 2-bit types)
whose length is what the dims say; anything else (a subgraph's tensors, a
short `raw_data`, typed `float_data`, a file protobuf would merge fields of)
stays in the message, where the importer reads and checks it as before.
"""

from __future__ import annotations

import math
import mmap
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.input_files import confined_path

MAPPED_BYTES = 1 << 16
"""Initializers at least this large are mapped; smaller ones stay in the message."""

MODEL_GRAPH = 7
"""`ModelProto.graph`."""
GRAPH_INITIALIZER = 5
"""`GraphProto.initializer`."""
TENSOR_FIELDS = {
    "dims": 1,
    "data_type": 2,
    "name": 8,
    "raw_data": 9,
    "external_data": 13,
    "location": 14,
}
"""`TensorProto`'s fields read here."""
PACKED_TYPES = {"int4", "uint4", "int2", "uint2", "float4_e2m1fn"}


class WireError(ValueError):
    """Bytes that are not protobuf messages this scanner reads."""


@dataclass(frozen=True)
class Field:
    """One field of a message: number, wire type, where it starts (its key)
    and where its value lies."""

    number: int
    wire: int
    start: int
    value: int
    end: int


def _varint(data: memoryview | bytes, position: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if position >= end or shift > 63:
            raise WireError("truncated varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, position


def fields(data: memoryview | bytes, start: int, end: int) -> list[Field]:
    """The fields of the message in `data[start:end]`, in order."""
    found = []
    position = start
    while position < end:
        key, value = _varint(data, position, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, stop = _varint(data, value, end)
        elif wire == 1:
            stop = value + 8
        elif wire == 5:
            stop = value + 4
        elif wire == 2:
            length, value = _varint(data, value, end)
            stop = value + length
        else:
            raise WireError(f"wire type {wire}")
        if stop > end:
            raise WireError("a field runs past its message")
        found.append(Field(number, wire, position, value, stop))
        position = stop
    return found


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _external_data(location: str, raw: Field) -> bytes:
    """`TensorProto` fields saying its data is `raw`'s bytes of the file
    `location` (what the checker validates without reading them)."""
    entries = [
        ("location", location),
        ("offset", str(raw.value)),
        ("length", str(raw.end - raw.value)),
    ]
    encoded = b"".join(
        _length_delimited(
            TENSOR_FIELDS["external_data"],
            _length_delimited(1, key.encode()) + _length_delimited(2, value.encode()),
        )
        for key, value in entries
    )
    external = 1  # TensorProto.EXTERNAL
    return encoded + _encode_varint(TENSOR_FIELDS["location"] << 3) + bytes([external])


def _tensor_array(
    data: memoryview, tensor: list[Field], buffer: mmap.mmap
) -> tuple[str, np.ndarray, Field] | None:
    """A large tensor's name, array over `buffer` and `raw_data` field, or
    None if it stays in the message."""
    by_number: dict[int, list[Field]] = {}
    for field in tensor:
        by_number.setdefault(field.number, []).append(field)
    raw = by_number.get(TENSOR_FIELDS["raw_data"], [])
    names = by_number.get(TENSOR_FIELDS["name"], [])
    types = by_number.get(TENSOR_FIELDS["data_type"], [])
    if len(raw) != 1 or len(names) != 1 or len(types) != 1:
        return None
    if (
        TENSOR_FIELDS["location"] in by_number
        or raw[0].end - raw[0].value < MAPPED_BYTES
    ):
        return None
    dims: list[int] = []
    for field in by_number.get(TENSOR_FIELDS["dims"], []):
        if field.wire == 0:
            dims.append(_varint(data, field.value, field.end)[0])
        else:  # packed
            position = field.value
            while position < field.end:
                dim, position = _varint(data, position, field.end)
                dims.append(dim)
    data_type, _ = _varint(data, types[0].value, types[0].end)
    try:
        dtype = numpy_dtype(
            np.dtype(onnx.helper.tensor_dtype_to_np_dtype(data_type)).name
        )
    except (KeyError, TypeError, ValueError):
        return None
    if dtype.name in PACKED_TYPES or dtype.kind in "OVUSc" or dtype.byteorder == ">":
        return None
    count = math.prod(dims)
    if (
        any(d >= 1 << 62 for d in dims)
        or count * dtype.itemsize != raw[0].end - raw[0].value
    ):
        return None
    name = bytes(data[names[0].value : names[0].end]).decode("utf-8", "replace")
    array = np.frombuffer(buffer, dtype, count, raw[0].value).reshape(dims)
    return name, array, raw[0]


def strip_initializers(
    path: str | os.PathLike[str],
) -> tuple[bytes, dict[str, np.ndarray]] | None:
    """The file's model bytes without the large initializers' `raw_data`,
    and those initializers as arrays over the mapped file (by tensor name);
    None if there is nothing to map or the bytes are not what this reads
    (the caller loads the file as protobuf does)."""
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if size == 0:
            return None
        buffer = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
    data = memoryview(buffer)
    try:
        model = fields(data, 0, size)
        graphs = [f for f in model if f.number == MODEL_GRAPH and f.wire == 2]
        if len(graphs) != 1:
            return None
        (graph,) = graphs
        arrays: dict[str, np.ndarray] = {}
        pieces: list[bytes] = []
        for field in fields(data, graph.value, graph.end):
            if field.number != GRAPH_INITIALIZER or field.wire != 2:
                pieces.append(bytes(data[field.start : field.end]))
                continue
            tensor = fields(data, field.value, field.end)
            mapped = _tensor_array(data, tensor, buffer)
            if mapped is None or mapped[0] in arrays:
                pieces.append(bytes(data[field.start : field.end]))
                continue
            name, array, raw = mapped
            arrays[name] = array
            kept = b"".join(
                bytes(data[f.start : f.end]) for f in tensor if f is not raw
            )
            where = _external_data(os.path.basename(path), raw)
            pieces.append(_length_delimited(GRAPH_INITIALIZER, kept + where))
    except WireError:
        return None
    if not arrays:
        return None
    stripped = b"".join(pieces)
    head = bytes(data[: graph.start])
    tail = bytes(data[graph.end :])
    return head + _length_delimited(MODEL_GRAPH, stripped) + tail, arrays


def map_external_data(
    model: onnx.ModelProto, folder: str, label: str
) -> dict[str, np.ndarray]:
    """The main graph's initializers held as external data (a large model's
    `.onnx.data`), as arrays over their files mapped copy-on-write (by tensor
    name): what `onnx`'s loader would copy into the message, and the
    importer copy again. Only little-endian data of a dtype NumPy holds one
    element per item, whose `length` (if given) is what the dims say and
    which lies inside its file, is mapped; the others are loaded as before.
    A location outside the model's folder is a GEError."""
    mapped: dict[str, np.ndarray] = {}
    files: dict[Path, mmap.mmap | None] = {}
    for tensor in model.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        entries = {entry.key: entry.value for entry in tensor.external_data}
        try:
            offset = int(entries.get("offset", "0"))
            length = int(entries["length"]) if "length" in entries else None
            dtype = numpy_dtype(
                np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type)).name
            )
        except (KeyError, TypeError, ValueError):
            continue
        if (
            dtype.name in PACKED_TYPES
            or dtype.kind in "OVUSc"
            or dtype.byteorder == ">"
        ):
            continue
        path = confined_path(
            folder, entries.get("location", ""), "external data location", label
        )
        if path not in files:
            files[path] = _mapped_file(path)
        buffer = files[path]
        count = math.prod(tensor.dims)
        nbytes = count * dtype.itemsize
        if (
            buffer is None
            or any(d >= 1 << 62 for d in tensor.dims)
            or (length is not None and length != nbytes)
            or offset < 0
            or offset + nbytes > len(buffer)
        ):
            continue
        array = np.frombuffer(buffer, dtype, count, offset)
        mapped[tensor.name] = array.reshape(tuple(tensor.dims))
    return mapped


def _mapped_file(path: Path) -> mmap.mmap | None:
    """A regular file mapped copy-on-write (None: not one, or empty)."""
    try:
        with open(path, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return None
            if os.fstat(stream.fileno()).st_size == 0:
                return None
            return mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
    except OSError:
        return None


def checkable(
    model: onnx.ModelProto, mapped: Mapping[str, np.ndarray]
) -> onnx.ModelProto:
    """`model` (from `strip_initializers`) as `onnx.checker` can check it in
    memory: a copy whose mapped initializers are empty (`model` itself if
    none is)."""
    if not mapped:
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for tensor in copy.graph.initializer:
        if tensor.name in mapped and tensor.data_location == onnx.TensorProto.EXTERNAL:
            del tensor.external_data[:]
            tensor.data_location = onnx.TensorProto.DEFAULT
            del tensor.dims[:]
            tensor.dims.append(0)
            tensor.raw_data = b""
    return copy
