"""Moving what every call computes the same out of a generated function.

The JIT's generated function takes the graph's inputs and its weights. What
depends only on the weights (and on the constants of the namespace) — views
of weights, weights packed into the matrices the GEMMs read — is the same on
every call: `hoist_invariants` moves those statements (out of the loops of
the function's control flow too) into a `prepare` function that runs once
when the weights are bound.

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
import keyword
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

MODULES = frozenset({"np"})
"""Names of modules in the generated code's namespace (never buffers)."""


@dataclass(frozen=True)
class Hoisted:
    """A function body split into what runs once and what runs per call."""

    prepare: list[str]
    """Statements of `prepare` (indented as the body was)."""
    rest: Parsed
    """Statements left in the function, parsed (`Parsed.without`)."""
    names: list[str]
    """Names `prepare` computes that the body reads, in order."""

    @property
    def body(self) -> list[str]:
        """Statements left in the function."""
        return self.rest.lines


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not _stored(n)}


def names_read(body: Sequence[str]) -> set[str]:
    """The names the statements of `body` (one indentation level) read."""
    return _loaded(ast.parse("if True:\n" + "\n".join(body))) if body else set()


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
    if isinstance(node, ast.Constant):
        return set()
    if isinstance(node, ast.Tuple):  # a literal's: its elements only (no context)
        return set().union(set(), *map(_buffers, node.elts))
    return set().union(set(), *map(_buffers, ast.iter_child_nodes(node)))


def _written(parsed: Parsed, writes: Mapping[str, Sequence[int]]) -> set[str]:
    """Names whose array the function (all its effects) writes, and every
    name they view (found of the assignments to the names written only)."""
    written: set[str] = set()
    assignments: list[tuple[str, ast.expr]] = []
    for node, _ in parsed.effects:
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if not isinstance(t, ast.Name)]
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assignments.append((node.targets[0].id, node.value))
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            targets = [k.value for k in node.keywords if k.arg == "out"]
            if isinstance(node.func, ast.Name) and node.func.id in writes:
                targets += [node.args[i] for i in writes[node.func.id]]
        for target in targets:
            written |= _buffers(target)
    viewed: dict[int, set[str]] = {}  # by assignment
    changed = True
    while changed:
        changed = False
        for index, (target, value) in enumerate(assignments):
            if target not in written:
                continue
            if index not in viewed:
                found = parsed.buffers.get(value)
                viewed[index] = _buffers(value) if found is None else set(found)
            if not viewed[index] <= written:
                written |= viewed[index]
                changed = True
    return written


@dataclass(frozen=True)
class Parsed:
    """A function body parsed once (`_parsed`)."""

    effects: list[tuple[ast.AST, ast.AST | None]]
    """Its assignments, augmented assignments and calls (what `_written`
    looks at), each with the assignment it is in (an assignment in
    itself)."""
    statements: list[ast.stmt]
    """Its top-level statements."""
    lines: list[str]
    assigned: Counter[str]
    """How many times each name is bound."""
    loaded: Counter[str]
    """How many times each name is read."""
    reads: dict[ast.AST, list[str]]
    """The names each assignment statement reads (as often as it does)."""
    binds: dict[ast.AST, list[str]]
    """The names each assignment statement binds (as often as it does)."""
    buffers: dict[ast.AST, list[str]]
    """`_buffers` of the values of the assignments `_parsed` built (`Built`)."""

    def read(self, assignment: ast.Assign) -> set[str]:
        """The names an assignment to a name reads (`_loaded` of its value)."""
        return set(self.reads[assignment])

    def without(self, moved: Sequence[ast.stmt]) -> Parsed:
        """What `_parsed` gives for the lines without the assignments `moved`
        (`_dropped`), not parsed again: the nodes left are these, the
        statements renumbered and their blocks rebuilt in place (this body
        is not read after)."""
        drop = _dropped(self.statements, moved)
        removed = [number for number, line in sorted(drop.items()) if line is None]
        gone = {id(statement) for statement in moved}
        passes: list[ast.stmt] = []

        def renumbered(block: list[ast.stmt]) -> list[ast.stmt]:
            kept = [statement for statement in block if id(statement) not in gone]
            if not kept:  # `pass` on the block's first line
                number = block[0].lineno - bisect_left(removed, block[0].lineno - 2)
                column = block[0].col_offset
                passes.append(
                    ast.Pass(
                        lineno=number,
                        col_offset=column,
                        end_lineno=number,
                        end_col_offset=column + 4,
                    )
                )
                return passes[-1:]
            for statement in kept:
                statement.lineno -= bisect_left(removed, statement.lineno - 2)
                if isinstance(statement, BLOCKS):
                    statement.body = renumbered(statement.body)
                    if statement.orelse:
                        statement.orelse = renumbered(statement.orelse)
                    last = (statement.orelse or statement.body)[-1]
                    statement.end_lineno = last.end_lineno
                    statement.end_col_offset = last.end_col_offset
                else:
                    statement.end_lineno -= bisect_left(
                        removed, statement.end_lineno - 2
                    )
            return kept

        statements = [s for s in self.statements if id(s) not in gone]
        statements = renumbered(statements) if statements else []
        return Parsed(
            [(n, a) for n, a in self.effects if a is None or id(a) not in gone],
            statements,
            _kept(self.lines, drop),
            _less(self.assigned, (name for a in moved for name in self.binds[a])),
            _less(self.loaded, (name for a in moved for name in self.reads[a])),
            {a: names for a, names in self.reads.items() if id(a) not in gone},
            {a: names for a, names in self.binds.items() if id(a) not in gone},
            self.buffers,
        )


def _less(counts: Counter[str], names: Iterable[str]) -> Counter[str]:
    """`counts - Counter(names)` (`counts` all positive), counting `names`
    alone."""
    left = counts.copy()
    for name in names:
        left[name] -= 1
        if left[name] <= 0:
            del left[name]
    return left


def _parsed(body: Sequence[str]) -> Parsed:
    """A function body's syntax tree, walked once (its effects, found in
    another order than `ast.walk`'s, and each assignment's names on the
    way). The statements of the forms the emitters write most (`_built`:
    nine in ten of a network's lines) are built without the parser, which
    reads a `pass` in their place, and not walked: what the walk finds in
    them is known (`Built`)."""
    text = "\n".join(body)
    lines = text.split("\n")
    built: dict[int, Built] = {}
    parsed = []
    for number, line in enumerate(lines):
        found = _built(line, number + 2)
        if found is None:
            parsed.append(line)
        else:
            built[number + 2] = found
            parsed.append(line[: found.statement.col_offset] + "pass")
    try:
        tree = ast.parse("if True:\n" + "\n".join(parsed))
        statements = tree.body[0].body  # type: ignore[attr-defined]
        whole = _put(statements, built) == len(built)
    except SyntaxError:
        whole = False
    if not whole:  # a line of a form continued a statement: parse it all
        built = {}
        tree = ast.parse("if True:\n" + text)
        statements = tree.body[0].body  # type: ignore[attr-defined]
    known: dict[ast.AST, Built] = {}
    buffers: dict[ast.AST, list[str]] = {}
    if built:
        known = {found.statement: found for found in built.values()}
        buffers = {
            found.statement.value: found.buffers  # type: ignore[attr-defined]
            for found in built.values()
            if found.binds
        }
    effects: list[tuple[ast.AST, ast.AST | None]] = []
    assigned: Counter[str] = Counter()
    loaded: Counter[str] = Counter()
    reads: dict[ast.AST, list[str]] = {}
    binds: dict[ast.AST, list[str]] = {}
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, owner = stack.pop()
        found = known.get(node)
        if found is not None:
            statement = found.statement
            if found.binds:
                reads[statement], binds[statement] = found.reads, found.binds
                assigned.update(found.binds)
            effects += found.effects
            loaded.update(found.loads)
            continue
        if isinstance(node, ast.Assign):
            owner = node
            reads[node], binds[node] = [], []
            effects.append((node, owner))
        elif isinstance(node, ast.AugAssign | ast.Call):
            effects.append((node, owner))
        elif isinstance(node, ast.Name):
            if _stored(node):
                assigned[node.id] += 1
                if owner is not None:
                    binds[owner].append(node.id)
            else:
                loaded[node.id] += 1
                if owner is not None:
                    reads[owner].append(node.id)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(
                    (item, owner) for item in value if isinstance(item, ast.AST)
                )
            elif isinstance(value, ast.AST):
                stack.append((value, owner))
    return Parsed(effects, statements, lines, assigned, loaded, reads, binds, buffers)


class Built(NamedTuple):
    """A statement `_parsed` built, and what its walk would find in it."""

    statement: ast.stmt
    effects: list[tuple[ast.AST, ast.AST | None]]
    """Its assignment and calls, in the walk's order, each with the
    assignment it is in (`Parsed.effects`)."""
    reads: list[str]
    """The names an assignment reads, in the walk's order (a call: none)."""
    binds: list[str]
    """The names an assignment binds (a call: none)."""
    loads: list[str]
    """Every name it reads."""
    buffers: list[str]
    """`_buffers` of an assignment's value (a call: none)."""


_NAME = rf"(?!(?:{'|'.join(keyword.kwlist)})\b)[A-Za-z_]\w*"
"""A name (not a keyword)."""
_INT = r"-?(?:0|[1-9]\d*)"
_TUPLE = rf"\(\)|\({_INT},\)|\((?:{_INT}, )+{_INT}\)"
_ADDRESS = re.compile(
    rf"( +)({_NAME}) = address\(({_NAME}), ({_TUPLE}), ({_TUPLE}), ({_INT})\)",
    re.ASCII,
)
"""A buffer's address (`c.CNest`'s calls: `p3 = address(v2, (0, 1), (64, 4), 0)`)."""
_CALL = re.compile(rf"( +)({_NAME})\(((?:{_NAME}, )*{_NAME})?\)", re.ASCII)
"""A call of a function with names (a kernel's: `k4(p3, p5)`)."""
_SLICE = re.compile(
    rf"( +)({_NAME}) = ({_NAME})\[({_NAME}):({_NAME}) \+ (\d+)\]"
    rf"\.view\(({_NAME})\)\.reshape\(({_TUPLE})\)",
    re.ASCII,
)
"""An arena slice (`CodeEnv.view_code`:
`v6 = v3[v4:v4 + 64].view(dt7).reshape((4, 4))`)."""
_ALIAS = re.compile(rf"( +)({_NAME}) = ({_NAME})", re.ASCII)
"""Another name for a value (`v15 = c16`)."""
_BUFFER = re.compile(rf"( +)({_NAME}) = _workspace\[(\d+)\]", re.ASCII)
"""A buffer of the thread (`CodeEnv.workspace`: `v3 = _workspace[0]`)."""
_COPY = re.compile(
    rf"( +)({_NAME}) = np\.ascontiguousarray\(strided_view\(({_NAME}), "
    rf"({_INT}), ({_TUPLE}), ({_TUPLE})\)\)",
    re.ASCII,
)
"""A weight's packed copy (`NativeOperands`'s:
`w8 = np.ascontiguousarray(strided_view(v2, 0, (4,), (4,)))`)."""


_LOAD, _STORE = ast.Load(), ast.Store()
"""The contexts of names and subscripts (the parser shares them too)."""


def _built(line: str, number: int) -> Built | None:
    """The statement `line` (line `number` of the parsed text) when it is
    of a form `_parsed` builds (`_ADDRESS`, `_CALL`, `_SLICE`, `_ALIAS`,
    `_BUFFER`, `_COPY`): the nodes the parser makes (the literals' shared,
    `_constant`)."""
    if (match := _ADDRESS.fullmatch(line)) is not None:
        indent, target, buffer, axes, strides, offset = match.groups()
        arguments = [_constant(axes), _constant(strides), _constant(offset)]
        value: ast.expr = ast.Call(_load("address"), [_load(buffer), *arguments], [])
        calls: list[ast.AST] = [value]
        reads, buffers = [buffer, "address"], [buffer]
    elif (match := _CALL.fullmatch(line)) is not None:
        indent, function, given = match.groups()
        names = given.split(", ") if given else []
        call = ast.Call(_load(function), [_load(name) for name in names], [])
        statement = _placed(ast.Expr(call), indent, number, line)
        return Built(statement, [(call, None)], [], [], [function, *names], [])
    elif (match := _SLICE.fullmatch(line)) is not None:
        indent, target, source, lower, start, size, dtype, shape = match.groups()
        upper = ast.BinOp(_load(start), ast.Add(), _constant(size))
        piece = ast.Subscript(
            _load(source), ast.Slice(_load(lower), upper, None), _LOAD
        )
        viewed = ast.Call(ast.Attribute(piece, "view", _LOAD), [_load(dtype)], [])
        value = ast.Call(
            ast.Attribute(viewed, "reshape", _LOAD), [_constant(shape)], []
        )
        calls = [value, viewed]
        reads = [dtype, start, lower, source]
        buffers = reads
    elif (match := _ALIAS.fullmatch(line)) is not None:
        indent, target, name = match.groups()
        value = _load(name)
        calls, reads = [], [name]
        buffers = reads
    elif (match := _BUFFER.fullmatch(line)) is not None:
        indent, target, slot = match.groups()
        value = ast.Subscript(_load("_workspace"), _constant(slot), _LOAD)
        calls, reads = [], ["_workspace"]
        buffers = reads
    elif (match := _COPY.fullmatch(line)) is not None:
        indent, target, source, offset, shape, strides = match.groups()
        arguments = [_constant(offset), _constant(shape), _constant(strides)]
        view = ast.Call(_load("strided_view"), [_load(source), *arguments], [])
        function = ast.Attribute(_load("np"), "ascontiguousarray", _LOAD)
        value = ast.Call(function, [view], [])
        calls, reads = [value, view], [source, "strided_view", "np"]
        buffers = [source]
    else:
        return None
    assignment = ast.Assign([ast.Name(target, _STORE)], value, None)
    statement = _placed(assignment, indent, number, line)
    effects = [(node, statement) for node in [statement, *calls]]
    return Built(statement, effects, reads, [target], reads, buffers)


def _load(name: str) -> ast.Name:
    return ast.Name(name, _LOAD)


@lru_cache(maxsize=4096)
def _constant(literal: str) -> ast.expr:
    """The node of a literal integer or tuple of them (`_INT`, `_TUPLE`), as
    the parser makes it (`_built`'s statements share it: what reads them
    reads, never changes, their expressions)."""
    if not literal.startswith("("):
        value = int(literal)
        if value < 0:  # the parser's: a negation of a constant
            return ast.UnaryOp(ast.USub(), ast.Constant(-value))
        return ast.Constant(value)
    elements = literal[1:-1].removesuffix(",")
    return ast.Tuple(
        [_constant(e) for e in elements.split(", ")] if elements else [], _LOAD
    )


def _placed(statement: ast.stmt, indent: str, number: int, line: str) -> ast.stmt:
    """`statement` at line `number`, the whole of `line` after `indent`."""
    statement.lineno = statement.end_lineno = number
    statement.col_offset = len(indent)
    statement.end_col_offset = len(line)
    return statement


def _put(statements: list[ast.stmt], built: Mapping[int, Built]) -> int:
    """Put each statement `built` (by line) where the `pass` parsed in its
    place is in `statements` (at any depth); how many it put."""
    count = 0
    for index, statement in enumerate(statements):
        if isinstance(statement, ast.Pass):
            found = built.get(statement.lineno)
            if found is not None:
                statements[index] = found.statement
                count += 1
        elif isinstance(statement, BLOCKS):
            count += _put(statement.body, built) + _put(statement.orelse, built)
    return count


def _in_order(statements: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """`statements` in the order they are written, with those of the
    blocks (`while`, `for`, `if`) nested in them."""
    for statement in statements:
        yield statement
        if isinstance(statement, BLOCKS):
            yield from _in_order([*statement.body, *statement.orelse])


BLOCKS = (ast.While, ast.For, ast.If)
"""The compound statements the generated code writes."""


def _kept(lines: Sequence[str], drop: Mapping[int, str | None]) -> list[str]:
    """`lines` without those `drop` numbers (None) or with them replaced."""
    kept = []
    for number, line in enumerate(lines):
        replacement = drop.get(number, line)
        if replacement is not None:
            kept.append(replacement)
    return kept


def _dropped(
    statements: Sequence[ast.stmt], moved: Sequence[ast.stmt]
) -> dict[int, str | None]:
    """The lines (by number) taking the top-level `statements`' statements
    `moved` out drops (None) or replaces: a block left with none says
    `pass`."""
    drop: dict[int, str | None] = {}
    for statement in moved:
        for number in range(statement.lineno - 2, statement.end_lineno - 1):
            drop[number] = None
    gone = {id(statement) for statement in moved}
    for block in _blocks(statements):
        if all(id(statement) in gone for statement in block):
            drop[block[0].lineno - 2] = " " * block[0].col_offset + "pass"
    return drop


def _blocks(statements: Sequence[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """The bodies of the blocks nested in `statements`, at any depth."""
    for statement in statements:
        if isinstance(statement, BLOCKS):
            for block in (statement.body, statement.orelse):
                if block:
                    yield block
                    yield from _blocks(block)


TOP_INDENT = 4
"""The indentation of a generated function's top-level statements."""


def _dedented(lines: Sequence[str], statement: ast.stmt) -> list[str]:
    """The lines of `statement`, indented as a top-level statement."""
    depth = statement.col_offset - TOP_INDENT
    source = lines[statement.lineno - 2 : statement.end_lineno - 1]
    return [line[depth:] for line in source]


def hoist_invariants(
    body: Sequence[str],
    invariant: set[str],
    writes: Mapping[str, Sequence[int]] | None = None,
    weights: frozenset[str] = frozenset(),
) -> Hoisted:
    """Split `body` (the lines of a function body, one indentation level);
    `writes` names the functions that write some of their positional
    arguments (compiled kernels), and at which positions; `weights` are the
    invariant names that are the function's weights.

    Statements inside blocks (a loop's body computing the same weight
    copies on every iteration) move only when they read a weight or a name
    an earlier statement moved (`v = m12`, a weight in the namespace): a
    block's own buffers (`np.empty` in a branch, made from constants only)
    are written by runtime helpers `written` does not know (`add_into`'s
    target) and must stay where they are made."""
    parsed = _parsed(body)
    statements, lines, assigned = parsed.statements, parsed.lines, parsed.assigned
    written = _written(parsed, writes or {})
    known = set(invariant) - written
    weighty = set(weights) - written  # the weights, and what was moved
    prepare: list[str] = []
    moved: list[ast.stmt] = []
    computed: list[str] = []
    for statement in _in_order(statements):
        nested = statement.col_offset > TOP_INDENT
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and assigned[target.id] == 1
            and target.id not in written
            and (loaded := parsed.read(statement)) <= known
            and (not nested or loaded & weighty)
        ):
            known.add(target.id)
            weighty.add(target.id)
            computed.append(target.id)
            moved.append(statement)
            prepare += _dedented(lines, statement)
    rest = parsed.without(moved)
    return Hoisted(prepare, rest, [name for name in computed if name in rest.loaded])


@dataclass(frozen=True)
class Views:
    """A function body split into the views of this thread's buffers (made
    once per thread) and what runs per call."""

    setup: list[str]
    """Statements making the views (indented as the body was)."""
    rest: Parsed
    """Statements left in the function, parsed (`Parsed.without`)."""
    names: list[str]
    """Names `setup` binds that the body reads, in order."""
    free: list[str]
    """Names `setup` reads that the body's function is given."""

    @property
    def body(self) -> list[str]:
        """Statements left in the function."""
        return self.rest.lines


def hoist_views(
    body: Sequence[str] | Parsed,
    given: set[str],
    constants: frozenset[str] = frozenset(),
) -> Views:
    """Split out the statements (at any depth: a loop's body makes the same
    views on every iteration) binding a view of this thread's buffers:
    `_workspace[i]`, an arena slice (`v[a:b].view(dt).reshape(s)`),
    `strided_view(v, literals...)` or `v.reshape(literal)` of one, or another
    name for one. Their arrays are the same objects on every call of a
    thread (what is in them changes, they do not), so they are made once
    per thread; `given` are the names the function is given that are the
    same on every call (what `prepare` computed) and `constants` the
    namespace's immutable objects, which they may read; `body` may be
    parsed already (`Hoisted.rest`).

    ```python
    _workspace = pool()                      def views(_workspace):
    v3 = _workspace[0]                           v3 = _workspace[0]
    t4 = strided_view(v3, 0, (8,), (4,)) ->     t4 = strided_view(v3, ...)
    np.add(t4, x, out=t4)                       return (t4,)
                                             ... (t4,) = views(_workspace)
                                             np.add(t4, x, out=t4)
    ```
    """
    parsed = body if isinstance(body, Parsed) else _parsed(body)
    statements, lines, assigned = parsed.statements, parsed.lines, parsed.assigned
    contiguous: set[str] = set()  # views that are whole C-contiguous buffers
    viewed: set[str] = set()
    known = set(given) | constants  # the same on every call, and their names
    setup: list[str] = []
    moved: list[ast.stmt] = []
    free: set[str] = set()
    for statement in _in_order(statements):
        kind = None
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and assigned[target.id] == 1
        ):
            kind = _view_kind(statement.value, contiguous, viewed, known)
        if kind is None:
            continue
        setup += _dedented(lines, statement)
        free |= parsed.read(statement) & given
        if kind == "constant":  # another name for a constant: known here too
            known.add(target.id)
            continue  # and bound where it is
        viewed.add(target.id)
        if kind == "contiguous":
            contiguous.add(target.id)
        moved.append(statement)
    rest = parsed.without(moved)
    names = [name for name in sorted(viewed) if name in rest.loaded]
    return Views(setup, rest, names, sorted(free))


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal(node.operand)
    return isinstance(node, ast.Tuple) and all(map(_literal, node.elts))


def _view_kind(
    node: ast.AST, contiguous: set[str], viewed: set[str], given: set[str]
) -> str | None:
    """`contiguous` (a whole buffer), `strided` (a view of one) or None
    (not a view of this thread's buffers, or not certainly one)."""
    match node:
        case ast.Subscript(value=ast.Name(id="_workspace"), slice=index) if _literal(
            index
        ):
            return "contiguous"
        case ast.Name(id=name) if name in viewed:
            return "contiguous" if name in contiguous else "strided"
        case ast.Name(id=name) if name in given:
            return "constant"
        case ast.Call(
            func=ast.Name(id="strided_view" | "address"),
            args=[ast.Name(id=base), *rest],
        ):  # a view of a view, or its address (`c_runtime.address`)
            if base in viewed and all(map(_literal, rest)) and not node.keywords:
                return "strided"
        case ast.Call(
            func=ast.Attribute(value=whole, attr="reshape"), args=[shape]
        ) if (
            _view_kind(whole, contiguous, viewed, given) == "contiguous"
            and _literal(shape)
            and not node.keywords
        ):
            return "contiguous"
        case ast.Call(
            func=ast.Attribute(
                value=ast.Call(
                    func=ast.Attribute(
                        value=ast.Subscript(
                            value=ast.Name(id=base),
                            slice=ast.Slice(lower=lower, upper=upper, step=None),
                        ),
                        attr="view",
                    ),
                    args=[ast.Name(id=dtype)],
                ),
                attr="reshape",
            ),
            args=[shape],
        ) if (
            base in contiguous
            and _literal(shape)
            and dtype in given
            and _loaded(lower) | _loaded(upper) <= given
        ):
            return "contiguous"
    return None


VIEW_METHODS = frozenset({"reshape", "transpose", "view"})
"""Array methods the generated code calls for a view (or a copy), nothing else."""


def drop_unread(body: Sequence[str] | Parsed) -> list[str]:
    """`body` without the top-level statements binding a name nothing reads
    afterwards to a view expression (names, literals, subscripts,
    `strided_view`, the methods `VIEW_METHODS`, `np.empty`): no effect but
    time; and without such statements inside its blocks binding a name
    nothing in the body reads (a branch's scratch its kernels no longer
    write). `body` may be parsed already (`Views.rest`)."""
    parsed = body if isinstance(body, Parsed) else _parsed(body)
    tops = {id(statement) for statement in parsed.statements}
    nested = [
        statement
        for statement in _in_order(parsed.statements)
        if id(statement) not in tops
        and isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(target := statement.targets[0], ast.Name)
        and not parsed.loaded[target.id]
        and _pure_view(statement.value)
    ]
    if nested:
        parsed = parsed.without(nested)
    statements, lines = parsed.statements, parsed.lines
    read: set[str] = set()
    kept: list[list[str]] = []
    for statement in reversed(statements):
        source = lines[statement.lineno - 2 : statement.end_lineno - 1]
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and target.id not in read
            and _pure_view(statement.value)
        ):
            continue
        read |= _loaded(statement)
        kept.append(source)
    return [line for source in reversed(kept) for line in source]


def _pure_view(node: ast.AST) -> bool:
    match node:
        case ast.Name() | ast.Constant():
            return True
        case (
            ast.Tuple(elts=elements) | ast.Slice(lower=elements, upper=None, step=None)
        ) if isinstance(elements, list):
            return all(map(_pure_view, elements))
        case ast.Subscript(value=value, slice=index):
            return _pure_view(value) and _pure_view(index)
        case ast.BinOp(left=left, right=right):
            return _pure_view(left) and _pure_view(right)
        case ast.Call(
            func=ast.Name(id="strided_view" | "address")
            | ast.Attribute(value=ast.Name(id="np"), attr="empty"),
            args=args,
            keywords=[],
        ):
            return all(map(_pure_view, args))
        case ast.Call(
            func=ast.Attribute(value=value, attr=method), args=args, keywords=[]
        ) if method in VIEW_METHODS:
            return _pure_view(value) and all(map(_pure_view, args))
    return False
