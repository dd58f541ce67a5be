"""`torch.compile(model, backend="ge")`: PyTorch's graphs compiled and run by GE-xDSL.

GE's online scenario (TorchAir): the framework hands GE graphs whose tensors
carry no formats; GE infers the origin formats from its anchors, picks the
storage formats, compiles and runs. Here:

```python
compiled = torch.compile(model, backend="ge")      # found by its entry point
compiled = torch.compile(model, backend="ge", dynamic=True,
                         options={"soc_version": "Ascend910"})
y = compiled(x)                                    # the first call compiles
```

1. **Capture.** TorchDynamo traces the Python code into FX graphs;
   aot_autograd turns each into a functional graph of ATen ops, decomposing
   to core ATen only the ops `ge_frontend.torch_ops` has no converter for
   (`decomposition_table`).
2. **Import** (`ge_frontend.torch_fx`): placeholders that are parameters or
   buffers (aot_autograd's static inputs that the graph does not mutate)
   become weights; the others are `ge.data` inputs; symbolic sizes are `?`.
3. **Graph breaks.** ATen nodes `ge` cannot express are left to eager
   PyTorch: torch's capability-based partitioner splits the graph into `ge`
   partitions and those nodes, each logged once (`graph break at node 'n':
   aten.op.overload why; eager PyTorch runs it`) and recorded in
   `STATS.graph_breaks`; `explain` adds them to TorchDynamo's explanation.
4. **Compile**: ge-atc's chain (graph fusion, constant folding, the format
   pipeline, UB fusion, engines with `mark-fallback`, memory planning) with
   the options, the weights laid out once.
5. **Run** through `ge_runtime.engines.scheduler.compile_model` (ge-run's JIT path):
   static shapes sink the graph (one JIT call, its weights packed at the
   first run); symbolic sizes run under host scheduling, op by op with a
   kernel JIT-compiled per shape (`KernelCache`, bounded) and fallback
   dispatch for the ops `mark-fallback` marks (it logs `<name>, setting
   fallback attribute`).

Recompiles are TorchDynamo's (a guard fails: a new shape with
`dynamic=False`, a size of 1, a dtype), each counted in `STATS.compiles`
and bounded per frame by `torch._dynamo.config.recompile_limit`. A
parameter replaced or changed in place after compiling is noticed (its
identity and version counter) and the graph compiled again
(`STATS.rebuilds`). Training works the same way: aot_autograd's forward
and backward graphs are both compiled (the backward's ops that have no
converter are graph breaks).
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import traceback
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx

from ge_dialect.diagnostics import GEError
from ge_dialect.targets import PRECISION_MODES
from ge_frontend.torch_fx import FxGraphImport, import_fx_graph, op_label, to_torch
from ge_frontend.torch_ops import decomposition_table

LOG = logging.getLogger("ge_xdsl.torch")

BACKEND_NAME = "ge"
"""The name `torch.compile(..., backend=...)` finds this backend by."""


@dataclass(frozen=True)
class BackendOptions:
    """`torch.compile(..., options={...})` for the `ge` backend (ATC's names)."""

    soc_version: str | None = None
    """The target SoC (`Ascend910`, ...: `ge_dialect/data/targets`)."""
    precision_mode: str | None = None
    """ATC's `--precision_mode` (`select-precision`: ge-atc's modes); None
    keeps every op in the graph's dtypes."""
    fusion: bool = True
    """Graph and UB fusion (all rules; ATC's `--disable-fusion` when off)."""
    auto_cast_mode: int = 1
    """ATC's `--auto_cast_mode`: casts around AI CPU ops lacking a dtype (on:
    an online graph cannot be exported again in other dtypes)."""

    @classmethod
    def parse(cls, options: Mapping[str, Any] | None) -> BackendOptions:
        """Validated options (a one-line GEError naming a bad one)."""
        options = dict(options or {})
        for name, value in options.items():
            if name not in OPTION_TYPES:
                raise GEError(
                    f"error: unknown ge backend option '{name}' (options: "
                    f"{', '.join(sorted(OPTION_TYPES))})"
                )
            wanted = OPTION_TYPES[name]
            if (
                not isinstance(value, wanted)
                or (isinstance(value, bool) and wanted is int)  # True is an int
                or (name == "auto_cast_mode" and value not in (0, 1))
            ):
                raise GEError(f"error: bad value {value!r} for option '{name}'")
        parsed = cls(**options)
        if parsed.soc_version is not None:
            from ge_dialect.formats import FormatError
            from ge_dialect.targets import get_target

            try:
                get_target(parsed.soc_version)
            except FormatError as error:
                raise GEError(f"error: soc_version: {error}") from None
        if (
            parsed.precision_mode is not None
            and parsed.precision_mode not in PRECISION_MODES
        ):
            raise GEError(
                f"error: precision_mode '{parsed.precision_mode}' is not "
                f"supported (modes: {', '.join(PRECISION_MODES)})"
            )
        return parsed


OPTION_TYPES: dict[str, type | tuple[type, ...]] = {
    "soc_version": (str, type(None)),
    "precision_mode": (str, type(None)),
    "fusion": bool,
    "auto_cast_mode": int,
}
"""The type of each option's value."""


@dataclass(frozen=True)
class GraphBreak:
    """An ATen node left to eager PyTorch, and why."""

    op: str
    node: str
    reason: str
    stack: str | None = None
    """The user code that produced the node (torch's `stack_trace`)."""


@dataclass
class BackendStats:
    """What the backend did in this process (`reset` forgets it)."""

    compiles: int = 0
    """FX graphs compiled (TorchDynamo's compiles and recompiles)."""
    rebuilds: int = 0
    """Graphs compiled again because a parameter changed after compiling."""
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    compile_seconds: float = 0.0
    _graphs: list[weakref.ref] = field(default_factory=list)

    def graphs(self) -> list[GeGraph]:
        """The `ge` graphs compiled (and still alive), oldest first."""
        return [g for ref in self._graphs if (g := ref()) is not None]

    def reset(self) -> None:
        """Forget everything counted so far."""
        self.__init__()  # type: ignore[misc]


STATS = BackendStats()
"""What the backend did in this process."""


# ---------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------


def ge_backend(
    graph_module: fx.GraphModule,
    example_inputs: Sequence[Any],
    *,
    options: Mapping[str, Any] | None = None,
) -> Callable[..., Any]:
    """The `torch.compile` backend: aot_autograd, then `ge` for each graph."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    parsed = BackendOptions.parse(options)
    real_inputs = list(example_inputs)
    names = source_names(graph_module)

    def compile_forward(gm: fx.GraphModule, fake_inputs: Sequence[Any]) -> Any:
        constants = static_inputs(fake_inputs, real_inputs)
        return make_boxed_func(CompiledGraph.build(gm, constants, names, parsed))

    def compile_backward(gm: fx.GraphModule, fake_inputs: Sequence[Any]) -> Any:
        return make_boxed_func(CompiledGraph.build(gm, {}, {}, parsed))

    return aot_autograd(
        fw_compiler=compile_forward,
        bw_compiler=compile_backward,
        decompositions=decomposition_table(),
    )(graph_module, example_inputs)


def static_inputs(
    fake_inputs: Sequence[Any], real_inputs: Sequence[Any]
) -> dict[int, torch.Tensor]:
    """The forward graph's inputs that are parameters or buffers it does not
    mutate (aot_autograd's static inputs), with their values."""
    from torch._guards import TracingContext

    context = TracingContext.try_get()
    metadata = context.fw_metadata if context is not None else None
    if metadata is None or len(fake_inputs) != len(real_inputs):
        return {}  # not the traced frame's inputs: none is known
    constants = {}
    for index in metadata.static_input_indices:
        info = metadata.input_info[index]
        real, fake = real_inputs[index], fake_inputs[index]
        if info.mutates_data or info.mutates_metadata:
            continue
        if (
            isinstance(real, torch.Tensor)
            and isinstance(fake, torch.Tensor)
            and real.shape == fake.shape
            and real.dtype == fake.dtype
            and real.device.type == "cpu"
        ):
            constants[index] = real
    return constants


def source_names(graph_module: fx.GraphModule) -> dict[int, str]:
    """Placeholder position -> what it is in the user's code, from
    TorchDynamo's sources: a parameter's or buffer's dotted name
    (`blocks.0.conv.weight`), an argument's name (`x`)."""
    containers = ("_modules", "_parameters", "_buffers")
    names = {}
    placeholders = graph_module.graph.find_nodes(op="placeholder")
    for index, node in enumerate(placeholders):
        source = getattr(node, "_dynamo_source", None)
        parts: list[str] = []
        attribute = False
        while source is not None:
            key = getattr(source, "index", getattr(source, "member", None))
            if key in containers:  # a module's attribute: not its root's name
                attribute = True
            elif isinstance(key, int | str):
                parts.append(str(key))  # an int: an element of *args
            elif hasattr(source, "local_name") and not attribute:
                parts.append(source.local_name)
            source = getattr(source, "base", None)
        if parts:
            names[index] = ".".join(reversed(parts))
    return names


# ---------------------------------------------------------------------------
# A compiled FX graph
# ---------------------------------------------------------------------------


@dataclass
class CompiledGraph:
    """An aot_autograd graph compiled by `ge` (one graph, or `ge` partitions
    around its graph breaks), compiled again if its parameters change."""

    graph_module: fx.GraphModule
    constants: dict[int, torch.Tensor]
    names: dict[int, str]
    options: BackendOptions
    runner: Callable[[Sequence[Any]], list[Any]] | None = None
    versions: dict[int, int] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        graph_module: fx.GraphModule,
        constants: dict[int, torch.Tensor],
        names: dict[int, str],
        options: BackendOptions,
    ) -> CompiledGraph:
        """Import and compile `graph_module` (counted in `STATS.compiles`)."""
        compiled = cls(graph_module, constants, names, options)
        STATS.compiles += 1
        compiled._compile()
        return compiled

    def _compile(self) -> None:
        start = time.perf_counter()
        with _real_tensors():
            self.runner = compile_partitions(
                self.graph_module, self.constants, self.names, self.options
            )
        self.versions = {i: t._version for i, t in self.constants.items()}
        STATS.compile_seconds += time.perf_counter() - start

    def __call__(self, *args: Any) -> list[Any]:
        """The graph's outputs for a call's arguments."""
        if any(
            args[i] is not tensor or tensor._version != self.versions[i]
            for i, tensor in self.constants.items()
        ):
            LOG.info("a parameter changed since compiling: compiling again")
            self.constants = {i: args[i] for i in self.constants}
            STATS.rebuilds += 1
            self._compile()
        assert self.runner is not None
        return self.runner(args)


def compile_partitions(
    graph_module: fx.GraphModule,
    constants: Mapping[int, torch.Tensor],
    names: Mapping[int, str],
    options: BackendOptions,
) -> Callable[[Sequence[Any]], list[Any]]:
    """A function of a call's arguments that runs `graph_module`: one `ge`
    graph when every node converts, else `ge` partitions (compiled the same
    way) around the unsupported nodes, which eager PyTorch runs."""
    imported = import_fx_graph(graph_module, constants, names=names)
    if not imported.unsupported:
        return GeGraph(imported, options)
    for node, reason in imported.unsupported.items():
        record_graph_break(node, reason)
    own = {name for name, _ in graph_module.named_children()}  # cond's graphs, ...
    split = split_graph(graph_module, set(imported.unsupported))
    for name, partition in list(split.named_children()):
        if name in own:
            continue
        runner = compile_partitions(
            partition, partition_constants(partition, imported), {}, options
        )
        (output,) = partition.graph.find_nodes(op="output")
        single = not isinstance(output.args[0], tuple | list)
        setattr(split, name, PartitionModule(runner, single))
    return lambda args: list(split(*args))


def record_graph_break(node: fx.Node, reason: str) -> None:
    """Log one line for an unsupported node; remember it in `STATS`."""
    label = op_label(node)
    why = reason.removeprefix(f"{label}: ")
    LOG.warning(
        "graph break at node '%s': %s %s; eager PyTorch runs it", node.name, label, why
    )
    STATS.graph_breaks.append(
        GraphBreak(label, node.name, why, node.meta.get("stack_trace"))
    )


def split_graph(
    graph_module: fx.GraphModule, unsupported: set[fx.Node]
) -> fx.GraphModule:
    """`graph_module` with its other nodes fused (in place) into submodules
    (`fused_0`, ...) around the `unsupported` ones."""
    import operator

    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import OperatorSupportBase

    class Supported(OperatorSupportBase):
        def is_node_supported(self, submodules: Any, node: fx.Node) -> bool:
            if node.target is operator.getitem:
                return node.args[0] not in unsupported
            return node.op == "call_function" and node not in unsupported

    partitioner = CapabilityBasedPartitioner(
        graph_module, Supported(), allows_single_node_partition=True
    )
    return partitioner.fuse_partitions(partitioner.propose_partitions())


def partition_constants(
    partition: fx.GraphModule, imported: FxGraphImport
) -> dict[int, torch.Tensor]:
    """A partition's placeholders that hold import-time values of the whole
    graph (parameters and what was folded from them), by position."""
    known = {
        node.name: value
        for node, value in imported.host.values.items()
        if isinstance(value, np.ndarray)
    }
    placeholders = partition.graph.find_nodes(op="placeholder")
    return {
        index: to_torch(known[node.name])
        for index, node in enumerate(placeholders)
        if node.name in known
    }


class PartitionModule(torch.nn.Module):
    """A `ge` partition inside the split FX module."""

    def __init__(self, runner: Callable[[Sequence[Any]], list[Any]], single: bool):
        super().__init__()
        self.runner = runner
        self.single = single
        """Whether the partition returns one value (not a tuple)."""

    def forward(self, *args: Any) -> Any:
        outputs = self.runner(list(args))
        return outputs[0] if self.single else tuple(outputs)


class GeGraph:
    """One imported graph compiled by ge-atc's chain, run by the scheduler."""

    def __init__(self, imported: FxGraphImport, options: BackendOptions):
        from ge_runtime.engines.scheduler import compile_model
        from ge_xdsl.atc import CompileOptions, compile_module

        self.imported = imported
        model = imported.model
        compiled = compile_module(
            model.module,
            model.weights,
            CompileOptions(
                soc_version=options.soc_version,
                fusion=options.fusion,
                auto_cast_mode=options.auto_cast_mode,
                precision_mode=options.precision_mode,
            ),
            progress=logging.DEBUG,
        )
        weights = {**model.weights, **compiled.weights}
        self.model = compile_model(compiled.module, weights, target=options.soc_version)
        """The scheduled model (`mode`, `describe()`, the last run's `trace`)."""
        STATS._graphs.append(weakref.ref(self))
        LOG.info(
            "compiled a graph of %d inputs: %s",
            len(imported.feeds_by_index),
            self.model.describe(),
        )

    def __call__(self, args: Sequence[Any]) -> list[Any]:
        arrays = self.model.run(self.imported.feeds(args))
        return self.imported.outputs(arrays, args)


@contextlib.contextmanager
def _real_tensors() -> Iterator[None]:
    """Outside any fake-tensor mode (the import runs ATen ops on real values)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():
        yield


# ---------------------------------------------------------------------------
# explain
# ---------------------------------------------------------------------------

FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')
"""A frame of torch's `stack_trace` text."""


def explain(
    model: Callable[..., Any],
    *,
    dynamic: bool | None = None,
    options: Mapping[str, Any] | None = None,
) -> Callable[..., Any]:
    """`torch._dynamo.explain` with the `ge` backend: `explain(model)(*args)`.

    TorchDynamo's `ExplainOutput` of compiling `model` with the `ge` backend:
    its graphs and graph breaks, and the `ge` graph breaks added to
    `break_reasons` (`ge: aten.op at node 'n': why`, at the user's line) and
    `graph_break_count`.
    """

    def inner(*args: Any, **kwargs: Any) -> Any:
        from torch._dynamo.backends.debugging import ExplainWithBackend
        from torch._dynamo.output_graph import GraphCompileReason

        torch._dynamo.reset()
        first = len(STATS.graph_breaks)

        def backend(gm: fx.GraphModule, inputs: Sequence[Any]) -> Any:
            return ge_backend(gm, inputs, options=options)

        explainer = ExplainWithBackend(backend)
        torch.compile(model, backend=explainer, dynamic=dynamic)(*args, **kwargs)
        output = explainer.output()
        for graph_break in STATS.graph_breaks[first:]:
            reason = (
                f"ge: {graph_break.op} at node '{graph_break.node}': "
                f"{graph_break.reason}"
            )
            output.break_reasons.append(
                GraphCompileReason(reason, _user_frames(graph_break))
            )
            output.graph_break_count += 1
        torch._dynamo.reset()
        return output

    return inner


def _user_frames(graph_break: GraphBreak) -> list[traceback.FrameSummary]:
    """The frames of the user code that produced a graph break's node."""
    frames = [
        traceback.FrameSummary(m["file"], int(m["line"]), m["name"])
        for m in FRAME.finditer(graph_break.stack or "")
    ]
    return frames or [traceback.FrameSummary("<ge>", 0, graph_break.node)]
