"""C kernels at run time: which kernels run loop nests, and the shared
libraries the C kernels live in.

`kernel_choice` says what runs the loop nests (`GE_XDSL_KERNELS`: C kernels
when a C compiler is found, else NumPy calls), `target_isa` for which CPU
(`GE_XDSL_MARCH`). The generated code's C kernels (`emit.c` writes them:
one library per function, in parts that `start_part` compiles while the
code is written) are compiled once into a shared library under the code
cache (`cache.folder.kernel_folder("c")`, named by a digest of its source,
the compiler, its flags and the machine), or found there, loaded through
`ctypes` (`kernel`, how a cache entry names a kernel: `reduce_kernel`) and
called with the buffers' addresses (`address`); `set_kernel_threads` sets
the threads of every library's parallel loops. Nothing here reads IR or
generates code, so a process that only runs compiled code
(`engines.served`) loads kernels without importing the code generators.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import hashlib
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ge_dialect.files import write_atomically
from ge_runtime.jit.cache.folder import kernel_folder
from ge_runtime.jit.ops import JITError, LocatedJITError, UnusableSetup

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
        kernels = os.environ.get("GE_XDSL_KERNELS") or ("c" if compiler() else "numpy")
    if kernels in REMOVED:
        raise UnusableSetup(f"error: GE_XDSL_KERNELS={kernels}: {REMOVED[kernels]}")
    if kernels not in KERNELS:
        raise UnusableSetup(
            f"error: unknown kernels '{kernels}' (GE_XDSL_KERNELS): "
            f"expected one of {', '.join(KERNELS)}"
        )
    if kernels == "c" and compiler() is None:
        raise UnusableSetup(
            "error: C kernels were asked for, but there is no C compiler ($CC)"
        )
    if kernels == "c":
        target_isa()  # a malformed name is refused before anything compiles
    return kernels


def kernel_build(kernels: str) -> str:
    """What the code generated for `kernels` (a `kernel_choice`) depends on
    besides the IR: the C kernels' target CPU (their register tiles), part
    of the code cache's keys."""
    return f"c -march={target_isa()}" if kernels == "c" else kernels


def kernel_status(kernels: str | None = None) -> str:
    """How loop nests run (by default: `kernel_choice`), for a user to read."""
    try:
        kernels = kernel_choice(kernels)
    except UnusableSetup as error:
        return f"unavailable: {str(error).removeprefix('error: ')}"
    if kernels == "numpy":
        return "NumPy calls only (GE_XDSL_KERNELS=c adds C kernels)"
    missing = openmp_missing()
    threads = (
        f"one thread: no OpenMP, {missing}"
        if missing
        else f"{kernel_threads()} thread(s)"
    )
    return (
        f"C kernels (cc, -march={target_isa()}, {threads}), "
        "BLAS for large matrix products"
    )


FLAGS = (
    "-O1",
    "-ftree-vectorize",
    "-fvect-cost-model=dynamic",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-fwrapv",
    "-fno-tree-bit-ccp",
    "-fno-ipa-modref",
    "-fPIC",
    "-w",
)
"""IEEE arithmetic as NumPy's, vectorised for this machine. `-O1` with GCC's
vectoriser and `-O3`'s cost model for it: the kernels run as fast as at
`-O2` (CPU time per inference at 1 thread, alternating processes, three
rounds: SqueezeNet, MobileNetV2 and V3, MobileViT, Inception-v2, ResNet-50,
DenseNet-121, ShuffleNet, BERT-base within their rounds' scatter, none
slower) and compile in under half the time (ShuffleNet's C: 9.1 s of CPU
against 21.0): what `-O2` adds (partial redundancy elimination, the
second scheduling pass, more alias walks) was most of the compile and
nothing the kernels' loops, already in the order they should run, used.
(`-O3` ran no faster than `-O2` and took twice its time.) The cost model:
`-O2`'s (`very-cheap`) vectorises no loop whose trip count is not a
multiple of the vector length and adds no alias check, so the 14 or 12
lanes of a misaligned channel group ran scalar (ShuffleNet 11.6 ms against
14.6 ms, DenseNet-121 and Inception-v2 7-10 % faster, none slower).
`-fno-trapping-math` lets the compiler turn a select into a blend (no
result changes: nothing reads the floating-point flags). Two analyses are
off that cost compile time and decide nothing in these kernels: the
known bits of every integer (`-fno-tree-bit-ccp`, 80 % of the constant
propagation's time over the register tiles' unrolled address arithmetic,
8 % of ShuffleNet's GCC) and the summaries of what a function reads and
writes for its callers (`-fno-ipa-modref`; a kernel is called only from
outside). The machine code is the same, function by function, for
ShuffleNet, DenseNet-121, ResNet-50, MobileViT and BERT; in 3 of YOLOv8's
358 functions a vector move known to be aligned is written as an
unaligned one (as fast on aligned data). The vector ISA
is `-march=` `target_isa()`'s."""

TARGET_ISA = "GE_XDSL_MARCH"
"""The variable naming the CPU the C kernels are built for (GCC's `-march`
names: `haswell` for AVX2, `skylake-avx512`, ...; default `native`, the
machine compiling them). Kernels built for another CPU than this one are
what an `.om` carries to machines like it (`cache.bundle.built_for`)."""

ISA_NAME = re.compile(r"[a-z0-9][a-z0-9_.+-]*")

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

VECTOR_MATH = {"expm1f": 1, "tanhf": 1, "erff": 1, "powf": 2}
"""Functions of the C library (by their arity) whose vector variants
(glibc's `libmvec`) vectorised loops call, 4, 8 or 16 lanes at a time as
the target's vector width has (SSE, AVX2, AVX-512). Only where those are
measured as accurate as the scalar ones (at most 3 ULP from NumPy's on 5 M
values from 0.01 to 100 in magnitude, special values the same) and much
faster: 12-16 -> 1-4 ns an element, where the scalar ones were a third of
GPT-2's tanh GELU and BERT's erf GELU; `powf` is as fast either way
(1 ULP), declared so that a loop calling it vectorises too. Not `expf`,
`logf` and `log1pf`: the prelude's own (`emit.c.PRELUDE`) are as fast and
within 1 ULP of the exact result on any C library."""

VECTOR_MATH_DECLARATIONS = "".join(
    f"float {name}({', '.join(['float'] * arity)}) "
    '__attribute__((simd("notinbranch")));\n'
    for name, arity in VECTOR_MATH.items()
)
"""`VECTOR_MATH` declared with vector variants (what `math.h` declares
only under `-ffast-math`)."""

VECTOR_MATH_PROBE = f"""\
#include <math.h>
{VECTOR_MATH_DECLARATIONS}\
void probe(float *restrict x, float *restrict y) {{
    for (int i = 0; i < 64; ++i)
        y[i] = expm1f(x[i]) + tanhf(x[i]) + erff(x[i]) + powf(x[i], y[i]);
}}
"""
"""A library calling `VECTOR_MATH` in a loop the compiler vectorises."""

THREADS = """\
#include <stdint.h>
int ge_threads = 1;
int64_t ge_parallel_work = 0;
void ge_set_threads(int count, int64_t work) {
    ge_threads = count;
    ge_parallel_work = work;
}
"""
"""The threads a library's kernels split their parallel loops over, and the
least iterations a nest runs to be split (its first part defines them;
`set_kernel_threads` and `set_parallel_work` set every library's)."""

PART = "/* part */\n"
"""Where a translation unit splits into parts that compile in parallel."""

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
    stderr: kernels then run on one thread, whatever the thread count.

    The answer is kept beside the kernels (`probe_record`), so a process
    that only loads compiled kernels (a served run) does not start the
    compiler (about 0.2 s)."""
    cc = compiler()
    if cc is None:
        return "no C compiler"
    record = probe_record(cc)
    if record is None:
        reason = probe(cc, OPENMP_PROBE, [OPENMP])
    else:
        try:
            reason = record.read_text() or None
        except OSError:  # not probed yet
            reason = probe(cc, OPENMP_PROBE, [OPENMP])
            with contextlib.suppress(OSError):  # else: probed again next time
                record.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(record, reason or "")
    if reason is not None:
        print(
            f"note: {cc} {OPENMP} fails ({reason}): C kernels run on one thread",
            file=sys.stderr,
        )
    return reason


def probe_record(cc: str) -> Path | None:
    """Where `openmp_missing` keeps its answer for the compiler `cc`, named
    by its path, size and time of change (None: no kernel folder here)."""
    try:
        info = os.stat(cc)
        folder = kernel_folder("c")
    except (OSError, UnusableSetup):
        return None
    key = f"{cc}|{info.st_size}|{info.st_mtime_ns}"
    return folder / f"openmp-{hashlib.sha256(key.encode()).hexdigest()[:24]}.txt"


def probe(
    cc: str, source: str, options: list[str], *, load: bool = False
) -> str | None:
    """Why `cc` with `options` cannot build `source` into a shared library
    (and, with `load`, load it: an undefined symbol shows there); None if
    it can."""
    with tempfile.TemporaryDirectory() as scratch:
        c_file = Path(scratch) / "probe.c"
        c_file.write_text(source)
        built = c_file.with_suffix(".so")
        command = [cc, "-fPIC", "-shared", "-o", str(built), str(c_file), *options]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=COMPILE_SECONDS
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return str(error)
        if done.returncode != 0:
            return first_error(done.stderr)
        if load:
            try:
                ctypes.CDLL(str(built))
            except OSError as error:
                return str(error)
    return None


def vector_math() -> bool:
    """Whether the C library has the vector variants of `VECTOR_MATH` for
    the target CPU (a library calling them in a loop, `VECTOR_MATH_PROBE`,
    builds, links with `-lmvec` and loads: glibc 2.35 or later on x86-64)."""
    cc = compiler()
    return cc is not None and _vector_math(cc, target_isa())


@cache
def _vector_math(cc: str, isa: str) -> bool:
    options = [*FLAGS, f"-march={isa}", "-lmvec", "-lm"]
    return probe(cc, VECTOR_MATH_PROBE, options, load=True) is None


def libraries() -> tuple[str, ...]:
    """What kernels link with: the math library, and its vector variants'
    (`vector_math`)."""
    return ("-lmvec", "-lm") if vector_math() else ("-lm",)


def target_macros() -> frozenset[str]:
    """The macros the C compiler predefines for the target CPU (`__AVX2__`,
    `__AVX512F__`, `__aarch64__`, ...): what its vector registers are."""
    cc = compiler()
    return frozenset() if cc is None else _target_macros(cc, target_isa())


@cache
def _target_macros(cc: str, isa: str) -> frozenset[str]:
    command = [cc, f"-march={isa}", "-dM", "-E", "-x", "c", os.devnull]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=COMPILE_SECONDS
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(
        line.split()[1] for line in done.stdout.splitlines() if line.count(" ") >= 1
    )


def target_isa() -> str:
    """The CPU the C kernels are built for: `$GE_XDSL_MARCH`, else `native`;
    `UnusableSetup` for a value that is not a `-march` name."""
    isa = os.environ.get(TARGET_ISA) or "native"
    if not ISA_NAME.fullmatch(isa):
        raise UnusableSetup(
            f"error: {TARGET_ISA}={isa!r} is not a CPU name for -march "
            "(e.g. native, haswell, skylake-avx512)"
        )
    return isa


def flags() -> tuple[str, ...]:
    """The compiler's flags: `FLAGS`, the target CPU, and `OPENMP` when the
    compiler has it."""
    isa = (f"-march={target_isa()}",)
    return (*FLAGS, *isa) if openmp_missing() else (*FLAGS, *isa, OPENMP)


def available_cores() -> int:
    """The processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_THREADS = [available_cores()]
"""How many threads kernels split their parallel loops over (default: every
core this process may use, as onnxruntime; `set_kernel_threads`)."""

PARALLEL_WORK = 1 << 21
"""The least iterations a nest runs for its kernel to split it over threads
(`set_parallel_work`; kernels have such a loop from `emit.native.PARALLEL_WORK`
iterations): below, waking threads that sleep (`WAIT_POLICY`: tens of
microseconds) costs more than it saves. At 2 threads, ms (medians on a
loaded machine: compare within a row):

- from 2**16, 2**19, never: BERT 2 layers 0.48, 0.26, 0.26; MobileNetV3
  1.00, 0.58, 0.48; MobileNetV2 1.43, 0.93, 0.80; SqueezeNet 6.4, 5.2, 7.3;
- from 2**19, 2**21, never: ShuffleNet 16.1, 14.1, 11.0 (its grouped and
  depthwise convolutions, 0.7-1.8 M multiply-adds, take tens of
  microseconds each); SqueezeNet 7.27, 7.26, 11.0; ResNet-50 69.9, 70.1,
  103.8."""

_PARALLEL_WORK = [PARALLEL_WORK]


def set_kernel_threads(count: int) -> None:
    """Make every C kernel, loaded or not yet, run on `count` threads (one:
    serially, on the calling thread)."""
    with _LOCK:
        _THREADS[0] = count
        for loaded in _LIBRARIES.values():
            _set_threads(loaded)


def set_parallel_work(iterations: int) -> None:
    """Make every C kernel split its loops over threads only in nests of at
    least `iterations` iterations (`PARALLEL_WORK` by default)."""
    with _LOCK:
        _PARALLEL_WORK[0] = iterations
        for loaded in _LIBRARIES.values():
            _set_threads(loaded)


def _set_threads(loaded: ctypes.CDLL) -> None:
    least = ctypes.c_int64(_PARALLEL_WORK[0])
    loaded.ge_set_threads(ctypes.c_int(_THREADS[0]), least)


def kernel_threads() -> int:
    """The threads C kernels run on (one without OpenMP)."""
    return 1 if openmp_missing() else _THREADS[0]


def machine() -> str:
    """What the kernels are compiled for (part of a library's name): this
    CPU's feature flags for `-march=native`, else the named CPU."""
    isa = target_isa()
    if isa != "native":
        return f"{platform.machine()}|-march={isa}"
    return f"{platform.machine()}|{_cpu_flags()}"


@cache
def _cpu_flags() -> str:
    """This CPU's feature flags (`/proc/cpuinfo`)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    return next((line for line in text.splitlines() if line.startswith("flags")), "")


_LOCK = threading.Lock()
_LIBRARIES: dict[str, ctypes.CDLL] = {}
_FILES: dict[str, Path] = {}
"""The source of each library loaded -> the file it was loaded from."""
_ORIGINS: dict[int, tuple[str, str, int, bool]] = {}
"""id of a kernel -> its library's source, its name, its argument count,
whether it returns a status."""


def library(source: str) -> ctypes.CDLL:
    """The shared library of a translation unit, compiled (or found) once."""
    with _LOCK:
        if source in _LIBRARIES:
            return _LIBRARIES[source]
        path = library_file(source)
        _FILES[source] = path
        os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)  # read at load
        loaded = ctypes.CDLL(str(path))
        _set_threads(loaded)
        _LIBRARIES[source] = loaded
        return loaded


def library_file(source: str) -> Path:
    """The file of `source`'s shared library in the code cache, compiled
    into it unless it is there (whether or not this process loaded it
    from another folder)."""
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
    return path


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
            _run([cc, *flags(), "-shared", "-o", str(built), *objects, *libraries()])
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


PARTS_FOLDER = "ge-xdsl-parts-"
"""The start of a process's object-file folder's name (then its process id)."""


@cache
def _objects() -> Path:
    """A private folder for this process's object files (removed when it
    exits; a forked child makes its own), the folders of processes that
    died without removing theirs (a signal, `os._exit`) removed first."""
    owner = os.getpid()
    folder = Path(tempfile.mkdtemp(prefix=f"{PARTS_FOLDER}{owner}-"))
    remove_orphaned_parts(folder.parent)

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


ORPHAN_SECONDS = 600
"""How long an object-file folder must have been left unchanged before
`remove_orphaned_parts` may take it."""


def remove_orphaned_parts(folder: Path) -> None:
    """Remove this user's object-file folders in `folder` whose process is
    gone and that nothing changed for `ORPHAN_SECONDS` (a folder of a live
    process, of a name without a process id, or changed lately is left
    alone; a process of another PID namespace whose folder went makes it
    again: `_compile_part`)."""
    for path in folder.glob(f"{PARTS_FOLDER}*-*"):
        pid = path.name.removeprefix(PARTS_FOLDER).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            status = path.stat()
            if status.st_uid != os.getuid():
                continue
            if time.time() - status.st_mtime < ORPHAN_SECONDS:
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # another user's process, or the folder went away
            continue


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
    if not _PARTS:
        return
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
    folder = _objects()
    folder.mkdir(mode=0o700, exist_ok=True)  # gone if taken for an orphan
    c_file = folder / f"{digest}.c"
    c_file.write_text(text)
    target = c_file.with_suffix(".o")
    try:
        _run([cc, *flags(), "-c", "-o", str(target), str(c_file)])
    finally:
        c_file.unlink()
    return str(target)


def first_error(stderr: str) -> str:
    """The compiler's first line that names an error (its message, one line)."""
    lines = stderr.strip().splitlines()
    return next((x for x in lines if "error" in x), "no message")


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
        message = "failed on generated code: " + first_error(done.stderr)
    raise JITError(f"the C compiler {message}")


def kernel(
    source: str, name: str, arguments: int, status: bool = False
) -> Callable[..., int | None]:
    """The function `name` of the library of `source`, taking `arguments`
    addresses; with `status` it returns an `int` (`checked`)."""
    function = getattr(library(source), name)
    function.restype = ctypes.c_int if status else None
    function.argtypes = [ctypes.c_void_p] * arguments
    _ORIGINS[id(function)] = (source, name, arguments, status)
    return function


def checked(status: int, messages: Sequence[str]) -> None:
    """Raise the diagnostic of the check a kernel's `status` numbers (from
    1, in `messages`: a gather's index out of range); 0: none failed."""
    if status:
        raise LocatedJITError(messages[status - 1])


def reduce_kernel(obj: Any) -> tuple[Any, ...] | None:
    """How to pickle `obj` if it is a kernel: by its library's source and
    its name (loading finds the compiled library); None for anything else."""
    origin = _ORIGINS.get(id(obj))
    if origin is None:
        return None
    _place(origin[0])  # the entry being written finds its library beside it
    return (kernel, origin)


def _place(source: str) -> None:
    """The library of `source`, loaded from another code cache, copied into
    this one: a model compiled again in one process reuses the kernels it
    loaded, and the cache its entries are written to (an `.om`'s kernel
    section, `ge_xdsl.run.with_kernels`) holds their libraries too."""
    loaded = _FILES.get(source)
    if loaded is None:
        return
    path = kernel_folder("c") / loaded.name
    if path.is_file():
        return
    if not loaded.is_file():  # its cache is gone (a temporary one)
        library_file(source)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, loaded.read_bytes())


class Address(int):
    """A buffer's address that keeps the buffer alive while it is held."""

    owner: object


def address(
    array: np.ndarray, axes: Sequence[int], strides: Sequence[int], offset: int
) -> Address:
    """The address `offset` bytes past `array`'s first element (where the
    kernel's indices start, `NativeOperands._element`); JITError unless its
    byte strides on `axes` are `strides` (what the kernel was compiled for)."""
    actual = array.strides
    for axis, stride in zip(axes, strides, strict=True):
        if actual[axis] != stride:
            raise JITError(
                f"a C kernel's buffer has strides {actual}, compiled for "
                f"{tuple(strides)} on axes {tuple(axes)}"
            )
    try:  # a third of `array.ctypes.data`'s time: every run pays it
        start = ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError, BufferError):  # read-only, empty, strided
        start = array.ctypes.data
    pointer = Address(start + offset)
    pointer.owner = array
    return pointer


def address_table(*addresses: Address) -> Address:
    """The address of an array of `addresses` (what a kernel calling
    kernels in turn reads the addresses fixed per thread from: `ctypes`
    converts one argument, not each of them), keeping it and their buffers
    alive while it is held."""
    table = np.array(addresses, np.uintp)
    pointer = Address(table.ctypes.data)
    pointer.owner = (table, addresses)
    return pointer
