"""The `ge` dialect object and a context that reads it."""

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Dialect

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr, StringType
from ge_dialect.ops import GE_OPS

GE = Dialect("ge", GE_OPS, [FormatAttr, LayoutAttr, ExternalDataAttr, StringType])
"""Every `ge` op and attribute."""


def make_context() -> Context:
    """A context with the builtin and `ge` dialects (what `.om` and `ge-run` read)."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(GE)
    return ctx
