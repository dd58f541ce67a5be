"""`insert-aicpu-cast`: cast around AI CPU ops whose kernels lack the incoming dtype.

ATC's AI CPU Cast auto-insertion (AutoCastMode = 1; `ge-atc
--auto_cast_mode=1`). Without it, `partition-engines` rejects an AI CPU op
that its kernels cannot run in the graph's dtype. With it, each operand in an
unsupported dtype is cast to the narrowest supported dtype that holds every
value of the original (`cast_is_exact`: fp16 -> fp32, int8 -> int32, ...);
the op computes in that dtype and each result in an unsupported dtype is cast
back. With a user op-information file making `ge.tanh` an AI CPU op that
only takes float32:

```mlir
%y = ge.tanh %x {name = "t"} : tensor<2x17xf16> -> tensor<2x17xf16>
```
becomes
```mlir
%0 = ge.cast %x {dst_type = f32, name = "t_input0_cast"}
   : tensor<2x17xf16> -> tensor<2x17xf32>
%1 = ge.tanh %0 {name = "t"} : tensor<2x17xf32> -> tensor<2x17xf32>
%y = ge.cast %1 {dst_type = f16, name = "t_output0_cast"}
   : tensor<2x17xf32> -> tensor<2x17xf16>
```

Casts keep the value's `#ge.layout`. An op whose kernels take no dtype
holding the incoming values (say an fp16 tensor into an int32-only op) is a
one-line error naming the op, its node and the dtypes. Run it before
`partition-engines`, so the casts land in AI Core subgraphs around the AI
CPU one; run after, they join the AI CPU subgraph.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import element_type
from ge_dialect.locations import error_at
from ge_dialect.naming import node_label
from ge_dialect.opinfo import Engine, op_info
from ge_dialect.ops import CastOp
from passes.cast_remove import with_element_type
from passes.partition_engines import op_engine
from passes.transop_utils import cast_is_exact, dtype_of


def cast_target(op: Operation, dtype: str) -> str | None:
    """The dtype `op`'s kernels take instead of `dtype`, or None if it takes `dtype`.

    The narrowest supported dtype of the same kind (float, int, bool) that
    holds every value of `dtype`, else of another kind; a one-line error
    when there is none.
    """
    info = op_info(op)
    if info.supports_dtype(dtype):
        return None
    supported = sorted(
        info.dtypes or (),
        key=lambda d: (_kind(d) != _kind(dtype), numpy_dtype(d).itemsize, d),
    )
    for candidate in supported:
        if cast_is_exact(dtype, candidate):
            return candidate
    raise error_at(
        op,
        f"(node '{node_label(op)}') runs on AICPU, which does not support {dtype} "
        f"and has no dtype that holds its values (supported: {', '.join(supported)})",
    )


def _kind(dtype: str) -> str:
    """`float`, `int` or `bool`."""
    return "float" if "float" in dtype else dtype.rstrip("0123456789").removeprefix("u")


def make_cast(value: SSAValue, dtype: str, name: str) -> CastOp:
    """A `ge.cast` of `value` to `dtype`, keeping its shape and layout."""
    element = element_type(dtype)
    return CastOp.create(
        operands=[value],
        result_types=[with_element_type(value.type, element)],
        attributes={"dst_type": element, "name": StringAttr(name)},
    )


class CastAICPUOpToSupportedDtype(RewritePattern):
    """An AI CPU op in an unsupported dtype runs between casts to a supported one."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op_engine(op) is not Engine.AICPU:
            return
        operand_targets = [cast_target(op, dtype_of(v)) for v in op.operands]
        result_targets = [cast_target(op, dtype_of(v)) for v in op.results]
        if not any(operand_targets) and not any(result_targets):
            return
        label = node_label(op)
        last: Operation = op
        for index, target in enumerate(operand_targets):
            if target is None:
                continue
            cast = make_cast(op.operands[index], target, f"{label}_input{index}_cast")
            rewriter.insert(cast, InsertPoint.before(op))
            op.operands[index] = cast.y
        for index, target in enumerate(result_targets):
            if target is None:
                continue
            original = op.results[index]
            dtype = dtype_of(original)
            computed = rewriter.replace_value_with_new_type(
                original, with_element_type(original.type, element_type(target))
            )
            back = make_cast(computed, dtype, f"{label}_output{index}_cast")
            computed.replace_uses_with_if(
                back.y, lambda use, back=back: use.operation is not back
            )
            last = rewriter.insert(back, InsertPoint.after(last))
        rewriter.handle_operation_modification(op)


@dataclass(frozen=True)
class InsertAICPUCastPass(ModulePass):
    """Cast around AI CPU ops whose kernels do not support the incoming dtype."""

    name = "insert-aicpu-cast"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            CastAICPUOpToSupportedDtype(), apply_recursively=False
        ).rewrite_module(op)
