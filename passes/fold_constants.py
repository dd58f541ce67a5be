"""`fold-constants`: ops whose operands are all constants, computed at compile time.

Each such op runs its NumPy kernel (declared with the op, the reference
evaluator's semantics) on its operands' values and becomes one `ge.const`
per result. Storage layouts are honoured: an operand held in an internal
format (`#ge.layout<NCHW, NC1HWC0>`) is read back to origin layout, and the
result is laid out in its own type's storage format.

```mlir
%a = ge.const {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
%b = ge.const {value = dense<3.0> : tensor<2xf32>} : tensor<2xf32>
%c = ge.mul %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// becomes
%c = ge.const {value = dense<[3.0, 6.0]> : tensor<2xf32>} : tensor<2xf32>
```

Weights kept outside the IR (`#ge.external<"key">`) are read from the
weights mapping a driver provides through `FOLD_WEIGHTS` (`ge-atc` does);
a folded value that came from external data, or has more than
`INLINE_LIMIT` elements, goes back into that mapping under a new key.
Without a mapping (`ge-opt`) an op reading external data is skipped and the
reason is logged (`fold-constants: NODE not folded: ...`), as is any op
whose kernel cannot run. Only `Pure` ops are folded: never graph structure
(inputs, variables, control flow, fused groups) nor ops inside a `ge.fused`
group. `fold-batch-norm` uses
the same helpers for its constants.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import Pure

from ge_dialect.adapters import run_numpy_kernel
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.constants import (
    STORAGE_OF,
    dense_from_numpy,
    inline_stored_array,
    origin_array,
    stored_array,
)
from ge_dialect.diagnostics import GEError
from ge_dialect.limits import LimitError, over_budget, static_bytes
from ge_dialect.naming import node_label
from ge_dialect.ops import (
    ConstOp,
    FusedOp,
    Structural,
    enclosing_target,
)
from passes.dead_code import erase_dead

LOG = logging.getLogger(__name__)

FOLD_WEIGHTS: ContextVar[dict[str, np.ndarray] | None] = ContextVar(
    "FOLD_WEIGHTS", default=None
)
"""The weights of `#ge.external` constants (key -> storage-layout array) the
folding passes read, and add their folded arrays to; set by a driver."""

INLINE_LIMIT = 1024
"""Folded values with more elements go to the weights mapping (if there is one)."""


class Unavailable(Exception):
    """A constant's data cannot be read at compile time (the message says why)."""


def constant_value(value: SSAValue) -> np.ndarray:
    """The origin-layout array of a `ge.const` result, or `Unavailable`."""
    op = value.owner
    if not isinstance(op, ConstOp):
        producer = op.name if isinstance(op, Operation) else "a block argument"
        raise Unavailable(f"not a constant (from {producer})")
    tensor = op.output.type
    assert isinstance(tensor, TensorType)
    _check_budget(tensor, "the constant")
    target = enclosing_target(op)
    if isinstance(op.value, ExternalDataAttr):
        stored = _external(op, tensor, target)
    else:
        stored = inline_stored_array(op, target)
    return origin_array(stored, tensor, target)


def _check_budget(tensor: Attribute, what: str) -> None:
    """`Unavailable` if a value of type `tensor` is over the memory budget."""
    try:
        nbytes = static_bytes(tensor)
    except LimitError as error:
        raise Unavailable(str(error)) from None
    if nbytes is not None and (reason := over_budget(nbytes, what)) is not None:
        raise Unavailable(reason)


def _external(op: ConstOp, tensor: TensorType, target: str | None) -> np.ndarray:
    assert isinstance(op.value, ExternalDataAttr)
    key = op.value.key.data
    weights = FOLD_WEIGHTS.get()
    if weights is None:
        raise Unavailable(f"weight '{key}' is external and no weights are given")
    if key in weights:
        return np.asarray(weights[key])
    source = op.attributes.get(STORAGE_OF)
    if isinstance(source, StringAttr) and source.data in weights:
        return stored_array(np.asarray(weights[source.data]), tensor, target)
    raise Unavailable(f"weight '{key}' is not in the weights")


def make_constant(
    origin: np.ndarray,
    tensor: TensorType,
    name: str,
    target: str | None,
    external: bool = False,
) -> ConstOp:
    """A new `ge.const` (node name `name`) of type `tensor` holding `origin`,
    laid out in the type's storage format for `target`.

    With a weights mapping, `external` data and large values go there under
    a new key (`name`, made unique); otherwise the value is inline.
    """
    stored = stored_array(origin, tensor, target)
    weights = FOLD_WEIGHTS.get()
    if weights is not None and (external or stored.size > INLINE_LIMIT):
        key, number = name, 1
        while key in weights:
            number += 1
            key = f"{name}#{number}"
        weights[key] = stored
        value: Attribute = ExternalDataAttr(key)
    else:
        value = dense_from_numpy(stored, TensorType(tensor.element_type, stored.shape))
    return ConstOp.create(
        result_types=[tensor], attributes={"value": value, "name": StringAttr(name)}
    )


def is_external(value: SSAValue) -> bool:
    """Whether `value` is a constant kept outside the IR."""
    return isinstance(value.owner, ConstOp) and isinstance(
        value.owner.value, ExternalDataAttr
    )


@dataclass
class FoldConstantOp(RewritePattern):
    """An op whose operands are all `ge.const` -> one `ge.const` per result."""

    skipped: set[Operation] = field(default_factory=set)
    """Ops already reported as not foldable (each is logged once)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.has_trait(Structural) or not op.has_trait(Pure) or not op.operands:
            return
        if isinstance(op.parent_op(), FusedOp):
            return  # a group's ops read its operands, never constants
        if not all(isinstance(v.owner, ConstOp) for v in op.operands):
            return
        if op in self.skipped:
            return
        label = node_label(op)
        try:
            for result in op.results:
                _check_budget(result.type, f"result #{result.index}")
            results = run_numpy_kernel(op, [constant_value(v) for v in op.operands])
        except (Unavailable, GEError) as reason:
            self.skipped.add(op)
            message = str(reason).partition("error: ")[2] or str(reason)
            LOG.info("fold-constants: %s not folded: %s", label, message)
            return
        external = any(is_external(v) for v in op.operands)
        target = enclosing_target(op)
        constants = [
            make_constant(
                array,
                result.type,  # type: ignore[arg-type]
                label if len(op.results) == 1 else f"{label}:{result.index}",
                target,
                external,
            )
            for array, result in zip(results, op.results, strict=True)
        ]
        operands = list(op.operands)
        rewriter.replace(op, constants, [c.output for c in constants])
        erase_dead(rewriter, [v.owner for v in operands])


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Compute ops whose operands are all constants at compile time."""

    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldConstantOp()).rewrite_module(op)
