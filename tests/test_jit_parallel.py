"""C kernels on threads (`jit.emit.native._parallel_loops`, `jit.emit.c`):
the outermost loops whose iterations are independent run split over OpenMP
threads, a loop carrying a reduction never; the result is bit for bit the
one-thread result at any thread count; the count is set at run time (one:
one thread) and a compiler without OpenMP gives serial kernels, said once."""

from __future__ import annotations

import re
import stat
import time

import numpy as np
import pytest
from test_jit_c import (  # noqa: F401 (avx2_registers: a fixture)
    DENSE_RELU,
    avx2_registers,
    library_source,
    pointwise_conv,
    special,
)

from ge_runtime.engines import threads
from ge_runtime.jit import c_runtime
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.c_runtime import kernel_status
from ge_runtime.jit.compiler import compile_module
from ge_runtime.jit.emit import c as jit_c
from ge_runtime.jit.emit import native

pytestmark = pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")

RNG = np.random.default_rng(5)

PRAGMA = "#pragma omp parallel for num_threads(ge_threads) if(ge_threads > 1 && "


@pytest.fixture
def split_everything(monkeypatch):
    """Every independent loop splits, however small the nest (the test
    sizes are far below `PARALLEL_WORK`), in functions compiled afresh and
    forgotten after; threads back to the default after."""
    monkeypatch.setattr(native, "PARALLEL_WORK", 1)
    monkeypatch.setattr(jit, "_CACHE", {})
    c_runtime.set_parallel_work(1)
    yield
    c_runtime.set_parallel_work(c_runtime.PARALLEL_WORK)
    threads.set_threads(None)


@pytest.fixture
def openmp():
    if c_runtime.openmp_missing():
        pytest.skip(f"the C compiler has no OpenMP: {c_runtime.openmp_missing()}")


# A 3x3 max pool of stride 1 over odd sizes (NHWC0): the window's taps in
# the output pixel's loop.
MAX_POOL = """
func.func @main(%x: memref<3x13x11x16xf32>) -> memref<3x11x9x16xf32> {
  %y = memref.alloc() : memref<3x11x9x16xf32>
  affine.for %n = 0 to 3 {
    affine.for %h = 0 to 11 {
      affine.for %w = 0 to 9 {
        affine.for %c = 0 to 16 {
          %first = affine.load %x[%n, %h, %w, %c] : memref<3x13x11x16xf32>
          affine.store %first, %y[%n, %h, %w, %c] : memref<3x11x9x16xf32>
          affine.for %i = 0 to 3 {
            affine.for %j = 0 to 3 {
              %v = affine.load %x[%n, %h + %i, %w + %j, %c] : memref<3x13x11x16xf32>
              %m = affine.load %y[%n, %h, %w, %c] : memref<3x11x9x16xf32>
              %r = arith.maximumf %m, %v : f32
              affine.store %r, %y[%n, %h, %w, %c] : memref<3x11x9x16xf32>
            }
          }
        }
      }
    }
  }
  func.return %y : memref<3x11x9x16xf32>
}
"""

# An elementwise chain over an odd flat size (one loop, split as it is).
SCALE_RELU = """
func.func @main(%x: memref<12347xf32>) -> memref<12347xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 1.5 : f32
  %y = memref.alloc() : memref<12347xf32>
  affine.for %i = 0 to 12347 {
    %v = affine.load %x[%i] : memref<12347xf32>
    %p = arith.mulf %v, %two : f32
    %r = arith.maximumf %p, %zero : f32
    affine.store %r, %y[%i] : memref<12347xf32>
  }
  func.return %y : memref<12347xf32>
}
"""


def dense_inputs():
    x, w = special((17, 33)), RNG.standard_normal((33, 16)).astype(np.float32)
    return x, w, RNG.standard_normal(16).astype(np.float32)


def conv_inputs():
    x = special((3, 5, 7, 33))
    f = RNG.standard_normal((33, 16)).astype(np.float32)
    return x, f, RNG.standard_normal(16).astype(np.float32)


CASES = {
    "dense relu (register tiles in strips)": (DENSE_RELU, dense_inputs),
    "pointwise convolution (collapsed loops)": (
        pointwise_conv(3, 5, 7, 33),
        conv_inputs,
    ),
    "max pool (window taps)": (MAX_POOL, lambda: (special((3, 13, 11, 16)),)),
    "elementwise (one loop)": (SCALE_RELU, lambda: (special((12347,)),)),
}


@pytest.mark.usefixtures("split_everything", "openmp", "avx2_registers")
@pytest.mark.parametrize("case", list(CASES))
def test_threads_give_the_one_thread_result_bit_for_bit(case):
    text, inputs = CASES[case]
    compiled = compile_module(text, kernels="c")
    assert PRAGMA in library_source(compiled), library_source(compiled)
    arguments = inputs()
    results = []
    for count in (1, 2, 3):
        threads.set_threads(count)
        (result,) = compiled(*arguments)
        results.append(result.view(np.uint32).copy())  # NaN payloads and -0.0 too
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


# y[i] = sum_j x[i, j] with the rows outer, then with the sum's loop outer
# (267 rows: too many to sink inside the sum, `native_tiling.SUNK_EXTENT`).
ROW_SUMS = """
func.func @main(%x: memref<267x41xf32>) -> memref<267xf32> {{
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<267xf32>
  affine.for %i = 0 to 267 {{
    affine.store %zero, %y[%i] : memref<267xf32>
  }}
  affine.for %{outer} = 0 to {outer_extent} {{
    affine.for %{inner} = 0 to {inner_extent} {{
      %v = affine.load %x[%i, %j] : memref<267x41xf32>
      %a = affine.load %y[%i] : memref<267xf32>
      %s = arith.addf %a, %v : f32
      affine.store %s, %y[%i] : memref<267xf32>
    }}
  }}
  func.return %y : memref<267xf32>
}}
"""


def kernels_of(source: str) -> list[str]:
    """The kernels of a translation unit that run nests (not the ones
    calling others), each its C text."""
    found = re.findall(r"^void k\d+\([^;\n]*\{$.*?^}$", source, re.M | re.S)
    return [kernel for kernel in found if "void *" not in kernel.splitlines()[0]]


@pytest.mark.usefixtures("split_everything")
def test_the_pragma_splits_independent_rows_never_a_reduction():
    rows_outer = ROW_SUMS.format(
        outer="i", outer_extent=267, inner="j", inner_extent=41
    )
    sum_outer = ROW_SUMS.format(outer="j", outer_extent=41, inner="i", inner_extent=267)
    x = special((267, 41))
    for text in (rows_outer, sum_outer):
        compiled = compile_module(text, kernels="c")
        (got,) = compiled(x)
        want = compile_module(text, vectorize=False)(x)[0]
        np.testing.assert_array_equal(got, want)  # one order of terms
    fill, rows = kernels_of(library_source(compile_module(rows_outer, kernels="c")))
    assert fill.splitlines()[1].strip().startswith(PRAGMA), fill
    lines = [line.strip() for line in rows.splitlines()]
    assert lines[1].startswith(PRAGMA), rows
    assert re.search(r"\b11214LL >= ge_parallel_work\)", lines[1]), rows
    assert lines[2] == "for (int64_t t0 = 0; t0 < 267; ++t0) {", rows
    assert sum(PRAGMA in line for line in lines) == 1, rows
    _, sums = kernels_of(library_source(compile_module(sum_outer, kernels="c")))
    assert "#pragma omp" not in sums, sums  # its one top loop carries the sum


@pytest.mark.usefixtures("split_everything")
def test_a_store_repeated_over_a_loop_is_not_split():
    """Every iteration of the outer loop writes all of `y`: not split."""
    text = """
func.func @main(%x: memref<9x31xf32>) -> memref<31xf32> {
  %y = memref.alloc() : memref<31xf32>
  affine.for %i = 0 to 9 {
    affine.for %j = 0 to 31 {
      %v = affine.load %x[%i, %j] : memref<9x31xf32>
      affine.store %v, %y[%j] : memref<31xf32>
    }
  }
  func.return %y : memref<31xf32>
}
"""
    x = special((9, 31))
    compiled = compile_module(text, kernels="c")
    assert compiled.native_nests == 1
    assert "#pragma omp" not in library_source(compiled)
    np.testing.assert_array_equal(compiled(x)[0], x[-1])


def test_small_nests_stay_on_one_thread():
    """Below `PARALLEL_WORK` iterations, no loop that may fork: waking
    threads costs more."""
    compiled = compile_module(SCALE_RELU, kernels="c")
    assert 12347 < native.PARALLEL_WORK
    assert "#pragma omp" not in library_source(compiled)


THREAD_COUNT = (
    jit_c.PRELUDE
    + jit_c.THREADS
    + """
void team(int32_t *out) {
    int32_t seen = 0;
    #pragma omp parallel num_threads(ge_threads) if(ge_threads > 1) reduction(+ : seen)
    seen += 1;
    out[0] = seen;
}
"""
)


@pytest.mark.usefixtures("split_everything", "openmp")
def test_the_thread_count_reaches_loaded_libraries_at_run_time():
    """`set_threads` reaches a library loaded before it and one loaded after;
    one thread is a team of one."""
    team = c_runtime.kernel(THREAD_COUNT, "team", 1)
    out = np.zeros(1, np.int32)
    for count in (1, 3, 2):
        threads.set_threads(count)
        team(out.ctypes.data)
        assert out[0] == count
        assert c_runtime.kernel_threads() == count
        isa = c_runtime.target_isa()
        assert f"C kernels (cc, -march={isa}, {count} thread(s))" in kernel_status()
    blas = threads.blas_threads()
    assert blas is None or blas == 2
    threads.set_threads(1)
    later = c_runtime.kernel(THREAD_COUNT + "\n", "team", 1)  # another library
    later(out.ctypes.data)
    assert out[0] == 1
    assert threads.set_threads(None) == c_runtime.available_cores()


@pytest.fixture
def compiler_without_openmp(tmp_path, monkeypatch):
    """`$CC` a compiler that rejects `-fopenmp` (the caches of what the
    compiler is and can do are cleared before and after)."""
    script = tmp_path / "cc-without-openmp"
    script.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do\n'
        '  if [ "$a" = -fopenmp ]; then\n'
        '    echo "cc: error: unrecognized option -fopenmp" >&2; exit 1\n'
        "  fi\n"
        "done\n"
        f'exec {c_runtime.compiler()} "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CC", str(script))
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(c_runtime, "_LIBRARIES", {})
    c_runtime.compiler.cache_clear()
    c_runtime.openmp_missing.cache_clear()
    yield
    monkeypatch.undo()
    c_runtime.compiler.cache_clear()
    c_runtime.openmp_missing.cache_clear()


@pytest.mark.usefixtures("split_everything", "compiler_without_openmp")
def test_without_openmp_kernels_run_serially_and_say_so(capsys):
    compiled = compile_module(MAX_POOL, kernels="c")
    threads.set_threads(2)
    x = special((3, 13, 11, 16))
    want = compile_module(MAX_POOL, kernels="numpy")(x)[0]
    np.testing.assert_array_equal(compiled(x)[0], want)
    assert "-fopenmp" not in c_runtime.flags()
    assert c_runtime.kernel_threads() == 1
    assert "one thread: no OpenMP" in kernel_status()
    notes = capsys.readouterr().err.strip().splitlines()
    assert len(notes) == 1, notes
    assert notes[0].startswith("note: ") and "-fopenmp fails" in notes[0], notes
    assert notes[0].endswith("C kernels run on one thread"), notes


def _openblas_timeout() -> int | None:
    """The thread timeout (log2 cycles) the loaded OpenBLAS read last."""
    for library in threads._openblas():
        if hasattr(library, "openblas_thread_timeout"):
            return int(library.openblas_thread_timeout())
    return None


@pytest.mark.skipif(threads.blas_threads() is None, reason="no OpenBLAS loaded")
def test_idle_blas_threads_sleep_and_gemms_keep_their_results(monkeypatch):
    """After `set_threads`, OpenBLAS's threads sleep as soon as a GEMM is
    done (`BLAS_THREAD_TIMEOUT`; by default they spin for a tenth of a second,
    taking the core the kernels' OpenMP threads run on), and GEMMs of odd
    sizes at 2 threads, the BLAS threads restarted, equal the 1-thread ones."""
    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    monkeypatch.setattr(threads, "_QUIETED", set())
    try:
        threads.set_threads(2)
        assert _openblas_timeout() == int(threads.BLAS_THREAD_TIMEOUT)
        big = RNG.standard_normal((512, 512)).astype(np.float32)
        np.dot(big, big)
        start = time.process_time()
        time.sleep(0.2)
        assert time.process_time() - start < 0.02  # nothing spins
        products = {}
        for count in (2, 1):
            threads.set_threads(count)
            for m, k, n in [(3, 17, 33), (100, 33, 17), (33, 100, 3), (300, 100, 257)]:
                a = np.asarray(RNG.standard_normal((m, k)), np.float32)
                b = np.asarray(RNG.standard_normal((k, n)), np.float32)
                products.setdefault((m, k, n), []).append((a, b, np.dot(a, b)))
        for runs in products.values():
            (a, b, two), _ = runs
            threads.set_threads(1)
            np.testing.assert_array_equal(np.dot(a, b), two)
    finally:
        threads.set_threads(None)
