"""Einstein summation: `ge.einsum` (ONNX Einsum, GE EinSum).

`equation` is ONNX's (NumPy's) notation: one term of lowercase or
uppercase letters per input, `,`-separated, then optionally `->` and the
output term; `...` stands for the dims not named (right-aligned across
inputs, broadcast like NumPy). A letter repeated within a term takes the
diagonal; letters missing from the output are summed over. Without `->`
the output is the ellipsis dims, then the letters used exactly once, in
alphabetical (ASCII, as NumPy's) order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.irdl import (
    attr_def,
    irdl_op_definition,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.numpy_helpers import float32_compute
from ge_dialect.ops.base import COMPUTE_FORMAT, GEOperation, check_same_element_type
from ge_dialect.shape_functions import Result, Shape, ShapeError, same_dtype

ELLIPSIS = "..."


@dataclass(frozen=True)
class Contraction:
    """An equation resolved against the inputs' ranks: every dim named by a
    label (a letter, or `"...k"` for the k-th ellipsis dim from the right)."""

    inputs: tuple[tuple[str, ...], ...]
    """The labels of each input's dims."""
    output: tuple[str, ...]
    """The labels of the result's dims."""

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label, output ones first (the loop domain's order)."""
        seen = dict.fromkeys(self.output)
        for term in self.inputs:
            seen.update(dict.fromkeys(term))
        return tuple(seen)

    def sizes(self, shapes: Sequence[Shape]) -> dict[str, int]:
        """Each label's extent: equal across its dims, or 1 broadcasting
        (-1 when unknown); ValueError when two extents disagree."""
        sizes: dict[str, int] = {}
        for index, (term, shape) in enumerate(zip(self.inputs, shapes, strict=True)):
            for label, size in zip(term, shape, strict=True):
                known = sizes.get(label)
                if known in (None, 1, -1) and size != 1:
                    sizes[label] = size if known != -1 or size != -1 else -1
                elif known is None:
                    sizes[label] = size
                elif size not in (1, -1, known):
                    raise ValueError(
                        f"input #{index} has {size} for '{label}', which is "
                        f"{known} elsewhere"
                    )
        return sizes


def _term_labels(term: str, rank: int, index: int) -> tuple[str, ...]:
    """The labels of one input's dims (its `...` expanded)."""
    if term.count(ELLIPSIS) > 1 or "." in term.replace(ELLIPSIS, ""):
        raise ValueError(f"term '{term}' has a malformed ellipsis")
    head, _, tail = term.partition(ELLIPSIS)
    letters = head + tail
    if not all(c.isascii() and c.isalpha() for c in letters):
        raise ValueError(f"term '{term}' has a character that is not a letter")
    if ELLIPSIS not in term:
        if len(letters) != rank:
            raise ValueError(
                f"term '{term}' names {len(letters)} dims, input #{index} has {rank}"
            )
        return tuple(letters)
    spread = rank - len(letters)
    if spread < 0:
        raise ValueError(
            f"term '{term}' names {len(letters)} dims, input #{index} has {rank}"
        )
    return (*head, *(f"...{k}" for k in reversed(range(spread))), *tail)


def parse_equation(equation: str, ranks: Sequence[int]) -> Contraction:
    """`equation` resolved against the inputs' ranks (ValueError if invalid)."""
    text = "".join(equation.split())
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(
            f"equation '{equation}' has {len(terms)} input terms for "
            f"{len(ranks)} inputs"
        )
    inputs = tuple(
        _term_labels(term, rank, index)
        for index, (term, rank) in enumerate(zip(terms, ranks, strict=True))
    )
    spread = max(
        (sum(label.startswith(ELLIPSIS) for label in term) for term in inputs),
        default=0,
    )
    ellipsis = tuple(f"...{k}" for k in reversed(range(spread)))
    if not arrow:
        counts = Counter(label for term in inputs for label in term)
        once = sorted(
            c for c, n in counts.items() if n == 1 and not c.startswith(ELLIPSIS)
        )
        return Contraction(inputs, (*ellipsis, *once))
    if "," in rhs or rhs.count(ELLIPSIS) > 1 or "." in rhs.replace(ELLIPSIS, ""):
        raise ValueError(f"output term '{rhs}' is malformed")
    head, _, tail = rhs.partition(ELLIPSIS)
    if ELLIPSIS not in rhs and spread:
        raise ValueError(f"output term '{rhs}' drops the ellipsis dims")
    output = (*head, *(ellipsis if ELLIPSIS in rhs else ()), *tail)
    letters = [label for label in output if not label.startswith(ELLIPSIS)]
    named = {label for term in inputs for label in term}
    for letter in letters:
        if not (letter.isascii() and letter.isalpha()):
            raise ValueError(
                f"output term '{rhs}' has a character that is not a letter"
            )
        if letter not in named:
            raise ValueError(f"output letter '{letter}' names no input dim")
    if len(set(letters)) != len(letters):
        raise ValueError(f"output term '{rhs}' repeats a letter")
    return Contraction(inputs, output)


@irdl_op_definition
class EinsumOp(GEOperation):
    """Sum over the products of the inputs' elements as `equation` says
    (module docstring)."""

    name = "ge.einsum"

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    equation = attr_def(StringAttr)

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = COMPUTE_FORMAT

    def contraction(self) -> Contraction:
        """The equation resolved against the operands' ranks."""
        ranks = [len(shape_of(v.type)) for v in self.inputs]
        return parse_equation(self.value_of("equation"), ranks)

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'ge.einsum' needs at least one input")
        check_same_element_type(self)
        try:
            contraction = self.contraction()
            contraction.sizes([shape_of(v.type) for v in self.inputs])
        except ValueError as error:
            raise VerifyException(str(error)) from None

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The output labels' extents; the inputs' dtype."""
        if not shapes:
            raise ShapeError("needs at least one input")
        equation = attrs.get("equation")
        if not isinstance(equation, str):
            raise ShapeError("needs an equation")
        try:
            contraction = parse_equation(equation, [len(s) for s in shapes])
            sizes = contraction.sizes(shapes)
        except ValueError as error:
            raise ShapeError(str(error)) from None
        return [
            (tuple(sizes[label] for label in contraction.output), same_dtype(dtypes))
        ]

    @staticmethod
    @float32_compute
    def numpy_kernel(inputs: Sequence[np.ndarray], *, equation: str) -> np.ndarray:
        """`np.einsum` in the inputs' dtype."""
        dtype = inputs[0].dtype
        result = np.einsum("".join(equation.split()), *inputs, dtype=dtype)
        return np.asarray(result, dtype=dtype)
