"""The op-information library: what each op's kernels support.

One record per op (GE's ops-kernel info), keyed by the op's full name, read
from the JSON files in `data/opinfo/` and extensible from a user file
(`load_opinfo_file`, or `ge-opt --opinfo FILE`). An op without an entry gets
the record its traits imply (`derived_op_info`: a `FormatAgnostic` elementwise
op runs in any format), so a new elementwise op needs no entry:

```json
"ge.conv2d": {
  "engine": "AICore",
  "dtypes": ["float16", "float32", "bfloat16", "int8"],
  "inputs": [{"name": "x", "formats": ["NC1HWC0", "origin"]},
             {"name": "filter", "formats": ["FRACTAL_Z", "origin"]},
             {"name": "bias", "formats": ["origin", "origin"]}],
  "outputs": [{"name": "y", "formats": ["NC1HWC0", "origin"]}],
  "heavy": true,
  "fallback_enabled": false, "fallback_mode": null,
  "fusion": {"pattern": "Convolution"}
}
```

- `inputs`/`outputs` are keyed by the op's IRDL operand/result names; the
  i-th entries of all `formats` lists together form the op's i-th supported
  **format combination**, in preference order (as in GE's op info, where
  `input0.format` and `output0.format` are aligned lists). `"origin"` means
  the tensor's own origin format. A tensor without an entry is `origin` in
  every combination; `reshape_type` says how an under-rank operand expands
  to full rank in an internal format (e.g. `"C"` for a bias).
- `heavy` ops choose their preferred combination on their own and anchor
  the storage-format spread; `broadcast` ops need every non-scalar operand
  to span the result's channels (5HD) or matrix (NZ) to run in an internal
  format; `channel_aligned` ops run in NC1HWC0 only when C % C0 == 0.
- `engine` ("AICore"/"AICPU"), `dtypes` (null: any), `fallback_enabled`,
  `fallback_mode` ("support_aclnn"/"aclnn_only") and the free-form `fusion`
  object are read by engine partitioning, AI CPU Cast insertion, fallback
  marking and fusion.
- `precision_reduce` (GE's `precision_reduce.flag`) is the op's place in
  mixed precision (`select-precision`, `--precision_mode=allow_mix_precision`):
  `true` runs in float16 (cube ops), `false` keeps float32 (reductions,
  softmax, normalisations, exp/log), absent follows its inputs.

A user file has the same shape. An entry for a known op replaces only the
fields it gives; an entry for a new op starts from the defaults (AICore, any
dtype, origin format only).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xdsl.ir import Operation

from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import canonical_dtype
from ge_dialect.formats import Format, FormatError, parse_format
from ge_dialect.input_files import read_json_file
from ge_dialect.ops import OPS_BY_NAME
from ge_dialect.traits import Broadcasting, Elementwise, FormatAgnostic

ORIGIN = "origin"
"""The format token meaning "the tensor's own origin format"."""

_DATA_DIR = Path(__file__).parent / "data" / "opinfo"


class Engine(enum.StrEnum):
    """The engine that runs an op."""

    AICORE = "AICore"
    AICPU = "AICPU"


class FallbackMode(enum.StrEnum):
    """When a fallback-enabled op runs through its host single-op function."""

    SUPPORT_ACLNN = "support_aclnn"
    """Only under dynamic shapes; sunk with the graph when static."""
    ACLNN_ONLY = "aclnn_only"
    """Always; a static graph is split around the op."""

    @property
    def effect(self) -> str:
        """What the mode means for a run, as a log line says it."""
        if self is FallbackMode.ACLNN_ONLY:
            return "always a host single-op call; a static graph is split around it"
        return (
            "sunk with the graph while shapes are static; "
            "a host single-op call only under dynamic shapes"
        )


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """One input or output: its format per combination (None: origin format)."""

    name: str
    formats: tuple[Format | None, ...]
    reshape_type: str | None = None


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """What an op's kernels support (see the module docstring)."""

    op: str
    engine: Engine = Engine.AICORE
    dtypes: frozenset[str] | None = None
    inputs: tuple[TensorInfo, ...] = ()
    outputs: tuple[TensorInfo, ...] = ()
    heavy: bool = False
    broadcast: bool = False
    channel_aligned: bool = False
    fallback_enabled: bool = False
    fallback_mode: FallbackMode | None = None
    fusion: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    precision_reduce: bool | None = None
    description: str = ""

    @property
    def num_combinations(self) -> int:
        """How many format combinations the op supports (at least one)."""
        return max((len(t.formats) for t in (*self.inputs, *self.outputs)), default=1)

    def input(self, name: str) -> TensorInfo | None:
        """The input called `name`, if the record has it."""
        return next((t for t in self.inputs if t.name == name), None)

    def output(self, name: str) -> TensorInfo | None:
        """The output called `name`, if the record has it."""
        return next((t for t in self.outputs if t.name == name), None)

    def supports_dtype(self, dtype: str) -> bool:
        """Whether the op's kernels take `dtype` (a dtype name such as "float16")."""
        return self.dtypes is None or canonical_dtype(dtype) in self.dtypes


def op_key(op: str | Operation | type[Operation]) -> str:
    """The library key of an op, op class or op name: the op's full name."""
    return op if isinstance(op, str) else op.name


AGNOSTIC_FORMATS: tuple[Format | None, ...] = (
    Format.NC1HWC0,
    Format.FRACTAL_NZ,
    None,
)
"""What a `FormatAgnostic` op runs in when its record does not say."""


def derived_op_info(op_class: type[Operation]) -> OpInfo | None:
    """The record an op's traits imply, for ops the library has no entry for.

    A `FormatAgnostic` elementwise op runs in NC1HWC0, FRACTAL_NZ or its
    origin format on every tensor, fuses as an elementwise (or broadcast)
    epilogue, and takes any dtype. Other ops imply nothing.
    """
    if not (op_class.has_trait(FormatAgnostic) and op_class.has_trait(Elementwise)):
        return None
    broadcast = op_class.has_trait(Broadcasting)
    definition = op_class.get_irdl_definition()  # type: ignore[attr-defined]
    formats = AGNOSTIC_FORMATS
    return OpInfo(
        op_class.name,
        inputs=tuple(TensorInfo(name, formats) for name, _ in definition.operands),
        outputs=tuple(TensorInfo(name, formats) for name, _ in definition.results),
        broadcast=broadcast,
        fusion={
            "pattern": "Broadcast" if broadcast else "ElemWise",
            "formats": [f.value if f else ORIGIN for f in formats],
        },
        description="Derived from the op's traits: runs in any format.",
    )


def find_op_info(op: str | Operation | type[Operation]) -> OpInfo | None:
    """The record of an op (op class, or op name): the library's entry, else
    what its traits imply, else None."""
    record = _registry().get(op_key(op))
    if record is not None:
        return record
    op_class = OPS_BY_NAME.get(op) if isinstance(op, str) else op
    if op_class is None:
        return None
    return derived_op_info(op_class if isinstance(op_class, type) else type(op_class))


def op_info(op: str | Operation | type[Operation]) -> OpInfo:
    """The record of an op; ops without one get the default (origin formats only)."""
    return find_op_info(op) or OpInfo(op_key(op))


def known_ops() -> tuple[str, ...]:
    """The keys of every op the library has a record for."""
    return tuple(sorted(_registry()))


def register_op_info(info: OpInfo) -> OpInfo:
    """Add or replace the record of `info.op`."""
    _registry()[info.op] = info
    return info


def load_opinfo_file(path: str | Path) -> list[OpInfo]:
    """Read a user op-info JSON file and register its records (see module doc)."""
    data = _read_json(Path(path))
    return [
        register_op_info(_parse_record(op, fields, find_op_info(op), str(path)))
        for op, fields in data.items()
    ]


@functools.cache
def _registry() -> dict[str, OpInfo]:
    records: dict[str, OpInfo] = {}
    for path in sorted(_DATA_DIR.glob("*.json")):
        for op, fields in _read_json(path).items():
            records[op] = _parse_record(op, fields, None, str(path))
    return records


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = read_json_file(path, "op info file")
    except OSError as error:
        raise GEError(
            f"error: cannot read op info file '{path}': {error.strerror}"
        ) from None
    if not isinstance(data, dict):
        raise GEError(f"error: op info file '{path}' must hold a JSON object")
    return data


_FIELDS = frozenset(f.name for f in dataclasses.fields(OpInfo)) - {"op"}


def _parse_record(op: str, fields: Any, base: OpInfo | None, source: str) -> OpInfo:
    """An OpInfo from a JSON record, on top of `base` (an existing record)."""

    def fail(message: str) -> GEError:
        return GEError(f"error: op info file '{source}': op '{op}': {message}")

    if "." not in op:
        hint = f" (did you mean 'ge.{op}'?)" if f"ge.{op}" in OPS_BY_NAME else ""
        raise fail(f"op names are full names such as 'ge.relu'{hint}")
    if op.startswith("ge.") and op not in OPS_BY_NAME:
        raise fail("the ge dialect has no such op")
    if not isinstance(fields, dict):
        raise fail("the record must be a JSON object")
    if unknown := sorted(set(fields) - _FIELDS):
        raise fail(
            f"unknown field '{unknown[0]}' (fields: {', '.join(sorted(_FIELDS))})"
        )
    changes: dict[str, Any] = {}
    for name, value in fields.items():
        try:
            changes[name] = _FIELD_PARSERS[name](value)
        except (ValueError, TypeError, FormatError) as error:
            raise fail(f"field '{name}': {error}") from None
    info = dataclasses.replace(base or OpInfo(op_key(op)), **changes)
    if info.fallback_mode is not None and not info.fallback_enabled:
        raise fail("'fallback_mode' needs 'fallback_enabled': true")
    if info.fallback_enabled and info.fallback_mode is None:
        info = dataclasses.replace(info, fallback_mode=FallbackMode.SUPPORT_ACLNN)
    counts = {len(t.formats) for t in (*info.inputs, *info.outputs)}
    if len(counts) > 1:
        raise fail(
            "every input and output needs the same number of formats (one per "
            f"combination), got {sorted(counts)}"
        )
    return info


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _dtypes(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise TypeError(f"expected a list of dtype names or null, got {value!r}")
    return frozenset(canonical_dtype(_string(v)) for v in value)


def _format_token(token: Any) -> Format | None:
    token = _string(token)
    return None if token == ORIGIN else parse_format(token)


def _tensors(value: Any) -> tuple[TensorInfo, ...]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list of tensor records, got {value!r}")
    return tuple(_tensor(item) for item in value)


def _tensor(item: Any) -> TensorInfo:
    if not isinstance(item, dict) or not {"name", "formats"} <= set(item):
        raise TypeError(f"a tensor record needs 'name' and 'formats', got {item!r}")
    if unknown := sorted(set(item) - {"name", "formats", "reshape_type"}):
        raise ValueError(f"unknown tensor field '{unknown[0]}'")
    formats = item["formats"]
    if not isinstance(formats, list) or not formats:
        raise TypeError(f"'formats' must be a non-empty list, got {formats!r}")
    reshape_type = item.get("reshape_type")
    return TensorInfo(
        _string(item["name"]),
        tuple(_format_token(f) for f in formats),
        None if reshape_type is None else _string(reshape_type),
    )


def _fallback_mode(value: Any) -> FallbackMode | None:
    if value is None:
        return None
    try:
        return FallbackMode(_string(value))
    except ValueError:
        modes = ", ".join(m.value for m in FallbackMode)
        raise ValueError(
            f"unknown fallback mode {value!r} (expected {modes})"
        ) from None


def _engine(value: Any) -> Engine:
    try:
        return Engine(_string(value))
    except ValueError:
        engines = ", ".join(e.value for e in Engine)
        raise ValueError(f"unknown engine {value!r} (expected {engines})") from None


def _fusion(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {value!r}")
    return dict(value)


_FIELD_PARSERS: Mapping[str, Any] = {
    "engine": _engine,
    "dtypes": _dtypes,
    "inputs": _tensors,
    "outputs": _tensors,
    "heavy": _bool,
    "broadcast": _bool,
    "channel_aligned": _bool,
    "fallback_enabled": _bool,
    "fallback_mode": _fallback_mode,
    "fusion": _fusion,
    "precision_reduce": _bool,
    "description": _string,
}
