"""The on-disk cache of generated code: a second run skips lowering and codegen.

A compiled function is its Python source and bytecode plus the objects its
namespace binds (constants, index arrays, NumPy functions, the workspace
layout). All are saved under a key the caller derives from what determines
them (for `ge-run`: the `.om` file's SHA-256, the target and the part),
joined with `code_version()`, a digest of the sources that generate code
and of this Python's bytecode format, so a change to the compiler never
reads a stale entry and a load runs the bytecode without compiling the
source again (for ShuffleNet's 370 000 characters that took 58 MB and
0.2 s). Functions of the JIT's tables are
saved by name (`ops.TABLES`), everything else by pickle.

The cache lives in `$GE_XDSL_CACHE` (default `~/.cache/ge-xdsl/jit`); set
`GE_XDSL_CACHE=off` to disable it. An entry that cannot be read is ignored
(and rewritten); one that cannot be saved leaves the run uncached.
The folder is `cache.folder`'s (private, or refused).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import io
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ge_runtime.jit import c_runtime, ops
from ge_runtime.jit.cache.folder import cache_dir

FORMAT = 3
"""Version of the entry layout."""

GENERATORS = (
    "ge_runtime/jit",
    "passes/lowering",
    "passes/memory_planning.py",
    "passes/plan_memory.py",
    "passes/outlining.py",
    "ge_dialect/ops",
    "ge_dialect/scalar.py",
    "ge_dialect/formats.py",
    "ge_dialect/dtype_names.py",
    "ge_dialect/targets.py",
    "ge_dialect/relayout.py",
    "ge_dialect/layout.py",
    "ge_dialect/value_layout.py",
)
"""Sources whose contents decide the generated code (relative to the root)."""

ROOT = Path(__file__).resolve().parents[3]


@functools.cache
def code_version() -> str:
    """A digest of every source file that generates code and of the
    bytecode format (`marshal`ed code is only read by its own Python)."""
    digest = hashlib.sha256(str(FORMAT).encode() + importlib.util.MAGIC_NUMBER)
    for name in GENERATORS:
        path = ROOT / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(file.relative_to(ROOT).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:24]


def entry_path(key: str) -> Path | None:
    """The file of the entry for `key` (None: caching is off)."""
    directory = cache_dir()
    if directory is None:
        return None
    name = hashlib.sha256(f"{code_version()}|{key}".encode()).hexdigest()
    return directory / f"{name}.pickle"


def _table_functions() -> dict[int, tuple[str, Any]]:
    return {
        id(function): (table, key)
        for table, functions in ops.TABLES.items()
        for key, function in functions.items()
    }


def table_function(table: str, key: Any) -> Callable[..., Any]:
    """The function `key` of the JIT's table `table` (how entries name them)."""
    return ops.TABLES[table][key]


class _Pickler(pickle.Pickler):
    """Saves the JIT tables' functions (lambdas among them) by name."""

    known = _table_functions()

    def reducer_override(self, obj: Any) -> Any:
        if not callable(obj):
            return NotImplemented
        found = self.known.get(id(obj))
        if found is not None:
            return table_function, found
        return c_runtime.reduce_kernel(obj) or NotImplemented


def dump(entry: dict[str, Any]) -> bytes | None:
    """The bytes of an entry (None: something in it cannot be saved)."""
    stream = io.BytesIO()
    try:
        _Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL).dump(entry)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return stream.getvalue()


def save(key: str, entry: dict[str, Any]) -> bool:
    """Store `entry` under `key`, atomically; False if it was not saved."""
    path = entry_path(key)
    data = dump(entry)
    if path is None or data is None:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(scratch, path)
    except OSError:
        return False
    return True


def load(key: str) -> dict[str, Any] | None:
    """The entry stored under `key`, or None."""
    path = entry_path(key)
    if path is None or not path.is_file():
        return None
    try:
        with path.open("rb") as stream:
            entry = pickle.load(stream)
    except Exception:  # damaged bytes unpickle to any error
        return None
    return entry if isinstance(entry, dict) else None
