"""Entry point that makes the `ge` dialect and passes available to `xdsl-opt`.

`ge-opt` builds its context from this universe too, so a plugin's dialect
becomes parseable by adding it here (`register_user_dialect`).
"""

from xdsl.ir import Dialect
from xdsl.universe import Universe

from passes import get_all_passes


def _get_ge_dialect() -> Dialect:
    from ge_dialect.dialect import GE

    return GE


GE_UNIVERSE = Universe(
    all_dialects={"ge": _get_ge_dialect}, all_passes=get_all_passes()
)
"""The `ge` dialect and every pass of the project."""


def register_user_dialect(dialect: Dialect) -> Dialect:
    """Make a plugin's dialect parseable by `ge-opt` (and `xdsl-opt`).

    `ge-opt --load-plugin` imports plugins before it builds its context; the
    context takes its dialects from xDSL's universe, so the dialect is added
    to the project's universe entry.
    """
    GE_UNIVERSE.all_dialects[dialect.name] = lambda: dialect
    return dialect
