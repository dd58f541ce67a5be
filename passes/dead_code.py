"""Erasing ops a rewrite left dead, by xDSL's own criterion.

`ge` ops carry xDSL's `Pure` trait, so `is_trivially_dead` (what `dce`
removes: side-effect free, no result used) applies to them; rewrite patterns
call `erase_dead` on the producers they may have orphaned.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def erase_dead(rewriter: PatternRewriter, ops: Iterable[object]) -> None:
    """Erase each of `ops` that is an op `dce` would remove."""
    for op in dict.fromkeys(ops):
        if isinstance(op, Operation) and is_trivially_dead(op):
            rewriter.erase(op)
