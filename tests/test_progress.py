"""Progress lines of long steps: on a terminal only (`offline.progress`)."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

from ge_runtime.offline import progress
from tools import ge_atc

SMALL_CNN = Path(__file__).parent.parent / "examples" / "small_cnn.onnx"
PROGRESS_LINE = re.compile(r"ge-atc: .*(\.\.\. \d+ s|: done in \d+\.\d s)$")


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_long_step_says_what_runs_until_it_ends() -> None:
    stream = Terminal()
    with progress.step("tool", "working", stream, interval=0.05):
        progress.detail("the C compiler on 3 kernels")
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 3
    assert lines[0].startswith("tool: working (the C compiler on 3 kernels)... ")
    assert lines[-1].startswith("tool: working: done in 0.")


def test_a_short_step_prints_nothing() -> None:
    stream = Terminal()
    with progress.step("tool", "working", stream, interval=5):
        progress.detail("quick")
    assert stream.getvalue() == ""


def test_nothing_goes_to_a_pipe() -> None:
    stream = io.StringIO()
    with progress.step("tool", "working", stream, interval=0.01):
        time.sleep(0.1)
    assert stream.getvalue() == ""
    progress.detail("no step shown: ignored")


@pytest.mark.parametrize("terminal", [True, False])
def test_ge_atc_shows_its_steps_on_a_terminal_only(
    tmp_path: Path, monkeypatch, capsys, terminal: bool
) -> None:
    stream = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setenv("GE_XDSL_CACHE", str(tmp_path / "cache"))
    code = ge_atc.main(
        [
            f"--model={SMALL_CNN}",
            "--framework=5",
            "--input_shape=input:1,3,32,32",
            f"--output={tmp_path / 'cnn'}",
        ]
    )
    assert code == 0
    lines = [x for x in stream.getvalue().splitlines() if PROGRESS_LINE.match(x)]
    if not terminal:
        assert lines == []  # the log lines only
        return
    assert f"ge-atc: compiling {SMALL_CNN.name}: done in" in "\n".join(lines)
    assert any(x.startswith("ge-atc: compiling the kernels (") for x in lines), lines
    assert "done in" not in capsys.readouterr().out
