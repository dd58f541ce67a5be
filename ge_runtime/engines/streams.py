"""Multi-stream execution of a stream plan (`passes.stream_planning`).

`StreamRuntime` is the kernel runtime (`ge_runtime.engines.executor`) with one
thread per stream: NumPy releases the GIL inside BLAS and ufunc loops, so
kernels of different streams overlap. `threading.Event`s are the events.
It checks the plan first and records when each op ran on which stream.

```python
runtime = StreamRuntime(graph, weights)     # after assign-streams, plan-memory
(y,) = runtime.run({"x": x})
for timing in runtime.timings: print(timing.line())
```
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from ge_dialect.diagnostics import GEError
from ge_runtime.engines.executor import Runtime, Step
from passes.stream_planning import check_stream_plan, read_streams

# ---------------------------------------------------------------------------
# The concurrent executor
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpTiming:
    """When an op ran: its stream, start and end (seconds from the run's start)."""

    label: str
    op: Operation
    stream: int
    start: float
    end: float

    def line(self) -> str:
        """`stream 1  0.120 ..  3.450 ms  conv2 ge.conv2d`."""
        return (
            f"stream {self.stream} {1e3 * self.start:9.3f} .. "
            f"{1e3 * self.end:9.3f} ms  {self.label} {self.op.name}"
        )


@dataclass
class StreamRuntime(Runtime):
    """The kernel runtime running each stream on its own thread (see above).

    Its `timings` say what ran where and when; profiling, dumping and
    tuning, which time or write from one thread, stay with `Runtime`.
    """

    timings: list[OpTiming] = field(default_factory=list)
    """What the last run did, by start time."""

    def __post_init__(self) -> None:
        if self.profiler or self.dumper or self.engine:
            raise GEError(
                "error: the stream runtime does not profile, dump or tune "
                "(the kernel runtime does)"
            )
        super().__post_init__()
        plan = read_streams(self.graph)
        self.event_count = 0 if plan is None else plan.events
        self.waits = {} if plan is None else plan.waits
        self.records = {} if plan is None else plan.records
        self.lanes: list[list[Step]] = [[] for _ in range(plan.count if plan else 1)]
        for step in self.steps:
            self.lanes[plan.stream[step.op] if plan else 0].append(step)
        check_stream_plan(self.graph, self.target, self.offsets)

    def _execute_steps(
        self, values: dict[SSAValue, np.ndarray], arena: np.ndarray
    ) -> None:
        """Run the streams concurrently, one thread each, waiting on events."""
        events = [threading.Event() for _ in range(self.event_count)]
        failed = threading.Event()
        timings: list[OpTiming] = []
        origin = time.perf_counter()

        def run_lane(stream: int, lane: list[Step]) -> None:
            try:
                for step in lane:
                    for event in self.waits.get(step.op, ()):
                        events[event].wait()
                    if failed.is_set():
                        return
                    start = time.perf_counter() - origin
                    self._execute(step, values, arena)
                    end = time.perf_counter() - origin
                    timings.append(OpTiming(step.label, step.op, stream, start, end))
                    for event in self.records.get(step.op, ()):
                        events[event].set()
            except BaseException:
                failed.set()
                for event in events:
                    event.set()  # wake every waiting stream; they stop
                raise

        with ThreadPoolExecutor(len(self.lanes), "ge-stream") as pool:
            futures = [
                pool.submit(run_lane, s, lane) for s, lane in enumerate(self.lanes)
            ]
        self.timings = sorted(timings, key=lambda t: (t.start, t.stream))
        for future in futures:
            future.result()  # the failing stream's error
