"""Start-up: a bare `ge-opt` imports no more than `xdsl-opt` needs, and no
tool's `--help` imports the compiler.

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
from importlib import import_module
main = import_module(sys.argv[1]).main
code = main(sys.argv[2:])
print(code, *sorted(sys.modules))
"""


def loaded_modules(*tool_args: str, tool: str = "tools.ge_opt") -> tuple[int, set[str]]:
    result = subprocess.run(
        [sys.executable, "-c", LOADED, tool, *tool_args],
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


def startup_bench():
    """`bench/bench_startup.py` as a module."""
    spec = importlib.util.spec_from_file_location(
        "bench_startup", ROOT / "bench" / "bench_startup.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.parametrize(
    "tool", ["ge_opt", "ge_atc", "ge_translate", "ge_dump_compare", "ge_run"]
)
def test_help_imports_no_pass_op_front_end_or_compiler(tool: str):
    """`--help` reads a generated table of the passes (`passes.pass_help`)
    and ATC's vocabulary (`ge_xdsl.atc_flags`), not the modules behind them."""
    code, modules = loaded_modules("--help", tool=f"tools.{tool}")
    assert code == 0
    heavy = {
        m
        for m in modules
        if m.split(".")[0] in ("ge_frontend", "onnx", "ml_dtypes", "scipy")
        or m.startswith(("passes.", "ge_dialect.ops", "ge_dialect.formats"))
        or m.startswith(("ge_xdsl.atc", "ge_runtime."))
        and m not in LIGHT
    } - {"passes.options", "passes.universe"}
    assert not heavy, sorted(heavy)


LIGHT = {"ge_xdsl.atc_flags", "ge_runtime.engines", "ge_runtime.engines.compare"}
"""The two modules `--help` reads defaults from (data, and NumPy at most)."""


@pytest.mark.slow  # a timing: on a busy machine it measures the machine
def test_ge_opt_cpu_time_is_within_1_2_of_xdsl_opt():
    """What the import test above keeps true, timed (`-m slow`, or
    `bench/bench_startup.py`): the default run asserts no timings."""
    bench = startup_bench()
    medians = bench.measure(rounds=5)
    assert medians["ge-opt"] <= 1.2 * medians["xdsl-opt"], medians


@pytest.mark.slow  # a timing: on a busy machine it measures the machine
def test_every_help_cpu_time_is_within_1_5_of_xdsl_opt_help():
    bench = startup_bench()
    medians = bench.measure_help(rounds=5)
    assert all(t <= 1.5 * medians["xdsl-opt"] for t in medians.values()), medians
