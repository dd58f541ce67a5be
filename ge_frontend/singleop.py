"""ATC's single-op description files (`ge-atc --singleop op.json`) as `ge` graphs.

The file is a JSON list; each entry describes one operator and becomes one
graph (one offline model):

```json
[{"op": "Conv2D",
  "input_desc": [
    {"format": "NC1HWC0", "origin_format": "NCHW", "shape": [1, 2, 8, 8, 16],
     "origin_shape": [1, 17, 8, 8], "type": "float16"},
    {"format": "NCHW", "shape": [33, 17, 3, 3], "type": "float16"}],
  "output_desc": [{"format": "NC1HWC0", "origin_format": "NCHW",
                   "shape": [1, 3, 6, 6, 16], "origin_shape": [1, 33, 6, 6],
                   "type": "float16"}],
  "attr": [{"name": "strides", "type": "list_int", "value": [1, 1, 1, 1]},
           {"name": "pads", "type": "list_int", "value": [0, 0, 0, 0]}]}]
```

- Each `input_desc` is a graph input (`ge.data`, named by its `name` key or
  the operand's name: `x`, `filter`, ...). `format` is the storage format
  and `shape` the storage shape;
  for an internal format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...) the desc also
  needs `origin_format` and `origin_shape`, and `shape` must be what the
  format library derives for the target. The input then carries
  `storage_format` for `refine-running-format`.
- `output_desc` checks the inferred results (origin shape and dtype) and
  asks for their storage formats (`ge.netoutput` `storage_formats`).
- `type` is a dtype name (ATC's `float` is float32, `double` float64).
- `attr` entries (`name`, `type`, `value`) are renamed to the `ge` op's
  attributes by the op table `SINGLE_OPS` (ATC/TensorFlow op type -> `ge`
  op, operand names, attribute names, attributes implied by the op type).

An entry's optional `name` becomes the op's node name. Constant inputs
(`is_const`) and shape ranges are not supported. Everything wrong in a
description is a one-line `GEError` naming the entry.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from ge_dialect.builder import GraphBuilder, dtype_of
from ge_dialect.diagnostics import GEError
from ge_dialect.dtypes import element_type
from ge_dialect.formats import INTERNAL_FORMATS, ORIGIN_FORMATS, Format, FormatError
from ge_dialect.input_files import read_json_file
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.relayout import transfer_shape
from ge_frontend.importing import same_padding

Adapter = Callable[[dict[str, Any], Sequence["TensorDesc"]], None]
"""Fills attributes derived from the descs (e.g. pads from TF padding)."""

DTYPE_ALIASES = {"float": "float32", "double": "float64"}
DESC_KEYS = {"name", "format", "origin_format", "shape", "origin_shape", "type"}
OP_KEYS = {"op", "name", "input_desc", "output_desc", "attr"}
ATTR_TYPES = {
    "bool": bool,
    "int": int,
    "float": (int, float),
    "string": str,
    "data_type": str,
    "list_bool": bool,
    "list_int": int,
    "list_float": (int, float),
    "list_string": str,
}
"""ATC attribute type -> Python type of the value (or of each list element)."""


@dataclass(frozen=True)
class TensorDesc:
    """One input or output description: formats, shapes and dtype."""

    name: str | None
    origin_format: Format
    storage_format: Format
    shape: tuple[int, ...]
    storage_shape: tuple[int, ...]
    dtype: str

    def tag(self) -> str:
        """`float16_NC1HWC0_1_2_8_8_16`, used in offline model file names."""
        dims = "_".join(str(d) for d in self.storage_shape)
        return f"{self.dtype}_{self.storage_format.value}_{dims}"


@dataclass(frozen=True)
class SingleOp:
    """How one ATC op type maps onto a `ge` op."""

    ge_op: str
    inputs: tuple[str, ...]
    """Operand names; `?` marks an optional one, `*` one variadic operand."""
    attrs: Mapping[str, str] = field(default_factory=dict)
    """ATC attribute name -> `ge` attribute name."""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """`ge` attributes implied by the op type."""
    neutral: Mapping[str, Any] = field(default_factory=dict)
    """ATC attributes accepted only with this (no-op) value."""
    adapt: Adapter | None = None


def _data_format_from_input(attrs: dict[str, Any], descs: Sequence[TensorDesc]) -> None:
    """NCHW/NHWC ops default `data_format` to their first input's origin format."""
    origin = descs[0].origin_format.value
    attrs.setdefault("data_format", origin if origin in ("NCHW", "NHWC") else "NCHW")


def _explicit_pads(
    attrs: dict[str, Any], descs: Sequence[TensorDesc], letters: str
) -> None:
    """A pool's TensorFlow `padding` (SAME/VALID) as explicit `pads` (begin,
    end per axis of `letters`, in that order) unless `pads` are given."""
    padding = attrs.pop("padding", None)
    if padding is None or "pads" in attrs:
        return
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be SAME or VALID, got '{padding}'")
    layout = attrs["data_format"]
    pads: list[int] = []
    for axis in (layout.index(letter) for letter in letters):
        size, kernel = descs[0].shape[axis], attrs["ksize"][axis]
        stride = attrs.get("strides", [1] * len(layout))[axis]
        pads += same_padding(size, kernel, stride) if padding == "SAME" else (0, 0)
    attrs["pads"] = pads


def _tf_padding(attrs: dict[str, Any], descs: Sequence[TensorDesc]) -> None:
    """A 2-D pool: `data_format` from the input, TensorFlow `padding` as
    explicit `pads`."""
    _data_format_from_input(attrs, descs)
    _explicit_pads(attrs, descs, "HW")


def _volume_window(attrs: dict[str, Any], descs: Sequence[TensorDesc]) -> None:
    """3-D ops: `data_format` defaults to the first input's origin format
    (NCDHW or NDHWC; else NDHWC, GE's default), and a pool's TensorFlow
    `padding` (SAME/VALID) becomes 6 explicit `pads`."""
    origin = descs[0].origin_format.value
    attrs.setdefault("data_format", origin if origin in ("NCDHW", "NDHWC") else "NDHWC")
    _explicit_pads(attrs, descs, "DHW")


def _softmax_axes(attrs: dict[str, Any], descs: Sequence[TensorDesc]) -> None:
    """SoftmaxV2 `axes` (one axis) as `axis`."""
    axes = attrs.pop("axes", None)
    if axes is None:
        return
    if len(axes) != 1:
        raise ValueError(f"only one softmax axis is supported, got {axes}")
    attrs["axis"] = axes[0]


def _transdata_formats(attrs: dict[str, Any], descs: Sequence[TensorDesc]) -> None:
    """TransData `src_format` defaults to its input's storage format."""
    attrs.setdefault("src_format", descs[0].storage_format.value)


WINDOW_ATTRS = {
    "ksize": "ksize",
    "strides": "strides",
    "pads": "pads",
    "padding": "padding",
    "data_format": "data_format",
    "ceil_mode": "ceil_mode",
}

_UNARY = {
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Exp": "exp",
    "Log": "log",
    "Sqrt": "sqrt",
    "Abs": "abs",
    "Neg": "neg",
    "Reciprocal": "reciprocal",
    "Softplus": "softplus",
    "Identity": "identity",
}
_BINARY = {
    "Add": "add",
    "AddV2": "add",
    "Sub": "sub",
    "Mul": "mul",
    "RealDiv": "div",
    "Div": "div",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Pow": "pow",
}

SINGLE_OPS: dict[str, SingleOp] = {
    **{name: SingleOp(op, ("x",)) for name, op in _UNARY.items()},
    **{name: SingleOp(op, ("x1", "x2")) for name, op in _BINARY.items()},
    "LeakyRelu": SingleOp("leaky_relu", ("x",), {"negative_slope": "alpha"}),
    "Elu": SingleOp("elu", ("x",), {"alpha": "alpha"}),
    "Relu6": SingleOp("clip", ("x",), fixed={"min": 0.0, "max": 6.0}),
    "Conv2D": SingleOp(
        "conv2d",
        ("x", "filter", "bias?"),
        {a: a for a in ("strides", "pads", "dilations", "groups", "data_format")},
        neutral={"offset_x": 0},
        adapt=_data_format_from_input,
    ),
    "MatMul": SingleOp(
        "matmul",
        ("x1", "x2", "bias?"),
        {
            "transpose_x1": "transpose_x1",
            "transpose_x2": "transpose_x2",
            "transpose_a": "transpose_x1",
            "transpose_b": "transpose_x2",
        },
    ),
    "MatMulV2": SingleOp(
        "matmul",
        ("x1", "x2", "bias?"),
        {"transpose_x1": "transpose_x1", "transpose_x2": "transpose_x2"},
        neutral={"offset_x": 0},
    ),
    "BatchMatMul": SingleOp(
        "batch_matmul", ("x1", "x2"), {"adj_x1": "adj_x1", "adj_x2": "adj_x2"}
    ),
    "BatchMatMulV2": SingleOp(
        "batch_matmul",
        ("x1", "x2"),
        {"adj_x1": "adj_x1", "adj_x2": "adj_x2"},
        neutral={"offset_x": 0},
    ),
    "TransData": SingleOp(
        "transdata",
        ("src",),
        {"src_format": "src_format", "dst_format": "dst_format", "groups": "groups"},
        adapt=_transdata_formats,
    ),
    "Conv3D": SingleOp(
        "conv3d",
        ("x", "filter", "bias?"),
        {a: a for a in ("strides", "pads", "dilations", "groups", "data_format")},
        neutral={"offset_x": 0},
        adapt=_volume_window,
    ),
    "MaxPool3D": SingleOp("max_pool3d", ("x",), WINDOW_ATTRS, adapt=_volume_window),
    "AvgPool3D": SingleOp(
        "avg_pool3d",
        ("x",),
        {**WINDOW_ATTRS, "count_include_pad": "count_include_pad"},
        adapt=_volume_window,
    ),
    "MaxPool": SingleOp("max_pool", ("x",), WINDOW_ATTRS, adapt=_tf_padding),
    "AvgPool": SingleOp("avg_pool", ("x",), WINDOW_ATTRS, adapt=_tf_padding),
    "BiasAdd": SingleOp(
        "bias_add",
        ("x", "bias"),
        {"data_format": "data_format"},
        adapt=_data_format_from_input,
    ),
    "Softmax": SingleOp("softmax", ("x",), {"axis": "axis"}),
    "SoftmaxV2": SingleOp("softmax", ("x",), {"axes": "axes"}, adapt=_softmax_axes),
    "Transpose": SingleOp("transpose", ("x",), {"perm": "perm"}),
    "TransposeD": SingleOp("transpose", ("x",), {"perm": "perm"}),
    "ConcatD": SingleOp("concat", ("x*",), {"concat_dim": "axis"}, neutral={"N": None}),
    "ConcatV2D": SingleOp(
        "concat", ("x*",), {"concat_dim": "axis"}, neutral={"N": None}
    ),
}
"""ATC/TensorFlow op type -> its `ge` op (extend it to support more types)."""

OUTPUT_DERIVED = {"Cast": ("cast", "dst_type"), "Reshape": ("reshape", "shape")}
"""Op types whose `ge` attribute is read from the output desc (dtype, shape)."""


@dataclass(frozen=True)
class SingleOpModel:
    """One entry of a single-op file: its graph and its offline model file stem."""

    index: int
    op_type: str
    module: ModuleOp
    stem: str


class Entry:
    """Reads one entry of the list, reporting problems with its position."""

    def __init__(self, label: str, index: int, data: Any, target: str | None):
        self.label = label
        self.index = index
        self.target = target
        self.op_type = data.get("op") if isinstance(data, dict) else None
        self.data = data

    def error(self, message: str) -> GEError:
        """A one-line error about this entry."""
        what = f"op #{self.index}" + (f" ({self.op_type})" if self.op_type else "")
        return GEError(f"{self.label}: error: {what}: {message}")

    def build(self) -> SingleOpModel:
        """The entry's graph."""
        data = self.data
        if not isinstance(data, dict):
            raise self.error("must be a JSON object")
        if unknown := sorted(set(data) - OP_KEYS):
            raise self.error(f"unknown key '{unknown[0]}' (keys: {_list(OP_KEYS)})")
        if not isinstance(self.op_type, str):
            raise self.error('needs "op" (the op type, e.g. "Conv2D")')
        if not isinstance(data.get("name", ""), str):
            raise self.error("name must be a string")
        inputs = [
            self.desc(d, f"input_desc[{i}]")
            for i, d in enumerate(self.list("input_desc"))
        ]
        outputs = [
            self.desc(d, f"output_desc[{i}]")
            for i, d in enumerate(self.list("output_desc"))
        ]
        if not outputs:
            raise self.error("needs at least one output_desc")
        ge_op, attrs = self.ge_op_and_attrs(inputs, outputs)
        builder = GraphBuilder(f"{self.op_type}_{self.index}")
        operands = [
            builder.data(
                d.shape,
                d.dtype,
                format=d.origin_format,
                storage_format=d.storage_format
                if d.storage_format in INTERNAL_FORMATS
                else None,
                storage_shape=[] if d.storage_format in INTERNAL_FORMATS else None,
                name=d.name or default,
            )
            for d, default in zip(inputs, self.input_names(len(inputs)), strict=True)
        ]
        try:
            results = builder.op(
                ge_op, *self.group(operands), name=self.data.get("name"), **attrs
            )
        except (ValueError, TypeError, VerifyException) as error:
            raise self.error(_one_line(error)) from None
        results = results if isinstance(results, list) else [results]
        self.check_outputs(results, outputs)
        builder.output(
            *results, storage_formats=[d.storage_format.value for d in outputs]
        )
        try:
            module = builder.build()
        except GEError as error:
            raise self.error(str(error).split(": error: ", 1)[-1]) from None
        stem = "_".join(
            [str(self.index), self.op_type, *(d.tag() for d in inputs + outputs)]
        )
        return SingleOpModel(self.index, self.op_type, module, stem)

    def list(self, key: str) -> list[Any]:
        """The list under `key` (empty if absent)."""
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise self.error(f'"{key}" must be a list')
        return value

    def desc(self, data: Any, where: str) -> TensorDesc:
        """A tensor description, checked against the format library."""
        if not isinstance(data, dict):
            raise self.error(f"{where} must be a JSON object")
        if unknown := sorted(set(data) - DESC_KEYS):
            raise self.error(
                f"{where}: unknown key '{unknown[0]}' (keys: {_list(DESC_KEYS)})"
            )
        for key in ("format", "shape", "type"):
            if key not in data:
                raise self.error(f'{where} needs "{key}"')
        if not isinstance(data.get("name", ""), str):
            raise self.error(f"{where}: name must be a string")
        storage = self.format(data["format"], where)
        dtype = self.dtype(data["type"], where)
        shape = self.shape(data["shape"], where, "shape")
        if storage not in INTERNAL_FORMATS:
            origin = self.format(data.get("origin_format", storage.value), where)
            if origin != storage:
                raise self.error(
                    f"{where}: format {storage.value} with origin_format "
                    f"{origin.value} is not supported (only internal formats differ)"
                )
            return TensorDesc(data.get("name"), origin, storage, shape, shape, dtype)
        for key in ("origin_format", "origin_shape"):
            if key not in data:
                raise self.error(
                    f'{where}: internal format {storage.value} needs "{key}"'
                )
        origin = self.format(data["origin_format"], where)
        if origin not in ORIGIN_FORMATS:
            raise self.error(
                f"{where}: origin_format {origin.value} is not an origin format"
            )
        origin_shape = self.shape(data["origin_shape"], where, "origin_shape")
        try:
            derived = transfer_shape(
                origin_shape, origin, storage, dtype, target=self.target
            )
        except FormatError as error:
            raise self.error(f"{where}: {error}") from None
        if -1 not in derived and derived != shape:
            raise self.error(
                f"{where}: shape {list(shape)} is not the {storage.value} shape "
                f"{list(derived)} of origin_shape {list(origin_shape)} ({dtype})"
            )
        return TensorDesc(data.get("name"), origin, storage, origin_shape, shape, dtype)

    def dtype(self, name: Any, where: str) -> str:
        """A dtype name (ATC aliases allowed)."""
        dtype = DTYPE_ALIASES.get(name, name) if isinstance(name, str) else None
        try:
            element_type(str(dtype))
        except ValueError:
            raise self.error(f"{where}: unknown type {name!r}") from None
        return str(dtype)

    def format(self, name: Any, where: str) -> Format:
        """A format by name."""
        try:
            return Format(name)
        except ValueError:
            raise self.error(f"{where}: unknown format '{name}'") from None

    def shape(self, value: Any, where: str, key: str) -> tuple[int, ...]:
        """A list of dims (-1: unknown)."""
        if not isinstance(value, list) or not all(
            type(d) is int and d >= -1 for d in value
        ):
            raise self.error(f"{where}: {key} must be a list of dims (ints >= -1)")
        return tuple(value)

    def ge_op_and_attrs(
        self, inputs: Sequence[TensorDesc], outputs: Sequence[TensorDesc]
    ) -> tuple[str, dict[str, Any]]:
        """The `ge` op name and its attributes."""
        if self.op_type in OUTPUT_DERIVED:
            ge_op, attr = OUTPUT_DERIVED[self.op_type]
            self.check_count(len(inputs), self.operand_names())
            if self.list("attr"):
                raise self.error(f"{self.op_type} takes no attributes here")
            value = outputs[0].dtype if attr == "dst_type" else list(outputs[0].shape)
            return ge_op, {attr: value}
        spec = SINGLE_OPS.get(self.op_type)
        if spec is None:
            known = _list([*SINGLE_OPS, *OUTPUT_DERIVED])
            raise self.error(
                f"op type '{self.op_type}' is not supported (supported: {known})"
            )
        self.check_count(len(inputs), spec.inputs)
        attrs: dict[str, Any] = dict(spec.fixed)
        for entry in self.list("attr"):
            name, value = self.attr(entry)
            if name in spec.neutral:
                expected = spec.neutral[name]
                if expected is not None and value != expected:
                    raise self.error(f"attr '{name}' = {value!r} is not supported")
                continue
            if name not in spec.attrs:
                known = _list([*spec.attrs, *spec.neutral]) or "none"
                raise self.error(f"unknown attr '{name}' (attrs: {known})")
            attrs[spec.attrs[name]] = value
        if spec.adapt is not None:
            try:
                spec.adapt(attrs, inputs)
            except (ValueError, KeyError, IndexError) as error:
                raise self.error(_one_line(error)) from None
        return spec.ge_op, attrs

    def attr(self, entry: Any) -> tuple[str, Any]:
        """(name, value) of one `attr` entry, type-checked."""
        if not isinstance(entry, dict) or not {"name", "value"} <= set(entry):
            raise self.error('each attr needs "name", "type" and "value"')
        name, kind, value = entry["name"], entry.get("type"), entry["value"]
        if kind not in ATTR_TYPES:
            raise self.error(
                f"attr '{name}': unknown type '{kind}' (types: {_list(ATTR_TYPES)})"
            )
        expected = ATTR_TYPES[kind]
        items = (
            value if kind.startswith("list_") and isinstance(value, list) else [value]
        )
        if kind.startswith("list_") != isinstance(value, list) or not all(
            isinstance(v, expected) and (expected is bool or not isinstance(v, bool))
            for v in items
        ):
            raise self.error(f"attr '{name}': value {value!r} is not a {kind}")
        if kind == "data_type":
            value = DTYPE_ALIASES.get(value, value)
        return name, value

    def check_count(self, count: int, names: Sequence[str]) -> None:
        """The number of input descs fits the op's operands."""
        if any(n.endswith("*") for n in names):
            if count == 0:
                raise self.error("needs at least one input_desc")
            return
        required = sum(not n.endswith("?") for n in names)
        if not required <= count <= len(names):
            operands = ", ".join(names)
            raise self.error(
                f"has {count} input_desc, {self.op_type} takes ({operands})"
            )

    def operand_names(self) -> tuple[str, ...]:
        """The op's operand names (`?`: optional, `*`: variadic)."""
        spec = SINGLE_OPS.get(self.op_type)
        return spec.inputs if spec is not None else ("x",)

    def input_names(self, count: int) -> list[str]:
        """Default names of `count` graph inputs: the operand names."""
        names = self.operand_names()
        if names[0].endswith("*"):
            return [f"{names[0][:-1]}{i}" for i in range(count)]
        return [name.rstrip("?") for name in names[:count]]

    def group(self, operands: list[SSAValue]) -> list[Any]:
        """Operands as the builder takes them (a list for a variadic operand)."""
        return [operands] if self.operand_names()[0].endswith("*") else operands

    def check_outputs(
        self, results: Sequence[SSAValue], outputs: Sequence[TensorDesc]
    ) -> None:
        """The inferred results agree with the output descs."""
        if len(results) != len(outputs):
            raise self.error(
                f"has {len(outputs)} output_desc, the op has {len(results)} results"
            )
        for index, (value, desc) in enumerate(zip(results, outputs, strict=True)):
            inferred = shape_of(value.type)  # type: ignore[arg-type]
            if len(inferred) != len(desc.shape) or any(
                -1 not in (a, b) and a != b
                for a, b in zip(inferred, desc.shape, strict=True)
            ):
                raise self.error(
                    f"output_desc[{index}] has shape {list(desc.shape)}, the op "
                    f"computes {list(inferred)}"
                )
            if dtype_of(value) != desc.dtype:
                raise self.error(
                    f"output_desc[{index}] has type {desc.dtype}, the op computes "
                    f"{dtype_of(value)}"
                )
            origin = layout_of(value.type)[0]  # type: ignore[arg-type]
            if desc.storage_format in INTERNAL_FORMATS and origin not in (
                Format.ND,
                desc.origin_format,
            ):
                raise self.error(
                    f"output_desc[{index}] has origin_format "
                    f"{desc.origin_format.value}, the op computes {origin.value}"
                )


def parse_singleop(
    data: Any, label: str, target: str | None = None
) -> list[SingleOpModel]:
    """The graphs of a parsed single-op description list."""
    if not isinstance(data, list) or not data:
        raise GEError(
            f"{label}: error: a single-op file is a non-empty JSON list of ops"
        )
    return [Entry(label, i, entry, target).build() for i, entry in enumerate(data)]


def load_singleop_file(
    path: str | os.PathLike[str], target: str | None = None
) -> list[SingleOpModel]:
    """The graphs of a single-op description file (`target`: the soc_version)."""
    label = os.fspath(path)
    return parse_singleop(read_json_file(label, "single-op file"), label, target)


def _list(names: Any) -> str:
    return ", ".join(sorted(names))


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text.split(": error: ", 1)[-1] or type(error).__name__
