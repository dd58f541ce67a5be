"""What a zoo model is: how it is built, its inputs and outputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

EXPORTERS = ("dynamo", "torchscript")
OPSETS = {"dynamo": 18, "torchscript": 17}
"""The opset each exporter writes. The dynamo exporter implements opset 18
and up; asked for 17 it runs onnx's version converter, which writes nodes
opset 17 does not define (`Split` with `num_outputs`, `ReduceMean` with
`noop_with_empty_axes`), so it exports at 18."""


@dataclass(frozen=True)
class InputSpec:
    """One model input: its name, shape (without the batch dim when
    `batched`), and how to sample it: `normal` floats, `tokens` ids below
    `high`, a padding `mask` of ones whose row b has its last 2*(b mod 3)
    entries zero, or `fill`: every element `high`."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    kind: str = "normal"
    high: int = 0
    batched: bool = True


@dataclass(frozen=True)
class ZooModel:
    """A model of the zoo: how to build it, its inputs and output names."""

    name: str
    build: Callable[[], object]
    inputs: tuple[InputSpec, ...]
    outputs: tuple[str, ...]
    exporters: tuple[str, ...] = EXPORTERS
    tiny: bool = False
    """Fast enough (export, compile and run) for the default test run."""
    sequence_axes: tuple[tuple[str, int], ...] = ()
    """(input or output name, axis): the sequence-length dims, symbolic in
    exports with `dynamic_sequence`."""
