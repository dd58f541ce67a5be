"""What the graph-fusion folds into a convolution or matrix product share.

`fold-batch-norm` and `fold-bias-add` replace a consumer of a conv or matmul
by new weights of the producer: the checks (`only_use`, `readable`), the
reason a fold is refused (`NotFolded`, logged once per node by
`FoldIntoProduct`) and the rewrite (`replace_product`) are the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from ge_dialect.naming import node_label
from passes.dead_code import erase_dead
from passes.fold_constants import Unavailable, constant_value
from passes.fuse_ops import enabled_rules, fusion_rules
from passes.options import check_choice_option


class NotFolded(Exception):
    """Why a consumer stays (the message)."""


def tensor_type(value: SSAValue) -> TensorType:
    """The tensor type of `value`."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tensor


def only_use(value: SSAValue, what: str) -> None:
    """`NotFolded` unless the consumer being folded is `value`'s only user."""
    if not value.has_one_use():
        raise NotFolded(f"the {what}'s result has other consumers")


def readable(value: SSAValue, what: str) -> np.ndarray:
    """The origin-layout data of constant `value` in float64, or `NotFolded`."""
    try:
        return constant_value(value).astype(np.float64)
    except Unavailable as error:
        raise NotFolded(f"{what}: {error}") from None


@dataclass
class FoldIntoProduct(RewritePattern):
    """Base of the folds: runs a rewrite, logs (once) why a node stays."""

    PASS: ClassVar[str]
    """The pass whose name the log lines start with."""

    reported: set[Operation] = field(default_factory=set)

    def fold(
        self,
        consumer: Operation,
        rewriter: PatternRewriter,
        rewrite: Callable[[Operation, PatternRewriter], None],
    ) -> None:
        """Run `rewrite(consumer, rewriter)`, or log why `consumer` stays."""
        try:
            rewrite(consumer, rewriter)
        except NotFolded as reason:
            if consumer not in self.reported:
                self.reported.add(consumer)
                logging.getLogger(type(self).__module__).info(
                    "%s: %s not folded: %s", self.PASS, node_label(consumer), reason
                )


def replace_product(
    consumer: Operation,
    product: Operation,
    folded: list[Operation],
    result: SSAValue,
    dead: Iterable[SSAValue],
    rewriter: PatternRewriter,
) -> None:
    """Put `folded` (new constants, then the new product) in place of
    `product`, let `result` stand for `consumer`'s result, and erase what
    became unused among the owners of `dead`.

    Named nodes: the new product is named like a fused group, `conv+bn`, as
    its value now includes the consumer's (what a data dump compares).
    """
    new = folded[-1]
    if "name" in product.attributes and "name" in consumer.attributes:
        label = f"{node_label(product)}+{node_label(consumer)}"
        new.attributes["name"] = StringAttr(label)
    for value, old in zip(new.operands, product.operands, strict=False):
        value.name_hint = old.name_hint
    new.results[0].name_hint = product.results[0].name_hint
    rewriter.insert(folded, InsertPoint.before(product))
    product.results[0].replace_all_uses_with(new.results[0])
    rewriter.replace(consumer, [], [result])
    rewriter.erase(product)
    erase_dead(rewriter, [v.owner for v in dead])


def check_disabled_rules(fold_pass: ModulePass, disable: Iterable[str]) -> None:
    """An option error unless every name in `disable` is a fusion rule."""
    for rule in disable:
        check_choice_option(fold_pass, "disable", rule, fusion_rules())


def apply_folds(
    module: ModuleOp,
    pass_name: str,
    disable: Iterable[str],
    folds: Mapping[str, type[RewritePattern]],
) -> None:
    """Rewrite `module` with the patterns of `pass_name`'s rules (`folds`:
    rule -> pattern) that `disable` leaves on."""
    patterns = [folds[rule.name]() for rule in enabled_rules(pass_name, disable)]
    if patterns:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns))
        walker.rewrite_module(module)
