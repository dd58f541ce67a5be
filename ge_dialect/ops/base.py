"""What every `ge` op shares: the base class, attribute access, verifier helpers.

Attributes follow GE/TensorFlow: `data_format` is a string, `strides`,
`dilations` and `ksize` have 4 entries in the data format's axis order, and
`pads` is `[top, bottom, left, right]`. Optional attributes have their
default stated once, in the op definition (`attr_def(..., default_value=...)`):
xDSL fills it in when an op is built or parsed and elides it when printing,
so `attribute_value(op, name)` always answers and every consumer (shape
functions, kernels, lowerings) sees the same value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, traits_def
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attribute_values import attribute_value
from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import check_tensor_type, shape_of
from ge_dialect.shape_functions import UNKNOWN, Result, Shape, Unbound
from ge_dialect.targets import c0_for

if TYPE_CHECKING:
    from ge_dialect.format_rules import FormatRule

SPATIAL_FORMATS = ("NCHW", "NHWC")

COMPUTE_FORMAT = "operands attr-dict `:` functional-type(operands, results)"
"""Assembly format of compute ops: `ge.op %a, %b {attrs} : (types) -> types`."""

UNARY_FORMAT = "$x attr-dict `:` type($x) `->` type($y)"
"""Assembly format of ops with operand `x` and result `y`."""


class TensorLayoutsAreValid(OpTrait):
    """Every tensor operand and result has a well-formed `#ge.layout` encoding."""

    def verify(self, op: Operation) -> None:
        for kind, values in (("operand", op.operands), ("result", op.results)):
            for index, value in enumerate(values):
                if isinstance(value.type, TensorType):
                    try:
                        check_tensor_type(value.type)
                    except VerifyException as error:
                        raise VerifyException(f"{kind} #{index}: {error}") from None


class GEOperation(IRDLOperation):
    """Base of every `ge` op: layout checks and Python access to attributes.

    Ops describe themselves through traits (`ge_dialect.traits`) and these
    methods, which passes and the runtime call instead of keeping op lists:

    - `shape_function(shapes, dtypes, attrs)` (static): result shapes and
      dtypes from plain values (`ge_dialect.shape_functions`);
    - `numpy_kernel(*arrays, **attrs)` (static): the NumPy reference kernel,
      operands positional in IRDL order, every attribute a keyword;
    - `derived_attributes()`: values for absent attributes that the IR's
      types imply (the target shape of a reshape);
    - `FORMAT_RULE`, `REFRESH_RULE` (class attributes, `staticmethod`s): its
      infer-format rules (`ge_dialect.format_rules`);
    - `refresh_format_attributes()`: runs after a pass retyped the op's
      tensors, for attributes that name those types' formats;
    - `accepts_layouts(operands, results, target)`: op-specific conditions
      on an internal-format placement beyond its op information
      (`select-storage-format` asks it);
    - `work()`: an estimate of the op's arithmetic (the stream cost model);
    - `RUN_TIME_PARAMETERS`, `bind_parameters(shapes, values)` and
      `unbound_shape_function(known)`: the parameters a framework may give the
      op as run-time tensors (`ge.dynamic_attrs` carries them), how their
      values become the op's attributes, and the result shapes while they
      are unknown.
    """

    traits = traits_def(TensorLayoutsAreValid())

    FORMAT_RULE: ClassVar[FormatRule | None] = None
    """The op's infer-format rule (None: by its traits, `format_rules.infer_rule`)."""

    REFRESH_RULE: ClassVar[FormatRule | None] = None
    """The rule that makes the op an anchor, if it carries format meaning."""

    RUN_TIME_PARAMETERS: ClassVar[tuple[str, ...]] = ()
    """Parameters (named as the framework names them: ONNX's input names)
    that may be tensors known only at run time; empty: none may."""

    @classmethod
    def bind_parameters(
        cls, shapes: Sequence[Shape], values: Mapping[str, Any]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """The static op and its attributes (Python values) for parameter and
        option `values` on operands of `shapes`; a `ShapeError` says why
        values are invalid. Ops with `RUN_TIME_PARAMETERS` define it."""
        raise NotImplementedError(f"{cls.name} takes no run-time parameters")

    @classmethod
    def unbound_shape_function(cls, known: Unbound) -> list[Result]:
        """Result shapes and dtypes while the parameters of
        `known.parameter_shapes` are unknown: by default one result of the
        first operand's rank, every dim unknown, its dtype."""
        return [((UNKNOWN,) * len(known.shapes[0]), known.dtypes[0])]

    def value_of(self, name: str) -> Any:
        """The attribute `name` as a Python value (its default if absent)."""
        return attribute_value(self, name)

    def derived_attributes(self) -> dict[str, Any]:
        """Values of absent attributes that the op's types imply."""
        return {}

    def refresh_format_attributes(self) -> None:
        """Bring attributes that name tensor formats in line with the types."""

    def accepts_layouts(
        self,
        operands: Sequence[LayoutAttr],
        results: Sequence[LayoutAttr],
        target: str | None,
    ) -> bool:
        """Whether the op can run with these operand and result layouts, which
        its op information allows (dtypes, formats); by default it can."""
        return True

    def work(self) -> float:
        """Work estimate (multiply-adds or elements visited) for the stream cost
        model; by default the elements read and written."""
        return sum(element_count(v) for v in (*self.operands, *self.results))


def split_channel_axis(layout: LayoutAttr, rank: int) -> int | None:
    """The origin axis (of a rank-`rank` tensor) that `layout`'s storage splits
    into C1 and C0 (NC1HWC0 of a full-rank NCHW/NHWC tensor: C), if any."""
    if layout.storage_format is not Format.NC1HWC0 or rank != 4:
        return None
    return layout.origin_format.value.index("C")


def fractal_nz_placement(layouts: Sequence[LayoutAttr]) -> bool | None:
    """Whether a placement is all FRACTAL_NZ (True), has none (None), or
    mixes FRACTAL_NZ with other layouts (False: no op moves whole fractals
    between layouts)."""
    storages = [layout.storage_format is Format.FRACTAL_NZ for layout in layouts]
    if not any(storages):
        return None
    return all(storages)


def fractal_block(value: SSAValue, axis: int, target: str | None) -> int:
    """How many indices of `axis` one block of a FRACTAL_NZ move spans: C0
    on the last axis (a fractal row's C0 lanes), 1 on any other.

    The unit a FRACTAL_NZ copy keeps whole is a fractal row: C0 lanes
    contiguous in memory (32 bytes), as a C0 channel vector is in NC1HWC0.
    Pieces at any row offset move whole rows (a row crossing into the next
    fractal moves as it is, no lane changes place); a column offset that is
    not a multiple of C0 splits rows and transposes lanes."""
    rank = value.type.get_num_dims()  # type: ignore[attr-defined]
    if axis != rank - 1:
        return 1
    return c0_for(dtype_name(element_type_of(value)), target)


def element_count(value: SSAValue) -> int:
    """Elements of a tensor value (unknown dims count as 1)."""
    tensor = value.type
    if not isinstance(tensor, TensorType):
        return 0
    count = 1
    for dim in tensor.get_shape():
        count *= max(dim, 1)
    return count


TARGET_ATTRIBUTE = "ge.target"
"""Module attribute naming the target (SoC) whose C0 the layouts use."""


def enclosing_target(op: Operation) -> str | None:
    """The target (SoC) named by `ge.target` on the outermost op around `op`."""
    while (parent := op.parent_op()) is not None:
        op = parent
    attr = op.attributes.get(TARGET_ATTRIBUTE)
    return attr.data if isinstance(attr, StringAttr) else None


# ---------------------------------------------------------------------------
# Attribute values for defaults
# ---------------------------------------------------------------------------


def ints(*values: int) -> DenseArrayBase:
    """`array<i64: values...>`."""
    return DenseArrayBase.from_list(i64, list(values))


def integer(value: int) -> IntegerAttr:
    """`value : i64`."""
    return IntegerAttr(value, i64)


def boolean(value: bool) -> IntegerAttr:
    """`true`/`false` (an `i1`)."""
    return IntegerAttr(int(value), IntegerType(1))


def real(value: float) -> FloatAttr:
    """`value : f32`."""
    return FloatAttr(value, f32)


def string(value: str) -> StringAttr:
    """`"value"`."""
    return StringAttr(value)


# ---------------------------------------------------------------------------
# Verifier helpers
# ---------------------------------------------------------------------------


def int_list_length(op: Operation, name: str, length: int) -> list[int]:
    """Attribute `name` as a list of `length` ints (VerifyException otherwise)."""
    values = attribute_value(op, name)
    if len(values) != length:
        raise VerifyException(f"'{name}' must have {length} values, got {len(values)}")
    return values


def check_data_format(op: Operation) -> str:
    """The op's `data_format`, which must be NCHW or NHWC."""
    data_format = attribute_value(op, "data_format")
    if data_format not in SPATIAL_FORMATS:
        raise VerifyException(
            f"data_format must be one of {', '.join(SPATIAL_FORMATS)}, "
            f"got '{data_format}'"
        )
    return data_format


def check_rank(value: SSAValue, rank: int, what: str) -> TensorType:
    """The value's tensor type, which must have rank `rank`."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    if tensor.get_num_dims() != rank:
        raise VerifyException(
            f"{what} must have rank {rank}, got {tensor.get_num_dims()}"
        )
    return tensor


def check_axis(axis: int, rank: int, what: str = "axis") -> int:
    """`axis` normalised into [0, rank), which it must be in (negative allowed)."""
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def element_type_of(value: SSAValue) -> Attribute:
    """The element type of a tensor value."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tensor.element_type


def check_same_element_type(op: Operation) -> None:
    """Every operand and result has one element type."""
    types = {element_type_of(v) for v in (*op.operands, *op.results)}
    if len(types) > 1:
        names = ", ".join(sorted(str(t) for t in types))
        raise VerifyException(f"operands and results must share one dtype, got {names}")


def same_shape_and_dtype(a: Attribute, b: Attribute) -> bool:
    """Whether two tensor types have one shape and element type (any layout)."""
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return a == b
    return shape_of(a) == shape_of(b) and a.element_type == b.element_type


def refines(a: Attribute, b: Attribute) -> bool:
    """Whether tensor type `a` is `b` with some unknown dims of `b` known
    (one rank and element type; any layout)."""
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return a == b
    first, second = shape_of(a), shape_of(b)
    return (
        a.element_type == b.element_type
        and len(first) == len(second)
        and all(y in (x, -1) for x, y in zip(first, second, strict=True))
    )


def check_permutation(perm: Sequence[int], rank: int, name: str) -> None:
    """`perm` permutes the axes of rank `rank` (negative entries allowed)."""
    if any(not -rank <= p < rank for p in perm) or sorted(
        p % rank for p in perm
    ) != list(range(rank)):
        raise VerifyException(
            f"'{name}' {list(perm)} is not a permutation of rank {rank}"
        )
