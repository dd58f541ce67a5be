"""Reading the files a user hands over, as untrusted data.

Every input file (a model, a graph, an `.npy`, a weights `.npz`, a JSON
manifest or option file) is read through these functions, which answer a
hostile file with a one-line `GEError` before doing anything expensive:

- `read_input_bytes` / `read_input_text`: only regular files (not
  `/dev/zero`, a FIFO or a directory), no bigger than the memory budget;
- `load_json`: arrays and objects nested at most `MAX_JSON_NESTING` deep,
  syntax errors at `FILE:LINE:COL`;
- `read_npy` / `read_npz`: the `.npy` header is read first; only numeric
  dtypes (never Python objects, so nothing is ever unpickled), a size within
  the memory budget and the file actually holding the claimed bytes;
- `confined_path`: a path named *inside* a model or manifest (weights next to
  a graph, files of a dump) must stay inside that file's folder: no absolute
  paths, no `..` out of it, no symlink leading out.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.limits import (
    MAX_JSON_NESTING,
    LimitError,
    check_bytes,
    tensor_bytes,
)

NUMERIC_KINDS = "biufc"
"""dtype kinds an array file may hold: bool, integers, floats, complex."""


def _fail(label: str, message: str) -> GEError:
    return GEError(f"{label}: error: {message}")


def check_input_file(path: str | os.PathLike[str], what: str) -> int:
    """The size of the regular file `path`; GEError for anything else or a
    file over the memory budget. A missing file raises OSError (reported by
    the tools as `cannot access`)."""
    label = os.fspath(path)
    info = os.stat(label)
    if stat.S_ISDIR(info.st_mode):
        raise _fail(label, f"{what} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise _fail(label, f"{what} is not a regular file (a device or a pipe)")
    check_bytes(info.st_size, what, label)
    return info.st_size


def read_input_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    """The bytes of a regular input file within the memory budget."""
    size = check_input_file(path, what)
    with open(path, "rb") as stream:
        data = stream.read(size + 1)
    if len(data) > size:  # it grew while we read it
        raise _fail(os.fspath(path), f"{what} changed while it was read")
    return data


def read_input_text(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of a regular input file within the memory budget."""
    data = read_input_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise GEError(
            f"{os.fspath(path)}:{line}:{column}: error: {what} is not UTF-8 text "
            f"(byte 0x{data[error.start]:02x})"
        ) from None


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def load_json(text: str, label: str, what: str = "JSON") -> Any:
    """Parse JSON text; GEError at `label:LINE:COL` if it is invalid or nests
    deeper than `MAX_JSON_NESTING`."""
    depth = 0
    for token in _JSON_TOKENS.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_JSON_NESTING:
                line, column = _line_col(text, token.start())
                raise GEError(
                    f"{label}:{line}:{column}: error: {what} nests arrays or "
                    f"objects deeper than {MAX_JSON_NESTING} levels"
                )
        elif bracket in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise GEError(
            f"{label}:{error.lineno}:{error.colno}: error: {what} is not valid JSON: "
            f"{error.msg}"
        ) from None


def read_json_file(path: str | os.PathLike[str], what: str) -> Any:
    """`load_json` of a regular input file."""
    return load_json(read_input_text(path, what), os.fspath(path), what)


# ---------------------------------------------------------------------------
# .npy and .npz
# ---------------------------------------------------------------------------


def _read_npy_stream(stream: IO[bytes], available: int, label: str) -> np.ndarray:
    """One array from a stream positioned at a `.npy` header, holding
    `available` bytes from there on."""
    fmt = np.lib.format
    if stream.read(len(fmt.MAGIC_PREFIX)) != fmt.MAGIC_PREFIX:
        raise _fail(label, "not a .npy file (it does not start with the .npy magic)")
    try:
        version = tuple(stream.read(2))
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(stream)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = fmt.read_array_header_2_0(stream)
        else:
            raise ValueError(f"format version {version[0]}.{version[1]}")
    except (ValueError, OSError, EOFError, SyntaxError) as error:
        message = " ".join(str(error).split())
        raise _fail(label, f"not a valid .npy array (header: {message})") from None
    if dtype.hasobject or dtype.kind not in NUMERIC_KINDS or dtype.fields:
        raise _fail(
            label, f"holds {dtype} data; only numeric arrays (bool, int, float) load"
        )
    try:
        nbytes = tensor_bytes(shape, dtype.itemsize, "array shape")
    except LimitError as error:
        raise _fail(label, str(error)) from None
    check_bytes(nbytes, f"array {dtype}{list(shape)}", label)
    remaining = available - stream.tell()
    if remaining < nbytes:
        raise _fail(
            label,
            f"truncated .npy: the header claims {nbytes} bytes of "
            f"{dtype}{list(shape)} data, the file holds {max(remaining, 0)}",
        )
    if remaining > nbytes:
        raise _fail(label, f".npy has {remaining - nbytes} bytes after its data")
    buffer = bytearray(nbytes)
    if stream.readinto(buffer) != nbytes:  # type: ignore[attr-defined]
        raise _fail(label, "truncated .npy data")
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape, order="F" if fortran else "C")


def read_npy(path: str | os.PathLike[str], what: str = "array file") -> np.ndarray:
    """The array of a `.npy` file (checked as the module docstring says)."""
    label = os.fspath(path)
    size = check_input_file(label, what)
    with open(label, "rb") as stream:
        return _read_npy_stream(stream, size, label)


def read_npz(
    source: str | os.PathLike[str] | bytes, label: str
) -> dict[str, np.ndarray]:
    """The arrays of a `.npz` archive (a path, or its bytes), by key."""
    if isinstance(source, bytes):
        opened: IO[bytes] = io.BytesIO(source)
    else:
        check_input_file(source, "weights file")
        opened = open(source, "rb")  # noqa: SIM115 (closed below)
    with opened:
        try:
            archive = zipfile.ZipFile(opened)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            raise _fail(label, "not a .npz archive (no zip directory)") from None
        with archive:
            arrays = {}
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    raise _fail(label, f"archive member '{info.filename}' is not .npy")
                check_bytes(info.file_size, f"member '{info.filename}'", label)
                member_label = f"{label}[{info.filename}]"
                try:
                    with archive.open(info) as member:
                        array = _read_npy_stream(member, info.file_size, member_label)
                except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
                    message = " ".join(str(error).split())
                    raise _fail(
                        member_label, f"corrupt archive member ({message})"
                    ) from None
                arrays[info.filename.removesuffix(".npy")] = array
            return arrays


# ---------------------------------------------------------------------------
# Paths named inside files
# ---------------------------------------------------------------------------


def confined_path(
    folder: str | os.PathLike[str], name: str, what: str, where: str
) -> Path:
    """`folder / name`, GEError at `where` unless it stays inside `folder`.

    `name` comes from inside a model or manifest, so it may not be absolute,
    climb out with `..`, or reach out through a symlink.
    """
    root = Path(folder)
    if not name or Path(name).is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise _fail(where, f"{what} '{name}' must be a path relative to its folder")
    candidate = root / name
    resolved_root = root.resolve()
    resolved = candidate.resolve()
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise _fail(where, f"{what} '{name}' points outside the folder '{root}'")
    return candidate
