"""Entry point that makes the `ge` dialect and passes available to `xdsl-opt`."""

from xdsl.universe import Universe


def _get_ge_dialect():
    from ge_dialect.dialect import GE

    return GE


def _get_passes():
    from passes import get_all_passes

    return get_all_passes()


GE_UNIVERSE = Universe(all_dialects={"ge": _get_ge_dialect}, all_passes=_get_passes())
