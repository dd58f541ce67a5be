"""`select-precision`: the float dtype each op computes in (ATC's `--precision_mode`).

Every op with op information whose float tensors are float16 or float32
gets a compute dtype by the mode, in graph order:

| mode | an op computes in |
|---|---|
| `must_keep_origin_dtype` | its own dtype |
| `force_fp32` | float32 where its kernels take it |
| `force_fp16` | float16 where its kernels take it |
| `allow_fp32_to_fp16` | its own dtype where supported, else float16 |
| `allow_mix_precision` | by its op info's `precision_reduce`: see below |

Under `allow_mix_precision` an op with `precision_reduce: true` (the cube
ops: matmul, batch_matmul, gemm, convolutions) runs in float16; one with
`false` (softmax, reductions, normalisations, exp, log, pow, sqrt: what
LayerNorm and Softmax are made of) keeps its dtype; any other op
(elementwise, data movement) runs in float16 only if every float operand
that is not a constant arrives in float16. Only ops whose kernels take
float16 (`dtypes`) change.

An op that changes dtype computes on `ge.cast`s of its float operands and
its float results change type; a consumer that computes in another dtype
(a graph output always keeps its own) reads a cast, one per value and
dtype, right after the producer. Casts of constants are folded by
`fold-constants` (the weights are stored in float16), and the graph's
interface keeps its dtypes. So under `allow_mix_precision` a transformer's
matmuls run in float16 while each LayerNorm (ReduceMean, Sub, Mul, Sqrt,
Div, ...) and each Softmax, fed by a float32 reduction or mask, stays in
float32:

```mlir
%y = ge.batch_matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
// becomes, with mode=allow_mix_precision
%x16 = ge.cast %x {dst_type = f16} : tensor<2x8xf32> -> tensor<2x8xf16>
%w16 = ge.cast %w {dst_type = f16} : tensor<8x8xf32> -> tensor<8x8xf16>
%y16 = ge.batch_matmul %x16, %w16
    : (tensor<2x8xf16>, tensor<8x8xf16>) -> tensor<2x8xf16>
%y = ge.cast %y16 {dst_type = f32} : tensor<2x8xf16> -> tensor<2x8xf32>
```

ATC's default is `force_fp16`; `ge-atc` runs this pass only when
`--precision_mode` is given (docs/GE_DEVIATIONS.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.dtypes import element_type
from ge_dialect.naming import node_label
from ge_dialect.opinfo import OpInfo, find_op_info
from ge_dialect.ops import CONTROL_FLOW_OPS, CastOp, ConstOp, GraphOp, Structural
from ge_dialect.targets import PRECISION_MODES
from passes.cast_remove import with_element_type
from passes.insert_aicpu_cast import make_cast
from passes.options import check_choice_option
from passes.transop_utils import dtype_of

FLOATS = ("float16", "float32")
"""The dtypes a precision mode chooses between."""


def float_values(values: tuple[SSAValue, ...] | list[SSAValue]) -> list[SSAValue]:
    """The float16/float32 tensors among `values`."""
    return [
        v for v in values if isinstance(v.type, TensorType) and dtype_of(v) in FLOATS
    ]


def is_constant(value: SSAValue) -> bool:
    """Whether `value` is a constant, or a cast of one (neutral in mixing)."""
    owner = value.owner
    while isinstance(owner, CastOp):
        owner = owner.x.owner
    return isinstance(owner, ConstOp)


@dataclass
class PrecisionChoice:
    """Chooses and applies a compute dtype per op of one block."""

    mode: str
    casts: list[CastOp] = field(default_factory=list)
    """The casts this choice inserted."""

    def compute_dtype(self, op: Operation, info: OpInfo, own: str) -> str:
        """The dtype `op` (whose float tensors are `own`) computes in."""
        if self.mode == "force_fp32" or self.mode == "force_fp16":
            wanted = "float32" if self.mode == "force_fp32" else "float16"
            return wanted if info.supports_dtype(wanted) else own
        if self.mode == "allow_fp32_to_fp16":
            if info.supports_dtype(own) or not info.supports_dtype("float16"):
                return own
            return "float16"
        if self.mode == "allow_mix_precision":
            if info.precision_reduce is False or not info.supports_dtype("float16"):
                return own
            if info.precision_reduce:
                return "float16"
            inputs = [v for v in float_values(op.operands) if not is_constant(v)]
            arriving = [self.arriving_dtype(v) for v in inputs]
            if arriving and all(d == "float16" for d in arriving):
                return "float16"
        return own

    def arriving_dtype(self, value: SSAValue) -> str:
        """The dtype `value` is computed in: a cast back this choice inserted
        reports its source's."""
        owner = value.owner
        if isinstance(owner, CastOp) and owner in self.casts:
            return dtype_of(owner.x)
        return dtype_of(value)

    def run(self, block: Block) -> None:
        for op in list(block.ops):
            self._choose(op)
        for cast in reversed(self.casts):
            if not cast.y.uses:
                Rewriter.erase_op(cast)  # a cast back that every consumer skipped

    def _choose(self, op: Operation) -> None:
        if op.has_trait(Structural) or isinstance(op, (CastOp, *CONTROL_FLOW_OPS)):
            return
        info = find_op_info(op)
        floats = float_values([*op.operands, *op.results])
        if info is None or not floats:
            return
        dtypes = {dtype_of(v) for v in floats}
        if len(dtypes) != 1:
            return  # mixed float dtypes mean something (e.g. a cast-like op)
        (own,) = dtypes
        wanted = self.compute_dtype(op, info, own)
        if wanted == own:
            return
        label = node_label(op)
        for index, operand in enumerate(op.operands):
            if operand in float_values([operand]):
                op.operands[index] = self._value_in(operand, wanted, label, index)
        for result in float_values(list(op.results)):
            new = Rewriter.replace_value_with_new_type(
                result, with_element_type(result.type, element_type(wanted))
            )
            self._restore_uses(new, own, label)

    def _value_in(
        self, value: SSAValue, dtype: str, label: str, index: int
    ) -> SSAValue:
        """`value` as `dtype`: itself, or a cast (shared by every consumer)."""
        if dtype_of(value) == dtype:
            return value
        source = value.owner
        if source in self.casts and dtype_of(source.x) == dtype:  # type: ignore[union-attr]
            return source.x  # type: ignore[union-attr]  # a cast back: its source
        for use in value.uses:
            user = use.operation
            if isinstance(user, CastOp) and dtype_of(user.y) == dtype:
                return user.y
        cast = make_cast(value, dtype, f"{label}_input{index}_cast")
        self.casts.append(cast)
        owner = value.owner
        if isinstance(owner, Operation):
            Rewriter.insert_op(cast, InsertPoint.after(owner))
        else:
            Rewriter.insert_op(cast, InsertPoint.at_start(owner))
        return cast.y

    def _restore_uses(self, value: SSAValue, dtype: str, label: str) -> None:
        """Consumers of `value` (now in another dtype) read it as `dtype`
        until they choose otherwise: one cast back after the producer."""
        uses = list(value.uses)
        if not uses:
            return
        back = make_cast(value, dtype, f"{label}_output_cast")
        self.casts.append(back)
        Rewriter.insert_op(back, InsertPoint.after(value.owner))  # type: ignore[arg-type]
        for use in uses:
            use.operation.operands[use.index] = back.y


@dataclass(frozen=True)
class SelectPrecisionPass(ModulePass):
    """Choose each op's compute dtype by ATC's precision mode; casts between."""

    name = "select-precision"

    mode: str = "must_keep_origin_dtype"
    """ATC's `--precision_mode`: must_keep_origin_dtype, force_fp32,
    force_fp16, allow_fp32_to_fp16 or allow_mix_precision."""

    def __post_init__(self) -> None:
        check_choice_option(self, "mode", self.mode, PRECISION_MODES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode == "must_keep_origin_dtype":
            return
        for graph in op.walk():
            if isinstance(graph, (GraphOp, *CONTROL_FLOW_OPS)):
                for region in graph.regions:
                    for block in region.blocks:
                        PrecisionChoice(self.mode).run(block)
