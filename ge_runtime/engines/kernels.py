"""The kernel registry: kernels by (op, dtype, storage format), several per key.

As InfiniTensor's `KernelRegistry`, each op has one or more kernels; the
runtime (`ge_runtime.engines.executor`) picks one per op: the user's choice, else
the performance engine's record (`ge_runtime.engines.tuning`), else the first
candidate. A kernel computes one op on **storage-layout** arrays and writes
each result into the array it is given (a view into the memory arena):

```python
def my_relu(call: KernelCall) -> None:
    np.maximum(call.inputs[0], 0, out=call.outputs[0])

KERNELS.register("ge.relu", "my_relu", my_relu, dtypes={"float32"})
```

A kernel is looked up by the op's name, the dtype and storage format of its
first operand (`kernel_key`); a registration may restrict dtypes and
formats (None: any) and add an `applies` test on the op. Builtin kernels,
in default order:

- `jit`: the op alone lowered to loops (`convert-ge-to-loops`) and compiled
  by the NumPy JIT, for every op with a loop lowering;
- `im2col` (`ge.conv2d`, NC1HWC0 activations, FRACTAL_Z weights, one
  group): the storage layouts read directly, windows gathered into a matrix
  whose rows follow FRACTAL_Z's C1HW order, then one BLAS GEMM;
- `blas` (`ge.matmul`, `ge.gemm`, `ge.batch_matmul`): `np.matmul` (BLAS)
  on the operands, straight into the result when it is plain float32;
- `host`: the reference in origin layout (each op's `numpy_kernel` through the
  generated adapters; TransData and fused groups as the reference evaluator
  runs them), for every op.

Every kernel writes the whole result, padding (zeros) included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from ge_dialect.adapters import numpy_kernel
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, storage_shape_of
from ge_dialect.locations import error_at
from ge_dialect.ops import Conv2DOp, attribute_value
from ge_dialect.ops.matmul import MatrixProductOp
from ge_dialect.relayout import ValueLayout
from ge_runtime.engines.reference import ReferenceEvaluator
from ge_runtime.engines.single_op import single_op_graph
from ge_runtime.engines.walker import runs_subgraphs
from ge_runtime.jit.compiler import compile_graph
from ge_runtime.jit.function import CompiledFunction
from ge_runtime.jit.ops import JITError, LocatedJITError, jit_failure
from passes.lowering.table import lowering_for
from passes.memory_planning import OFFSET_ATTRIBUTE

KernelKey = tuple[str, str | None, Format | None]
"""(op name, dtype of the first operand, its storage format)."""


@dataclass
class KernelCall:
    """One execution of an op: storage-layout inputs, outputs to fill."""

    op: Operation
    inputs: Sequence[np.ndarray]
    outputs: Sequence[np.ndarray]
    input_layouts: Sequence[ValueLayout]
    output_layouts: Sequence[ValueLayout]
    input_shapes: Sequence[tuple[int, ...]]
    output_shapes: Sequence[tuple[int, ...]]
    target: str | None = None

    def origin(self, index: int) -> np.ndarray:
        """Input `index` in origin layout."""
        layout = self.input_layouts[index]
        return layout.load(self.inputs[index], self.input_shapes[index])

    def store(self, index: int, origin: np.ndarray) -> None:
        """Write output `index` from its origin-layout value."""
        self.outputs[index][...] = self.output_layouts[index].store(
            np.asarray(origin, self.outputs[index].dtype)
        )


Kernel = Callable[[KernelCall], None]


@dataclass(frozen=True)
class KernelInfo:
    """A registered kernel and the ops it serves."""

    name: str
    function: Kernel
    dtypes: frozenset[str] | None = None
    formats: frozenset[Format] | None = None
    applies: Callable[[Operation], bool] | None = None

    def serves(self, op: Operation, key: KernelKey) -> bool:
        """Whether the kernel can run `op` (whose key is `key`)."""
        _, dtype, storage = key
        if self.dtypes is not None and dtype not in self.dtypes:
            return False
        if self.formats is not None and storage not in self.formats:
            return False
        return self.applies is None or self.applies(op)


def kernel_key(op: Operation) -> KernelKey:
    """The registry key of an op: its name, first operand's dtype and storage."""
    tensors = [v.type for v in op.operands if isinstance(v.type, TensorType)]
    if not tensors:
        return op.name, None, None
    _, storage = layout_of(tensors[0])
    return op.name, dtype_name(tensors[0].element_type), storage


@dataclass
class KernelRegistry:
    """Kernels by op name, in priority order (the first serving one is default)."""

    kernels: dict[str, list[KernelInfo]] = field(default_factory=dict)

    def register(
        self,
        ops: str | Collection[str],
        name: str,
        function: Kernel,
        *,
        dtypes: Collection[str] | None = None,
        formats: Collection[Format | str] | None = None,
        applies: Callable[[Operation], bool] | None = None,
        first: bool = False,
    ) -> None:
        """Register `function` as kernel `name` of `ops` (replacing a namesake).

        With `first` it becomes the default kernel of those ops.
        """
        info = KernelInfo(
            name,
            function,
            None if dtypes is None else frozenset(dtypes),
            None if formats is None else frozenset(Format(f) for f in formats),
            applies,
        )
        for op_name in [ops] if isinstance(ops, str) else ops:
            entries = [k for k in self.kernels.get(op_name, []) if k.name != name]
            entries.insert(0 if first else len(entries), info)
            self.kernels[op_name] = entries

    def candidates(self, op: Operation) -> list[KernelInfo]:
        """The kernels that can run `op`, default first (GEError if none)."""
        key = kernel_key(op)
        found = [k for k in self.kernels.get(op.name, []) if k.serves(op, key)]
        if not found:
            _, dtype, storage = key
            raise error_at(
                op, f"has no kernel for dtype {dtype} and storage format {storage}"
            )
        return found

    def named(self, op: Operation, name: str) -> KernelInfo:
        """The kernel `name` for `op` (GEError listing the candidates if absent)."""
        candidates = self.candidates(op)
        for kernel in candidates:
            if kernel.name == name:
                return kernel
        known = ", ".join(k.name for k in candidates)
        raise error_at(op, f"has no kernel '{name}' (kernels: {known})")


# ---------------------------------------------------------------------------
# host: the reference kernel in origin layout
# ---------------------------------------------------------------------------


def host(call: KernelCall) -> None:
    """The NumPy reference kernel: operands to origin, compute, store results.

    Control flow and fused groups (`runs_subgraphs`) walk their subgraphs in
    the reference evaluator; the others run their host kernel.
    """
    origins = [call.origin(i) for i in range(len(call.inputs))]
    results = ReferenceEvaluator(target=call.target).evaluate_origins(call.op, origins)
    for index, result in enumerate(results):
        call.store(index, result)


def has_host_kernel(op: Operation) -> bool:
    """Whether the reference evaluator can run `op` on its own."""
    if runs_subgraphs(op):
        return True
    try:
        numpy_kernel(op)
    except GEError:
        return False
    return True


# ---------------------------------------------------------------------------
# jit: the op lowered to loops and JIT-compiled
# ---------------------------------------------------------------------------

KERNEL_ATTRIBUTES_DROPPED = ("name", OFFSET_ATTRIBUTE)
"""Attributes that do not change what an op computes (kept out of JIT keys)."""


@functools.lru_cache(maxsize=4096)
def jit_function(op: Operation, target: str | None) -> CompiledFunction:
    """The JIT-compiled function computing `op` alone, inputs in operand order.

    The graph text (without node name and memory plan) keys the JIT's own
    cache, so ops of one signature share one compiled function.
    """
    graph = single_op_graph(
        op, [v.type for v in op.operands], [v.type for v in op.results]
    )
    for kernel_op in graph.body.block.ops:
        for name in KERNEL_ATTRIBUTES_DROPPED:
            kernel_op.attributes.pop(name, None)
    return compile_graph(graph, target)


def jit(call: KernelCall) -> None:
    """The op lowered to affine loops and run by the NumPy JIT."""
    try:
        # copied into the outputs right away: views of the workspace will do
        results = jit_function(call.op, call.target)(*call.inputs, copy=False)
    except LocatedJITError as error:  # a check on the data, located at the op
        raise jit_failure(error) from None
    except JITError as error:
        raise error_at(call.op, f"jit kernel failed: {error}") from None
    for output, result in zip(call.outputs, results, strict=True):
        output[...] = result


def has_loop_lowering(op: Operation) -> bool:
    """Whether `convert-ge-to-loops` lowers `op`."""
    return lowering_for(op) is not None


# ---------------------------------------------------------------------------
# im2col: convolution on NC1HWC0 x FRACTAL_Z as one GEMM
# ---------------------------------------------------------------------------

FLOATS = frozenset({"float16", "float32", "bfloat16"})


def _hw(values: Sequence[int], data_format: str) -> tuple[int, int]:
    return values[data_format.index("H")], values[data_format.index("W")]


def _kernel_hw(op: Operation) -> tuple[int, int]:
    """Kernel height and width from the filter's origin shape and format."""
    tensor = op.operands[1].type
    assert isinstance(tensor, TensorType)
    origin, _ = layout_of(tensor)
    letters = "NCHW" if origin in (Format.ND, Format.NCHW) else origin.value
    shape = tensor.get_shape()
    return shape[letters.index("H")], shape[letters.index("W")]


def im2col_applies(op: Operation) -> bool:
    """NC1HWC0 activations with FRACTAL_Z weights of one group, same C0 and C1."""
    x, w = op.operands[0].type, op.operands[1].type
    y = op.results[0].type
    assert isinstance(x, TensorType) and isinstance(w, TensorType)
    assert isinstance(y, TensorType)
    if attribute_value(op, "groups") != 1 or layout_of(w)[1] != Format.FRACTAL_Z:
        return False
    if layout_of(y)[1] != Format.NC1HWC0:
        return False
    _, c1, _, _, c0 = storage_shape_of(x)
    kh, kw = _kernel_hw(op)
    rows, _, _, w_c0 = storage_shape_of(w)
    return w_c0 == c0 and rows == c1 * kh * kw


def im2col(call: KernelCall) -> None:
    """Convolution as im2col + one GEMM, on the storage layouts directly.

    x [N, C1, H, W, C0] is padded spatially; its windows become the rows of
    [N*Ho*Wo, C1*kh*kw*C0], the column order of FRACTAL_Z weights
    [C1*kh*kw, N1, N0, C0] seen as [C1*kh*kw*C0, N1*N0]; the product is
    [N*Ho*Wo, N1*N0] and its first C1o*C0 columns are the NC1HWC0 result
    (padding channels: zero weights, no bias, so zero).
    """
    op = call.op
    data_format = str(attribute_value(op, "data_format"))
    sh, sw = _hw(attribute_value(op, "strides"), data_format)
    dh, dw = _hw(attribute_value(op, "dilations"), data_format)
    top, bottom, left, right = attribute_value(op, "pads")
    kh, kw = _kernel_hw(op)
    x = call.inputs[0].astype(np.float32, copy=False)
    w = call.inputs[1].astype(np.float32, copy=False)
    n, c1, _, _, c0 = x.shape
    if top or bottom or left or right:
        x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right), (0, 0)))
    extent = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    windows = sliding_window_view(x, extent, axis=(2, 3))
    windows = windows[:, :, ::sh, ::sw, :, ::dh, ::dw]  # N, C1, Ho, Wo, C0, kh, kw
    ho, wo = windows.shape[2:4]
    columns = windows.transpose(0, 2, 3, 1, 5, 6, 4).reshape(n * ho * wo, -1)
    rows, n1, n0, _ = w.shape
    product = columns @ w.transpose(0, 3, 1, 2).reshape(rows * c0, n1 * n0)
    if len(call.inputs) > 2:
        bias = call.origin(2).astype(np.float32).reshape(-1)
        product[:, : bias.size] += bias
    out = call.outputs[0]
    _, co1, _, _, out_c0 = out.shape
    width = co1 * out_c0
    if product.shape[1] < width:
        product = np.pad(product, ((0, 0), (0, width - product.shape[1])))
    blocks = product[:, :width].reshape(n, ho, wo, co1, out_c0)
    out.transpose(0, 2, 3, 1, 4)[...] = blocks


# ---------------------------------------------------------------------------
# blas: matrix products through np.matmul
# ---------------------------------------------------------------------------


def blas(call: KernelCall) -> None:
    """`alpha * op(a) @ op(b) + beta * c` with one `np.matmul` (BLAS)."""
    assert isinstance(call.op, MatrixProductOp)
    trans_a, trans_b, alpha, beta = call.op.product_form()
    a = call.origin(0).astype(np.float32, copy=False)
    b = call.origin(1).astype(np.float32, copy=False)
    if trans_a:
        a = np.swapaxes(a, -1, -2)
    if trans_b:
        b = np.swapaxes(b, -1, -2)
    out = call.outputs[0]
    direct = call.output_layouts[0].is_plain and out.dtype == np.float32
    product = np.matmul(a, b, out=out if direct else None)
    if alpha != 1.0:
        product *= alpha
    if len(call.inputs) > 2:
        product += beta * call.origin(2).astype(np.float32, copy=False)
    if not direct:
        call.store(0, product)


# ---------------------------------------------------------------------------
# The builtin registry
# ---------------------------------------------------------------------------


def builtin_registry() -> KernelRegistry:
    """A registry holding the builtin kernels (see the module docstring)."""
    from ge_dialect.ops import GE_OPS

    registry = KernelRegistry()
    names = [op.name for op in GE_OPS]
    registry.register(names, "jit", jit, applies=has_loop_lowering)
    registry.register(
        Conv2DOp.name,
        "im2col",
        im2col,
        dtypes=FLOATS,
        formats={Format.NC1HWC0},
        applies=im2col_applies,
    )
    products = [op.name for op in GE_OPS if issubclass(op, MatrixProductOp)]
    registry.register(products, "blas", blas, dtypes=FLOATS)
    registry.register(names, "host", host, applies=has_host_kernel)
    return registry


KERNELS = builtin_registry()
"""The registry the runtime uses by default; plugins register kernels here."""
