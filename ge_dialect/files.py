"""Writing files so that a failure leaves nothing half-written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` through a temporary file, so failures leave nothing."""
    target = Path(path)
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from None
    try:
        with os.fdopen(fd, mode) as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
