"""Run the project's tools and FileCheck inside lit's worker processes.

lit's internal shell starts one process per command, and each Python tool
then pays for an interpreter and its imports again (a third of a second of
CPU for `ge-opt`, a tenth for `filecheck`) — most of the suite's time. `install`
replaces lit's pipeline runner so that a pipeline made only of the project's
console scripts, `filecheck` and `not`, with plain redirects (`<`, `>`, `>>`,
`2>`, `2>&1`), runs in the worker: each command is the tool's `main(argv)`,
reading the previous command's output from memory. Everything else (other
programs, `env`, `not --crash`, `%{readfile:...}`) runs as lit runs it, and so
do commands with `--load-plugin`/`--opinfo`, which change process-wide
registries. Results (output, exit codes, `not`, pipefail) are reported to lit
exactly as its own shell would.

Set `GE_XDSL_LIT_SUBPROCESS=1` to run every command in its own process.
"""

from __future__ import annotations

import contextvars
import importlib
import io
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lit import ShUtil, TestRunner
from lit.ShellEnvironment import ShellCommandResult

TOOLS = {
    "ge-opt": "tools.ge_opt",
    "ge-run": "tools.ge_run",
    "ge-atc": "tools.ge_atc",
    "ge-translate": "tools.ge_translate",
    "ge-dump-compare": "tools.ge_dump_compare",
    "filecheck": "filecheck.main",
}
"""Commands run in process: the module whose `main(argv)` implements each."""

PROCESS_WIDE_FLAGS = ("--load-plugin", "--opinfo")
"""Flags that register ops, rules or op information for the whole process."""

STDOUT, STDERR = 1, 2


@dataclass
class Step:
    """One command of a pipeline, ready to run in process."""

    command: ShUtil.Command
    args: list[str]
    negations: int
    stdin: str | None = None
    stdout: tuple[str, str] | None = None  # (path, mode)
    stderr: tuple[str, str] | None = None
    stderr_to_stdout: bool = False


def install() -> None:
    """Make lit's internal shell run eligible pipelines in process."""
    if os.environ.get("GE_XDSL_LIT_SUBPROCESS"):
        return
    run_in_subprocesses = TestRunner._executeShCmd

    def execute(cmd, shenv, results, timeout_helper):  # noqa: ANN001, ANN202
        steps = plan(cmd) if isinstance(cmd, ShUtil.Pipeline) else None
        if steps is None:
            return run_in_subprocesses(cmd, shenv, results, timeout_helper)
        return run_pipeline(cmd, steps, shenv.cwd, results)

    TestRunner._executeShCmd = execute


def plan(pipeline: ShUtil.Pipeline) -> list[Step] | None:
    """The steps of `pipeline`, or None if any command must be a process."""
    steps = []
    for command in pipeline.commands:
        args = list(command.args)
        negations = 0
        while args and args[0] == "not":
            args.pop(0)
            negations += 1
        if not args or args[0] not in TOOLS:
            return None
        if any(
            not isinstance(arg, str)
            or "%{readfile:" in arg
            or arg.split("=")[0] in PROCESS_WIDE_FLAGS
            for arg in args
        ):
            return None
        step = Step(command, args, negations)
        for (op, *fd), target in command.redirects:
            fd = fd[0] if fd else None
            if op == "<" and fd is None:
                step.stdin = target
            elif op in (">", ">>") and fd in (None, STDOUT):
                step.stdout = (target, "ab" if op == ">>" else "wb")
            elif op in (">", ">>") and fd == STDERR:
                step.stderr = (target, "ab" if op == ">>" else "wb")
            elif op == ">&" and fd == STDERR and target == "1":
                step.stderr_to_stdout = True
            else:
                return None
        if step.stdout is not None and step.stderr_to_stdout:
            return None  # the order of the two redirects would matter
        steps.append(step)
    return steps


def run_pipeline(
    pipeline: ShUtil.Pipeline,
    steps: Sequence[Step],
    cwd: str,
    results: list[ShellCommandResult],
) -> int:
    """Run `steps` one after the other, each reading its predecessor's output."""
    piped = b""
    exit_code: int | None = None
    for position, step in enumerate(steps):
        stdin = piped if position else b""
        if step.stdin is not None:
            with open(os.path.join(cwd, step.stdin), "rb") as stream:
                stdin = stream.read()
        code, out, err = run_tool(step.args, stdin, cwd, step.stderr_to_stdout)
        piped = b""
        if step.stdout is not None:
            write(cwd, step.stdout, out)
        elif step.stderr_to_stdout or position < len(steps) - 1:
            piped = out
        if step.stderr is not None:
            write(cwd, step.stderr, err)
        if step.negations % 2:
            code = 1 if code == 0 else 0
        elif step.negations:
            code = 1 if code != 0 else 0
        results.append(
            ShellCommandResult(
                step.command,
                out.decode("utf-8", errors="replace"),
                err.decode("utf-8", errors="replace"),
                code,
                False,
                [],
            )
        )
        if not pipeline.pipe_err or not exit_code or code != 0:
            exit_code = code  # with pipefail: the last failing code
    if pipeline.negate:
        exit_code = int(not exit_code)
    return exit_code or 0


def write(cwd: str, target: tuple[str, str], data: bytes) -> None:
    path, mode = target
    with open(os.path.join(cwd, path), mode) as stream:
        stream.write(data)


def run_tool(
    args: Sequence[str], stdin: bytes, cwd: str, merge_stderr: bool
) -> tuple[int, bytes, bytes]:
    """Run one tool's `main` on `args`: exit code, stdout and stderr bytes."""
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    stderr = (
        stdout
        if merge_stderr
        else io.TextIOWrapper(err_bytes, encoding="utf-8", write_through=True)
    )
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv, os.getcwd())
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr, sys.argv = stdout, stderr, list(args)
    try:
        os.chdir(cwd)
        code = contextvars.copy_context().run(_call_main, TOOLS[args[0]], args)
    finally:
        stdout.flush()
        stderr.flush()
        sys.stdin, sys.stdout, sys.stderr, sys.argv, cwd_before = saved
        os.chdir(cwd_before)
    return code, out_bytes.getvalue(), err_bytes.getvalue()


def _call_main(module_name: str, args: Sequence[str]) -> int:
    main: Callable[..., object] = importlib.import_module(module_name).main
    try:
        # filecheck's main takes the whole argv; the project's tools the rest.
        code = main(list(args) if module_name == "filecheck.main" else list(args[1:]))
    except SystemExit as exit_:
        code = exit_.code
    except Exception:  # a tool bug: report it as the process would
        traceback.print_exc()
        return 1
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
