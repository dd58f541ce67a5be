"""Scalar work and control flow as C: a run of them in one C call.

Between its loop nests (C kernels), a generated function has scalar work
and control flow: an `If`'s condition (a tensor's mean compared with 0:
loads of one-element buffers, their arithmetic, stores back), the branches,
and `scf.while` loops (`passes.lowering.control_flow`), whose iterations
run kernels and count trips. Run as Python, each statement goes through the
interpreter, and each run of kernels between them is a `ctypes` call of its
own (per iteration, in a loop). `CRegion` writes a run of such ops of one
block as one C function: it computes the scalars in locals, runs branches
and loops as C control flow calling their nests' kernels, and counts each
loop's trips against the run's budget (`run_inputs.iteration_budget`,
passed on each call). A region without loops is a kernel like the nests',
which `kernel_calls` merges with the calls around it; one with loops
returns 0, minus the number of the loop that ran out of its budget, or the
number of a nest's failed check on the data (`c_runtime.checked`: a gather
out of range), which the Python around the call raises as the Python loop
would:

```c
int k9(void *a0, void *a1, void *a2, void *budget) {
    int e;
    int64_t n1 = 0;
    for (;;) {
        uint8_t s1 = ((uint8_t *) a0)[0];
        if (!s1) break;
        if (++n1 > (int64_t) (intptr_t) budget) return -1;
        int64_t s2 = ((int64_t *) a1)[0];
        int64_t s3 = (s2 + ((int64_t) 1));
        ((int64_t *) a1)[0] = s3;
        k4(a1, a2);
    }
    return 0;
}
```

The nests inside branches and loops become kernels as anywhere else
(`schedule.kernels.nest_source`); what their calls need (addresses, weights
packed once) is computed before the region: every buffer it reads or
writes is made before it, so each address holds on every iteration. Views,
constants and constant globals are bound in Python before it too; a buffer
a branch or an iteration makes and frees (an accumulator's scratch) is made
once, before it. A region with anything else (a nest NumPy or BLAS runs,
an op C does not spell, a call, a scalar the code after it reads) raises
`Unsupported`: its ops stay Python statements around their kernels.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import Unsupported, element_strides
from ge_runtime.jit.c_runtime import address
from ge_runtime.jit.emit import c
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import OPS, constant_value, numpy_dtype, predicate
from ge_runtime.jit.schedule.kernel_calls import CALL, CHECKED_CALL
from ge_runtime.run_inputs import iteration_budget

NestSource = Callable[[affine.ForOp, str], tuple[list[str], str | None]]
"""A top-level nest's Python lines, and None if they are a C kernel's call,
else why not (`schedule.kernels.nest_source`)."""

Binding = Callable[[Operation, str], list[str]]
"""The Python lines binding what an op makes (a view, a constant global)."""

BUDGET_CAP = (1 << 63) - 1
"""The largest budget the C counter holds (a larger one: as good as none)."""

VIEWS = (
    memref.GetGlobalOp,
    memref.SubviewOp,
    memref.ViewOp,
    memref.ReinterpretCastOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
    memref.CastOp,
)
"""Ops making a buffer of a buffer made before them (or a constant global):
bound in Python before the region."""

PREPARED_CALLS = frozenset({"address", "strided_view", "np.ascontiguousarray"})
"""What the lines before a nest's kernel call may call: they compute its
addresses and pack its weights (`native_operands._packed_weight`), nothing
that reads what the region writes."""


KNOWN = (
    affine.ForOp,
    affine.LoadOp,
    affine.StoreOp,
    memref.LoadOp,
    memref.StoreOp,
    memref.AllocOp,
    memref.AllocaOp,
    memref.DeallocOp,
    arith.ConstantOp,
    scf.IfOp,
    scf.IndexSwitchOp,
    scf.WhileOp,
    scf.YieldOp,
    scf.ConditionOp,
    *VIEWS,
)
"""Ops a region takes besides the scalar ops C spells (`c.check_op`)."""

WORK = (
    affine.LoadOp,
    affine.StoreOp,
    memref.LoadOp,
    memref.StoreOp,
    scf.IfOp,
    scf.IndexSwitchOp,
    scf.WhileOp,
)
"""Ops that make a run worth a region: without one, a run is kernel calls
and bindings, which `kernel_calls` merges as they are."""


def candidate(op: Operation) -> bool:
    """Whether `op` may be in a region (what it nests is checked by
    `CRegion.emit`): a loop nest, control flow, an op binding a buffer or
    a constant, or a scalar op of C (`ops.OPS`' spellings)."""
    if isinstance(op, KNOWN):
        return True
    return (predicate(op) is not None or op.name in OPS) and all(
        not isinstance(result.type, MemRefType) for result in op.results
    )


def worth_a_region(ops: Sequence[Operation]) -> bool:
    """Whether a run of candidates has work Python would do op by op."""
    return any(isinstance(op, WORK) or not isinstance(op, KNOWN) for op in ops)


class CRegion:
    """A run of ops of one block (and what they nest) as a C function and
    its call."""

    def __init__(self, env: CodeEnv, nest_source: NestSource, binding: Binding):
        self.env = env
        self._nest_source = nest_source
        self._binding = binding
        self.before: list[str] = []
        """Python lines run before the call (addresses, views, packing)."""
        self.body: list[str] = []
        self.pointers: dict[str, None] = {}
        """Python names of the addresses the function takes, in order."""
        self.written: set[str] = set()
        self.loops: list[scf.WhileOp] = []
        """The loops, numbered from 1 in the status (negated) a runaway one
        returns."""
        self.calls: list[str] = []
        self.messages: tuple[str, ...] = ()
        """The diagnostics of the checks of its nests' kernels, numbered from
        1 in the status a failed one returns (`c_runtime.checked`)."""
        self._locals: dict[SSAValue, str] = {}
        self._cells: dict[SSAValue, str] = {}
        """Each buffer whose elements the region reads or writes itself: the
        Python name of its address."""
        self._python = ""
        """The indentation of the Python lines."""
        self._values = 0

    def emit(
        self,
        ops: Sequence[Operation],
        indent: str,
        runaway: Callable[[scf.WhileOp], str],
    ) -> list[str]:
        """Python lines running `ops` (consecutive ops of one block, each a
        `candidate`) in one C call; `runaway(loop)` is the statement raising
        that `loop` ran out of its budget."""
        for op in ops:
            self._check(op)
        _check_escapes(ops)
        self._python = indent
        self._block(ops, "    ")
        if len(self.pointers) >= c.MAX_ARGUMENTS:
            raise Unsupported(f"{len(self.pointers)} buffers: more than ctypes passes")
        position = {name: i for i, name in enumerate(self.pointers)}
        body = [
            _ARGUMENT.sub(lambda m: f"a{position[m[1]]}", line) for line in self.body
        ]
        parameters = [f"void *a{i}" for i in range(len(position))]
        library = c.CLibrary.of(self.env)
        self.env.namespace["address"] = address
        arguments = list(self.pointers)
        status = bool(self.loops or self.messages)
        if self.loops:
            parameters.append("void *budget")
            budget = self.env.add_global(iteration_budget, "c")  # read per run
            arguments.append(f"min({budget}(), {BUDGET_CAP})")
        if status:
            body = [f"    {c.STATUS};", *body, "    return 0;"]
        name = library.caller(parameters, body, self.calls, returns=status)
        self.env.writes[name] = tuple(position[p] for p in self.written)
        call = f"{name}({', '.join(arguments)})"
        messages = self.env.add_global(self.messages, "m") if self.messages else ""
        if not self.loops:  # a kernel like the nests' (`kernel_calls` merges it)
            line = f"checked({call}, {messages})" if messages else call
            return [*self.before, f"{indent}{line}"]
        result = self.env.fresh("r")
        lines = [*self.before, f"{indent}{result} = {call}"]
        for number, loop in enumerate(self.loops, 1):
            lines += [
                f"{indent}if {result} == -{number}:",
                f"{indent}    {runaway(loop)}",
            ]
        if messages:
            lines.append(f"{indent}checked({result}, {messages})")
        return lines

    def _check(self, op: Operation) -> None:
        """Refuse an op (or an op it nests) the C function cannot run, before
        any nest becomes a kernel."""
        for inner in op.walk():
            if isinstance(inner.parent_op(), affine.ForOp):
                continue  # the nest's kernel's
            if not candidate(inner):
                raise Unsupported(f"'{inner.name}' in C control flow")
            if isinstance(inner, memref.AllocOp | memref.AllocaOp):
                if inner is not op:
                    self._check_scratch(inner)
            elif isinstance(inner, scf.WhileOp | scf.IfOp | scf.IndexSwitchOp):
                if inner.results:
                    raise Unsupported(f"'{inner.name}' carrying values")
            elif not isinstance(inner, KNOWN):
                c.check_op(inner, self.env.constants)
                for result in inner.results:
                    self._c_type(result)

    def _check_scratch(self, op: memref.AllocOp | memref.AllocaOp) -> None:
        """Refuse a buffer made in a branch or loop unless it is of static
        shape and freed in the block that makes it (scratch, which one
        buffer made before the region serves: nothing of it is read after
        its block), or made NaN anew each time (`poison`)."""
        if self.env.poison:
            raise Unsupported("a poisoned buffer made in a branch or loop")
        if op.operands:
            raise Unsupported("a buffer of dynamic shape made in a branch or loop")
        if isinstance(op, memref.AllocaOp):
            return
        block = op.parent_block()
        freed = any(
            isinstance(use.operation, memref.DeallocOp)
            and use.operation.parent_block() is block
            for use in op.results[0].uses
        )
        if not freed:
            raise Unsupported("a buffer made in a branch or loop outlives it")

    # -- statements -------------------------------------------------------

    def _block(self, ops: Sequence[Operation], indent: str) -> None:
        for op in ops:
            if isinstance(op, scf.YieldOp | scf.ConditionOp | memref.DeallocOp):
                continue  # a condition is its loop's; buffers outlive the loop
            if isinstance(op, affine.ForOp):
                self._nest(op, indent)
            elif isinstance(op, scf.WhileOp):
                self._while(op, indent)
            elif isinstance(op, scf.IfOp):
                self._if(op, indent)
            elif isinstance(op, scf.IndexSwitchOp):
                self._switch(op, indent)
            elif isinstance(op, (*VIEWS, memref.AllocOp, memref.AllocaOp)):
                if any(v in self._locals for v in op.operands):
                    raise Unsupported(f"'{op.name}' of a scalar the region computes")
                self.before += self._binding(op, self._python)
            elif isinstance(op, arith.ConstantOp):  # a literal; a name for views
                self.before += self._binding(op, self._python)
            elif isinstance(op, affine.LoadOp | memref.LoadOp):
                self._load(op, indent)
            elif isinstance(op, affine.StoreOp | memref.StoreOp):
                element = self._element(op.memref, op, written=True)
                self.body.append(f"{indent}{element} = {self._local(op.value)};")
            else:
                operands = [self._local(v) for v in op.operands]
                self._define(indent, op.results[0], c.expression(op, operands))

    def _while(self, op: scf.WhileOp, indent: str) -> None:
        self.loops.append(op)
        number = len(self.loops)
        count = f"n{number}"
        inner = indent + "    "
        self.body += [f"{indent}int64_t {count} = 0;", f"{indent}for (;;) {{"]
        self._block(list(op.before_region.block.ops), inner)
        condition = op.before_region.block.last_op
        assert isinstance(condition, scf.ConditionOp)
        self.body += [
            f"{inner}if (!{self._local(condition.condition)}) break;",
            f"{inner}if (++{count} > (int64_t) (intptr_t) budget) return -{number};",
        ]
        self._block(list(op.after_region.block.ops), inner)
        self.body.append(f"{indent}}}")

    def _if(self, op: scf.IfOp, indent: str) -> None:
        self.body.append(f"{indent}if ({self._local(op.cond)}) {{")
        self._block(list(op.true_region.block.ops), indent + "    ")
        if op.false_region.blocks:
            self.body.append(f"{indent}}} else {{")
            self._block(list(op.false_region.block.ops), indent + "    ")
        self.body.append(f"{indent}}}")

    def _switch(self, op: scf.IndexSwitchOp, indent: str) -> None:
        value = self._local(op.arg)
        cases = list(zip(op.cases.get_values(), op.case_regions, strict=True))
        for number, (case, region) in enumerate(cases):
            opening = "if" if number == 0 else "} else if"
            self.body.append(f"{indent}{opening} ({value} == {c.integer(case)}) {{")
            self._block(list(region.block.ops), indent + "    ")
        if cases:
            self.body.append(f"{indent}}} else {{")
        self._block(list(op.default_region.block.ops), indent + "    ")
        if cases:
            self.body.append(f"{indent}}}")

    def _nest(self, op: affine.ForOp, indent: str) -> None:
        """The nest's kernel call; what the call needs, before the region."""
        lines, not_native = self._nest_source(op, self._python)
        if not_native is not None:
            raise Unsupported(f"a nest runs as NumPy calls: {not_native}")
        call = CALL.fullmatch(lines[-1]) or CHECKED_CALL.fullmatch(lines[-1])
        if call is None:
            raise Unsupported("a nest runs Python around its kernel")
        for line in lines[:-1]:
            if not _prepares(line):
                raise Unsupported(f"a nest runs {line.strip()!r}")
        self.before += lines[:-1]
        kernel, arguments = call[2], call[3].split(", ") if call[3] else []
        for position in self.env.writes.get(kernel, range(len(arguments))):
            self.written.add(arguments[position])
        self.pointers.update(dict.fromkeys(arguments))
        self.calls.append(kernel)
        passed = f"{kernel}({', '.join(f'@{a}@' for a in arguments)})"
        if call.re is CALL:
            self.body.append(f"{indent}{passed};")
            return
        self.body.append(
            f"{indent}{c.stop_at_failed_check(passed, len(self.messages))}"
        )
        self.messages += self.env.namespace[call[4]]

    # -- values -----------------------------------------------------------

    def _load(self, op: affine.LoadOp | memref.LoadOp, indent: str) -> None:
        if op.memref in self.env.scalars:  # a constant: a literal
            self._locals[op.results[0]] = c.literal(
                self.env.scalars[op.memref], op.results[0].type
            )
            return
        element = self._element(op.memref, op, written=False)
        self._define(indent, op.results[0], element)

    def _element(
        self,
        buffer: SSAValue,
        op: affine.LoadOp | affine.StoreOp | memref.LoadOp | memref.StoreOp,
        written: bool,
    ) -> str:
        """The C lvalue of the element `op` reads or writes (its indices
        constants: one-element buffers, mostly)."""
        buffer_type = buffer.type
        assert isinstance(buffer_type, MemRefType)
        shape = tuple(buffer_type.get_shape())
        index = _constant_index(op)
        if any(not 0 <= i < n for i, n in zip(index, shape, strict=True)):
            raise Unsupported(f"'{op.name}' outside its buffer")
        strides = buffer_type.get_strides() or element_strides(shape)
        if any(s is None for s in strides):
            raise Unsupported("a buffer of dynamic strides")
        dtype = numpy_dtype(buffer_type.element_type)
        if dtype not in c.C_TYPES:
            raise Unsupported(f"a buffer of {dtype} in C")
        pointer = self._cells.get(buffer)
        if pointer is None:
            pointer = self._cells[buffer] = self.env.fresh("p")
            axes = tuple(a for a, n in enumerate(shape) if n > 1)
            byte_strides = tuple(strides[a] * dtype.itemsize for a in axes)
            self.before.append(
                f"{self._python}{pointer} = address("
                f"{self.env.name(buffer)}, {axes}, {byte_strides}, 0)"
            )
            self.pointers[pointer] = None
        if written:
            self.written.add(pointer)
        offset = sum(i * s for i, s in zip(index, strides, strict=True))
        return f"(({c.C_TYPES[dtype]} *) @{pointer}@)[{offset}]"

    def _define(self, indent: str, value: SSAValue, expression: str) -> None:
        name = f"s{self._values}"
        self._values += 1
        self._locals[value] = name
        self.body.append(f"{indent}{self._c_type(value)} {name} = {expression};")

    def _local(self, value: SSAValue) -> str:
        if value in self._locals:
            return self._locals[value]
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            self._c_type(value)
            return c.literal(constant_value(owner), value.type)
        raise Unsupported("a scalar from before the region")

    @staticmethod
    def _c_type(value: SSAValue) -> str:
        dtype = numpy_dtype(value.type)
        if dtype not in c.C_TYPES:
            raise Unsupported(f"a scalar of {dtype} in C")
        return c.C_TYPES[dtype]


_ARGUMENT = re.compile(r"@(\w+)@")
"""An address the function takes, by its Python name (its parameter once
they are numbered)."""


def _prepares(line: str) -> bool:
    """Whether `line` binds a name to what only `PREPARED_CALLS` compute."""
    statement = ast.parse(line.strip()).body[0]
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return False
    return all(
        ast.unparse(node.func) in PREPARED_CALLS
        for node in ast.walk(statement.value)
        if isinstance(node, ast.Call)
    )


def _constant_index(
    op: affine.LoadOp | affine.StoreOp | memref.LoadOp | memref.StoreOp,
) -> tuple[int, ...]:
    """The element `op` accesses, its indices constants (else `Unsupported`)."""
    values = []
    for operand in op.indices:
        owner = operand.owner
        if not isinstance(owner, arith.ConstantOp):
            raise Unsupported(f"'{op.name}' at a computed index")
        values.append(int(constant_value(owner)))
    if isinstance(op, affine.LoadOp | affine.StoreOp):
        affine_map = op.map.data
        dims = values[: affine_map.num_dims]
        return tuple(affine_map.eval(dims, values[affine_map.num_dims :]))
    return tuple(values)


def _check_escapes(ops: Sequence[Operation]) -> None:
    """Refuse a run one of whose scalars an op after it reads (C locals do
    not outlive the call)."""
    members = set(ops)
    for op in ops:
        for result in op.results:
            if isinstance(result.type, MemRefType) or isinstance(op, arith.ConstantOp):
                continue
            for use in result.uses:
                user: Operation | None = use.operation
                while user is not None and user.parent_block() is not op.parent_block():
                    user = user.parent_op()
                if user not in members:
                    raise Unsupported("a scalar the code after the region reads")
