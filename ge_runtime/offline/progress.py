"""Progress of long steps: periodic lines on a terminal, quiet when piped.

A tool wraps each step that may take long in `step`; when the step is
still running after `interval` seconds (2 s) and the stream is a terminal, a
line says what runs and for how long, again every interval, and a last line
when it ends. What the step is doing inside (`detail`: lowering, generating
code, the C compiler on N kernels) is shown on the next line. A step that
ends sooner prints nothing, and nothing is ever printed to a pipe or file,
so output that scripts read stays as it was.

```
ge-atc: compiling the kernels (the C compiler on 393 kernels)... 4 s
ge-atc: compiling the kernels (the C compiler on 393 kernels)... 6 s
ge-atc: compiling the kernels: done in 7.1 s
```
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

INTERVAL = 2.0
"""Seconds before the first line, and between lines."""

_ACTIVE: list[Progress] = []
"""The progress of the step running now (innermost last)."""


class Progress:
    """One step's periodic lines (see the module docstring)."""

    def __init__(self, tool: str, what: str, stream: TextIO, interval: float):
        self.tool, self.what, self.stream, self.interval = tool, what, stream, interval
        self.detail = ""
        self.start = time.perf_counter()
        self.printed = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._report, daemon=True)

    def _line(self, text: str) -> None:
        print(f"{self.tool}: {text}", file=self.stream, flush=True)
        self.printed = True

    def _report(self) -> None:
        while not self._done.wait(self.interval):
            detail = f" ({self.detail})" if self.detail else ""
            elapsed = time.perf_counter() - self.start
            self._line(f"{self.what}{detail}... {elapsed:.0f} s")

    def begin(self) -> None:
        """Start the lines (the first after one interval)."""
        self._thread.start()

    def finish(self) -> None:
        """Stop the lines; the last one if any was printed."""
        self._done.set()
        self._thread.join()
        if self.printed:
            elapsed = time.perf_counter() - self.start
            self._line(f"{self.what}: done in {elapsed:.1f} s")


@contextmanager
def step(
    tool: str,
    what: str,
    stream: TextIO | None = None,
    *,
    interval: float | None = None,
) -> Iterator[None]:
    """Within the body, `tool: what... N s` every `interval` seconds
    (default `INTERVAL`) on `stream` (default stderr) if it is a terminal."""
    stream = sys.stderr if stream is None else stream
    interval = INTERVAL if interval is None else interval
    if not stream.isatty():
        yield
        return
    progress = Progress(tool, what, stream, interval)
    _ACTIVE.append(progress)
    progress.begin()
    try:
        yield
    finally:
        _ACTIVE.remove(progress)
        progress.finish()


def detail(text: str) -> None:
    """Say what the running step does now (shown on its next line; nothing
    when no step is shown)."""
    if _ACTIVE:
        _ACTIVE[-1].detail = text
