"""`ge-format-pipeline`: the whole format flow of SPEC §4, steps 2-7, in GE's order.

```
ge-opt model.mlir -p 'ge-format-pipeline{data-format=NCHW target=Ascend910 stats=true}'
ge-opt model.mlir --ge-format-pipeline=stats=true
```

1. Preparation, once: `infer-origin-format` (option `data-format`),
   `infer-shape`, `refine-running-format`, `select-storage-format` (options
   `target` and `spread`), `insert-transdata`, then
   `unchanged-transpose-remove` (GE runs it while preparing the graph).
2. Optimisation, repeated until a round changes nothing: GE's stage 1_1
   graph passes (`same-transdata-breadth-fusion`,
   `transop-without-reshape-fusion`, `transop-breadth-fusion`), then its
   stage 1_2 node passes (`cast-remove`, `transpose-transdata-fusion`,
   `transop-symmetry-elimination`, `dim1-transpose-to-squeeze`), research
   §2.0. With `beyond-ge=true` (the default) each round ends with the
   passes beyond GE, `compose-trans-ops`, `sink-trans-ops` and
   `fuse-confusion-transpose` (docs/GE_DEVIATIONS.md).

Every pass is looked up by name (`passes.get_all_passes()`). With
`stats=true` the number of runtime TransData (those not reading a constant)
is printed to stderr after each pass:

```
ge-format-pipeline: insert-transdata: 34 runtime TransData
ge-format-pipeline: round 1: sink-trans-ops: 2 runtime TransData
```

Under a refusal ledger (`passes/transdata_report.py`, what `ge-atc
--report-transdata` activates) the passes record which op refused which
format and why; each round forgets the previous round's refusals, and at
the fixed point every remaining TransData keeps its reasons.

`ge-opt --print-between-passes` also prints the IR after each inner pass,
each followed by `// N runtime TransData after PASS`: the driver hands its
between-passes callback to `NESTED_PASS_CALLBACK` (`ge-atc` uses it for its
progress lines and `--dump-graph`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.diagnostics import GEError
from passes.options import check_data_format_option, check_target_option
from passes.transdata_report import REFUSALS, is_runtime_transdata, transdata_sites

PREPARATION: tuple[str, ...] = (
    "infer-origin-format",
    "infer-shape",
    "refine-running-format",
    "select-storage-format",
    "insert-transdata",
    "unchanged-transpose-remove",
)
"""Run once, in this order (SPEC §4 steps 2-6 and GE's graph preparation)."""

GE_OPTIMISATION: tuple[str, ...] = (
    "same-transdata-breadth-fusion",
    "transop-without-reshape-fusion",
    "transop-breadth-fusion",
    "cast-remove",
    "transpose-transdata-fusion",
    "transop-symmetry-elimination",
    "dim1-transpose-to-squeeze",
)
"""One optimisation round in GE's order (OptimizeStage1: 1_1, then 1_2)."""

BEYOND_GE: tuple[str, ...] = (
    "compose-trans-ops",
    "sink-trans-ops",
    "fuse-confusion-transpose",
)
"""Appended to each round with `beyond-ge=true`."""

PASS_OPTIONS: dict[str, tuple[str, ...]] = {
    "infer-origin-format": ("data_format",),
    "select-storage-format": ("target", "spread"),
}
"""Which pipeline options are forwarded to which pass."""

MAX_ROUNDS = 16
"""Optimisation rounds before the pipeline gives up on reaching a fixed point."""

PassCallback = Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]

NESTED_PASS_CALLBACK: ContextVar[PassCallback | None] = ContextVar(
    "NESTED_PASS_CALLBACK", default=None
)
"""Called as `(inner pass, module, pipeline pass)` after each inner pass (a
driver sets it for `--print-between-passes`)."""


def runtime_transdata_count(module: ModuleOp) -> int:
    """How many `ge.transdata` run at run time (their operand is not a constant)."""
    return sum(1 for op in module.walk() if is_runtime_transdata(op))


def runtime_transdata_sites(module: ModuleOp) -> list[str]:
    """Each runtime `ge.transdata` as `FORMAT->FORMAT producer -> consumers`."""
    return [site.line() for site in transdata_sites(module)]


def structure(op: Operation) -> list[object]:
    """What xDSL's `is_structurally_equivalent` compares of `op`, as a list
    that compares equal to that of another op exactly when the two are
    structurally equivalent (a round's fixed point: the module after the
    round against itself before, without a copy of it, a third of the time
    of copying and comparing): in its walk order, each op's name, counts
    of operands, results, regions and successors, its attributes and
    properties, and what its operands and successors are (the values and
    blocks inside numbered as they are defined, the result of an op after
    its regions; one defined outside, itself; one used before it is
    defined, never equal); each region's block count and each block's
    argument types and op count. As xDSL's, the result types are not
    compared."""
    numbers: dict[SSAValue | Block, int] = {}
    items: list[object] = []

    def code(item: SSAValue | Block) -> object:
        number = numbers.get(item)
        if number is not None:
            return number
        inside = item.owner if isinstance(item, SSAValue) else item
        while inside is not None and inside is not op:
            inside = inside.parent
        return object() if inside is op else item  # used before it is defined

    def visit(current: Operation) -> None:
        items.append(
            (
                current.name,
                len(current.operands),
                len(current.results),
                len(current.regions),
                len(current.successors),
                dict(current.attributes),
                dict(current.properties),
                tuple([code(operand) for operand in current.operands]),
                tuple([code(successor) for successor in current.successors]),
            )
        )
        for region in current.regions:
            items.append(len(region.blocks))
            for block in region.blocks:
                numbers[block] = len(numbers)
            for block in region.blocks:
                items.append((tuple([arg.type for arg in block.args]), len(block.ops)))
                for arg in block.args:
                    numbers[arg] = len(numbers)
                for inner in block.ops:
                    visit(inner)
        for result in current.results:
            numbers[result] = len(numbers)

    visit(op)
    return items


@dataclass(frozen=True)
class FormatPipelinePass(ModulePass):
    """The format flow in GE's order, optimisation iterated to a fixed point."""

    name = "ge-format-pipeline"

    data_format: str = "ND"
    """Forwarded to infer-origin-format (format of untouched rank-4 inputs)."""

    target: str | None = None
    """Forwarded to select-storage-format (the SoC whose C0 is used)."""

    spread: bool = True
    """Forwarded to select-storage-format (spread heavy formats to neighbours);
    without it the optimisation passes do the work the spread would."""

    stats: bool = False
    """Print the runtime TransData count after each pass (stderr)."""

    beyond_ge: bool = True
    """Also run compose-trans-ops and sink-trans-ops in each round."""

    def __post_init__(self) -> None:
        check_data_format_option(self, "data_format", self.data_format)
        check_target_option(self, "target", self.target)

    def inner_pass(self, name: str) -> ModulePass:
        """The pass called `name`, with the pipeline options it takes."""
        from passes import get_all_passes

        factory = get_all_passes().get(name)
        if factory is None:
            raise GEError(f"error: ge-format-pipeline needs the pass '{name}'")
        options = {
            option: getattr(self, option)
            for option in PASS_OPTIONS.get(name, ())
            if getattr(self, option) is not None
        }
        return factory()(**options)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(ctx, op)

    def run(self, ctx: Context, op: ModuleOp) -> list[tuple[str, int]]:
        """Apply the pipeline; (step, runtime TransData after it) for each pass."""
        callback = NESTED_PASS_CALLBACK.get()
        counts: list[tuple[str, int]] = []

        def step(inner: ModulePass, label: str) -> None:
            inner.apply(ctx, op)
            counts.append((label, runtime_transdata_count(op)))
            if self.stats:
                print(
                    f"ge-format-pipeline: {label}: {counts[-1][1]} runtime TransData",
                    file=sys.stderr,
                )
            if callback is not None:
                callback(inner, op, self)

        for name in PREPARATION:
            step(self.inner_pass(name), name)
        names = GE_OPTIMISATION + (BEYOND_GE if self.beyond_ge else ())
        optimisation = [self.inner_pass(name) for name in names]
        ledger = REFUSALS.get()
        for round_ in range(1, MAX_ROUNDS + 1):
            before = structure(op)
            if ledger is not None:  # this round decides again
                ledger.forget(set(names))
            for inner in optimisation:
                step(inner, f"round {round_}: {inner.name}")
            if structure(op) == before:
                if ledger is not None:
                    ledger.settle(op)
                return counts
        raise GEError(
            f"error: ge-format-pipeline did not reach a fixed point in "
            f"{MAX_ROUNDS} rounds"
        )
