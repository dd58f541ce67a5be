"""The `ge` dialect object."""

from xdsl.ir import Dialect

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.ops import GE_OPS

GE = Dialect("ge", GE_OPS, [FormatAttr, LayoutAttr, ExternalDataAttr])
"""Every `ge` op and attribute."""
