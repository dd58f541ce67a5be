"""What runs each loop nest: a C kernel, a BLAS call or NumPy calls.

The choice of the whole function (`kernel_choice`: `GE_XDSL_KERNELS`) and
of each top-level nest (`nest_source`). With C kernels, every nest a C
kernel takes becomes one (`emit.c.CNest`: it declines a real matrix
product, left to BLAS); the others go to the NumPy emitter
(`emit.numpy_nest`: GEMMs as BLAS calls, the rest as ufuncs over strided
views); a nest neither takes raises `Unsupported` and runs in the scalar
path. A new backend adds its name to `KERNELS` and its order here.
"""

from __future__ import annotations

import os

from xdsl.dialects import affine

from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.emit import c
from ge_runtime.jit.emit.numpy_nest import NestVectoriser
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import UnusableSetup

KERNELS = ("c", "numpy")
"""What runs the loop nests NumPy calls do not do best: C kernels
(`emit.c`), or NumPy calls only."""

REMOVED = {
    "numba": "numba kernels were removed (slower than the C kernels: "
    "SqueezeNet 208 vs 12 ms); use GE_XDSL_KERNELS=c or numpy"
}
"""Kernel names that once existed, with why they are gone."""


def kernel_choice(kernels: str | None) -> str:
    """The kernels asked for, else `$GE_XDSL_KERNELS`, else C when a C
    compiler is found and NumPy calls when not; `UnusableSetup` for a name
    not in `KERNELS` or kernels that cannot be built here (no pretending)."""
    if kernels is None:
        kernels = os.environ.get("GE_XDSL_KERNELS") or (
            "c" if c.compiler() else "numpy"
        )
    if kernels in REMOVED:
        raise UnusableSetup(f"error: GE_XDSL_KERNELS={kernels}: {REMOVED[kernels]}")
    if kernels not in KERNELS:
        raise UnusableSetup(
            f"error: unknown kernels '{kernels}' (GE_XDSL_KERNELS): "
            f"expected one of {', '.join(KERNELS)}"
        )
    if kernels == "c" and c.compiler() is None:
        raise UnusableSetup(
            "error: C kernels were asked for, but there is no C compiler ($CC)"
        )
    return kernels


def kernel_status(kernels: str | None = None) -> str:
    """How loop nests run (by default: `kernel_choice`), for a user to read."""
    try:
        kernels = kernel_choice(kernels)
    except UnusableSetup as error:
        return f"unavailable: {str(error).removeprefix('error: ')}"
    if kernels == "numpy":
        return "NumPy calls only (GE_XDSL_KERNELS=c adds C kernels)"
    missing = c.openmp_missing()
    threads = (
        f"one thread: no OpenMP, {missing}"
        if missing
        else f"{c.kernel_threads()} thread(s)"
    )
    return f"C kernels (cc, {threads}), BLAS for large matrix products"


def nest_source(
    op: affine.ForOp, env: CodeEnv, kernels: str, indent: str
) -> tuple[list[str], bool]:
    """The source of a top-level nest and whether it is a native kernel
    call: a C kernel when the kernels are C and it takes the nest (any nest
    but a matrix product), else NumPy calls (`Unsupported` if neither)."""
    if kernels == "c":
        try:
            return c.CNest(op, env).compile(indent), True
        except Unsupported:
            pass
    return NestVectoriser(op, env).compile(indent), False
