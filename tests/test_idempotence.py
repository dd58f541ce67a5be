"""Idempotence: on every lit input, a second run changes nothing.

Every `// -----` chunk of every FileCheck input (`tests/filecheck/**/*.mlir`)
that parses and verifies is compiled, and then compiled again:

- `ge-format-pipeline` (SPEC §4 steps 2-7), with the default options and
  with `spread=false target=Ascend910`: the second run must print the same
  IR (a chunk the first run rejects with a one-line error is an error test
  and is left out);
- `fuse-ops` right after the pipeline, as `ge-atc` runs it;
- `ge-atc`'s whole compile chain (`ge_xdsl.atc.compile_module`), then each
  stage after which nothing restructures the graph again
  (`partition-engines`, `mark-fallback`, `plan-memory`) once more.

(The chain as a whole is not run twice: `ge-atc` never compiles its own
output, and passes before partitioning see different neighbours inside the
engine subgraphs it creates.)
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from ge_dialect.diagnostics import GEError
from ge_dialect.dialect import make_context
from ge_dialect.parsing import parse_module
from ge_xdsl.atc import CompileOptions, compile_module
from passes import get_all_passes
from passes.format_pipeline import FormatPipelinePass

FILECHECK = Path(__file__).parent / "filecheck"
LIT_INPUTS = sorted(
    path for path in FILECHECK.rglob("*.mlir") if "Output" not in path.parts
)
PIPELINE_OPTIONS = ({}, {"spread": False, "target": "Ascend910"})
RERUN_AFTER_COMPILE = ("partition-engines", "mark-fallback", "plan-memory")


def printed(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def valid_chunks(path: Path) -> list[tuple[int, str]]:
    """The (number, text) of each chunk of `path` that parses and verifies."""
    chunks = []
    for number, text in enumerate(path.read_text().split("\n// -----\n")):
        try:
            parse_module(make_context(), text, str(path))
        except GEError:
            continue  # an error test (the bad-input corpus covers those)
        chunks.append((number, text))
    return chunks


def module_of(path: Path, text: str) -> ModuleOp:
    return parse_module(make_context(), text, str(path))


def run_pass(name: str, module: ModuleOp, **options: object) -> None:
    get_all_passes()[name]()(**options).apply(make_context(), module)


def assert_second_run_changes_nothing(
    where: str, module: ModuleOp, again: Callable[[ModuleOp], None]
) -> None:
    once = printed(module)
    again(module)
    assert printed(module) == once, f"{where}: a second run changed the IR"


def compiles(module: ModuleOp, first: Callable[[ModuleOp], None]) -> bool:
    """Run `first`; False if it rejects the chunk with a one-line error."""
    try:
        first(module)
    except GEError:
        return False
    return True


@pytest.mark.parametrize(
    "path", LIT_INPUTS, ids=lambda p: str(p.relative_to(FILECHECK))
)
def test_format_pipeline_is_idempotent(path: Path):
    for number, text in valid_chunks(path):
        for options in PIPELINE_OPTIONS:
            pipeline = FormatPipelinePass(**options)  # type: ignore[arg-type]
            module = module_of(path, text)
            if not compiles(module, partial(pipeline.apply, make_context())):
                continue
            where = f"{path.name} chunk {number} {options}"
            assert_second_run_changes_nothing(
                where, module, partial(pipeline.apply, make_context())
            )
            run_pass("fuse-ops", module)
            assert_second_run_changes_nothing(
                f"{where} fuse-ops", module, lambda m: run_pass("fuse-ops", m)
            )


def compile_chain(module: ModuleOp) -> None:
    compile_module(module, {}, CompileOptions(), progress=logging.DEBUG)


@pytest.mark.parametrize(
    "path", LIT_INPUTS, ids=lambda p: str(p.relative_to(FILECHECK))
)
def test_compile_stages_are_idempotent(path: Path):
    for number, text in valid_chunks(path):
        module = module_of(path, text)
        if not compiles(module, compile_chain):
            continue
        for name in RERUN_AFTER_COMPILE:
            assert_second_run_changes_nothing(
                f"{path.name} chunk {number}: {name}",
                module,
                lambda m, name=name: run_pass(name, m),
            )


def test_most_lit_inputs_take_part():
    """The checks above are not vacuous: most valid chunks compile."""
    compiled = total = 0
    for path in LIT_INPUTS[::8]:  # a sample keeps this test fast
        for _, text in valid_chunks(path):
            total += 1
            compiled += compiles(module_of(path, text), compile_chain)
    assert total >= 25 and compiled >= 0.8 * total
