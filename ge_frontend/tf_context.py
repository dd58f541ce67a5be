"""What a TensorFlow op converter sees: its `NodeDef`, its inputs, a way to emit ops.

The framework-neutral half (import-time arrays or run-time values, constant
folding, `ge.const` pooling) is `ge_frontend.importing`; this adds the node,
its attributes decoded from `AttrValue`s, and `TensorProto` decoding.

The protobuf classes are TensorFlow's own, as compiled in the `tensorboard`
package (see `tf_import` for why); it is the optional dependency
`ge-xdsl[tensorflow]`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.limits import over_budget, tensor_bytes
from ge_frontend.importing import ConverterContext, Unsupported

try:
    from tensorboard.compat.proto import (
        attr_value_pb2,
        graph_pb2,
        node_def_pb2,
        tensor_pb2,
        types_pb2,
    )
except ImportError:  # the optional dependency
    raise GEError(
        "error: reading TensorFlow models needs the 'tensorboard' package "
        "(TensorFlow's protobuf definitions): pip install 'ge-xdsl[tensorflow]'"
    ) from None

GraphDef = graph_pb2.GraphDef
NodeDef = node_def_pb2.NodeDef
TensorProto = tensor_pb2.TensorProto

DTYPES: dict[int, str] = {
    types_pb2.DT_FLOAT: "float32",
    types_pb2.DT_HALF: "float16",
    types_pb2.DT_BFLOAT16: "bfloat16",
    types_pb2.DT_DOUBLE: "float64",
    types_pb2.DT_INT8: "int8",
    types_pb2.DT_INT16: "int16",
    types_pb2.DT_INT32: "int32",
    types_pb2.DT_INT64: "int64",
    types_pb2.DT_UINT8: "uint8",
    types_pb2.DT_UINT16: "uint16",
    types_pb2.DT_UINT32: "uint32",
    types_pb2.DT_UINT64: "uint64",
    types_pb2.DT_BOOL: "bool",
}
"""TensorFlow `DataType` -> dtype name, for the types `ge` has."""

VALUE_FIELDS: dict[str, str] = {
    "float32": "float_val",
    "float64": "double_val",
    "float16": "half_val",
    "bfloat16": "half_val",
    "int8": "int_val",
    "int16": "int_val",
    "int32": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "bool": "bool_val",
}
"""Where a `TensorProto` without `tensor_content` keeps values of each dtype."""


def dtype_name(data_type: int) -> str:
    """The dtype name of a TensorFlow `DataType` (Unsupported if `ge` lacks it)."""
    name = DTYPES.get(data_type)
    if name is None:
        raise Unsupported(f"with dtype {type_name(data_type)}")
    return name


def type_name(data_type: int) -> str:
    """`DT_STRING`, ... (the enum's name, or its number if unknown)."""
    try:
        return types_pb2.DataType.Name(data_type)
    except ValueError:
        return str(data_type)


def tensor_array(proto: TensorProto) -> np.ndarray:
    """The value of a `TensorProto` as a NumPy array.

    Values are in `tensor_content` (raw little-endian bytes) or in the typed
    field; a typed field shorter than the tensor repeats its last value
    (TensorFlow's compressed constants), an empty one means zeros; 16-bit
    floats are stored as their bit patterns.
    """
    dtype = dtype_name(proto.dtype)
    shape = [dim.size for dim in proto.tensor_shape.dim]
    if any(size < 0 for size in shape):
        raise ValueError(f"constant has an unknown dim in shape {shape}")
    count = math.prod(shape)
    holder = numpy_dtype(dtype)
    if reason := over_budget(tensor_bytes(shape, holder.itemsize), "constant"):
        raise ValueError(reason)  # before a compressed constant is expanded
    if proto.tensor_content:
        flat = np.frombuffer(proto.tensor_content, dtype=holder.newbyteorder("<"))
        if flat.size != count:
            raise ValueError(
                f"constant of shape {shape} holds {flat.size} values, not {count}"
            )
        return flat.astype(holder).reshape(shape)
    stored = getattr(proto, VALUE_FIELDS[dtype])
    if VALUE_FIELDS[dtype] == "half_val":
        flat = np.array(stored, np.uint16).view(holder)
    else:
        flat = np.array(stored, holder)
    if flat.size > count:
        raise ValueError(f"constant of shape {shape} holds {flat.size} values")
    if flat.size == 0:
        return np.zeros(shape, holder)
    if flat.size < count:
        flat = np.concatenate([flat, np.repeat(flat[-1:], count - flat.size)])
    return flat.reshape(shape)


def shape_dims(proto: Any) -> list[int] | None:
    """A `TensorShapeProto` as dims (-1 unknown), or None for an unknown rank."""
    if proto.unknown_rank:
        return None
    return [int(dim.size) if dim.size >= 0 else -1 for dim in proto.dim]


def attr_value(attr: attr_value_pb2.AttrValue) -> Any:
    """An `AttrValue` as a Python value.

    Strings are decoded, types stay `DataType` numbers (`dtype_name` maps
    them), shapes become dim lists, tensors arrays, lists Python lists.
    """
    kind = attr.WhichOneof("value")
    if kind == "list":
        values = attr.list
        for name in ("s", "i", "f", "b", "type"):
            if items := getattr(values, name):
                return [v.decode() if isinstance(v, bytes) else v for v in items]
        if values.shape:
            return [shape_dims(s) for s in values.shape]
        if values.tensor:
            return [tensor_array(t) for t in values.tensor]
        return []
    if kind == "s":
        return attr.s.decode()
    if kind == "shape":
        return shape_dims(attr.shape)
    if kind == "tensor":
        return tensor_array(attr.tensor)
    if kind in ("i", "f", "b", "type"):
        return getattr(attr, kind)
    return None if kind is None else getattr(attr, kind)


def parse_input(reference: str) -> tuple[str, int]:
    """A data input `node` or `node:N` as (node, N)."""
    name, sep, index = reference.rpartition(":")
    if sep and index.isdigit():
        return name, int(index)
    return reference, 0


@dataclass
class TFNodeContext(ConverterContext):
    """One TensorFlow node being converted: attributes, data inputs and `op`."""

    node: NodeDef = field(kw_only=True)

    @property
    def name(self) -> str:
        """The node's name."""
        return self.node.name

    @property
    def op_type(self) -> str:
        """The node's op (`Conv2D`, ...)."""
        return self.node.op

    def attr(self, name: str, default: Any = None) -> Any:
        """Attribute `name` as a Python value (see `attr_value`), or `default`."""
        if name not in self.node.attr:
            return default
        return attr_value(self.node.attr[name])

    def has_attr(self, name: str) -> bool:
        """Whether the node sets attribute `name`."""
        return name in self.node.attr

    def required_attr(self, name: str) -> Any:
        """Attribute `name`, which the op must have."""
        if name not in self.node.attr:
            raise ValueError(f"attribute '{name}' is missing")
        return attr_value(self.node.attr[name])

    def dtype_attr(self, name: str) -> str:
        """A `type` attribute as a dtype name."""
        return dtype_name(self.required_attr(name))

    def data_format(self, default: str = "NHWC") -> str:
        """The `data_format` attribute: NHWC or NCHW."""
        data_format = self.attr("data_format", default)
        if data_format not in ("NHWC", "NCHW"):
            raise Unsupported(f"with data_format {data_format}")
        return data_format

    def output_used(self, index: int) -> bool:
        """Whether anything reads output `index` (or it is a graph output)."""
        return index < len(self.outputs_used) and self.outputs_used[index]
