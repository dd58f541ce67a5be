"""Dataflow order of a graph block: every operand is defined before its use.

A `ge` graph (and each subgraph) is a dataflow graph written in execution
order: the evaluator, the scheduler and the lowering walk a block from top
to bottom. The text parser accepts forward references, so a cycle

```mlir
%a = ge.add %x, %b : ...
%b = ge.relu %a : ...
```

or a use above its definition would parse; `check_block_order` rejects both,
naming the op (`OrderError.op`) the diagnostic is located at: the first op of
a cycle (with the cycle spelled out), else the first op that uses a value
defined further down. The walks are iterative, so any graph size is fine.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException


class OrderError(VerifyException):
    """A dataflow-order violation, to be reported at `op` rather than the graph."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def value_label(value: SSAValue) -> str:
    """`%name` of a value, or `result #i of 'ge.op'` when it has no name."""
    if value.name_hint:
        return f"%{value.name_hint}"
    owner = value.owner
    index = getattr(value, "index", 0)
    name = owner.name if isinstance(owner, Operation) else "block"
    return f"result #{index} of '{name}'"


def check_block_order(block: Block) -> None:
    """Raise `OrderError` unless each op's operands are defined above it."""
    position = {op: index for index, op in enumerate(block.ops)}
    for op, index in position.items():
        for number, operand in enumerate(op.operands):
            owner = operand.owner
            if isinstance(owner, Operation) and position.get(owner, -1) >= index:
                cycle = find_cycle(block, position)
                if cycle is not None:
                    spelled = _spell(cycle)
                    raise OrderError(cycle[0], f"is on a dataflow cycle: {spelled}")
                raise OrderError(
                    op,
                    f"operand #{number} ({value_label(operand)}) is used before its "
                    f"definition by '{owner.name}' further down the block",
                )


def _spell(cycle: list[Operation]) -> str:
    """`'ge.add' (%a) -> 'ge.relu' (%b) -> 'ge.add'`."""
    steps = [f"'{op.name}' ({_result_label(op)})" for op in cycle]
    return " -> ".join([*steps, f"'{cycle[0].name}'"])


def _result_label(op: Operation) -> str:
    return ", ".join(value_label(result) for result in op.results) or "no result"


def find_cycle(block: Block, position: dict[Operation, int]) -> list[Operation] | None:
    """A cycle among the block's ops (producer before user, starting at the
    op earliest in the block), or None. Iterative depth-first search."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(position, WHITE)

    def producers(op: Operation) -> list[Operation]:
        found = []
        for operand in op.operands:
            owner = operand.owner
            if isinstance(owner, Operation) and owner in position:
                found.append(owner)
        return found

    for root in position:
        if colour[root] != WHITE:
            continue
        colour[root] = GREY
        path = [root]
        stack = [iter(producers(root))]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                colour[path.pop()] = BLACK
                stack.pop()
            elif colour[child] == GREY:
                loop = path[path.index(child) :]
                loop.reverse()  # producers first: data flows left to right
                start = min(range(len(loop)), key=lambda i: position[loop[i]])
                return loop[start:] + loop[:start]
            elif colour[child] == WHITE:
                colour[child] = GREY
                path.append(child)
                stack.append(iter(producers(child)))
    return None
