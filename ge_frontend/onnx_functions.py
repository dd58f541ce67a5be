"""ONNX ops defined as functions: imported as their function body.

Many ONNX ops (LayerNormalization, Attention, the losses, Celu, Range,
`ai.onnx.preview`'s FlexAttention, ...) are defined by ONNX itself as a
*function*: a body of other ONNX ops, for the opset the model uses,
sometimes built from the node's attributes and input types (a
context-dependent function). An op the importer has no
converter for, but which ONNX defines as a function, imports as that body,
exactly as ONNX specifies it (what the backend suite's `*_expanded` cases
run): the body's nodes are renamed into the node's namespace (`NODE/name`),
its formal inputs and outputs bound to the node's, attribute references
resolved from the node's attributes or the schema's defaults, and each body
node then imports like any other node, with the body's own opset.

```python
body = function_body(node, opset=18, input_types=[...])   # FunctionBody | None
body.nodes      # the renamed NodeProtos
body.opset      # the default-domain opset the body is written for
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import onnx
from onnx import AttributeProto, FunctionProto, NodeProto, TypeProto


@dataclass(frozen=True)
class FunctionBody:
    """A node's function body: its nodes (renamed) and their opset."""

    nodes: list[NodeProto]
    opset: int


DEFAULT_DOMAINS = ("", "ai.onnx")


def function_body(
    node: NodeProto,
    opset: int,
    input_types: Sequence[TypeProto],
    default_opset: int | None = None,
) -> FunctionBody | None:
    """The function body ONNX defines `node` by at `opset` (the version of
    the node's domain), if it has one.

    A body that names no default-domain opset (a function of another domain,
    such as `ai.onnx.preview`'s FlexAttention) reads its ONNX ops at
    `default_opset`, the model's (else at `opset`).
    """
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    except onnx.defs.SchemaError:
        return None
    function = _function(schema, node, opset, input_types)
    if function is None:
        return None
    body_opset = next(
        (
            entry.version
            for entry in function.opset_import
            if entry.domain in DEFAULT_DOMAINS
        ),
        opset if default_opset is None else default_opset,
    )
    attributes = {a.name: a for a in node.attribute}
    for name, attribute in schema.attributes.items():
        default = attribute.default_value
        if name not in attributes and default.type != AttributeProto.UNDEFINED:
            attributes[name] = default
    prefix = f"{node.name or next((o for o in node.output if o), node.op_type)}/"
    names = {
        formal: actual
        for formal, actual in zip(function.input, node.input, strict=False)
    }
    names.update(
        (formal, actual)
        for formal, actual in zip(function.output, node.output, strict=False)
        if actual
    )

    def rename(name: str) -> str:
        if not name:
            return ""
        return names.get(name, prefix + name)

    nodes = [_renamed(inner, rename, attributes, prefix) for inner in function.node]
    return FunctionBody(nodes, body_opset)


def defines_function(node: NodeProto, opset: int) -> bool:
    """Whether ONNX defines `node` by a function body at `opset`."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    except onnx.defs.SchemaError:
        return False
    versions = (
        *schema.function_opset_versions,
        *schema.context_dependent_function_opset_versions,
    )
    return any(v <= opset for v in versions)


def _function(
    schema: onnx.defs.OpSchema,
    node: NodeProto,
    opset: int,
    input_types: Sequence[TypeProto],
) -> FunctionProto | None:
    """The schema's function for `opset` (the newest not after it)."""
    plain = [v for v in schema.function_opset_versions if v <= opset]
    dependent = [
        v for v in schema.context_dependent_function_opset_versions if v <= opset
    ]
    if not plain and not dependent:
        return None
    function = FunctionProto()
    if dependent and (not plain or max(dependent) >= max(plain)):
        data = schema.get_context_dependent_function_with_opset_version(
            max(dependent),
            node.SerializeToString(),
            [t.SerializeToString() for t in input_types],
        )
    else:
        data = schema.get_function_with_opset_version(max(plain))
    if not data:
        return None
    function.ParseFromString(data)
    return function


def _renamed(
    inner: NodeProto,
    rename: object,
    attributes: dict[str, AttributeProto],
    prefix: str,
) -> NodeProto:
    """A body node with its edges renamed and attribute references resolved."""
    node = NodeProto()
    node.CopyFrom(inner)
    del node.input[:]
    del node.output[:]
    del node.attribute[:]
    node.input.extend(rename(name) for name in inner.input)  # type: ignore[operator]
    node.output.extend(rename(name) for name in inner.output)  # type: ignore[operator]
    node.name = prefix + (
        inner.name or next((o for o in inner.output if o), inner.op_type)
    )
    for attribute in inner.attribute:
        if attribute.ref_attr_name:
            if attribute.ref_attr_name not in attributes:
                continue  # an optional attribute the node leaves out
            resolved = AttributeProto()
            resolved.CopyFrom(attributes[attribute.ref_attr_name])
            resolved.name = attribute.name
            node.attribute.append(resolved)
        elif attribute.type == AttributeProto.GRAPH:
            graph = AttributeProto()
            graph.CopyFrom(attribute)
            _rename_free_names(graph.g, rename, set())
            node.attribute.append(graph)
        else:
            node.attribute.append(attribute)
    return node


def _rename_free_names(graph: onnx.GraphProto, rename: object, outer: set[str]) -> None:
    """Rename, in place, the names a subgraph reads from the function body
    (those it does not define itself)."""
    local = set(outer)
    local.update(v.name for v in graph.input)
    local.update(t.name for t in graph.initializer)
    for node in graph.node:
        for index, name in enumerate(node.input):
            if name and name not in local:
                node.input[index] = rename(name)  # type: ignore[operator]
        for attribute in node.attribute:
            if attribute.type == AttributeProto.GRAPH:
                _rename_free_names(attribute.g, rename, local)
        local.update(node.output)
    for output in graph.output:
        if output.name not in local:
            output.name = rename(output.name)  # type: ignore[operator]
