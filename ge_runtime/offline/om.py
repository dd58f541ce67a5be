"""The offline model file (`.om`): what `ge-atc` writes and `ge-run` executes.

A versioned, checksummed container of one compiled graph:

```
offset  size  field
0       8     magic b"GEXDSLOM"
8       4     format version (uint32, little endian), FORMAT_VERSION
12      4     number of sections S (uint32)
16      8     total file size in bytes (uint64), trailer included
24      16*S  section table: tag (4 ASCII bytes), reserved (4 zero bytes),
              payload length (uint64)
...           the payloads, in table order, back to back
end-32  32    SHA-256 of every byte before it
```

Sections (tags): `MANI` the manifest (UTF-8 JSON: inputs and outputs with
names, origin/storage formats, origin/storage shapes and dtypes; compile
options; soc_version; library and format versions; `memory`: each planned
graph's memory report, from `plan-memory`), `MDIR` the optimised
IR (MLIR text), `SRIR` the IR before optimisation (optional; `ge-run --check`
runs the reference on it), `WGHT` the weights both IRs read by
`#ge.external` key (`.npz` bytes, each array in the layout of the constant
that reads it: ATC's compile-time weight reordering).

Files are written atomically. Loading checks, in order, the magic, the
version, the declared size against the real one (truncation, trailing
bytes), the checksum, the section table, then each section's contents, and
reports the first problem as a one-line `GEError`.

The SHA-256 detects corruption (a truncated copy, a flipped byte); it
authenticates nothing: anyone can edit a section and write a new checksum,
so a file from an untrusted source is untrusted input like any other. Every
section is therefore validated on its own: the manifest against
`MANIFEST_SCHEMA` (every field and its type, `soc_version` a known target,
dims in int64, keys given once, nesting bounded), the IR by the parser and
the verifier (nesting, dataflow order, sizes within the memory budget), the
manifest's interface, target and memory report against what the IR says,
and each weight against the dtype and storage shape of the constant reading
it. Weights are `.npy` members whose headers are checked against the bytes
there; nothing is ever unpickled.

```python
save_offline_model("net.om", module, weights, {"compile_options": {...}},
                   source=imported_module)
model = load_offline_model("net.om")
model.manifest["inputs"], model.module(), model.weights, model.source_module()
```
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mmap
import os
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.files import write_atomically
from ge_dialect.formats import FormatError, parse_format
from ge_dialect.input_files import (
    OFFLINE_MODEL_IR,
    OFFLINE_MODEL_MAGIC,
    check_regular_file,
    load_json,
)
from ge_dialect.layout import layout_of, shape_of, storage_shape_of
from ge_dialect.limits import INT64_MAX
from ge_dialect.locations import error_at
from ge_dialect.opinfo import PRECISION_MODES
from ge_dialect.ops import (
    ConstOp,
    GraphOp,
    VariableOp,
    attribute_to_python,
    enclosing_target,
)
from ge_dialect.parsing import parse_module
from ge_dialect.schema import (
    Anything,
    Boolean,
    Integer,
    ListOf,
    MapOf,
    Nullable,
    Object,
    String,
    check_document,
)
from ge_dialect.targets import get_target
from ge_runtime.graph_io import find_graph, output_names
from ge_runtime.npy import npz_bytes
from passes.memory_planning import memory_reports

MAGIC = OFFLINE_MODEL_MAGIC
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sIIQ")
SECTION_ENTRY = struct.Struct("<4s4xQ")
DIGEST_SIZE = hashlib.sha256().digest_size

MANIFEST_FORMAT = "ge-xdsl offline model"
"""The manifest's `format` field."""

MANIFEST = b"MANI"
MODEL_IR = b"MDIR"
SOURCE_IR = b"SRIR"
WEIGHTS = b"WGHT"
SECTIONS = (MANIFEST, MODEL_IR, SOURCE_IR, WEIGHTS)
"""Known section tags, in the order they are written."""
REQUIRED_SECTIONS = (MANIFEST, MODEL_IR, WEIGHTS)


def library_version() -> str:
    """The installed version of this package."""
    try:
        return metadata.version("ge-xdsl")
    except metadata.PackageNotFoundError:
        return "unknown"


def module_text(module: ModuleOp) -> str:
    """The MLIR text of `module` (custom syntax)."""
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    stream.write("\n")
    return stream.getvalue()


@dataclass(frozen=True)
class OfflineModel:
    """An offline model in memory: its manifest, IR texts and weights."""

    manifest: dict[str, Any]
    ir: str
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    source_ir: str | None = None
    path: str = "<offline model>"
    digest: str = ""
    """SHA-256 of the file (hex; its trailer), what keys the code cache."""

    @property
    def target(self) -> str | None:
        """The soc_version the layouts were compiled for (None: the seed rule)."""
        return self.manifest.get("soc_version")

    def module(self) -> ModuleOp:
        """The optimised module, parsed and verified; the manifest's
        interface and the weights must be what it says."""
        module = _parse(self.ir, f"{self.path}:{OFFLINE_MODEL_IR}")
        derived = {
            **interface(module, self.target),
            "soc_version": enclosing_target(module),
            "memory": memory_reports(list(module.ops)),
        }
        for key, value in derived.items():
            if self.manifest.get(key, {} if key == "memory" else None) != value:
                raise GEError(
                    f"{self.path}: error: the manifest's '{key}' disagrees with the "
                    "model IR (a corrupted or forged manifest)"
                )
        self._check_weights(module)
        return module

    def source_module(self) -> ModuleOp:
        """The module before optimisation (GEError if the file has none)."""
        if self.source_ir is None:
            raise GEError(
                f"{self.path}: error: the offline model holds no source graph "
                "(compiled without it)"
            )
        module = _parse(self.source_ir, f"{self.path}:source")
        self._check_weights(module)
        return module

    def _check_weights(self, module: ModuleOp) -> None:
        """Each weight `module` reads has the dtype and storage shape of the
        constant (or variable) reading it."""
        for op in module.walk():
            if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr):
                key = op.value.key.data
            elif isinstance(op, VariableOp):
                key = op.var_name.data
            else:
                continue
            tensor = op.output.type
            assert isinstance(tensor, TensorType)
            array = self.weights.get(key)
            if array is None:
                raise error_at(op, f"weight '{key}' is not in the weights")
            try:
                shape = storage_shape_of(tensor, self.target)
            except FormatError as error:
                raise error_at(op, str(error)) from None
            dtype = expected_dtype(tensor)
            if array.shape != tuple(shape) or array.dtype != dtype:
                raise error_at(
                    op,
                    f"weight '{key}' is {array.dtype}{list(array.shape)}, the "
                    f"{op.name} needs {dtype}{list(shape)}",
                )


def _parse(text: str, name: str) -> ModuleOp:
    return parse_module(make_context(), text, name)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def make_offline_model(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    manifest: Mapping[str, Any],
    *,
    source: ModuleOp | None = None,
    path: str = "<offline model>",
) -> OfflineModel:
    """An offline model of `module` (and optionally its pre-optimisation `source`).

    `weights` must hold every `#ge.external` key (and variable name) either IR
    reads, in the layout of the constant reading it; only those are kept.
    `manifest` (compile options and the like) is completed with the graph's
    inputs and outputs, the soc_version and the versions.
    """
    keys = weight_keys(module) | (weight_keys(source) if source else set())
    if missing := sorted(keys - set(weights)):
        raise GEError(f"error: weight '{missing[0]}' is not in the weights")
    target = enclosing_target(module)
    full_manifest = {
        "format": MANIFEST_FORMAT,
        "format_version": FORMAT_VERSION,
        "library_version": library_version(),
        **manifest,
        "soc_version": target,
        **interface(module, target),
    }
    if reports := memory_reports(list(module.ops)):
        full_manifest["memory"] = reports
    check_manifest(full_manifest, path)
    return OfflineModel(
        full_manifest,
        module_text(module),
        {key: np.asarray(weights[key]) for key in sorted(keys)},
        module_text(source) if source else None,
        path,
    )


def save_offline_model(
    path: str | os.PathLike[str],
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    manifest: Mapping[str, Any],
    *,
    source: ModuleOp | None = None,
) -> OfflineModel:
    """Write an offline model file atomically (see `make_offline_model`).

    Returns what a later `load_offline_model` gives back.
    """
    model = make_offline_model(
        module, weights, manifest, source=source, path=os.fspath(path)
    )
    write_atomically(path, encode(model))
    return model


def encode(model: OfflineModel) -> bytes:
    """The bytes of an offline model file."""
    payloads = {
        MANIFEST: json.dumps(model.manifest, indent=2, sort_keys=True).encode(),
        MODEL_IR: model.ir.encode(),
        WEIGHTS: npz_bytes(model.weights),
    }
    if model.source_ir is not None:
        payloads[SOURCE_IR] = model.source_ir.encode()
    return pack_sections([(tag, payloads[tag]) for tag in SECTIONS if tag in payloads])


def pack_sections(sections: list[tuple[bytes, bytes]]) -> bytes:
    """An offline model file of `(tag, payload)` sections, checksum included."""
    size = (
        HEADER.size
        + SECTION_ENTRY.size * len(sections)
        + sum(len(p) for _, p in sections)
        + DIGEST_SIZE
    )
    parts = [HEADER.pack(MAGIC, FORMAT_VERSION, len(sections), size)]
    parts += [SECTION_ENTRY.pack(tag, len(payload)) for tag, payload in sections]
    parts += [payload for _, payload in sections]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return b"".join([*parts, digest.digest()])


def weight_keys(module: ModuleOp) -> set[str]:
    """Every weight key the module reads (`#ge.external` keys, variable names)."""
    keys = set()
    for op in module.walk():
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr):
            keys.add(op.value.key.data)
        elif isinstance(op, VariableOp):
            keys.add(op.var_name.data)
    return keys


def interface(module: ModuleOp, target: str | None) -> dict[str, Any]:
    """The graph name and its inputs and outputs, as manifest entries."""
    graph = find_graph(module)
    inputs = []
    for data in graph.inputs():
        name = data.attributes.get("name")
        entry: dict[str, Any] = {"index": data.index_value}
        if isinstance(name, StringAttr):
            entry["name"] = name.data
        inputs.append({**entry, **describe(data.output, target)})
    outputs = []
    for index, (value, name) in enumerate(
        zip(graph.output.operands, output_names(graph), strict=True)
    ):
        entry: dict[str, Any] = {"index": index}
        if name is not None:
            entry["name"] = name
        outputs.append({**entry, **describe(value, target)})
    return {"graph": graph.sym_name.data, "inputs": inputs, "outputs": outputs}


def describe(value: SSAValue, target: str | None) -> dict[str, Any]:
    """A tensor's dtype, formats and shapes (-1: unknown dim)."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    origin, storage = layout_of(tensor)
    try:
        stored = list(storage_shape_of(tensor, target))
    except FormatError:
        stored = None
    return {
        "dtype": dtype_name(tensor.element_type),
        "origin_format": origin.value,
        "storage_format": storage.value,
        "shape": list(shape_of(tensor)),
        "storage_shape": stored,
    }


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def load_offline_model(path: str | os.PathLike[str]) -> OfflineModel:
    """Read and validate an offline model file; problems are one-line GEErrors.

    The file is mapped, not read into memory: its checksum is computed from
    streamed reads, and every weight is an array over the mapping, so only
    the weights a run reads ever become resident (the origin-layout copies
    `--check` alone needs stay on disk).
    """
    label = os.fspath(path)
    check_regular_file(label, "offline model")
    with open(label, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        digest = hashlib.sha256()
        remaining = max(size - DIGEST_SIZE, 0)
        while remaining:
            chunk = stream.read(min(remaining, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
        if size == 0:
            return decode(b"", label)
        mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    return decode(memoryview(mapped), label, digest.digest())


def decode(
    data: bytes | memoryview,
    label: str = "<offline model>",
    checksum: bytes | None = None,
) -> OfflineModel:
    """Validate and unpack the bytes of an offline model file (`checksum`:
    the SHA-256 of all but its last 32 bytes, if already computed). The
    weights are arrays over `data`, not copies."""

    def fail(message: str) -> GEError:
        return GEError(f"{label}: error: {message}")

    if bytes(data[: len(MAGIC)]) != MAGIC[: len(data)]:
        raise fail("not an offline model (bad magic number)")
    if len(data) < HEADER.size:
        raise fail(f"truncated offline model ({len(data)} bytes, no complete header)")
    _, version, count, size = HEADER.unpack_from(data)
    if version != FORMAT_VERSION:
        raise fail(
            f"offline model format version {version} is not supported "
            f"(this library reads version {FORMAT_VERSION}; recompile with ge-atc)"
        )
    if len(data) < size:
        raise fail(f"truncated offline model ({len(data)} of {size} bytes)")
    if len(data) > size:
        raise fail(f"offline model has {len(data) - size} bytes of trailing data")
    digest = bytes(data[-DIGEST_SIZE:])
    if checksum is None:
        checksum = hashlib.sha256(data[:-DIGEST_SIZE]).digest()
    if checksum != digest:
        raise fail("offline model checksum mismatch (the file is corrupted)")
    table_end = HEADER.size + SECTION_ENTRY.size * count
    if count > len(SECTIONS) or table_end + DIGEST_SIZE > size:
        raise fail(f"corrupt offline model (section table of {count} entries)")
    entries = [
        SECTION_ENTRY.unpack_from(data, HEADER.size + SECTION_ENTRY.size * i)
        for i in range(count)
    ]
    if table_end + sum(length for _, length in entries) + DIGEST_SIZE != size:
        raise fail("corrupt offline model (section lengths do not add up)")
    sections: dict[bytes, bytes | memoryview] = {}
    offset = table_end
    for tag, length in entries:
        if tag not in SECTIONS or tag in sections:
            raise fail(f"corrupt offline model (section {tag!r})")
        sections[tag] = data[offset : offset + length]
        offset += length
    for tag in REQUIRED_SECTIONS:
        if tag not in sections:
            raise fail(f"offline model has no {tag.decode()} section")
    try:
        text = bytes(sections[MANIFEST]).decode()
        ir = bytes(sections[MODEL_IR]).decode()
        source = bytes(sections[SOURCE_IR]).decode() if SOURCE_IR in sections else None
    except UnicodeDecodeError as error:
        raise fail(f"corrupt offline model ({error})") from None
    manifest = load_json(text, f"{label}:manifest", "manifest")
    check_manifest(manifest, f"{label}:manifest")
    return OfflineModel(
        manifest,
        ir,
        read_npz(sections[WEIGHTS], fail),
        source,
        label,
        digest.hex(),
    )


def _is_dtype(name: str) -> bool:
    try:
        element_type(name)
    except ValueError:
        return False
    return True


def _is_format(name: str) -> bool:
    try:
        parse_format(name)
    except FormatError:
        return False
    return True


def _is_target(name: str) -> bool:
    try:
        get_target(name)
    except FormatError:
        return False
    return True


_DIM = Integer(-1, INT64_MAX)
_TENSOR = Object(
    {
        "index": Integer(0, INT64_MAX),
        "name": String(),
        "dtype": String(valid=_is_dtype, label="a dtype name"),
        "origin_format": String(valid=_is_format, label="a format name"),
        "storage_format": String(valid=_is_format, label="a format name"),
        "shape": ListOf(_DIM),
        "storage_shape": Nullable(ListOf(_DIM)),
    },
    optional={"name"},
)
_TARGET = Nullable(String(valid=_is_target, label="a known target"))
_COMPILE_OPTIONS = {
    "framework": Nullable(Integer()),
    "input_format": String(valid=_is_format, label="a format name"),
    "input_shape": Nullable(String()),
    "soc_version": _TARGET,
    "auto_cast_mode": Integer(0, 1),
    "max_streams": Nullable(Integer(1)),
    "fusion": Boolean(),
    "fusion_off": ListOf(String()),
    "precision_mode": Nullable(String(choices=set(PRECISION_MODES))),
}
"""The compile options `ge-atc` records (each optional)."""
MANIFEST_SCHEMA = Object(
    {
        "format": String(choices={MANIFEST_FORMAT}),
        "format_version": Integer(FORMAT_VERSION, FORMAT_VERSION),
        "library_version": String(),
        "soc_version": _TARGET,
        "graph": String(),
        "inputs": ListOf(_TENSOR),
        "outputs": ListOf(_TENSOR),
        "memory": MapOf(MapOf(Anything())),
        "compile_options": Object(_COMPILE_OPTIONS, optional=set(_COMPILE_OPTIONS)),
        "stages": ListOf(String()),
        "framework": String(),
        "model": String(),
        "op": String(),
        "op_index": Integer(0),
    },
    optional={
        "memory",
        "compile_options",
        "stages",
        "framework",
        "model",
        "op",
        "op_index",
    },
)
"""Every field an offline model's manifest may have, and its type."""


def check_manifest(manifest: Any, label: str) -> None:
    """GEError at `label` unless `manifest` matches `MANIFEST_SCHEMA`."""
    check_document(MANIFEST_SCHEMA, manifest, label, "manifest")


def read_npz(data: bytes | memoryview, fail: Any) -> dict[str, np.ndarray]:
    """The arrays of uncompressed `.npz` bytes, as read-only arrays over
    `data` (no copy); `fail(message)` builds the error."""
    view = memoryview(data)
    try:
        with zipfile.ZipFile(_MemoryFile(view)) as archive:
            arrays = {}
            for info in archive.infolist():
                if info.compress_type != zipfile.ZIP_STORED:
                    raise ValueError(f"{info.filename} is compressed")
                arrays[info.filename.removesuffix(".npy")] = _stored_array(view, info)
            return arrays
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, struct.error) as error:
        message = " ".join(str(error).split())
        raise fail(f"corrupt offline model weights ({message})") from None


LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
"""A zip member's local file header (signature ... name and extra lengths)."""


def _stored_array(view: memoryview, info: zipfile.ZipInfo) -> np.ndarray:
    """The `.npy` member `info` of a stored zip as an array over `view`."""
    header = LOCAL_HEADER.unpack_from(view, info.header_offset)
    if header[0] != b"PK\x03\x04":
        raise ValueError(f"bad local header of {info.filename}")
    start = info.header_offset + LOCAL_HEADER.size + header[-2] + header[-1]
    member = io.BytesIO(view[start : start + min(info.file_size, 1 << 16)])
    major, _ = np.lib.format.read_magic(member)
    read_header = (
        np.lib.format.read_array_header_1_0
        if major == 1
        else np.lib.format.read_array_header_2_0
    )
    shape, fortran, dtype = read_header(member)
    if dtype.hasobject:
        raise ValueError(f"{info.filename} holds Python objects")
    count = math.prod(shape)
    if member.tell() + count * dtype.itemsize > info.file_size:
        raise ValueError(f"{info.filename} is truncated")
    array = np.frombuffer(view, dtype, count, start + member.tell())
    return array.reshape(shape, order="F" if fortran else "C")


class _MemoryFile(io.RawIOBase):
    """A read-only, seekable file over a memoryview (what `zipfile` reads)."""

    def __init__(self, view: memoryview):
        self.view, self.position = view, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: len(self.view)}
        self.position = base[whence] + offset
        return self.position

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        chunk = self.view[self.position : self.position + len(buffer)]
        buffer[: len(chunk)] = chunk
        self.position += len(chunk)
        return len(chunk)


# ---------------------------------------------------------------------------
# Readable JSON (`ge-atc --mode=1`)
# ---------------------------------------------------------------------------


def describe_model(model: OfflineModel) -> dict[str, Any]:
    """The offline model as ATC's `--mode=1` JSON: manifest, graphs, weights.

    Each graph lists its ops in order: `name`, `type`, `input` (the values
    read, as `producer:index`), `attr`, `input_desc` and `output_desc`
    (dtype, formats, origin and storage shapes). Subgraphs of control-flow
    ops are listed as graphs named `PARENT/REGION_INDEX`.
    """
    module = model.module()
    graphs: list[dict[str, Any]] = []
    names: dict[Operation, str] = {}
    for graph in module.ops:
        if isinstance(graph, GraphOp):
            _describe_block(graph.sym_name.data, graph.body.block, names, graphs, model)
    weights = [
        {
            "name": key,
            "dtype": array.dtype.name,
            "shape": list(array.shape),
            "bytes": array.nbytes,
        }
        for key, array in model.weights.items()
    ]
    return {"manifest": model.manifest, "graph": graphs, "weights": weights}


def _describe_block(
    name: str,
    block: Block,
    names: dict[Operation, str],
    graphs: list[dict[str, Any]],
    model: OfflineModel,
) -> None:
    ops = []
    entry = {"name": name, "op": ops}
    graphs.append(entry)
    for op in block.ops:
        node = op.attributes.get("name")
        names[op] = (
            node.data
            if isinstance(node, StringAttr)
            else f"{op.name.removeprefix('ge.')}_{len(names)}"
        )
        ops.append(
            {
                "name": names[op],
                "type": op.name,
                "input": [_value_ref(value, names) for value in op.operands],
                "attr": {
                    key: _attribute_json(attr)
                    for key, attr in op.attributes.items()
                    if key != "name"
                },
                "input_desc": [describe(v, model.target) for v in op.operands],
                "output_desc": [describe(v, model.target) for v in op.results],
            }
        )
        for index, region in enumerate(op.regions):
            _describe_block(f"{names[op]}/{index}", region.block, names, graphs, model)


def _value_ref(value: SSAValue, names: Mapping[Operation, str]) -> str:
    owner = value.owner
    if isinstance(owner, Operation) and owner in names:
        return f"{names[owner]}:{value.index}"  # type: ignore[attr-defined]
    return str(value)


def _attribute_json(attr: Attribute) -> Any:
    """A JSON value for an attribute (dense data summarised, not dumped)."""
    if isinstance(attr, DenseIntOrFPElementsAttr):
        tensor = attr.get_type()
        return f"dense {dtype_name(tensor.element_type)}{list(tensor.get_shape())}"
    if isinstance(attr, ExternalDataAttr):
        return f"external '{attr.key.data}'"
    value = attribute_to_python(attr)
    if isinstance(value, Attribute):
        return str(value)
    if isinstance(value, list):
        return [_attribute_json(v) if isinstance(v, Attribute) else v for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
