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
  `output_names` attribute;
- graph attributes (If's branches, ...) become regions. ONNX subgraphs see
  every value of the enclosing graphs; `ge` regions are isolated from above,
  so the enclosing run-time values a subgraph reads (`free_names`) become
  operands of the op, mirrored by `ge.data {parent_index}` in the region,
  and the known ones become constants of the region. An unsupported node
  inside a subgraph is reported like any other.

Errors are one-line `GEError`s: unreadable or invalid files, and a single
error listing every unsupported op type with its nodes.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnx.inliner
from onnx import numpy_helper
from onnx.external_data_helper import load_external_data_for_tensor, uses_external_data
from xdsl.ir import SSAValue

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import element_type
from ge_dialect.input_files import check_input_file
from ge_dialect.limits import (
    DEFAULT_INLINE_LIMIT,
    MAX_NESTING,
    LimitError,
    check_bytes,
    tensor_bytes,
)
from ge_dialect.structured_io import (
    NONE_KIND,
    OPTIONAL_KIND,
    OPTIONAL_SEQUENCE_KIND,
    RAGGED_KIND,
    SEQUENCE_KIND,
    STRUCTURED_INPUTS,
    STRUCTURED_OUTPUTS,
    StructuredValue,
    item_name,
    record,
)
from ge_frontend.importing import (
    CONVERSION_ERRORS,
    WEIGHT_MODES,
    GraphEmitter,
    ImportedModel,
    InputShape,
    StructuredShape,
    Unsupported,
    UnsupportedOps,
    Value,
    check_input_names,
    dtype_name_of,
    errors_located_in,
    fix_input_shape,
    folded_within_budget,
    one_line,
    shape_of,
)
from ge_frontend.onnx_context import (
    Downstream,
    NodeContext,
    free_names,
    node_name,
    node_subgraphs,
)
from ge_frontend.onnx_functions import FunctionBody, defines_function, function_body
from ge_frontend.onnx_mapped import checkable, map_external_data, strip_initializers
from ge_frontend.onnx_ops import CONVERTERS, DOMAIN_CONVERTERS
from ge_frontend.onnx_sequences import (
    OptionalValue,
    RaggedSequence,
    SequenceValue,
    Structured,
    leaves,
    type_proto_string,
)
from ge_frontend.onnx_shape_values import track_entries
from ge_frontend.onnx_types import check_input_types

LOG = logging.getLogger(__name__)

CHECKER_LIMIT = (2 << 30) - (64 << 20)
"""Models bigger than this (near protobuf's 2 GiB) are checked from a copy
saved with external data."""

DEFAULT_DOMAINS = ("", "ai.onnx")


def import_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    input_shapes: Mapping[str, InputShape] | None = None,
    weights: str = "external",
    inline_limit: int = DEFAULT_INLINE_LIMIT,
    graph_name: str = "main",
    verify: bool = True,
) -> ImportedModel:
    """Import an ONNX model (`ModelProto`, or a `.onnx` / `.onnxtxt` file) as a graph.

    `input_shapes` fixes graph input shapes (e.g. dynamic batch sizes);
    `weights="inline"` keeps every constant inside the IR; `verify=False`
    leaves verifying the module to the caller (`GraphEmitter.verify`).
    """
    if weights not in WEIGHT_MODES:
        raise GEError(f"error: weights must be one of {', '.join(WEIGHT_MODES)}")
    proto, label, mapped = load_model(model)
    if proto.functions:
        proto = onnx.inliner.inline_local_functions(proto)
    importer = OnnxImporter(proto, label, input_shapes or {}, mapped)
    with errors_located_in(label):
        return importer.run(
            GraphEmitter(GraphBuilder(graph_name), weights, inline_limit, verify=verify)
        )


def load_model(
    model: str | os.PathLike[str] | onnx.ModelProto,
) -> tuple[onnx.ModelProto, str, dict[str, np.ndarray]]:
    """The checked `ModelProto`, a label for messages (the file path) and
    the initializers read in place (`onnx_mapped`: a binary file's large
    initializers are arrays over the mapped file, not in the message).

    Every model goes through `check_model` (`onnx.checker`) before any of its
    tensors is read. A file's tensors held as external data are loaded
    afterwards, once their claimed sizes are within the memory budget (onnx
    keeps their paths inside the model's folder), and checked again.
    """
    if isinstance(model, onnx.ModelProto):
        label = "<onnx model>"
        check_model(model, label)
        check_tensor_sizes(model, label)
        return model, label, {}
    label = os.fspath(model)
    if not os.path.exists(label):
        raise GEError(f"error: cannot open ONNX model '{label}': no such file")
    if os.path.isdir(label):
        raise GEError(f"error: cannot open ONNX model '{label}': is a directory")
    check_input_file(label, "ONNX model")
    stripped = strip_initializers(label) if label.endswith(".onnx") else None
    mapped = {} if stripped is None else stripped[1]
    try:
        with warnings.catch_warnings():  # "the onnxtxt format is experimental"
            warnings.simplefilter("ignore")
            proto = (
                onnx.load(label, load_external_data=False)
                if stripped is None
                else onnx.ModelProto.FromString(stripped[0])
            )
    except Exception as error:  # protobuf and onnx raise many kinds
        raise GEError(
            f"{label}: error: not a readable ONNX model: {one_line(error)}"
        ) from None
    check_tensor_sizes(proto, label)
    external = [
        t for t in onnx_tensors(proto) if uses_external_data(t) and t.name not in mapped
    ]
    if external:  # the checker reads the file to find and check the data
        check_model_file(proto, label)
        mapped.update(map_external_data(proto, os.path.dirname(label) or ".", label))
    else:
        check_model(checkable(proto, mapped), label)
    for tensor in external:
        if tensor.name in mapped:
            continue
        try:
            load_external_data_for_tensor(tensor, os.path.dirname(label) or ".")
            onnx.checker.check_tensor(tensor)
        except Exception as error:  # onnx: ValueError, OSError, ValidationError
            raise GEError(
                f"{label}: error: cannot read the external data of tensor "
                f"'{tensor.name}': {one_line(error)}"
            ) from None
    return proto, label, mapped


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
                f"{label}: error: invalid ONNX model: {one_line(error)}"
            ) from None
    check_opsets(model, label)


def check_opsets(model: onnx.ModelProto, label: str) -> None:
    """Reject opsets of the default domain this importer does not know."""
    newest = onnx.defs.onnx_opset_version()
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS and not 1 <= entry.version <= newest:
            raise GEError(
                f"{label}: error: opset {entry.version} of the default ONNX domain "
                f"is not supported (1 to {newest})"
            )


def check_model_file(model: onnx.ModelProto, label: str) -> None:
    """`check_model` of a model file with external data: the checker reads
    `label` and keeps the data's paths inside the model's folder."""
    check_graph_present(model, label)
    try:
        onnx.checker.check_model(label)
    except (onnx.checker.ValidationError, OSError) as error:
        raise GEError(
            f"{label}: error: invalid ONNX model: {one_line(error)}"
        ) from None


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
                f"{label}: error: invalid ONNX model: {one_line(error)}"
            ) from None


def onnx_tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
    """Every initializer and `Constant` value tensor, subgraphs included."""
    tensors: list[onnx.TensorProto] = []
    graphs = [model.graph]
    while graphs:
        graph = graphs.pop()
        tensors += graph.initializer
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.TENSOR:
                    tensors.append(attribute.t)
            graphs += node_subgraphs(node)
    return tensors


def check_tensor_sizes(model: onnx.ModelProto, label: str) -> None:
    """Each tensor's claimed size (dims x element size) within the memory
    budget, before its data is read."""
    for tensor in onnx_tensors(model):
        dtype = _dtype_name(tensor.data_type)
        itemsize = 8 if dtype in (None, "string") else np.dtype(dtype).itemsize
        what = f"tensor '{tensor.name}'"
        try:
            nbytes = tensor_bytes(tensor.dims, itemsize, f"{what} shape")
        except LimitError as error:
            raise GEError(f"{label}: error: {error}") from None
        check_bytes(nbytes, what, label)


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
        input_shapes: Mapping[str, InputShape],
        mapped: Mapping[str, np.ndarray] | None = None,
    ):
        self.graph = model.graph
        self.label = label
        self.mapped = mapped or {}
        """Initializers read in place (`onnx_mapped`), by name."""
        self.opset = default_opset(model)
        self.domain_opsets = {
            entry.domain: entry.version
            for entry in model.opset_import
            if entry.domain not in DEFAULT_DOMAINS
        }
        """The model's opset version of each other domain (`ai.onnx.preview`;
        ONNX-ML's, `ai.onnx.ml`, whose ops have their own converters:
        `onnx_ml.ML_CONVERTERS`)."""
        self.input_shapes = input_shapes
        self.env: dict[str, Structured | None] = {}
        """ONNX value name -> value (None: produced by an unsupported node)."""
        self.structured_inputs: list[StructuredValue] = []
        """The graph inputs that are sequences or absent optionals."""
        self.unsupported = UnsupportedOps()
        self.depth = 0
        """How many subgraphs deep the node being converted is."""
        self.untyped: dict[str, str] = {}
        """Import-time values of a dtype `ge` has no type for (string
        initializers and constants) -> that dtype: an error where used."""

    def error(self, message: str) -> GEError:
        """A one-line error about the model."""
        return GEError(f"{self.label}: error: {message}")

    def run(self, emitter: GraphEmitter) -> ImportedModel:
        """Import the graph into `emitter`'s builder."""
        initializers = {init.name: init for init in self.graph.initializer}
        for name, init in initializers.items():
            self._bind(emitter, name, self._initializer(init))
        input_names = self._add_inputs(emitter.builder, initializers)
        self._convert_nodes(self.graph, emitter)
        message = self.unsupported.message("ONNX", self._dynamic_inputs(input_names))
        if message is not None:
            raise self.error(message)
        output_names = [output.name for output in self.graph.output]
        if not output_names:
            raise self.error("the graph has no outputs")
        for name in output_names:
            if name in self.untyped and self.env.get(name) is None:
                raise self.error(
                    f"graph output '{name}' has dtype {self.untyped[name]}, which ge "
                    "has no type for"
                )
            if name not in self.env:
                raise self.error(f"graph output '{name}' is not produced by any node")
        outputs = [self.env[name] for name in output_names]
        for declared, value in zip(self.graph.output, outputs, strict=True):
            self._check_declared_output(declared, value)  # type: ignore[arg-type]
        tensors, names, structured = _flatten_outputs(output_names, outputs)  # type: ignore[arg-type]
        module = emitter.finish(tensors, names)
        graph = module.ops.first
        assert graph is not None
        record(graph, STRUCTURED_INPUTS, self.structured_inputs)
        record(graph, STRUCTURED_OUTPUTS, structured)
        return ImportedModel(module, emitter.weights, input_names, names)

    def _initializer(self, init: onnx.TensorProto) -> Value | None:
        """An initializer's array; None if `ge` has no type for its dtype or
        it holds strings (an error where a node reads it: string tensors are
        run-time values only, no constant holds them)."""
        if _dtype_name(init.data_type) in (None, "string"):
            self.untyped[init.name] = onnx.TensorProto.DataType.Name(init.data_type)
            return None
        if init.name in self.mapped and uses_external_data(init):
            return self.mapped[init.name]
        try:
            return numpy_helper.to_array(init)
        except (ValueError, TypeError) as error:
            raise self.error(
                f"initializer '{init.name}' is unreadable: {one_line(error)}"
            ) from None

    def _check_declared_output(
        self, declared: onnx.ValueInfoProto, value: Value
    ) -> None:
        """A graph output's declared dtype must be what the graph computes;
        declared dims that disagree with the computed ones are a warning
        (onnxruntime's too: exporters' shape annotations can be stale, a
        CNN+BiLSTM declaring `[1, -1]` for `[16, 1, 8210]`), the computed
        shape wins."""
        if not declared.type.HasField("tensor_type"):
            return
        if isinstance(value, SequenceValue | OptionalValue):
            raise self.error(
                f"graph output '{declared.name}' is declared a tensor, the graph "
                "computes a sequence or optional"
            )
        tensor = declared.type.tensor_type
        ours = dtype_name_of(value)
        if tensor.elem_type and _dtype_name(tensor.elem_type) != ours:
            kind = onnx.TensorProto.DataType.Name(tensor.elem_type)
            raise self.error(
                f"graph output '{declared.name}' is declared {kind}, the graph "
                f"computes {ours}"
            )
        if not tensor.HasField("shape"):
            return
        dims, shape = _declared_dims(tensor), shape_of(value)
        if len(dims) != len(shape) or any(
            -1 not in (d, s) and d != s for d, s in zip(dims, shape, strict=False)
        ):
            LOG.warning(
                "%s: graph output '%s' is declared with shape %s, the graph "
                "computes %s: the computed shape is used",
                self.label,
                declared.name,
                dims,
                list(shape),
            )

    def _bind(self, emitter: GraphEmitter, name: str, value: Structured | None) -> None:
        if isinstance(value, np.ndarray) and not _has_ge_dtype(value):
            self.untyped[name], value = f"{value.dtype}", None
        self.env[name] = value
        if isinstance(value, np.ndarray):
            emitter.name_array(value, name)

    # -- graph inputs ----------------------------------------------------------

    def _add_inputs(
        self, builder: GraphBuilder, initializers: Mapping[str, onnx.TensorProto]
    ) -> list[str]:
        """The graph inputs as `ge.data` (a sequence's elements each one);
        the names of the `ge.data`."""
        inputs = [v for v in self.graph.input if v.name not in initializers]
        check_input_names(self.label, self.input_shapes, [v.name for v in inputs])
        for position, value_info in enumerate(inputs):
            name = value_info.name
            proto = value_info.type
            if proto.HasField("optional_type"):
                self.env[name] = self._optional_input(builder, name, proto, position)
            else:
                given = self.input_shapes.get(name)
                self.env[name] = self._input(builder, name, proto, given, position)
        return [
            str(op.attributes["name"].data)  # type: ignore[attr-defined]
            for op in builder.block.ops
            if op.name == "ge.data"
        ]

    def _optional_input(
        self, builder: GraphBuilder, name: str, proto: onnx.TypeProto, position: int
    ) -> OptionalValue:
        """An optional input: absent (`--input_shape NAME:none`) or its element."""
        inner = proto.optional_type.elem_type
        given = self.input_shapes.get(name)
        if given is None:
            raise self.error(
                f"graph input '{name}' is an optional; say whether it holds a "
                f"value with --input_shape {name}:DIMS (a sequence: "
                f"{name}:([DIMS],...)) or {name}:none{self._readers(name)}"
            )
        if isinstance(given, StructuredShape) and given.items is None:
            self.structured_inputs.append(StructuredValue(name, NONE_KIND, position))
            return OptionalValue(None, type_proto_string(inner))
        element = self._input(builder, name, inner, given, position)
        return OptionalValue(element, type_proto_string(inner))  # type: ignore[arg-type]

    def _input(
        self,
        builder: GraphBuilder,
        name: str,
        proto: onnx.TypeProto,
        given: InputShape | None,
        position: int,
    ) -> Value | SequenceValue:
        """A tensor or sequence input (`given`: its `--input_shape`)."""
        if not proto.HasField("sequence_type"):
            shape, dtype = self._input_type(name, proto, given)
            return builder.data(shape, dtype, name=name)
        element = proto.sequence_type.elem_type
        if not isinstance(given, StructuredShape) or given.items is None:
            raise self.error(
                f"graph input '{name}' is a sequence; give its elements' shapes "
                f"with --input_shape {name}:([D1,D2],[D3],...){self._readers(name)}"
            )
        items, names = [], []
        dtype = "float32"
        for index, dims in enumerate(given.items):
            names.append(item_name(name, index))
            shape, dtype = self._input_type(names[-1], element, list(dims))
            items.append(builder.data(shape, dtype, name=names[-1]))
        if not items:
            dtype = self._dtype(name, element)
        self.structured_inputs.append(
            StructuredValue(name, SEQUENCE_KIND, position, tuple(names))
        )
        return SequenceValue(tuple(items), dtype)

    def _dtype(self, name: str, proto: onnx.TypeProto) -> str:
        """The dtype of tensor type `proto` of input `name`."""
        if not proto.HasField("tensor_type"):
            kind = proto.WhichOneof("value") or "untyped"
            raise self.error(
                f"graph input '{name}' has type {kind.removesuffix('_type')}, not "
                f"tensor{self._readers(name)}"
            )
        dtype = _dtype_name(proto.tensor_type.elem_type)
        if dtype is None:
            kind = onnx.TensorProto.DataType.Name(proto.tensor_type.elem_type)
            raise self.error(
                f"graph input '{name}' has unsupported dtype {kind}"
                f"{self._readers(name)}"
            )
        return dtype

    def _input_type(
        self, name: str, proto: onnx.TypeProto, given: InputShape | None
    ) -> tuple[list[int], str]:
        """The shape and dtype of tensor input `name` (`given`: its
        `--input_shape`)."""
        dtype = self._dtype(name, proto)
        tensor = proto.tensor_type
        if not tensor.HasField("shape"):
            if given is None:
                raise self.error(
                    f"graph input '{name}' has an unknown rank; give its shape"
                )
            return fix_input_shape(self.label, name, None, given), dtype
        for axis, dim in enumerate(tensor.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value < -1:
                raise self.error(
                    f"graph input '{name}' has dim {axis} = {dim.dim_value} (a dim "
                    "is >= 0, or -1 or no dim_value when dynamic)"
                )
        shape = _declared_dims(tensor)
        if given is not None:
            shape = fix_input_shape(self.label, name, shape, given)
        return shape, dtype

    def _dynamic_inputs(self, input_names: Sequence[str]) -> str:
        """The graph inputs with dynamic dims as `--input_shape` would fix
        them, a dynamic dim by its name (`input_ids:batch,seq;...`)."""
        declared = {v.name: v.type.tensor_type.shape.dim for v in self.graph.input}
        entries = []
        for name in input_names:
            if name not in declared or not isinstance(self.env.get(name), SSAValue):
                continue
            shape = shape_of(self.env[name])  # type: ignore[arg-type]
            if -1 not in shape:
                continue
            dims = [
                str(size) if size != -1 else (dim.dim_param or "?")
                for size, dim in zip(shape, declared[name], strict=True)
            ]
            entries.append(f"{name}:{','.join(dims)}")
        return ";".join(entries)

    def _readers(self, name: str) -> str:
        """` (read by Op1, Op2)`: the op types of the nodes reading `name`."""
        readers = dict.fromkeys(n.op_type for n in self.graph.node if name in n.input)
        return f" (read by {', '.join(readers)})" if readers else ""

    # -- nodes -----------------------------------------------------------------

    def _convert_nodes(self, graph: onnx.GraphProto, emitter: GraphEmitter) -> None:
        consumed = {output.name for output in graph.output}
        for node in graph.node:
            consumed.update(node.input)
            for sub in node_subgraphs(node):
                consumed.update(free_names(sub))
        for node in graph.node:
            self._convert(node, consumed, emitter)

    def _run_graph(
        self,
        graph: onnx.GraphProto,
        env: dict[str, Value | None],
        emitter: GraphEmitter,
    ) -> list[Value]:
        """Convert `graph` (a subgraph) with the values of `env` in scope."""
        if self.depth >= MAX_NESTING:
            raise ValueError(f"subgraphs nested deeper than {MAX_NESTING} levels")
        saved, self.env = self.env, env
        self.depth += 1
        try:
            for init in graph.initializer:
                self._bind(emitter, init.name, self._initializer(init))
            self._convert_nodes(graph, emitter)
            outputs = [self.env.get(output.name) for output in graph.output]
        finally:
            self.env = saved
            self.depth -= 1
        if any(value is None for value in outputs):
            raise Downstream
        return outputs  # type: ignore[return-value]

    def inline(self, graph: onnx.GraphProto, emitter: GraphEmitter) -> list[Value]:
        """`SubgraphImporter.inline`: the graph's nodes join the current graph."""
        return self._run_graph(graph, dict(self.env), emitter)

    def body(
        self, graph: onnx.GraphProto, emitter: GraphEmitter, bound: Mapping[str, Value]
    ) -> list[Value]:
        """`SubgraphImporter.body`: the graph's nodes in a region of their own."""
        return self._run_graph(graph, dict(bound), emitter)

    def lookup(self, name: str) -> Value | None:
        """`SubgraphImporter.lookup`."""
        if name not in self.env:
            raise self.error(f"a subgraph reads '{name}', which nothing defines")
        return self.env[name]

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
        for input_name in node.input:
            if input_name in self.untyped and self.env.get(input_name) is None:
                raise self.error(
                    f"node '{name}' ({node.op_type}) reads '{input_name}' of dtype "
                    f"{self.untyped[input_name]}, which ge has no type for"
                )
        inputs = [self.env[n] if n else None for n in node.input]
        default_domain = node.domain in DEFAULT_DOMAINS
        qualified = node.op_type if default_domain else f"{node.domain}.{node.op_type}"
        opset = self._domain_opset(node)
        if default_domain:
            converter = CONVERTERS.get(node.op_type)
        else:
            converter = DOMAIN_CONVERTERS.get(node.domain, {}).get(node.op_type)
            if converter is not None and opset is None:
                opset = 1  # a domain the model uses without importing it
        downstream = any(
            n and v is None for n, v in zip(node.input, inputs, strict=True)
        )
        if downstream and (
            converter or (opset is not None and defines_function(node, opset))
        ):
            return self._skip(node, None)  # downstream of an unsupported node
        if converter is None:
            body = None if opset is None else self._function_body(node, inputs, opset)
            if body is None:
                return self._skip(node, qualified)
            return self._convert_body(body, consumed, emitter)
        used = [bool(output) and output in consumed for output in node.output]
        try:
            check_input_types(node, inputs, opset)
        except ValueError as error:
            raise self.error(f"node '{name}' ({node.op_type}): {error}") from None
        ctx = NodeContext(inputs, used, emitter, node=node, opset=opset, subgraphs=self)
        try:
            results = folded_within_budget(converter(ctx))
            track_entries(ctx, results)
        except Unsupported as reason:
            return self._skip(node, f"{qualified} {reason}")
        except Downstream:
            return self._skip(node, None)
        except CONVERSION_ERRORS as error:
            raise self.error(
                f"node '{name}' ({node.op_type}): {one_line(error)}"
            ) from None
        missing = [i for i in range(len(results), len(used)) if used[i]]
        if missing:
            return self._skip(node, f"{node.op_type} with output #{missing[0]}")
        for output, value in zip(node.output, results, strict=False):
            if output:
                self._bind(emitter, output, value)

    def _domain_opset(self, node: onnx.NodeProto) -> int | None:
        """The opset version the model imports `node`'s domain at (None: it
        does not import it)."""
        if node.domain in DEFAULT_DOMAINS:
            return self.opset
        return self.domain_opsets.get(node.domain)

    def _function_body(
        self, node: onnx.NodeProto, inputs: Sequence[Value | None], opset: int
    ) -> FunctionBody | None:
        """The body of the ONNX function defining `node` at its domain's
        `opset`, if there is one (input types it is built for: those known,
        empty otherwise)."""
        types = [
            onnx.helper.make_tensor_type_proto(
                onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype_name_of(value))),
                [None if d < 0 else d for d in shape_of(value)],
            )
            if isinstance(value, SSAValue | np.ndarray)
            else onnx.TypeProto()
            for value in inputs
        ]
        return function_body(node, opset, types, default_opset=self.opset)

    def _convert_body(
        self, body: FunctionBody, consumed: set[str], emitter: GraphEmitter
    ) -> None:
        """Convert a function body's nodes, with the body's opset."""
        consumed = consumed | {name for node in body.nodes for name in node.input}
        saved, self.opset = self.opset, body.opset
        try:
            for node in body.nodes:
                self._convert(node, consumed, emitter)
        finally:
            self.opset = saved

    def _skip(self, node: onnx.NodeProto, kind: str | None) -> None:
        """Record an unsupported node (kind None: downstream of one) and go on."""
        if kind is not None:
            dynamic = any(
                isinstance(self.env.get(name), Value) and -1 in shape_of(self.env[name])
                for name in node.input
                if name
            )
            self.unsupported.add(kind, node_name(node), dynamic)
        for output in node.output:
            if output:
                self.env[output] = None


def _has_ge_dtype(array: np.ndarray) -> bool:
    try:
        element_type(array.dtype.name)
    except (KeyError, TypeError, ValueError):
        return False
    return True


def _declared_dims(tensor: onnx.TypeProto.Tensor) -> list[int]:
    """A declared tensor type's dims, -1 for each dynamic one."""
    return [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]


def _dtype_name(onnx_type: int) -> str | None:
    """The dtype name of an ONNX element type, or None if `ge` has no such type."""
    if onnx_type == onnx.TensorProto.STRING:
        return "string"
    try:
        name = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(onnx_type)).name
        element_type(name)
    except (KeyError, TypeError, ValueError):
        return None
    return name


def _flatten_outputs(
    names: Sequence[str], values: Sequence[Structured]
) -> tuple[list[Value], list[str], list[StructuredValue]]:
    """The graph outputs as tensors and their names: a sequence's elements
    (`y[0]`, ...), a present optional's element, nothing for an absent one;
    and the outputs that are sequences or absent optionals."""
    tensors: list[Value] = []
    flat: list[str] = []
    structured: list[StructuredValue] = []
    for position, (name, value) in enumerate(zip(names, values, strict=True)):
        inner = value.element if isinstance(value, OptionalValue) else value
        if isinstance(value, OptionalValue) and value.presence is not None:
            kind = OPTIONAL_KIND
            items = [item_name(name, "present"), name]
            if isinstance(inner, SequenceValue):
                kind = OPTIONAL_SEQUENCE_KIND
                items[1:] = [item_name(name, i) for i in range(len(inner.items))]
            structured.append(StructuredValue(name, kind, position, tuple(items)))
            flat += items
        elif inner is None:
            structured.append(StructuredValue(name, NONE_KIND, position))
        elif isinstance(inner, RaggedSequence):
            items = tuple(item_name(name, p) for p in ("values", "shapes", "length"))
            structured.append(StructuredValue(name, RAGGED_KIND, position, items))
            flat += items
        elif isinstance(inner, SequenceValue):
            items = tuple(item_name(name, i) for i in range(len(inner.items)))
            structured.append(StructuredValue(name, SEQUENCE_KIND, position, items))
            flat += items
        else:
            flat.append(name)
        tensors += leaves(value)
    return tensors, flat, structured
