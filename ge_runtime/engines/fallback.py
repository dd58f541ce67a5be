"""Host-side fallback dispatch: a marked op runs through its single-op API call.

GE's fallback (SPEC §8): an op marked by `mark-fallback` (attribute
`_fallback`) can run on the host through a function that turns the op's
inputs, outputs and attributes into the arguments of a single-op API
(`aclnnXxx`) and calls it. Here the single-op API is the op's NumPy kernel
(`numpy_kernel`, declared with the op: tensors positional, attributes as
keywords) and the fallback function of every op is the **generated** adapter
`ge_dialect.adapters.run_numpy_kernel`: nothing is written per op, so a user
op with a `numpy_kernel` gets its fallback for free.

When the fallback runs is the mode's business (`runs_on_host`):
`aclnn_only` always, `support_aclnn` only under host scheduling (dynamic
shapes); a static graph sinks a `support_aclnn` op with the rest of the
graph. The motivating case is a multi-kernel op (a matmul implemented as
several kernels) whose launches a sunk model cannot plan ahead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from ge_dialect.adapters import numpy_kernel, run_numpy_kernel
from ge_dialect.locations import error_at
from ge_dialect.opinfo import FallbackMode
from passes.mark_fallback import FALLBACK_ATTRIBUTE


def fallback_mode(op: Operation) -> FallbackMode | None:
    """The op's fallback mode from its `_fallback` attribute (None: not marked)."""
    attr = op.attributes.get(FALLBACK_ATTRIBUTE)
    if attr is None:
        return None
    modes = ", ".join(m.value for m in FallbackMode)
    if not isinstance(attr, StringAttr) or attr.data not in set(FallbackMode):
        raise error_at(op, f"'{FALLBACK_ATTRIBUTE}' must be one of {modes}, got {attr}")
    return FallbackMode(attr.data)


def runs_on_host(op: Operation, *, host_scheduled: bool) -> bool:
    """Whether `op` runs through its fallback function.

    `aclnn_only` ops always do; `support_aclnn` ops only when the graph runs
    under host scheduling.
    """
    mode = fallback_mode(op)
    if mode is FallbackMode.ACLNN_ONLY:
        return True
    return mode is FallbackMode.SUPPORT_ACLNN and host_scheduled


def single_op_api(op: Operation) -> str:
    """The name of the single-op API function that runs `op` (for traces)."""
    return numpy_kernel(op).__qualname__


def execute_fallback(op: Operation, operands: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run `op` through its single-op API on origin-layout operands.

    The generated adapter passes the operands positionally and the
    attributes as keywords; results come back in origin layout, checked
    against the op's result types.
    """
    return run_numpy_kernel(op, operands)
