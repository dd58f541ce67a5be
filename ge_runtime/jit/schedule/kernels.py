"""What runs each loop nest: a C kernel, a BLAS call or NumPy calls.

The choice of the whole function is `c_runtime.kernel_choice`
(`GE_XDSL_KERNELS`); this module makes the choice of each top-level nest
(`nest_source`). With C kernels, every nest a C
kernel takes becomes one (`emit.c.CNest`: it declines a real matrix
product, left to BLAS); the others go to the NumPy emitter
(`emit.numpy_nest`: GEMMs as BLAS calls, the rest as ufuncs over strided
views); a nest neither takes raises `Unsupported` and runs in the scalar
path. A new backend adds its name to `c_runtime.KERNELS` and its order here.
"""

from __future__ import annotations

from xdsl.dialects import affine

from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.emit import c
from ge_runtime.jit.emit.native_memo import NativeMemo
from ge_runtime.jit.emit.numpy_nest import NestVectoriser
from ge_runtime.jit.emit.scalar import CodeEnv


def nest_source(
    op: affine.ForOp, env: CodeEnv, kernels: str, indent: str
) -> tuple[list[str], str | None]:
    """The source of a top-level nest, and None if it is a native kernel
    call, else why not: a C kernel when the kernels are C and it takes the
    nest (any nest but a matrix product; a nest of a structure seen before
    replays that one's emission, `native_memo`), else NumPy calls
    (`Unsupported` if neither: with both reasons)."""
    if kernels != "c":
        return NestVectoriser(op, env).compile(indent), f"{kernels} kernels"
    try:
        return NativeMemo.of(env).compile(op, env, indent, c.CNest), None
    except Unsupported as refused:
        not_c = refused
    try:
        return NestVectoriser(op, env).compile(indent), str(not_c)
    except Unsupported as reason:
        raise Unsupported(f"{reason} (C kernel: {not_c})") from None
