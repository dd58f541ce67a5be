"""`convert-ge-to-loops`: lower `ge.graph`s to affine loop nests over memrefs.

Each `ge.graph @g` becomes `func.func @g` over memrefs of the values' real
**storage** shapes (padding included), using only upstream dialects (`func`,
`memref`, `affine`, `arith`, `math`):

```mlir
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.relu %x : ... -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : ...
}
// becomes
func.func @g(%x: memref<1x2x4x4x16xf16> {ge.input = 0 : i64})
    -> memref<1x2x4x4x16xf16> {
  %y = memref.alloc() : memref<1x2x4x4x16xf16>
  affine.for ... { affine.store %zero, %y[...] }          // padding is zero
  affine.for ... { %v = affine.load %x[...] ... affine.store %r, %y[...] }
  return %y : memref<1x2x4x4x16xf16>
}
```

Function arguments, in this order:

1. the graph inputs, by `ge.data` index (`{ge.input = i}`, plus `ge.name`);
2. the weights: `ge.const` values that are `#ge.external<"key">` or have more
   than `SMALL_CONSTANT_ELEMENTS` elements, in graph order
   (`{ge.weight = "key"}`; an inline constant's key is its node name or
   `const<i>`). Smaller constants become `memref.global`s.

Arguments and results hold storage-layout data. Results are returned buffers
(`memref.alloc` inside the function, or an argument passed through).
Scratch buffers are freed after their last use. A graph with a memory plan
(`plan-memory`: `ge.arena_size`, `ge.mem_offset`) allocates one arena,
`memref.alloc() : memref<SIZExi8>`, and each planned result is a
`memref.view` of it at its offset (never freed; results stay valid).
Every value's padding is zero; ops compute only valid elements. Ops lower
through the policy table `passes.lowering.table.LOWERINGS`; graphs with
control flow, variables or dynamic shapes are rejected with a one-line error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.diagnostics import error_at
from ge_dialect.ops import ConstOp, DataOp, GraphOp, NetOutputOp
from ge_runtime.memory import check_graph_plan, read_plan
from passes.lowering.context import LoweringContext
from passes.lowering.emitter import Buffer, Emitter
from passes.lowering.layouts import Layout
from passes.lowering.table import LOWERINGS
from passes.pass_options import check_target_option

SMALL_CONSTANT_ELEMENTS = 256
"""Inline constants up to this many elements become `memref.global`s."""

INPUT_ATTR = "ge.input"
WEIGHT_ATTR = "ge.weight"
NAME_ATTR = "ge.name"


def weight_key(op: ConstOp, position: int) -> str | None:
    """The argument key of a constant passed as a weight, or None if it stays inline.

    External constants use their key; large inline ones their node name, else
    `const<position>` (position among the graph's constants).
    """
    if isinstance(op.value, ExternalDataAttr):
        return op.value.key.data
    if len(op.value.get_values()) <= SMALL_CONSTANT_ELEMENTS or _is_splat(op.value):
        return None
    name = op.attributes.get("name")
    return name.data if isinstance(name, StringAttr) else f"const{position}"


def _is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    return len(attr.get_values()) == 1


@dataclass
class GraphLowering:
    """Lowers one graph's ops in order into a function body."""

    graph: GraphOp
    target: str | None

    def run(self) -> list[Operation]:
        """The `memref.global`s and the `func.func` replacing the graph."""
        self._reject_unsupported()
        block = Block()
        context = LoweringContext(Emitter(block), self.target)
        arguments, inline = self._plan_arguments()
        for op, _ in arguments:
            layout = self._layout(context, op)
            arg = block.insert_arg(_memref_type(layout), len(block.args))
            context.buffers[op.results[0]] = Buffer(arg, layout)
        globals_ = []
        for op, position in inline:
            layout = self._layout(context, op)
            name = f"{self.graph.sym_name.data}_const{position}"
            globals_.append(
                memref.GlobalOp.get(
                    StringAttr(name),
                    _memref_type(layout),
                    op.value,
                    constant=UnitAttr(),
                )
            )
            get = context.emitter.add(memref.GetGlobalOp(name, _memref_type(layout)))
            context.buffers[op.results[0]] = Buffer(get.results[0], layout)
        if (plan := read_plan(self.graph)) is not None:
            check_graph_plan(self.graph, self.target)  # a stale plan is an error
            size, context.arena_offsets = plan
            arena = memref.AllocOp([], [], MemRefType(i8, [size]))
            context.arena = context.emitter.add(arena).results[0]
        self._lower_ops(context)
        outputs = [context.buffers[v].memref for v in self.graph.output.operands]
        block.add_op(func.ReturnOp(*outputs))
        function = func.FuncOp(
            self.graph.sym_name.data,
            ([a.type for a in block.args], [o.type for o in outputs]),
            Region(block),
            arg_attrs=ArrayAttr([attrs for _, attrs in arguments]),
        )
        return [*globals_, function]

    def _reject_unsupported(self) -> None:
        for op in self.graph.body.block.ops:
            if op.regions and op.name not in LOWERINGS:
                raise error_at(op, "has no loop lowering (control flow)")
            if not isinstance(op, DataOp | ConstOp | NetOutputOp) and (
                op.name not in LOWERINGS
            ):
                raise error_at(op, "has no loop lowering")

    def _plan_arguments(
        self,
    ) -> tuple[list[tuple[Operation, DictionaryAttr]], list[tuple[ConstOp, int]]]:
        """(op, argument attributes) per argument; (constant, position) inline."""
        arguments: list[tuple[Operation, DictionaryAttr]] = []
        for data in self.graph.inputs():
            attrs: dict[str, Attribute] = {
                INPUT_ATTR: IntegerAttr(data.index_value, i64)
            }
            if isinstance(name := data.attributes.get("name"), StringAttr):
                attrs[NAME_ATTR] = name
            arguments.append((data, DictionaryAttr(attrs)))
        constants = [op for op in self.graph.body.block.ops if isinstance(op, ConstOp)]
        inline = []
        keys: set[str] = set()
        for position, op in enumerate(constants):
            key = weight_key(op, position)
            if key is None:
                inline.append((op, position))
                continue
            if key in keys:
                raise error_at(op, f"weight key '{key}' is used twice")
            keys.add(key)
            arguments.append((op, DictionaryAttr({WEIGHT_ATTR: StringAttr(key)})))
        return arguments, inline

    @staticmethod
    def _layout(context: LoweringContext, op: Operation) -> Layout:
        """The layout of an input's or constant's value, errors located at `op`."""
        context.op = op
        return context.layout(op.results[0])

    def _lower_ops(self, context: LoweringContext) -> None:
        """Lower each op; free each allocated buffer after its last alias's last use."""
        ops = list(self.graph.body.block.ops)
        last_use: dict[SSAValue, int] = {}
        for position, op in enumerate(ops):
            for value in op.operands:
                last_use[value] = len(ops) if isinstance(op, NetOutputOp) else position
        holders: dict[SSAValue, set[SSAValue]] = {}
        for position, op in enumerate(ops):
            if isinstance(op, DataOp | ConstOp | NetOutputOp):
                continue
            context.op = op
            LOWERINGS[op.name](context, op)
            context.free_temporaries()
            for result in op.results:
                buffer = context.buffers[result].memref
                if isinstance(buffer.owner, memref.AllocOp):
                    holders.setdefault(buffer, set()).add(result)
            for value in {*op.operands, *op.results}:
                if last_use.get(value, position) > position:
                    continue
                buffer = context.buffers[value]
                alive = holders.get(buffer.memref, set())
                if value in alive:
                    alive.discard(value)
                    if not alive:
                        context.emitter.dealloc(buffer)


def _memref_type(layout: Layout) -> MemRefType:
    return MemRefType(layout.element_type, layout.storage_shape)


class LowerGraphToFunc(RewritePattern):
    """`ge.graph @g {...}` -> `func.func @g` (and `memref.global`s)."""

    def __init__(self, target: str | None):
        self.target = target

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GraphOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, GraphLowering(op, self.target).run(), [])


@dataclass(frozen=True)
class ConvertGeToLoopsPass(ModulePass):
    """Lower ge.graph to func.func of affine loops over storage-layout memrefs."""

    name = "convert-ge-to-loops"

    target: str | None = None
    """Target (SoC) whose C0 table the storage layouts use; default: the seed rule."""

    def __post_init__(self) -> None:
        check_target_option(self, "target", self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            LowerGraphToFunc(self.target), apply_recursively=False
        ).rewrite_module(op)
