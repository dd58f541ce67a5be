"""How many threads a run uses (`ge-run --threads`, `ge_xdsl.set_threads`):
the generated C kernels' (`jit.c_runtime`: OpenMP loops) and the BLAS's under
NumPy (`set_threads` sets both; by default, every core this process may use).

NumPy does not expose the BLAS's; OpenBLAS does, through a C function whose
name depends on how it was built (`openblas_set_num_threads`, with the
`scipy_` prefix and `64_` suffix of the wheels' 64-bit-index build). The
library NumPy loaded is found among the process's mapped files.

Idle BLAS threads sleep at once (`BLAS_THREAD_TIMEOUT`), as the kernels'
OpenMP threads do (`c_runtime.WAIT_POLICY`): two pools share the cores,
and one spinning while the other works takes the core it works on. The
console tools set it before NumPy loads (`tools/__init__.py`); `set_threads`
restarts the threads of a BLAS loaded before (a library user, a bench).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np  # noqa: F401  (loads the BLAS this module controls)

from ge_runtime.jit.c_runtime import available_cores, set_kernel_threads

PREFIXES = ("", "scipy_")
SUFFIXES = ("", "64_")

BLAS_THREAD_TIMEOUT = "4"
"""How long an idle OpenBLAS thread spins before it sleeps
(`OPENBLAS_THREAD_TIMEOUT`, unless set: 2**4 cycles, its least; its default
2**28 cycles is a tenth of a second after every GEMM). Spinning, ResNet-50's
BLAS thread at 2 threads took 60-95 ms of CPU a run beside its 12 ms of
GEMM work, while the C kernels' OpenMP threads waited for that core: 224
ms of CPU a run against 111 ms at 1 thread; asleep, 128 ms."""


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
    """Make OpenBLAS use `count` threads, idle ones asleep at once
    (`BLAS_THREAD_TIMEOUT`); False if no OpenBLAS is loaded."""
    setters = _function("set_num_threads")
    _sleep_when_idle()
    for setter in setters:
        setter(ctypes.c_int(count))
    return bool(setters)


_QUIETED: set[str] = set()
"""The OpenBLAS libraries whose threads were restarted with the timeout."""


def _sleep_when_idle() -> None:
    """Restart each OpenBLAS's threads (once) with `BLAS_THREAD_TIMEOUT`:
    it reads the variable when it starts them, so it reads its environment
    again and stops them; the next GEMM starts them anew."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", BLAS_THREAD_TIMEOUT)
    for library in _openblas():
        needed = ("openblas_read_env", "blas_thread_shutdown_")
        if library._name in _QUIETED or not all(hasattr(library, n) for n in needed):
            continue
        library.openblas_read_env()
        library.blas_thread_shutdown_()
        _QUIETED.add(library._name)


def blas_threads() -> int | None:
    """The OpenBLAS thread count (None: no OpenBLAS loaded)."""
    for getter in _function("get_num_threads"):
        getter.restype = ctypes.c_int
        return int(getter())
    return None


def set_threads(count: int | None = None) -> int:
    """Run the C kernels' parallel loops and the BLAS on `count` threads
    (None: every core this process may use); returns the count. Called
    while no model runs: the first call restarts the BLAS's threads."""
    count = available_cores() if count is None else count
    set_blas_threads(count)
    set_kernel_threads(count)
    return count
