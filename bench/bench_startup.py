"""Start-up cost: a bare `ge-opt` against `xdsl-opt` on an empty module.

    python bench/bench_startup.py [--rounds 15]

Both drivers run from this interpreter's `bin/` (no version-manager shims) on
`builtin.module {}`, interleaved round by round; each run's CPU time (user +
system of the child) is measured, and the medians and their ratio are printed
with the load average. The project's budget is a ratio of at most 1.2.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
TOOLS = ("xdsl-opt", "ge-opt")


def child_cpu_seconds(command: list[str]) -> float:
    """The CPU seconds (user + system) one run of `command` takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds: int) -> dict[str, float]:
    """Median CPU seconds of each tool over `rounds` interleaved runs."""
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.mlir"
        empty.write_text("builtin.module {}\n")
        samples: dict[str, list[float]] = {tool: [] for tool in TOOLS}
        for _ in range(rounds):
            for tool in TOOLS:
                samples[tool].append(child_cpu_seconds([str(BIN / tool), str(empty)]))
    return {tool: statistics.median(times) for tool, times in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    medians = measure(args.rounds)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"cpus {os.cpu_count()}, load average {load}, {args.rounds} rounds")
    for tool, seconds in medians.items():
        print(f"{tool:9s} median CPU {seconds:.3f} s")
    print(f"ge-opt / xdsl-opt: {medians['ge-opt'] / medians['xdsl-opt']:.2f}")


if __name__ == "__main__":
    main()
