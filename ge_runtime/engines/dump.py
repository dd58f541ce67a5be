"""Data dump (SPEC §10): every op's output as a user can read it, and compare.

`ge-run --dump DIR` writes each op's results converted from their storage
format back to their origin format (GE's dump with
`ATTR_NAME_DATA_DUMP_ORIGIN_FORMAT`), one `.npy` per result named after the
op's node name (`conv1.npy`; `split.0.npy`, `split.1.npy` for several
results; characters outside `[A-Za-z0-9._-]` become `_`, names longer than
`MAX_STEM` are cut and end with a digest, a repeated stem gets `~2`, ...;
`file_stem`), the graph inputs too, and `manifest.json` listing them in
execution (topological) order:

```json
{"version": 1, "source": "ge-run",
 "entries": [{"name": "conv1", "op": "ge.conv2d",
              "outputs": [{"file": "conv1.npy", "shape": [1, 64, 111, 111],
                           "dtype": "float32", "origin_format": "NCHW",
                           "storage_format": "NC1HWC0"}]}, ...]}
```

With `--dump-stored` the raw storage-layout copies go to `DIR/stored/`.

`ge-dump-compare` (`tools.ge_dump_compare.onnx_dump`) writes the same kind
of folder from onnxruntime, with every intermediate ONNX value made a graph
output, entries named by ONNX node
name (as `ge_frontend.onnx_import` names ops). `compare_dumps(ours,
reference)` walks the reference's entries in order and reports the first
whose outputs diverge: max |ours - reference| > atol + rtol * max
|reference|. An ONNX node imported as several ops (`node`, `node/helper`)
is compared through the last of them, the one producing its value; a fused
group `conv+relu` (`fuse-ops`) holds the value of its last node, `relu`.

`tools/ge_dump_compare.py` is the command line:

    ge-dump-compare OURS_DIR REFERENCE_DIR
    ge-dump-compare OURS_DIR model.onnx      # onnxruntime on OURS's inputs
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import confined_path, read_json_file
from ge_dialect.relayout import ValueLayout
from ge_dialect.schema import Integer, ListOf, Object, String, check_document
from ge_runtime.engines.compare import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    largest_magnitude,
    max_abs_error,
)
from ge_runtime.npy import load_npy, save_npy

MANIFEST = "manifest.json"
DUMP_VERSION = 1
STORED_DIR = "stored"
INPUT_OP = "input"
"""The `op` of graph-input entries."""


MAX_STEM = 100
"""The longest file name stem (a fused group's node name `a+b+c+...` can be
longer than file systems allow, 255 bytes)."""


def file_stem(name: str) -> str:
    """A file name stem for a tensor or node name: characters other than
    letters, digits, `.`, `_` and `-` become `_`, leading dots go (no hidden
    files, no `..`), and a stem longer than `MAX_STEM` is cut and ends with
    a digest of the whole name, so different long names stay different."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "_"
    if len(stem) <= MAX_STEM:
        return stem
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{stem[: MAX_STEM - len(digest) - 1]}-{digest}"


@dataclass
class StemAllocator:
    """Hands out unique file name stems: a stem already given gets `~2`,
    `~3`, ... appended."""

    taken: set[str] = field(default_factory=set)

    def __call__(self, name: str) -> str:
        """A stem for `name` that no earlier call returned."""
        stem = file_stem(name)
        candidate, number = stem, 1
        while candidate in self.taken:
            number += 1
            candidate = f"{stem}~{number}"
        self.taken.add(candidate)
        return candidate


@dataclass
class DumpWriter:
    """Writes arrays as they are produced; the manifest when closed."""

    directory: Path
    source: str = "ge-run"
    stored: bool = False
    entries: list[dict[str, Any]] = field(default_factory=list)
    _stems: StemAllocator = field(default_factory=StemAllocator)

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.stored:
            (self.directory / STORED_DIR).mkdir(exist_ok=True)

    def add(
        self,
        name: str,
        op: str,
        arrays: Sequence[np.ndarray],
        layouts: Sequence[ValueLayout | None] = (),
        stored: Sequence[np.ndarray] = (),
    ) -> None:
        """Dump one op's results (origin layout), optionally their storage copies."""
        stem = self._stems(name)
        outputs = []
        for index, array in enumerate(arrays):
            file = f"{stem}.npy" if len(arrays) == 1 else f"{stem}.{index}.npy"
            save_npy(self.directory / file, array)
            output: dict[str, Any] = {
                "file": file,
                "shape": list(np.shape(array)),
                "dtype": str(np.asarray(array).dtype),
            }
            layout = layouts[index] if index < len(layouts) else None
            if layout is not None:
                output["origin_format"] = layout.origin.value
                output["storage_format"] = layout.storage.value
            if self.stored and index < len(stored):
                save_npy(self.directory / STORED_DIR / file, stored[index])
                output["stored_file"] = f"{STORED_DIR}/{file}"
            outputs.append(output)
        self.entries.append({"name": name, "op": op, "outputs": outputs})

    def close(self) -> Path:
        """Write the manifest; return its path."""
        path = self.directory / MANIFEST
        data = {"version": DUMP_VERSION, "source": self.source, "entries": self.entries}
        path.write_text(json.dumps(data, indent=1) + "\n")
        return path


# ---------------------------------------------------------------------------
# Reading dumps
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DumpEntry:
    """One dumped op: node name, op type and its result files."""

    name: str
    op: str
    files: tuple[Path, ...]

    def arrays(self) -> list[np.ndarray]:
        """The dumped results."""
        return [load_npy(path) for path in self.files]


@dataclass(frozen=True)
class Dump:
    """A dump folder: entries in execution order."""

    directory: Path
    source: str
    entries: tuple[DumpEntry, ...]

    def inputs(self) -> dict[str, np.ndarray]:
        """The graph inputs recorded in the dump, by name."""
        return {e.name: e.arrays()[0] for e in self.entries if e.op == INPUT_OP}


def load_dump(directory: str | os.PathLike[str]) -> Dump:
    """Read a dump folder's manifest (GEError if it is not a dump)."""
    root = Path(directory)
    path = root / MANIFEST
    if not path.is_file():
        raise GEError(f"error: '{directory}' is not a dump (no {MANIFEST})")
    label = str(path)
    data = read_json_file(path, "dump manifest")
    check_document(DUMP_SCHEMA, data, label, "dump manifest")
    entries = tuple(
        DumpEntry(
            entry["name"],
            entry["op"],
            tuple(
                confined_path(root, output["file"], "dumped file", label)
                for output in entry["outputs"]
            ),
        )
        for entry in data["entries"]
    )
    return Dump(root, data.get("source", ""), entries)


_OUTPUT = Object(
    {
        "file": String(),
        "shape": ListOf(Integer(0)),
        "dtype": String(),
        "origin_format": String(),
        "storage_format": String(),
        "stored_file": String(),
    },
    optional={"shape", "dtype", "origin_format", "storage_format", "stored_file"},
)
DUMP_SCHEMA = Object(
    {
        "version": Integer(DUMP_VERSION, DUMP_VERSION),
        "source": String(),
        "entries": ListOf(
            Object({"name": String(), "op": String(), "outputs": ListOf(_OUTPUT)})
        ),
    },
    optional={"source"},
)
"""What a dump folder's `manifest.json` holds (`DumpWriter.close` writes it)."""


# ---------------------------------------------------------------------------
# onnxruntime intermediates
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Comparing
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputCheck:
    """One compared result: reference entry, our entry, error and limit."""

    name: str
    op: str
    index: int
    error: float
    limit: float
    ours: str

    @property
    def ok(self) -> bool:
        """Whether the result is within tolerance."""
        return self.error <= self.limit

    def line(self) -> str:
        """`conv1 (Conv) #0: max abs error 1.2e-07 (limit 3.1e-03): ok`."""
        verdict = "ok" if self.ok else "DIVERGES"
        ours = "" if self.ours == self.name else f" [ours: {self.ours}]"
        return (
            f"{self.name} ({self.op}){ours} #{self.index}: max abs error "
            f"{self.error:.3e} (limit {self.limit:.3e}): {verdict}"
        )


@dataclass
class Comparison:
    """What `compare_dumps` found."""

    checks: list[OutputCheck] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Reference entries without a counterpart (or of another shape)."""

    @property
    def first_divergence(self) -> OutputCheck | None:
        """The first check (reference order) beyond tolerance."""
        return next((c for c in self.checks if not c.ok), None)

    def summary(self) -> str:
        """One line: the first diverging op, or how many agreed."""
        first = self.first_divergence
        compared = len({c.name for c in self.checks})
        if first is None:
            return (
                f"no divergence: {compared} ops compared, {len(self.skipped)} "
                "without counterpart"
            )
        ours = "" if first.ours == first.name else f" (ours: '{first.ours}')"
        return (
            f"first divergence at op '{first.name}' ({first.op}){ours} output "
            f"#{first.index}: max abs error {first.error:.3e} > {first.limit:.3e}"
        )


def counterpart(ours: Dump, name: str, reference_names: set[str]) -> DumpEntry | None:
    """Our entry holding reference node `name`'s value: the last one named
    `name`, ending a fused group `a+b+name`, or an import helper `name/...`
    (unless that helper is a reference node itself)."""
    found = None
    for entry in ours.entries:
        produced = entry.name.rsplit("+", 1)[-1]
        if produced == name or (
            produced.startswith(f"{name}/") and produced not in reference_names
        ):
            found = entry
    return found


def compare_dumps(
    ours: Dump,
    reference: Dump,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    *,
    stop_at_first: bool = True,
) -> Comparison:
    """Compare `ours` with `reference`, op by op in the reference's order."""
    comparison = Comparison()
    names = {e.name for e in reference.entries}
    for entry in reference.entries:
        if entry.op == INPUT_OP:
            continue
        mine = counterpart(ours, entry.name, names)
        expected = entry.arrays()
        got = mine.arrays() if mine is not None else []
        if len(got) != len(expected) or any(
            a.shape != b.shape for a, b in zip(got, expected, strict=True)
        ):
            comparison.skipped.append(entry.name)
            continue
        for index, (a, b) in enumerate(zip(got, expected, strict=True)):
            error, limit = _difference(a, b, rtol, atol)
            comparison.checks.append(
                OutputCheck(entry.name, entry.op, index, error, limit, mine.name)
            )
        if stop_at_first and comparison.first_divergence is not None:
            break
    return comparison


def _difference(
    ours: np.ndarray, reference: np.ndarray, rtol: float, atol: float
) -> tuple[float, float]:
    """(max abs error, limit), special values as `ge_runtime.engines.compare` says."""
    limit = atol + rtol * largest_magnitude(reference)
    return max_abs_error(ours, reference), limit
