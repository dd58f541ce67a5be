"""What every model importer shares (ONNX, TensorFlow): values, the emitter, results.

A value during import is either an `SSAValue` (computed at run time) or a
NumPy array (known at import time: initializers, constants and everything
folded from them). Converters never have to care which: `ctx.op` runs the
host kernel when every operand is known (constant folding, so shape
computations such as `Shape -> Gather -> Concat -> Reshape` vanish) and
otherwise emits the op, turning array operands into `ge.const` once each.

Constants become `ge.const`: a splat (every element equal, e.g. a
`ConstantOfShape` output) as a one-element `dense<v>`, small arrays inline,
arrays above `inline_limit` elements as `#ge.external<"key">` with the array
kept in `GraphEmitter.weights` under the framework's name for the value.

Each front end has a driver (`onnx_import`, `tf_import`) that walks the
model's nodes and a converter table (`onnx_ops`, `tf_ops`) whose converters
take a `ConverterContext` and return the node's output values. Unsupported
nodes are collected (`UnsupportedOps`) and reported in one line at the end.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from ge_dialect.adapters import call_kernel
from ge_dialect.builder import GraphBuilder, dtype_of, tensor_type
from ge_dialect.diagnostics import GEError
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import element_type
from ge_dialect.formats import Format
from ge_dialect.limits import (
    DEFAULT_INLINE_LIMIT,
    INT64_MAX,
    over_budget,
    tensor_bytes,
)
from ge_dialect.ops import OPS_BY_NAME
from ge_dialect.shape_functions import UnknownDims
from ge_dialect.shape_inference import ShapeError, has_shape_function, infer_shapes

Value = SSAValue | np.ndarray
"""An imported value: computed at run time, or known at import time."""

WEIGHT_MODES = ("inline", "external")

CONVERSION_ERRORS = (
    GEError,
    VerifyException,
    ValueError,
    TypeError,
    IndexError,
    ZeroDivisionError,
)
"""What a converter raises for an invalid node (reported with the node's name)."""


class Unsupported(Exception):
    """A node the `ge` dialect cannot express; the message qualifies the op type."""


@dataclass
class ImportedModel:
    """An imported model: the module (verified unless the importer was told
    not to) and its external weights."""

    module: ModuleOp
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    input_names: list[str] = field(default_factory=list)
    output_names: list[str] = field(default_factory=list)


def one_line(error: BaseException) -> str:
    """An exception's message on one line, without a nested `...: error: ` prefix."""
    message = " ".join(str(error).split()) or type(error).__name__
    return message.split(": error: ", 1)[-1]


@dataclass(frozen=True)
class StructuredShape:
    """`--input_shape` of an input that is not a tensor: an ONNX sequence's
    element shapes (`x:([2,3],[4])`, `x:()` when empty), or an absent
    optional (`x:none`, `items` None)."""

    items: tuple[tuple[int, ...], ...] | None

    def text(self) -> str:
        """The `--input_shape` spelling (after `NAME:`)."""
        if self.items is None:
            return "none"
        return "(" + ",".join(f"[{_dims_text(d)}]" for d in self.items) + ")"


InputShape = Sequence[int] | StructuredShape
"""What `--input_shape` gives one input: dims, or a `StructuredShape`."""

_ELEMENT = re.compile(r"\s*\[([^\]]*)\]\s*(,|$)")
SHAPE_SYNTAX = (
    "expected NAME:D1,D2,... with integer dims, -1 for dynamic; a sequence as "
    "NAME:([D1,D2],[D3],...), an absent optional as NAME:none"
)


def _dims_text(dims: Sequence[int]) -> str:
    return ",".join(str(d) for d in dims)


def _parse_dims(text: str) -> list[int] | None:
    try:
        shape = [int(d) for d in text.split(",")] if text.strip() else []
    except ValueError:
        return None
    return shape if all(-1 <= d <= INT64_MAX for d in shape) else None


def _parse_input_shape(text: str) -> InputShape | None:
    """One input's shape text (after `NAME:`); None if malformed."""
    text = text.strip()
    if text == "none":
        return StructuredShape(None)
    if not text.startswith("("):
        return _parse_dims(text)
    if not text.endswith(")"):
        return None
    inner, items, at = text[1:-1], [], 0
    while inner[at:].strip():
        match = _ELEMENT.match(inner, at)
        dims = None if match is None else _parse_dims(match[1])
        if match is None or dims is None:
            return None
        items.append(tuple(dims))
        at = match.end()
    return StructuredShape(tuple(items))


def parse_input_shapes(text: str) -> dict[str, InputShape]:
    """ATC's `--input_shape` syntax: `"name:1,3,224,224;name2:8,-1"`; an
    ONNX sequence input as `seq:([2,3],[4])`, an absent optional as `opt:none`."""
    shapes: dict[str, InputShape] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, dims = item.rpartition(":")
        shape = _parse_input_shape(dims)
        if not sep or not name or shape is None:
            raise GEError(f"error: bad input shape '{item}' ({SHAPE_SYNTAX})")
        if name in shapes:
            raise GEError(f"error: input shape of '{name}' is given twice")
        shapes[name] = shape
    if not shapes:
        raise GEError("error: empty input shape (expected NAME:D1,D2,...)")
    return shapes


def fix_input_shape(
    label: str, name: str, shape: Sequence[int] | None, given: InputShape
) -> list[int]:
    """`shape` with its dynamic dims (-1) taken from the user's `given` shape
    (`shape` None: a tensor of unknown rank, `given` as it is).

    `label` (the model file) starts the error message.
    """
    if isinstance(given, StructuredShape):
        raise GEError(
            f"{label}: error: the input shape given for '{name}' "
            f"({given.text()}) is not a tensor's, but '{name}' is a tensor"
        )
    if shape is None:
        return [int(d) for d in given]
    if len(given) != len(shape):
        raise GEError(
            f"{label}: error: the input shape given for '{name}' has rank "
            f"{len(given)}, the model's has rank {len(shape)}"
        )
    for axis, (model_dim, user_dim) in enumerate(zip(shape, given, strict=True)):
        if model_dim != -1 and user_dim not in (-1, model_dim):
            raise GEError(
                f"{label}: error: the input shape given for '{name}' sets dim "
                f"{axis} to {user_dim}, the model fixes it to {model_dim}"
            )
    return [int(u) if m == -1 else m for m, u in zip(shape, given, strict=True)]


def check_input_names(label: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Every name the user gives a shape for must be a graph input."""
    known = set(known)
    for name in given:
        if name not in known:
            listing = ", ".join(sorted(known)) or "none"
            raise GEError(
                f"{label}: error: an input shape is given for '{name}', but the "
                f"graph inputs are: {listing}"
            )


class UnsupportedOps:
    """Unsupported op kinds and their nodes, reported together in one line;
    `reads_dynamic_dims` says whether one of them reads a tensor with
    dynamic dims (fixing the inputs' dims may then compile it)."""

    def __init__(self) -> None:
        self.nodes: dict[str, list[str]] = defaultdict(list)
        self.reads_dynamic_dims = False

    def add(self, kind: str, node: str, reads_dynamic_dims: bool = False) -> None:
        """Record node `node` of unsupported kind `kind`."""
        self.nodes[kind].append(node)
        self.reads_dynamic_dims |= reads_dynamic_dims

    def message(self, framework: str, dynamic_inputs: str = "") -> str | None:
        """`unsupported ONNX ops: Kind (nodes: a, b); ...`, or None if none;
        when a node reads dynamic dims and `dynamic_inputs` names the graph
        inputs' dims (`x:batch,3`), how `--input_shape` would fix them."""
        if not self.nodes:
            return None
        listing = "; ".join(
            f"{kind} (nodes: {', '.join(nodes)})" for kind, nodes in self.nodes.items()
        )
        message = f"unsupported {framework} ops: {listing}"
        if self.reads_dynamic_dims and dynamic_inputs:
            message += (
                f' (they read dynamic dims: --input_shape="{dynamic_inputs}" '
                "with numbers for the dynamic dims may compile them)"
            )
        return message


def shape_of(value: Value) -> tuple[int, ...]:
    """The shape of a value (-1 for a dynamic dim)."""
    if isinstance(value, np.ndarray):
        return value.shape
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tuple(-1 if dim < 0 else dim for dim in tensor.get_shape())


def dtype_name_of(value: Value) -> str:
    """The dtype name of a value ("float32", "int64", ..., "string")."""
    if not isinstance(value, np.ndarray):
        return dtype_of(value)
    if isinstance(value.dtype, np.dtypes.StringDType):
        return "string"
    return value.dtype.name


def is_splat(array: np.ndarray) -> bool:
    """Whether every element of `array` is the same (and there are several)."""
    if array.size <= 1:
        return False
    if all(stride == 0 for stride in array.strides):
        return True
    flat = array.reshape(-1)
    if flat[-1] != flat[0] or flat[flat.size // 2] != flat[0]:  # cheap early no
        return False
    return bool(np.all(flat == flat[0]))


@dataclass
class GraphEmitter:
    """Emits ops into one graph, folding constants and pooling `ge.const`s."""

    builder: GraphBuilder
    weights_mode: str = "external"
    inline_limit: int = DEFAULT_INLINE_LIMIT
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    value_names: dict[int, str] = field(default_factory=dict)
    _consts: dict[tuple[int, Format | None], tuple[np.ndarray, SSAValue]] = field(
        default_factory=dict
    )
    entries: dict[SSAValue, tuple[int | None, ...]] = field(default_factory=dict)
    """What is known of run-time integer vectors (shape values), entry by
    entry (None: unknown); filled by the ONNX importer."""
    verify: bool = True
    """Whether `finish` verifies the module (False: its caller verifies it
    before any pass runs on it, as `compile_module` does)."""

    def nested(self, builder: GraphBuilder) -> GraphEmitter:
        """An emitter for a subgraph being built by `builder`: the same weights
        and value names, its own constants (a region sees no outer value)."""
        return GraphEmitter(
            builder,
            self.weights_mode,
            self.inline_limit,
            self.weights,
            self.value_names,
        )

    def name_array(self, array: np.ndarray, name: str) -> None:
        """Remember `name` (the framework's value name) as the weight key of `array`."""
        self.value_names.setdefault(id(array), name)

    def tensor(self, value: Value, key: str, fmt: Format | None = None) -> SSAValue:
        """`value` as an SSA value; an array becomes a `ge.const` (once per format).

        `fmt` labels the constant with an origin format (a TensorFlow filter
        is HWCN); a run-time value is returned as it is.
        """
        if not isinstance(value, np.ndarray):
            return value
        cached = self._consts.get((id(value), fmt))
        if cached is not None:
            return cached[1]
        name = self.value_names.get(id(value), key)
        result = self._const(value, name, fmt)
        self._consts[(id(value), fmt)] = (value, result)
        return result

    def _const(self, array: np.ndarray, name: str, fmt: Format | None) -> SSAValue:
        dtype = array.dtype.name
        if is_splat(array):
            elem = element_type(dtype)
            first = array.reshape(-1)[:1].tolist()
            value = DenseIntOrFPElementsAttr(
                TensorType(elem, array.shape), BytesAttr(elem.pack(first))
            )
            return self.builder.op(
                "const",
                result_types=[tensor_type(array.shape, dtype, fmt)],
                name=name,
                value=value,
            )
        if self.weights_mode == "external" and array.size > self.inline_limit:
            key = self._unique_key(name)
            self.weights[key] = array
            return self.builder.external_const(
                key, array.shape, dtype, name=name, format=fmt
            )
        return self.builder.const(array, name=name, format=fmt)

    def _unique_key(self, name: str) -> str:
        key, count = name, 0
        while key in self.weights:
            count += 1
            key = f"{name}_{count}"
        return key

    def emit(
        self, op_name: str, operands: Sequence[Any], attrs: dict[str, Any], name: str
    ) -> Value | list[Value]:
        """Emit `ge.<op_name>`, or fold it when every operand is an array."""
        leaves = [
            leaf
            for operand in operands
            for leaf in (operand if isinstance(operand, list) else [operand])
            if leaf is not None
        ]
        if leaves and all(isinstance(leaf, np.ndarray) for leaf in leaves):
            _check_fold_size(op_name, leaves, attrs)
            return _fold(op_name, operands, attrs)
        key = f"{name}/const"
        ssa_operands = [self._operand(operand, key) for operand in operands]
        return self.builder.op(op_name, *ssa_operands, name=name, **attrs)

    def _operand(self, operand: Any, key: str) -> Any:
        if isinstance(operand, list):
            return [self.tensor(v, key) for v in operand]
        return None if operand is None else self.tensor(operand, key)

    def finish(self, outputs: Sequence[Value], names: Sequence[str]) -> ModuleOp:
        """End the graph with `ge.netoutput` of `outputs` (named `names`); verify
        unless `verify` is off."""
        values = [
            self.tensor(value, name) for value, name in zip(outputs, names, strict=True)
        ]
        self.builder.output(*values)
        terminator = self.builder.block.last_op
        assert terminator is not None
        terminator.attributes["output_names"] = ArrayAttr(
            [StringAttr(name) for name in names]
        )
        return self.builder.build(verify=self.verify)


@contextmanager
def errors_located_in(label: str, part: str | None = None) -> Iterator[None]:
    """Put the model file `label` (and the `part` of it, `op #0 (Relu)`) in
    front of errors the body reports at a node only (`node 'x': error: ...`,
    from the verifier of an op built for that node, or a compile stage):
    `FILE: error: PART: node 'x': ...`."""
    try:
        yield
    except GEError as error:
        where, separator, message = str(error).partition(": error: ")
        if not (separator and where.startswith("node '")):
            raise
        within = "" if part is None else f"{part}: "
        raise GEError(f"{label}: error: {within}{where}: {message}") from None


def check_fold_budget(
    shape: Sequence[int], dtype: Any, what: str = "folded result #0"
) -> None:
    """ValueError if an import-time array of `shape` and `dtype` would take
    more than the memory budget (checked before it is allocated)."""
    nbytes = tensor_bytes(shape, np.dtype(dtype).itemsize)
    if (reason := over_budget(nbytes, what)) is not None:
        raise ValueError(reason)


def _check_fold_size(
    op_name: str, arrays: Sequence[np.ndarray], attrs: dict[str, Any]
) -> None:
    """ValueError if folding `ge.<op_name>` on `arrays` (its operands, in
    order) would give a result over the memory budget, as its shape function
    tells before the kernel runs."""
    full_name = f"ge.{op_name}"
    if not has_shape_function(full_name):
        return
    results = infer_shapes(
        full_name, [a.shape for a in arrays], [a.dtype.name for a in arrays], attrs
    )
    for index, (shape, dtype) in enumerate(results):
        if -1 not in shape:
            check_fold_budget(shape, numpy_dtype(dtype), f"folded result #{index}")


def folded_within_budget(results: Iterable[Any]) -> list[Any]:
    """A converter's `results`; ValueError if an import-time array among them
    claims more than the memory budget (a broadcast view takes no memory yet,
    but its consumers' folds and the constant it may become do)."""
    results = list(results)
    for index, value in enumerate(results):
        if isinstance(value, np.ndarray):
            check_fold_budget(value.shape, value.dtype, f"folded result #{index}")
    return results


def _fold(op_name: str, operands: Sequence[Any], attrs: dict[str, Any]) -> Value:
    """Run the NumPy kernel of `ge.<op_name>` on import-time arrays."""
    result = call_kernel(OPS_BY_NAME[f"ge.{op_name}"], *operands, **attrs)
    if isinstance(result, list | tuple):
        return [np.asarray(r) for r in result]  # type: ignore[return-value]
    return np.asarray(result)


@dataclass
class ConverterContext:
    """One node being converted: its inputs and `op` to emit (framework-neutral).

    Front ends subclass it with the node and its attributes.
    """

    inputs: list[Value | None]
    outputs_used: list[bool]
    emitter: GraphEmitter

    @property
    def name(self) -> str:
        """The node's name (the `name` of the ops it becomes)."""
        raise NotImplementedError

    def input(self, index: int) -> Value:
        """Required input `index`."""
        value = self.optional_input(index)
        if value is None:
            raise ValueError(f"input #{index} is missing")
        return value

    def optional_input(self, index: int) -> Value | None:
        """Input `index`, or None when absent."""
        return self.inputs[index] if index < len(self.inputs) else None

    def constant(self, index: int, what: str) -> np.ndarray | None:
        """Optional input `index` that must be known at import time. A value
        with no elements (a static shape with a 0 dim, such as an empty
        graph input) is known: it is empty."""
        value = self.optional_input(index)
        if value is None or isinstance(value, np.ndarray):
            return value
        shape = shape_of(value)
        if 0 in shape and -1 not in shape:
            return np.zeros(shape, numpy_dtype(dtype_name_of(value)))
        raise Unsupported(f"with a non-constant {what}")

    def is_run_time(self, index: int) -> bool:
        """Whether input `index` is present and known only at run time (a
        value without elements is known: `constant` gives it)."""
        value = self.optional_input(index)
        if value is None or isinstance(value, np.ndarray):
            return False
        shape = shape_of(value)
        return not (0 in shape and -1 not in shape)

    def parameterized_op(
        self,
        op_name: str,
        inputs: Sequence[Any],
        parameters: Mapping[str, int],
        **options: Any,
    ) -> Value | list[Value]:
        """`ge.<op_name>` with parameters (name -> input index) that may be
        tensors known only at run time, bound by the op's own
        `bind_parameters`: now, to its attributes, when every parameter is
        known (and the dims it reads are); else `ge.dynamic_attrs` with the
        run-time ones as operands, the known ones and `options` static."""
        names, operands = [], []
        known = dict(options)
        for name, index in parameters.items():
            if self.is_run_time(index):
                names.append(name)
                operands.append(self.input(index))
            elif (value := self.constant(index, name)) is not None:
                known[name] = np.asarray(value).tolist()
        known = {k: v for k, v in known.items() if v is not None}
        if not names:
            op_class = OPS_BY_NAME[f"ge.{op_name}"]
            shapes = [shape_of(value) for value in inputs]
            try:
                static, attrs = op_class.bind_parameters(shapes, known)  # type: ignore[attr-defined]
            except UnknownDims:
                pass  # the host binds them, on the run-time dims
            else:
                return self.op(static.name.removeprefix("ge."), *inputs, **attrs)
        try:
            return self.op(
                "dynamic_attrs",
                list(inputs),
                operands,
                static_op=f"ge.{op_name}",
                parameter_names=ArrayAttr([StringAttr(name) for name in names]),
                static_attrs=known,
            )
        except ShapeError as error:
            what = ", ".join(names) or "dynamic dims"
            raise Unsupported(f"with a run-time {what}: {error}") from None

    def shape(self, index: int) -> tuple[int, ...]:
        """The shape of input `index`."""
        return shape_of(self.input(index))

    def rank(self, index: int) -> int:
        """The rank of input `index`."""
        return len(self.shape(index))

    def dtype(self, index: int) -> str:
        """The dtype name of input `index`."""
        return dtype_name_of(self.input(index))

    def static_shape(self, index: int) -> tuple[int, ...]:
        """The shape of input `index`, which must have no dynamic dim."""
        shape = self.shape(index)
        if -1 in shape:
            raise Unsupported("on dynamic dims")
        return shape

    def op(self, op_name: str, *operands: Any, suffix: str | None = None, **attrs: Any):
        """Emit (or fold) `ge.<op_name>`; helper ops get the name `node/suffix`."""
        name = self.name if suffix is None else f"{self.name}/{suffix}"
        return self.emitter.emit(op_name, operands, attrs, name)

    def array(self, values: Any, like: int = 0) -> np.ndarray:
        """An import-time array with the dtype of input `like`."""
        return np.asarray(values, dtype=self.dtype(like))


def registrar(table: dict[str, Any]) -> Callable[..., Callable[[Any], Any]]:
    """The `@converts("OpA", "OpB")` decorator that registers into `table`."""

    def converts(*op_types: str) -> Callable[[Any], Any]:
        def register(fn: Any) -> Any:
            for op_type in op_types:
                table[op_type] = fn
            return fn

        return register

    return converts


def normalize_axis(axis: int, rank: int) -> int:
    """`axis` in [0, rank) (negative counts from the end); ValueError if out of range.

    A scalar (rank 0) accepts axis 0 and -1.
    """
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def check_indices(
    indices: Value, size: int, axis: int, *, negative: bool = True
) -> None:
    """ValueError if import-time `indices` (into an axis of `size`, -1
    unknown) fall outside it: [-size, size), or [0, size) without `negative`.
    Indices known only at run time are checked by the kernels."""
    if not isinstance(indices, np.ndarray) or size < 0 or indices.size == 0:
        return
    low = -size if negative else 0
    outside = indices[(indices < low) | (indices >= size)]
    if outside.size:
        raise ValueError(
            f"index {int(outside.flat[0])} is out of bounds for axis {axis} "
            f"with size {size}"
        )


def int_list(values: Sequence[int] | np.ndarray) -> list[int]:
    """Python ints from a sequence or array (any shape, flattened)."""
    return [int(v) for v in np.asarray(values).reshape(-1)]


def same_padding(
    size: int, kernel: int, stride: int, dilation: int = 1, *, upper: bool = True
) -> tuple[int, int]:
    """(begin, end) padding that makes a window op's output `ceil(size / stride)`.

    The odd pixel goes at the end (ONNX SAME_UPPER, TensorFlow SAME) or, with
    `upper=False`, at the beginning (SAME_LOWER).
    """
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    return split_padding(total, upper=upper)


def split_padding(total: int, *, upper: bool = True) -> tuple[int, int]:
    """`total` padding as (begin, end), the odd one at the end unless not `upper`."""
    small, large = total // 2, total - total // 2
    return (small, large) if upper else (large, small)
