"""The IR side of an offline model (`om`): making one from a module and
writing it, checking the IR it holds against its manifest and weights,
describing it (`ge-atc --mode=1`).

`om` reads and validates the file without IR (a served run needs none);
`OfflineModel.module()`, `source_module()` and `source_weights()` parse
the IR through this module.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from xdsl.printer import Printer

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import STORAGE_OF, StorageWeights, origin_array
from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.files import write_atomically
from ge_dialect.formats import FormatError
from ge_dialect.input_files import OFFLINE_MODEL_IR
from ge_dialect.layout import layout_of, shape_of, storage_shape_of
from ge_dialect.locations import error_at
from ge_dialect.ops import (
    ConstOp,
    GraphOp,
    VariableOp,
    attribute_to_python,
    enclosing_target,
)
from ge_dialect.parsing import parse_module
from ge_runtime.graph_io import find_graph, output_names
from ge_runtime.offline.om import (
    ALIGNMENT,
    DIGEST_SIZE,
    FORMAT_VERSION,
    HEADER,
    KERNELS,
    MAGIC,
    MANIFEST,
    MANIFEST_FORMAT,
    MODEL_IR,
    SECTION_ENTRY,
    SOURCE_IR,
    WEIGHT_DATA,
    WEIGHT_INDEX,
    OfflineModel,
    check_manifest,
    library_version,
)
from passes.memory_planning import memory_reports

PLAIN_STRING = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*")
"""A string xDSL's printer writes as it is between quotes (printable ASCII
but for the quote and the backslash it escapes)."""


class _AttributeTexts(Printer):
    """xDSL's printer, that writes the text of an attribute it printed before
    (most of a module's values share a few types) as it found it the first
    time instead of printing it again: the same text, counted in the column
    the same way (a text of one line; one of several, whose lines the
    printer indents where it is, is printed again). An attribute is the
    same object; a type, an equal one (its parameters compare as they
    print: xDSL's floats by their bits). A string literal with nothing
    to escape (`PLAIN_STRING`: an op's name) is written at once, not a
    byte at a time, and a string of one line (most of what the printer
    writes: 150,000 for CRNN) without xDSL's count of its lines."""

    def __init__(self, stream: io.StringIO) -> None:
        super().__init__(stream=stream)
        self._texts: dict[Attribute | int, tuple[Attribute, str]] = {}
        """Texts by the id of the attribute (kept: its id is not reused),
        and of a type by the type."""

    def print_attribute(self, attribute: Attribute) -> None:
        found = self._texts.get(id(attribute))  # no hash of a type's parameters
        if found is None and isinstance(attribute, TypeAttribute):
            found = self._texts.get(attribute)
            if found is not None:
                self._texts[id(attribute)] = (attribute, found[1])
        if found is not None:
            self.print_string(found[1])
            return
        stream, self.stream = self.stream, io.StringIO()
        try:
            super().print_attribute(attribute)
            text = self.stream.getvalue()
        finally:
            self.stream = stream
        self._write(text)  # its columns and lines counted as it was printed
        if "\n" not in text:
            self._texts[id(attribute)] = (attribute, text)
            if isinstance(attribute, TypeAttribute):
                self._texts[attribute] = (attribute, text)

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:  # indented where the printer is
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)  # what xDSL does with one line
        self.stream.write(text)

    def print_string_literal(self, string: str) -> None:
        if PLAIN_STRING.fullmatch(string):
            self.print_string(f'"{string}"')
        else:
            super().print_string_literal(string)


def module_text(module: ModuleOp) -> str:
    """The MLIR text of `module` (custom syntax)."""
    stream = io.StringIO()
    _AttributeTexts(stream).print_op(module)
    stream.write("\n")
    return stream.getvalue()


# ---------------------------------------------------------------------------
# Checking the IR
# ---------------------------------------------------------------------------


def checked_module(offline: OfflineModel) -> ModuleOp:
    """The optimised module, parsed and verified; the manifest's
    interface and the weights must be what it says."""
    module = _parse(offline.ir, f"{offline.path}:{OFFLINE_MODEL_IR}")
    derived = {
        **interface(module, offline.target),
        "soc_version": enclosing_target(module),
        "memory": memory_reports(list(module.ops)),
    }
    for key, value in derived.items():
        if offline.manifest.get(key, {} if key == "memory" else None) != value:
            raise GEError(
                f"{offline.path}: error: the manifest's '{key}' disagrees with the "
                "model IR (a corrupted or forged manifest)"
            )
    check_weights(offline, module)
    return module


def source_module(offline: OfflineModel, module: ModuleOp | None = None) -> ModuleOp:
    """The module before optimisation (GEError if the file has none);
    `module` is the optimised one, if already parsed."""
    if offline.source_ir is None:
        raise GEError(
            f"{offline.path}: error: the offline model holds no source graph "
            "(compiled without it)"
        )
    source = _parse(offline.source_ir, f"{offline.path}:source")
    check_weights(
        offline, source, source_weights(offline, module or checked_module(offline))
    )
    return source


def source_weights(offline: OfflineModel, module: ModuleOp) -> Mapping[str, np.ndarray]:
    """The weights the source IR reads: the stored ones, and the origin
    layout of each relaid-out weight only it reads (`origins`), derived
    from the stored layout that the optimised `module`'s constant says."""
    if not offline.origins:
        return offline.weights
    types = {
        op.value.key.data: op.output.type
        for op in module.walk()
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr)
    }
    derived = dict(offline.weights)
    for key, stored in offline.origins.items():
        tensor = types.get(stored)
        if not isinstance(tensor, TensorType):
            raise GEError(
                f"{offline.path}: error: weight '{key}' is kept as '{stored}', "
                "which the model IR does not read"
            )
        derived[key] = origin_array(offline.weights[stored], tensor, offline.target)
    return derived


def check_weights(
    offline: OfflineModel,
    module: ModuleOp,
    weights: Mapping[str, np.ndarray] | None = None,
) -> None:
    """Each weight `module` reads has the dtype and storage shape of the
    constant (or variable) reading it."""
    weights = offline.weights if weights is None else weights
    for op in module.walk():
        if isinstance(op, ConstOp) and isinstance(op.value, ExternalDataAttr):
            key = op.value.key.data
        elif isinstance(op, VariableOp):
            key = op.var_name.data
        else:
            continue
        tensor = op.output.type
        assert isinstance(tensor, TensorType)
        array = weights.get(key)
        if array is None:
            raise error_at(op, f"weight '{key}' is not in the weights")
        try:
            shape = storage_shape_of(tensor, offline.target)
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
    reads, in the layout of the constant reading it; only those are kept, and
    of a weight only the source reads that `module` reads relaid out, only
    the relaid-out copy (`OfflineModel.origins`). `manifest` (compile options
    and the like) is completed with the graph's inputs and outputs, the
    soc_version and the versions.
    """
    model_keys = weight_keys(module)
    origins = relaid_out_origins(module, source) if source else {}
    keys = model_keys | (weight_keys(source) - set(origins) if source else set())
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
        SelectedWeights(weights, sorted(keys)),
        module_text(source) if source else None,
        path,
        origins=origins,
    )


def relaid_out_origins(module: ModuleOp, source: ModuleOp) -> dict[str, str]:
    """Each weight only `source` reads that `module` reads relaid out with
    its dtype kept (a `storage_of` constant), to the key of that copy."""
    source_types = _weight_types(source)
    model_keys = weight_keys(module)
    origins = {}
    for op in module.walk():
        origin = op.attributes.get(STORAGE_OF)
        if not isinstance(op, ConstOp) or not isinstance(origin, StringAttr):
            continue
        key = origin.data
        tensor = source_types.get(key)
        if key in model_keys or key in origins or tensor is None:
            continue
        if expected_dtype(tensor) == expected_dtype(op.output.type):
            assert isinstance(op.value, ExternalDataAttr)
            origins[key] = op.value.key.data
    return origins


def _weight_types(module: ModuleOp) -> dict[str, TensorType]:
    """The type of the constant reading each `#ge.external` key of `module`."""
    return {
        op.value.key.data: op.output.type
        for op in module.walk()
        if isinstance(op, ConstOp)
        and isinstance(op.value, ExternalDataAttr)
        and isinstance(op.output.type, TensorType)
    }


class SelectedWeights(Mapping[str, np.ndarray]):
    """The weights of `keys` among `weights`, read through (nothing copied)."""

    def __init__(self, weights: Mapping[str, np.ndarray], keys: list[str]):
        self.weights, self.keys_kept = weights, keys
        self.kept = frozenset(keys)

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self.kept:
            raise KeyError(key)
        return np.asarray(self.weights[key])

    def __contains__(self, key: object) -> bool:
        return key in self.kept  # without deriving the array

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_kept)

    def __len__(self) -> int:
        return len(self.keys_kept)

    def release(self, key: str) -> None:
        """Drop a derived array once written (it is derived again if read)."""
        if isinstance(self.weights, StorageWeights):
            self.weights.release(key)


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
    write_atomically(path, functools.partial(write_offline_model, model))
    return model


def encode(model: OfflineModel) -> bytes:
    """The bytes of an offline model file (`write_offline_model` in memory)."""
    stream = io.BytesIO()
    write_offline_model(model, stream)
    return stream.getvalue()


def write_offline_model(model: OfflineModel, stream: BinaryIO) -> int:
    """Write the offline model file to `stream`, one weight at a time (a
    derived weight is released once written); returns the bytes written."""
    weights = model.weights
    entries, end = {}, 0
    for key in weights:
        shape, dtype = _array_type(weights, key)
        entries[key] = {"dtype": dtype.name, "shape": list(shape), "offset": end}
        end += -(-math.prod(shape) * dtype.itemsize // ALIGNMENT) * ALIGNMENT
    index = {"arrays": entries, "origins": model.origins}
    payloads = {
        MANIFEST: json.dumps(model.manifest, indent=2, sort_keys=True).encode(),
        MODEL_IR: model.ir.encode(),
        SOURCE_IR: None if model.source_ir is None else model.source_ir.encode(),
        WEIGHT_INDEX: json.dumps(index, sort_keys=True).encode(),
        KERNELS: model.kernels,
    }
    small = [(tag, payload) for tag, payload in payloads.items() if payload is not None]
    data_start = (
        HEADER.size
        + SECTION_ENTRY.size * (len(small) + 1)
        + sum(len(payload) for _, payload in small)
    )
    lead = -data_start % ALIGNMENT
    size = data_start + lead + end + DIGEST_SIZE
    writer = _HashingWriter(stream)
    writer.write(HEADER.pack(MAGIC, FORMAT_VERSION, len(small) + 1, size))
    for tag, payload in small:
        writer.write(SECTION_ENTRY.pack(tag, len(payload)))
    writer.write(SECTION_ENTRY.pack(WEIGHT_DATA, lead + end))
    for _, payload in small:
        writer.write(payload)
    writer.write(bytes(lead))
    for key in weights:
        native = numpy_dtype(entries[key]["dtype"])  # the byte order read back
        array = np.ascontiguousarray(weights[key], dtype=native)
        writer.write(array.reshape(-1).view(np.uint8).data)
        writer.write(bytes(-array.nbytes % ALIGNMENT))
        del array
        if isinstance(weights, SelectedWeights):
            weights.release(key)
    stream.write(writer.digest.digest())
    return size


def _array_type(
    weights: Mapping[str, np.ndarray], key: str
) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype of `key`'s array (a derived one not derived)."""
    if isinstance(weights, SelectedWeights):
        if isinstance(weights.weights, StorageWeights):
            return weights.weights.array_type(key)
    array = np.asarray(weights[key])
    return tuple(array.shape), array.dtype


class _HashingWriter:
    """Writes to a stream and hashes what it wrote."""

    def __init__(self, stream: BinaryIO):
        self.stream, self.digest = stream, hashlib.sha256()

    def write(self, data: bytes | memoryview) -> None:
        self.digest.update(data)
        self.stream.write(data)


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
# Describing
# ---------------------------------------------------------------------------


def describe_model(model: OfflineModel) -> dict[str, Any]:
    """The offline model as ATC's `--mode=1` JSON: manifest, graphs, weights
    (a weight kept only in another's layout says which: `derived_from`).

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
    weights += [
        {"name": key, "derived_from": stored} for key, stored in model.origins.items()
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
