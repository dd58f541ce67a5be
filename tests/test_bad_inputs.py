"""The bad-input corpus: every malformed input fails cleanly.

Cases come from two places, run by one parametrized test:

- `tests/bad_inputs/cases.json`: one entry per malformed input (MLIR syntax,
  verifier rules, passes rejecting IR, bad pass options and flags, broken
  or unsupported ONNX models, corrupt offline models, bad `.npy` inputs),
  each `{"name", "args": [TOOL, ...], "expect"}` where `{dir}` stands for
  `tests/bad_inputs` and `{out}` for an empty scratch directory;
- every `// -----` chunk of `tests/filecheck/dialect/invalid-*.mlir` (the
  dialect's verifier rules), run through `ge-opt` on its own, expecting the
  file:line:col and message of its `CHECK` line.

Each must: exit with code 1, print exactly one line on stderr (no
traceback, no internal error) that contains the expected diagnostic,
nothing on stdout, and leave `{out}` empty (no partial output file). The
tools run in-process for speed; `test_console_scripts_fail_cleanly` runs a
few cases through the installed console scripts.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tools import ge_atc, ge_opt, ge_run, ge_translate

CORPUS = Path(__file__).parent / "bad_inputs"
DIALECT = Path(__file__).parent / "filecheck" / "dialect"

TOOLS: dict[str, Callable[[Sequence[str]], int]] = {
    "ge-opt": ge_opt.main,
    "ge-translate": ge_translate.main,
    "ge-atc": ge_atc.main,
    "ge-run": ge_run.main,
}


@dataclass(frozen=True)
class Case:
    """One malformed input: a command line, the expected diagnostic."""

    name: str
    args: tuple[str, ...]
    expect: str
    files: dict[str, str] = field(default_factory=dict)
    """Inputs written to the scratch directory `{out}/..` before the run."""

    def expand(self, text: str, scratch: Path) -> str:
        return text.replace("{dir}", str(CORPUS)).replace("{out}", str(scratch))


def manifest_cases() -> list[Case]:
    entries = json.loads((CORPUS / "cases.json").read_text())
    return [Case(e["name"], tuple(e["args"]), e["expect"]) for e in entries]


CHECK_LINE = re.compile(
    r"// CHECK: \{\{\.\*\}\}[\w.-]+:\[\[# @LINE \+ 1\]\]:(\d+): (error: .*)$"
)


def verifier_cases() -> list[Case]:
    """One case per chunk of the dialect's invalid-*.mlir FileCheck inputs."""
    cases = []
    for path in sorted(DIALECT.glob("invalid-*.mlir")):
        for number, chunk in enumerate(path.read_text().split("\n// -----\n")):
            lines = chunk.splitlines()
            checks = [
                (index, match)
                for index, line in enumerate(lines)
                if (match := CHECK_LINE.search(line.strip()))
            ]
            if not checks:
                continue
            index, match = checks[0]
            message = match.group(2).split("{{")[0]
            name = f"{path.stem}-{number}"
            where = f"{name}.mlir:{index + 2}:{match.group(1)}: "
            cases.append(
                Case(
                    f"dialect-{name}",
                    ("ge-opt", f"{{out}}/../{name}.mlir", "-o", "{out}/out.mlir"),
                    where + message,
                    {f"{name}.mlir": chunk},
                )
            )
    return cases


CASES = manifest_cases() + verifier_cases()


def test_corpus_size():
    files = [p for p in CORPUS.iterdir() if p.suffix not in (".py", ".json")]
    assert len(manifest_cases()) >= 50 and len(files) >= 50
    assert len(verifier_cases()) >= 150
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))


def test_every_corpus_file_is_used():
    used = " ".join(" ".join(case.args) for case in manifest_cases())
    unused = [
        p.name
        for p in CORPUS.iterdir()
        if p.suffix not in (".py",) and p.name != "cases.json" and p.name not in used
    ]
    assert unused == []


def run_case(case: Case, tmp_path: Path, capfd) -> tuple[int, str, str, Path]:
    scratch = tmp_path / "out"
    scratch.mkdir()
    for name, text in case.files.items():
        (tmp_path / name).write_text(text)
    tool, *args = (case.expand(arg, scratch) for arg in case.args)
    code = TOOLS[tool](args)
    out, err = capfd.readouterr()
    return code, out, err, scratch


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_bad_input_fails_cleanly(case: Case, tmp_path: Path, capfd):
    code, out, err, scratch = run_case(case, tmp_path, capfd)
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert case.expand(case.expect, scratch) in lines[0]
    assert out == ""
    assert list(scratch.iterdir()) == []


def test_the_valid_inputs_are_valid(tmp_path: Path, capfd):
    """The flags and runtime cases fail because of what they change only."""
    out = tmp_path / "out"
    assert (
        ge_opt.main([str(CORPUS / "valid.mlir"), "-o", str(tmp_path / "v.mlir")]) == 0
    )
    assert (
        ge_run.main(
            [
                str(CORPUS / "om-valid.om"),
                "--random-inputs",
                "--check",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    assert (
        ge_translate.main(
            [
                "--import-onnx",
                str(CORPUS / "valid.onnxtxt"),
                "-o",
                str(tmp_path / "t.mlir"),
            ]
        )
        == 0
    )
    capfd.readouterr()


CONSOLE_CASES = (
    "mlir-binary",
    "translate-onnx-truncated",
    "atc-unknown-soc",
    "run-om-bad-checksum",
)


@pytest.mark.parametrize("name", CONSOLE_CASES)
def test_console_scripts_fail_cleanly(name: str, tmp_path: Path):
    (case,) = [case for case in CASES if case.name == name]
    scratch = tmp_path / "out"
    scratch.mkdir()
    result = subprocess.run(
        [case.expand(arg, scratch) for arg in case.args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert case.expand(case.expect, scratch) in result.stderr
    assert list(scratch.iterdir()) == []
