"""The NumPy JIT: vectorised nests, the scalar fallback, caching, errors, and a
cross-check against xDSL's own interpreter on lowered graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect.builder import GraphBuilder
from ge_runtime.jit import c_runtime
from ge_runtime.jit import compiler as jit
from ge_runtime.jit.c_runtime import kernel_choice, kernel_status
from ge_runtime.jit.compiler import (
    JITError,
    compile_graph,
    compile_module,
    lowered_module,
)
from ge_runtime.jit.emit import c as jit_c
from ge_runtime.jit.interpreter import interpret
from ge_runtime.jit.ops import UnusableSetup

RNG = np.random.default_rng(0)
NO_CC = pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")
KERNELS = [
    "numpy",
    pytest.param("c", marks=NO_CC),
]
"""Every way of running nests: NumPy calls only, C kernels."""
NATIVE = KERNELS[1:]
"""The native kernels."""


def run(
    text: str, *args: np.ndarray, vectorised: int, scalar: int = 0, kernels="numpy"
):
    """Compile (NumPy only, unless `kernels`), check how many nests took each
    path, run."""
    compiled = compile_module(text, poison=True, kernels=kernels)
    assert compiled.vectorised == vectorised, compiled.source
    assert len(compiled.scalar_nests) == scalar, compiled.scalar_nests
    return compiled(*args)


MATVEC = """
func.func @matvec(%a: memref<5x7xf32>, %x: memref<7xf32>) -> memref<5xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<5xf32>
  affine.for %i = 0 to 5 {
    affine.store %zero, %y[%i] : memref<5xf32>
  }
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 7 {
      %av = affine.load %a[%i, %j] : memref<5x7xf32>
      %xv = affine.load %x[%j] : memref<7xf32>
      %p = arith.mulf %av, %xv : f32
      %acc = affine.load %y[%i] : memref<5xf32>
      %s = arith.addf %acc, %p : f32
      affine.store %s, %y[%i] : memref<5xf32>
    }
  }
  func.return %y : memref<5xf32>
}
"""


def test_accumulated_product_becomes_a_contraction():
    a = RNG.standard_normal((5, 7)).astype(np.float32)
    x = RNG.standard_normal(7).astype(np.float32)
    (y,) = run(MATVEC, a, x, vectorised=2)
    np.testing.assert_allclose(y, a @ x, rtol=1e-5)
    # 7 taps into one column: a multiply and an add per tap, no GEMM
    source = compile_module(MATVEC, poison=True, kernels="numpy").source
    assert source.count("np.multiply(") == 7 and "np.dot(" not in source
    wide = MATVEC.replace("5x7", "5x70").replace("7xf32", "70xf32")
    wide = wide.replace("to 7", "to 70")
    a = RNG.standard_normal((5, 70)).astype(np.float32)
    x = RNG.standard_normal(70).astype(np.float32)
    (y,) = run(wide, a, x, vectorised=2)
    np.testing.assert_allclose(y, a @ x, rtol=1e-5)
    source = compile_module(wide, poison=True, kernels="numpy").source
    assert "np.dot(" in source  # 70 taps: BLAS


def test_gemm_operand_read_in_place_and_weights_packed_once():
    a = RNG.standard_normal((33, 17)).astype(np.float32)
    b = RNG.standard_normal((17, 3)).astype(np.float32)
    compiled = compile_module(GEMM, kernels="numpy")
    (y,) = compiled(a, b)
    np.testing.assert_allclose(y, a @ b, rtol=1e-5)
    assert "pack(" in compiled.source and compiled.invariant_args == (1,)
    prepare = compiled.source.split("def jitted")[0]
    assert "pack(" in prepare  # the weight's packing runs once, in prepare
    bound = compiled.bind({1: b})
    (again,) = bound(a)
    np.testing.assert_array_equal(again, y)


GEMM = """
func.func @gemm(%a: memref<33x17xf32>, %b: memref<17x3xf32> {ge.weight = "b"})
    -> memref<33x3xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<33x3xf32>
  affine.for %i = 0 to 33 {
    affine.for %j = 0 to 3 {
      affine.store %zero, %y[%i, %j] : memref<33x3xf32>
      affine.for %k = 0 to 17 {
        %x = affine.load %a[%i, %k] : memref<33x17xf32>
        %w = affine.load %b[%k, %j] : memref<17x3xf32>
        %p = arith.mulf %x, %w : f32
        %acc = affine.load %y[%i, %j] : memref<33x3xf32>
        %s = arith.addf %acc, %p : f32
        affine.store %s, %y[%i, %j] : memref<33x3xf32>
      }
    }
  }
  func.return %y : memref<33x3xf32>
}
"""

TRIPLE = """
func.func @triple(%a: memref<3x4xf32>, %b: memref<4xf32>, %c: memref<4x2xf32>)
    -> memref<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<3x2xf32>
  affine.for %i = 0 to 3 {
    affine.for %k = 0 to 2 {
      affine.store %zero, %y[%i, %k] : memref<3x2xf32>
      affine.for %j = 0 to 4 {
        %av = affine.load %a[%i, %j] : memref<3x4xf32>
        %bv = affine.load %b[%j] : memref<4xf32>
        %cv = affine.load %c[%j, %k] : memref<4x2xf32>
        %ab = arith.mulf %av, %bv : f32
        %p = arith.mulf %ab, %cv : f32
        %acc = affine.load %y[%i, %k] : memref<3x2xf32>
        %s = arith.addf %acc, %p : f32
        affine.store %s, %y[%i, %k] : memref<3x2xf32>
      }
    }
  }
  func.return %y : memref<3x2xf32>
}
"""


def test_product_of_three_factors_becomes_einsum():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    c = RNG.standard_normal((4, 2)).astype(np.float32)
    (y,) = run(TRIPLE, a, b, c, vectorised=1)
    np.testing.assert_allclose(y, (a * b) @ c, rtol=1e-5)
    assert "np.einsum(" in compile_module(TRIPLE, poison=True, kernels="numpy").source


WINDOW_MAX = """
func.func @window(%x: memref<11xf16>) -> memref<5xf16> {
  %low = arith.constant 0xFC00 : f16
  %y = memref.alloc() : memref<5xf16>
  affine.for %i = 0 to 5 {
    affine.store %low, %y[%i] : memref<5xf16>
    affine.for %k = 0 to 3 {
      %v = affine.load %x[%i * 2 + %k] : memref<11xf16>
      %m = affine.load %y[%i] : memref<5xf16>
      %r = arith.maximumf %m, %v : f16
      affine.store %r, %y[%i] : memref<5xf16>
    }
  }
  func.return %y : memref<5xf16>
}
"""


def test_sliding_window_max_in_one_imperfect_nest():
    x = RNG.standard_normal(11).astype(np.float16)
    (y,) = run(WINDOW_MAX, x, vectorised=1)
    expected = np.lib.stride_tricks.sliding_window_view(x, 3)[::2].max(axis=1)
    np.testing.assert_array_equal(y, expected)


PREFIX_SUM = """
func.func @prefix(%x: memref<6xf32>) -> memref<6xf32> {
  %y = memref.alloc() : memref<6xf32>
  %first = affine.load %x[0] : memref<6xf32>
  affine.store %first, %y[0] : memref<6xf32>
  affine.for %i = 1 to 6 {
    %prev = affine.load %y[%i - 1] : memref<6xf32>
    %v = affine.load %x[%i] : memref<6xf32>
    %s = arith.addf %prev, %v : f32
    affine.store %s, %y[%i] : memref<6xf32>
  }
  func.return %y : memref<6xf32>
}
"""


def test_loop_carried_dependence_falls_back_to_scalar():
    x = RNG.standard_normal(6).astype(np.float32)
    (y,) = run(PREFIX_SUM, x, vectorised=0, scalar=1)
    np.testing.assert_allclose(y, np.cumsum(x), rtol=1e-6)


INTERLEAVED = """
func.func @reset(%x: memref<3x4xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4xf32>
  affine.for %r = 0 to 3 {
    affine.for %p = 0 to 4 {
      affine.store %zero, %acc[%p] : memref<4xf32>
      %v = affine.load %x[%r, %p] : memref<3x4xf32>
      %a = affine.load %acc[%p] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      affine.store %s, %acc[%p] : memref<4xf32>
    }
  }
  func.return %acc : memref<4xf32>
}
"""


def test_reset_inside_reduction_loop_is_not_a_reduction():
    """The accumulator is reset every `r`: only the last row survives."""
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    (y,) = run(INTERLEAVED, x, vectorised=0, scalar=1)
    np.testing.assert_array_equal(y, x[2])


NONLINEAR = """
func.func @unflatten(%x: memref<3x4xf32>) -> (memref<12xf32>, memref<6xf32>) {
  %y = memref.alloc() : memref<12xf32>
  %z = memref.alloc() : memref<6xf32>
  affine.for %i = 0 to 12 {
    %v = affine.load %x[%i floordiv 4, %i mod 4] : memref<3x4xf32>
    affine.store %v, %y[%i] : memref<12xf32>
  }
  affine.for %i = 0 to 12 {
    %v = affine.load %y[%i] : memref<12xf32>
    affine.store %v, %z[%i floordiv 2] : memref<6xf32>
  }
  func.return %y, %z : memref<12xf32>, memref<6xf32>
}
"""


def test_floordiv_mod_gather_and_non_injective_store():
    """Index arrays gather; a store hitting one element twice keeps the last write."""
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y, z = run(NONLINEAR, x, vectorised=1, scalar=1)
    np.testing.assert_array_equal(y, x.reshape(-1))
    np.testing.assert_array_equal(z, x.reshape(-1)[1::2])


SCF = """
func.func @scf(%x: memref<4xi32>) -> memref<4xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = memref.alloc() : memref<4xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xi32>
    %w = arith.muli %v, %v : i32
    memref.store %w, %y[%i] : memref<4xi32>
  }
  func.return %y : memref<4xi32>
}
"""


def test_scf_and_memref_ops_take_the_scalar_path():
    x = np.array([1, -2, 3, 40000], np.int32)
    (y,) = run(SCF, x, vectorised=0)
    np.testing.assert_array_equal(y, x * x)


def test_compiled_functions_are_cached_by_text():
    assert compile_module(MATVEC) is compile_module(MATVEC)
    assert compile_module(MATVEC) is not compile_module(MATVEC, vectorize=False)


def test_arguments_are_checked():
    compiled = compile_module(MATVEC)
    with pytest.raises(JITError, match="argument #1 of @matvec is float64"):
        compiled(np.zeros((5, 7), np.float32), np.zeros(7))
    with pytest.raises(JITError, match="takes 2 arguments"):
        compiled(np.zeros((5, 7), np.float32))


def test_out_of_bounds_access_is_a_compile_error():
    text = MATVEC.replace("%x[%j]", "%x[%j + 1]")
    with pytest.raises(JITError, match="accesses index 1..7 of a dimension of size 7"):
        compile_module(text)


# -- lowered graphs: vectorised == scalar == xDSL interpreter -----------------


def _graphs():
    def to(b, x, storage, **kw):
        from ge_dialect.layout import layout_of

        return b.transdata(
            x, src_format=layout_of(x.type)[1].value, dst_format=storage, **kw
        )

    def conv():
        b = GraphBuilder("conv")
        x = to(b, b.data([1, 9, 4, 4], "float32", format="NCHW"), "NC1HWC0")
        w = to(b, b.data([3, 9, 3, 3], "float32", format="NCHW"), "FRACTAL_Z")
        y = b.sigmoid(
            b.conv2d(x, w, strides=[1, 1, 2, 2], pads=[1, 1, 1, 1], data_format="NCHW")
        )
        b.output(to(b, y, "NCHW"))
        return b.build()

    def pool_softmax():
        b = GraphBuilder("pool")
        x = to(b, b.data([1, 9, 5, 5], "float16", format="NCHW"), "NC1HWC0")
        y = b.avg_pool(
            x,
            ksize=[1, 1, 3, 3],
            strides=[1, 1, 2, 2],
            pads=[1, 1, 1, 1],
            data_format="NCHW",
        )
        b.output(to(b, b.softmax(y, axis=1), "NCHW"))
        return b.build()

    def matmul():
        b = GraphBuilder("mm")
        a = to(b, b.data([5, 20], "float32"), "FRACTAL_NZ")
        w = to(b, b.data([20, 3], "float32"), "FRACTAL_NZ")
        b.output(to(b, b.matmul(a, w), "ND"))
        return b.build()

    return {"conv": conv, "pool_softmax": pool_softmax, "matmul": matmul}


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("name", sorted(_graphs()))
def test_jit_agrees_with_scalar_path_and_xdsl_interpreter(name, kernels):
    module = _graphs()[name]()
    graph = module.body.block.first_op
    lowered = lowered_module(graph)
    args = [
        RNG.standard_normal(a.type.get_shape()).astype(
            {"f32": np.float32, "f16": np.float16}[str(a.type.element_type)]
        )
        for a in next(iter(lowered.ops)).body.block.args
    ]
    vectorised = compile_graph(graph, poison=True, kernels=kernels)
    assert vectorised.scalar_nests == [] and vectorised.vectorised > 0
    scalar = compile_module(lowered, vectorize=False, poison=True)
    interpreted = interpret(lowered, graph.sym_name.data, args)
    for fast, slow, oracle in zip(
        vectorised(*args), scalar(*args), interpreted, strict=True
    ):
        tolerance = 2e-3 if fast.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(
            fast.astype(np.float32), slow.astype(np.float32), atol=tolerance
        )
        np.testing.assert_allclose(
            fast.astype(np.float32), oracle.astype(np.float32), atol=tolerance
        )


def conv_relu():
    """A compiled conv + relu graph and a function making its arguments."""
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit.compiler import graph_arguments

    b = GraphBuilder("main")
    x = b.data([1, 3, 9, 9], "float32", name="x")
    w = b.const(np.random.default_rng(0).standard_normal((17, 3, 3, 3), np.float32))
    y = b.conv2d(x, w, strides=[1, 1, 1, 1], pads=[1, 1, 1, 1], data_format="NCHW")
    b.output(b.relu(y))
    graph = find_graph(b.build())

    def arguments(x: np.ndarray) -> list[np.ndarray]:
        return graph_arguments(graph, {"x": x}, {}, None)

    return graph, arguments


def test_workspace_is_reused_but_results_are_not():
    graph, arguments = conv_relu()
    compiled = compile_graph(graph)
    assert "_workspace" in compiled.source  # the buffers are made once per thread
    inputs = np.random.default_rng(1).standard_normal((2, 1, 3, 9, 9), np.float32)
    (first,) = compiled(*arguments(inputs[0]))
    kept = first.copy()
    (second,) = compiled(*arguments(inputs[1]))
    np.testing.assert_array_equal(first, kept)  # not overwritten by the next call
    assert not np.array_equal(first, second)
    poisoned = compile_graph(graph, poison=True)
    assert "_workspace" not in poisoned.source
    np.testing.assert_array_equal(poisoned(*arguments(inputs[1]))[0], second)


def test_workspace_is_per_thread():
    from concurrent.futures import ThreadPoolExecutor

    graph, arguments = conv_relu()
    compiled = compile_graph(graph)
    inputs = np.random.default_rng(2).standard_normal((16, 1, 3, 9, 9), np.float32)
    expected = [compiled(*arguments(x))[0] for x in inputs]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(5):
            got = list(pool.map(lambda x: compiled(*arguments(x))[0], inputs))
            for g, e in zip(got, expected, strict=True):
                np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("kernels", KERNELS)
def test_generated_code_is_kept_on_disk_for_the_next_process(
    tmp_path, monkeypatch, kernels
):
    """With a cache key, the second compile reads the code back: no lowering,
    no code generation, no compiling of Python source (the entry holds its
    bytecode), the same results; another code version misses."""
    from ge_runtime.jit.cache import entries as jit_cache

    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    monkeypatch.setenv("GE_XDSL_KERNELS", kernels)
    graph, arguments = conv_relu()
    x = np.random.default_rng(5).standard_normal((1, 3, 9, 9), np.float32)
    first = compile_graph(graph, cache_key="model-digest|main")
    assert len(list(tmp_path.glob("*.pickle"))) == 1

    def no_lowering(*_):
        raise AssertionError("lowered again")

    def no_compiling(*_):
        raise AssertionError("Python source compiled again")

    with monkeypatch.context() as patched:
        patched.setattr(jit, "lowered_module", no_lowering)
        patched.setattr(jit, "compile", no_compiling, raising=False)
        again = compile_graph(graph, cache_key="model-digest|main")
    assert again is not first and again.source == first.source
    np.testing.assert_array_equal(again(*arguments(x))[0], first(*arguments(x))[0])
    hoisted = again.bind({}).hoisted  # the conv weight is a global: packed once
    arrays = [getattr(h, "owner", h) for h in hoisted or ()]  # C: its address
    assert any(a.size == 27 * 17 for a in arrays), again.source
    monkeypatch.setattr(jit_cache, "code_version", lambda: "another compiler")
    compile_graph(graph, cache_key="model-digest|main")
    assert len(list(tmp_path.glob("*.pickle"))) == 2  # a new entry, not the old
    monkeypatch.setenv("GE_XDSL_CACHE", "off")
    assert jit_cache.entry_path("anything") is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"\x80\x05K\x01K\x02\x85R.",  # calls an int: TypeError
        lambda data: b"\x80\x05}\x94.",  # an empty dict: no fields
        lambda data: b"garbage",
    ],
)
def test_a_damaged_cache_entry_is_compiled_again(tmp_path, monkeypatch, damage):
    """Whatever an entry's bytes turned into, the graph compiles afresh and
    the entry is rewritten (it used to be an internal error)."""
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path))
    graph, arguments = conv_relu()
    x = np.random.default_rng(5).standard_normal((1, 3, 9, 9), np.float32)
    first = compile_graph(graph, cache_key="damaged|main")
    (entry,) = tmp_path.glob("*.pickle")
    entry.write_bytes(damage(entry.read_bytes()))
    again = compile_graph(graph, cache_key="damaged|main")
    np.testing.assert_array_equal(again(*arguments(x))[0], first(*arguments(x))[0])
    assert compile_graph(graph, cache_key="damaged|main").source == first.source


def test_the_cache_folder_is_made_private_and_a_shared_one_refused(tmp_path):
    """What the cache holds runs as code: a new folder is 0700, one another
    user could write to (or that sits in such a folder) is refused."""
    from ge_runtime.jit.cache.folder import UnsafeCacheFolder, private_folder

    made = private_folder(tmp_path / "a" / "jit")
    assert made.stat().st_mode & 0o777 == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    for folder in (shared, shared / "jit"):
        with pytest.raises(UnsafeCacheFolder, match="writable by other users"):
            private_folder(folder)
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)  # as /tmp: fine above the cache, not as the cache
    assert private_folder(sticky / "jit") == sticky / "jit"
    with pytest.raises(UnsafeCacheFolder):
        private_folder(sticky)


@pytest.mark.parametrize("cin, channels", [(16, 32), (17, 33)])
def test_fused_epilogue_runs_on_the_gemm_product(cin, channels):
    """conv + bias + relu fused: the bias and the relu run on the GEMM's
    product in its own order, then one relayout into NC1HWC0; the
    accumulator is never written (17 -> 33 channels: the nest is split in
    pieces sharing the accumulator, which stays). Results equal the
    reference."""
    from xdsl.context import Context

    from ge_runtime.engines.reference import evaluate
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit.compiler import run_graph
    from passes.format_pipeline import FormatPipelinePass
    from passes.fuse_ops import FuseOpsPass

    rng = np.random.default_rng(8)
    b = GraphBuilder("main")
    x = b.data([1, cin, 9, 9], "float32", format="NCHW", name="x")
    w = b.const(
        rng.standard_normal((channels, cin, 3, 3)).astype(np.float32), format="NCHW"
    )
    bias = b.const(rng.standard_normal(channels).astype(np.float32))
    y = b.conv2d(x, w, bias, pads=[1, 1, 1, 1], data_format="NCHW")
    shift = b.data([1], "float32", name="shift")  # one value for every element
    b.output(b.relu(b.add(y, shift)))
    module = b.build()
    inputs = {
        "x": rng.standard_normal((1, cin, 9, 9)).astype(np.float32),
        "shift": np.array([0.5], np.float32),
    }
    expected = evaluate(module, inputs)
    FormatPipelinePass().apply(Context(), module)
    FuseOpsPass().apply(Context(), module)
    source = compile_graph(find_graph(module), kernels="numpy").source
    if channels == 32:
        assert "add_into(" not in source
        assert source.count("copy_into(np.reshape(") == 1
    (got,) = run_graph(module, inputs)
    np.testing.assert_allclose(got, expected[0], rtol=1e-5, atol=1e-5)


# -- native kernels (emit.c) -------------------------------------------------


def depthwise_relu6_pool():
    """Depthwise 3x3 conv (17 channels: two C0 blocks, the second ragged),
    ReLU6, 3x3 max-pool: nests a native kernel takes (a reduction into one element
    per output, window taps, NaN-propagating max/min)."""
    from ge_runtime.graph_io import find_graph
    from ge_runtime.jit.compiler import graph_arguments

    b = GraphBuilder("main")
    x = b.data([1, 17, 9, 9], "float32", name="x")
    w = b.const(np.random.default_rng(3).standard_normal((17, 1, 3, 3), np.float32))
    y = b.conv2d(
        x, w, strides=[1, 1, 1, 1], pads=[1, 1, 1, 1], groups=17, data_format="NCHW"
    )
    y = b.max_pool(
        b.relu6(y),
        ksize=[1, 1, 3, 3],
        strides=[1, 1, 2, 2],
        pads=[1, 1, 1, 1],
        data_format="NCHW",
    )
    b.output(y)
    graph = find_graph(b.build())
    return graph, lambda x: graph_arguments(graph, {"x": x}, {}, None)


def special_input(shape: tuple[int, ...]) -> np.ndarray:
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::301], flat[50::397], flat[90::401] = np.nan, np.inf, -np.inf
    flat[2::5] = -0.0
    return x


@pytest.mark.parametrize("kernels", NATIVE)
def test_native_kernels_compute_what_numpy_computes_bit_for_bit(kernels, monkeypatch):
    """Bit for bit, C's kernels with their multiply-adds unfused (fused,
    `test_c_kernels_fuse_the_multiply_adds_of_a_sum`)."""
    monkeypatch.setattr(jit_c.CNest, "FMA", {})
    monkeypatch.setattr(jit, "_CACHE", {})
    monkeypatch.setattr(jit, "_GRAPHS", {})
    graph, arguments = depthwise_relu6_pool()
    numpy_path = compile_graph(graph, poison=True, kernels="numpy")
    native_path = compile_graph(graph, poison=True, kernels=kernels)
    assert numpy_path.native_nests == 0 and native_path.native_nests > 0
    x = special_input((1, 17, 9, 9))
    (want,) = numpy_path(*arguments(x))
    (got,) = native_path(*arguments(x))
    assert np.isnan(want).any() and not np.isnan(want).all()  # ReLU6 clips inf
    np.testing.assert_array_equal(got, want)  # NaN where NumPy has NaN
    assert np.array_equal(np.signbit(got), np.signbit(want))  # and -0.0
    reference = compile_module(lowered_module(graph), vectorize=False, poison=True)
    np.testing.assert_array_equal(got, reference(*arguments(x))[0])


@pytest.mark.skipif(c_runtime.compiler() is None, reason="no C compiler")
def test_c_kernels_fuse_the_multiply_adds_of_a_sum():
    """The depthwise taps accumulate with fused multiply-adds (one rounding
    per tap, as BLAS's products): NaN and infinities where NumPy has them,
    the values within a few ULP."""
    graph, arguments = depthwise_relu6_pool()
    numpy_path = compile_graph(graph, poison=True, kernels="numpy")
    c_path = compile_graph(graph, poison=True, kernels="c")
    x = special_input((1, 17, 9, 9))
    (want,) = numpy_path(*arguments(x))
    (got,) = c_path(*arguments(x))
    sources = {
        c_runtime._ORIGINS[id(v)][0]
        for v in c_path.function.__globals__.values()
        if id(v) in c_runtime._ORIGINS
    }
    assert any("__builtin_fmaf(" in source for source in sources)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.fixture
def cc_missing(monkeypatch):
    """A process without a C compiler."""
    monkeypatch.setenv("CC", "/nonexistent/cc")
    c_runtime.compiler.cache_clear()
    yield
    c_runtime.compiler.cache_clear()


def test_without_a_c_compiler_the_jit_runs_numpy_and_says_so(cc_missing, monkeypatch):
    monkeypatch.delenv("GE_XDSL_KERNELS", raising=False)
    assert kernel_choice(None) == "numpy"
    assert kernel_status() == "NumPy calls only (GE_XDSL_KERNELS=c adds C kernels)"
    graph, arguments = depthwise_relu6_pool()
    compiled = compile_graph(graph, poison=True)  # default: what is available
    assert compiled.native_nests == 0 and compiled.vectorised > 0
    x = special_input((1, 17, 9, 9))
    reference = compile_module(lowered_module(graph), vectorize=False, poison=True)
    np.testing.assert_array_equal(
        compiled(*arguments(x))[0], reference(*arguments(x))[0]
    )
    with pytest.raises(UnusableSetup, match="no C compiler"):
        compile_graph(graph, poison=True, kernels="c")  # asked for: no pretending


def test_kernels_are_chosen_by_the_environment(monkeypatch):
    monkeypatch.delenv("GE_XDSL_KERNELS", raising=False)
    assert kernel_choice(None) == ("c" if c_runtime.compiler() else "numpy")
    monkeypatch.setenv("GE_XDSL_KERNELS", "numpy")
    assert kernel_choice(None) == "numpy"
    assert kernel_status().startswith("NumPy calls only")
    monkeypatch.setenv("GE_XDSL_KERNELS", "fortran")
    with pytest.raises(UnusableSetup, match="unknown kernels 'fortran'"):
        kernel_choice(None)


FUSED_ROW_MAX = """
func.func @main(%x: memref<17x33xf32>, %b: memref<17xf32>) -> memref<17xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<17xf32>
  %y = memref.alloc() : memref<17xf32>
  affine.for %i = 0 to 17 {
    %bv = affine.load %b[%i] : memref<17xf32>
    affine.store %bv, %acc[%i] : memref<17xf32>
    affine.for %j = 0 to 33 {
      %xv = affine.load %x[%i, %j] : memref<17x33xf32>
      %av = affine.load %acc[%i] : memref<17xf32>
      %m = arith.maximumf %av, %xv : f32
      affine.store %m, %acc[%i] : memref<17xf32>
    }
    %v = affine.load %acc[%i] : memref<17xf32>
    %r = arith.maximumf %v, %zero : f32
    affine.store %r, %y[%i] : memref<17xf32>
  }
  func.return %y : memref<17xf32>
}
"""


ELEMENTWISE = """
func.func @main(%x: memref<3x17xf32>) -> memref<3x17xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<3x17xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 17 {
      %v = affine.load %x[%i, %j] : memref<3x17xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %y[%i, %j] : memref<3x17xf32>
    }
  }
  func.return %y : memref<3x17xf32>
}
"""


@pytest.mark.parametrize("kernels", NATIVE)
def test_native_kernels_fuse_a_reduction_and_an_elementwise_nest(kernels):
    """A fused row max (set, reduced into, read back in one iteration) and
    an elementwise ReLU are one kernel each, NaN and -0.0 as NumPy's."""
    x = special_input((17, 33))
    b = RNG.standard_normal(17).astype(np.float32)
    b[3] = -0.0
    (want,) = run(FUSED_ROW_MAX, x, b, vectorised=1)
    (got,) = run(FUSED_ROW_MAX, x, b, vectorised=1, kernels=kernels)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got).any()
    expected = np.maximum(np.maximum(b, np.max(x, axis=1)), 0)  # NaN propagates
    np.testing.assert_array_equal(got, expected)
    assert compile_module(FUSED_ROW_MAX, kernels=kernels).native_nests == 1
    assert compile_module(ELEMENTWISE, kernels=kernels).native_nests == 1
    x = special_input((3, 17))
    (y,) = compile_module(ELEMENTWISE, kernels=kernels)(x)
    np.testing.assert_array_equal(y, np.maximum(x, np.float32(0)))


def test_numba_kernels_are_gone_and_asking_for_them_says_so(monkeypatch):
    graph, _ = depthwise_relu6_pool()
    with pytest.raises(UnusableSetup, match="numba kernels were removed"):
        compile_graph(graph, poison=True, kernels="numba")
    monkeypatch.setenv("GE_XDSL_KERNELS", "numba")
    assert kernel_status().startswith("unavailable: GE_XDSL_KERNELS=numba: numba")
    from ge_runtime.engines.scheduler import compile_model

    with pytest.raises(UnusableSetup, match="numba kernels were removed"):
        compile_model(graph, {})  # an error of the run: no reference fallback


# -- data-dependent indices: checked at the op --------------------------------

GATHERS = {
    "gather": (
        "ge.gather %x, %i {axis = 1 : i64} : (tensor<3x5xf32>, tensor<2xi64>)"
        " -> tensor<3x2xf32>",
        (2,),
        lambda x, i: np.take(x, i, axis=1),
    ),
    "gather_elements": (
        "ge.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x5xf32>,"
        " tensor<3x2xi64>) -> tensor<3x2xf32>",
        (3, 2),
        lambda x, i: np.take_along_axis(x, i, axis=1),
    ),
    "gather_nd": (
        "ge.gather_nd %x, %i : (tensor<3x5xf32>, tensor<2x2xi64>) -> tensor<2xf32>",
        (2, 2),
        lambda x, i: x[tuple(i.T)],
    ),
}
"""A gather of a 3x5 `x` by `%i` of the shape given, and what it computes."""


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(GATHERS)),
    st.booleans(),
    st.data(),
)
def test_an_index_out_of_range_is_reported_at_its_gather(name, vectorize, data):
    """In range (negative ones count from the end) a gather computes what
    NumPy does; one index out of range is an error at the gather's line
    naming the axis and its range, on the vectorised and the scalar path
    alike (NumPy would wrap a negative one around silently), and with the
    location of this file, not of another file's identical graph compiled
    before (the lowered code is cached by graph text and locations)."""
    from ge_dialect.dialect import make_context
    from ge_dialect.parsing import parse_module
    from ge_runtime.jit.compiler import lower_graph
    from ge_runtime.jit.ops import LocatedJITError

    op, shape, expected = GATHERS[name]
    index_type = f"tensor<{'x'.join(map(str, shape))}xi64>"
    text = (
        "ge.graph @g {\n"
        "  %x = ge.data {index = 0 : i64} : tensor<3x5xf32>\n"
        f"  %i = ge.data {{index = 1 : i64}} : {index_type}\n"
        f"  %y = {op}\n"
        f"  ge.netoutput %y : {op.rsplit('-> ', 1)[1]}\n"
        "}\n"
    )
    source = f"g{data.draw(st.integers(0, 2))}.mlir"  # the same graph, 3 files
    module = parse_module(make_context(), text, source)
    graph = next(iter(module.ops))
    compiled = compile_module(lower_graph(graph), vectorize=vectorize, kernels="numpy")
    sizes = (5,) if name != "gather_nd" else (3, 5)
    indices = np.array(
        data.draw(
            st.lists(
                st.integers(-8, 8),
                min_size=int(np.prod(shape)),
                max_size=int(np.prod(shape)),
            )
        ),
        dtype=np.int64,
    ).reshape(shape)
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    limits = np.resize(np.array(sizes), indices.shape)
    outside = (indices < -limits) | (indices >= limits)
    if not outside.any():
        wrapped = np.where(indices < 0, indices + limits, indices)
        (result,) = compiled(x, indices)
        np.testing.assert_array_equal(result, expected(x, wrapped))
        return
    with pytest.raises(LocatedJITError) as info:
        compiled(x, indices)
    message = str(info.value)
    prefix = f"{source}:4:3: error: 'ge.{name}' op index out of range ["
    assert message.startswith(prefix), message
    axis = int(message.rsplit("on axis ", 1)[1])
    column = axis if name == "gather_nd" else 0  # x's axis 0 or 1, one size
    size = sizes[column]
    assert message.endswith(f"[{-size}, {size - 1}] on axis {axis}")
    if name == "gather_nd":  # an index tuple's entry `axis` is out of range
        assert outside[:, axis].any()
