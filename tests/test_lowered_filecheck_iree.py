"""Every loop module the FileCheck tests lower is valid upstream MLIR.

Each `RUN:` line of `tests/filecheck` whose first command is a `ge-opt` run
(not under `not`) that includes `convert-ge-to-loops` is run again here, and
its output is verified by `iree-opt` (an upstream-MLIR verifier): control
flow, constants, fused groups, memory plans and the fuzzer's regressions
included. New lowering tests are covered without being listed.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from test_lowering import iree_opt

from tools import ge_opt

FILECHECK = Path(__file__).parent / "filecheck"
LOWERING_PASS = "convert-ge-to-loops"


def run_lines(path: Path) -> list[str]:
    """The file's RUN commands (continuation lines joined)."""
    commands: list[str] = []
    pending = ""
    for line in path.read_text().splitlines():
        match = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if match is None:
            continue
        text = match.group(1)
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    return commands


def lowering_commands(path: Path) -> list[list[str]]:
    """The `ge-opt ... convert-ge-to-loops ...` argument lists of a file's RUN
    lines (`-o FILE` dropped: the module goes to stdout)."""
    found = []
    for command in run_lines(path):
        first = command.split("|")[0]
        words = shlex.split(first)
        if not words or words[0] != "ge-opt" or LOWERING_PASS not in first:
            continue
        args: list[str] = []
        skip = False
        for word in words[1:]:
            if skip:
                skip = False
            elif word == "-o":
                skip = True
            elif word.startswith(("2>", ">")):
                break
            else:
                args.append(
                    word.replace("%s", str(path)).replace(
                        "%inputs", str(FILECHECK / "inputs")
                    )
                )
        if all("%t" not in arg for arg in args):
            found.append(args)
    return found


LOWERED_TESTS = sorted(
    (str(path.relative_to(FILECHECK)), args)
    for path in FILECHECK.rglob("*.mlir")
    if not {"inputs", "plugins", "Output"} & set(path.relative_to(FILECHECK).parts)
    for args in lowering_commands(path)
)


def test_lowering_tests_are_found():
    """The collection sees the lowering tests (not an empty parametrisation)."""
    files = {name for name, _ in LOWERED_TESTS}
    assert "convert-ge-to-loops/control_flow.mlir" in files
    assert "convert-ge-to-loops/nn.mlir" in files
    assert len(files) >= 10


@pytest.mark.parametrize(
    ("name", "args"),
    LOWERED_TESTS,
    ids=[f"{n}:{' '.join(a)}" for n, a in LOWERED_TESTS],
)
def test_lowered_filecheck_module_verifies_with_iree_opt(name, args):
    """The RUN line's loop module parses and verifies in upstream MLIR."""
    binary = iree_opt()
    if binary is None:
        pytest.skip("iree-base-compiler is not installed")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ge_opt.main(args)
    assert code == 0, err.getvalue()
    assert "func.func" in out.getvalue()
    split = ["--split-input-file"] if "--split-input-file" in args else []
    verified = subprocess.run(
        [binary, "--verify-each", *split, "-o", "/dev/null", "-"],
        input=out.getvalue(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stderr
