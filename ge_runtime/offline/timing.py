"""Timing tables: per op type for the runtime, per pass for the compilers.

`Profiler` is what InfiniTensor's runtime prints with profiling on: per op
type, how many ops ran, their total time, its share of the whole and the
average per op (`ge-run --profile`):

```
op type                           count    total ms   share    avg ms
ge.conv2d                            53     812.403   71.2%    15.328
...
total                               231    1140.962  100.0%     4.939
```

`PassTimer` does the same per compiler pass for `--time-passes` (`ge-opt`,
`ge-atc`): it is called after each pass with the pass that just ran, and a
pass that runs several times (the optimisation rounds) adds up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class TimeTable:
    """Total seconds and count per name, in first-seen order."""

    totals: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def record(self, name: str, seconds: float) -> None:
        """Add one timed run of `name`."""
        self.totals[name] = self.totals.get(name, 0.0) + seconds
        self.counts[name] = self.counts.get(name, 0) + 1

    @property
    def total(self) -> float:
        """Seconds over every name."""
        return sum(self.totals.values())

    def rows(self) -> list[tuple[str, int, float, float, float]]:
        """(name, count, total s, share, average s), slowest name first."""
        total = self.total or 1.0
        return [
            (
                name,
                self.counts[name],
                seconds,
                seconds / total,
                seconds / self.counts[name],
            )
            for name, seconds in sorted(self.totals.items(), key=lambda kv: -kv[1])
        ]

    def table(self, what: str) -> list[str]:
        """The table as lines: header, one row per name, then the total."""
        lines = [f"{what:<32} {'count':>6} {'total ms':>11} {'share':>7} {'avg ms':>9}"]
        for name, count, seconds, share, average in self.rows():
            lines.append(_row(name, count, seconds, share, average))
        count = sum(self.counts.values())
        average = self.total / count if count else 0.0
        lines.append(_row("total", count, self.total, 1.0, average))
        return lines


def _row(name: str, count: int, seconds: float, share: float, average: float) -> str:
    return (
        f"{name:<32} {count:>6} {seconds * 1e3:>11.3f} {share:>7.1%} "
        f"{average * 1e3:>9.3f}"
    )


@dataclass
class Profiler(TimeTable):
    """Per op type (or step, `subject`): count, total time, share, average
    (`ge-run --profile`)."""

    subject: str = "op type"

    def lines(self) -> list[str]:
        """The profile table."""
        return self.table(self.subject)


@dataclass
class PassTimer(TimeTable):
    """Per pass wall time, fed by a pass pipeline's between-passes callback.

    Call `start()` before the first pass and `lap(name)` after each pass
    (the time since the previous mark is that pass's). Work done between
    passes (verification, dumps) is left out with `mark()`.
    """

    clock: Callable[[], float] = time.perf_counter
    _last: float | None = None

    def start(self) -> None:
        """Start timing (the next `lap` measures from here)."""
        self._last = self.clock()

    mark = start

    def lap(self, name: str) -> None:
        """Record the time since the last mark as one run of pass `name`."""
        now = self.clock()
        if self._last is not None:
            self.record(name, now - self._last)
        self._last = now

    def lines(self) -> list[str]:
        """The pass timing table."""
        return self.table("pass")
