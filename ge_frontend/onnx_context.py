"""What an ONNX op converter sees: its node, its inputs and a way to emit `ge` ops.

The framework-neutral half (import-time arrays or run-time values, constant
folding, `ge.const` pooling) is `ge_frontend.importing`; this adds the ONNX
node, its opset and its attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import onnx
from onnx import numpy_helper

from ge_frontend.importing import ConverterContext, GraphEmitter, Value


class Downstream(Exception):
    """A node that reads the result of an unsupported node (also inside one of
    its subgraphs); the driver reports the unsupported node only."""


def node_subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    """The graphs among a node's attributes (If's branches, Loop's body, ...)."""
    graphs: list[onnx.GraphProto] = []
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            graphs.append(attribute.g)
        elif attribute.type == onnx.AttributeProto.GRAPHS:
            graphs.extend(attribute.graphs)
    return graphs


def free_names(graph: onnx.GraphProto) -> list[str]:
    """The outer-scope values a graph reads (nested subgraphs included), in
    order of first use: ONNX subgraphs see every value of enclosing graphs."""
    defined = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    free: list[str] = []
    for node in graph.node:
        nested = [name for sub in node_subgraphs(node) for name in free_names(sub)]
        for name in (*node.input, *nested):
            if name and name not in defined and name not in free:
                free.append(name)
        defined.update(output for output in node.output if output)
    for output in graph.output:
        if output.name not in defined and output.name not in free:
            free.append(output.name)
    return free


class SubgraphImporter(Protocol):
    """What the driver offers the converters of ops with graph attributes."""

    def inline(self, graph: onnx.GraphProto, emitter: GraphEmitter) -> list[Value]:
        """Import `graph`'s nodes into `emitter`'s graph, seeing the enclosing
        values; its outputs."""
        ...

    def body(
        self,
        graph: onnx.GraphProto,
        emitter: GraphEmitter,
        bound: Mapping[str, Value],
    ) -> list[Value]:
        """Import `graph` as a region body: `bound` holds every value it can
        see (its inputs and the outer values it reads); its outputs."""
        ...

    def lookup(self, name: str) -> Value | None:
        """The enclosing scope's value `name` (None: downstream of an
        unsupported node)."""
        ...


def node_name(node: onnx.NodeProto) -> str:
    """An ONNX node's name; its first named output's name when it has none
    (its op type when no output is named either)."""
    return node.name or next((o for o in node.output if o), node.op_type)


PER_AXIS = {
    "strides": 1,
    "dilations": 1,
    "output_padding": 1,
    "pads": 2,
}
"""How many values ONNX's per-spatial-axis attributes hold for each axis
(`NodeContext.per_axis` checks their length, for every op that has them)."""


@dataclass
class NodeContext(ConverterContext):
    """One ONNX node being converted: attributes, inputs and `op` to emit."""

    node: onnx.NodeProto = field(kw_only=True)
    opset: int = field(kw_only=True)
    subgraphs: SubgraphImporter | None = field(default=None, kw_only=True)
    """How to import the node's graph attributes (set by the driver)."""

    @property
    def name(self) -> str:
        """The node's name (its first output's name when it has none)."""
        return node_name(self.node)

    @property
    def num_outputs(self) -> int:
        """How many outputs the node declares."""
        return len(self.node.output)

    def attr(self, name: str, default: Any = None) -> Any:
        """Attribute `name` as a Python value (bytes decoded), or `default`."""
        for attribute in self.node.attribute:
            if attribute.name == name:
                value = onnx.helper.get_attribute_value(attribute)
                if isinstance(value, bytes):
                    return value.decode()
                if isinstance(value, onnx.TensorProto):
                    return numpy_helper.to_array(value)
                if isinstance(value, list):
                    return [v.decode() if isinstance(v, bytes) else v for v in value]
                return value
        return default

    def per_axis(self, name: str, axes: int, fill: int) -> list[int]:
        """Integer attribute `name` with `PER_AXIS[name]` values for each of
        `axes` spatial axes (`fill` each when absent); ValueError naming the
        attribute when its length is not that (a 2-D Conv's `pads` is 4)."""
        per = PER_AXIS[name]
        value = self.attr(name)
        if value is None:
            return [fill] * per * axes
        if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
            raise ValueError(f"attribute '{name}' must be a list of integers")
        if len(value) != per * axes:
            each = " (a begin and an end per axis)" if per == 2 else ""
            raise ValueError(
                f"attribute '{name}' has {len(value)} values, {axes} spatial "
                f"axes need {per * axes}{each}"
            )
        return value

    def has_attr(self, name: str) -> bool:
        """Whether the node sets attribute `name`."""
        return any(attribute.name == name for attribute in self.node.attribute)

    def graph(self, name: str) -> onnx.GraphProto:
        """Required graph attribute `name`."""
        for attribute in self.node.attribute:
            if attribute.name == name and attribute.type == onnx.AttributeProto.GRAPH:
                return attribute.g
        raise ValueError(f"graph attribute '{name}' is missing")
