"""A compile's generated code as one payload: what an offline model carries.

`ge-atc` compiles a model's kernels once, into a scratch cache folder
(`folder.redirected`), and `pack` turns that folder (the entries and the C
libraries) into bytes with what they were built for: the code generators'
version (`entries.code_version`, the Python bytecode format included), the
kernels chosen, the C compiler, its flags and the machine `-march=native`
compiled for. `install` puts them into this process's cache folder, where
the JIT finds them as if it had compiled them, so a first run compiles
nothing; when the payload was built for something else (another machine,
another compiler, another version of the generators) it installs nothing
and says why in one line, and the JIT compiles as it would without it.

Layout: an 8-byte little-endian length, that many bytes of UTF-8 JSON
(`built_for`, and `files`: each file's path in the cache folder, size and
SHA-256), then the files' bytes back to back. A payload whose framing,
paths or digests are wrong is refused (`BundleError`) before anything is
written or loaded: a library is only ever loaded once its bytes are what
the index says.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import tempfile
from pathlib import Path
from typing import Any

from ge_dialect.diagnostics import GEError
from ge_runtime.jit import c_runtime
from ge_runtime.jit.c_runtime import kernel_choice
from ge_runtime.jit.cache.entries import code_version
from ge_runtime.jit.cache.folder import cache_dir

LENGTH = struct.Struct("<Q")
FILE_NAME = re.compile(r"[0-9a-f]{64}\.pickle|c/lib[0-9a-f]{24}\.so")
"""The files a cache folder holds that a payload may carry (no other path)."""


class BundleError(GEError):
    """A kernel payload that is not what its index says."""


def built_for() -> dict[str, Any]:
    """What generated code depends on in this process."""
    return {
        "code_version": code_version(),
        "kernels": kernel_choice(None),
        "compiler": c_runtime.compiler(),
        "flags": list(c_runtime.flags()),
        "machine": c_runtime.machine(),
    }


def pack(folder: Path) -> bytes:
    """The entries and C libraries in the cache folder `folder`, as a payload."""
    files = sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and FILE_NAME.fullmatch(path.relative_to(folder).as_posix())
    )
    blobs = [(folder / name).read_bytes() for name in files]
    index = {
        "built_for": built_for(),
        "files": [
            {
                "path": name,
                "size": len(blob),
                "sha256": hashlib.sha256(blob).hexdigest(),
            }
            for name, blob in zip(files, blobs, strict=True)
        ],
    }
    text = json.dumps(index, sort_keys=True).encode()
    return b"".join([LENGTH.pack(len(text)), text, *blobs])


def unpack(payload: bytes | memoryview, label: str) -> tuple[dict[str, Any], list]:
    """The index and `(path, bytes)` of each file of a payload, checked."""

    def fail(why: str) -> BundleError:
        return BundleError(f"{label}: error: corrupt kernel section ({why})")

    view = memoryview(payload)
    if len(view) < LENGTH.size:
        raise fail("no index")
    (length,) = LENGTH.unpack_from(view)
    start = LENGTH.size + length
    if start > len(view):
        raise fail("the index runs past the section")
    try:
        index = json.loads(bytes(view[LENGTH.size : start]).decode())
        built, entries = index["built_for"], index["files"]
        files = [(e["path"], int(e["size"]), str(e["sha256"])) for e in entries]
    except (ValueError, KeyError, TypeError) as error:
        raise fail(f"unreadable index: {error}") from None
    if not isinstance(built, dict):
        raise fail("unreadable index: built_for is not an object")
    contents = []
    offset = start
    for path, size, digest in files:
        if not isinstance(path, str) or not FILE_NAME.fullmatch(path):
            raise fail(f"file {path!r} is not a cache file")
        if size < 0 or offset + size > len(view):
            raise fail(f"file '{path}' runs past the section")
        blob = bytes(view[offset : offset + size])
        if hashlib.sha256(blob).hexdigest() != digest:
            raise fail(f"file '{path}' does not match its digest")
        contents.append((path, blob))
        offset += size
    if offset != len(view):
        raise fail(f"{len(view) - offset} bytes after the last file")
    return built, contents


def mismatch(built: dict[str, Any]) -> str | None:
    """Why code built for `built` cannot run here (None: it can)."""
    here = built_for()
    theirs, ours = str(built.get("machine")), here["machine"]
    if theirs.partition("|")[0] != ours.partition("|")[0]:
        return f"built for {theirs.partition('|')[0]}, this is {ours.partition('|')[0]}"
    if theirs != ours and "|-march=" in theirs + ours:
        return f"built for {_cpu(theirs)}, this run builds for {_cpu(ours)}"
    if theirs != ours:
        missing = sorted(set(theirs.split()) - set(ours.split()))
        shown = " ".join(missing[:4]) + " ..." * (len(missing) > 4)
        return "built for a CPU with other features" + (
            f" (here no {shown})" if missing else ""
        )
    if built.get("compiler") != here["compiler"]:
        return (
            f"built with the C compiler {built.get('compiler')}, here "
            f"{here['compiler'] or 'there is none'}"
        )
    if built.get("kernels") != here["kernels"]:
        return f"{built.get('kernels')} kernels, this run uses {here['kernels']}"
    if (built.get("flags"), built.get("code_version")) != (
        here["flags"],
        here["code_version"],
    ):
        return "generated by another version of ge-xdsl"
    return None


def _cpu(machine: str) -> str:
    """A `c_runtime.machine()` as a user names it."""
    target = machine.partition("|")[2]
    return target if target.startswith("-march=") else "-march=native"


def install(payload: bytes | memoryview, label: str) -> str | None:
    """Put a payload's files into the cache folder; None if they were
    installed, else why they were not (one line, for the user).
    `BundleError` if the payload is corrupt."""
    built, contents = unpack(payload, label)
    why = mismatch(built)
    folder = cache_dir()
    if why is None and folder is None:
        why = "GE_XDSL_CACHE=off"
    if why is not None:
        return (
            f"{label}: note: the model's compiled kernels are not used "
            f"({why}): compiling them"
        )
    assert folder is not None
    for path, blob in contents:
        target = folder / path
        if target.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(blob)
        os.replace(scratch, target)
    return None
