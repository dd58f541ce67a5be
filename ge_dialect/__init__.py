"""The `ge` dialect: formats, layouts, ops and their semantics.

Importing the package installs MLIR's float-literal rules into xDSL's parser and
printer (`ge_dialect.float_literals`), so ±inf, NaN and -0.0 constants survive
a print/parse round trip.
"""

from ge_dialect import float_literals as _float_literals  # noqa: F401
