"""Loop nests compiled to C by the system's C compiler (the default kernels).

`CNest` writes a nest `native.NativeNest` walks as a C function over raw buffers:
every extent and stride a literal, so the compiler unrolls a window's taps
and vectorises the loop of unit stride around them; the constant offset of
a buffer's first index is in the address the call passes, so a repeated
block of a network, or the same code on another channel group, is one
kernel. The kernels of one generated function are one shared library
(`CLibrary`) of several translation units, each compiling while the code
generator writes the next, linked under the code cache
(`cache.folder.kernel_folder("c")`, named by a digest of its source, the
compiler and its flags) and called through `ctypes`, which releases the GIL.

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

import atexit
import ctypes
import hashlib
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import affine
from xdsl.ir import Operation, SSAValue

from ge_runtime.jit.analysis.loop_nest import Unsupported
from ge_runtime.jit.cache.folder import kernel_folder
from ge_runtime.jit.emit.native import NativeNest, iterations
from ge_runtime.jit.emit.native_operands import UNROLLED
from ge_runtime.jit.emit.scalar import CodeEnv
from ge_runtime.jit.ops import CAST, OPS, JITError, numpy_dtype, predicate
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
extern int ge_threads __attribute__((visibility("hidden")));
"""
"""What every translation unit starts with (divisors are positive)."""

THREADS = """\
int ge_threads = 1;
void ge_set_threads(int count) { ge_threads = count; }
"""
"""The threads a library's kernels split their parallel loops over (its
first part defines it; `set_kernel_threads` sets every library's)."""

FLAGS = (
    "-O2",
    "-fvect-cost-model=dynamic",
    "-march=native",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-fwrapv",
    "-fPIC",
    "-w",
)
"""IEEE arithmetic as NumPy's, vectorised for this machine. `-O2` (GCC 12
vectorises there too): the kernels ran as fast as with `-O3` (MobileNetV2,
MobileNetV3, SqueezeNet, same process, within 2 %) and compile in half the
time; with `-O3`'s cost model for vectorising, though, which `-O2`'s
(`very-cheap`) is not: that one vectorises no loop whose trip count is not
a multiple of the vector length and adds no alias check, so the 14 or 12
lanes of a misaligned channel group ran scalar (ShuffleNet 11.6 ms against
14.6 ms, DenseNet-121 and Inception-v2 7-10 % faster, none slower).
`-fno-trapping-math` lets the compiler turn a select into a blend (no
result changes: nothing reads the floating-point flags)."""

OPENMP = "-fopenmp"
"""The flag that makes `#pragma omp` loops run on threads (OpenMP, libgomp
with GCC); without it, the compiler ignores them and kernels run serially."""

WAIT_POLICY = "passive"
"""How idle OpenMP threads wait (`OMP_WAIT_POLICY`, unless set): asleep,
not spinning. Between two kernels the BLAS's own threads run the GEMMs,
and spinning kernel threads took their cores: on 2 cores shared with other
work, SqueezeNet's kernels at 2 threads ran in 492 ms spinning (GOMP's
default), 57 ms asleep (61 ms at 1 thread). Waking a thread costs tens of
microseconds (`native.PARALLEL_WORK`); on cores of its own, a run may ask
for `OMP_WAIT_POLICY=active`."""

OPENMP_PROBE = """\
#include <omp.h>
int probe(void) {
    int threads = 0;
    #pragma omp parallel reduction(+ : threads)
    threads += 1;
    return threads + omp_get_max_threads();
}
"""
"""A library compiled with `OPENMP` to see the compiler supports it."""

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
of outputs is sunk (register tiles, fused multiply-adds): faster than
BLAS's packing, product and epilogue passes up to about here (SqueezeNet's
3x3 convolutions of 16 channels, 144 terms); longer sums reuse a weight
over too few outputs to keep up with BLAS (Inception's, 576 and more)."""

PART = "/* part */\n"
"""Where a translation unit splits into parts that compile in parallel."""

PART_SIZE = 16
"""Kernels per part: a part starts compiling as soon as the code generator
has written that many (`CLibrary.define`), while it writes the next ones,
on as many compilers at a time as there are processors. Small enough that
little is left to compile when the code is complete; a compiler's start-up
(about 35 ms with the prelude) is small next to 16 kernels (about 1 s)."""

SEQUENCE_ATTRIBUTES = '__attribute__((optimize("O1")))'
"""How a kernel calling kernels in turn (`CLibrary.sequence`) is compiled:
at `-O2`, GCC took 2.0 s of CPU over ShuffleNet's seven (hundreds of calls
of up to 1024 addresses each), after the rest of the code was written; at
`-O1`, 0.26 s. What they do is call: nothing there to optimise."""

MAX_ARGUMENTS = 1024
"""The most arguments a `ctypes` call passes."""

COMPILE_SECONDS = 600
"""How long one translation unit may take to compile."""


@cache
def compiler() -> str | None:
    """The C compiler (`$CC`, else `cc`), or None if there is none."""
    command = shlex.split(os.environ.get("CC", "cc"))
    return shutil.which(command[0]) if command else None


@cache
def openmp_missing() -> str | None:
    """Why the C compiler cannot build kernels that run on threads (`cc
    -fopenmp` fails on `OPENMP_PROBE`); None when it can. Said once on
    stderr: kernels then run on one thread, whatever the thread count."""
    cc = compiler()
    if cc is None:
        return "no C compiler"
    with tempfile.TemporaryDirectory() as scratch:
        c_file = Path(scratch) / "probe.c"
        c_file.write_text(OPENMP_PROBE)
        command = [cc, OPENMP, "-fPIC", "-shared", "-o", str(c_file.with_suffix(".so"))]
        try:
            done = subprocess.run(
                [*command, str(c_file)],
                capture_output=True,
                text=True,
                timeout=COMPILE_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            reason = str(error)
        else:
            if done.returncode == 0:
                return None
            lines = done.stderr.strip().splitlines()
            reason = next((x for x in lines if "error" in x), "no message")
    print(
        f"note: {cc} {OPENMP} fails ({reason}): C kernels run on one thread",
        file=sys.stderr,
    )
    return reason


def flags() -> tuple[str, ...]:
    """The compiler's flags: `FLAGS`, and `OPENMP` when the compiler has it."""
    return FLAGS if openmp_missing() else (*FLAGS, OPENMP)


def available_cores() -> int:
    """The processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_THREADS = [available_cores()]
"""How many threads kernels split their parallel loops over (default: every
core this process may use, as onnxruntime; `set_kernel_threads`)."""


def set_kernel_threads(count: int) -> None:
    """Make every C kernel, loaded or not yet, run on `count` threads (one:
    serially, on the calling thread)."""
    with _LOCK:
        _THREADS[0] = count
        for loaded in _LIBRARIES.values():
            loaded.ge_set_threads(ctypes.c_int(count))


def kernel_threads() -> int:
    """The threads C kernels run on (one without OpenMP)."""
    return 1 if openmp_missing() else _THREADS[0]


@cache
def machine() -> str:
    """What `-march=native` compiles for (part of a library's name)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    flags = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return f"{platform.machine()}|{flags}"


_LOCK = threading.Lock()
_LIBRARIES: dict[str, ctypes.CDLL] = {}
_ORIGINS: dict[int, tuple[str, str, int]] = {}
"""id of a kernel -> its library's source, its name, its argument count."""


def library(source: str) -> ctypes.CDLL:
    """The shared library of a translation unit, compiled (or found) once."""
    with _LOCK:
        if source in _LIBRARIES:
            return _LIBRARIES[source]
        cc = compiler()
        if cc is None:
            raise JITError("C kernels need a C compiler: none found ($CC or cc)")
        key = "|".join([source, cc, *flags(), machine()])
        digest = hashlib.sha256(key.encode()).hexdigest()[:24]
        directory = kernel_folder("c")
        path = directory / f"lib{digest}.so"
        if not path.is_file():
            directory.mkdir(parents=True, exist_ok=True)
            _compile(cc, source, directory, path)
        else:
            _drop_parts(cc, source)
        os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)  # read at load
        loaded = ctypes.CDLL(str(path))
        loaded.ge_set_threads(ctypes.c_int(_THREADS[0]))
        _LIBRARIES[source] = loaded
        return loaded


def _compile(cc: str, source: str, directory: Path, path: Path) -> None:
    """Compile `source` into `path` (atomically: a reader never sees half).
    Its parts (after the prelude, split at `PART`) compile at the same
    time, one compiler per processor (those `CLibrary` started while the
    code was written are running or done), then link."""
    head, *parts = source.split(PART)
    compiling = [compile_part(cc, head + part) for part in parts or [""]]
    objects = [part.result() for part in compiling]
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        built = Path(scratch) / "kernels.so"
        try:
            _run([cc, *flags(), "-shared", "-o", str(built), *objects, "-lm"])
        finally:
            for done in objects:
                Path(done).unlink(missing_ok=True)
        os.replace(built, path)


_PARTS: dict[str, Future[str]] = {}
"""Parts compiling or compiled, not linked yet, by a digest of their text."""
_PARTS_LOCK = threading.Lock()


@cache
def _compilers() -> ThreadPoolExecutor:
    """The threads waiting on compilers, one per processor."""
    return ThreadPoolExecutor(available_cores(), thread_name_prefix="cc")


@cache
def _objects() -> Path:
    """A private folder for this process's object files (removed when it
    exits; a forked child makes its own)."""
    folder = Path(tempfile.mkdtemp(prefix="ge-xdsl-parts-"))
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


def _forget_compilers() -> None:
    """In a forked child: the parent's compiler threads and parts are not
    its own."""
    _compilers.cache_clear()
    _objects.cache_clear()
    _PARTS.clear()


os.register_at_fork(after_in_child=_forget_compilers)


def compile_part(cc: str, text: str) -> Future[str]:
    """The object file of the translation unit `text`: the compile started
    before for the same text (taken: an object is linked once), else a new
    one on the next free compiler."""
    digest = _part_digest(cc, text)
    with _PARTS_LOCK:
        started = _PARTS.pop(digest, None)
    return started or _compilers().submit(_compile_part, cc, text, digest)


def start_part(cc: str, text: str) -> None:
    """Start compiling `text` now, for `compile_part` to take later."""
    digest = _part_digest(cc, text)
    with _PARTS_LOCK:
        if digest not in _PARTS:
            _PARTS[digest] = _compilers().submit(_compile_part, cc, text, digest)


def _drop_parts(cc: str, source: str) -> None:
    """Forget the parts of `source` started before its library was found
    compiled (their objects are deleted when they are done)."""
    head, *parts = source.split(PART)
    for part in parts:
        with _PARTS_LOCK:
            started = _PARTS.pop(_part_digest(cc, head + part), None)
        if started is not None:
            started.add_done_callback(_delete_object)


def _delete_object(compiled: Future[str]) -> None:
    if compiled.exception() is None:
        Path(compiled.result()).unlink(missing_ok=True)


def _part_digest(cc: str, text: str) -> str:
    return hashlib.sha256("|".join([text, cc, *flags()]).encode()).hexdigest()


def _compile_part(cc: str, text: str, digest: str) -> str:
    c_file = _objects() / f"{digest}.c"
    c_file.write_text(text)
    target = c_file.with_suffix(".o")
    try:
        _run([cc, *flags(), "-c", "-o", str(target), str(c_file)])
    finally:
        c_file.unlink()
    return str(target)


def _run(command: list[str]) -> None:
    """Run one compiler; JITError if it fails."""
    try:
        done = subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=COMPILE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        message = f"did not finish within {COMPILE_SECONDS} s"
    else:
        if done.returncode == 0:
            return
        lines = done.stderr.strip().splitlines()
        message = "failed on generated code: " + next(
            (x for x in lines if "error" in x), "no message"
        )
    raise JITError(f"the C compiler {message}")


def kernel(source: str, name: str, arguments: int) -> Callable[..., None]:
    """The function `name` of the library of `source`, taking `arguments`
    addresses."""
    function = getattr(library(source), name)
    function.restype = None
    function.argtypes = [ctypes.c_void_p] * arguments
    _ORIGINS[id(function)] = (source, name, arguments)
    return function


def reduce_kernel(obj: Any) -> tuple[Any, ...] | None:
    """How to pickle `obj` if it is a kernel: by its library's source and
    its name (loading finds the compiled library); None for anything else."""
    origin = _ORIGINS.get(id(obj))
    return None if origin is None else (kernel, origin)


class Address(int):
    """A buffer's address that keeps the buffer alive while it is held."""

    owner: np.ndarray


def address(
    array: np.ndarray, axes: Sequence[int], strides: Sequence[int], offset: int
) -> Address:
    """The address `offset` bytes past `array`'s first element (where the
    kernel's indices start, `NativeOperands._element`); JITError unless its
    byte strides on `axes` are `strides` (what the kernel was compiled for)."""
    actual = array.strides
    if any(actual[a] != s for a, s in zip(axes, strides, strict=True)):
        raise JITError(
            f"a C kernel's buffer has strides {actual}, compiled for "
            f"{tuple(strides)} on axes {tuple(axes)}"
        )
    pointer = Address(array.ctypes.data + offset)
    pointer.owner = array
    return pointer


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
        """The kernels each kernel of `sequence` calls."""
        self.parts: list[str] = []
        """The translation units written so far (after the prelude)."""
        self._written = 0
        """How many of `functions` the parts hold."""
        env.deferred.append(self.build)

    def define(self, parameters: str, body: list[str], arguments: int) -> str:
        """The name of a kernel of `parameters` and `body`: the one defined
        before with the same code (a repeated block of a network, or the
        same code on another block of its buffers: ShuffleNet's C is 256
        functions, 467 before offsets moved into the addresses), else a
        new one; every `PART_SIZE` new kernels start compiling as a part."""
        key = (parameters, tuple(body))
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = self.env.fresh("k")
            code = "\n".join([f"void {name}({parameters}) {{", *body, "}", ""])
            self.functions.append((name, code, arguments))
            if len(self.functions) - self._written >= PART_SIZE:
                self._write_part(len(self.functions), start=True)
        return name

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
        cc = compiler()
        if start and cc is not None:
            start_part(cc, PRELUDE + part)

    @staticmethod
    def of(env: CodeEnv) -> CLibrary:
        """The library of `env`'s function (made on first use)."""
        found = env.extensions.get(CLibrary)
        if found is None:
            found = env.extensions[CLibrary] = CLibrary(env)
        return found

    def sequence(self, calls: list[tuple[str, list[str]]]) -> str:
        """A kernel calling the kernels of `calls` in turn, and the Python
        line calling it with their arguments."""
        names = list(dict.fromkeys(a for _, arguments in calls for a in arguments))
        position = {name: f"a{i}" for i, name in enumerate(names)}
        name = self.env.fresh("k")
        parameters = ", ".join(f"void *{position[n]}" for n in names)
        body = [
            f"    {kernel}({', '.join(position[a] for a in arguments)});"
            for kernel, arguments in calls
        ]
        opening = f"{SEQUENCE_ATTRIBUTES} void {name}({parameters}) {{"
        code = "\n".join([opening, *body, "}", ""])
        self.functions.append((name, code, len(names)))
        self._calls[name] = [kernel for kernel, _ in calls]
        return f"    {name}({', '.join(names)})"

    def build(self) -> None:
        """Write the last parts, compile (or find) the library and bind each
        kernel under its namespace name."""
        count = len(self.functions)
        for end in range(self._written + PART_SIZE, count + PART_SIZE, PART_SIZE):
            self._write_part(min(end, count), start=False)
        progress.detail(f"the C compiler on {count} kernels")
        source = PRELUDE + "".join(PART + part for part in self.parts)
        for name, _, arguments in self.functions:
            self.env.namespace[name] = kernel(source, name, arguments)


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
        super().__init__(root, env)

    def _check_op(self, op: Operation) -> None:
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

    def _check_not_a_product(self) -> None:
        """A small matrix product over affine indices runs here too: packing
        its operands for BLAS and scattering the result back cost more than
        it. Through a `floordiv`/`mod` (channel groups that do not align
        with C0) the loops do not vectorise: BLAS over relayouts is faster.
        Any sum of products is checked again once written (`_call`)."""
        if next(self._products(), None) is None:
            return
        self._product = True
        try:
            super()._check_not_a_product()
        except Unsupported:
            small = (
                iterations(self.root, self.nest) <= PRODUCT_LIMIT
                or self._reduction_length() <= TILED_SUM
            )
            if not small or self._wraps():
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
        if terms > SHORT_SUM:
            if not self._sank:
                raise Unsupported("a long sum of products C does not vectorise: BLAS")
            if terms > TILED_SUM and iterations(self.root, self.nest) > PRODUCT_LIMIT:
                raise Unsupported("a long sum of products BLAS runs faster")
        library = CLibrary.of(self.env)
        qualifier = " restrict" if self._apart(written) else ""
        parameters = ", ".join(
            f"{C_TYPES[dtype]} *{qualifier} {argument}"
            for argument, dtype in zip(arguments, self.arg_dtypes, strict=True)
        )
        name = library.define(parameters, self.body, len(arguments))
        self.env.writes[name] = written
        self.env.namespace["address"] = address
        lines = [indent + line for line in self.packing]
        pointers = []
        for position, buffer in enumerate(self.args):
            pointer = self.env.fresh("p")
            axes = self._indexed_axes(position)
            itemsize = self.arg_dtypes[position].itemsize
            strides = self.arg_strides[position]
            assert strides is not None
            byte_strides = tuple(strides[a] * itemsize for a in axes)
            offset = (self.arg_offsets[position] or 0) * itemsize
            lines.append(
                f"{indent}{pointer} = address({buffer}, {axes}, {byte_strides}, "
                f"{offset})"
            )
            pointers.append(pointer)
        return [*lines, f"{indent}{name}({', '.join(pointers)})"]

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

    def _subscript(self, buffer: str, indices: list[str], shift: int) -> str:
        position = int(buffer[1:])
        strides = self.arg_strides[position]
        assert strides is not None
        terms = [
            f"({indices[a]}) * {strides[a]}" if strides[a] != 1 else f"({indices[a]})"
            for a in self._indexed_axes(position)
        ]
        if shift:
            terms.append(self._param(shift))
        return f"{buffer}[{' + '.join(terms) or '0'}]"

    def _param(self, value: int) -> str:
        value = int(value)
        return "(-9223372036854775807 - 1)" if value == -(2**63) else str(value)

    def _floordiv(self, text: str, divisor: int) -> str:
        return f"floordiv({text}, {divisor})"

    def _modulo(self, text: str, divisor: int) -> str:
        return f"floormod({text}, {divisor})"

    def _loop(self, indent: str, number: int, extent: str) -> str:
        vectorised = number == self._sunk or (
            number in self._innermost and self.nest.axes[number].extent > UNROLLED
        )  # unrolled first, its selects would not vectorise
        return self._loop_of(indent, f"t{number}", extent, 1 if vectorised else None)

    def _loop_of(
        self, indent: str, variable: str, extent: str, unroll: int | None = None
    ) -> str:
        t = variable
        line = f"{indent}for (int64_t {t} = 0; {t} < {extent}; ++{t}) {{"
        if unroll is not None:
            return f'{indent}_Pragma("GCC unroll {unroll}")\n{line}'
        return line

    def _parallel(self, indent: str, loops: int) -> str:
        collapse = f" collapse({loops})" if loops > 1 else ""
        return (
            f"{indent}#pragma omp parallel for num_threads(ge_threads) "
            f"if(ge_threads > 1) schedule(static){collapse}"
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
        return f"(({C_TYPES[dtype]}) {value})"

    def _expression(self, op: Operation, operands: list[str]) -> str:
        compare = predicate(op)
        if compare is not None:
            assert compare.c is not None  # `_check_op`
            return compare.c.format(*operands)
        semantics = OPS[op.name]
        dtype = numpy_dtype(op.results[0].type)
        if semantics.c == CAST:
            return self._cast(dtype, operands[0])
        if semantics.c_float32 is not None and dtype == np.float32:
            return semantics.c_float32.format(*operands)
        assert semantics.c is not None  # `_check_op`
        if not semantics.converts:
            return semantics.c.format(*operands)
        source = C_TYPES[numpy_dtype(op.operands[0].type)]
        return semantics.c.format(*operands, source=source, result=C_TYPES[dtype])

    def _bool_literal(self, value: bool) -> str:
        return "1" if value else "0"

    def _float_literal(self, value: float, dtype: np.dtype) -> str:
        suffix = "f" if dtype == np.float32 else ""
        if math.isnan(value):
            sign = "-" if math.copysign(1.0, value) < 0 else ""
            return f'({sign}__builtin_nan{suffix}(""))'
        if math.isinf(value):
            sign = "-" if value < 0 else ""
            return f"({sign}__builtin_inf{suffix}())"
        return f"({value.hex()}{suffix})"

    def _int_literal(self, value: int, dtype: np.dtype) -> str:
        return f"(({C_TYPES[dtype]}) {self._param(value)})"
