"""Reading the files a user hands over, as untrusted data.

Every input file (a model, a graph, an `.npy`, a weights `.npz`, a JSON
manifest or option file) is read through these functions, which answer a
hostile file with a one-line `GEError` before doing anything expensive:

- `read_input_bytes` / `read_input_text`: only regular files (not
  `/dev/zero`, a FIFO or a directory), no bigger than the memory budget;
- `load_json`: arrays and objects nested at most `MAX_JSON_NESTING` deep,
  syntax errors at `FILE:LINE:COL`;
- `confined_path`: a path named *inside* a model or manifest (weights next to
  a graph, files of a dump) must stay inside that file's folder: no absolute
  paths, no `..` out of it, no symlink leading out;
- `input_kind`: what a file of the wrong kind is (an ONNX model, an `.om`,
  an `.npy` given where IR text goes), so a tool can name the one that
  reads it instead of failing on its first byte.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ge_dialect.diagnostics import GEError
from ge_dialect.limits import (
    MAX_JSON_NESTING,
    check_bytes,
)

NUMERIC_KINDS = "biufc"
"""dtype kinds an array file may hold: bool, integers, floats, complex."""


def _fail(label: str, message: str) -> GEError:
    return GEError(f"{label}: error: {message}")


def check_regular_file(path: str | os.PathLike[str], what: str) -> int:
    """The size of the regular file `path`; GEError for a directory, a device
    (`/dev/zero`) or a pipe, which could be endless or block forever. A
    missing file raises OSError (the tools report `cannot access`)."""
    label = os.fspath(path)
    info = os.stat(label)
    if stat.S_ISDIR(info.st_mode):
        raise _fail(label, f"{what} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise _fail(label, f"{what} is not a regular file (a device or a pipe)")
    return info.st_size


def check_input_file(path: str | os.PathLike[str], what: str) -> int:
    """`check_regular_file`, and the file within the memory budget (it is
    read into memory)."""
    size = check_regular_file(path, what)
    check_bytes(size, what, os.fspath(path))
    return size


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


class _DuplicateKey(ValueError):
    """An object names a key twice (JSON would silently keep the last)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _second_key(text: str, key: str) -> int:
    """The offset of the second `"key":` in `text` (0 if not found)."""
    quoted = re.escape(json.dumps(key))
    matches = list(re.finditer(quoted + r"\s*:", text))
    return matches[1].start() if len(matches) > 1 else 0


def load_json(text: str, label: str, what: str = "JSON") -> Any:
    """Parse JSON text; GEError at `label:LINE:COL` if it is invalid, gives a
    key twice in one object, or nests deeper than `MAX_JSON_NESTING`."""
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
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as error:
        line, column = _line_col(text, _second_key(text, str(error)))
        raise GEError(
            f"{label}:{line}:{column}: error: {what} gives the key "
            f"{json.dumps(str(error))} twice in one object"
        ) from None
    except json.JSONDecodeError as error:
        raise GEError(
            f"{label}:{error.lineno}:{error.colno}: error: {what} is not valid JSON: "
            f"{error.msg}"
        ) from None


def read_json_file(path: str | os.PathLike[str], what: str) -> Any:
    """`load_json` of a regular input file."""
    return load_json(read_input_text(path, what), os.fspath(path), what)


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


OFFLINE_MODEL_MAGIC = b"GEXDSLOM"
"""The first bytes of an offline model (`.om`) file."""

OFFLINE_MODEL_IR = "model"
"""How locations name the optimised IR inside an `.om` (`net.om:model:3:5`)."""


@dataclass(frozen=True)
class InputKind:
    """What a file a user named holds, when it is not IR text: `key` for
    tools to match on, `description` for messages and `hint`, the command
    that reads it (`{path}` stands for the file)."""

    key: str
    description: str
    hint: str

    def message(self, path: str | os.PathLike[str], expected: str) -> GEError:
        """The one-line error for this file where `expected` was wanted."""
        label = os.fspath(path)
        return _fail(
            label,
            f"{expected} expected, but this is {self.description}: "
            + self.hint.format(path=label),
        )


ONNX_MODEL = InputKind(
    "onnx",
    "an ONNX model",
    "import it with `ge-translate --import-onnx {path}` or compile it with "
    "`ge-atc --model={path} --framework=5`",
)
TENSORFLOW_GRAPH = InputKind(
    "tensorflow",
    "a TensorFlow GraphDef",
    "import it with `ge-translate --import-tf {path}` or compile it with "
    "`ge-atc --model={path} --framework=3`",
)
OFFLINE_MODEL = InputKind(
    "om",
    "an offline model (.om)",
    "run it with `ge-run {path} --random-inputs --output-dir DIR`; "
    "`ge-atc --mode=1 --om={path} --json=FILE.json` describes it",
)
NUMPY_ARRAY = InputKind(
    "npy",
    "a NumPy array (.npy)",
    "it is a graph's input for `ge-run --input NAME={path}`",
)
ZIP_ARCHIVE = InputKind(
    "zip",
    "a zip archive (a weights .npz?)",
    "weights are named by the IR's `ge.weights` attribute, not given as input",
)

MODEL_KINDS = (ONNX_MODEL.key, TENSORFLOW_GRAPH.key)
"""The kinds a model importer reads (which of the two is the importer's to
say: telling them apart from the first bytes is a guess)."""

_TEXT_CONTROLS = frozenset(b"\t\n\r\f")


def input_kind(path: str | os.PathLike[str]) -> InputKind | None:
    """What the regular file `path` holds judged from its first bytes and
    its name, if it is a kind no IR parser reads: None for text (IR, or
    anything else left to the parser to locate its error in) and for
    binary data of no known kind. An unreadable file is None too: reading
    it for real reports why."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(512)
    except OSError:
        return None
    for magic, kind in (
        (OFFLINE_MODEL_MAGIC, OFFLINE_MODEL),
        (b"\x93NUMPY", NUMPY_ARRAY),
        (b"PK\x03\x04", ZIP_ARCHIVE),
    ):
        if head.startswith(magic):
            return kind
    suffix = Path(path).suffix.lower()
    if suffix == ".pbtxt":
        return TENSORFLOW_GRAPH
    if suffix == ".onnxtxt":
        return ONNX_MODEL
    if not any(byte < 0x20 and byte not in _TEXT_CONTROLS for byte in head):
        return None
    if suffix == ".onnx" or (suffix != ".pb" and head[:1] == b"\x08"):
        return ONNX_MODEL  # a protobuf starting with ModelProto's ir_version
    if suffix == ".pb" or head[:1] == b"\x0a":
        return TENSORFLOW_GRAPH  # a protobuf starting with GraphDef's node
    return None


def check_input_kind(
    path: str | os.PathLike[str], expected: str, accepted: tuple[str, ...] = ()
) -> None:
    """GEError naming the right tool when `path` is a kind of file
    (`input_kind`) whose key is not in `accepted`; `expected` says what was
    wanted ("IR text (.mlir)")."""
    kind = input_kind(path)
    if kind is not None and kind.key not in accepted:
        raise kind.message(path, expected)
