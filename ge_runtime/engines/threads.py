"""How many threads a run uses (`ge-run --threads`, `ge_xdsl.set_threads`):
the generated C kernels' (`jit.c_runtime`: OpenMP loops) and the BLAS's under
NumPy (`set_threads` sets both; by default, every core this process may use).

NumPy does not expose the BLAS's; OpenBLAS does, through a C function whose
name depends on how it was built (`openblas_set_num_threads`, with the
`scipy_` prefix and `64_` suffix of the wheels' 64-bit-index build). The
library NumPy loaded is found among the process's mapped files.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np  # noqa: F401  (loads the BLAS this module controls)

from ge_runtime.jit.c_runtime import available_cores, set_kernel_threads

PREFIXES = ("", "scipy_")
SUFFIXES = ("", "64_")


def _openblas() -> list[ctypes.CDLL]:
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return []
    paths = {
        line.split()[-1]
        for line in maps.read_text().splitlines()
        if "openblas" in line.rsplit("/", 1)[-1].lower()
    }
    return [ctypes.CDLL(path) for path in sorted(paths)]


def _function(name: str) -> list[ctypes._CFuncPtr]:
    found = []
    for library in _openblas():
        for prefix in PREFIXES:
            for suffix in SUFFIXES:
                symbol = f"{prefix}openblas_{name}{suffix}"
                if hasattr(library, symbol):
                    found.append(getattr(library, symbol))
    return found


def set_blas_threads(count: int) -> bool:
    """Make OpenBLAS use `count` threads; False if no OpenBLAS is loaded."""
    setters = _function("set_num_threads")
    for setter in setters:
        setter(ctypes.c_int(count))
    return bool(setters)


def blas_threads() -> int | None:
    """The OpenBLAS thread count (None: no OpenBLAS loaded)."""
    for getter in _function("get_num_threads"):
        getter.restype = ctypes.c_int
        return int(getter())
    return None


def set_threads(count: int | None = None) -> int:
    """Run the C kernels' parallel loops and the BLAS on `count` threads
    (None: every core this process may use); returns the count."""
    count = available_cores() if count is None else count
    set_blas_threads(count)
    set_kernel_threads(count)
    return count
