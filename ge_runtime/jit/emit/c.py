"""Loop nests compiled to C by the system's C compiler (the default kernels).

`CNest` writes a nest `native.NativeNest` walks as a C function over raw buffers:
every extent and stride a literal, so the compiler unrolls a window's taps
and vectorises the loop of unit stride around them; the constant offset of
a buffer's first index is in the address the call passes, so a repeated
block of a network, or the same code on another channel group, is one
kernel; kernels alike but for the trip counts of loops the compiler neither
unrolls nor vectorises, the strides of those loops and the work that
splits them over threads (the same layer over more channels, or over a
smaller image) share one body taking those numbers (`shared_form`,
`CLibrary.define`). The kernels of one generated function are one shared library
(`CLibrary`) of several translation units, each compiling while the code
generator writes the next, linked under the code cache
(`cache.folder.kernel_folder("c")`, named by a digest of its source, the
compiler and its flags) and called through `ctypes`, which releases the GIL
(`jit.c_runtime`: compiling, loading and calling the kernels, without IR).

```c
void k3(float *a0, float *a1) {         /* a ReLU nest */
    for (int64_t t0 = 0; t0 < 96; ++t0) {
        for (int64_t t1 = 0; t1 < 8; ++t1) {
            float x0 = a0[t0 * 8 + t1];
            a1[t0 * 8 + t1] = ((x0 > 0x0p+0f | x0 != x0) ? x0 : 0x0p+0f);
        }
    }
}
```

The generated Python passes each buffer's address (`address`: computed
once per thread for the arena's views, once at bind for packed weights),
after checking the buffer has the strides the IR gives it. What the C
computes is what NumPy computes: the flags keep IEEE semantics
(`-ffp-contract=off`: no multiply-add fused behind the code's back; no
`-ffast-math`), integer arithmetic wraps as NumPy's does (`-fwrapv`), and
`floordiv`/`mod` of an index round down as Python's. Two exceptions, both
written out in the code: a sum of products accumulates with fused
multiply-adds (`FMA`: one rounding per term, as BLAS's products), and the
transcendental functions (`ops.LIBM`: exp, log, tanh, erf, ...) are the C
library's, within a few ULP of NumPy's. Each arith/math op is spelled by
its `ops.OPS` entry (`Semantics.c`, `c_float32`), or left to NumPy for the
reason the entry gives.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue

from ge_runtime.jit import c_runtime
from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.c_runtime import (
    PART,
    THREADS,
    address,
    address_table,
    checked,
    kernel,
)
from ge_runtime.jit.emit.native import NativeNest
from ge_runtime.jit.emit.native_operands import UNROLLED
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import (
    CAST,
    DIVIDES,
    OPS,
    constant_value,
    numpy_dtype,
    predicate,
)
from ge_runtime.offline import progress
from passes.lowering.index import Div, Mod

C_TYPES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.bool_): "uint8_t",
}
"""C types of the element types a kernel takes (`native.NATIVE_TYPES`)."""

UNSIGNED_C_TYPES = {
    np.dtype(np.int8): "uint8_t",
    np.dtype(np.int32): "uint32_t",
    np.dtype(np.int64): "uint64_t",
    np.dtype(np.bool_): "uint8_t",
}
"""The unsigned C type of each integer type's width (`Semantics.c`'s
`{unsigned}`)."""

PRELUDE = """\
#include <math.h>
#include <stdint.h>
static inline int64_t floordiv(int64_t a, int64_t k) {
    int64_t q = a / k;
    return (a % k != 0 && a < 0) ? q - 1 : q;
}
static inline int64_t floormod(int64_t a, int64_t k) {
    int64_t r = a % k;
    return (r != 0 && r < 0) ? r + k : r;
}
static inline int32_t ge_fptosi_int32_t(double x) {
#if defined(__x86_64__) || defined(__i386__)
    return (x > -0x1p31 - 1.0 && x < 0x1p31) ? (int32_t) x : INT32_MIN;
#else
    return x != x ? 0
        : x >= 0x1p31 ? INT32_MAX : x <= -0x1p31 ? INT32_MIN : (int32_t) x;
#endif
}
static inline int64_t ge_fptosi_int64_t(double x) {
#if defined(__x86_64__) || defined(__i386__)
    return (x >= -0x1p63 && x < 0x1p63) ? (int64_t) x : INT64_MIN;
#else
    return x != x ? 0
        : x >= 0x1p63 ? INT64_MAX : x <= -0x1p63 ? INT64_MIN : (int64_t) x;
#endif
}
static inline int8_t ge_fptosi_int8_t(double x) {
    return (int8_t) ge_fptosi_int32_t(x);
}
static inline uint8_t ge_fptosi_uint8_t(double x) {
    return x != 0;
}
extern int ge_threads __attribute__((visibility("hidden")));
extern int64_t ge_parallel_work __attribute__((visibility("hidden")));
static inline __attribute__((always_inline)) float ge_powf(float x, float y) {
    float cube = x * x * x;
    float magnitude = powf(__builtin_fabsf(x), y);
    float half = y * 0.5f;
    int whole = y == __builtin_floorf(y);
    int odd = whole & (half != __builtin_floorf(half));
    float signed_ = (odd & (__builtin_signbitf(x) != 0)) ? -magnitude : magnitude;
    int negative = (x < 0.0f) & (x != -__builtin_inff());
    float power = (negative & !whole) ? __builtin_nanf("") : signed_;
    return y == 3.0f ? cube : power;
}
static inline __attribute__((always_inline)) float ge_expf(float x) {
    float clamped = x > 128.0f ? 128.0f : x;
    double xd = clamped < -150.0f ? -150.0f : clamped;
    double shifted = __builtin_fma(xd, 0x1.71547652b82fep+0, 0x1.8p52);
    double n = shifted - 0x1.8p52;
    double r = __builtin_fma(n, -0x1.62e42fefa39efp-1, xd);
    r = __builtin_fma(n, -0x1.abc9e3b39803fp-56, r);
    double p = 0x1.71de3a556c734p-19;
    p = __builtin_fma(p, r, 0x1.a01a01a01a01ap-16);
    p = __builtin_fma(p, r, 0x1.a01a01a01a01ap-13);
    p = __builtin_fma(p, r, 0x1.6c16c16c16c17p-10);
    p = __builtin_fma(p, r, 0x1.1111111111111p-7);
    p = __builtin_fma(p, r, 0x1.5555555555555p-5);
    p = __builtin_fma(p, r, 0x1.5555555555555p-3);
    p = __builtin_fma(p, r, 0x1p-1);
    p = __builtin_fma(p, r, 0x1p+0);
    p = __builtin_fma(p, r, 0x1p+0);
    int64_t bits;
    __builtin_memcpy(&bits, &shifted, 8);
    int64_t scale_bits = (bits - 0x4338000000000000LL + 1023) << 52;
    double scale;
    __builtin_memcpy(&scale, &scale_bits, 8);
    float result = (float) (p * scale);
    return x != x ? x : result;
}
static inline __attribute__((always_inline)) double ge_log_positive(double xd) {
    int64_t bits;
    __builtin_memcpy(&bits, &xd, 8);
    int64_t top = (bits >> 52) & 0x7ff;
    int64_t high = (bits & 0xfffffffffffffLL) > 0x6a09e667f3bcdLL;
    int64_t mantissa_bits = (bits & 0xfffffffffffffLL) | ((1023 - high) << 52);
    double m;
    __builtin_memcpy(&m, &mantissa_bits, 8);
    double e = (double) (top - 1023 + high);
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double p = 0x1.e1e1e1e1e1e1ep-5;
    p = __builtin_fma(p, s2, 0x1.1111111111111p-4);
    p = __builtin_fma(p, s2, 0x1.3b13b13b13b14p-4);
    p = __builtin_fma(p, s2, 0x1.745d1745d1746p-4);
    p = __builtin_fma(p, s2, 0x1.c71c71c71c71cp-4);
    p = __builtin_fma(p, s2, 0x1.2492492492492p-3);
    p = __builtin_fma(p, s2, 0x1.999999999999ap-3);
    p = __builtin_fma(p, s2, 0x1.5555555555555p-2);
    p = __builtin_fma(p, s2, 0x1p+0);
    double log_m = 2.0 * s * p;
    double sum = __builtin_fma(e, 0x1.62e42fefa39efp-1, log_m);
    return __builtin_fma(e, 0x1.abc9e3b39803fp-56, sum);
}
static inline __attribute__((always_inline)) float ge_logf(float x) {
    float result = (float) ge_log_positive(x);
    float special = x == 0.0f ? -__builtin_inff() : __builtin_nanf("");
    result = x > 0.0f ? result : special;
    return (x != x) | (x == __builtin_inff()) ? x : result;
}
static inline __attribute__((always_inline)) float ge_log1pf(float x) {
    double xd = x;
    double u = 1.0 + xd;
    double rounded = u - 1.0;
    double corrected = ge_log_positive(u) * (xd / rounded);
    float result = (float) (rounded == 0.0 ? xd : corrected);
    float special = x == -1.0f ? -__builtin_inff() : __builtin_nanf("");
    result = x > -1.0f ? result : special;
    return (x != x) | (x == __builtin_inff()) ? x : result;
}
"""
"""What every translation unit starts with (divisors are positive).
`ge_fptosi_*` convert a float as the processor does, which is NumPy's
`astype` (a C cast of NaN or of a value out of range is undefined): on x86
the least integer of 32 or 64 bits, a narrower type the low bits of the
32-bit one, i1 whether it is nonzero; elsewhere (AArch64) saturated, NaN 0.
`ge_powf` is C99's `powf` (its special cases the same) through the power
of the base's magnitude, whose vector variant (`VECTOR_MATH`) takes no
slow path on a negative base (GPT-2's GELU cubes its inputs): the sign of
an odd integer power put back, NaN for a finite negative base to a power
that is not an integer. A cube is `x * x * x`, as onnxruntime computes
it: with a literal exponent (a constant global, `CodeEnv.scalars`) GPT-2's
GELU calls no `powf` (8.8 % of its time at 1 thread), as the square folds
into `x * x` by itself. `ge_expf` is `expf` written out so that a loop
calling it vectorises (no call; the C library's `expf` has no vector
variant as accurate): in double precision, `x = n ln 2 + r` (|r| <= ln 2 / 2,
`n` rounded by adding 1.5 * 2**52), `e**r` by its Taylor polynomial to
degree 9 (error below 1e-11), times `2**n` built from its bits, rounded
once to float (at most 1 ULP from the exact result, on 70 M values
and the special ones; glibc's the same, NumPy's 2; 0.7 ns an element
with AVX-512 against glibc's 2.7). Beyond the clamps at 128 and -150 the
result overflows to infinity or underflows to 0; NaN passes through.
`ge_logf` is `logf` written out the same way: in double precision (a
float's subnormals are normal doubles), `x = m 2**e` with `m` in
[sqrt(1/2), sqrt(2)), `log m = 2 atanh(s)`, `s = (m - 1) / (m + 1)`, by its
series to `s**17` (|s| <= 0.172: error below 1e-14), plus `e ln 2`, rounded
once to float (at most 1 ULP from the exact result, NumPy's 2; 0 is -inf,
a negative NaN, inf and NaN themselves): a log-mel spectrogram's 9880
`logf` calls (2.1 ns each) were a twentieth of its run. `ge_log1pf` is
`log1pf` on the same double-precision logarithm: `u = 1 + x` is exact in
double for every float x but the tiniest, and `log(u) * x / (u - 1)`
corrects those (`u == 1`: `x` itself); -1 is -inf, below it NaN, at most 1
ULP: a softplus (`log1p(exp(x))`: Mamba's step sizes) called glibc's
scalar `log1pf`, 30 % of Mamba's run. All are inlined always: in a large
part GCC's `-O1` kept `ge_logf` a call, and the loop around it did not
vectorise (7.5% of MelFrontEnd's run)."""

PRODUCT_LIMIT = 1 << 22
"""Matrix products of at most this many multiply-adds are C loops, and
larger ones that sum at most `SHORT_SUM` terms per element (a stem
convolution's 3x3x3); other ones go to BLAS, which packs them."""

SHORT_SUM = 64
"""Terms per element of a short sum of products: C loops win over packing
for BLAS at any size, and run it fast enough even where the loop around it
could not be sunk (`native_tiling.LoopTiling._sinkable`); a longer unsunk sum would run
one term at a time: BLAS."""

TILED_SUM = 160
"""Terms per element of a sum of products C runs at any size when its loop
of outputs is sunk (register tiles, fused multiply-adds), with tiles of 64
sums (`tile_elements`): faster than BLAS's packing, product and epilogue
passes up to about here (SqueezeNet's 3x3 convolutions of 16 channels, 144
terms); longer sums reuse a weight over too few outputs to keep up with
BLAS (Inception's, 576 and more)."""

WIDE_TILED_SUM = 1200
"""`TILED_SUM` with tiles of 256 sums (AVX-512's): a weight vector serves
16 outputs. Measured against 160 (CPU time, same machine, two rounds):
CRNN 2.22 -> 1.68-1.89 ms, SqueezeNet 9.3-9.8 -> 6.8-7.7, ResNet-50 95 ->
78-84, MobileNetV2 0.88-0.98 -> 0.80-0.85."""

PART_SIZE = 16
"""Kernels per part: a part starts compiling as soon as the code generator
has written that many (`CLibrary.define`), while it writes the next ones,
on as many compilers at a time as there are processors. Small enough that
little is left to compile when the code is complete; a compiler's start-up
(about 35 ms with the prelude) is small next to 16 kernels (about 1 s)."""

MAX_ARGUMENTS = 1024
"""The most arguments a `ctypes` call passes."""


STATUS = "int e"
"""The local a caller of kernels that check the data keeps their status in
(`stop_at_failed_check`)."""


def stop_at_failed_check(call: str, before: int) -> str:
    """The C statement making `call` of a kernel that checks the data and
    returning the number of its failed check, if one failed, after the
    `before` checks of the kernels called before it (`c_runtime.checked`)."""
    return f"if ((e = {call}) != 0) return e + {before};"


def check_op(op: Operation, constants: Mapping[SSAValue, Any]) -> None:
    """Raise `Unsupported` unless C spells arith/math op `op` (`ops.OPS`'s
    C column, or a comparison's; a division by a divisor among `constants`
    or an `arith.constant`, where it must be one)."""
    compare = predicate(op)
    if compare is not None:
        if compare.c is None:
            raise Unsupported(f"'{op.name}': {compare.c_missing}")
        return
    semantics = OPS.get(op.name)
    if semantics is None:
        raise Unsupported(f"'{op.name}' is left to NumPy")
    if semantics.c is None:
        raise Unsupported(f"'{op.name}': {semantics.c_missing}")
    if semantics.dtypes == "float" and not np.issubdtype(
        numpy_dtype(op.operands[0].type), np.floating
    ):
        raise Unsupported(f"'{op.name}' of integers is left to NumPy")
    if semantics.c_divisor and not _divides_as_numpy(op, constants):
        raise Unsupported(f"'{op.name}' by a divisor not a constant: {DIVIDES}")


def _divides_as_numpy(op: Operation, constants: Mapping[SSAValue, Any]) -> bool:
    """Whether `op`'s divisor is a constant C divides by as NumPy does
    (`Semantics.c_divisor`): not 0, and for a signed division not -1."""
    divisor = op.operands[1]
    if isinstance(divisor.owner, arith.ConstantOp):
        value = int(constant_value(divisor.owner))
    elif divisor in constants:
        value = int(constants[divisor])
    else:
        return False
    signed = OPS[op.name].c_divisor == "signed"
    return value != 0 and not (signed and value == -1)


def expression(op: Operation, operands: list[str]) -> str:
    """The C expression of op `op` (`check_op` took it) on `operands`."""
    compare = predicate(op)
    if compare is not None:
        assert compare.c is not None  # `check_op`
        return compare.c.format(*operands)
    semantics = OPS[op.name]
    dtype = numpy_dtype(op.results[0].type)
    if semantics.c == CAST:
        return cast(dtype, operands[0])
    if semantics.c_float32 is not None and dtype == np.float32:
        return semantics.c_float32.format(*operands)
    assert semantics.c is not None  # `check_op`
    if not semantics.converts:
        types = {"type": C_TYPES[dtype], "unsigned": UNSIGNED_C_TYPES.get(dtype)}
        return semantics.c.format(*operands, **types)
    source = C_TYPES[numpy_dtype(op.operands[0].type)]
    return semantics.c.format(*operands, source=source, result=C_TYPES[dtype])


def cast(dtype: np.dtype, value: str) -> str:
    """`value` converted to `dtype` (C's conversion: `ops.CAST`; to i1,
    NumPy's: whether it is nonzero)."""
    if dtype == np.bool_:
        return f"((uint8_t) ({value} != 0))"
    return f"(({C_TYPES[dtype]}) {value})"


def integer(value: int) -> str:
    """An int64 literal (the least one spelled as C allows)."""
    value = int(value)
    return "(-9223372036854775807 - 1)" if value == -(2**63) else str(value)


def bool_literal(value: bool) -> str:
    """An i1 literal."""
    return "1" if value else "0"


def float_literal(value: float, dtype: np.dtype) -> str:
    """A float literal, exact (hexadecimal), NaN's sign kept."""
    suffix = "f" if dtype == np.float32 else ""
    if math.isnan(value):
        sign = "-" if math.copysign(1.0, value) < 0 else ""
        return f'({sign}__builtin_nan{suffix}(""))'
    if math.isinf(value):
        sign = "-" if value < 0 else ""
        return f"({sign}__builtin_inf{suffix}())"
    return f"({value.hex()}{suffix})"


def literal(constant: Any, value_type: Attribute) -> str:
    """A constant of type `value_type` (an index: an int64)."""
    if isinstance(value_type, IndexType):
        return integer(constant)
    dtype = numpy_dtype(value_type)
    if dtype == np.bool_:
        return bool_literal(bool(constant))
    if dtype.kind == "f":
        return float_literal(float(constant), dtype)
    return int_literal(int(constant), dtype)


def int_literal(value: int, dtype: np.dtype) -> str:
    """An integer literal of `dtype`."""
    return f"(({C_TYPES[dtype]}) {integer(value)})"


def prelude() -> str:
    """What every translation unit starts with: `PRELUDE`, and the vector
    variants of `c_runtime.VECTOR_MATH` declared when the C library has
    them."""
    if c_runtime.vector_math():
        return PRELUDE + c_runtime.VECTOR_MATH_DECLARATIONS
    return PRELUDE


def vector_registers() -> tuple[int, int]:
    """The vector registers the kernels are compiled for
    (`c_runtime.target_macros`): how many, and the float32 lanes of each
    (AVX-512: 32 of 16, AVX2: 16 of 8, NEON: 32 of 4, SSE: 16 of 4)."""
    macros = c_runtime.target_macros()
    if "__AVX512F__" in macros:
        return 32, 16
    if "__AVX2__" in macros:
        return 16, 8
    if "__aarch64__" in macros:
        return 32, 4
    return 16, 4


VECTOR_TAIL = 4
"""The sums of the narrowest vector (SSE's 4 floats): a sunk loop's last
`extent % VECTOR_TAIL` are a loop of their own (`vector_spans`)."""


def vector_spans(extent: int) -> list[tuple[int, int]]:
    """The ranges a sunk loop of `extent` runs in, one loop each: its
    whole vectors, then the rest. In one loop of 14, GCC vectorises 8 and
    4 and leaves 2 to a scalar epilogue that, once a register tile's rows
    are unrolled, its block vectoriser gathers into 2-lane vectors and its
    induction-variable pass then weighs use by use: ShuffleNet's widest
    tiles (14 and 10 channels, 16 rows) took 0.3 s of GCC each, 0.15 s as
    loops of 12 and 2, with the same vector operations (ShuffleNet's GCC
    6 % less over all, its kernels' instructions 0.4 % more, as many
    multiply-adds, 16 fewer of them scalar)."""
    tail = extent % VECTOR_TAIL
    if tail == 0 or tail == extent:
        return [(0, extent)]
    return [(0, extent - tail), (extent - tail, extent)]


def tile_elements() -> int:
    """The most sums a register tile holds: half the vector registers'
    lanes, the other half for the operands' vectors and broadcasts (256
    with AVX-512, 64 with AVX2)."""
    registers, lanes = vector_registers()
    return registers * lanes // 2


def tile_rows(extent: int) -> int:
    """The most rows of `extent` sums (a sunk loop's) a register tile holds:
    half the vector registers, each row taking as many as its sums need
    (AVX-512: 16 rows of 16 or of 2 channels, 8 of 32). Counted in sums
    instead, rows of 2 took 128 rows: GCC spent seconds on each such kernel
    (its alias walks over the unrolled tile; ShuffleNet's 2-channel groups)
    for sums that could not stay in registers anyway."""
    registers, lanes = vector_registers()
    return registers // 2 // -(-extent // lanes)


def tiled_sum() -> int:
    """The longest sum of products C runs at any size when its loop of
    outputs is sunk (`TILED_SUM`, `WIDE_TILED_SUM`)."""
    return WIDE_TILED_SUM if tile_elements() >= 256 else TILED_SUM


NUMBER = "n"
"""The prefix of a shared body's parameters (`shared_form`)."""

_LOOP = re.compile(r"(\s*for \(int64_t (t\d+) = 0; \2 < )(\d+)(; \+\+\2\) \{)")
_DECLARED = re.compile(r"\s*int64_t (t\d+) = ")
_WORK = re.compile(r"(&& )(\d+)LL( >= ge_parallel_work)")
_ARGUMENT = re.compile(r"\ba\d+\[")
_STRIDE = re.compile(r"\(([t\d +*]+)\) \* (\d+)")
_VARIABLE = re.compile(r"\bt\d+\b")
_NUMBERED = re.compile(rf"\b{NUMBER}\d+\b")


def shared_form(body: list[str]) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """`body` (a `CNest`'s statements) with the numbers that kernels of one
    layer over other sizes differ in as parameters (`NUMBER` and their
    position), and those numbers; None when it has none.

    The numbers are those the compiler does not need to know: the trip
    count of a loop around other loops that no pragma unrolls or
    vectorises (GCC unrolls such a loop of 2 trips, but MobileViT's
    convolutions over 2 and 4 channel blocks ran as fast with the count a
    parameter), the strides of such loops' variables in the arguments'
    subscripts, and the work that splits the nest over threads. The
    loops that vectorise, the register tiles' unrolled ones and the
    windows' short innermost ones keep their literals, so the
    compiler vectorises and unrolls the shared body as each kernel's.
    A number is one parameter wherever it is the same loop's trip count,
    or the same argument's stride of the same variables (the compiler
    sees an element read and written in place as one), whichever other
    numbers it equals (those equalities differ between sizes).
    DenseNet-121's 1x1 convolutions differ only in their input's channel
    blocks (the loop summing them, the weights' stride): the 12 to 24 of
    a dense block are one body."""
    lines = "\n".join(body).split("\n")
    values: dict[tuple[str, int], str] = {}

    def number(place: str, text: str) -> str:
        return values.setdefault((place, int(text)), f"{NUMBER}{len(values)}")

    outer = _outer_loops(lines)
    # per block open, the variables it opens or declares, and whether each
    # is a loop variable whose strides are parameters
    scopes: list[dict[str, bool]] = []
    shared = []
    for index, line in enumerate(lines):
        loop = _LOOP.fullmatch(line)
        if loop is not None:
            varying = index in outer
            if varying:
                line = f"{loop[1]}{number(loop[2], loop[3])}{loop[4]}"
            scopes.append({loop[2]: varying})
        elif line.endswith("{"):
            scopes.append({})
        elif line.strip() == "}":
            scopes.pop()
        elif (declared := _DECLARED.match(line)) is not None and scopes:
            scopes[-1][declared[1]] = False  # a tile's row, not a loop's
        line = _WORK.sub(lambda w: f"{w[1]}{number('', w[2])}{w[3]}", line)
        if loop is None and _ARGUMENT.search(line):
            line = _shared_strides(line, scopes, number)
        shared.append(line)
    if not values:
        return None
    return tuple(shared), tuple(value for _, value in values)


def _outer_loops(lines: list[str]) -> set[int]:
    """The lines opening a loop of `_LOOP`'s form that no pragma unrolls or
    vectorises and that holds another loop."""
    plain = {
        index
        for index, line in enumerate(lines)
        if _LOOP.fullmatch(line) and not lines[index - 1].lstrip().startswith("_")
    }  # `_Pragma("GCC unroll ...")`
    found = set()
    opened: list[int | None] = []
    for index, line in enumerate(lines):
        if line.endswith("{"):
            if line.lstrip().startswith("for ("):
                loops = [o for o in opened if o is not None]
                if loops and loops[-1] in plain:
                    found.add(loops[-1])
                opened.append(index)
            else:
                opened.append(None)
        elif line.strip() == "}":
            opened.pop()
    return found


def _shared_strides(
    line: str, scopes: list[dict[str, bool]], number: Callable[[str, str], str]
) -> str:
    """`line` with the strides of the outer loops' variables in its
    arguments' subscripts (`shared_form`) numbered by `number` (of the
    argument and variables, and the literal)."""

    def varying(variable: str) -> bool:
        for scope in reversed(scopes):
            if variable in scope:
                return scope[variable]
        return False

    def term(argument: str, text: str) -> str:
        stride = _STRIDE.fullmatch(text)
        if stride is None:
            return text
        variables = _VARIABLE.findall(stride[1])
        if not variables or not all(map(varying, variables)):
            return text
        return f"({stride[1]}) * {number(f'{argument}{stride[1]}', stride[2])}"

    pieces, done = [], 0
    for argument in _ARGUMENT.finditer(line):
        if argument.start() < done:
            continue  # inside the subscript before
        end = _closing(line, argument.end())
        terms = _top_level_terms(line[argument.end() : end])
        shared = " + ".join(term(argument[0], t) for t in terms)
        pieces += [line[done : argument.end()], shared]
        done = end
    return "".join([*pieces, line[done:]])


def _closing(text: str, start: int) -> int:
    """The position of the bracket closing the one before `start`."""
    depth = 1
    for position in range(start, len(text)):
        depth += {"[": 1, "]": -1}.get(text[position], 0)
        if depth == 0:
            return position
    raise ValueError(f"unbalanced brackets: {text}")


def _top_level_terms(text: str) -> list[str]:
    """The terms of sum `text` outside any parentheses or brackets."""
    terms, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and text.startswith(" + ", position):
            terms.append(text[start:position])
            start = position + 3
    return [*terms, text[start:]]


def c_function(returns: str, name: str, parameters: str, body: list[str]) -> str:
    """The text of C function `name` returning `returns`, its statements
    `body` (each line indented), and the empty line after it."""
    return "\n".join([f"{returns} {name}({parameters}) {{", *body, "}", ""])


def _holder_call(
    holder: tuple[str, frozenset[int]],
    parameters: str,
    values: tuple[int, ...],
    status: bool,
) -> str:
    """The statement calling `holder` (a kernel holding a shared body, and
    the positions of the numbers it takes) from a kernel of `parameters`
    whose numbers are `values` (`CLibrary._shared_body_call`)."""
    name, taken = holder
    names = [p.rsplit(" ", 1)[1] for p in parameters.split(", ") if p]
    passed = [integer(values[i]) for i in sorted(taken)]
    call = f"{name}({', '.join([*names, *passed])})"
    return f"    return {call};" if status else f"    {call};"


class CLibrary:
    """The C kernels of one generated function: one shared library of
    several translation units (`PART_SIZE` kernels each), each compiling
    while the code generator writes the next, linked when the function's
    code is complete (`build`)."""

    def __init__(self, env: CodeEnv):
        self.env = env
        self.functions: list[tuple[str, str, int]] = []
        """Namespace name, C source and argument count of each kernel."""
        self._names: dict[tuple[str, tuple[str, ...]], str] = {}
        """Each kernel's name by its parameters and body."""
        self._calls: dict[str, list[str]] = {}
        """The kernels each kernel of `sequence` or `caller`, or each kernel
        running a shared body (`_shared_body_call`), calls."""
        self._shared: dict[
            tuple[str, tuple[str, ...], bool],
            tuple[str, tuple[int, ...], list[tuple[str, frozenset[int]]]],
        ] = {}
        """Each body kernels share (`shared_form`), by parameters, body and
        status: its first kernel and that kernel's numbers, and the kernels
        holding it with the positions of the numbers each takes
        (`_shared_body_call`)."""
        self._calls_one: set[str] = set()
        """Kernels whose body is one call of a kernel holding a shared body
        (`_shared_body_call`): a part holds `PART_SIZE` kernels besides them,
        which cost the compiler next to nothing."""
        self._unbound: set[str] = set()
        """Kernels only other kernels call (the shared bodies)."""
        self.checking: set[str] = set()
        """The kernels that return a status (`CNest.checks`, `caller`)."""
        self.parts: list[str] = []
        """The translation units written so far (after the prelude)."""
        self._written = 0
        """How many of `functions` the parts hold."""
        env.deferred.append(self.build)

    def define(
        self,
        parameters: str,
        body: list[str],
        arguments: int,
        status: bool = False,
        shared: tuple[tuple[str, ...], tuple[int, ...]] | None = None,
    ) -> str:
        """The name of a kernel of `parameters` and `body`: the one defined
        before with the same code (a repeated block of a network, or the
        same code on another block of its buffers: ShuffleNet's C is 256
        functions, 467 before offsets moved into the addresses), else a
        new one; every `PART_SIZE` new kernels (but those calling a shared
        body) start compiling as a part.
        With `status` the kernel returns an `int` (its body's `return`s).

        `shared` is `body` with some of its numbers parameters, and their
        values (`shared_form`). The second kernel of such a body and the
        ones after it call one kernel holding it, passing their values:
        the compiler compiles it once (DenseNet-121's 306 kernels are 139
        bodies with the outermost loop's trip count a parameter, 99 with
        every number `shared_form` takes)."""
        key = (parameters, tuple(body))
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = self.env.fresh("k")
            returns = "int" if status else "void"
            call = None
            if shared is not None:
                call = self._shared_body_call(
                    name, parameters, arguments, status, *shared
                )
            lines = body if call is None else [call]
            self.functions.append(
                (name, c_function(returns, name, parameters, lines), arguments)
            )
            if status:
                self.checking.add(name)
            pending = self.functions[self._written :]
            if sum(n not in self._calls_one for n, _, _ in pending) >= PART_SIZE:
                self._write_part(len(self.functions), start=True)
        return name

    def _shared_body_call(
        self,
        name: str,
        parameters: str,
        arguments: int,
        status: bool,
        body: tuple[str, ...],
        values: tuple[int, ...],
    ) -> str | None:
        """The statement with which kernel `name` runs the shared `body`
        with its parameters `values`; None for the first kernel of that
        body, which is written out unless the second comes before its part
        is (then it too calls the kernel holding the body, and the
        compiler compiles the body once, not twice).

        A kernel holding the body takes as parameters only the numbers
        that differ between the kernels calling it and the first (the
        others stay literals, which the compiler uses: DenseNet-121's 1x1
        convolutions ran 19 % slower with the strides of the loop summing
        the channels, the same in every layer, as parameters); another is
        defined, taking those numbers and the ones before, for a kernel
        differing in a number no holder of the body takes."""
        key = (parameters, body, status)
        found = self._shared.get(key)
        if found is None:
            self._shared[key] = (name, values, [])
            return None
        first_name, first, holders = found
        varying = frozenset(i for i, value in enumerate(values) if value != first[i])
        chosen = next(((h, t) for h, t in holders if varying <= t), None)
        if chosen is None:
            taken = varying.union(*(t for _, t in holders))
            chosen = (self.env.fresh("k"), taken)
            returns = "int" if status else "void"
            numbers = [f"int64_t {NUMBER}{i}" for i in sorted(taken)]
            literal = {
                f"{NUMBER}{i}": integer(v)
                for i, v in enumerate(first)
                if i not in taken
            }
            lines = [
                _NUMBERED.sub(lambda n: literal.get(n[0], n[0]), line) for line in body
            ]
            with_numbers = ", ".join([parameters, *numbers])
            holder = (
                chosen[0],
                c_function(returns, chosen[0], with_numbers, lines),
                arguments + len(numbers),
            )
            self._unbound.add(chosen[0])
            pending = [n for n, _, _ in self.functions[self._written :]]
            if not holders and first_name in pending:
                position = self._written + pending.index(first_name)
                call = _holder_call(chosen, parameters, first, status)
                code = c_function(returns, first_name, parameters, [call])
                self.functions[position : position + 1] = [
                    holder,
                    (first_name, code, arguments),
                ]
                self._calls[first_name] = [chosen[0]]
                self._calls_one.add(first_name)
            else:
                self.functions.append(holder)
            holders.append(chosen)
        self._calls[name] = [chosen[0]]
        self._calls_one.add(name)
        return _holder_call(chosen, parameters, values, status)

    def _write_part(self, end: int, *, start: bool) -> None:
        """The kernels from the last part's to `end` as the next part (with
        the declarations of the kernels they call), compiling from now
        with `start`."""
        kernels = self.functions[self._written : end]
        defined = {name for name, _, _ in kernels}
        codes = {name: code for name, code, _ in self.functions}
        called = dict.fromkeys(
            callee
            for name, _, _ in kernels
            for callee in self._calls.get(name, [])
            if callee not in defined
        )
        declarations = [codes[c].split(" {", 1)[0] + ";" for c in called]
        first = [THREADS] if not self.parts else []
        part = "\n".join([*first, *declarations, *(code for _, code, _ in kernels)])
        self.parts.append(part)
        self._written = end
        cc = c_runtime.compiler()
        if start and cc is not None:
            c_runtime.start_part(cc, prelude() + part)

    @staticmethod
    def of(env: CodeEnv) -> CLibrary:
        """The library of `env`'s function (made on first use)."""
        found = env.extensions.get(CLibrary)
        if found is None:
            found = env.extensions[CLibrary] = CLibrary(env)
        return found

    def sequence(
        self,
        calls: list[tuple[str, list[str], str | None]],
        table: list[str],
        weights: list[str],
    ) -> tuple[str, str | None, str | None]:
        """A kernel calling the kernels of `calls` in turn, the Python line
        calling it, and the lines making its tables: the addresses in `table`
        (the same on every call of a thread, `kernel_calls.merge_kernel_calls`)
        it reads from one array of them (`c_runtime.address_table`), whose
        address is its first argument, those in `weights` (the same with the
        weights bound) from another, its next; the others it takes one by
        one. A call with the name of its messages checks the data: the
        kernel stops at the first that fails and returns the number of its
        failed check among all the calls' (their messages one tuple, which
        its call line passes to `c_runtime.checked`)."""
        names = list(dict.fromkeys(a for _, arguments, _ in calls for a in arguments))
        row = {name: f"t[{i}]" for i, name in enumerate(table)}
        row.update({name: f"w[{i}]" for i, name in enumerate(weights)})
        position = {name: row.get(name, f"a{i}") for i, name in enumerate(names)}
        given = [name for name in names if name not in row]
        name = self.env.fresh("k")
        parameters = [f"void *{position[n]}" for n in given]
        passed = list(given)
        making = making_bound = None
        if weights:
            parameters.insert(0, "void *const *w")
            passed.insert(0, f"{name}_weights")
            making_bound = f"    {name}_weights = address_table({', '.join(weights)})"
            self.env.namespace["address_table"] = address_table
        if table:
            parameters.insert(0, "void *const *t")
            passed.insert(0, f"{name}_table")
            making = f"    {name}_table = address_table({', '.join(table)})"
            self.env.namespace["address_table"] = address_table
        body = []
        messages: tuple[str, ...] = ()
        for callee, arguments, checks in calls:
            call = f"{callee}({', '.join(position[a] for a in arguments)})"
            if checks is None:
                body.append(f"    {call};")
                continue
            body.append(f"    {stop_at_failed_check(call, len(messages))}")
            messages += self.env.namespace[checks]
        returns = "void"
        if messages:
            returns = "int"
            body = [f"    {STATUS};", *body, "    return 0;"]
            self.checking.add(name)
        code = c_function(returns, name, ", ".join(parameters), body)
        self._add_caller(name, code, len(passed), [k for k, _, _ in calls])
        call = f"{name}({', '.join(passed)})"
        if messages:
            call = f"checked({call}, {self.env.add_global(messages, 'm')})"
        return f"    {call}", making, making_bound

    def caller(
        self, parameters: list[str], body: list[str], calls: list[str], returns: bool
    ) -> str:
        """The name of a new kernel of `parameters` and `body`, C statements
        calling kernels (`calls`, defined before) among others, returning an
        `int` status with `returns` (`c_regions.CRegion`: scalar work and
        control flow in C)."""
        name = self.env.fresh("k")
        result = "int" if returns else "void"
        code = c_function(result, name, ", ".join(parameters), body)
        self._add_caller(name, code, len(parameters), calls)
        if returns:
            self.checking.add(name)
        return name

    def _add_caller(
        self, name: str, code: str, arguments: int, calls: list[str]
    ) -> None:
        """Kernel `name` of `code`, calling the kernels `calls` (declared in
        its part where another part defines them)."""
        self.functions.append((name, code, arguments))
        self._calls[name] = list(dict.fromkeys(calls))

    def build(self) -> None:
        """Write the last parts, compile (or find) the library and bind each
        kernel under its namespace name.

        The kernels no part holds yet are split into parts of at most
        `PART_SIZE`, and into at least one per processor: nothing else
        runs while they compile, and they are what the library waits for
        (CRNN's last 12 kernels and its sequences: 1.3 s on one processor
        while the other was idle)."""
        count = len(self.functions)
        written, left = self._written, count - self._written
        parts = max(-(-left // PART_SIZE), min(c_runtime.available_cores(), left))
        for number in range(1, parts + 1):
            self._write_part(written + left * number // parts, start=False)
        progress.detail(f"the C compiler on {count} kernels")
        source = prelude() + "".join(PART + part for part in self.parts)
        for name, _, arguments in self.functions:
            if name not in self._unbound:
                status = name in self.checking
                self.env.namespace[name] = kernel(source, name, arguments, status)


class CNest(NativeNest):
    """A nest as a call of a C function (a kernel of the `CLibrary`)."""

    FMA = {
        np.dtype(np.float32): "__builtin_fmaf({0}, {1}, {2})",
        np.dtype(np.float64): "__builtin_fma({0}, {1}, {2})",
    }
    EMPTY = ";"

    def __init__(self, root: affine.ForOp, env: CodeEnv):
        self._product = False
        """Whether the nest adds up products (a convolution, a matmul)."""
        self.kernel: tuple[str, tuple[int, ...]] | None = None
        """The kernel's name and the positions of the arguments it writes
        (once `_call` has defined it)."""
        super().__init__(root, env)

    def _check_op(self, op: Operation) -> None:
        check_op(op, self.env.constants)

    def _check_not_a_product(self) -> None:
        """A small matrix product runs here too: packing its operands for
        BLAS and scattering the result back cost more than it. Any sum of
        products is checked again once written (`_call`): through a
        `floordiv`/`mod` (channel groups that do not align with C0) only
        with its loop of outputs sunk."""
        if next(self._products(), None) is None:
            return
        self._product = True
        try:
            super()._check_not_a_product()
        except Unsupported:
            small = (
                self._iterations() <= PRODUCT_LIMIT
                or self._reduction_length() <= tiled_sum()
            )
            if not small:
                raise

    def _wraps(self) -> bool:
        """Whether an access of the nest indexes through `floordiv`/`mod`."""
        return any(
            isinstance(atom, Div | Mod)
            for statement in self.nest.statements
            if isinstance(statement.op, affine.LoadOp | affine.StoreOp)
            for ix in self.nest.access_index(statement.op)
            for atom in ix.atoms()
        )

    def _call(
        self, indent: str, arguments: list[str], written: tuple[int, ...]
    ) -> list[str]:
        if any(strides is None for strides in self.arg_strides):
            raise Unsupported("a scalar from outside the nest")
        if len(arguments) > MAX_ARGUMENTS:
            raise Unsupported(f"{len(arguments)} buffers: more than ctypes passes")
        terms = self._reduction_length() if self._product else 1
        if self._product and not self._sank and self._wraps():
            raise Unsupported(
                "a product through floordiv/mod whose loop of outputs is not "
                "sunk does not vectorise: BLAS over relayouts"
            )
        if terms > SHORT_SUM:
            if not self._sank:
                raise Unsupported("a long sum of products C does not vectorise: BLAS")
            if terms > tiled_sum() and self._iterations() > PRODUCT_LIMIT:
                raise Unsupported("a long sum of products BLAS runs faster")
        library = CLibrary.of(self.env)
        qualifier = " restrict" if self._apart(written) else ""
        parameters = ", ".join(
            f"{C_TYPES[dtype]} *{qualifier} {argument}"
            for argument, dtype in zip(arguments, self.arg_dtypes, strict=True)
        )
        body = self.tables + self.body
        if self.checks:
            body.append(f"{self.INDENT}return 0;")
        name = library.define(
            parameters, body, len(arguments), bool(self.checks), shared_form(body)
        )
        self.env.writes[name] = written
        self.kernel = name, written
        self._bind("address", address)
        lines = [indent + line for line in self.packing]
        pointers = []
        for position, (key, buffer) in enumerate(
            zip(self._arguments, self.args, strict=True)
        ):
            pointer = self._fresh("p")
            axes = self._indexed_axes(position)
            itemsize = self.arg_dtypes[position].itemsize
            strides = self.arg_strides[position]
            assert strides is not None
            byte_strides = tuple(strides[a] * itemsize for a in axes)
            offset = (self.arg_offsets[position] or 0) * itemsize
            head = f"{pointer} = address({buffer}, {axes}, {byte_strides}, "
            if isinstance(key, SSAValue):
                self.offset_lines.append((len(lines), len(head), key, offset, itemsize))
            lines.append(f"{indent}{head}{offset})")
            pointers.append(pointer)
        call = f"{name}({', '.join(pointers)})"
        if self.checks:  # the status the kernel returns raises its diagnostic
            # named by their text: a nest of the same key replays the binding
            digest = hashlib.sha256("\n".join(self.checks).encode()).hexdigest()
            messages = f"m_{digest[:16]}"
            self._bind(messages, tuple(self.checks))
            self._bind("checked", checked)
            return [*lines, f"{indent}checked({call}, {messages})"]
        return [*lines, f"{indent}{call}"]

    def _apart(self, written: tuple[int, ...]) -> bool:
        """Whether no buffer the kernel writes shares a byte with another of
        its arguments (then they are `restrict`: no run-time alias checks)."""
        keys = list(self._arguments)
        places = [
            self._footprint(key) if isinstance(key, SSAValue) else None for key in keys
        ]  # the others are copies the call's own lines make
        for position in written:
            place = places[position]
            if place is None:
                continue
            for other, elsewhere in enumerate(places):
                if other != position and elsewhere is not None:
                    if place.overlaps(elsewhere):
                        return False
        return True

    def _indexed_axes(self, position: int) -> tuple[int, ...]:
        """The axes of argument `position` its indexing uses: those of more
        than one element (the index of any other is 0)."""
        shape = self.arg_shapes[position]
        assert shape is not None
        return tuple(a for a, n in enumerate(shape) if n > 1)

    def _subscript(
        self, buffer: str, indices: list[str], shift: int, table: str | None = None
    ) -> str:
        position = int(buffer[1:])
        strides = self.arg_strides[position]
        assert strides is not None
        terms = [table] if table else []
        terms += [
            f"({indices[a]}) * {strides[a]}" if strides[a] != 1 else f"({indices[a]})"
            for a in self._indexed_axes(position)
        ]
        if shift:
            terms.append(self._param(shift))
        return f"{buffer}[{' + '.join(terms) or '0'}]"

    def _table_declaration(self, name: str, entries: np.ndarray) -> str:
        fits = np.iinfo(np.int32).min <= entries.min() <= entries.max() < 2**31
        values = ", ".join(str(int(e)) for e in entries)
        return (
            f"{self.INDENT}static const {'int32_t' if fits else 'int64_t'} "
            f"{name}[{len(entries)}] = {{{values}}};"
        )

    def _tile_rows(self, extent: int) -> int:
        return tile_rows(extent)

    def _fail_unless(self, indent: str, condition: str, message: str) -> None:
        self.checks.append(message)
        self.body.append(f"{indent}if (!({condition})) return {len(self.checks)};")

    def _index_within(self, index: str, size: int) -> str:
        return f"(uint64_t) ({index}) < {size}u"

    def _param(self, value: int) -> str:
        return integer(value)

    def _floordiv(self, text: str, divisor: int) -> str:
        return f"floordiv({text}, {divisor})"

    def _modulo(self, text: str, divisor: int) -> str:
        return f"floormod({text}, {divisor})"

    def _loop(self, indent: str, number: int, extent: str, start: int = 0) -> str:
        vectorised = number == self._sunk or (
            number in self._innermost and self.nest.axes[number].extent > UNROLLED
        )  # unrolled first, its selects would not vectorise
        unroll = 1 if vectorised else None
        return self._loop_of(indent, f"t{number}", extent, unroll, start)

    def _loop_of(
        self,
        indent: str,
        variable: str,
        extent: str,
        unroll: int | None = None,
        start: int = 0,
    ) -> str:
        t = variable
        line = f"{indent}for (int64_t {t} = {start}; {t} < {extent}; ++{t}) {{"
        if unroll is not None:
            return f'{indent}_Pragma("GCC unroll {unroll}")\n{line}'
        return line

    def _vector_spans(self, extent: int) -> list[tuple[int, int]]:
        return vector_spans(extent)

    def _parallel(self, indent: str, loops: int, work: int) -> str:
        collapse = f" collapse({loops})" if loops > 1 else ""
        return (
            f"{indent}#pragma omp parallel for num_threads(ge_threads) "
            f"if(ge_threads > 1 && {work}LL >= ge_parallel_work) "
            f"schedule(static){collapse}"
        )

    def _end_loop(self, indent: str) -> list[str]:
        return [f"{indent}}}"]

    def _define(self, indent: str, name: str, dtype: np.dtype, value: str) -> str:
        return f"{indent}{C_TYPES[dtype]} {name} = {value};"

    def _assign(self, indent: str, target: str, value: str) -> str:
        return f"{indent}{target} = {value};"

    def _array(self, indent: str, name: str, dtype: np.dtype, size: int) -> str:
        # Aligned explicitly: GCC 12 put a leaf function's local array in the
        # red zone 8 bytes off the 16 its vector stores assume (a crash).
        return f"{indent}{C_TYPES[dtype]} {name}[{size}] __attribute__((aligned(64)));"

    def _cast(self, dtype: np.dtype, value: str) -> str:
        return cast(dtype, value)

    def _expression(self, op: Operation, operands: list[str]) -> str:
        return expression(op, operands)

    def _literal(self, constant: Any, value: SSAValue) -> str:
        return literal(constant, value.type)
