"""The policy table: which function lowers each `ge` op.

A lowering takes the `LoweringContext` (positioned at the op) and the op,
and defines buffers for the op's results. Ops not listed have no lowering.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from passes.lowering import elementwise, fused, movement, nn
from passes.lowering.context import LoweringContext

Lowering = Callable[[LoweringContext, Operation], None]

LOWERINGS: dict[str, Lowering] = {
    **{name: elementwise.lower_unary for name in elementwise.UNARY},
    **{name: elementwise.lower_binary for name in elementwise.BINARY},
    "ge.add_n": elementwise.lower_add_n,
    "ge.bias_add": elementwise.lower_bias_add,
    "ge.batch_norm": elementwise.lower_batch_norm,
    "ge.cast": elementwise.lower_cast,
    "ge.identity": movement.lower_identity,
    "ge.transdata": movement.lower_transdata,
    "ge.transpose": movement.lower_transpose,
    "ge.permute": movement.lower_transpose,
    "ge.reshape": movement.lower_reshape,
    "ge.flatten": movement.lower_reshape,
    "ge.squeeze": movement.lower_reshape,
    "ge.unsqueeze": movement.lower_reshape,
    "ge.expand_dims": movement.lower_reshape,
    "ge.concat": movement.lower_concat,
    "ge.split": movement.lower_split,
    "ge.slice": movement.lower_slice,
    "ge.pad": movement.lower_pad,
    "ge.tile": movement.lower_tile,
    "ge.conv2d": nn.lower_conv2d,
    "ge.max_pool": nn.lower_pool,
    "ge.avg_pool": nn.lower_pool,
    "ge.global_avg_pool": nn.lower_global_pool,
    "ge.global_max_pool": nn.lower_global_pool,
    "ge.softmax": nn.lower_softmax,
    "ge.log_softmax": nn.lower_softmax,
    "ge.reduce_sum": nn.lower_reduce,
    "ge.reduce_mean": nn.lower_reduce,
    "ge.reduce_max": nn.lower_reduce,
    "ge.lrn": nn.lower_lrn,
    "ge.instance_norm": nn.lower_instance_norm,
    "ge.matmul": nn.lower_matmul,
    "ge.batch_matmul": nn.lower_matmul,
    "ge.gemm": nn.lower_matmul,
    "ge.fused": fused.lower_fused,
}
"""Op name -> lowering."""
