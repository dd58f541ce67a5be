"""What an ONNX op converter sees: its node, its inputs and a way to emit `ge` ops.

A value during import is either an `SSAValue` (computed at run time) or a
NumPy array (known at import time: initializers, `Constant` outputs and
everything folded from them). Converters never have to care which: `ctx.op`
runs the host kernel when every operand is known (constant folding, so shape
computations such as `Shape -> Gather -> Concat -> Reshape` vanish) and
otherwise emits the op, turning array operands into `ge.const` once each.

Constants become `ge.const`: a splat (every element equal, e.g. a
`ConstantOfShape` output) as a one-element `dense<v>`, small arrays inline,
arrays above `inline_limit` elements as `#ge.external<"key">` with the array
kept in `GraphEmitter.weights` under its ONNX value name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import SSAValue

from ge_dialect.builder import OPS_BY_NAME, GraphBuilder, dtype_of, tensor_type
from ge_dialect.dtypes import element_type, numpy_dtype
from ge_dialect.limits import over_budget, tensor_bytes
from ge_runtime.adapters import kernel_signature
from ge_runtime.host_ops import HOST_OPS

Value = SSAValue | np.ndarray
"""An imported ONNX value: computed at run time, or known at import time."""

WEIGHT_MODES = ("inline", "external")


class Unsupported(Exception):
    """A node the `ge` dialect cannot express; the message qualifies the op type."""


def node_name(node: onnx.NodeProto) -> str:
    """An ONNX node's name; its first output's name when it has none."""
    return node.name or (node.output[0] if node.output else node.op_type)


def shape_of(value: Value) -> tuple[int, ...]:
    """The shape of a value (-1 for a dynamic dim)."""
    if isinstance(value, np.ndarray):
        return value.shape
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tuple(-1 if dim < 0 else dim for dim in tensor.get_shape())


def dtype_name_of(value: Value) -> str:
    """The dtype name of a value ("float32", "int64", ...)."""
    return value.dtype.name if isinstance(value, np.ndarray) else dtype_of(value)


def is_splat(array: np.ndarray) -> bool:
    """Whether every element of `array` is the same (and there are several)."""
    if array.size <= 1:
        return False
    if all(stride == 0 for stride in array.strides):
        return True
    flat = array.reshape(-1)
    if flat[-1] != flat[0] or flat[flat.size // 2] != flat[0]:  # cheap early no
        return False
    return bool(np.all(flat == flat[0]))


@dataclass
class GraphEmitter:
    """Emits ops into one graph, folding constants and pooling `ge.const`s."""

    builder: GraphBuilder
    weights_mode: str = "external"
    inline_limit: int = 1024
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    value_names: dict[int, str] = field(default_factory=dict)
    _consts: dict[int, tuple[np.ndarray, SSAValue]] = field(default_factory=dict)

    def name_array(self, array: np.ndarray, name: str) -> None:
        """Remember `name` (an ONNX value name) as the weight key of `array`."""
        self.value_names.setdefault(id(array), name)

    def tensor(self, value: Value, key: str) -> SSAValue:
        """`value` as an SSA value; an array becomes a `ge.const` (once)."""
        if not isinstance(value, np.ndarray):
            return value
        cached = self._consts.get(id(value))
        if cached is not None:
            return cached[1]
        name = self.value_names.get(id(value), key)
        result = self._const(value, name)
        self._consts[id(value)] = (value, result)
        return result

    def _const(self, array: np.ndarray, name: str) -> SSAValue:
        dtype = array.dtype.name
        if is_splat(array):
            elem = element_type(dtype)
            first = array.reshape(-1)[:1].tolist()
            value = DenseIntOrFPElementsAttr(
                TensorType(elem, array.shape), BytesAttr(elem.pack(first))
            )
            return self.builder.op(
                "const",
                result_types=[tensor_type(array.shape, dtype)],
                name=name,
                value=value,
            )
        if self.weights_mode == "external" and array.size > self.inline_limit:
            key = self._unique_key(name)
            self.weights[key] = array
            return self.builder.external_const(key, array.shape, dtype, name=name)
        return self.builder.const(array, name=name)

    def _unique_key(self, name: str) -> str:
        key, count = name, 0
        while key in self.weights:
            count += 1
            key = f"{name}_{count}"
        return key

    def emit(
        self, op_name: str, operands: Sequence[Any], attrs: dict[str, Any], name: str
    ) -> Value | list[Value]:
        """Emit `ge.<op_name>`, or fold it when every operand is an array."""
        leaves = [
            leaf
            for operand in operands
            for leaf in (operand if isinstance(operand, list) else [operand])
            if leaf is not None
        ]
        if leaves and all(isinstance(leaf, np.ndarray) for leaf in leaves):
            _check_fold_size(op_name, leaves, attrs)
            return _fold(op_name, operands, attrs)
        key = f"{name}/const"
        ssa_operands = [self._operand(operand, key) for operand in operands]
        return self.builder.op(op_name, *ssa_operands, name=name, **attrs)

    def _operand(self, operand: Any, key: str) -> Any:
        if isinstance(operand, list):
            return [self.tensor(v, key) for v in operand]
        return None if operand is None else self.tensor(operand, key)


def _fold(op_name: str, operands: Sequence[Any], attrs: dict[str, Any]) -> Value:
    """Run the host kernel of `ge.<op_name>` on import-time arrays."""
    kernel = HOST_OPS[op_name]
    defaults = getattr(OPS_BY_NAME[f"ge.{op_name}"], "ATTR_DEFAULTS", {})
    accepted = kernel_signature(kernel).keywords
    keywords = {k: v for k, v in {**defaults, **attrs}.items() if k in accepted}
    result = kernel(*operands, **keywords)
    if isinstance(result, list | tuple):
        return [np.asarray(r) for r in result]  # type: ignore[return-value]
    return np.asarray(result)


def _check_fold_size(
    op_name: str, arrays: Sequence[np.ndarray], attrs: dict[str, Any]
) -> None:
    """ValueError if folding `ge.<op_name>` on `arrays` (its operands, in
    order) would give a result over the memory budget, as its shape function
    tells before the kernel runs."""
    from ge_dialect.shape_inference import SHAPE_FUNCTIONS, infer_shapes

    full_name = f"ge.{op_name}"
    if full_name not in SHAPE_FUNCTIONS:
        return
    results = infer_shapes(
        full_name, [a.shape for a in arrays], [a.dtype.name for a in arrays], attrs
    )
    for index, (shape, dtype) in enumerate(results):
        if -1 not in shape:
            nbytes = tensor_bytes(shape, numpy_dtype(dtype).itemsize)
            if (reason := over_budget(nbytes, f"folded result #{index}")) is not None:
                raise ValueError(reason)


@dataclass
class NodeContext:
    """One ONNX node being converted: attributes, inputs and `op` to emit."""

    node: onnx.NodeProto
    opset: int
    inputs: list[Value | None]
    outputs_used: list[bool]
    emitter: GraphEmitter

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

    def input(self, index: int) -> Value:
        """Required input `index`."""
        value = self.optional_input(index)
        if value is None:
            raise ValueError(f"input #{index} is missing")
        return value

    def optional_input(self, index: int) -> Value | None:
        """Input `index`, or None when absent (or given as the empty name)."""
        return self.inputs[index] if index < len(self.inputs) else None

    def constant(self, index: int, what: str) -> np.ndarray | None:
        """Optional input `index` that must be known at import time."""
        value = self.optional_input(index)
        if value is None or isinstance(value, np.ndarray):
            return value
        raise Unsupported(f"with a non-constant {what}")

    def shape(self, index: int) -> tuple[int, ...]:
        """The shape of input `index`."""
        return shape_of(self.input(index))

    def rank(self, index: int) -> int:
        """The rank of input `index`."""
        return len(self.shape(index))

    def dtype(self, index: int) -> str:
        """The dtype name of input `index`."""
        return dtype_name_of(self.input(index))

    def static_shape(self, index: int) -> tuple[int, ...]:
        """The shape of input `index`, which must have no dynamic dim."""
        shape = self.shape(index)
        if -1 in shape:
            raise Unsupported("on dynamic dims")
        return shape

    def op(self, op_name: str, *operands: Any, suffix: str | None = None, **attrs: Any):
        """Emit (or fold) `ge.<op_name>`; helper ops get the name `node/suffix`."""
        name = self.name if suffix is None else f"{self.name}/{suffix}"
        return self.emitter.emit(op_name, operands, attrs, name)

    def array(self, values: Any, like: int = 0) -> np.ndarray:
        """An import-time array with the dtype of input `like`."""
        return np.asarray(values, dtype=self.dtype(like))
