"""The ops' NumPy kernels as plain functions, for tests: `kernel_calls.relu(x)`.

`kernel_calls.NAME(*arrays, **attributes)` calls the `numpy_kernel` of
`ge.NAME` with the op's attribute defaults filled in, absent trailing
optional operands passed as None (`ge_dialect.adapters.call_kernel`) and, for
the tests' convenience, `data_format="NCHW"` unless given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ge_dialect.adapters import call_kernel, numpy_kernel_of
from ge_dialect.ops import GE_OPS

RAW: dict[str, Callable[..., Any]] = {
    op.name.removeprefix("ge."): kernel
    for op in GE_OPS
    if (kernel := numpy_kernel_of(op)) is not None
}
"""Short op name -> the kernel itself (its own signature)."""


def _with_defaults(op: type) -> Callable[..., Any]:
    layout = (
        {"data_format": "NCHW"}
        if "data_format" in op.get_irdl_definition().attributes
        else {}
    )
    return functools.partial(call_kernel, op, **layout)


HOST_OPS: dict[str, Callable[..., Any]] = {
    op.name.removeprefix("ge."): _with_defaults(op)
    for op in GE_OPS
    if numpy_kernel_of(op) is not None
}
"""Short op name -> the kernel with defaults filled in."""


def __getattr__(name: str) -> Callable[..., Any]:
    if name in HOST_OPS:
        return HOST_OPS[name]
    raise AttributeError(name)
