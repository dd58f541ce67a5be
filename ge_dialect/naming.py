"""Node names: how diagnostics, dumps, traces and pictures name an op.

An op's node name is its `name` attribute (the framework's node name, kept
by the importers), else `<op type>_<n>` with n counting the ops of that type
before it in its graph.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from ge_dialect.ops import GraphOp


def op_type(op: Operation) -> str:
    """The op's type as node names use it: `relu` for `ge.relu`."""
    return op.name.removeprefix("ge.")


def node_name(op: Operation) -> str | None:
    """The op's `name` attribute, if it has one."""
    name = op.attributes.get("name")
    return name.data if isinstance(name, StringAttr) else None


def node_labels(graph: Operation) -> dict[Operation, str]:
    """Each op's node name: its `name` attribute, else `<op type>_<n>`.

    n counts the ops of that type before it in `graph` (from 0).
    """
    counts: dict[str, int] = {}
    labels: dict[Operation, str] = {}
    for op in graph.walk():
        key = op_type(op)
        number = counts.get(key, 0)
        counts[key] = number + 1
        name = op.attributes.get("name")
        labels[op] = name.data if isinstance(name, StringAttr) else f"{key}_{number}"
    return labels


def node_label(op: Operation) -> str:
    """The node name of one op (see `node_labels`); only an unnamed op needs
    the walk over its graph that numbers it."""
    name = op.attributes.get("name")
    if isinstance(name, StringAttr):
        return name.data
    top = op
    while (parent := top.parent_op()) is not None and not isinstance(top, GraphOp):
        top = parent
    return node_labels(top).get(op, op_type(op))
