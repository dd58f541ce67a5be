"""Writing files so that a failure leaves nothing half-written.

`write_atomically` writes one file through a temporary one. A tool that
fills a folder while it works (`ge-run --dump DIR`, its outputs, `ge-atc
--dump-graph DIR`) writes into a `StagedDirectory` instead: the files go to a
hidden sibling `.DIR.partial-XXXX`, and only when the whole job succeeded
does `commit` move them into DIR; on failure `discard` removes them, and any
folder the staging had to create, so a failed run leaves nothing behind.

```python
with staged("dump/") as folder:         # writes go to .dump.partial-1a2b/
    DumpWriter(folder).add(...)
# now dump/manifest.json, dump/conv1.npy; nothing if the body raised
```

`write_all_or_none` writes several files that way, all of them or none (the
models and memory report of `ge-atc`): a folder it has to create is staged.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from ge_dialect.diagnostics import GEError

FileData = str | bytes | Callable[[BinaryIO], object]
"""What a file holds: text, bytes, or a function writing into a binary stream."""


def write_atomically(path: str | os.PathLike[str], data: FileData) -> None:
    """Write `data` to `path` through a temporary file, so failures leave nothing.

    A path that exists and is not a regular file (`/dev/null`, a FIFO, a
    terminal) is written in place: renaming a file over it would replace the
    device itself.
    """
    target = Path(path)
    if target.is_dir():
        raise GEError(f"error: cannot write '{target}': it is a directory")
    mode = "w" if isinstance(data, str) else "wb"
    if target.exists() and not target.is_file():
        try:
            with open(target, mode) as stream:
                _write(stream, data)
        except OSError as error:
            raise OSError(error.errno, error.strerror, str(target)) from None
        return
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from None
    try:
        with os.fdopen(fd, mode) as stream:
            _write(stream, data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except OSError as error:  # name the file the user asked for, not the temp
        Path(temp).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(target)) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _write(stream: Any, data: FileData) -> None:
    if callable(data):
        data(stream)
    else:
        stream.write(data)


class StagedDirectory:
    """A folder `target` whose files are staged until `commit` (or `discard`)."""

    def __init__(self, target: str | os.PathLike[str]):
        self.target = Path(target)
        if self.target.exists() and not self.target.is_dir():
            raise GEError(f"error: cannot write into '{self.target}': it is a file")
        parent = self.target.absolute().parent
        self.created = [p for p in (parent, *parent.parents) if not p.exists()]
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(
                tempfile.mkdtemp(prefix=f".{self.target.name}.partial-", dir=parent)
            )
        except OSError as error:  # the user's folder, not the staging one
            raise OSError(error.errno, error.strerror, str(self.target)) from None

    def commit(self) -> None:
        """Move every staged file into `target` (replacing same-named ones)."""
        self.target.mkdir(exist_ok=True)
        for folder, _, files in os.walk(self.path):
            relative = Path(folder).relative_to(self.path)
            (self.target / relative).mkdir(exist_ok=True)
            for name in files:
                os.replace(Path(folder) / name, self.target / relative / name)
        shutil.rmtree(self.path)

    def discard(self) -> None:
        """Remove the staged files and the folders made for them."""
        shutil.rmtree(self.path, ignore_errors=True)
        for folder in self.created:  # innermost first
            try:
                folder.rmdir()
            except OSError:
                break


@contextmanager
def staged(target: str | os.PathLike[str] | None) -> Iterator[Path | None]:
    """The staging folder of `target` for the body (None: no folder), committed
    if the body succeeds, discarded if it raises."""
    if target is None:
        yield None
        return
    folder = StagedDirectory(target)
    try:
        yield folder.path
    except BaseException:
        folder.discard()
        raise
    folder.commit()


def write_all_or_none(
    files: Sequence[tuple[str | os.PathLike[str], FileData]],
) -> None:
    """Write each `(path, data)`, or none of them if one fails: files written in
    an existing folder are removed again, and a folder that did not exist
    (with everything for it) is staged, so it appears only on success."""
    targets = [(Path(path), data) for path, data in files]
    written: list[Path] = []
    with ExitStack() as stack:
        staging: dict[Path, Path] = {}
        try:
            for path, data in targets:
                missing = _topmost_missing_folder(path)
                if missing is None:
                    write_atomically(path, data)
                    written.append(path)
                    continue
                if missing not in staging:
                    staging[missing] = stack.enter_context(staged(missing))
                inside = staging[missing] / path.relative_to(missing)
                try:
                    inside.parent.mkdir(parents=True, exist_ok=True)
                    write_atomically(inside, data)
                except OSError as error:  # the user's path, not the staged one
                    raise OSError(error.errno, error.strerror, str(path)) from None
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise


def _topmost_missing_folder(path: Path) -> Path | None:
    """The outermost folder of `path` that does not exist, None if its folder does."""
    missing = None
    for folder in path.parents:
        if folder.exists():
            break
        missing = folder
    return missing
