"""Start-up: a bare `ge-opt` imports no more than `xdsl-opt` needs.

The heavy parts (NumPy, the op definitions, the passes) load only when a
module uses them; the CPU time of `ge-opt` on an empty module stays within
1.2x that of `xdsl-opt` (`bench/bench_startup.py` prints the numbers; the
timed test is `slow`: it fails on a busy machine, the import test does not).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

LOADED = """
import sys
from tools.ge_opt import main
code = main([sys.argv[1]])
print(code, *sorted(sys.modules))
"""


def loaded_modules(*tool_args: str) -> tuple[int, set[str]]:
    result = subprocess.run(
        [sys.executable, "-c", LOADED, *tool_args],
        capture_output=True,
        text=True,
        check=True,
    )
    code, *modules = result.stdout.strip().splitlines()[-1].split()
    return int(code), set(modules)


def test_bare_ge_opt_loads_no_numpy_ops_or_passes(tmp_path: Path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    code, modules = loaded_modules(str(empty))
    assert code == 0
    heavy = {
        m
        for m in modules
        if m.split(".")[0] in ("numpy", "ge_runtime", "ge_frontend", "onnx")
        or m.startswith(
            (
                "passes.",
                "ge_dialect.ops",
                "ge_dialect.formats",
                "ge_dialect.targets",
                "ge_dialect.relayout",
            )
        )
    } - {
        "passes.options",  # the pipeline parser: xDSL's and a few lines
        "passes.universe",  # the xDSL universe entry point: names, lazy loaders
    }
    assert not heavy, sorted(heavy)


@pytest.mark.slow  # a timing: on a busy machine it measures the machine
def test_ge_opt_cpu_time_is_within_1_2_of_xdsl_opt():
    """What the import test above keeps true, timed (`-m slow`, or
    `bench/bench_startup.py`): the default run asserts no timings."""
    spec = importlib.util.spec_from_file_location(
        "bench_startup", ROOT / "bench" / "bench_startup.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    medians = bench.measure(rounds=5)
    assert medians["ge-opt"] <= 1.2 * medians["xdsl-opt"], medians
