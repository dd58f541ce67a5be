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
runs the reference on it), `WIDX` the weight index (UTF-8 JSON: each
weight's dtype, shape and offset in `WDAT`; `origins`: the weights only the
source IR reads that are the origin layout of a stored one), `WDAT` the
weights, raw, each at a 64-byte aligned file offset (the offsets count from
the first aligned byte of the section), in the layout of the constant that
reads them: ATC's compile-time weight reordering. Each weight is stored
once: the origin-layout copy of a relaid-out weight is derived again
(`relayout.from_storage`) when `--check` needs it, and stored only when it
cannot be (a folded or cast weight). `KERN` (optional) the model's compiled
kernels (`ge_runtime.jit.cache.bundle`: the code cache's entries and C
libraries, with the machine, compiler and generator version they were built
for and each file's SHA-256, checked before anything is installed or
loaded; opaque to this layer). Version 1 files, whose `WGHT` held
both layouts as `.npz` bytes, are still read.

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
it. Weights are raw bytes whose index (dtypes, shapes, offsets) is checked
against the section holding them (version 1: `.npy` members whose headers
are checked against the bytes there); nothing is ever unpickled.

Reading needs no IR (nothing here imports xDSL: a served run parses none);
making, writing and describing a model from its IR is `om_ir`'s, and so is
checking the IR against the manifest and weights when it is parsed.

```python
om_ir.save_offline_model("net.om", module, weights, {"compile_options": {...}},
                         source=imported_module)
model = load_offline_model("net.om")
module = model.module()
model.manifest["inputs"], model.weights, model.source_module()
model.source_weights(module)   # what the source IR reads (origins derived)
```
"""

from __future__ import annotations

import hashlib
import io
import math
import mmap
import os
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import DTYPE_NAMES, numpy_dtype
from ge_dialect.formats import FormatError, parse_format
from ge_dialect.input_files import (
    OFFLINE_MODEL_MAGIC,
    check_regular_file,
    load_json,
)
from ge_dialect.limits import INT64_MAX
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
from ge_dialect.targets import PRECISION_MODES, get_target

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

MAGIC = OFFLINE_MODEL_MAGIC
FORMAT_VERSION = 2
"""The version written."""
READABLE_VERSIONS = (1, 2)
"""The versions read (1: the weights as one `.npz` section)."""
HEADER = struct.Struct("<8sIIQ")
SECTION_ENTRY = struct.Struct("<4s4xQ")
DIGEST_SIZE = hashlib.sha256().digest_size

MANIFEST_FORMAT = "ge-xdsl offline model"
"""The manifest's `format` field."""

MANIFEST = b"MANI"
MODEL_IR = b"MDIR"
SOURCE_IR = b"SRIR"
NPZ_WEIGHTS = b"WGHT"
"""Version 1's weights: `.npz` bytes."""
WEIGHT_INDEX = b"WIDX"
WEIGHT_DATA = b"WDAT"
KERNELS = b"KERN"
SECTIONS = {
    1: (MANIFEST, MODEL_IR, SOURCE_IR, NPZ_WEIGHTS),
    2: (MANIFEST, MODEL_IR, SOURCE_IR, WEIGHT_INDEX, KERNELS, WEIGHT_DATA),
}
"""Each version's section tags, in the order they are written."""
REQUIRED_SECTIONS = {
    1: (MANIFEST, MODEL_IR, NPZ_WEIGHTS),
    2: (MANIFEST, MODEL_IR, WEIGHT_INDEX, WEIGHT_DATA),
}
ALIGNMENT = 64
"""Each weight starts at a multiple of this in the file (cache lines, SIMD)."""
MAX_WEIGHT_RANK = 64
"""Dims a weight's index entry may list (a forged one of millions would make
its size a slow product)."""


def library_version() -> str:
    """The installed version of this package."""
    try:
        return metadata.version("ge-xdsl")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class OfflineModel:
    """An offline model in memory: its manifest, IR texts and weights."""

    manifest: dict[str, Any]
    ir: str
    weights: Mapping[str, np.ndarray] = field(default_factory=dict)
    """What either IR reads, each weight once (a `StorageWeights` lays out
    the ones a compile derived when they are read)."""
    source_ir: str | None = None
    path: str = "<offline model>"
    digest: str = ""
    """SHA-256 of the file (hex; its trailer), what keys the code cache."""
    origins: dict[str, str] = field(default_factory=dict)
    """Weights only the source IR reads -> the stored weight in whose layout
    they are kept (derived back by `source_weights`)."""
    kernels: bytes | memoryview | None = None
    """The model's compiled kernels (`jit.cache.bundle`'s payload; opaque
    here, checked when installed), if compiled with them."""

    @property
    def code_key(self) -> str:
        """What determines the model's generated code: its IR (the code
        cache's key, so kernels compiled for the IR are found again)."""
        return hashlib.sha256(self.ir.encode()).hexdigest()[:32]

    @property
    def target(self) -> str | None:
        """The soc_version the layouts were compiled for (None: the seed rule)."""
        return self.manifest.get("soc_version")

    def module(self) -> ModuleOp:
        """The optimised module, parsed and verified; the manifest's
        interface and the weights must be what it says (`om_ir`)."""
        from ge_runtime.offline.om_ir import checked_module

        return checked_module(self)

    def source_module(self, module: ModuleOp | None = None) -> ModuleOp:
        """The module before optimisation (GEError if the file has none);
        `module` is the optimised one, if already parsed."""
        from ge_runtime.offline.om_ir import source_module

        return source_module(self, module)

    def source_weights(self, module: ModuleOp) -> Mapping[str, np.ndarray]:
        """The weights the source IR reads: the stored ones, and the origin
        layout of each relaid-out weight only it reads (`origins`), derived
        from the stored layout that the optimised `module`'s constant says."""
        from ge_runtime.offline.om_ir import source_weights

        return source_weights(self, module)


def pack_sections(
    sections: list[tuple[bytes, bytes]], version: int = FORMAT_VERSION
) -> bytes:
    """An offline model file of `(tag, payload)` sections, checksum included."""
    size = (
        HEADER.size
        + SECTION_ENTRY.size * len(sections)
        + sum(len(p) for _, p in sections)
        + DIGEST_SIZE
    )
    parts = [HEADER.pack(MAGIC, version, len(sections), size)]
    parts += [SECTION_ENTRY.pack(tag, len(payload)) for tag, payload in sections]
    parts += [payload for _, payload in sections]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return b"".join([*parts, digest.digest()])


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
    if version not in READABLE_VERSIONS:
        raise fail(
            f"offline model format version {version} is not supported "
            f"(this library reads versions {', '.join(map(str, READABLE_VERSIONS))}; "
            "recompile with ge-atc)"
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
    if count > len(SECTIONS[version]) or table_end + DIGEST_SIZE > size:
        raise fail(f"corrupt offline model (section table of {count} entries)")
    entries = [
        SECTION_ENTRY.unpack_from(data, HEADER.size + SECTION_ENTRY.size * i)
        for i in range(count)
    ]
    if table_end + sum(length for _, length in entries) + DIGEST_SIZE != size:
        raise fail("corrupt offline model (section lengths do not add up)")
    sections: dict[bytes, bytes | memoryview] = {}
    starts: dict[bytes, int] = {}
    offset = table_end
    for tag, length in entries:
        if tag not in SECTIONS[version] or tag in sections:
            raise fail(f"corrupt offline model (section {tag!r})")
        sections[tag] = data[offset : offset + length]
        starts[tag] = offset
        offset += length
    for tag in REQUIRED_SECTIONS[version]:
        if tag not in sections:
            raise fail(f"offline model has no {tag.decode()} section")
    try:
        text = bytes(sections[MANIFEST]).decode()
        ir = bytes(sections[MODEL_IR]).decode()
        source = bytes(sections[SOURCE_IR]).decode() if SOURCE_IR in sections else None
        index = bytes(sections.get(WEIGHT_INDEX, b"")).decode()
    except UnicodeDecodeError as error:
        raise fail(f"corrupt offline model ({error})") from None
    manifest = load_json(text, f"{label}:manifest", "manifest")
    check_manifest(manifest, f"{label}:manifest")
    if manifest["format_version"] != version:
        raise fail(
            f"the manifest's format_version {manifest['format_version']} is not "
            f"the file's ({version})"
        )
    origins: dict[str, str] = {}
    if version == 1:
        weights = read_npz(sections[NPZ_WEIGHTS], fail)
    else:
        weights, origins = read_weights(
            index, data, starts[WEIGHT_DATA], len(sections[WEIGHT_DATA]), label
        )
    return OfflineModel(
        manifest,
        ir,
        weights,
        source,
        label,
        digest.hex(),
        origins,
        sections.get(KERNELS),
    )


def read_weights(
    index_text: str,
    data: bytes | memoryview,
    start: int,
    length: int,
    label: str,
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The arrays the weight index describes, read-only over `data` (the
    file; `WDAT` is its `length` bytes at `start`), and the index's origins."""
    index = load_json(index_text, f"{label}:weight index", "weight index")
    check_document(WEIGHT_INDEX_SCHEMA, index, f"{label}:weight index", "weight index")
    base = start + -start % ALIGNMENT
    end = start + length
    arrays = {}
    for key, entry in index["arrays"].items():
        dtype = numpy_dtype(entry["dtype"])
        count = math.prod(entry["shape"])
        first = base + entry["offset"]
        if first + count * dtype.itemsize > end:
            raise GEError(
                f"{label}: error: corrupt offline model weights (weight '{key}' "
                f"{entry['dtype']}{entry['shape']} at {entry['offset']} lies past "
                "the weight data)"
            )
        array = np.frombuffer(data, dtype, count, first)
        arrays[key] = array.reshape(entry["shape"])
    for key, stored in index["origins"].items():
        if stored not in arrays:
            raise GEError(
                f"{label}: error: corrupt offline model weights (weight '{key}' "
                f"is kept as '{stored}', which is not stored)"
            )
    return arrays, index["origins"]


def _is_dtype(name: str) -> bool:
    return name in DTYPE_NAMES or name == "string"


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
_LAYOUT = Object(
    {
        "origin": String(valid=_is_format, label="a format name"),
        "storage": String(valid=_is_format, label="a format name"),
        "dtype": String(valid=_is_dtype, label="a dtype name"),
        "reshape_type": Nullable(String()),
        "groups": Integer(1, INT64_MAX),
    }
)
PLAN_SCHEMA = Object(
    {
        "entry": String(),
        "largest": Object({"bytes": Integer(0, INT64_MAX), "node": String()}),
        "arguments": ListOf(
            Object({"input": Integer(0, INT64_MAX), "layout": _LAYOUT})
        ),
        "weights": ListOf(String()),
        "outputs": ListOf(
            Object(
                {
                    "result": Integer(0, INT64_MAX),
                    "shape": ListOf(Integer(0, INT64_MAX)),
                    "layout": _LAYOUT,
                }
            )
        ),
    }
)
"""The schedule of a graph sunk whole into one compiled function, what
`ge-run` runs without parsing the IR (`engines.served`): the function's
code cache key, its largest tensor (bytes, node: checked against the
memory budget), each argument's graph input and layout, the weights it
reads in order, and each graph output's result, origin shape and layout."""
MANIFEST_SCHEMA = Object(
    {
        "format": String(choices={MANIFEST_FORMAT}),
        "format_version": Integer(min(READABLE_VERSIONS), FORMAT_VERSION),
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
        "plan": PLAN_SCHEMA,
    },
    optional={
        "plan",
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


WEIGHT_INDEX_SCHEMA = Object(
    {
        "arrays": MapOf(
            Object(
                {
                    "dtype": String(valid=_is_dtype, label="a dtype name"),
                    "shape": ListOf(Integer(0, INT64_MAX), MAX_WEIGHT_RANK),
                    "offset": Integer(0, INT64_MAX),
                }
            )
        ),
        "origins": MapOf(String()),
    }
)
"""The weight index (`WIDX`): each stored array, and the origins derived."""


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
