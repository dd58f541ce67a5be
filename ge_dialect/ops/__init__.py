"""Operations of the `ge` dialect, one module per op family.

Each op class is the one home of what the compiler knows about the op: its
operands, attributes and defaults, verifier, assembly format, traits
(`ge_dialect.traits`), shape function, infer-format rule, NumPy reference
kernel and, for elementwise ops, its scalar loop body. `GE_OPS` collects
every op class defined in the family modules, so adding an op is adding its
class.

Families: `structure` (graph, data, const, variable, netoutput),
`control_flow` (if, case, while, partitioned_call, fused), `trans`
(transdata, cast and the shape ops), `elementwise` (unary and binary ops,
add_n), `logic` (comparisons, logic and bit operations, is_nan/is_inf,
select), `nn` (convolutions, pooling, normalisations, bias_add), `volume`
(conv3d, conv3d_transpose, max_pool3d, avg_pool3d), `matmul`,
`movement` (concat, split, slice, gather, tile, pad), `reduce` (softmax,
reductions), `cumulative` (cum_sum, cum_prod: running reductions along an
axis), `scatter` (scatter_elements, scatter_nd, one_hot: writing at
indices), `einsum` (Einstein summation), `sorting` (top_k), `image`
(resize, grid_sample), `signal` (dft), `ml` (ONNX-ML's tensor ops:
binarizer), `strings` (ops over string tensors, run on the host),
`decode` (image_decoder), `detection` (non_max_suppression),
`stochastic` (dropout), `blocks` (col2im),
`shape_of` (shape, size: a tensor's shape as data), `value_shaped` (fill,
broadcast_to, range: a result shape given as data), `dynamic_attrs` (an
op whose parameters are run-time tensors). Every op class is importable
from this package (`from ge_dialect.ops import ReluOp`).
"""

from __future__ import annotations

from types import ModuleType

from xdsl.irdl import IRDLOperation

from ge_dialect.attribute_values import (
    attribute_to_python,
    attribute_value,
    default_attributes,
    python_attributes,
)
from ge_dialect.ops import dynamic_attrs
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    SPATIAL_FORMATS,
    TARGET_ATTRIBUTE,
    GEOperation,
    enclosing_target,
)
from ge_dialect.ops.control_flow import CONTROL_FLOW_OPS, SUBGRAPH_OPS
from ge_dialect.ops.static_families import STATIC_FAMILIES, ops_of
from ge_dialect.ops.structure import Structural
from ge_dialect.ops.trans import TRANS_OPS, letter_permutation
from ge_dialect.shape_functions import broadcast_shapes

FAMILIES: tuple[ModuleType, ...] = (*STATIC_FAMILIES, dynamic_attrs)
"""The op family modules, in the order the dialect registers their ops."""

GE_OPS: list[type[IRDLOperation]] = [op for m in FAMILIES for op in ops_of(m)]
"""Every op of the dialect, in the order the dialect registers them."""

OPS_BY_NAME: dict[str, type[IRDLOperation]] = {op.name: op for op in GE_OPS}
"""Op name -> op class."""

globals().update({op.__name__: op for op in GE_OPS})

__all__ = [
    "COMPUTE_FORMAT",
    "CONTROL_FLOW_OPS",
    "FAMILIES",
    "GE_OPS",
    "OPS_BY_NAME",
    "SPATIAL_FORMATS",
    "SUBGRAPH_OPS",
    "TARGET_ATTRIBUTE",
    "TRANS_OPS",
    "Structural",
    "GEOperation",
    "attribute_to_python",
    "attribute_value",
    "broadcast_shapes",
    "default_attributes",
    "enclosing_target",
    "letter_permutation",
    "python_attributes",
    *(op.__name__ for op in GE_OPS),
]
