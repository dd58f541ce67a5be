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
2. the weights: `ge.const` values that are `#ge.external<"key">`, in graph
   order, subgraphs included (`{ge.weight = "key"}`). Inline constants
   become constant `memref.global`s, so a lowered module holds all it
   needs (`ge-run l.mlir` runs it; its weights come from the `ge.weights`
   file as for the graph).

Arguments and results hold storage-layout data. Integer types are signless
(`passes.lowering.signless`: `i8` for `ui8`, the op choice keeps the sign); an
argument or result whose graph type is unsigned says so with
`{ge.element_type = ui8}`, so callers pass and get arrays of the graph's dtype.
Results are returned buffers (`memref.alloc` inside the function, or an
argument passed through).
Scratch buffers are freed after their last use. A graph with a memory plan
(`plan-memory`: `ge.arena_size`, `ge.mem_offset`) allocates one arena,
`memref.alloc() : memref<SIZExi8>`, and each planned result is a
`memref.view` of it at its offset (never freed; results stay valid).
Every value's padding is zero; ops compute only valid elements. Ops lower
through the emitters registered by op class (`passes.lowering.table`);
control flow lowers to `scf` (`passes.lowering.control_flow`). Graphs with
variables, dynamic shapes or an op without a lowering are rejected with a
one-line error.

A `ge.partitioned_call` (an engine subgraph) becomes a private function
called with `func.call`: its arguments are the call's operands, then the
weights its subgraph reads, then the arena (planned graphs: the ops inside
keep their offsets in the one arena). It returns its output buffers; the
caller frees those it allocated, after their last use:

```mlir
%y = ge.partitioned_call %x {engine = "AICPU"} : ... { ...ge.resize... }
// becomes
%y = func.call @main_aicpu0(%x, %arena)
    : (memref<1x16x4x4xf32>, memref<5120xi8>) -> memref<1x16x8x8xf32>
func.func private @main_aicpu0(%x: memref<1x16x4x4xf32>, %arena: memref<5120xi8>)
    -> memref<1x16x8x8xf32> {
  %t = memref.view %arena[%c1024][] : memref<5120xi8> to memref<1x16x8x8xf32>
  ...
  func.return %t : memref<...>
}
```
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import inline_stored_dense
from ge_dialect.locations import error_at
from ge_dialect.ops import ConstOp, DataOp, GraphOp, NetOutputOp, PartitionedCallOp
from passes.lowering.context import LoweringContext
from passes.lowering.control_flow import CALLS, CONTROL_FLOW
from passes.lowering.emitter import Buffer, Emitter, buffer_type
from passes.lowering.forwarded_copies import forward_copies
from passes.lowering.layouts import Layout
from passes.lowering.movement import copy
from passes.lowering.signless import ELEMENT_TYPE_ATTR, make_signless, signless
from passes.lowering.table import lowering_for, unlowered_reason
from passes.lowering.unread_fills import drop_unread_fills
from passes.memory_planning import check_graph_plan, read_plan
from passes.options import check_target_option

INPUT_ATTR = "ge.input"
WEIGHT_ATTR = "ge.weight"
NAME_ATTR = "ge.name"


def weight_key(op: ConstOp) -> str | None:
    """The argument key of a constant passed as a weight (an external one),
    or None if it becomes a `memref.global`."""
    if isinstance(op.value, ExternalDataAttr):
        return op.value.key.data
    return None


@dataclass
class GraphLowering:
    """Lowers one graph's ops in order into a function body (and each
    `ge.partitioned_call` into a function of its own)."""

    graph: GraphOp
    target: str | None
    callees: list[func.FuncOp] = field(default_factory=list)
    """The functions of the graph's `ge.partitioned_call`s, in call order."""
    global_names: dict[ConstOp, str] = field(default_factory=dict)
    """Inline constant -> its `memref.global`."""
    owned_results: set[SSAValue] = field(default_factory=set)
    """`func.call` results the caller frees (buffers the callee allocated)."""
    _call_numbers: Iterator[int] = field(default_factory=itertools.count)

    def run(self) -> list[Operation]:
        """The `memref.global`s and the `func.func`s replacing the graph."""
        self._reject_unsupported()
        block = Block()
        context = LoweringContext(Emitter(block), self.target)
        context.table_prefix = self.graph.sym_name.data
        arguments, inline = self._plan_arguments()
        for op, _ in arguments:
            layout = self._layout(context, op)
            arg = block.insert_arg(buffer_type(layout), len(block.args))
            context.buffers[op.results[0]] = Buffer(arg, layout)
        globals_ = []
        for op, position in inline:
            layout = self._layout(context, op)
            name = f"{self.graph.sym_name.data}_const{position}"
            self.global_names[op] = name
            globals_.append(
                memref.GlobalOp.get(
                    StringAttr(name),
                    buffer_type(layout),
                    inline_stored_dense(op, self.target),
                    constant=UnitAttr(),
                )
            )
        self._bind_globals(context, None)
        if (plan := read_plan(self.graph)) is not None:
            check_graph_plan(self.graph, self.target)  # a stale plan is an error
            size, context.arena_offsets = plan
            arena = memref.AllocOp([], [], MemRefType(i8, [size]))
            context.arena = context.emitter.add(arena).results[0]
        self._lower_ops(context, self.graph.body.block)
        outputs = [context.buffers[v].memref for v in self.graph.output.operands]
        block.add_op(func.ReturnOp(*outputs))
        context.emitter.fill_read_padding()
        function = func.FuncOp(
            self.graph.sym_name.data,
            ([a.type for a in block.args], [o.type for o in outputs]),
            Region(block),
        )
        lowered = make_signless([*globals_, *context.tables, function, *self.callees])
        for op in lowered:
            if isinstance(op, func.FuncOp):
                forward_copies(op)
                drop_unread_fills(op)
        function = next(
            op
            for op in lowered
            if isinstance(op, func.FuncOp) and op.sym_name == self.graph.sym_name
        )
        function.arg_attrs = ArrayAttr(
            [_with_element_type(attrs, op.results[0].type) for op, attrs in arguments]
        )
        result_attrs = [
            _with_element_type(DictionaryAttr({}), value.type)
            for value in self.graph.output.operands
        ]
        if any(attrs.data for attrs in result_attrs):
            function.res_attrs = ArrayAttr(result_attrs)
        return lowered

    def _bind_globals(
        self, context: LoweringContext, call: PartitionedCallOp | None
    ) -> None:
        """`memref.get_global` of each inline constant whose function is the
        one of `call` (None: the graph's own)."""
        for op, name in self.global_names.items():
            if enclosing_call(op) is call:
                layout = self._layout(context, op)
                get = context.emitter.add(memref.GetGlobalOp(name, buffer_type(layout)))
                context.buffers[op.results[0]] = Buffer(get.results[0], layout)

    def _reject_unsupported(self, block: Block | None = None) -> None:
        for op in (block or self.graph.body.block).ops:
            if type(op) in CONTROL_FLOW or type(op) in CALLS:
                for region in op.regions:
                    self._reject_unsupported(region.block)
            elif not isinstance(op, DataOp | ConstOp | NetOutputOp) and (
                lowering_for(op) is None
            ):
                reason = unlowered_reason(op)
                detail = f" ({reason})" if reason else ""
                raise error_at(op, f"has no loop lowering{detail}")

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
        constants = graph_constants(self.graph)
        inline = []
        keys: set[str] = set()
        for position, op in enumerate(constants):
            key = weight_key(op)
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

    def owns(self, buffer: SSAValue) -> bool:
        """Whether the function being lowered allocated `buffer` (and frees it)."""
        return isinstance(buffer.owner, memref.AllocOp) or buffer in self.owned_results

    def _lower_ops(self, context: LoweringContext, block: Block) -> None:
        """Lower each op of a graph's (or a called subgraph's) block; free each
        allocated buffer after its last alias's last use."""
        ops = list(block.ops)
        last_use: dict[SSAValue, int] = {}
        for position, op in enumerate(ops):
            for value in op.operands:
                last_use[value] = len(ops) if isinstance(op, NetOutputOp) else position
        holders: dict[SSAValue, set[SSAValue]] = {}
        for position, op in enumerate(ops):
            if isinstance(op, DataOp | ConstOp | NetOutputOp):
                continue
            self._lower_op(context, op)
            for result in op.results:
                buffer = context.buffers[result].memref
                if self.owns(buffer):
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

    def _lower_op(self, context: LoweringContext, op: Operation) -> None:
        context.op = op
        control_flow = CONTROL_FLOW.get(type(op))
        if control_flow is not None:
            control_flow(context, op, self._lower_region)
        elif isinstance(op, PartitionedCallOp):
            self._lower_call(context, op)
        else:
            lowering = lowering_for(op)
            assert lowering is not None
            lowering(context, op)
        context.op = op
        context.free_temporaries()

    def _lower_region(
        self,
        context: LoweringContext,
        region: Region,
        operands: Sequence[Buffer],
        deliver: Callable[[list[Buffer]], None],
    ) -> None:
        """Lower a subgraph into the current block (`control_flow.LowerRegion`):
        `deliver` gets its output buffers, then the buffers it allocated are
        freed."""
        parent = context.op
        temporaries, context.temporaries = context.temporaries, []
        allocated: list[Buffer] = []
        terminator = region.block.last_op
        assert isinstance(terminator, NetOutputOp)
        self._bind_subgraph_inputs(context, region.block, operands, allocated)
        for op in region.block.ops:
            if not isinstance(op, DataOp | ConstOp | NetOutputOp):
                self._lower_op(context, op)
                allocated += [
                    context.buffers[r]
                    for r in op.results
                    if self.owns(context.buffers[r].memref)
                ]
        context.op = parent
        deliver([context.buffers[v] for v in terminator.operands])
        context.temporaries = temporaries
        freed: set[SSAValue] = set()
        for buffer in allocated:
            if buffer.memref not in freed:
                freed.add(buffer.memref)
                context.emitter.dealloc(buffer)

    def _lower_call(self, context: LoweringContext, op: PartitionedCallOp) -> None:
        """`ge.partitioned_call` -> `func.call` of a new private function
        lowering its subgraph (see the module docstring)."""
        engine = op.engine.data.lower() if op.engine is not None else "call"
        number = next(self._call_numbers)
        name = f"{self.graph.sym_name.data}_{engine}{number}"
        weights = [c for c in op.f.walk() if isinstance(c, ConstOp) and weight_key(c)]
        passed = context.operands() + [context.buffers[c.results[0]] for c in weights]
        arguments = [b.memref for b in passed]
        if context.arena is not None:
            arguments.append(context.arena)
        block = Block(arg_types=[a.type for a in arguments])
        callee = LoweringContext(
            Emitter(block),
            self.target,
            arena_offsets=context.arena_offsets,
            tables=context.tables,
            table_prefix=context.table_prefix,
        )
        if context.arena is not None:
            callee.arena = block.args[-1]
        inner = [Buffer(a, b.layout) for a, b in zip(block.args, passed, strict=False)]
        for const, buffer in zip(weights, inner[len(op.operands) :], strict=True):
            callee.buffers[const.results[0]] = buffer
        self._bind_globals(callee, op)
        copies: list[Buffer] = []
        self._bind_subgraph_inputs(callee, op.f.block, inner, copies)
        self._lower_ops(callee, op.f.block)
        outputs = self._call_outputs(callee, op)
        for buffer in copies:
            if all(o.memref is not buffer.memref for o in outputs):
                callee.emitter.dealloc(buffer)
        block.add_op(func.ReturnOp(*(o.memref for o in outputs)))
        callee.emitter.fill_read_padding()
        result_types = [o.memref.type for o in outputs]
        callee_function = func.FuncOp(
            name, (block.arg_types, result_types), Region(block), visibility="private"
        )
        self.callees.insert(number, callee_function)  # in call order
        call = context.emitter.add(func.CallOp(name, arguments, result_types))
        context.op = op
        returned: dict[SSAValue, Buffer] = {}
        for result, output, value in zip(
            op.results, outputs, call.results, strict=True
        ):
            if output.memref not in returned:
                if isinstance(output.memref, BlockArgument):  # passed through
                    returned[output.memref] = passed[output.memref.index]
                else:
                    returned[output.memref] = Buffer(value, output.layout)
                    if isinstance(output.memref.owner, memref.AllocOp):
                        self.owned_results.add(value)
            context.alias(result, returned[output.memref])

    @staticmethod
    def _call_outputs(callee: LoweringContext, op: PartitionedCallOp) -> list[Buffer]:
        """The buffers a called subgraph returns, in its results' layouts."""
        terminator = op.f.block.last_op
        assert isinstance(terminator, NetOutputOp)
        outputs = []
        for result, value in zip(op.results, terminator.operands, strict=True):
            callee.op = op
            output = callee.buffers[value]
            layout = callee.layout(result)
            if output.layout != layout:  # the caller holds it in another layout
                target = callee.emitter.alloc(layout)
                copy(callee, output, target, layout.origin_shape)
                output = target
            outputs.append(output)
        return outputs

    def _bind_subgraph_inputs(
        self,
        context: LoweringContext,
        block: Block,
        operands: Sequence[Buffer],
        allocated: list[Buffer],
    ) -> None:
        """Bind each `ge.data {parent_index = i}` of a subgraph to operand `i`
        (copied into a new buffer, appended to `allocated`, when the subgraph
        holds it in another layout)."""
        for op in block.ops:
            if not isinstance(op, DataOp):
                continue
            source = operands[op.index_value]
            context.op = op
            layout = context.layout(op.output)
            if layout == source.layout:
                context.buffers[op.output] = source
            else:
                target = context.emitter.alloc(layout)
                copy(context, source, target, layout.origin_shape)
                context.buffers[op.output] = target
                allocated.append(target)


def enclosing_call(op: Operation) -> PartitionedCallOp | None:
    """The innermost `ge.partitioned_call` whose subgraph holds `op` (None:
    the graph's own function)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, GraphOp):
        if isinstance(parent, PartitionedCallOp):
            return parent
        parent = parent.parent_op()
    return None


def graph_constants(graph: GraphOp) -> list[ConstOp]:
    """The graph's `ge.const` ops, those of its subgraphs included, in order."""
    return [op for op in graph.walk() if isinstance(op, ConstOp)]


def _with_element_type(attrs: DictionaryAttr, tensor_type: Attribute) -> DictionaryAttr:
    """`attrs` plus `ge.element_type` when the tensor's element type is not
    the signless one its memref holds (`ui8`: the caller's arrays are uint8)."""
    element = getattr(tensor_type, "element_type", None)
    if not isinstance(element, IntegerType) or element == signless(element):
        return attrs
    return DictionaryAttr({**attrs.data, ELEMENT_TYPE_ATTR: element})


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

    def lowered(self, graph: GraphOp) -> list[Operation]:
        """The ops this pass replaces `graph` with (`memref.global`s,
        `func.func`s), built beside it: the graph is only read, so a caller
        that keeps it needs no copy of it (a model's graph clone was a
        twentieth of its lowering)."""
        return GraphLowering(graph, self.target).run()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            LowerGraphToFunc(self.target), apply_recursively=False
        ).rewrite_module(op)
