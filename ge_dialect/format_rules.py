"""Infer-format rules: how each op relates the origin formats of its tensors.

This is the *policy* half of `infer-origin-format` (GE's per-op InferFormat
functions); `passes/infer_origin_format.py` is the *mechanism* (the
breadth-first driver). Two kinds of rule exist, both `FormatRule`s:

- an **infer rule** runs when propagation reaches an op: it reads the op's
  current formats and writes a format into some of its tensors. A rule that
  writes nothing stops propagation at the op (GE's `InferStopND`);
- a **refresh rule** runs once, before propagation, on ops that carry format
  meaning of their own (a `data_format` attribute, a `ge.data` with a user
  `storage_format`, a `ge.const` whose value is typed with a `#ge.layout`).
  Ops whose refresh writes something become anchors.

Writes only land on tensors that are still ND (first writer wins); the driver
also refuses values whose rank the format cannot describe, scalars, and
values of locked producers, so rules never need to check.

Users add rules for their own ops from a plugin (`ge-opt --load-plugin`):

```python
from ge_dialect.format_rules import FormatView, register_format_rule

@register_format_rule("mydialect.blur")
def blur_format(view: FormatView) -> None:
    view.set_output(0, view.input(0))        # the output means what x means
```

Built-in ops declare their rules in their definitions (class attributes
`FORMAT_RULE` and, for anchors, `REFRESH_RULE`); a registered rule overrides
the declared one.
Ops with neither use GE's `DefaultInferFormat` (`default_rule`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from ge_dialect.attribute_values import attribute_value
from ge_dialect.attributes import FormatAttr, LayoutAttr
from ge_dialect.formats import INTERNAL_FORMATS, Format, full_rank
from ge_dialect.layout import layout_of
from ge_dialect.traits import Broadcasting

LOCK_ATTR = "_format_locked"
"""Unit attribute that keeps every tensor of an op out of propagation."""


def sync_transdata_formats(op: Operation) -> None:
    """`src_format`/`dst_format` name the storage of the operand and result.

    A storage of ND follows a newly written origin (ND bytes and NCHW bytes
    of the same shape are the same bytes), so the attributes follow too.
    """
    for attr, value in (("src_format", op.operands[0]), ("dst_format", op.results[0])):
        tensor = value.type
        if isinstance(tensor, TensorType):
            op.attributes[attr] = FormatAttr(layout_of(tensor)[1])


class FormatView(Protocol):
    """What a rule sees of one op: its tensors' origin formats, and writes."""

    op: Operation

    def input(self, index: int) -> Format:
        """The origin format of operand `index` as this op sees it (GE's input
        descriptor: ND until a walk or a rule wrote it, whatever the
        producer's result holds)."""
        ...

    def output(self, index: int) -> Format:
        """The origin format of result `index`."""
        ...

    def set_input(self, index: int, fmt: Format) -> None:
        """Give operand `index` format `fmt` if it is still ND (and may change)."""
        ...

    def set_output(self, index: int, fmt: Format) -> None:
        """Give result `index` format `fmt` if it is still ND (and may change)."""
        ...


FormatRule = Callable[[FormatView], None]

FORMAT_RULES: dict[str, FormatRule] = {}
"""Op name -> infer rule registered from Python (plugins); it takes precedence
over the rule an op declares (`FORMAT_RULE`)."""

REFRESH_RULES: dict[str, FormatRule] = {}
"""Op name -> refresh rule registered from Python (plugins)."""


def register_format_rule(
    op_name: str, *, refresh: bool = False
) -> Callable[[FormatRule], FormatRule]:
    """Decorator registering `rule` as the infer (or refresh) rule of `op_name`.

    A later registration replaces an earlier one, so a plugin can also
    override a built-in rule.
    """

    def register(rule: FormatRule) -> FormatRule:
        (REFRESH_RULES if refresh else FORMAT_RULES)[op_name] = rule
        return rule

    return register


def infer_rule(op: Operation) -> FormatRule:
    """The infer rule of `op`.

    A registered rule, else the op's `FORMAT_RULE`, else the same-rank rule
    for `Broadcasting` ops, else GE's default rule.
    """
    if (rule := FORMAT_RULES.get(op.name)) is not None:
        return rule
    if (rule := getattr(type(op), "FORMAT_RULE", None)) is not None:
        return rule
    return same_rank_rule if op.has_trait(Broadcasting) else default_rule


def refresh_rule(op: Operation) -> FormatRule | None:
    """The refresh rule of `op`, if the op carries format meaning of its own.

    A registered rule, else the op's `REFRESH_RULE`, else the data-format
    rule for ops with a `data_format` attribute.
    """
    if (rule := REFRESH_RULES.get(op.name)) is not None:
        return rule
    if (rule := getattr(type(op), "REFRESH_RULE", None)) is not None:
        return rule
    return data_format_rule if "data_format" in op.attributes else None


# ---------------------------------------------------------------------------
# Helpers shared by the rules
# ---------------------------------------------------------------------------


def _rank(view: FormatView, index: int, *, output: bool) -> int:
    values = view.op.results if output else view.op.operands
    tensor = values[index].type
    return tensor.get_num_dims() if isinstance(tensor, TensorType) else -1


def _chosen_format(view: FormatView, rank: int | None = None) -> Format:
    """GE's choice: the first non-ND input, overridden by a non-ND output.

    With `rank`, only tensors of that rank are considered.
    """
    chosen = Format.ND
    for output, count in ((False, len(view.op.operands)), (True, len(view.op.results))):
        for index in range(count):
            if rank is not None and _rank(view, index, output=output) != rank:
                continue
            fmt = view.output(index) if output else view.input(index)
            if fmt != Format.ND:
                chosen = fmt
                break
    return chosen


def _write_all(view: FormatView, fmt: Format, rank: int | None = None) -> None:
    """Write `fmt` into every operand and result (of `rank`, if given)."""
    for index in range(len(view.op.operands)):
        if rank is None or _rank(view, index, output=False) == rank:
            view.set_input(index, fmt)
    for index in range(len(view.op.results)):
        if rank is None or _rank(view, index, output=True) == rank:
            view.set_output(index, fmt)


def _three_d(fmt: Format) -> Format:
    """The 5-D counterpart GE's BiasAdd rule gives a 4-D format."""
    return {Format.NCHW: Format.NCDHW, Format.NHWC: Format.NDHWC}.get(fmt, fmt)


# ---------------------------------------------------------------------------
# Infer rules
# ---------------------------------------------------------------------------


def default_rule(view: FormatView) -> None:
    """GE's DefaultInferFormat: the chosen format goes into every ND tensor.

    ```mlir
    %y = ge.relu %x : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x3x8x8xf32>
    // after:                                       -> tensor<..., #ge.layout<NCHW>>
    ```
    """
    if (fmt := _chosen_format(view)) != Format.ND:
        _write_all(view, fmt)


def same_rank_rule(view: FormatView) -> None:
    """The default rule restricted to tensors of result 0's rank.

    Lower-rank broadcast operands stay ND: an NCHW label would expand a
    rank-1 operand as [1, C, 1, 1], while NumPy broadcasting aligns it with W.

    ```mlir
    %y = ge.add %x, %b : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<8xf32>) -> ...
    // after: %y is NCHW, %b stays ND
    ```
    """
    if not view.op.results:
        return
    rank = _rank(view, 0, output=True)
    if (fmt := _chosen_format(view, rank)) != Format.ND:
        _write_all(view, fmt, rank)


def stop_rule(view: FormatView) -> None:
    """Writes nothing: the op's other tensors mean something else (stops here).

    Used for ops that regroup axes (reshape, flatten, squeeze, matmul, ...):
    ```mlir
    %y = ge.flatten %x : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x192xf32>
    // after: %y stays ND
    ```
    """


def full_rank_rule(view: FormatView) -> None:
    """The same-rank rule on tensors of full rank (4 or 5), else stop.

    Softmax over a 2-D tensor has no layout meaning even next to NCHW data.
    """
    if view.op.results and _rank(view, 0, output=True) >= 4:
        same_rank_rule(view)


def reduce_rule(view: FormatView) -> None:
    """Reductions keep the layout only with `keep_dims` (else the rank drops)."""
    if attribute_value(view.op, "keep_dims"):
        same_rank_rule(view)


def permutation_rule(attr: str) -> FormatRule:
    """Rule for a transpose by the permutation in attribute `attr`.

    The result's axes are the input's letters permuted, when that names a
    format; otherwise nothing is written.

    ```mlir
    %y = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>}
       : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x8x8x3xf32>
    // after: %y is NHWC
    ```
    """

    def rule(view: FormatView) -> None:
        rank = max(_rank(view, 0, output=False), 1)
        perm = [p % rank for p in attribute_value(view.op, attr)]
        if (source := view.input(0)) != Format.ND:
            if (target := _permuted(source, perm)) is not None:
                view.set_output(0, target)
        elif (target := view.output(0)) != Format.ND:
            inverse = sorted(range(len(perm)), key=perm.__getitem__)
            if (source := _permuted(target, inverse)) is not None:
                view.set_input(0, source)

    return rule


def _permuted(fmt: Format, perm: Sequence[int]) -> Format | None:
    if len(fmt.value) != len(perm) or full_rank(fmt) != len(perm):
        return None
    letters = "".join(fmt.value[p] for p in perm)
    try:
        return Format(letters)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# Refresh rules (and the infer rules of ops with a data_format)
# ---------------------------------------------------------------------------


def data_format_rule(view: FormatView) -> None:
    """The op's `data_format` names the layout of every tensor it has.

    Per-channel parameters of rank 1 take it too (GE's default reshape type
    "C" expands them to [1, C, 1, 1]).
    """
    _write_all(view, Format(attribute_value(view.op, "data_format")))


def conv_rule(view: FormatView) -> None:
    """Convolutions: x, y and bias are in `data_format`; an ND filter is OIHW.

    ```mlir
    %y = ge.conv2d %x, %w {data_format = "NHWC"} : (tensor<1x8x8x3xf32>,
         tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
    // after: %x, %y NHWC; %w NCHW (the layout host kernels read an ND filter in)
    ```
    """
    fmt = Format(attribute_value(view.op, "data_format"))
    for index in range(len(view.op.operands)):
        view.set_input(index, Format.NCHW if index == 1 else fmt)
    view.set_output(0, fmt)


def bias_add_rule(view: FormatView) -> None:
    """GE's BiasAdd rule: 5-D tensors take the 3-D format, low-rank inputs stay ND.

    ```mlir
    %y = ge.bias_add %x, %b {data_format = "NHWC"}
       : (tensor<1x2x4x4x8xf32>, tensor<8xf32>) -> tensor<1x2x4x4x8xf32>
    // after: %x, %y NDHWC; %b stays ND
    ```
    """
    fmt = Format(attribute_value(view.op, "data_format"))
    for index in range(len(view.op.operands)):
        rank = _rank(view, index, output=False)
        if rank >= 4:
            view.set_input(index, _three_d(fmt) if rank == 5 else fmt)
    rank = _rank(view, 0, output=True)
    view.set_output(0, _three_d(fmt) if rank == 5 else fmt)


def data_storage_format_rule(view: FormatView) -> None:
    """A `ge.data` whose user `storage_format` is an origin format means it.

    Internal formats (NC1HWC0, ...) say nothing about the origin, as in GE's
    anchor refresh.
    """
    if "storage_format" not in view.op.attributes:
        return
    fmt = Format(attribute_value(view.op, "storage_format"))
    if fmt not in INTERNAL_FORMATS:
        view.set_output(0, fmt)


def constant_refresh_rule(view: FormatView) -> None:
    """GE's Constant refresh: a value typed with a layout gives the result's format.

    ```mlir
    %c = ge.const {value = dense<1.0> : tensor<8xf32, #ge.layout<NCHW>>}
       : tensor<8xf32>
    // after: : tensor<8xf32, #ge.layout<NCHW>>
    ```
    """
    value = view.op.attributes.get("value")
    value_type = getattr(value, "type", None)
    if isinstance(value_type, TensorType) and isinstance(
        value_type.encoding, LayoutAttr
    ):
        view.set_output(0, value_type.encoding.origin_format)
