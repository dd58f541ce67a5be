"""What an ONNX op converter sees: its node, its inputs and a way to emit `ge` ops.

The framework-neutral half (import-time arrays or run-time values, constant
folding, `ge.const` pooling) is `ge_frontend.importing`; this adds the ONNX
node, its opset and its attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import onnx
from onnx import numpy_helper

from ge_frontend.importing import ConverterContext


def node_name(node: onnx.NodeProto) -> str:
    """An ONNX node's name; its first output's name when it has none."""
    return node.name or (node.output[0] if node.output else node.op_type)


@dataclass
class NodeContext(ConverterContext):
    """One ONNX node being converted: attributes, inputs and `op` to emit."""

    node: onnx.NodeProto = field(kw_only=True)
    opset: int = field(kw_only=True)

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

    def has_attr(self, name: str) -> bool:
        """Whether the node sets attribute `name`."""
        return any(attribute.name == name for attribute in self.node.attribute)
