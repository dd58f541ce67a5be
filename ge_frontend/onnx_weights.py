"""Seeded random weights for ONNX models shipped with placeholder weights.

The ONNX package's `light/` models keep only the shapes of their weights:
each weight is a `ConstantOfShape` node (fill 0.02) reading a shape
initializer. `randomize_weights` replaces every such node with a seeded
random initializer of that shape, scaled by the weight's role so that
activations stay finite and informative through deep networks:

- convolution / Gemm / MatMul weights: N(0, 2 / fan_in) (He initialisation);
- multiplicative parameters (BatchNormalization scale and variance, `Mul`
  operands): U(0.5, 1.5), so variances stay positive;
- everything else (biases, means, shifts): N(0, 0.1^2).

The role is read from the consumer, looking through shape-only ops
(`Unsqueeze`, `Reshape`, ...). The result is a new model that onnxruntime
runs as the reference and `import_onnx` imports; `light_model(name)` loads
one of the zoo's models that way.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

LIGHT_MODELS_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
"""Where the onnx package keeps its light model zoo (`light_<name>.onnx`)."""


def light_model_names() -> list[str]:
    """The names of the zoo's models (`resnet50`, ...), sorted."""
    return sorted(
        p.stem.removeprefix("light_") for p in LIGHT_MODELS_DIR.glob("light_*.onnx")
    )


def light_model_path(name: str) -> Path:
    """The `.onnx` file of the zoo's model `name` (placeholder weights)."""
    return LIGHT_MODELS_DIR / f"light_{name}.onnx"


def light_model(name: str, seed: int = 0) -> onnx.ModelProto:
    """The zoo's model `name` with seeded random weights (`randomize_weights`)."""
    return randomize_weights(onnx.load(light_model_path(name)), seed)


PASS_THROUGH = {
    "Unsqueeze",
    "Reshape",
    "Identity",
    "Transpose",
    "Flatten",
    "Squeeze",
    "Cast",
}
"""Ops that only reshape a weight; its role is that of their consumer."""

SCALE_ROLES = {
    ("BatchNormalization", 1),
    ("BatchNormalization", 4),
    ("Mul", 0),
    ("Mul", 1),
}
"""(consumer, input index) pairs that multiply: positive values around 1."""


GAIN = 1.0


def _fan_in(
    op_type: str, index: int, node: onnx.NodeProto, shape: Sequence[int]
) -> int | None:
    """The fan-in of a weight consumed as input `index` of `node`, if it is one."""
    if index != 1 or len(shape) < 2:
        return None
    if op_type in ("Conv", "ConvTranspose"):
        return math.prod(shape[1:])
    if op_type == "Gemm":
        trans_b = any(a.name == "transB" and a.i for a in node.attribute)
        return math.prod(shape[1:]) if trans_b else shape[0]
    if op_type == "MatMul":
        return shape[-2]
    return None


def randomize_weights(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """A copy of `model` whose `ConstantOfShape` weights are seeded random arrays."""
    rng = np.random.default_rng(seed)
    result = onnx.ModelProto()
    result.CopyFrom(model)
    graph = result.graph
    initializers = {init.name: init for init in graph.initializer}
    consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = defaultdict(list)
    for node in graph.node:
        for index, name in enumerate(node.input):
            consumers[name].append((node, index))

    def role(name: str, shape: Sequence[int]) -> tuple[str, int | None]:
        uses = consumers.get(name, [])
        while len(uses) == 1 and uses[0][0].op_type in PASS_THROUGH and uses[0][1] == 0:
            uses = consumers.get(uses[0][0].output[0], [])
        if not uses:
            return "shift", None
        node, index = uses[0]
        if (fan_in := _fan_in(node.op_type, index, node, shape)) is not None:
            return "weight", fan_in
        return ("scale" if (node.op_type, index) in SCALE_ROLES else "shift"), None

    kept, replaced = [], []
    for node in graph.node:
        shape_name = node.input[0] if node.op_type == "ConstantOfShape" else None
        if shape_name not in initializers:
            kept.append(node)
            continue
        shape = [int(d) for d in numpy_helper.to_array(initializers[shape_name])]
        dtype = np.float32
        for attribute in node.attribute:
            if attribute.name == "value":
                dtype = numpy_helper.to_array(attribute.t).dtype
        kind, fan_in = role(node.output[0], shape)
        if kind == "scale":
            values = rng.random(shape, dtype=np.float32) + np.float32(0.5)
        else:
            values = rng.standard_normal(shape, dtype=np.float32)
            values *= np.float32(GAIN / math.sqrt(fan_in) if kind == "weight" else 0.1)
        replaced.append(
            numpy_helper.from_array(values.astype(dtype, copy=False), node.output[0])
        )
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(replaced)
    if result.ir_version < 4:  # such models list every initializer as an input
        graph.input.extend(
            helper.make_tensor_value_info(init.name, init.data_type, init.dims)
            for init in replaced
        )
    _drop_unused_initializers(graph)
    return result


def _drop_unused_initializers(graph: onnx.GraphProto) -> None:
    used = {name for node in graph.node for name in node.input}
    used |= {output.name for output in graph.output}
    unused = {init.name for init in graph.initializer} - used
    for items in (graph.initializer, graph.input):
        keep = [item for item in items if item.name not in unused]
        del items[:]
        items.extend(keep)
