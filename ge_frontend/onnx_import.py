"""Import ONNX models as `ge` graphs (ATC's ONNX parser, `--framework=5`).

```python
imported = import_onnx("resnet50.onnx", input_shapes={"data": [1, 3, 224, 224]})
imported.module    # builtin.module { ge.graph @main { ... } }, verified
imported.weights   # {"conv1.weight": array, ...}: data of the #ge.external consts
```

How the ONNX graph maps onto `ge`:

- graph inputs without an initializer become `ge.data` (`index` in ONNX
  order, `name` = the ONNX input name); a `dim_param` or missing dim becomes
  `?` unless `input_shapes` fixes it;
- initializers (also those listed among the graph inputs, as IR < 4 models
  do) and `Constant` outputs are known at import time. Every op whose inputs
  are all known is folded (`ConstantOfShape`, `Shape`, shape arithmetic, ...).
  A known value that a run-time op uses becomes one `ge.const`: a splat as
  `dense<v>`, up to `inline_limit` elements inline, larger ones (with
  `weights="external"`) as `#ge.external<"ONNX value name">` whose array is in
  `ImportedModel.weights`;
- every node becomes `ge` ops through `onnx_ops.CONVERTERS`; the op carries
  the ONNX node name as its `name` attribute (the first output's name when
  the node has none) and helper ops are named `NODE/what`;
- graph outputs become the `ge.netoutput` operands, their ONNX names the
  `output_names` attribute.

Errors are one-line `GEError`s: unreadable or invalid files, and a single
error listing every unsupported op type with its nodes.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnx.inliner
from onnx import numpy_helper
from onnx.external_data_helper import load_external_data_for_tensor, uses_external_data
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from ge_dialect.builder import GraphBuilder, dtype_of
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import element_type
from ge_dialect.input_files import check_input_file
from ge_dialect.limits import INT64_MAX, LimitError, check_bytes, tensor_bytes
from ge_frontend.onnx_context import (
    WEIGHT_MODES,
    GraphEmitter,
    NodeContext,
    Unsupported,
    Value,
    node_name,
    shape_of,
)
from ge_frontend.onnx_ops import CONVERTERS

DEFAULT_INLINE_LIMIT = 1024
"""Constants with more elements than this are kept outside the IR."""

CHECKER_LIMIT = (2 << 30) - (64 << 20)
"""Models bigger than this (near protobuf's 2 GiB) are checked from a copy
saved with external data."""

DEFAULT_DOMAINS = ("", "ai.onnx")

CONVERSION_ERRORS = (
    GEError,
    VerifyException,
    ValueError,
    TypeError,
    IndexError,
    ZeroDivisionError,
)
"""What a converter raises for an invalid node (reported with the node's name)."""


@dataclass
class ImportedModel:
    """An imported ONNX model: the verified module and its external weights."""

    module: ModuleOp
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    input_names: list[str] = field(default_factory=list)
    output_names: list[str] = field(default_factory=list)


def import_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    weights: str = "external",
    inline_limit: int = DEFAULT_INLINE_LIMIT,
    graph_name: str = "main",
) -> ImportedModel:
    """Import an ONNX model (`ModelProto`, or a `.onnx` / `.onnxtxt` file) as a graph.

    `input_shapes` fixes graph input shapes (e.g. dynamic batch sizes);
    `weights="inline"` keeps every constant inside the IR.
    """
    if weights not in WEIGHT_MODES:
        raise GEError(f"error: weights must be one of {', '.join(WEIGHT_MODES)}")
    proto, label = load_model(model)
    if proto.functions:
        proto = onnx.inliner.inline_local_functions(proto)
    importer = OnnxImporter(proto, label, input_shapes or {})
    return importer.run(GraphEmitter(GraphBuilder(graph_name), weights, inline_limit))


def load_model(
    model: str | os.PathLike[str] | onnx.ModelProto,
) -> tuple[onnx.ModelProto, str]:
    """The checked `ModelProto` and a label for messages (the file path).

    Every model goes through `check_model` (`onnx.checker`) before any of its
    tensors is read. A file's tensors held as
    external data are loaded afterwards, once their claimed sizes are within
    the memory budget (onnx keeps their paths inside the model's folder).
    """
    if isinstance(model, onnx.ModelProto):
        label = "<onnx model>"
        check_model(model, label)
        check_tensor_sizes(model, label)
        return model, label
    label = os.fspath(model)
    if not os.path.exists(label):
        raise GEError(f"error: cannot open ONNX model '{label}': no such file")
    if os.path.isdir(label):
        raise GEError(f"error: cannot open ONNX model '{label}': is a directory")
    check_input_file(label, "ONNX model")
    try:
        with warnings.catch_warnings():  # "the onnxtxt format is experimental"
            warnings.simplefilter("ignore")
            proto = onnx.load(label, load_external_data=False)
    except Exception as error:  # protobuf and onnx raise many kinds
        raise GEError(
            f"{label}: error: not a readable ONNX model: {_one_line(error)}"
        ) from None
    check_model(proto, label)
    check_tensor_sizes(proto, label)
    external = [t for t in onnx_tensors(proto) if uses_external_data(t)]
    try:
        for tensor in external:
            load_external_data_for_tensor(tensor, os.path.dirname(label) or ".")
            onnx.checker.check_tensor(tensor)
    except Exception as error:  # onnx raises ValueError, OSError, ValidationError
        raise GEError(
            f"{label}: error: cannot read the external data of tensor "
            f"'{tensor.name}': {_one_line(error)}"
        ) from None
    return proto, label


def check_graph_present(model: onnx.ModelProto, label: str) -> None:
    """Reject what protobuf reads as an empty model (e.g. an empty file)."""
    if not model.HasField("graph") or not model.graph.node and not model.graph.output:
        raise GEError(f"{label}: error: not an ONNX model (it has no graph)")


def check_model(model: onnx.ModelProto, label: str) -> None:
    """Reject empty models, what `onnx.checker` finds invalid and opsets of
    the default domain this importer does not know."""
    check_graph_present(model, label)
    if model.ByteSize() > CHECKER_LIMIT:  # the checker serialises the model
        _check_large_model(model, label)
    else:
        try:
            onnx.checker.check_model(model)
        except onnx.checker.ValidationError as error:
            raise GEError(
                f"{label}: error: invalid ONNX model: {_one_line(error)}"
            ) from None
    newest = onnx.defs.onnx_opset_version()
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS and not 1 <= entry.version <= newest:
            raise GEError(
                f"{label}: error: opset {entry.version} of the default ONNX domain "
                f"is not supported (1 to {newest})"
            )


def _check_large_model(model: onnx.ModelProto, label: str) -> None:
    """`check_model` for a model too big to serialise: checked from a copy
    saved with its tensors as external data."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "model.onnx")
        onnx.save_model(copy, path, save_as_external_data=True, location="data")
        try:
            onnx.checker.check_model(path)
        except onnx.checker.ValidationError as error:
            raise GEError(
                f"{label}: error: invalid ONNX model: {_one_line(error)}"
            ) from None


def onnx_tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
    """The model's initializers and `Constant` value tensors (main graph)."""
    tensors = list(model.graph.initializer)
    for node in model.graph.node:
        tensors += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR]
    return tensors


def check_tensor_sizes(model: onnx.ModelProto, label: str) -> None:
    """Each tensor's claimed size (dims x element size) within the memory
    budget, before its data is read."""
    for tensor in onnx_tensors(model):
        dtype = _dtype_name(tensor.data_type)
        itemsize = np.dtype(dtype).itemsize if dtype is not None else 8
        what = f"tensor '{tensor.name}'"
        try:
            nbytes = tensor_bytes(tensor.dims, itemsize, f"{what} shape")
        except LimitError as error:
            raise GEError(f"{label}: error: {error}") from None
        check_bytes(nbytes, what, label)


def _one_line(error: BaseException) -> str:
    message = " ".join(str(error).split()) or type(error).__name__
    return message.split(": error: ", 1)[-1]


def parse_input_shapes(text: str) -> dict[str, list[int]]:
    """ATC's `--input_shape` syntax: `"name:1,3,224,224;name2:8,-1"`."""
    shapes: dict[str, list[int]] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, dims = item.rpartition(":")
        try:
            shape = [int(d) for d in dims.split(",")] if dims.strip() else []
        except ValueError:
            shape = None
        if (
            not sep
            or not name
            or shape is None
            or any(not -1 <= d <= INT64_MAX for d in shape)
        ):
            raise GEError(
                f"error: bad input shape '{item}' (expected NAME:D1,D2,... with "
                "integer dims, -1 for dynamic)"
            )
        if name in shapes:
            raise GEError(f"error: input shape of '{name}' is given twice")
        shapes[name] = shape
    if not shapes:
        raise GEError("error: empty input shape (expected NAME:D1,D2,...)")
    return shapes


def default_opset(model: onnx.ModelProto) -> int:
    """The model's opset version of the default ONNX domain."""
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return entry.version
    return 1


class OnnxImporter:
    """Walks one ONNX graph in order and emits the `ge` graph."""

    def __init__(
        self,
        model: onnx.ModelProto,
        label: str,
        input_shapes: Mapping[str, Sequence[int]],
    ):
        self.graph = model.graph
        self.label = label
        self.opset = default_opset(model)
        self.input_shapes = input_shapes
        self.env: dict[str, Value | None] = {}
        """ONNX value name -> value (None: produced by an unsupported node)."""
        self.unsupported: dict[str, list[str]] = defaultdict(list)
        """Unsupported op kind -> names of its nodes."""

    def error(self, message: str) -> GEError:
        """A one-line error about the model."""
        return GEError(f"{self.label}: error: {message}")

    def run(self, emitter: GraphEmitter) -> ImportedModel:
        """Import the graph into `emitter`'s builder."""
        initializers = {init.name: init for init in self.graph.initializer}
        consumed = {name for node in self.graph.node for name in node.input}
        consumed |= {output.name for output in self.graph.output}
        for name, init in initializers.items():
            if name in consumed:
                self._bind(emitter, name, self._initializer(init))
        input_names = self._add_inputs(emitter.builder, initializers)
        for node in self.graph.node:
            self._convert(node, consumed, emitter)
        if self.unsupported:
            listing = "; ".join(
                f"{kind} (nodes: {', '.join(nodes)})"
                for kind, nodes in self.unsupported.items()
            )
            raise self.error(f"unsupported ONNX ops: {listing}")
        output_names = [output.name for output in self.graph.output]
        outputs = []
        for name in output_names:
            if name not in self.env:
                raise self.error(f"graph output '{name}' is not produced by any node")
            outputs.append(emitter.tensor(self.env[name], name))
        for declared, value in zip(self.graph.output, outputs, strict=True):
            self._check_declared_output(declared, value)
        emitter.builder.output(*outputs)
        terminator = emitter.builder.block.last_op
        assert terminator is not None
        terminator.attributes["output_names"] = ArrayAttr(
            [StringAttr(name) for name in output_names]
        )
        module = emitter.builder.build()
        return ImportedModel(module, emitter.weights, input_names, output_names)

    def _initializer(self, init: onnx.TensorProto) -> np.ndarray:
        if _dtype_name(init.data_type) is None:
            kind = onnx.TensorProto.DataType.Name(init.data_type)
            raise self.error(f"initializer '{init.name}' has unsupported dtype {kind}")
        try:
            return numpy_helper.to_array(init)
        except (ValueError, TypeError) as error:
            raise self.error(
                f"initializer '{init.name}' is unreadable: {_one_line(error)}"
            ) from None

    def _check_declared_output(
        self, declared: onnx.ValueInfoProto, value: SSAValue
    ) -> None:
        """A graph output's declared dtype and known dims must be what the
        graph computes."""
        if not declared.type.HasField("tensor_type"):
            return
        tensor = declared.type.tensor_type
        ours = dtype_of(value)
        if tensor.elem_type and _dtype_name(tensor.elem_type) != ours:
            kind = onnx.TensorProto.DataType.Name(tensor.elem_type)
            raise self.error(
                f"graph output '{declared.name}' is declared {kind}, the graph "
                f"computes {ours}"
            )
        if not tensor.HasField("shape"):
            return
        shape = shape_of(value)
        dims = _declared_dims(tensor)
        contradicts = len(dims) != len(shape) or any(
            -1 not in (d, s) and d != s for d, s in zip(dims, shape, strict=False)
        )
        if contradicts:
            raise self.error(
                f"graph output '{declared.name}' is declared with shape {dims}, the "
                f"graph computes {list(shape)}"
            )

    def _bind(self, emitter: GraphEmitter, name: str, value: Value) -> None:
        if isinstance(value, np.ndarray) and _dtype_name_of_array(value) is None:
            raise self.error(f"value '{name}' has dtype {value.dtype}, which ge lacks")
        self.env[name] = value
        if isinstance(value, np.ndarray):
            emitter.name_array(value, name)

    # -- graph inputs ----------------------------------------------------------

    def _add_inputs(
        self, builder: GraphBuilder, initializers: Mapping[str, onnx.TensorProto]
    ) -> list[str]:
        inputs = [v for v in self.graph.input if v.name not in initializers]
        known = {v.name for v in inputs}
        for name in self.input_shapes:
            if name not in known:
                listing = ", ".join(sorted(known)) or "none"
                raise self.error(
                    f"an input shape is given for '{name}', but the graph inputs "
                    f"are: {listing}"
                )
        for value_info in inputs:
            shape, dtype = self._input_type(value_info)
            self.env[value_info.name] = builder.data(shape, dtype, name=value_info.name)
        return [v.name for v in inputs]

    def _input_type(self, value_info: onnx.ValueInfoProto) -> tuple[list[int], str]:
        name = value_info.name
        if not value_info.type.HasField("tensor_type"):
            raise self.error(f"graph input '{name}' is not a tensor")
        tensor = value_info.type.tensor_type
        dtype = _dtype_name(tensor.elem_type)
        if dtype is None:
            kind = onnx.TensorProto.DataType.Name(tensor.elem_type)
            raise self.error(f"graph input '{name}' has unsupported dtype {kind}")
        given = self.input_shapes.get(name)
        if not tensor.HasField("shape"):
            if given is None:
                raise self.error(
                    f"graph input '{name}' has an unknown rank; give its shape"
                )
            return [int(d) for d in given], dtype
        for axis, dim in enumerate(tensor.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value < 0:
                raise self.error(
                    f"graph input '{name}' has dim {axis} = {dim.dim_value} (a dim "
                    "is >= 0; a dynamic one has no dim_value)"
                )
        shape = _declared_dims(tensor)
        return shape if given is None else self._fix_shape(name, shape, given), dtype

    def _fix_shape(
        self, name: str, shape: Sequence[int], given: Sequence[int]
    ) -> list[int]:
        """`shape` with its dynamic dims taken from the user's `given` shape."""
        if len(given) != len(shape):
            raise self.error(
                f"the input shape given for '{name}' has rank {len(given)}, the "
                f"model's has rank {len(shape)}"
            )
        for axis, (model_dim, user_dim) in enumerate(zip(shape, given, strict=True)):
            if model_dim != -1 and user_dim not in (-1, model_dim):
                raise self.error(
                    f"the input shape given for '{name}' sets dim {axis} to "
                    f"{user_dim}, the model fixes it to {model_dim}"
                )
        return [int(u) if m == -1 else m for m, u in zip(shape, given, strict=True)]

    # -- nodes -----------------------------------------------------------------

    def _convert(
        self, node: onnx.NodeProto, consumed: set[str], emitter: GraphEmitter
    ) -> None:
        name = node_name(node)
        for input_name in node.input:
            if input_name and input_name not in self.env:
                raise self.error(
                    f"node '{name}' ({node.op_type}) reads '{input_name}', which no "
                    "earlier node or graph input defines"
                )
        inputs = [self.env[n] if n else None for n in node.input]
        if node.domain not in DEFAULT_DOMAINS:
            return self._skip(node, f"{node.domain}.{node.op_type}")
        converter = CONVERTERS.get(node.op_type)
        if converter is None:
            return self._skip(node, node.op_type)
        if any(
            n and value is None for n, value in zip(node.input, inputs, strict=True)
        ):
            return self._skip(node, None)  # downstream of an unsupported node
        used = [bool(output) and output in consumed for output in node.output]
        try:
            results = list(
                converter(NodeContext(node, self.opset, inputs, used, emitter))
            )
        except Unsupported as reason:
            return self._skip(node, f"{node.op_type} {reason}")
        except CONVERSION_ERRORS as error:
            raise self.error(
                f"node '{name}' ({node.op_type}): {_one_line(error)}"
            ) from None
        missing = [i for i in range(len(results), len(used)) if used[i]]
        if missing:
            return self._skip(node, f"{node.op_type} with output #{missing[0]}")
        for output, value in zip(node.output, results, strict=False):
            if output:
                self._bind(emitter, output, value)

    def _skip(self, node: onnx.NodeProto, kind: str | None) -> None:
        """Record an unsupported node (kind None: downstream of one) and go on."""
        if kind is not None:
            self.unsupported[kind].append(node_name(node))
        for output in node.output:
            if output:
                self.env[output] = None


def _declared_dims(tensor: onnx.TypeProto.Tensor) -> list[int]:
    """A declared tensor type's dims, -1 for each dynamic one."""
    return [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]


def _dtype_name_of_array(array: np.ndarray) -> str | None:
    try:
        element_type(array.dtype.name)
    except (KeyError, TypeError, ValueError):
        return None
    return array.dtype.name


def _dtype_name(onnx_type: int) -> str | None:
    """The dtype name of an ONNX element type, or None if `ge` has no such type."""
    try:
        name = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(onnx_type)).name
        element_type(name)
    except (KeyError, TypeError, ValueError):
        return None
    return name
