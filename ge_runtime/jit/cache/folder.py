"""Where the JIT keeps what it generates: entries and compiled kernels.

What the cache holds runs as code (pickles, C libraries), so the
folder must be private: `cache_dir` creates it with mode 0700 and refuses,
with a one-line error, a folder that is not the user's or that another user
could write to, or one under a folder another user could change (a shared
`/tmp/cache` would let anyone plant an entry).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ge_runtime.jit.ops import UnusableSetup

_REDIRECTED: ContextVar[Path | None] = ContextVar("redirected_cache", default=None)


@contextmanager
def redirected(folder: Path) -> Iterator[Path]:
    """Within the body, the cache is `folder` (private, made if missing):
    what a compile generates, collected apart (`cache.bundle`)."""
    token = _REDIRECTED.set(private_folder(folder))
    try:
        yield folder
    finally:
        _REDIRECTED.reset(token)


def cache_dir() -> Path | None:
    """Where entries are kept (None: caching is off), made private if new;
    GEError if another user could plant files in it (`private_folder`)."""
    if (folder := _REDIRECTED.get()) is not None:
        return folder
    configured = os.environ.get("GE_XDSL_CACHE")
    if configured == "off":
        return None
    if configured:
        return private_folder(Path(configured))
    return private_folder(Path.home() / ".cache" / "ge-xdsl" / "jit")


class UnsafeCacheFolder(UnusableSetup):
    """The cache folder is not private."""


def private_folder(folder: Path) -> Path:
    """`folder`, created with mode 0700 if missing; `UnsafeCacheFolder`
    unless it is this user's (or root's) and only they can write to it, and
    every folder above it either is too or is sticky (as `/tmp`: others
    cannot rename in it)."""
    if folder.exists() and not folder.is_dir():
        raise UnsafeCacheFolder(
            f"error: the JIT cache folder '{folder}' is not a folder"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        resolved = folder.resolve()
        owners = (os.getuid(), 0)
        for index, current in enumerate((resolved, *resolved.parents)):
            info = current.stat()
            writable = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            sticky = index > 0 and info.st_mode & stat.S_ISVTX
            if info.st_uid not in owners or (writable and not sticky):
                why = "writable by other users" if writable else "not yours"
                raise UnsafeCacheFolder(
                    f"error: the JIT cache folder '{folder}' is not private "
                    f"('{current}' is {why}) and what it holds runs as code: "
                    "use a folder only you can write to, or GE_XDSL_CACHE=off"
                )
    except OSError as error:
        raise UnsafeCacheFolder(
            f"error: the JIT cache folder '{folder}': {error.strerror}"
        ) from None
    return folder


def kernel_folder(kind: str) -> Path:
    """Where compiled kernels of one kind (`c`) live: in the cache
    folder, or a private one under the temporary folder when caching is
    off (they run as code)."""
    directory = cache_dir()
    if directory is None:
        directory = private_folder(
            Path(tempfile.gettempdir()) / f"ge-xdsl-kernels-{os.getuid()}"
        )
    return directory / kind
