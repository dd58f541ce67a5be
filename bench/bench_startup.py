"""Start-up cost: a bare `ge-opt` against `xdsl-opt` on an empty module, and
every tool's `--help` against `xdsl-opt --help`.

    python bench/bench_startup.py [--rounds 15]

The drivers run from this interpreter's `bin/` (no version-manager shims),
interleaved round by round; each run's CPU time (user + system of the child)
is measured, and the medians and their ratios are printed with the load
average. The project's budgets: `ge-opt` on `builtin.module {}` at most 1.2x
`xdsl-opt`, each tool's `--help` at most 1.5x `xdsl-opt --help`.
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
HELP_TOOLS = ("xdsl-opt", "ge-opt", "ge-atc", "ge-translate", "ge-dump-compare")


def median_cpu_seconds(commands: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each command over `rounds` interleaved runs."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            samples[name].append(child_cpu_seconds(command))
    return {name: statistics.median(times) for name, times in samples.items()}


def child_cpu_seconds(command: list[str]) -> float:
    """The CPU seconds (user + system) one run of `command` takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds: int) -> dict[str, float]:
    """Median CPU seconds of each tool on an empty module."""
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.mlir"
        empty.write_text("builtin.module {}\n")
        commands = {tool: [str(BIN / tool), str(empty)] for tool in TOOLS}
        return median_cpu_seconds(commands, rounds)


def measure_help(rounds: int) -> dict[str, float]:
    """Median CPU seconds of each tool's `--help`."""
    commands = {tool: [str(BIN / tool), "--help"] for tool in HELP_TOOLS}
    return median_cpu_seconds(commands, rounds)


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
    helps = measure_help(args.rounds)
    for tool, seconds in helps.items():
        ratio = seconds / helps["xdsl-opt"]
        print(f"{tool + ' --help':25s} median CPU {seconds:.3f} s ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
