"""Import torch FX graphs of ATen ops as `ge` graphs (the online front end).

`torch.compile(model, backend="ge")` hands its backend the graphs TorchDynamo
captures; aot_autograd turns each into an FX graph of ATen ops
(`aten.convolution`, `aten.addmm`, `aten.view`, ...), which this module
imports as the ONNX and TensorFlow importers import their files:

```python
imported = import_fx_graph(graph_module, constants={0: weight, 1: bias})
imported.model.module      # builtin.module { ge.graph @main { ... } }, verified
imported.unsupported       # {node: "aten.foo.default: why"}: nothing is dropped
arrays = imported.feeds(args)               # per call: ge.data index -> array
outputs = imported.outputs(results, args)   # the FX graph's outputs
```

**What a node's value is.** Each FX node is one of:

- *known at import*: a constant (`constants` maps placeholder positions to
  tensors: the parameters and buffers) or anything computed from constants
  only, folded by running the node's ATen op itself (the framework's own
  semantics); nondeterministic ops (`rand`, dropout in training) are never
  folded;
- *a host value*: computed from the graph's symbolic sizes only (under
  `dynamic=True`: `arange(s1)`, position ids sliced to the sequence length,
  the masks built from them, size arithmetic). A static compile folds these;
  with symbolic sizes the host computes them per call (`feeds`, cached per
  binding of the symbols, as a static compile would fold them per shape) and
  feeds them to the graph as extra `ge.data` inputs. Floating-point results
  are the exception: when a converter expresses them (an embedding lookup of
  host position ids) they are `ge` ops, so the host computes indices and
  masks only;
- *a run-time value* (`SSAValue`): computed by `ge` ops from the graph's
  inputs, by the converter of its ATen op (`torch_ops.CONVERTERS`).

**Shapes.** A symbolic size is a `?` dim. Converters reason on sizes
symbolically (a `view` target becomes `ge.reshape`'s 0, "copy the dim", and
-1, "inferred", where the symbols say so; a slice ending at its dim's size
runs to the end) and never on the example values of symbols, so one graph
serves every binding the guards of `torch.compile` admit. Every converted
result is checked against eager's example (dtype, known dims).

**Layouts.** ATen ops index logical NCHW; `ge.conv2d`, the pools and batch
norm are emitted with `data_format = "NCHW"` (filters OIHW), the anchors
`infer-origin-format` starts from. A 4-d input whose example is
`channels_last` is an NHWC `ge.data` (fed the tensor's memory as it is)
followed by a transpose to the logical order; an output that eager returns
`channels_last` is returned in that memory format.

**Unsupported nodes** (no converter, or a configuration `ge` cannot express)
are collected in `unsupported` with the reason, anything a failed converter
emitted is removed, and the import goes on with the node's results as fresh
graph inputs, so one import finds every unsupported node. The backend runs
them in eager PyTorch between `ge` partitions (graph breaks).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx
from torch.fx.experimental.symbolic_shapes import (
    free_symbols,
    is_concrete_bool,
    is_concrete_float,
    is_concrete_int,
    statically_known_true,
)
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Operation, SSAValue

from ge_dialect.builder import GraphBuilder, tensor_type
from ge_dialect.dtypes import dtype_name as element_dtype_name
from ge_dialect.limits import DEFAULT_INLINE_LIMIT, over_budget, tensor_bytes
from ge_dialect.ops import DataOp
from ge_frontend.importing import (
    CONVERSION_ERRORS,
    ConverterContext,
    GraphEmitter,
    ImportedModel,
    Unsupported,
    one_line,
)

Size = int | torch.SymInt
"""A size: known, or symbolic (a `torch.SymInt` over the graph's shape symbols)."""

TORCH_DTYPES: dict[torch.dtype, str] = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.float64: "float64",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.int16: "int16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.bool: "bool",
}
"""The torch dtypes `ge` holds, by their `ge` dtype names."""

DTYPES_BY_NAME = {name: dtype for dtype, name in TORCH_DTYPES.items()}

HOST_CACHE_SIZE = 16
"""Bindings of the symbols whose host values are kept (the most recent ones)."""

SYMBOLIC_TYPES = (torch.SymInt, torch.SymFloat, torch.SymBool)


def dtype_name(dtype: torch.dtype) -> str:
    """The `ge` dtype name of a torch dtype; Unsupported when `ge` has none."""
    name = TORCH_DTYPES.get(dtype)
    if name is None:
        raise Unsupported(f"on {dtype}")
    return name


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A CPU tensor's values as an array (sharing its memory)."""
    tensor = tensor.detach()
    if tensor.dtype == torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def contiguous(array: np.ndarray) -> np.ndarray:
    """`array` in C order (a copy only if it is not; 0-d stays 0-d, which
    `np.ascontiguousarray` makes 1-d)."""
    return np.asarray(array, order="C")


def to_torch(array: np.ndarray) -> torch.Tensor:
    """An array as a CPU tensor (sharing its memory when it is writable)."""
    array = np.asarray(array)
    if not array.flags.writeable:
        array = array.copy()
    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def is_symbolic(value: Any) -> bool:
    """Whether `value` is a symbolic int, float or bool (not a known number)."""
    if isinstance(value, torch.SymInt):
        return not is_concrete_int(value)
    if isinstance(value, torch.SymFloat):
        return not is_concrete_float(value)
    if isinstance(value, torch.SymBool):
        return not is_concrete_bool(value)
    return False


def static_dim(size: Size) -> int:
    """A dim of a `ge` tensor type: the size, or -1 when it is symbolic."""
    return -1 if is_symbolic(size) else int(size)


def known_equal(a: Size, b: Size) -> bool:
    """Whether two sizes are equal for every binding of the symbols."""
    if not (is_symbolic(a) or is_symbolic(b)):
        return int(a) == int(b)
    return statically_known_true(a == b)


def size_value(value: Any, bindings: Mapping[Any, int] | None = None) -> Any:
    """A SymInt, SymFloat or SymBool as a Python number, its symbols bound by
    `bindings` (none for a known one); other values as they are."""
    if not isinstance(value, SYMBOLIC_TYPES):
        return value
    expr = value.node.expr.xreplace(bindings or {})
    if isinstance(value, torch.SymInt):
        return int(expr)
    return float(expr) if isinstance(value, torch.SymFloat) else bool(expr)


def example_of(node: fx.Node) -> Any:
    """The example value aot_autograd recorded for `node` (a fake tensor, ...)."""
    return node.meta.get("val")


def is_channels_last(example: Any) -> bool:
    """Whether a 4-d example tensor is laid out NHWC in memory (and not NCHW)."""
    return (
        isinstance(example, torch.Tensor)
        and example.dim() == 4
        and example.is_contiguous(memory_format=torch.channels_last)
        and not example.is_contiguous()
    )


def op_label(node: fx.Node) -> str:
    """The name of a node's op: `aten.addmm.default`, `operator.mul`."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    module = (getattr(target, "__module__", None) or "").lstrip("_")
    return f"{module}.{getattr(target, '__name__', target)}".lstrip(".")


def results_of(example: Any) -> list[Any]:
    """A node's example as a list with one entry per result."""
    return list(example) if isinstance(example, tuple | list) else [example]


# ---------------------------------------------------------------------------
# Host values
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class HostValue:
    """A tensor the host computes per call from the graph's symbolic sizes:
    an FX node's ATen op run on its arguments (all known on the host), or a
    tensor shaped like `example` filled with `fill` (what a converter needs
    to broadcast onto symbolic sizes)."""

    example: torch.Tensor
    """Its example (fake) tensor: symbolic shape and dtype."""
    name: str
    node: fx.Node | None = None
    fill: Any = 0
    """A number, or a symbolic size (bound per call)."""

    @classmethod
    def of_node(cls, node: fx.Node) -> HostValue:
        """The value of `node`."""
        return cls(example_of(node), node.name, node)


SymbolSource = tuple[int, int | None]
"""Where a call's arguments give a symbol: argument `i` itself (a SymInt), or
dim `d` of argument `i` (a tensor)."""


@dataclass
class HostProgram:
    """Evaluates host values and symbolic sizes for the arguments of a call."""

    symbols: dict[Any, SymbolSource] = field(default_factory=dict)
    """Shape symbol (sympy) -> where a call's arguments give its value."""
    values: dict[fx.Node, Any] = field(default_factory=dict)
    """The import-time value of every node (arrays, host values, sizes, ...)."""

    def bind(self, symbol: Any, source: SymbolSource) -> None:
        """Remember where `symbol`'s value is found (the first source wins)."""
        self.symbols.setdefault(symbol, source)

    def bindings(self, args: Sequence[Any]) -> dict[Any, int]:
        """The value of every symbol in a call with arguments `args`."""
        values = {}
        for symbol, (position, dim) in self.symbols.items():
            arg = args[position]
            values[symbol] = int(arg if dim is None else arg.shape[dim])
        return values

    def evaluate(self, value: Any, bindings: Mapping[Any, int], memo: dict) -> Any:
        """A host-known value under `bindings` (tensors as torch tensors)."""
        if isinstance(value, HostValue):
            if id(value) not in memo:
                memo[id(value)] = self._compute(value, bindings, memo)
            return memo[id(value)]
        if isinstance(value, np.ndarray):
            return to_torch(value)
        return size_value(value, bindings)

    def _compute(self, value: HostValue, bindings: Mapping[Any, int], memo: dict):
        if value.node is None:
            shape = [size_value(d, bindings) for d in value.example.shape]
            fill = size_value(value.fill, bindings)
            return torch.full(shape, fill, dtype=value.example.dtype)
        node = value.node
        args, kwargs = fx.node.map_aggregate(
            (node.args, node.kwargs), lambda a: self._argument(a, bindings, memo)
        )
        return node.target(*args, **kwargs)

    def _argument(self, arg: Any, bindings: Mapping[Any, int], memo: dict) -> Any:
        if isinstance(arg, fx.Node):
            return self.evaluate(self.values[arg], bindings, memo)
        return arg


# ---------------------------------------------------------------------------
# The emitter: graph inputs fed per call, an example for every value
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Feed:
    """What a `ge.data` is fed per call: argument `position` (in NHWC when
    `channels_last`), or a host value; neither for a stand-in (the result of
    an unsupported node)."""

    position: int | None = None
    channels_last: bool = False
    host: HostValue | None = None


@dataclass(frozen=True)
class Checkpoint:
    """The emitter's state before a converter runs (`TorchEmitter.rollback`)."""

    last_op: Operation | None
    feeds: int
    weights: frozenset[str]


@dataclass
class TorchEmitter(GraphEmitter):
    """A `GraphEmitter` whose graph inputs are fed per call (arguments, host
    values), with the example tensor of every run-time value."""

    examples: dict[SSAValue, Any] = field(default_factory=dict)
    feeds: list[Feed] = field(default_factory=list)
    """What feeds each `ge.data`, by index."""
    input_names: list[str] = field(default_factory=list)
    _host_inputs: dict[int, SSAValue] = field(default_factory=dict)

    def tensor(self, value: Any, key: str, fmt: Any = None) -> SSAValue:
        if isinstance(value, HostValue):
            if id(value) not in self._host_inputs:
                name = f"host/{value.name}"
                self._host_inputs[id(value)] = self.graph_input(
                    value.example, name, Feed(host=value)
                )
            return self._host_inputs[id(value)]
        return super().tensor(value, key, fmt)

    def graph_input(
        self, example: torch.Tensor, name: str, feed: Feed, fmt: str | None = None
    ) -> SSAValue:
        """The next `ge.data`, shaped like `example` (before the computation)."""
        shape = [static_dim(d) for d in example.shape]
        op = DataOp.build(
            attributes={
                "index": IntegerAttr(len(self.feeds), i64),
                "name": StringAttr(name),
            },
            result_types=[tensor_type(shape, dtype_name(example.dtype), fmt)],
        )
        block = self.builder.block
        compute = next((o for o in block.ops if not isinstance(o, DataOp)), None)
        if compute is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, compute)
        self.feeds.append(feed)
        self.input_names.append(name)
        self.examples[op.output] = example
        return op.output

    def checkpoint(self) -> Checkpoint:
        """The state to roll back to if a converter fails half-way."""
        return Checkpoint(
            self.builder.block.last_op, len(self.feeds), frozenset(self.weights)
        )

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Erase what was emitted since `checkpoint` (ops, inputs, weights)."""
        block = self.builder.block
        added = []
        op = block.last_op
        while op is not None and op is not checkpoint.last_op:
            added.append(op)
            op = op.prev_op
        added += [
            o
            for o in block.ops
            if isinstance(o, DataOp) and o.index_value >= checkpoint.feeds
        ]
        for op in added:  # newest first: users before their producers
            block.erase_op(op, safe_erase=False)
        del self.feeds[checkpoint.feeds :]
        del self.input_names[checkpoint.feeds :]
        for key in set(self.weights) - checkpoint.weights:
            del self.weights[key]
        self._consts = {
            k: v for k, v in self._consts.items() if v[1].owner.parent is not None
        }
        self._host_inputs = {
            k: v for k, v in self._host_inputs.items() if v.owner.parent is not None
        }


# ---------------------------------------------------------------------------
# What converters see
# ---------------------------------------------------------------------------


def bind_arguments(node: fx.Node) -> dict[str, Any]:
    """An ATen call's arguments by schema name, defaults filled in."""
    schema = node.target._schema
    bound: dict[str, Any] = {}
    for index, argument in enumerate(schema.arguments):
        if index < len(node.args) and not argument.kwarg_only:
            bound[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            bound[argument.name] = node.kwargs[argument.name]
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
        else:
            raise ValueError(f"argument '{argument.name}' is missing")
    return bound


@dataclass
class TorchNodeContext(ConverterContext):
    """One ATen node being converted, its arguments by schema name.

    Tensor arguments are values (an array, an `SSAValue` or a `HostValue`),
    sizes are ints or `SymInt`s, the rest is as the graph holds it.
    """

    node: fx.Node = None  # type: ignore[assignment]
    arguments: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def packet(self) -> str:
        """The node's op without its overload: `aten.add` for `aten.add.Tensor`."""
        return str(self.node.target.overloadpacket)

    def arg(self, name: str) -> Any:
        """Argument `name` as the graph gives it (defaults filled in)."""
        return self.arguments[name]

    def tensor(self, name: str) -> Any:
        """Tensor argument `name` (ValueError when it is None)."""
        value = self.arguments[name]
        if value is None:
            raise ValueError(f"tensor argument '{name}' is missing")
        return value

    def sizes(self, name: str, count: int = 1) -> list[Size]:
        """An `int[]` argument (a single int stands for `count` of it)."""
        value = self.arguments[name]
        if isinstance(value, int | torch.SymInt):
            return [value] * count
        return list(value)

    def ints(self, name: str, count: int = 1) -> list[int]:
        """An `int[]` argument whose sizes must be known (Unsupported if not)."""
        sizes = self.sizes(name, count)
        if any(is_symbolic(s) for s in sizes):
            raise Unsupported(f"with a symbolic '{name}'")
        return [int(s) for s in sizes]

    def number(self, name: str) -> Any:
        """A scalar argument that must be known (Unsupported if symbolic)."""
        value = self.arguments[name]
        if is_symbolic(value):
            raise Unsupported(f"with a symbolic '{name}'")
        return size_value(value)

    def example_of(self, value: Any) -> Any:
        """The example tensor (symbolic shape, dtype) of a tensor value."""
        if isinstance(value, HostValue):
            return value.example
        if isinstance(value, np.ndarray):
            return meta_tensor(value.shape, value.dtype.name)
        assert isinstance(self.emitter, TorchEmitter)
        example = self.emitter.examples.get(value)
        if example is not None:
            return example
        shape = value.type.get_shape()  # a converter's own intermediate value
        if any(dim < 0 for dim in shape):
            raise Unsupported("on an intermediate value with symbolic dims")
        return meta_tensor(shape, element_dtype_name(value.type.element_type))

    def sym_shape(self, value: Any) -> tuple[Size, ...]:
        """The (possibly symbolic) shape of a tensor value."""
        return tuple(self.example_of(value).shape)

    def shape(self, index: int) -> tuple[int, ...]:
        return tuple(static_dim(d) for d in self.sym_shape(self.input(index)))

    def rank_of(self, value: Any) -> int:
        """The rank of a tensor value."""
        if isinstance(value, SSAValue):
            return len(value.type.get_shape())
        return len(self.sym_shape(value))

    def dtype_of(self, value: Any) -> str:
        """The dtype name of a tensor value."""
        if isinstance(value, SSAValue):
            return element_dtype_name(value.type.element_type)
        return dtype_name(self.example_of(value).dtype)

    def result(self, index: int = 0) -> torch.Tensor:
        """Eager's example of result `index` (its symbolic shape, its dtype)."""
        return results_of(example_of(self.node))[index]

    def result_dtype(self, index: int = 0) -> str:
        """The dtype name of result `index` (torch's type promotion decided it)."""
        return dtype_name(self.result(index).dtype)

    def host_full(
        self, like: torch.Tensor, fill: Any, suffix: str = "full"
    ) -> HostValue:
        """A tensor shaped like example `like` (symbolic sizes allowed), of its
        dtype, filled with `fill` (a number or a symbolic size) by the host per
        call."""
        return HostValue(like, f"{self.name}/{suffix}", fill=fill)


def meta_tensor(shape: Sequence[int], dtype: str) -> torch.Tensor:
    """A storage-less tensor with `shape` and the `ge` dtype `dtype`."""
    if dtype not in DTYPES_BY_NAME:
        raise Unsupported(f"on {dtype}")
    return torch.empty(tuple(shape), dtype=DTYPES_BY_NAME[dtype], device="meta")


# ---------------------------------------------------------------------------
# The import
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """Where output `i` of the FX graph comes from: `ge` output `graph_output`
    (returned `channels_last` when eager returns it so), or else `value`
    (a size, evaluated per call; None)."""

    graph_output: int | None = None
    channels_last: bool = False
    value: Any = None


@dataclass
class FxGraphImport:
    """An imported FX graph and how a call's arguments feed it."""

    model: ImportedModel
    feeds_by_index: list[Feed]
    results: list[Result]
    host: HostProgram
    unsupported: dict[fx.Node, str]
    """Nodes `ge` cannot express -> why (`aten.op.overload: reason`)."""
    _host_cache: dict[tuple, dict[int, np.ndarray]] = field(default_factory=dict)

    def feeds(self, args: Sequence[Any]) -> dict[int, np.ndarray]:
        """The `ge.data` arrays (by index) of a call with arguments `args`."""
        arrays: dict[int, np.ndarray] = {}
        if any(feed.host is not None for feed in self.feeds_by_index):
            arrays.update(self._host_feeds(args))
        for index, feed in enumerate(self.feeds_by_index):
            if feed.position is not None:
                tensor = args[feed.position]
                if feed.channels_last:
                    tensor = tensor.permute(0, 2, 3, 1)
                arrays[index] = contiguous(to_numpy(tensor))
        return arrays

    def _host_feeds(self, args: Sequence[Any]) -> dict[int, np.ndarray]:
        """The host values of this call's binding of the symbols (the most
        recent bindings' values are kept)."""
        bindings = self.host.bindings(args)
        key = tuple(sorted((str(s), v) for s, v in bindings.items()))
        arrays = self._host_cache.pop(key, None)
        if arrays is None:
            memo: dict[int, Any] = {}
            arrays = {
                index: contiguous(
                    to_numpy(self.host.evaluate(feed.host, bindings, memo))
                )
                for index, feed in enumerate(self.feeds_by_index)
                if feed.host is not None
            }
            while len(self._host_cache) >= HOST_CACHE_SIZE:
                self._host_cache.pop(next(iter(self._host_cache)))
        self._host_cache[key] = arrays
        return arrays

    def outputs(self, arrays: Sequence[np.ndarray], args: Sequence[Any]) -> list[Any]:
        """The FX graph's outputs from the `ge` graph's outputs of a call."""
        bindings = self.host.bindings(args)
        outputs: list[Any] = []
        for result in self.results:
            if result.graph_output is None:
                outputs.append(size_value(result.value, bindings))
                continue
            tensor = to_torch(np.array(arrays[result.graph_output]))
            if result.channels_last:
                tensor = tensor.contiguous(memory_format=torch.channels_last)
            outputs.append(tensor)
        return outputs


Converter = Callable[[TorchNodeContext], Any]


@dataclass(frozen=True)
class FlattenedLinear:
    """`out = view(mm(view(x, [prod(lead), k]), weight) (+ bias), [*lead, n])`."""

    out: fx.Node
    product: fx.Node
    flat: fx.Node
    x: fx.Node
    weight: fx.Node
    bias: fx.Node | None


VIEWS = (
    torch.ops.aten.view.default,
    torch.ops.aten._unsafe_view.default,
    torch.ops.aten.reshape.default,
)


def flattened_linear(node: fx.Node) -> FlattenedLinear | None:
    """`node` as the end of a linear layer on a flattened N-d input with
    symbolic leading dims, or None."""
    aten = torch.ops.aten
    if node.target not in VIEWS:
        return None
    product = node.args[0]
    if not isinstance(product, fx.Node) or len(product.users) != 1:
        return None
    if product.target is aten.mm.default:
        (flat, weight), bias = product.args, None
    elif product.target is aten.addmm.default and not product.kwargs:
        bias, flat, weight = product.args[:3]
    else:
        return None
    if flat.target not in VIEWS or len(flat.users) != 1:
        return None
    lead = example_of(node).shape[:-1]
    x_shape = example_of(flat.args[0]).shape
    if not any(is_symbolic(d) for d in lead) or len(x_shape) <= len(lead):
        return None  # known sizes: the views are plain reshapes
    if not all(known_equal(a, b) for a, b in zip(x_shape, lead, strict=False)):
        return None
    if not known_equal(math.prod(x_shape[len(lead) :]), example_of(flat).shape[1]):
        return None
    return FlattenedLinear(node, product, flat, flat.args[0], weight, bias)


def unflatten_matmuls(graph: fx.Graph) -> None:
    """Linear layers on N-d inputs as one matmul where their sizes are symbolic.

    aot_autograd writes a linear layer on `[*lead, k]` as a view to
    `[prod(lead), k]`, `mm`/`addmm`, and a view back to `[*lead, n]`. A
    `ge.reshape` copies a symbolic dim only from the same position, so the
    split of `s0*s1` back into `s0, s1` cannot be written; the product on
    the unflattened input can (`ge.batch_matmul` broadcasts the weight):

        %flat = aten.view(%x, [s0*s1, 64])
        %y = aten.addmm(%b, %flat, %w)
        %out = aten.view(%y, [s0, s1, 192])

    becomes `%out = aten.add(aten.matmul(%x, %w), %b)` (with a view of `%x`
    to `[s0, s1, 64]` first when its trailing dims merge into `k`).
    """
    aten = torch.ops.aten
    for node in list(graph.nodes):
        match = flattened_linear(node)
        if match is None:
            continue
        lead_sizes = list(match.out.args[1][:-1])
        sizes = [*lead_sizes, match.flat.args[1][-1]]
        x_rank = example_of(match.x).dim()
        if x_rank != len(sizes) and sizes.count(-1) > 1:
            continue
        with graph.inserting_before(node):
            x = match.x
            if x_rank != len(sizes):
                example = example_of(x).reshape(
                    [*example_of(node).shape[:-1], example_of(match.flat).shape[1]]
                )
                x = _call_like(graph, aten.view.default, (x, sizes), example)
            result = _call_like(
                graph, aten.matmul.default, (x, match.weight), example_of(node)
            )
            if match.bias is not None:
                result = _call_like(
                    graph, aten.add.Tensor, (result, match.bias), example_of(node)
                )
        node.replace_all_uses_with(result)
        for dead in (match.out, match.product, match.flat):
            graph.erase_node(dead)


def _call_like(graph: fx.Graph, target: Any, args: tuple, example: Any) -> fx.Node:
    """A new call node with `example` as its recorded value."""
    node = graph.call_function(target, args)
    node.meta["val"] = example
    return node


def import_fx_graph(
    graph_module: fx.GraphModule,
    constants: Mapping[int, torch.Tensor] | None = None,
    *,
    names: Mapping[int, str] | None = None,
    graph_name: str = "main",
    inline_limit: int = DEFAULT_INLINE_LIMIT,
) -> FxGraphImport:
    """Import an ATen FX graph, with the `meta["val"]` examples aot_autograd
    records, into a `ge` graph.

    `constants` maps placeholder positions to their values (parameters and
    buffers: they become weights); the other tensor placeholders are the
    graph's inputs (`ge.data` in placeholder order, host values after them).
    `names` names placeholders (`fc.weight`, `x`; by default their FX names).
    The graph is rewritten in place first (`unflatten_matmuls`).
    """
    from ge_frontend.torch_ops import CONVERTERS

    unflatten_matmuls(graph_module.graph)
    emitter = TorchEmitter(GraphBuilder(graph_name), "external", inline_limit)
    importer = FxImporter(graph_module, constants or {}, names or {}, CONVERTERS)
    return importer.run(emitter)


class FxImporter:
    """Converts the nodes of one FX graph, in order, into a `TorchEmitter`'s graph."""

    def __init__(
        self,
        graph_module: fx.GraphModule,
        constants: Mapping[int, torch.Tensor],
        names: Mapping[int, str],
        converters: Mapping[str, Converter],
    ):
        self.graph_module = graph_module
        self.constants = constants
        self.names = names
        self.converters = converters
        self.host = HostProgram()
        self.env = self.host.values
        self.unsupported: dict[fx.Node, str] = {}

    def run(self, emitter: TorchEmitter) -> FxGraphImport:
        """Import every node; the model and how a call binds to it."""
        self.emitter = emitter
        graph = self.graph_module.graph
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        for position, node in enumerate(placeholders):
            self._placeholder(node, position)
        results: list[Result] = []
        outputs: list[Any] = []
        names: list[str] = []
        for node in graph.nodes:
            if node.op == "call_function":
                self._call(node)
            elif node.op == "get_attr":  # a constant, or a higher-order op's graph
                attribute = getattr(self.graph_module, node.target)
                is_tensor = isinstance(attribute, torch.Tensor)
                self.env[node] = to_numpy(attribute) if is_tensor else attribute
            elif node.op == "output":
                results = self._results(node, outputs, names)
            elif node.op != "placeholder":
                self._break(node, f"a {node.op} node (not an ATen op)")
        module = emitter.finish(outputs, names)
        model = ImportedModel(module, emitter.weights, emitter.input_names, names)
        return FxGraphImport(model, emitter.feeds, results, self.host, self.unsupported)

    # -- placeholders ----------------------------------------------------------

    def _placeholder(self, node: fx.Node, position: int) -> None:
        example = example_of(node)
        if position in self.constants:
            array = to_numpy(self.constants[position])
            self.emitter.name_array(array, self.names.get(position, node.name))
            self.env[node] = array
        elif isinstance(example, torch.Tensor):
            for dim, size in enumerate(example.shape):
                if is_symbolic(size) and size.node.expr.is_Symbol:
                    self.host.bind(size.node.expr, (position, dim))
            name = self.names.get(position, node.name)
            self.env[node] = self._input_tensor(node, name, example, position)
        else:
            if is_symbolic(example) and example.node.expr.is_Symbol:
                self.host.bind(example.node.expr, (position, None))
            self.env[node] = example  # a size or a Python value

    def _input_tensor(
        self, node: fx.Node, name: str, example: torch.Tensor, position: int
    ) -> Any:
        """`ge.data` for an input tensor: NHWC, then a transpose, if channels_last."""
        if example.dtype not in TORCH_DTYPES:
            return self._break(node, f"an input on {example.dtype}")
        if not is_channels_last(example):
            return self.emitter.graph_input(example, name, Feed(position))
        stored = self.emitter.graph_input(
            example.permute(0, 2, 3, 1),
            name,
            Feed(position, channels_last=True),
            fmt="NHWC",
        )
        logical = self.emitter.emit(
            "transpose", [stored], {"perm": [0, 3, 1, 2]}, f"{name}/to_nchw"
        )
        self.emitter.examples[logical] = example
        return logical

    # -- calls -----------------------------------------------------------------

    def _call(self, node: fx.Node) -> None:
        if node.target is operator.getitem:
            source, index = node.args
            values = self.env.get(source)
            self.env[node] = None if values is None else values[index]
            return
        inputs = [self.env.get(arg) for arg in node.all_input_nodes]
        if any(value is None for value in inputs):
            self.env[node] = None  # reads what an unsupported node left without value
            return
        example = example_of(node)
        if not all(isinstance(r, torch.Tensor) for r in results_of(example)):
            self.env[node] = self._size_arithmetic(node, example)
            return
        if not isinstance(node.target, torch._ops.OpOverload):
            self._break(node, "not an ATen op")
            return
        kinds = {_kind(value) for value in inputs}
        if "runtime" in kinds:
            self._convert(node)
        elif kinds & {"host", "size"}:
            self._host_only(node, example)
        elif _deterministic(node) and not _over_budget(node, example):
            self._fold(node)
        else:
            self._convert(node)

    def _size_arithmetic(self, node: fx.Node, example: Any) -> Any:
        """A size computed from sizes (`s0 * s1`, `sym_size`): its example, or
        its value when it is known."""
        if not is_symbolic(example):
            return size_value(example)
        if free_symbols(example) - set(self.host.symbols):
            return self._break(node, "a size that depends on tensor data")
        return example

    def _host_only(self, node: fx.Node, example: Any) -> None:
        """A node computed from sizes only: `ge` ops for a floating-point
        result its converter expresses, else a host value."""
        if example.dtype.is_floating_point and self._convert(node, quiet=True):
            return
        if not _deterministic(node):
            self._break(node, "a nondeterministic op")
        elif isinstance(example_of(node), tuple | list):
            self._break(node, "an op with several results on sizes only")
        else:
            self.env[node] = HostValue.of_node(node)

    def _fold(self, node: fx.Node) -> None:
        """A node on constants only: its ATen op runs now, on the host."""

        def argument(arg: Any) -> Any:
            if not isinstance(arg, fx.Node):
                return arg
            value = self.env[arg]
            return to_torch(value) if isinstance(value, np.ndarray) else value

        args, kwargs = fx.node.map_aggregate((node.args, node.kwargs), argument)
        result = node.target(*args, **kwargs)
        values = [to_numpy(r) for r in results_of(result)]
        self.env[node] = values if isinstance(result, tuple | list) else values[0]
        sources = [self.env[a] for a in node.all_input_nodes]
        named = [self.emitter.value_names.get(id(v)) for v in sources]
        prefix = next((name for name in named if name), None)
        for index, value in enumerate(values):  # a weight folded: "fc.weight/t"
            suffix = node.name if len(values) == 1 else f"{node.name}:{index}"
            self.emitter.name_array(value, f"{prefix}/{suffix}" if prefix else suffix)

    def _convert(self, node: fx.Node, *, quiet: bool = False) -> bool:
        """Emit `node` through its converter (with `quiet`, only try: on
        failure, no graph break is recorded); whether it converted."""
        converter = self.converters.get(op_label(node)) or self.converters.get(
            str(node.target.overloadpacket)
        )
        if converter is None:
            return not quiet and self._break(node, "no converter")
        arguments = fx.node.map_aggregate(
            bind_arguments(node), lambda a: self.env[a] if isinstance(a, fx.Node) else a
        )
        tensors = [self.env[a] for a in node.all_input_nodes]
        context = TorchNodeContext(
            tensors, _outputs_used(node), self.emitter, node=node, arguments=arguments
        )
        checkpoint = self.emitter.checkpoint()
        try:
            values = results_of(converter(context))
            self._check_results(context, values)
        except (Unsupported, *CONVERSION_ERRORS) as error:
            self.emitter.rollback(checkpoint)
            return not quiet and self._break(node, one_line(error))
        example = example_of(node)
        self.env[node] = values if isinstance(example, tuple | list) else values[0]
        return True

    def _check_results(self, context: TorchNodeContext, values: list[Any]) -> None:
        """Each used result has eager's dtype and known dims (ValueError if
        not: a converter's mistake is a graph break, never a wrong result)."""
        expected = results_of(example_of(context.node))
        if len(values) < len(expected):
            raise ValueError(f"{len(values)} results, eager has {len(expected)}")
        for index, (used, want, value) in enumerate(
            zip(context.outputs_used, expected, values, strict=False)
        ):
            if not used:
                continue
            if isinstance(value, SSAValue):
                shape = [-1 if d < 0 else d for d in value.type.get_shape()]
                dtype = element_dtype_name(value.type.element_type)
                self.emitter.examples[value] = want
            else:
                got = context.example_of(value)
                shape = [static_dim(d) for d in got.shape]
                dtype = dtype_name(got.dtype)
            wanted = [static_dim(d) for d in want.shape]
            if len(shape) != len(wanted) or any(
                g != w and -1 not in (g, w) for g, w in zip(shape, wanted, strict=True)
            ):
                raise ValueError(
                    f"result #{index} has shape {shape}, eager's has {wanted}"
                )
            if dtype != dtype_name(want.dtype):
                raise ValueError(
                    f"result #{index} is {dtype}, eager's is {dtype_name(want.dtype)}"
                )

    def _break(self, node: fx.Node, reason: str) -> bool:
        """Record an unsupported node; its tensor results become stand-in
        graph inputs (so the import goes on). False."""
        self.unsupported[node] = f"{op_label(node)}: {reason}"
        stand_ins = [
            self.emitter.graph_input(t, f"break/{node.name}", Feed())
            if isinstance(t, torch.Tensor) and t.dtype in TORCH_DTYPES
            else None
            for t in results_of(example_of(node))
        ]
        example = example_of(node)
        self.env[node] = (
            stand_ins if isinstance(example, tuple | list) else stand_ins[0]
        )
        return False

    # -- outputs ---------------------------------------------------------------

    def _results(
        self, node: fx.Node, outputs: list[Any], names: list[str]
    ) -> list[Result]:
        results = []
        sources = node.args[0]
        for source in sources if isinstance(sources, tuple | list) else [sources]:
            value = self.env.get(source) if isinstance(source, fx.Node) else source
            example = example_of(source) if isinstance(source, fx.Node) else source
            if not isinstance(example, torch.Tensor) or value is None:
                results.append(Result(value=value))
                continue
            results.append(Result(len(outputs), is_channels_last(example)))
            outputs.append(value)
            names.append(source.name)
        return results


def _kind(value: Any) -> str:
    """`runtime`, `host`, `size` (a symbolic one) or `known`, for a value."""
    if isinstance(value, SSAValue):
        return "runtime"
    if isinstance(value, HostValue):
        return "host"
    return "size" if is_symbolic(value) else "known"


def _deterministic(node: fx.Node) -> bool:
    return torch.Tag.nondeterministic_seeded not in node.target.tags


def _over_budget(node: fx.Node, example: Any) -> bool:
    """Whether folding `node` would make a result over the memory budget."""
    return any(
        over_budget(tensor_bytes(tuple(t.shape), t.element_size()), node.name)
        is not None
        for t in results_of(example)
    )


def _outputs_used(node: fx.Node) -> list[bool]:
    """Which results of `node` are read (through `getitem` for tuples)."""
    example = example_of(node)
    if not isinstance(example, tuple | list):
        return [True]
    used = [False] * len(example)
    for user in node.users:
        if user.target is operator.getitem:
            used[user.args[1]] = True
    return used
