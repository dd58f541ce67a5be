"""Verifying IR with one-line located diagnostics.

`verify_module` runs every op's verifier (and, after parsing, checks declared
result types against shape functions), raising a `GEError` at the first
invalid op's source location. `StageVerifier` runs it after each pass of a
pipeline, except on IR no pass changed since it was last found valid.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.diagnostics import GEError
from ge_dialect.locations import error_at, location_text
from ge_dialect.validation import check_values

MODULE_ATTRIBUTES = ("ge.target", "ge.weights")
"""Module attributes the `ge` dialect reads: the target (SoC) the layouts
are for, and the weights file next to the graph."""


def _check_module(module: ModuleOp) -> None:
    """`ge.*` module attributes are strings, the target a known one; every
    symbol is defined once (the error at its second definition)."""
    for name in MODULE_ATTRIBUTES:
        attr = module.attributes.get(name)
        if attr is not None and not isinstance(attr, StringAttr):
            raise error_at(module, f"attribute '{name}' must be a string, got {attr}")
    target = module.attributes.get("ge.target")
    if isinstance(target, StringAttr):
        from ge_dialect.formats import FormatError  # loaded when a target is named
        from ge_dialect.targets import get_target

        try:
            get_target(target.data)
        except FormatError as error:
            raise error_at(module, f"attribute 'ge.target': {error}") from None
    first: dict[str, Operation] = {}
    for op in module.ops:
        symbol = op.attributes.get("sym_name")
        if not isinstance(symbol, StringAttr):
            continue
        if symbol.data in first:
            raise error_at(
                op,
                f"redefines symbol @{symbol.data} (first defined at "
                f"{location_text(first[symbol.data])})",
            )
        first[symbol.data] = op


def verify_module(module: Operation, *, check_types: bool = False) -> None:
    """Verify every op, raising a GEError located at the first invalid one
    (or at the op a verifier names, e.g. the first op of a dataflow cycle).

    With `check_types` (what parsing does, not the checks between passes),
    each op's declared result types are also checked against its shape
    function (`shape_inference.check_declared_types`).
    """
    verify_ops(module.walk(), check_types=check_types)


def verify_ops(ops: Iterable[Operation], *, check_types: bool = False) -> None:
    """`verify_module`'s checks of each of `ops` (not of the ops nested in
    them), in order."""
    for op in ops:
        if isinstance(op, ModuleOp):
            _check_module(op)
        if (misspelled := misspelled_attribute(op)) is not None:
            raise error_at(op, misspelled)
        try:
            op.verify(verify_nested_ops=False)
            check_values(op)  # what the definitions alone do not check
        except VerifyException as error:
            raise _located(error, op) from None
        if check_types and op.dialect_name() != "builtin":
            from ge_dialect.shape_inference import check_declared_types  # the ops

            check_declared_types(op)


OpState = tuple[object, ...]
"""What an op's verification reads of the IR (`op_state`)."""

BLOCK, OPERANDS, ATTRIBUTES, SUCCESSORS = 1, 3, 6, 8
"""Where an `OpState` holds the block, the operands, the attributes (then
the properties) and the successors (then the regions)."""


def op_state(op: Operation) -> OpState:
    """Everything of `op` its verifier and `verify_module`'s checks may read:
    the op, the block it is in and the op before it there (an op moved
    within its block changes state: its graph's dataflow order is checked
    again), its operands and their types, its result types, attributes,
    properties and successors, and its regions' blocks and their arguments'
    types. Operations, blocks and values compare by identity; types and
    attributes (immutable) by value."""
    # Taken of every op after every stage: xDSL's own tuples of operands and
    # successors (replaced, never changed in place) rather than the views
    # its properties build on each call (a third of the time), copies of
    # the attribute dictionaries (compared as dictionaries), lists into the
    # tuples, and the parts most ops lack (properties, regions) only when
    # present.
    operands = op._operands
    regions = op.regions
    return (
        op,
        op.parent,
        op._prev_op,
        operands,
        tuple([operand.type for operand in operands]),
        tuple([result.type for result in op.results]),
        op.attributes.copy(),
        op.properties.copy() if op.properties else (),
        op._successors,
        tuple(
            [
                (block, tuple([argument.type for argument in block.args]))
                for region in regions
                for block in region.blocks
            ]
        )
        if regions
        else (),
    )


def _preorder(op: Operation) -> list[Operation]:
    """`op` and the ops nested in it, in `op.walk()`'s order (a third of its
    time: lists, not nested generators)."""
    ops = [op]
    for region in op.regions:
        for block in region.blocks:
            child = block.first_op
            while child is not None:
                if child.regions:
                    ops += _preorder(child)
                else:
                    ops.append(child)
                child = child.next_op
    return ops


class StageVerifier:
    """`verify_module` between the passes of a pipeline, verifying again only
    the ops a pass may have made invalid since the module was last found
    valid.

    Verification is a function of the IR alone: an op whose state
    (`op_state`) is what it was then, whose producers, users, nested ops
    and neighbours did not change and that did not become the first or last
    op of its block, is still valid (`_affected`: what an op's checks may
    read beyond its state). A fixed-point round of passes that finds
    nothing to do, or a fusion rule the model has no use for, then costs a
    walk of the module (about a tenth of a verification) instead of a
    verification: 22 of DenseNet-121's 30 stages in `ge-atc` change
    nothing; the others change a fifth to a half of MobileViT's ops.
    Ops are verified in the module's order, so the error is at the first
    invalid op, as `verify_module`'s.

    `annotations` are discardable attributes no op's verifier reads, each
    checked where it is used (what `plan-memory` writes on 1,200 of CRNN's
    ops: the plan's own checker, `check_graph_plan`, checks it): an op whose
    only change is to them is not verified again, nor are the ops around
    it; the names and values of its attributes are (`check_attributes`:
    what verification reads of them).
    """

    def __init__(self, annotations: Iterable[str] = ()) -> None:
        self._valid: dict[Operation, OpState] | None = None
        """The state of every op when the module was last found valid."""
        self.annotations = frozenset(annotations)

    def __call__(self, module: ModuleOp) -> list[Operation]:
        """Verify `module` (a GEError at the first invalid op) unless it is
        as it was when last found valid; only its affected ops if it was
        found valid before, then the attributes of the ops whose only
        change is to `annotations`. The ops verified, in the module's order
        (none when it is unchanged): every other op's state is what it was,
        but for annotations."""
        state = {op: op_state(op) for op in _preorder(module)}
        valid = self._valid
        if valid is not None and list(state.values()) == list(valid.values()):
            return []
        self._valid = None
        annotated: list[Operation] = []
        if valid is None:
            verified = list(state)
        else:
            annotated = [
                op
                for op, now in state.items()
                if self._annotated_only(now, valid.get(op))
            ]
            again = _affected(state, valid, set(annotated))
            verified = [op for op in state if op in again]
        verify_ops(verified)
        for op in annotated:
            check_attributes(op)
        self._valid = state
        return verified

    def _annotated_only(self, now: OpState, then: OpState | None) -> bool:
        """Whether an op's state `now` differs from `then` (None: new) in
        its `annotations` alone."""
        if not self.annotations or then is None or now == then:
            return False
        if now[:ATTRIBUTES] != then[:ATTRIBUTES]:
            return False
        if now[ATTRIBUTES + 1 :] != then[ATTRIBUTES + 1 :]:
            return False
        before: dict[str, Attribute] = then[ATTRIBUTES]  # type: ignore[assignment]
        after: dict[str, Attribute] = now[ATTRIBUTES]  # type: ignore[assignment]
        return all(
            before.get(name) == after.get(name)
            for name in before.keys() | after.keys()
            if name not in self.annotations
        )


def check_attributes(op: Operation) -> None:
    """`verify_ops`' checks of `op`'s attributes alone: their names
    (`misspelled_attribute`) and values (`check_values`)."""
    if (misspelled := misspelled_attribute(op)) is not None:
        raise error_at(op, misspelled)
    try:
        check_values(op)
    except VerifyException as error:
        raise _located(error, op) from None


def _located(error: VerifyException, op: Operation) -> GEError:
    """A verifier's error as one line at the op it names (else at `op`)."""
    return error_at(getattr(error, "op", op), " ".join(str(error).split()))


def _affected(
    state: dict[Operation, OpState],
    valid: dict[Operation, OpState],
    annotated: set[Operation],
) -> set[Operation]:
    """The ops to verify again when the module's ops have `state`, after it
    was found valid with `valid`: each op whose state changed or that is
    new, with the producers of its operands and the users of its results
    (now and then), the ops directly inside it unless what they read of it
    is unchanged (`_read_inside`: an op deeper in reads its own parent, a
    changed or new op when its own state changed), every op nested in it
    if it is the outermost op (whose attributes any nested op may read),
    the ops before and after it, the first and last ops of its block (now
    and then) and the ops around that block; for an op removed, the
    producers of its operands and the ends of its block and the ops around
    it. An op whose state changed in annotations alone (`annotated`) is as
    if it had not changed."""
    again: set[Operation] = set()
    blocks: set[Block | None] = set()
    operands: list[SSAValue] = []
    for op, now in state.items():
        then = valid.get(op)
        if then == now or op in annotated:
            continue
        again.add(op)
        again.update(use.operation for result in op.results for use in result.uses)
        if op.parent is None:
            again.update(_preorder(op))
        elif then is None or _read_inside(now) != _read_inside(then):
            again.update(
                child
                for region in op.regions
                for block in region.blocks
                for child in block.ops
            )
        again.update(o for o in (op.prev_op, op.next_op) if o is not None)
        blocks.add(op.parent)
        operands += op.operands
        if then is not None:
            blocks.add(then[BLOCK])  # type: ignore[arg-type]
            operands += then[OPERANDS]  # type: ignore[arg-type]
    for op, then in valid.items():
        if op not in state:
            blocks.add(then[BLOCK])  # type: ignore[arg-type]
            operands += then[OPERANDS]  # type: ignore[arg-type]
    again.update(v.owner for v in operands if isinstance(v.owner, Operation))
    for block in blocks:
        if block is None:
            continue
        again.update(o for o in (block.first_op, block.last_op) if o is not None)
        parent = block.parent_op()
        while parent is not None:
            again.add(parent)
            parent = parent.parent_op()
    return again


def _read_inside(state: OpState) -> OpState:
    """What the verifiers of the ops nested in an op may read of its state
    (`op_state`): all of it but the block it is in, its attributes and its
    properties. A nested op reads of its ancestors their kind, operands,
    results and types (a subgraph `ge.data` its parent's operand or result
    type, `subgraph_input_type`; xDSL its parent's traits) and the outermost
    one's attributes (the target, `enclosing_target`), never where an
    ancestor is (the outermost op of a module's ops is the module wherever
    they move; the module's own state has no block) nor the attributes of
    an op inside another: a memory plan written on 300 `ge.fused` ops and
    their graph verifies those, not the 3000 ops inside them, and the graph's
    ops moved into a partitioned call (`partition-engines`) are verified
    again, not the ops inside the `ge.fused` among them."""
    return state[:BLOCK] + state[OPERANDS:ATTRIBUTES] + state[SUCCESSORS:]


_SUGGESTIONS: dict[tuple[type[Operation], str], str | None] = {}


def misspelled_attribute(op: Operation) -> str | None:
    """`unknown attribute 'X' (did you mean 'Y'?)` when `op` has an attribute
    its definition lacks that is close to a defined one `op` does not set (or
    sets to its default)."""
    if not isinstance(op, IRDLOperation):
        return None
    for name in op.attributes:
        key = (type(op), name)
        if key not in _SUGGESTIONS:
            definition = op.get_irdl_definition()
            known = [*definition.attributes, *definition.properties]
            close = get_close_matches(name, known, n=1, cutoff=0.8)
            _SUGGESTIONS[key] = None if name in known or not close else close[0]
        suggestion = _SUGGESTIONS[key]
        if suggestion is not None and not _set_by_user(op, suggestion):
            return f"unknown attribute '{name}' (did you mean '{suggestion}'?)"
    return None


def _set_by_user(op: IRDLOperation, name: str) -> bool:
    """Whether `op` carries attribute `name` with other than its default (which
    xDSL fills in for an absent attribute)."""
    value = op.attributes.get(name)
    definition = op.get_irdl_definition().attributes.get(name)
    default = definition.default_value if definition is not None else None
    return value is not None and value != default
