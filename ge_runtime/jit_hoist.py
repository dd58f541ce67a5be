"""Moving what every call computes the same out of a generated function.

The JIT's generated function takes the graph's inputs and its weights. What
depends only on the weights (and on the constants of the namespace) — views
of weights, weights packed into the matrices the GEMMs read — is the same on
every call: `hoist_invariants` moves those top-level statements into a
`prepare` function that runs once when the weights are bound.

A statement moves when it assigns one name, reads only invariant names, and
nothing the function writes (a store target, an `out=` argument, the
source of such a view) can be reached from what it assigns:

```python
def jitted(x, w):                     def prepare(w):
    t1 = strided_view(w, ...)             t1 = strided_view(w, ...)
    g2 = pack(t1.transpose(...), ...)     g2 = pack(t1.transpose(...), ...)
    g3 = pack(x..., _workspace[0])        return (g2,)
    np.dot(g3, g2, out=...)     ->    def jitted(x, w, g2):
                                          g3 = pack(x..., _workspace[0])
                                          np.dot(g3, g2, out=...)
```
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MODULES = frozenset({"np"})
"""Names of modules in the generated code's namespace (never buffers)."""


@dataclass(frozen=True)
class Hoisted:
    """A function body split into what runs once and what runs per call."""

    prepare: list[str]
    """Statements of `prepare` (indented as the body was)."""
    body: list[str]
    """Statements left in the function."""
    names: list[str]
    """Names `prepare` computes that the body reads, in order."""


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not _stored(n)}


def _stored(name: ast.Name) -> bool:
    return isinstance(name.ctx, ast.Store)


def _buffers(node: ast.AST) -> set[str]:
    """The names in an expression other than the functions it calls."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Call):
        parts = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(node.func, ast.Attribute) and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id in MODULES
        ):
            parts.append(node.func.value)  # a method of an array: a view of it
        return set().union(*map(_buffers, parts)) if parts else set()
    return set().union(set(), *map(_buffers, ast.iter_child_nodes(node)))


def _written(tree: ast.Module, writes: Mapping[str, Sequence[int]]) -> set[str]:
    """Names whose array the function writes, and every name they view."""
    written: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if not isinstance(t, ast.Name)]
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            targets = [k.value for k in node.keywords if k.arg == "out"]
            if isinstance(node.func, ast.Name) and node.func.id in writes:
                targets += [node.args[i] for i in writes[node.func.id]]
        for target in targets:
            written |= _buffers(target)
    assignments = [
        (node.targets[0].id, _buffers(node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    ]
    changed = True
    while changed:
        changed = False
        for target, sources in assignments:
            if target in written and not sources <= written:
                written |= sources
                changed = True
    return written


def hoist_invariants(
    body: Sequence[str],
    invariant: set[str],
    writes: Mapping[str, Sequence[int]] | None = None,
) -> Hoisted:
    """Split `body` (the lines of a function body, one indentation level);
    `writes` names the functions that write some of their positional
    arguments (compiled kernels), and at which positions."""
    text = "\n".join(body)
    tree = ast.parse("if True:\n" + text)
    statements = tree.body[0].body  # type: ignore[attr-defined]
    lines = text.split("\n")
    assigned: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and _stored(node):
            assigned[node.id] = assigned.get(node.id, 0) + 1
    written = _written(tree, writes or {})
    known = set(invariant) - written
    prepare: list[str] = []
    kept: list[str] = []
    computed: list[str] = []
    for statement in statements:
        source = lines[statement.lineno - 2 : statement.end_lineno - 1]
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and assigned[target.id] == 1
            and target.id not in written
            and _loaded(statement.value) <= known
        ):
            known.add(target.id)
            computed.append(target.id)
            prepare += source
        else:
            kept += source
    read = _loaded(ast.parse("if True:\n" + "\n".join(kept))) if kept else set()
    return Hoisted(prepare, kept, [name for name in computed if name in read])
