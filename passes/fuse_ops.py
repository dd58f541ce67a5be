"""`fuse-ops`: group AI Core ops into `ge.fused` kernels (ATC's UB fusion).

ATC fuses adjacent AI Core ops so intermediate results stay in the on-chip
Unified Buffer instead of going back to memory. Here a group becomes one
`ge.fused` op that the loop lowering turns into one loop nest: the heavy
op's reduction, then its elementwise epilogue applied to each output
element inside the same nest (`passes/lowering/fused.py`).

```mlir
%c = ge.conv2d %x, %w, %b {data_format = "NCHW"} : (...) -> tensor<1x17x8x8xf32, ...>
%s = ge.add %c, %r : (...) -> tensor<1x17x8x8xf32, ...>
%y = ge.relu %s : ... -> tensor<1x17x8x8xf32, ...>
// becomes
%y = ge.fused %x, %w, %b, %r {fusion_rule = "ConvEltwiseFusion", name = "conv+add+relu"}
    : (...) -> tensor<1x17x8x8xf32, ...> {
  %0 = ge.data {parent_index = 0 : i64} : ...
  ...
  %5 = ge.conv2d %0, %1, %2 {data_format = "NCHW"} : (...) -> ...
  %6 = ge.add %5, %3 : (...) -> ...
  %7 = ge.relu %6 : ... -> ...
  ge.netoutput %7 : ...
}
```

What may fuse comes from data, not from hard-coded op pairs:

- the op-information library (`ge_dialect/data/opinfo/*.json`): each op's
  `fusion` slot gives its GE op pattern (`Convolution`, `MatMul`, `Pool`,
  `ElemWise`, `Broadcast`, ...) and `formats`, the storage formats in which
  it may be fused (`"origin"`: the value's own origin format). An op
  without `formats` never fuses;
- the fusion rules (`ge_dialect/data/fusion_rules.json`): each named rule
  says which patterns head a group and which may join as its epilogue.
  Rules can be switched off by name (`disable`, ATC's fusion switch file
  `ge-atc --fusion_switch_file`).

A group starts at a head op (in block order, so a heavy op claims its
epilogue before the epilogue could start a chain of its own) and takes in
consumers of its values while each one:

- matches an epilogue pattern of the rule, is an AI Core op not dispatched
  through an `aclnn_only` fallback, has one static-shape float result with
  the group's shape, dtype and storage format, and that format is one of
  its fusion formats;
- keeps the graph acyclic: the group is placed where its last op was, so
  every other consumer of a group value must come after that point (a
  value read outside the group, or by the graph output, is *kept*: an extra
  result of `ge.fused`; an outside path back into the group stops growth).

A group of one op stays as it is. Ops inside a `ge.fused` are never
regrouped.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format, FormatError, parse_format
from ge_dialect.input_files import load_json, read_input_text
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.naming import node_name
from ge_dialect.opinfo import ORIGIN, Engine, FallbackMode, op_info
from ge_dialect.ops import DataOp, FusedOp, NetOutputOp
from passes.options import check_choice_option

LOG = logging.getLogger(__name__)

RULES_FILE = Path(__file__).parent.parent / "ge_dialect" / "data" / "fusion_rules.json"
"""The builtin fusion rules."""

CATEGORIES = ("GraphFusion", "UBFusion")
"""ATC's rule categories: graph rewrites (here the folding passes) and UB fusion."""

FLOAT_DTYPES = frozenset({"float16", "float32", "bfloat16"})
"""Element types a fused group may compute in."""


# ---------------------------------------------------------------------------
# Fusion rules and the fusion switch file
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FusionRule:
    """A named rule: which op patterns head a group and which may follow."""

    name: str
    category: str
    pass_name: str
    heads: frozenset[str]
    epilogue: frozenset[str] = frozenset()
    description: str = ""


@functools.cache
def fusion_rules() -> dict[str, FusionRule]:
    """Every builtin fusion rule by name, in file order."""
    data = json.loads(RULES_FILE.read_text())
    return {
        name: FusionRule(
            name,
            fields["category"],
            fields["pass"],
            frozenset(fields["heads"]),
            frozenset(fields.get("epilogue", ())),
            fields.get("description", ""),
        )
        for name, fields in data.items()
    }


def check_rule_names(names: Iterable[str]) -> None:
    """Raise a one-line GEError if a name is not a fusion rule."""
    if unknown := sorted(set(names) - set(fusion_rules())):
        raise GEError(
            f"error: unknown fusion rule '{unknown[0]}' (rules: "
            f"{', '.join(fusion_rules())})"
        )


def enabled_rules(pass_name: str, disabled: Iterable[str] = ()) -> list[FusionRule]:
    """The rules of `pass_name` not in `disabled` (unknown names are an error)."""
    disabled = set(disabled)
    check_rule_names(disabled)
    return [
        rule
        for rule in fusion_rules().values()
        if rule.pass_name == pass_name and rule.name not in disabled
    ]


def check_disable_option(pass_: ModulePass) -> None:
    """Each name in `pass_.disable` must be a fusion rule (an option error naming
    the pass and the option otherwise)."""
    for rule in pass_.disable:
        check_choice_option(pass_, "disable", rule, fusion_rules())


def read_fusion_switch_file(path: str | Path) -> frozenset[str]:
    """The rules a fusion switch file turns off.

    Accepted forms: ATC's JSON (`{"Switch": {"GraphFusion": {"RULE": "off",
    "ALL": "off"}, "UBFusion": {...}}}`, where `ALL` covers the category),
    a JSON list of rule names, or text with one rule name per line (`#`
    starts a comment).
    """
    what = "fusion switch file"
    try:
        text = read_input_text(path, what)
    except OSError as error:
        raise GEError(f"error: cannot read {what} '{path}': {error.strerror}") from None
    if text.lstrip().startswith(("{", "[")):
        data = load_json(text, str(path), what)
    else:
        data = [line.split("#")[0].strip() for line in text.splitlines()]
        data = [name for name in data if name]
    names = _switched_off(data, str(path))
    if unknown := sorted(names - set(fusion_rules())):
        raise GEError(
            f"{path}: error: unknown fusion rule '{unknown[0]}' (rules: "
            f"{', '.join(fusion_rules())})"
        )
    return names


def _switched_off(data: object, source: str) -> frozenset[str]:
    def fail(message: str) -> GEError:
        return GEError(f"error: fusion switch file '{source}': {message}")

    if isinstance(data, list) and all(isinstance(name, str) for name in data):
        return frozenset(data)
    if not isinstance(data, dict) or not isinstance(data.get("Switch"), dict):
        raise fail('expected {"Switch": {"GraphFusion": {...}, "UBFusion": {...}}}')
    off: set[str] = set()
    for category, switches in data["Switch"].items():
        if category not in CATEGORIES or not isinstance(switches, dict):
            raise fail(f"unknown category '{category}' ({', '.join(CATEGORIES)})")
        for name, state in switches.items():
            if not isinstance(state, str) or state.lower() not in ("on", "off"):
                raise fail(f'\'{name}\' must be "on" or "off", got {state!r}')
            if state.lower() == "on":
                continue
            if name == "ALL":
                off |= {
                    r.name for r in fusion_rules().values() if r.category == category
                }
            else:
                off.add(name)
    return frozenset(off)


# ---------------------------------------------------------------------------
# What the op-information library says about an op
# ---------------------------------------------------------------------------


def fusion_pattern(op: Operation) -> str | None:
    """The op's GE op pattern from its op-information `fusion` slot."""
    return op_info(op).fusion.get("pattern")


def fusion_formats(op: Operation) -> tuple[Format | None, ...]:
    """The storage formats the op may be fused in (None: the origin format)."""
    tokens = op_info(op).fusion.get("formats", ())
    try:
        return tuple(None if t == ORIGIN else parse_format(t) for t in tokens)
    except FormatError as error:
        raise GEError(
            f"error: op info of '{op.name}': fusion formats: {error}"
        ) from None


def _tensor(value: SSAValue) -> TensorType:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tensor


def why_not_fusable(op: Operation, tile: TensorType | None = None) -> str | None:
    """Why `op` cannot be in a group whose values have type `tile`, or None.

    Without `tile` the op is checked as a head (its result sets the tile).
    """
    if len(op.results) != 1 or op.regions or isinstance(op, DataOp | NetOutputOp):
        return "not a single-result compute op"
    info = op_info(op)
    if info.engine is not Engine.AICORE:
        return f"runs on {info.engine.value}"
    if info.fallback_mode is FallbackMode.ACLNN_ONLY:
        return "always dispatched through its host fallback (aclnn_only)"
    result = _tensor(op.results[0])
    if any(d < 0 for v in (*op.operands, *op.results) for d in shape_of(_tensor(v))):
        return "dynamic shape"
    if dtype_name(result.element_type) not in FLOAT_DTYPES:
        return f"non-float result ({dtype_name(result.element_type)})"
    origin, storage = layout_of(result)
    allowed = {origin if f is None else f for f in fusion_formats(op)}
    if storage not in allowed:
        return f"does not fuse in {storage.value} (op info fusion formats)"
    if tile is None:
        return None
    if shape_of(result) != shape_of(tile) or result.element_type != tile.element_type:
        return "result shape or dtype differs from the group's"
    if storage != layout_of(tile)[1]:
        return f"stores {storage.value}, the group {layout_of(tile)[1].value}"
    return None


# ---------------------------------------------------------------------------
# Growing a group
# ---------------------------------------------------------------------------


@dataclass
class Group:
    """A head op and the consumers fused with it, in block order."""

    rule: FusionRule
    members: list[Operation]
    position: dict[Operation, float]

    @property
    def tile(self) -> TensorType:
        """The type every value of the group has."""
        return _tensor(self.members[0].results[0])

    def values(self) -> list[SSAValue]:
        """The results of the group's ops."""
        return [value for op in self.members for value in op.results]

    def outside_users(self, members: Sequence[Operation]) -> list[Operation]:
        """Ops outside `members` that read a value of `members`."""
        inside = set(members)
        return [
            use.operation
            for op in members
            for value in op.results
            for use in value.uses
            if use.operation not in inside
        ]

    def candidates(self) -> list[Operation]:
        """Consumers of the group's values in the same block, in block order."""
        block = self.members[0].parent_block()
        found = {
            user
            for user in self.outside_users(self.members)
            if user.parent_block() is block and not isinstance(user, NetOutputOp)
        }
        return sorted(found, key=self.position.__getitem__)

    def why_not_join(self, op: Operation) -> str | None:
        """Why `op` cannot join the group, or None."""
        pattern = fusion_pattern(op)
        if pattern not in self.rule.epilogue:
            return f"pattern {pattern} is not an epilogue of {self.rule.name}"
        if (reason := why_not_fusable(op, self.tile)) is not None:
            return reason
        members = [*self.members, op]
        last = max(self.position[m] for m in members)
        for user in self.outside_users(members):
            if self.position.get(user, len(self.position)) <= last:
                return "another consumer of a group value comes before it"
        return None

    def grow(self) -> None:
        """Take in fusable consumers, first in block order, until none is left."""
        while True:
            reasons = {op: self.why_not_join(op) for op in self.candidates()}
            joining = next((op for op, why in reasons.items() if why is None), None)
            if joining is None:
                for op, reason in reasons.items():
                    LOG.debug(
                        "fuse-ops: %s not in %s: %s", op.name, self.rule.name, reason
                    )
                return
            self.members.append(joining)
            self.members.sort(key=self.position.__getitem__)


def build_fused(group: Group) -> tuple[FusedOp, list[SSAValue]]:
    """The `ge.fused` op of a group and the group values it returns."""
    members = group.members
    inside = set(members)
    inputs: list[SSAValue] = []
    for op in members:
        for operand in op.operands:
            if operand.owner not in inside and operand not in inputs:
                inputs.append(operand)
    kept = [v for v in group.values() if any(u.operation not in inside for u in v.uses)]
    body = Block()
    mapping: dict[SSAValue, SSAValue] = {}
    for index, value in enumerate(inputs):
        data = DataOp.create(
            result_types=[value.type],
            attributes={"parent_index": IntegerAttr(index, i64)},
        )
        data.output.name_hint = value.name_hint
        body.add_op(data)
        mapping[value] = data.output
    for op in members:
        body.add_op(op.clone(mapping))
    body.add_op(NetOutputOp([mapping[value] for value in kept]))
    attributes = {"fusion_rule": StringAttr(group.rule.name)}
    names = [name for op in members if (name := node_name(op)) is not None]
    if names:
        attributes["name"] = StringAttr("+".join(names))
    fused = FusedOp.create(
        operands=inputs,
        result_types=[value.type for value in kept],
        attributes=attributes,
        regions=[Region(body)],
    )
    for value, result in zip(kept, fused.results, strict=True):
        result.name_hint = value.name_hint
    return fused, kept


# ---------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------


@dataclass
class FuseGroup(RewritePattern):
    """A head op and its fusable consumers -> one `ge.fused`."""

    rules: Sequence[FusionRule]
    positions: dict[Block, dict[Operation, float]] = field(default_factory=dict)
    """The order of each block's ops, numbered once and kept through the
    rewrites (a fused op numbered between its neighbours): numbering the
    block anew for each head took a third of CRNN's fuse-ops."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        block = op.parent_block()
        if block is None or isinstance(op.parent_op(), FusedOp):
            return  # a group's ops are never regrouped
        rule = next((r for r in self.rules if fusion_pattern(op) in r.heads), None)
        if rule is None or why_not_fusable(op) is not None:
            return
        position = self.positions.get(block)
        if position is None:
            position = self.positions[block] = {
                other: index for index, other in enumerate(block.ops)
            }
        group = Group(rule, [op], position)
        group.grow()
        if len(group.members) < 2:
            return
        fused, kept = build_fused(group)
        rewriter.insert(fused, InsertPoint.before(group.members[-1]))
        after = position[group.members[-1]]
        before = fused.prev_op
        position[fused] = (
            after - 1 if before is None else (position[before] + after) / 2
        )
        inside = set(group.members)
        for value, result in zip(kept, fused.results, strict=True):
            rewriter.replace_uses_with_if(
                value, result, lambda use: use.operation not in inside
            )
        for member in reversed(group.members):
            rewriter.erase(member)
        LOG.debug("fuse-ops: %s: %s", rule.name, ", ".join(m.name for m in inside))


@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    """Fuse heavy ops with their elementwise epilogues into ge.fused groups."""

    name = "fuse-ops"

    disable: tuple[str, ...] = ()
    """Fusion rules to switch off (names from `fusion_rules.json`)."""

    def __post_init__(self) -> None:
        check_disable_option(self)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rules = enabled_rules(self.name, self.disable)
        if rules:
            PatternRewriteWalker(FuseGroup(rules)).rewrite_module(op)
