"""The performance engine: time an op's candidate kernels once, keep the fastest.

As InfiniTensor's `PerfEngine`: the first time the runtime meets an op
*signature* (op name, attributes, and per operand and result its origin
shape, dtype and formats), every candidate kernel runs on the real inputs
into scratch outputs: once to warm up, then `repeats` rounds that run each
candidate in turn (so a change in machine load hits all of them alike),
and the candidate with the best time is recorded — but the default
kernel (the registry's first) is kept unless another beats it by more than
`margin` (default 5 %), so timing noise never trades the default for a
kernel that is only faster by chance. Later runs, and later
ops of the same signature, reuse the record without timing; `retune`
measures again. Records live in a JSON file:

```json
{"version": 1,
 "records": {"ge.conv2d(float32[1,64,56,56]NCHW>NC1HWC0, ...)->(...){...}":
             {"kernel": "im2col", "seconds": {"im2col": 0.0041, "jit": 0.035}}}}
```

A candidate that fails while being timed is skipped (its error is kept in
the record); if all fail, the first failure is raised.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import dtype_name
from ge_dialect.files import write_atomically
from ge_dialect.input_files import read_json_file
from ge_dialect.layout import layout_of
from ge_dialect.ops import attribute_to_python
from ge_dialect.schema import Integer, MapOf, Number, Object, String, check_document
from ge_runtime.engines.kernels import KERNEL_ATTRIBUTES_DROPPED, KernelCall, KernelInfo

RECORDS_VERSION = 1
DEFAULT_REPEATS = 5
DEFAULT_MARGIN = 0.05


def _tensor_signature(value: SSAValue) -> str:
    tensor = value.type
    if not isinstance(tensor, TensorType):
        return str(tensor)
    origin, storage = layout_of(tensor)
    shape = ",".join(map(str, tensor.get_shape()))
    return f"{dtype_name(tensor.element_type)}[{shape}]{origin.value}>{storage.value}"


def op_signature(op: Operation) -> str:
    """The record key of an op: name, operand and result tensors, attributes."""
    operands = ", ".join(_tensor_signature(v) for v in op.operands)
    results = ", ".join(_tensor_signature(v) for v in op.results)
    attributes = {
        name: attribute_to_python(attr)
        for name, attr in sorted(op.attributes.items())
        if name not in KERNEL_ATTRIBUTES_DROPPED
    }
    text = json.dumps(attributes, sort_keys=True, default=str)
    return f"{op.name}({operands})->({results}){text}"


@dataclass
class TuningRecord:
    """The fastest kernel of one signature and what each candidate took."""

    kernel: str
    seconds: dict[str, float]
    failures: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The record as JSON values (failed candidates: their error)."""
        entry: dict[str, Any] = {"kernel": self.kernel, "seconds": self.seconds}
        if self.failures:
            entry["failures"] = self.failures
        return entry


@dataclass
class PerfEngine:
    """Picks a kernel per op signature by timing, remembering the winners.

    `path` (optional) is the JSON record file, read at creation and written
    by `save`; `retune` ignores existing records; `timed` lists the
    signatures measured by this engine (`reused` those answered from records).
    A kernel other than the default must be faster by more than `margin`
    (a fraction of the default's time) to be chosen.
    """

    path: str | os.PathLike[str] | None = None
    retune: bool = False
    repeats: int = DEFAULT_REPEATS
    margin: float = DEFAULT_MARGIN
    records: dict[str, TuningRecord] = field(default_factory=dict)
    timed: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    _unsaved: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.path is not None and Path(self.path).exists():
            self.records = load_records(self.path)

    def choose(
        self,
        op: Operation,
        candidates: Sequence[KernelInfo],
        make_call: Callable[[], KernelCall],
    ) -> KernelInfo:
        """The kernel for `op`: from the records, else timed now and recorded."""
        key = op_signature(op)
        by_name = {k.name: k for k in candidates}
        record = self.records.get(key)
        if record is not None and key in self.timed:
            return by_name[record.kernel]
        if not self.retune and record is not None and record.kernel in by_name:
            self.reused.append(key)
            return by_name[record.kernel]
        record = self._measure(op, candidates, make_call)
        self.records[key] = record
        self.timed.append(key)
        self._unsaved = True
        return by_name[record.kernel]

    def _measure(
        self,
        op: Operation,
        candidates: Sequence[KernelInfo],
        make_call: Callable[[], KernelCall],
    ) -> TuningRecord:
        failures: dict[str, Exception] = {}
        calls: dict[str, tuple[KernelInfo, KernelCall]] = {}
        for kernel in candidates:  # warm up: JIT compilation, caches
            call = make_call()
            try:
                kernel.function(call)
            except Exception as error:  # a failing candidate is skipped
                failures[kernel.name] = error
                continue
            calls[kernel.name] = (kernel, call)
        seconds = {name: math.inf for name in calls}
        for _ in range(self.repeats):  # interleaved: load changes hit all alike
            for name, (kernel, call) in calls.items():
                start = time.perf_counter()
                kernel.function(call)
                seconds[name] = min(seconds[name], time.perf_counter() - start)
        if not seconds:
            name, error = next(iter(failures.items()))
            if isinstance(error, GEError):
                raise error
            raise GEError(f"error: kernel '{name}' of '{op.name}' failed: {error}")
        default = next(iter(seconds))  # candidates come default first
        fastest = min(seconds, key=seconds.__getitem__)
        if seconds[fastest] >= seconds[default] * (1 - self.margin):
            fastest = default
        return TuningRecord(
            fastest, seconds, {name: str(e) for name, e in failures.items()}
        )

    def save(self) -> None:
        """Write the records to `path` (atomically) if some were measured."""
        if self.path is not None and self._unsaved:
            save_records(self.path, self.records)
            self._unsaved = False


def load_records(path: str | os.PathLike[str]) -> dict[str, TuningRecord]:
    """The records of a tuning file (GEError if it is not one)."""
    data = read_json_file(path, "tuning record file")
    check_document(RECORDS_SCHEMA, data, os.fspath(path), "tuning record file")
    return {
        key: TuningRecord(
            entry["kernel"],
            {k: float(v) for k, v in entry["seconds"].items()},
            dict(entry.get("failures", {})),
        )
        for key, entry in data["records"].items()
    }


RECORDS_SCHEMA = Object(
    {
        "version": Integer(RECORDS_VERSION, RECORDS_VERSION),
        "records": MapOf(
            Object(
                {
                    "kernel": String(),
                    "seconds": MapOf(Number()),
                    "failures": MapOf(String()),
                },
                optional={"failures"},
            )
        ),
    }
)
"""What a tuning record file holds."""


def save_records(
    path: str | os.PathLike[str], records: dict[str, TuningRecord]
) -> None:
    """Write tuning records as JSON (keys sorted, one file, atomically)."""
    data = {
        "version": RECORDS_VERSION,
        "records": {key: records[key].as_json() for key in sorted(records)},
    }
    write_atomically(path, json.dumps(data, indent=1) + "\n")
