"""An example user plugin: a small dialect whose ops take part in GE's passes.

Load it with `ge-opt --load-plugin toy_plugin.py`. It defines the `toy`
dialect, registers it so `ge-opt` parses it, and gives its ops infer-format
rules (for `infer-origin-format`) and shape functions (for `infer-shape`):

- `toy.blur`: elementwise; the output means what the input means;
- `toy.mix`: no rule, so GE's default rule applies;
- `toy.nhwc_relu`: a rule that labels an ND result NHWC;
- `toy.fail`: a rule that fails;
- `toy.stop`: a rule that writes nothing (propagation stops there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    result_def,
    var_operand_def,
)

from ge_dialect.format_rules import FormatView, register_format_rule
from ge_dialect.formats import Format
from ge_dialect.shape_inference import Result, Shape, register_shape_function
from passes.universe import register_user_dialect


class ToyOp(IRDLOperation):
    """Base of the toy ops: tensors in, one tensor out."""

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class BlurOp(ToyOp):
    """An elementwise filter."""

    name = "toy.blur"


@irdl_op_definition
class MixOp(ToyOp):
    """Combines its inputs; has no infer-format rule."""

    name = "toy.mix"


@irdl_op_definition
class NhwcReluOp(ToyOp):
    """Its rule says its result is NHWC."""

    name = "toy.nhwc_relu"


@irdl_op_definition
class FailOp(ToyOp):
    """Its rule fails."""

    name = "toy.fail"


@irdl_op_definition
class StopOp(ToyOp):
    """Its rule writes nothing."""

    name = "toy.stop"


TOY = register_user_dialect(
    Dialect("toy", [BlurOp, MixOp, NhwcReluOp, FailOp, StopOp], [])
)


@register_format_rule("toy.blur")
def blur_format(view: FormatView) -> None:
    """Input and output share one format, whichever side has it."""
    fmt = view.input(0) if view.input(0) != Format.ND else view.output(0)
    view.set_input(0, fmt)
    view.set_output(0, fmt)


@register_format_rule("toy.nhwc_relu")
def nhwc_relu_format(view: FormatView) -> None:
    """The result is NHWC (if it is still ND)."""
    view.set_output(0, Format.NHWC)


@register_format_rule("toy.fail")
def fail_format(view: FormatView) -> None:
    """Always fails."""
    raise ValueError("toy.fail cannot infer formats")


@register_format_rule("toy.stop")
def stop_format(view: FormatView) -> None:
    """Writes nothing."""


@register_shape_function(
    "toy.blur", "toy.nhwc_relu", "toy.fail", "toy.stop", keeps_layout=True
)
def toy_shape(
    shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
) -> list[Result]:
    """Shaped and typed like the first input."""
    return [(shapes[0], dtypes[0])]
