"""Import TensorFlow frozen graphs as `ge` graphs (ATC's `--framework=3` parser).

```python
imported = import_tensorflow("frozen.pb", input_shapes={"input": [1, 224, 224, 3]})
imported.module    # builtin.module { ge.graph @main { ... } }, verified
imported.weights   # {"conv1/kernel": array, ...}: data of the #ge.external consts
```

**Parsing.** A frozen graph is a `tensorflow.GraphDef` protobuf (a binary
`.pb`; `.pbtxt` text is read too). It is parsed with TensorFlow's own message
definitions as compiled in the `tensorboard` package
(`tensorboard.compat.proto`): the same `.proto` files TensorFlow is built
from, kept in step with each TensorFlow release by the TensorFlow team, and
needing only `protobuf` at run time. The `tensorflow` package would give the
same classes, but importing it costs seconds on every compile and its
install is half a gigabyte, while the compiler runs no TensorFlow code.
It is the optional dependency `pip install 'ge-xdsl[tensorflow]'`; without
it, reading a TensorFlow model is a one-line error saying so. (The tests
build their models with `tensorflow-cpu`, a test dependency.)

How the GraphDef maps onto `ge`:

- `Placeholder` nodes become `ge.data` (`index` in GraphDef order, `name`
  the node name); the shape comes from the `shape` attribute (unknown dims
  are `?`) unless `input_shapes` fixes it (ATC's `--input_shape`);
- `Const` values are known at import time, and every op computed only from
  known values is folded (so `Shape -> StridedSlice -> Pack -> Reshape`
  vanishes, and so does Keras' batch-norm arithmetic on its parameters);
  constants above `inline_limit` elements become `#ge.external<"node name">`;
- a data input `name:N` is output N of node `name` (`name` is output 0);
  control inputs `^name` only order side effects inside TensorFlow and are
  dropped, so a `NoOp` gathering hundreds of them is never reached;
- the outputs are `out_nodes` (ATC's `--out_nodes="name:0;other:1"`) or, by
  default, every output of the nodes nothing reads. Only the nodes they
  depend on are converted, in dependency order (a GraphDef need not be
  sorted), by `tf_ops.CONVERTERS`: an unsupported op elsewhere does not
  matter. Each op carries its node's name; the `ge.netoutput`'s
  `output_names` are TensorFlow tensor names (`Identity:0`).

Errors are one-line `GEError`s: unreadable files, dangling references,
cycles, and a single error listing every unsupported op type with its nodes.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError, Message

from ge_dialect.builder import GraphBuilder
from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import read_input_bytes
from ge_dialect.limits import DEFAULT_INLINE_LIMIT
from ge_frontend.importing import (
    CONVERSION_ERRORS,
    WEIGHT_MODES,
    GraphEmitter,
    ImportedModel,
    Unsupported,
    UnsupportedOps,
    Value,
    check_input_names,
    errors_located_in,
    fix_input_shape,
    folded_within_budget,
    one_line,
)
from ge_frontend.tf_context import (
    DTYPES,
    GraphDef,
    NodeDef,
    TFNodeContext,
    parse_input,
    shape_dims,
    type_name,
)
from ge_frontend.tf_ops import CONVERTERS

TEXT_SUFFIXES = (".pbtxt", ".txt")
"""Model files read as protobuf text."""

TensorRef = tuple[str, int]
"""Output `index` of node `name`."""


def import_tensorflow(
    model: str | os.PathLike[str] | Message,
    *,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    out_nodes: Sequence[TensorRef] | None = None,
    weights: str = "external",
    inline_limit: int = DEFAULT_INLINE_LIMIT,
    graph_name: str = "main",
    verify: bool = True,
) -> ImportedModel:
    """Import a frozen TensorFlow graph (`GraphDef`, or a `.pb`/`.pbtxt` file).

    `input_shapes` fixes placeholder shapes, `out_nodes` picks the outputs
    (`[("Identity", 0)]`; default: the outputs nothing reads);
    `weights="inline"` keeps every constant inside the IR; `verify=False`
    leaves verifying the module to the caller (`GraphEmitter.verify`).
    """
    if weights not in WEIGHT_MODES:
        raise GEError(f"error: weights must be one of {', '.join(WEIGHT_MODES)}")
    graph, label = load_graph_def(model)
    importer = TFImporter(graph, label, input_shapes or {})
    emitter = GraphEmitter(
        GraphBuilder(graph_name), weights, inline_limit, verify=verify
    )
    with errors_located_in(label):
        return importer.run(emitter, out_nodes)


def load_graph_def(
    model: str | os.PathLike[str] | Message,
) -> tuple[GraphDef, str]:
    """The parsed `GraphDef` and a label for messages (the file path).

    A `GraphDef` message from another copy of TensorFlow's protos (e.g.
    `tensorflow`'s own, package `tensorflow` where tensorboard's copy says
    `tensorboard`) is taken too: the wire format is the same.
    """
    if isinstance(model, Message):
        if model.DESCRIPTOR.name != GraphDef.DESCRIPTOR.name:
            raise GEError(
                f"error: expected a tensorflow.GraphDef, got a "
                f"{model.DESCRIPTOR.full_name}"
            )
        graph, label = model, "<tensorflow graph>"
        if not isinstance(graph, GraphDef):
            graph = GraphDef.FromString(model.SerializeToString())
    else:
        label = os.fspath(model)
        if os.path.isdir(label):
            raise GEError(
                f"error: cannot open TensorFlow model '{label}': is a directory "
                "(a SavedModel must be frozen into a GraphDef first, e.g. with "
                "convert_variables_to_constants_v2)"
            )
        if not os.path.exists(label):
            raise GEError(
                f"error: cannot open TensorFlow model '{label}': no such file"
            )
        data = read_input_bytes(label, "TensorFlow model")
        graph = GraphDef()
        try:
            if label.endswith(TEXT_SUFFIXES):
                text_format.Parse(data.decode(), graph)
            else:
                graph.ParseFromString(data)
        except DecodeError:
            raise GEError(
                f"{label}: error: not a readable TensorFlow GraphDef (the protobuf "
                "wire format is corrupt)"
            ) from None
        except (text_format.ParseError, UnicodeDecodeError) as error:
            raise GEError(
                f"{label}: error: not a readable TensorFlow GraphDef: {one_line(error)}"
            ) from None
    if not graph.node:
        raise GEError(f"{label}: error: not a TensorFlow GraphDef (it has no nodes)")
    return graph, label


def parse_out_nodes(text: str) -> list[TensorRef]:
    """ATC's `--out_nodes` syntax: `"name:0;other:1"` (`name` alone is `name:0`)."""
    refs = [parse_input(item.strip()) for item in text.split(";") if item.strip()]
    if not refs or any(not name for name, _ in refs):
        raise GEError(f"error: bad --out_nodes '{text}' (expected NAME:INDEX;...)")
    return refs


class TFImporter:
    """Converts the part of one GraphDef that its outputs need into a `ge` graph."""

    def __init__(
        self, graph: GraphDef, label: str, input_shapes: Mapping[str, Sequence[int]]
    ):
        self.label = label
        self.input_shapes = input_shapes
        self.nodes: dict[str, NodeDef] = {}
        for node in graph.node:
            if not node.name or not node.op:
                raise self.error(f"a node has no {'name' if not node.name else 'op'}")
            if node.name in self.nodes:
                raise self.error(f"two nodes are named '{node.name}'")
            self.nodes[node.name] = node
        self.position = {name: i for i, name in enumerate(self.nodes)}
        self.data_inputs: dict[str, list[TensorRef]] = {}
        for node in graph.node:
            refs = []
            for reference in node.input:
                source = reference[1:] if reference.startswith("^") else reference
                ref = parse_input(source)
                if ref[0] not in self.nodes:
                    raise self.error(
                        f"node '{node.name}' ({node.op}) reads '{reference}', which "
                        "no node defines"
                    )
                if not reference.startswith("^"):
                    refs.append(ref)
            self.data_inputs[node.name] = refs
        self.env: dict[str, list[Value] | None] = {}
        """Node name -> its output values (None: unsupported, or downstream of it)."""
        self.unsupported = UnsupportedOps()

    def error(self, message: str) -> GEError:
        """A one-line error about the model."""
        return GEError(f"{self.label}: error: {message}")

    def run(
        self, emitter: GraphEmitter, out_nodes: Sequence[TensorRef] | None
    ) -> ImportedModel:
        """Import the nodes `out_nodes` (default: the sinks) need into `emitter`."""
        for name, _ in out_nodes or ():
            if name not in self.nodes:
                raise self.error(f"out node '{name}' is not in the graph")
        roots = [name for name, _ in out_nodes] if out_nodes else self._sinks()
        needed = self._needed(roots)
        order = self._dependency_order(needed)
        used = self._used_outputs(needed, out_nodes or ())
        placeholders = [n for n in self.nodes if self.nodes[n].op == "Placeholder"]
        check_input_names(self.label, self.input_shapes, placeholders)
        input_names = [name for name in placeholders if name in needed]
        for name in input_names:
            self.env[name] = [self._add_input(emitter.builder, self.nodes[name])]
        for name in order:
            if name not in self.env:
                self._convert(self.nodes[name], used.get(name, set()), emitter)
        if (message := self.unsupported.message("TensorFlow")) is not None:
            raise self.error(message)
        refs = list(out_nodes) if out_nodes else self._sink_outputs(roots)
        if not refs:
            raise self.error("the graph has no outputs (give --out_nodes)")
        outputs = []
        for name, index in refs:
            results = self.env[name]
            assert results is not None  # unsupported nodes raised above
            outputs.append(results[index])
        output_names = [f"{name}:{index}" for name, index in refs]
        module = emitter.finish(outputs, output_names)
        return ImportedModel(module, emitter.weights, input_names, output_names)

    # -- graph structure -------------------------------------------------------

    def _sinks(self) -> list[str]:
        """Nodes nothing reads, through data or control inputs."""
        read = {
            parse_input(ref.removeprefix("^"))[0]
            for node in self.nodes.values()
            for ref in node.input
        }
        return [name for name in self.nodes if name not in read]

    def _sink_outputs(self, sinks: Iterable[str]) -> list[TensorRef]:
        return [
            (name, index)
            for name in sinks
            for index in range(len(self.env[name] or ()))
        ]

    def _needed(self, roots: Iterable[str]) -> set[str]:
        """`roots` and every node they read through data inputs."""
        needed: set[str] = set()
        stack = list(roots)
        while stack:
            name = stack.pop()
            if name not in needed:
                needed.add(name)
                stack.extend(source for source, _ in self.data_inputs[name])
        return needed

    def _dependency_order(self, needed: set[str]) -> list[str]:
        """`needed` with producers first (GraphDef order among the ready ones)."""
        waiting = {name: 0 for name in needed}
        readers: dict[str, list[str]] = {name: [] for name in needed}
        for name in needed:
            for source in dict.fromkeys(s for s, _ in self.data_inputs[name]):
                waiting[name] += 1
                readers[source].append(name)
        ready = [(self.position[n], n) for n, count in waiting.items() if not count]
        heapq.heapify(ready)
        order = []
        while ready:
            _, name = heapq.heappop(ready)
            order.append(name)
            for reader in readers[name]:
                waiting[reader] -= 1
                if not waiting[reader]:
                    heapq.heappush(ready, (self.position[reader], reader))
        if len(order) < len(needed):
            self._report_cycle([n for n in self.nodes if n in needed and waiting[n]])
        return order

    def _report_cycle(self, stuck: list[str]) -> None:
        """Nodes on or after a cycle: unsupported ops (a TF1 loop), or an error."""
        for name in stuck:
            node = self.nodes[name]
            if node.op not in CONVERTERS and node.op != "Placeholder":
                self.unsupported.add(node.op, name)
        message = self.unsupported.message("TensorFlow")
        if message is None:
            shown = ", ".join(stuck[:5]) + (", ..." if len(stuck) > 5 else "")
            message = f"the graph has a cycle (nodes on or after it: {shown})"
        raise self.error(message)

    def _used_outputs(
        self, needed: set[str], out_nodes: Iterable[TensorRef]
    ) -> dict[str, set[int]]:
        used: dict[str, set[int]] = {}
        for name in needed:
            for source, index in self.data_inputs[name]:
                used.setdefault(source, set()).add(index)
        for name, index in out_nodes:
            used.setdefault(name, set()).add(index)
        return used

    # -- graph inputs ----------------------------------------------------------

    def _add_input(self, builder: GraphBuilder, node: NodeDef) -> Value:
        """`ge.data` for a `Placeholder` (the next index)."""
        name = node.name
        if "dtype" not in node.attr:
            raise self.error(f"graph input '{name}' has no dtype")
        dtype = DTYPES.get(node.attr["dtype"].type)
        if dtype is None:
            kind = type_name(node.attr["dtype"].type)
            raise self.error(f"graph input '{name}' has unsupported dtype {kind}")
        shape = shape_dims(node.attr["shape"].shape) if "shape" in node.attr else None
        for axis, size in enumerate(node.attr["shape"].shape.dim if shape else ()):
            if size.size < -1:
                raise self.error(
                    f"graph input '{name}' has dim {axis} = {size.size} (a dim is "
                    ">= 0, or -1 when unknown)"
                )
        given = self.input_shapes.get(name)
        if shape is None and given is None:
            raise self.error(
                f"graph input '{name}' has an unknown rank; give its shape "
                "(--input_shape)"
            )
        if given is not None:
            shape = fix_input_shape(self.label, name, shape, given)
        return builder.data(shape, dtype, name=name)

    # -- nodes -----------------------------------------------------------------

    def _convert(self, node: NodeDef, used: set[int], emitter: GraphEmitter) -> None:
        name = node.name
        converter = CONVERTERS.get(node.op)
        if converter is None:
            return self._skip(node, node.op)
        sources = [self.env[source] for source, _ in self.data_inputs[name]]
        if any(results is None for results in sources):
            return self._skip(node, None)  # downstream of an unsupported node
        for results, (source, index) in zip(
            sources, self.data_inputs[name], strict=True
        ):
            if index >= len(results):  # type: ignore[arg-type]
                raise self.error(
                    f"node '{name}' ({node.op}) reads '{source}:{index}', but "
                    f"'{source}' ({self.nodes[source].op}) has "
                    f"{len(results)} output(s)"  # type: ignore[arg-type]
                )
        inputs: list[Value | None] = [
            results[index]  # type: ignore[index]
            for results, (_, index) in zip(sources, self.data_inputs[name], strict=True)
        ]
        outputs_used = [i in used for i in range(max(used, default=-1) + 1)]
        context = TFNodeContext(inputs, outputs_used, emitter, node=node)
        try:
            results = folded_within_budget(converter(context))
        except Unsupported as reason:
            return self._skip(node, f"{node.op} {reason}")
        except CONVERSION_ERRORS as error:
            raise self.error(f"node '{name}' ({node.op}): {one_line(error)}") from None
        missing = [i for i in sorted(used) if i >= len(results)]
        if missing:
            raise self.error(
                f"node '{name}' ({node.op}) has no output {missing[0]} (it has "
                f"{len(results)})"
            )
        for index, value in enumerate(results):
            if isinstance(value, np.ndarray):
                emitter.name_array(value, name if index == 0 else f"{name}:{index}")
        self.env[name] = results

    def _skip(self, node: NodeDef, kind: str | None) -> None:
        """Record an unsupported node (kind None: downstream of one) and go on."""
        if kind is not None:
            self.unsupported.add(kind, node.name)
        self.env[node.name] = None
