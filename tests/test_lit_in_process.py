"""lit's in-process runner (`tests/filecheck/in_process.py`) judges as lit does.

A small lit suite (passing and failing checks, `not`, pipefail, redirects,
`2>&1`, and a program that must stay a process) runs with the tools in
process and with every command as its own process; both give the same
verdict per test, and a failure shows the failing command's output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

FILECHECK_DIR = Path(__file__).parent / "filecheck"

LIT_CFG = f"""
import os, sys
import lit.formats
config.name = "in-process"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.environ["PATH"]
config.environment["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
sys.path.insert(0, {str(FILECHECK_DIR)!r})
import in_process
in_process.install()
"""

GRAPH = """
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.relu %x : tensor<2xf32> -> tensor<2xf32>
  ge.netoutput %y : tensor<2xf32>
}
"""

TESTS = {
    "pass.mlir": "// RUN: ge-opt %s | ge-opt | filecheck %s\n// CHECK: ge.relu\n",
    "fail.mlir": "// RUN: ge-opt %s | filecheck %s\n// CHECK: ge.sigmoid\n",
    "not-pass.mlir": (
        "// RUN: not ge-opt %s -p no-such-pass 2>&1 | filecheck %s\n"
        "// CHECK: error: unknown pass 'no-such-pass'\n"
    ),
    "not-fail.mlir": "// RUN: not ge-opt %s\n",
    "pipefail.mlir": "// RUN: ge-opt %s -p no-such-pass | filecheck %s\n// CHECK:\n",
    "redirects.mlir": (
        "// RUN: rm -f %t.twice\n"
        "// RUN: ge-opt %s -o %t.mlir > %t.stdout\n"
        "// RUN: filecheck %s < %t.mlir\n"
        "// RUN: not ge-opt %s -p bad 2> %t.err\n"
        "// RUN: filecheck %s --check-prefix=ERR < %t.err\n"
        "// RUN: ge-opt %s >> %t.twice\n"
        "// RUN: ge-opt %s >> %t.twice\n"
        "// RUN: grep -c ge.relu %t.twice | filecheck %s --check-prefix=TWICE\n"
        "// CHECK: ge.relu\n"
        "// ERR: error: unknown pass 'bad'\n"
        "// TWICE: 2\n"
    ),
}


def run_lit(suite: Path, subprocess_mode: bool) -> tuple[dict[str, str], str]:
    env = dict(os.environ)
    env.pop("GE_XDSL_LIT_SUBPROCESS", None)
    if subprocess_mode:
        env["GE_XDSL_LIT_SUBPROCESS"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-v", str(suite)],
        capture_output=True,
        text=True,
        env=env,
    )
    verdicts = dict(
        (name, verdict)
        for verdict, name in re.findall(
            r"^(PASS|FAIL): in-process :: (\S+)", result.stdout, re.M
        )
    )
    return verdicts, result.stdout


def test_in_process_verdicts_match_lit_subprocesses(tmp_path: Path):
    (tmp_path / "lit.cfg").write_text(LIT_CFG)
    for name, run_lines in TESTS.items():
        (tmp_path / name).write_text(run_lines + GRAPH)
    in_process, output = run_lit(tmp_path, subprocess_mode=False)
    assert in_process == {
        "pass.mlir": "PASS",
        "fail.mlir": "FAIL",
        "not-pass.mlir": "PASS",
        "not-fail.mlir": "FAIL",
        "pipefail.mlir": "FAIL",
        "redirects.mlir": "PASS",
    }, output
    assert 'Couldn\'t match "ge.sigmoid"' in output  # the failing command's stderr
    subprocesses, output = run_lit(tmp_path, subprocess_mode=True)
    assert subprocesses == in_process, output
