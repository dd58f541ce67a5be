"""`mark-fallback`: mark the ops whose kernels are dispatched through a host fallback.

GE's fallback dispatch (SPEC §8, the fallback note in `seeds/`): an op whose
op-information record has `fallback_enabled` gets the attribute `_fallback`
holding its mode, and the pass logs GE's key line
`<op name>, setting fallback attribute`, followed by the mode and what it
means for a run, since a `support_aclnn` op on a static graph still runs
sunk (logger `passes.mark_fallback`, level INFO; `ge-opt` and `ge-atc`
print it on stderr unless `--log` is above `info`). The op name is the
node's `name` attribute, else `<op type>_<n>`.

```mlir
%s = ge.softmax %x {name = "probs"} : tensor<?x10xf32> -> tensor<?x10xf32>
```
becomes (log: `probs, setting fallback attribute support_aclnn (sunk with
the graph while shapes are static; a host single-op call only under dynamic
shapes)`)
```mlir
%s = ge.softmax %x {name = "probs", _fallback = "support_aclnn"}
   : tensor<?x10xf32> -> tensor<?x10xf32>
```

Modes (`ge_dialect.opinfo.FallbackMode`): `support_aclnn` (the default)
runs the op with the sunk graph when shapes are static and through its host
single-op function under host scheduling; `aclnn_only` always runs it on
the host, splitting a static graph around it (`ge_runtime/engines/scheduler.py`).
The motivating case is a multi-kernel op, such as a matmul implemented as
several kernels, whose kernel launches GE cannot plan in advance. An op
that already carries `_fallback` keeps it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ge_dialect.attributes import StringType
from ge_dialect.naming import node_labels
from ge_dialect.opinfo import FallbackMode, find_op_info
from ge_dialect.ops import SUBGRAPH_OPS, GraphOp, Structural

LOG = logging.getLogger(__name__)

FALLBACK_ATTRIBUTE = "_fallback"
"""The attribute holding an op's fallback mode (`support_aclnn`/`aclnn_only`)."""

LOG_LINE = "%s, setting fallback attribute %s (%s)"
"""GE's key log line `<op name>, setting fallback attribute`, then the mode
and what it means for a run (most ops marked still run sunk)."""


def mark_graph(graph: GraphOp) -> None:
    """Set `_fallback` on every fallback-enabled op of `graph` and log each."""
    labels = node_labels(graph)
    for op in graph.walk():
        if FALLBACK_ATTRIBUTE in op.attributes:
            continue
        mode = fallback_mode(op)
        if mode is None:
            continue
        op.attributes[FALLBACK_ATTRIBUTE] = StringAttr(mode)
        LOG.info(LOG_LINE, labels[op], mode.value, mode.effect)


def fallback_mode(op: Operation) -> FallbackMode | None:
    """The fallback mode of `op` (None: none): its op information's, and
    `aclnn_only` for any other compute op that reads or makes strings (a
    `ge.equal` of strings), whose values live outside the arena the sunk
    parts run in."""
    info = find_op_info(op)
    if info is not None and info.fallback_enabled:
        assert info.fallback_mode is not None
        return info.fallback_mode
    if op.has_trait(Structural) or isinstance(op, SUBGRAPH_OPS):
        return None
    types = [v.type for v in (*op.operands, *op.results)]
    if any(
        isinstance(t, TensorType) and isinstance(t.element_type, StringType)
        for t in types
    ):
        return FallbackMode.ACLNN_ONLY
    return None


@dataclass(frozen=True)
class MarkFallbackPass(ModulePass):
    """Mark fallback-enabled ops with `_fallback` (their mode) and log each."""

    name = "mark-fallback"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.ops:
            if isinstance(graph, GraphOp):
                mark_graph(graph)
