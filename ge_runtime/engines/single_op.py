"""Single-op kernels: an op alone in a graph, JIT-compiled for concrete shapes.

Host scheduling (`engines.scheduler`) runs a graph op by op: each op, on the
shapes its operands have at run time, gets a kernel compiled from a graph
with only that op (`single_op_graph`), kept in a bounded `KernelCache`. The
kernel runtime (`engines.kernels`) compiles its `jit` kernels the same way.
An op whose parameters are run-time tensors (`ge.dynamic_attrs`) is compiled
as the static op they give (`Specialised`); control flow is compiled with its
subgraphs, their shapes inferred from the concrete operands
(`subgraph_kernel_graph`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from ge_dialect.builder import op_attributes
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import element_type
from ge_dialect.layout import check_tensor_type
from ge_dialect.ops import DataOp, GraphOp, NetOutputOp
from ge_dialect.verification import verify_module
from ge_runtime.engines.fallback import runs_on_host
from ge_runtime.jit.compiler import GraphRunner
from ge_runtime.jit.ops import JITError, UnusableSetup
from passes.infer_shape import InferShapePass

Shape = tuple[int, ...]


def with_shape(tensor: TensorType, shape: Sequence[int], dtype: str | None = None):
    """`tensor` with a concrete shape (and dtype), keeping its `#ge.layout`."""
    element = tensor.element_type if dtype is None else element_type(dtype)
    return TensorType(element, list(shape), tensor.encoding)


@dataclass(frozen=True)
class Specialised:
    """The static op a `ge.dynamic_attrs` op is for its run-time parameter
    values: its class and attributes (Python values)."""

    op_class: type[Operation]
    attributes: Mapping[str, Any]

    @property
    def key(self) -> str:
        """What tells kernels of different parameter values apart."""
        return f"{self.op_class.name} {sorted(self.attributes.items())!r}"

    def describe(self) -> str:
        """`ge.reduce_sum axes=[1] keep_dims=False` (for traces)."""
        shown = " ".join(f"{k}={v}" for k, v in sorted(self.attributes.items()))
        return f"{self.op_class.name} {shown}".rstrip()


def single_op_graph(
    op: Operation,
    operand_types: Sequence[TensorType],
    result_types: Sequence[TensorType],
    specialised: Specialised | None = None,
) -> GraphOp:
    """A graph running only `op` (or the static op it is `specialised` to),
    on operands of the given (concrete) types."""
    op_class, attributes, properties = type(op), dict(op.attributes), op.properties
    if specialised is not None:
        op_class = specialised.op_class
        attributes, properties = op_attributes(op_class, specialised.attributes), {}
    block = Block()
    operands = []
    for index, tensor in enumerate(operand_types):
        data = DataOp.create(
            result_types=[tensor], attributes={"index": IntegerAttr(index, i64)}
        )
        block.add_op(data)
        operands.append(data.output)
    kernel_op = op_class.create(
        operands=operands,
        result_types=list(result_types),
        attributes=attributes,
        properties=dict(properties),
        regions=[region.clone() for region in op.regions],  # a ge.fused body
    )
    kernel_op.location = op.location  # its run-time checks report the op
    block.add_op(kernel_op)
    block.add_op(NetOutputOp(kernel_op.results))
    return GraphOp(f"kernel_{op_class.name.removeprefix('ge.')}", Region(block))


def needs_host(op: Operation) -> bool:
    """Whether `op` runs only on the host: it reads run-time parameters
    (`specialise`), computes its result shape from values (`value_shapes`)
    or is marked `aclnn_only`."""
    return (
        hasattr(op, "specialise")
        or hasattr(op, "value_shapes")
        or runs_on_host(op, host_scheduled=False)
    )


def subgraph_kernel_graph(
    op: Operation, operand_types: Sequence[TensorType]
) -> GraphOp:
    """A graph running control flow `op` (`ge.if`, `ge.case`, `ge.while`)
    with its subgraphs, every shape inferred from the concrete operand
    types (`infer-shape`). A `GEError` says why it cannot be compiled: a
    dim that stays unknown (branches or iterations of different shapes), or
    an op inside that needs the host."""
    results = [v.type for v in op.results]
    graph = single_op_graph(op, operand_types, results)  # type: ignore[arg-type]
    InferShapePass().apply(Context(), ModuleOp([graph]))
    for inner in graph.walk():
        if needs_host(inner):
            raise GEError(f"'{inner.name}' inside needs the host")
        for value in inner.results:
            if isinstance(value.type, TensorType) and -1 in value.type.get_shape():
                raise GEError(f"'{inner.name}' has a dim known only while it runs")
    return graph


KERNEL_CACHE_SIZE = 4096
"""Per-shape kernels a host-scheduled model keeps (least recently used go first)."""


@dataclass
class KernelCache:
    """JIT-compiled single-op kernels by (op, concrete operand and result
    shapes: an op with data-dependent dims has one per result shape), at most
    `capacity` of them (the least recently used are dropped).

    A None entry means the op runs its NumPy kernel; `failures` says why.
    """

    target: str | None
    kernels: dict[
        tuple[Operation, tuple[Shape, ...], tuple[Shape, ...], str],
        GraphRunner | None,
    ] = field(default_factory=dict)
    failures: dict[Operation, str] = field(default_factory=dict)
    capacity: int = KERNEL_CACHE_SIZE
    compiled: int = 0
    """Kernels compiled so far (one dropped and needed again counts again)."""

    def kernel(
        self,
        op: Operation,
        shapes: tuple[Shape, ...],
        results: Sequence[tuple[Shape, str]],
        specialised: Specialised | None = None,
    ) -> GraphRunner | None:
        """The compiled kernel of `op` (or of the static op it is
        `specialised` to) for `shapes` and `results` (None: use the NumPy
        kernel)."""
        key = (
            op,
            shapes,
            tuple(shape for shape, _ in results),
            "" if specialised is None else specialised.key,
        )
        if key in self.kernels:
            self.kernels[key] = self.kernels.pop(key)  # now the most recent
            return self.kernels[key]
        self.compiled += 1
        self.kernels[key] = self._compile(op, shapes, results, specialised)
        while len(self.kernels) > self.capacity:
            del self.kernels[next(iter(self.kernels))]
        return self.kernels[key]

    def subgraph_kernel(
        self, op: Operation, shapes: tuple[Shape, ...]
    ) -> tuple[GraphRunner, list[Shape]] | None:
        """Control flow `op` compiled whole, its subgraphs with it, for its
        operands' concrete `shapes` (`subgraph_kernel_graph`), and its
        result shapes; None: it runs through its subgraphs op by op
        (`failures` says why)."""
        key = (op, shapes, (), "subgraphs")
        if key not in self.kernels:
            self.compiled += 1
            self.kernels[key] = self._compile_subgraphs(op, shapes)
            while len(self.kernels) > self.capacity:
                del self.kernels[next(iter(self.kernels))]
        kernel = self.kernels[key] = self.kernels.pop(key)  # now the most recent
        if kernel is None:
            return None
        return kernel, [shape for _, shape in kernel.outputs]

    def _compile_subgraphs(
        self, op: Operation, shapes: tuple[Shape, ...]
    ) -> GraphRunner | None:
        try:
            operand_types = [
                with_shape(v.type, s) for v, s in zip(op.operands, shapes, strict=True)
            ]
            graph = subgraph_kernel_graph(op, operand_types)
            verify_module(ModuleOp([graph.clone()]))
            return GraphRunner.build(graph, target=self.target)
        except UnusableSetup:
            raise
        except (GEError, JITError, VerifyException) as error:
            self.failures[op] = str(error).partition("error: ")[2] or str(error)
            return None

    def _compile(
        self,
        op: Operation,
        shapes: tuple[Shape, ...],
        results: Sequence[tuple[Shape, str]],
        specialised: Specialised | None,
    ) -> GraphRunner | None:
        try:
            operand_types = [
                with_shape(v.type, s)
                for v, s in zip(op.operands[: len(shapes)], shapes, strict=True)
            ]
            result_types = [
                with_shape(v.type, s, dtype)
                for v, (s, dtype) in zip(op.results, results, strict=True)
            ]
            for tensor in (*operand_types, *result_types):
                check_tensor_type(tensor)
            graph = single_op_graph(op, operand_types, result_types, specialised)
            verify_module(ModuleOp([graph.clone()]))
            return GraphRunner.build(graph, target=self.target)
        except UnusableSetup:
            raise
        except (GEError, JITError, VerifyException) as error:
            self.failures[op] = str(error).partition("error: ")[2] or str(error)
            return None
