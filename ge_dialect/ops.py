"""Operations of the `ge` dialect.

A graph is a `ge.graph` whose single block holds `ge.data` inputs, constants,
the computation and a `ge.netoutput` terminator:

```mlir
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (...) -> tensor<1x4x6x6xf32>
  ge.netoutput %y : tensor<1x4x6x6xf32>
}
```

Attributes follow GE/TensorFlow: `data_format` is a string, `strides`,
`dilations` and `ksize` have 4 entries in the data format's axis order, and
`pads` is `[top, bottom, left, right]`. Optional attributes have defaults
(`ATTR_DEFAULTS`), so `attribute_value(op, name)` always answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    OpTrait,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.dataflow import check_block_order
from ge_dialect.formats import Format
from ge_dialect.layout import check_tensor_type, layout_of, shape_of, storage_shape_of

# ---------------------------------------------------------------------------
# Shared pieces
# ---------------------------------------------------------------------------

SPATIAL_FORMATS = ("NCHW", "NHWC")


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
    """Base of every `ge` op: layout checks and Python access to attributes."""

    traits = traits_def(TensorLayoutsAreValid())

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {}
    """Values of optional attributes when they are absent."""

    def value_of(self, name: str) -> Any:
        """The attribute `name` as a Python value (its default if absent)."""
        return attribute_value(self, name)


def attribute_to_python(attr: Attribute) -> Any:
    """Convert an attribute to a plain Python value (lists, ints, floats, str)."""
    match attr:
        case DenseArrayBase():
            return list(attr.get_values())
        case IntegerAttr() if attr.type.width.data == 1:
            return bool(attr.value.data)
        case IntegerAttr():
            return attr.value.data
        case FloatAttr():
            return attr.value.data
        case StringAttr():
            return attr.data
        case FormatAttr():
            return attr.data.value
        case ArrayAttr():
            return [attribute_to_python(a) for a in attr.data]
        case TypeAttribute():
            from ge_dialect.dtypes import dtype_name

            return dtype_name(attr)
    return attr


def attribute_value(op: Operation, name: str) -> Any:
    """Attribute `name` of `op` as a Python value, or the op's default for it."""
    if (attr := op.attributes.get(name)) is not None:
        return attribute_to_python(attr)
    defaults: dict[str, Any] = getattr(op, "ATTR_DEFAULTS", {})
    if name in defaults:
        return defaults[name]
    raise KeyError(f"'{op.name}' has no attribute '{name}'")


def enclosing_target(op: Operation) -> str | None:
    """The target (SoC) named by `ge.target` on the outermost op around `op`."""
    while (parent := op.parent_op()) is not None:
        op = parent
    attr = op.attributes.get("ge.target")
    return attr.data if isinstance(attr, StringAttr) else None


def python_attributes(op: Operation) -> dict[str, Any]:
    """All attributes of `op` as Python values, defaults included."""
    defaults: dict[str, Any] = getattr(op, "ATTR_DEFAULTS", {})
    return {
        **defaults,
        **{k: attribute_to_python(v) for k, v in op.attributes.items()},
    }


def _int_list_length(op: Operation, name: str, length: int) -> list[int]:
    values = attribute_value(op, name)
    if len(values) != length:
        raise VerifyException(f"'{name}' must have {length} values, got {len(values)}")
    return values


def _check_data_format(op: Operation) -> str:
    data_format = attribute_value(op, "data_format")
    if data_format not in SPATIAL_FORMATS:
        raise VerifyException(
            f"data_format must be one of {', '.join(SPATIAL_FORMATS)}, "
            f"got '{data_format}'"
        )
    return data_format


def _check_rank(value: SSAValue, rank: int, what: str) -> TensorType:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    if tensor.get_num_dims() != rank:
        raise VerifyException(
            f"{what} must have rank {rank}, got {tensor.get_num_dims()}"
        )
    return tensor


def _check_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _element_type(value: SSAValue) -> Attribute:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tensor.element_type


def _check_same_element_type(op: Operation) -> None:
    types = {_element_type(v) for v in (*op.operands, *op.results)}
    if len(types) > 1:
        names = ", ".join(sorted(str(t) for t in types))
        raise VerifyException(f"operands and results must share one dtype, got {names}")


COMPUTE_FORMAT = "operands attr-dict `:` functional-type(operands, results)"

# ---------------------------------------------------------------------------
# Graph structure
# ---------------------------------------------------------------------------


@irdl_op_definition
class GraphOp(GEOperation):
    """A computation graph: `ge.graph @name { ... ge.netoutput ... }`."""

    name = "ge.graph"

    sym_name = attr_def(SymbolNameConstraint())
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    assembly_format = "$sym_name attr-dict-with-keyword $body"

    def __init__(self, name: str, body: Any):
        super().__init__(attributes={"sym_name": StringAttr(name)}, regions=[body])

    def verify_(self) -> None:
        _verify_graph_body(self, self.body)
        indices = [
            op.index.value.data
            for op in self.body.block.ops
            if isinstance(op, DataOp) and isinstance(op.index, IntegerAttr)
        ]
        if repeated := sorted({i for i in indices if indices.count(i) > 1}):
            raise VerifyException(f"two graph inputs have index {repeated[0]}")

    @property
    def output(self) -> NetOutputOp:
        """The graph's terminator."""
        last = self.body.block.last_op
        assert isinstance(last, NetOutputOp)
        return last

    def inputs(self) -> list[DataOp]:
        """The graph's `ge.data` ops ordered by `index`."""
        data = [op for op in self.body.block.ops if isinstance(op, DataOp)]
        return sorted(data, key=lambda d: d.index_value)


def _verify_graph_body(op: Operation, region: Any) -> None:
    if not region.blocks:
        raise VerifyException("graph region must have one block")
    block = region.block
    if block.args:
        raise VerifyException(
            "graph block takes no arguments (inputs are 'ge.data' ops)"
        )
    if not isinstance(block.last_op, NetOutputOp):
        raise VerifyException("graph region must end with 'ge.netoutput'")
    check_block_order(block)


@irdl_op_definition
class DataOp(GEOperation):
    """A graph input. Inside a subgraph, `parent_index` names the parent operand.

    `storage_format`/`storage_shape` are the user's request for the storage
    layout of this input (consumed by `refine-running-format`).
    """

    name = "ge.data"

    index = opt_attr_def(IntegerAttr)
    parent_index = opt_attr_def(IntegerAttr)
    storage_format = opt_attr_def(FormatAttr)
    storage_shape = opt_attr_def(DenseArrayBase)
    output = result_def(TensorType)

    assembly_format = "attr-dict `:` type($output)"

    @property
    def index_value(self) -> int:
        """The input position (parent_index inside subgraphs)."""
        attr = self.index if self.index is not None else self.parent_index
        return attr.value.data if attr is not None else 0

    def verify_(self) -> None:
        if self.storage_shape is not None and self.storage_format is None:
            raise VerifyException("'storage_shape' requires 'storage_format'")
        parent = self.parent_op()
        if isinstance(parent, GraphOp):
            if self.index is None:
                raise VerifyException("graph input needs an 'index' attribute")
            if self.index.value.data < 0:
                raise VerifyException(f"index must be >= 0, got {self.index_value}")
            return
        if parent is None:
            return
        if self.parent_index is None:
            raise VerifyException(
                f"'ge.data' inside a '{parent.name}' subgraph needs 'parent_index'"
            )
        parent_index = self.parent_index.value.data
        if not 0 <= parent_index < len(parent.operands):
            raise VerifyException(
                f"parent_index {parent_index} is out of range: '{parent.name}' has "
                f"{len(parent.operands)} operands"
            )
        parent_type = parent.operands[parent_index].type
        if not _same_shape_and_dtype(parent_type, self.output.type):
            raise VerifyException(
                f"type {self.output.type} does not match parent operand "
                f"#{parent_index} of type {parent_type}"
            )


def _same_shape_and_dtype(a: Attribute, b: Attribute) -> bool:
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return a == b
    return shape_of(a) == shape_of(b) and a.element_type == b.element_type


@irdl_op_definition
class ConstOp(GEOperation):
    """A constant tensor. Its `value` is stored in the storage layout of the result.

    `value` is a dense elements attribute or `#ge.external<"key">` for weights
    kept outside the IR text.
    """

    name = "ge.const"

    value = attr_def(DenseIntOrFPElementsAttr | ExternalDataAttr)
    output = result_def(TensorType)

    assembly_format = "attr-dict `:` type($output)"

    def verify_(self) -> None:
        if not isinstance(self.value, DenseIntOrFPElementsAttr):
            return
        value_type = self.value.get_type()
        result = self.output.type
        assert isinstance(result, TensorType)
        if value_type.element_type != result.element_type:
            raise VerifyException(
                f"value dtype {value_type.element_type} does not match result dtype "
                f"{result.element_type}"
            )
        expected = storage_shape_of(result, enclosing_target(self))
        if shape_of(value_type) != expected:
            raise VerifyException(
                f"value shape {list(shape_of(value_type))} does not match the "
                f"result's storage shape {list(expected)}"
            )


@irdl_op_definition
class VariableOp(GEOperation):
    """A named, mutable graph variable (shared by name across subgraphs)."""

    name = "ge.variable"

    var_name = attr_def(StringAttr, attr_name="name")
    output = result_def(TensorType)

    assembly_format = "attr-dict `:` type($output)"


@irdl_op_definition
class NetOutputOp(GEOperation):
    """The terminator of a graph or subgraph; operand j is output j.

    `storage_formats` (one `#ge.format` per operand, ND for "keep") is the
    user's request for output storage layouts.
    """

    name = "ge.netoutput"

    outputs = var_operand_def(TensorType)
    storage_formats = opt_attr_def(ArrayAttr[FormatAttr])

    traits = traits_def(IsTerminator())

    assembly_format = "($outputs^ `:` type($outputs))? attr-dict"

    def __init__(self, outputs: Sequence[SSAValue]):
        super().__init__(operands=[outputs])

    def verify_(self) -> None:
        if self.storage_formats is not None and len(self.storage_formats) != len(
            self.outputs
        ):
            raise VerifyException(
                f"'storage_formats' has {len(self.storage_formats)} entries for "
                f"{len(self.outputs)} outputs"
            )
        names = self.attributes.get("output_names")
        if names is None:
            return
        if not isinstance(names, ArrayAttr) or not all(
            isinstance(name, StringAttr) for name in names.data
        ):
            raise VerifyException("'output_names' must be an array of strings")
        if len(names) > len(self.outputs):  # fewer: the rest are unnamed
            raise VerifyException(
                f"'output_names' has {len(names)} names for {len(self.outputs)} outputs"
            )


# ---------------------------------------------------------------------------
# Control flow (GE subgraphs)
# ---------------------------------------------------------------------------


def _verify_subgraph(op: Operation, region: Any, num_outputs: int, what: str) -> None:
    _verify_graph_body(op, region)
    terminator = region.block.last_op
    if len(terminator.operands) != num_outputs:
        raise VerifyException(
            f"{what} returns {len(terminator.operands)} values, expected {num_outputs}"
        )
    for index, (value, result) in enumerate(
        zip(terminator.operands, op.results, strict=False)
    ):
        if not _same_shape_and_dtype(value.type, result.type):
            raise VerifyException(
                f"{what} output #{index} has type {value.type}, parent result has "
                f"{result.type}"
            )


class ControlFlowOp(GEOperation):
    """Base of ops whose regions are GE subgraphs."""

    traits = traits_def(IsolatedFromAbove())

    def subgraphs(self) -> list[Any]:
        """The op's subgraph regions."""
        return list(self.regions)


@irdl_op_definition
class IfOp(ControlFlowOp):
    """`then_branch` runs when `cond` is non-zero, else `else_branch`.

    Subgraph `ge.data` ops refer to parent operands by index (0 is `cond`).
    """

    name = "ge.if"

    cond = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    then_branch = region_def("single_block")
    else_branch = region_def("single_block")

    assembly_format = (
        "$cond (`,` $inputs^)? attr-dict `:` functional-type(operands, results) "
        "`then` $then_branch `else` $else_branch"
    )

    def verify_(self) -> None:
        for region, what in ((self.then_branch, "then"), (self.else_branch, "else")):
            _verify_subgraph(self, region, len(self.outputs), f"{what} branch")


@irdl_op_definition
class CaseOp(ControlFlowOp):
    """Runs branch number `branch_index` (clamped to the last branch)."""

    name = "ge.case"

    branch_index = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    branches = var_region_def("single_block")

    assembly_format = (
        "$branch_index (`,` $inputs^)? attr-dict `:` "
        "functional-type(operands, results) $branches"
    )

    def verify_(self) -> None:
        if not self.branches:
            raise VerifyException("'ge.case' needs at least one branch")
        for index, region in enumerate(self.branches):
            _verify_subgraph(self, region, len(self.outputs), f"branch #{index}")


@irdl_op_definition
class WhileOp(ControlFlowOp):
    """Loop: `cond` maps the loop variables to a boolean, `body` updates them.

    Operand i, result i, the `ge.data` with parent_index i in both regions and
    body output i are one loop variable.
    """

    name = "ge.while"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    cond = region_def("single_block")
    body = region_def("single_block")

    assembly_format = (
        "$inputs attr-dict `:` functional-type(operands, results) "
        "`cond` $cond `body` $body"
    )

    def verify_(self) -> None:
        if len(self.inputs) != len(self.outputs):
            raise VerifyException(
                f"'ge.while' has {len(self.inputs)} loop inputs but "
                f"{len(self.outputs)} results"
            )
        _verify_graph_body(self, self.cond)
        if len(self.cond.block.last_op.operands) != 1:
            raise VerifyException("cond subgraph must return exactly one value")
        _verify_subgraph(self, self.body, len(self.outputs), "body")


@irdl_op_definition
class PartitionedCallOp(ControlFlowOp):
    """Calls its single subgraph; `engine` names the engine that runs it."""

    name = "ge.partitioned_call"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    engine = opt_attr_def(StringAttr)
    f = region_def("single_block")

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results) $f"

    def verify_(self) -> None:
        _verify_subgraph(self, self.f, len(self.outputs), "subgraph")


CONTROL_FLOW_OPS = (IfOp, CaseOp, WhileOp, PartitionedCallOp)

# ---------------------------------------------------------------------------
# Fused groups (ATC's UB fusion, `fuse-ops`)
# ---------------------------------------------------------------------------


@irdl_op_definition
class FusedOp(GEOperation):
    """A group of AI Core ops computed as one kernel (one pass over memory).

    The body is a `ge` subgraph, as in `ge.partitioned_call`: `ge.data`
    with `parent_index = i` is operand i, `ge.netoutput` operand j is result
    j. `fusion_rule` names the fusion rule that formed the group. It is not
    control flow: the group's ops run as one AI Core op.

    ```mlir
    %y = ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
      %0 = ge.data {parent_index = 0 : i64} : tensor<1x3x8x8xf32>
      %1 = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32>
      %2 = ge.conv2d %0, %1 {data_format = "NCHW"} : (...) -> tensor<1x4x6x6xf32>
      %3 = ge.relu %2 : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
      ge.netoutput %3 : tensor<1x4x6x6xf32>
    }
    ```
    """

    name = "ge.fused"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    fusion_rule = attr_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(TensorLayoutsAreValid(), IsolatedFromAbove())

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results) $body"

    def verify_(self) -> None:
        _verify_subgraph(self, self.body, len(self.outputs), "fused body")
        inner = [
            op for op in self.body.block.ops if not isinstance(op, DataOp | NetOutputOp)
        ]
        if not inner:
            raise VerifyException("fused body has no op to compute")
        for op in inner:
            if op.regions or isinstance(op, ConstOp | VariableOp):
                raise VerifyException(
                    f"fused body cannot hold '{op.name}' (only compute ops; "
                    "constants are operands)"
                )


# ---------------------------------------------------------------------------
# Trans ops
# ---------------------------------------------------------------------------


class SameShapeTransOp(GEOperation):
    """Base of trans ops that keep the origin shape and dtype."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"


@irdl_op_definition
class TransDataOp(SameShapeTransOp):
    """Relayout between storage formats; the origin shape is unchanged.

    ```mlir
    %y = ge.transdata %x {src_format = #ge.format<NCHW>,
                          dst_format = #ge.format<NC1HWC0>}
       : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
      -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
    ```
    """

    name = "ge.transdata"

    src_format = attr_def(FormatAttr)
    dst_format = attr_def(FormatAttr)
    groups = opt_attr_def(IntegerAttr)
    perm = opt_attr_def(DenseArrayBase)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"groups": 1}

    def origin_permutation(self) -> tuple[int, ...]:
        """Result origin axis i is operand origin axis `perm[i]`.

        The identity, except for a TransData that absorbed a transpose
        (`transpose-transdata-fusion`): it carries the transpose's `perm`, and
        its origin formats differ by that permutation of their axis letters
        (NHWC -> NCHW: perm [0, 3, 1, 2]).
        """
        if self.perm is not None:
            return tuple(attribute_value(self, "perm"))
        x_type = self.x.type
        assert isinstance(x_type, TensorType)
        return tuple(range(x_type.get_num_dims()))

    def verify_(self) -> None:
        x_type, y_type = self.x.type, self.y.type
        assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
        if x_type.element_type != y_type.element_type:
            raise VerifyException("transdata cannot change the dtype (use ge.cast)")
        src_origin, src_storage = layout_of(x_type)
        dst_origin, dst_storage = layout_of(y_type)
        pending = self.attributes.get("input_layouts")
        if isinstance(pending, ArrayAttr) and isinstance(
            next(iter(pending.data), None), LayoutAttr
        ):
            # the operand is converted to this layout first (insert-transdata)
            src_storage = pending.data[0].storage_format
        if self.perm is not None:
            letters = letter_permutation(src_origin, dst_origin)
            if letters is None or list(letters) != attribute_value(self, "perm"):
                raise VerifyException(
                    f"perm must permute the axis letters of {src_origin.value} "
                    f"into {dst_origin.value}"
                )
        elif src_origin != dst_origin:
            raise VerifyException(
                f"origin formats differ: {src_origin.value} vs {dst_origin.value}"
            )
        expected = [shape_of(x_type)[p] for p in self.origin_permutation()]
        if list(shape_of(y_type)) != expected:
            raise VerifyException(
                f"origin shapes differ: {list(shape_of(x_type))} vs "
                f"{list(shape_of(y_type))}"
            )
        if self.src_format.data != src_storage:
            raise VerifyException(
                f"src_format {self.src_format.data.value} does not match the "
                f"operand's storage format {src_storage.value}"
            )
        if self.dst_format.data != dst_storage:
            raise VerifyException(
                f"dst_format {self.dst_format.data.value} does not match the "
                f"result's storage format {dst_storage.value}"
            )


def letter_permutation(src: Format, dst: Format) -> tuple[int, ...] | None:
    """The axis permutation from origin format `src` to `dst` by axis letter.

    `perm[i]` is the position in `src` of `dst`'s axis i; None unless both are
    different formats naming the same axes (NCHW, NHWC, HWCN, CHWN; NCDHW,
    NDHWC, DHWCN).
    """
    if src == dst or src is Format.ND or sorted(src.value) != sorted(dst.value):
        return None
    if len(set(src.value)) != len(src.value):
        return None
    return tuple(src.value.index(letter) for letter in dst.value)


@irdl_op_definition
class CastOp(GEOperation):
    """Converts the element type to `dst_type`."""

    name = "ge.cast"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    dst_type = attr_def(AnyAttr())

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        if _element_type(self.y) != self.dst_type:
            raise VerifyException(
                f"result dtype {_element_type(self.y)} does not match dst_type "
                f"{self.dst_type}"
            )
        x_type, y_type = self.x.type, self.y.type
        assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
        if shape_of(x_type) != shape_of(y_type):
            raise VerifyException("cast cannot change the shape")


class ShapeOp(GEOperation):
    """Base of single-input, single-output ops that change the shape."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        _check_same_element_type(self)
        self.verify_shape()

    def verify_shape(self) -> None:
        """Op-specific shape checks."""


def _check_same_size(op: ShapeOp) -> None:
    x_type, y_type = op.x.type, op.y.type
    assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
    x_shape, y_shape = shape_of(x_type), shape_of(y_type)
    if -1 in x_shape or -1 in y_shape:
        return
    if _product(x_shape) != _product(y_shape):
        raise VerifyException(
            f"cannot reshape {list(x_shape)} ({_product(x_shape)} elements) into "
            f"{list(y_shape)} ({_product(y_shape)} elements)"
        )


def _product(dims: Sequence[int]) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


@irdl_op_definition
class ReshapeOp(ShapeOp):
    """Reshape to `shape` (0 copies the input dim, one -1 is inferred)."""

    name = "ge.reshape"

    shape = opt_attr_def(DenseArrayBase)

    def verify_shape(self) -> None:
        _check_same_size(self)


@irdl_op_definition
class FlattenOp(ShapeOp):
    """Flatten to 2-D: dims before `axis` and dims from `axis` on."""

    name = "ge.flatten"

    axis = opt_attr_def(IntegerAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"axis": 1}

    def verify_shape(self) -> None:
        axis, rank = self.value_of("axis"), self.x.type.get_num_dims()
        if not -rank <= axis <= rank:
            raise VerifyException(f"axis {axis} is out of range [{-rank}, {rank}]")
        _check_rank(self.y, 2, "result")
        _check_same_size(self)


@irdl_op_definition
class SqueezeOp(ShapeOp):
    """Remove the size-1 axes in `axes` (all size-1 axes when empty)."""

    name = "ge.squeeze"

    axes = opt_attr_def(DenseArrayBase)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"axes": []}

    def verify_shape(self) -> None:
        shape = shape_of(self.x.type)
        axes = self.value_of("axes")
        if axes and not shape:
            raise VerifyException("cannot squeeze axes of a rank-0 tensor")
        for axis in axes:
            index = _check_axis(axis, len(shape))
            if shape[index] not in (1, -1):
                raise VerifyException(
                    f"cannot squeeze axis {axis} of size {shape[index]}"
                )
        _check_same_size(self)


@irdl_op_definition
class UnsqueezeOp(ShapeOp):
    """Insert size-1 axes at `axes` (positions in the result)."""

    name = "ge.unsqueeze"

    axes = attr_def(DenseArrayBase)

    def verify_shape(self) -> None:
        rank = self.y.type.get_num_dims()
        for axis in self.value_of("axes"):
            _check_axis(axis, rank)
        _check_same_size(self)


@irdl_op_definition
class ExpandDimsOp(ShapeOp):
    """Insert one size-1 axis at `axis`."""

    name = "ge.expand_dims"

    axis = attr_def(IntegerAttr)

    def verify_shape(self) -> None:
        _check_axis(self.value_of("axis"), self.y.type.get_num_dims())
        _check_same_size(self)


def _check_permutation(perm: Sequence[int], rank: int, name: str) -> None:
    if any(not -rank <= p < rank for p in perm) or sorted(
        p % rank for p in perm
    ) != list(range(rank)):
        raise VerifyException(
            f"'{name}' {list(perm)} is not a permutation of rank {rank}"
        )


class PermutationOp(ShapeOp):
    """Base of ops that permute axes by an attribute."""

    PERMUTATION_ATTR: ClassVar[str] = "perm"

    def verify_shape(self) -> None:
        perm = self.value_of(self.PERMUTATION_ATTR)
        x_shape = shape_of(self.x.type)
        _check_permutation(perm, len(x_shape), self.PERMUTATION_ATTR)
        expected = [x_shape[p] for p in perm]
        if list(shape_of(self.y.type)) != expected:
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} does not match the "
                f"permuted shape {expected}"
            )


@irdl_op_definition
class TransposeOp(PermutationOp):
    """Permute axes: result dim i is input dim `perm[i]`."""

    name = "ge.transpose"

    perm = attr_def(DenseArrayBase)


@irdl_op_definition
class PermuteOp(PermutationOp):
    """GE/Caffe Permute: like transpose with attribute `order`."""

    name = "ge.permute"

    order = attr_def(DenseArrayBase)
    PERMUTATION_ATTR: ClassVar[str] = "order"


# ---------------------------------------------------------------------------
# Elementwise ops
# ---------------------------------------------------------------------------


class UnaryElementwiseOp(GEOperation):
    """Base of elementwise ops with one input."""

    x = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        _check_same_element_type(self)
        if shape_of(self.x.type) != shape_of(self.y.type):
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} must equal the input "
                f"shape {list(shape_of(self.x.type))}"
            )


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    """max(x, 0)."""

    name = "ge.relu"


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    """1 / (1 + exp(-x))."""

    name = "ge.sigmoid"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    """tanh(x)."""

    name = "ge.tanh"


@irdl_op_definition
class SoftplusOp(UnaryElementwiseOp):
    """log(1 + exp(x))."""

    name = "ge.softplus"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """-x."""

    name = "ge.neg"


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """|x|."""

    name = "ge.abs"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    """exp(x)."""

    name = "ge.exp"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    """sqrt(x)."""

    name = "ge.sqrt"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    """log(x)."""

    name = "ge.log"


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    """1 / x."""

    name = "ge.reciprocal"


@irdl_op_definition
class IdentityOp(UnaryElementwiseOp):
    """x (also inference-mode Dropout)."""

    name = "ge.identity"


@irdl_op_definition
class LeakyReluOp(UnaryElementwiseOp):
    """x if x >= 0 else alpha * x."""

    name = "ge.leaky_relu"

    alpha = opt_attr_def(FloatAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 0.01}


@irdl_op_definition
class EluOp(UnaryElementwiseOp):
    """x if x >= 0 else alpha * (exp(x) - 1)."""

    name = "ge.elu"

    alpha = opt_attr_def(FloatAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0}


@irdl_op_definition
class SeluOp(UnaryElementwiseOp):
    """gamma * (x if x > 0 else alpha * (exp(x) - 1))."""

    name = "ge.selu"

    alpha = opt_attr_def(FloatAttr)
    gamma = opt_attr_def(FloatAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "alpha": 1.6732632423543772,
        "gamma": 1.0507009873554805,
    }


@irdl_op_definition
class ClipOp(UnaryElementwiseOp):
    """min(max(x, min), max)."""

    name = "ge.clip"

    min = opt_attr_def(FloatAttr)
    max = opt_attr_def(FloatAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "min": float("-inf"),
        "max": float("inf"),
    }


class BinaryElementwiseOp(GEOperation):
    """Base of elementwise ops with two broadcast inputs (NumPy rules)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _check_same_element_type(self)
        expected = broadcast_shapes(shape_of(self.x1.type), shape_of(self.x2.type))
        if expected is None:
            raise VerifyException(
                f"shapes {list(shape_of(self.x1.type))} and "
                f"{list(shape_of(self.x2.type))} do not broadcast"
            )
        if tuple(shape_of(self.y.type)) != expected:
            raise VerifyException(
                f"result shape {list(shape_of(self.y.type))} does not match the "
                f"broadcast shape {list(expected)}"
            )


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy broadcast of shapes with -1 for unknown dims, or None if they clash."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        known = dims - {1, -1}
        if len(known) > 1:
            return None
        if known:
            result.append(known.pop())
        elif -1 in dims:
            result.append(-1)
        else:
            result.append(1)
    return tuple(result)


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """x1 + x2."""

    name = "ge.add"


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """x1 - x2."""

    name = "ge.sub"


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """x1 * x2."""

    name = "ge.mul"


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """x1 / x2."""

    name = "ge.div"


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """x1 ** x2."""

    name = "ge.pow"


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """max(x1, x2)."""

    name = "ge.maximum"


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """min(x1, x2)."""

    name = "ge.minimum"


@irdl_op_definition
class PReluOp(BinaryElementwiseOp):
    """x1 if x1 >= 0 else x2 * x1 (x2 is the slope, broadcast to x1)."""

    name = "ge.prelu"


@irdl_op_definition
class AddNOp(GEOperation):
    """Sum of all inputs (broadcast)."""

    name = "ge.add_n"

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'ge.add_n' needs at least one input")
        _check_same_element_type(self)


# ---------------------------------------------------------------------------
# Neural-network ops
# ---------------------------------------------------------------------------


class SpatialOp(GEOperation):
    """Base of ops with a `data_format` on a rank-4 input `x`."""

    def verify_(self) -> None:
        _check_data_format(self)
        _check_rank(self.x, 4, "input")
        self.verify_spatial()

    def verify_spatial(self) -> None:
        """Op-specific checks."""


@irdl_op_definition
class Conv2DOp(SpatialOp):
    """2-D convolution (cross-correlation) with optional bias."""

    name = "ge.conv2d"

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    strides = opt_attr_def(DenseArrayBase)
    pads = opt_attr_def(DenseArrayBase)
    dilations = opt_attr_def(DenseArrayBase)
    groups = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "strides": [1, 1, 1, 1],
        "pads": [0, 0, 0, 0],
        "dilations": [1, 1, 1, 1],
        "groups": 1,
    }
    assembly_format = COMPUTE_FORMAT

    def verify_spatial(self) -> None:
        _check_rank(self.filter, 4, "filter")
        _check_rank(self.y, 4, "result")
        for name in ("strides", "pads", "dilations"):
            values = _int_list_length(self, name, 4)
            if name != "pads" and min(values) < 1:
                raise VerifyException(f"'{name}' must be positive, got {values}")
        groups = self.value_of("groups")
        data_format = self.value_of("data_format")
        channels = shape_of(self.x.type)[data_format.index("C")]
        if groups < 1 or (channels > 0 and channels % groups):
            raise VerifyException(
                f"groups {groups} must divide the {channels} input channels"
            )
        if self.bias is not None:
            _check_rank(self.bias, 1, "bias")


@irdl_op_definition
class Conv2DTransposeOp(SpatialOp):
    """2-D transposed convolution (ONNX ConvTranspose), filter [Cin, Cout/g, kh, kw]."""

    name = "ge.conv2d_transpose"

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    strides = opt_attr_def(DenseArrayBase)
    pads = opt_attr_def(DenseArrayBase)
    dilations = opt_attr_def(DenseArrayBase)
    groups = opt_attr_def(IntegerAttr)
    output_padding = opt_attr_def(DenseArrayBase)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        **Conv2DOp.ATTR_DEFAULTS,
        "output_padding": [0, 0],
    }
    assembly_format = COMPUTE_FORMAT

    def verify_spatial(self) -> None:
        _check_rank(self.filter, 4, "filter")
        for name in ("strides", "pads", "dilations"):
            _int_list_length(self, name, 4)
        _int_list_length(self, "output_padding", 2)


class PoolOp(SpatialOp):
    """Base of windowed pooling ops."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    ksize = attr_def(DenseArrayBase)
    strides = opt_attr_def(DenseArrayBase)
    pads = opt_attr_def(DenseArrayBase)
    ceil_mode = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "strides": [1, 1, 1, 1],
        "pads": [0, 0, 0, 0],
        "ceil_mode": False,
    }
    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_spatial(self) -> None:
        _check_same_element_type(self)
        for name in ("ksize", "strides", "pads"):
            _int_list_length(self, name, 4)
        if min(self.value_of("ksize")) < 1 or min(self.value_of("strides")) < 1:
            raise VerifyException("'ksize' and 'strides' must be positive")


@irdl_op_definition
class MaxPoolOp(PoolOp):
    """Max pooling over `ksize` windows (padding never wins)."""

    name = "ge.max_pool"


@irdl_op_definition
class AvgPoolOp(PoolOp):
    """Average pooling; `count_include_pad` counts padded zeros."""

    name = "ge.avg_pool"

    count_include_pad = opt_attr_def(IntegerAttr)
    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        **PoolOp.ATTR_DEFAULTS,
        "count_include_pad": False,
    }


class GlobalPoolOp(SpatialOp):
    """Base of pools over all of H and W (result keeps H = W = 1)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)

    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"


@irdl_op_definition
class GlobalAvgPoolOp(GlobalPoolOp):
    """Mean over H and W."""

    name = "ge.global_avg_pool"


@irdl_op_definition
class GlobalMaxPoolOp(GlobalPoolOp):
    """Max over H and W."""

    name = "ge.global_max_pool"


@irdl_op_definition
class BatchNormOp(SpatialOp):
    """Inference batch norm: (x - mean) / sqrt(variance + epsilon) * scale + offset."""

    name = "ge.batch_norm"

    x = operand_def(TensorType)
    scale = operand_def(TensorType)
    offset = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    epsilon = opt_attr_def(FloatAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"epsilon": 1e-5}
    assembly_format = COMPUTE_FORMAT

    def verify_spatial(self) -> None:
        channels = shape_of(self.x.type)[self.value_of("data_format").index("C")]
        for name in ("scale", "offset", "mean", "variance"):
            param = _check_rank(getattr(self, name), 1, name)
            if channels > 0 and shape_of(param)[0] not in (channels, -1):
                raise VerifyException(
                    f"{name} has {shape_of(param)[0]} entries for {channels} channels"
                )


@irdl_op_definition
class InstanceNormOp(SpatialOp):
    """Instance normalisation over H and W per sample and channel."""

    name = "ge.instance_norm"

    x = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    epsilon = opt_attr_def(FloatAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"epsilon": 1e-5}
    assembly_format = COMPUTE_FORMAT


@irdl_op_definition
class LRNOp(SpatialOp):
    """Local response normalisation across channels (ONNX LRN semantics)."""

    name = "ge.lrn"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)
    size = attr_def(IntegerAttr)
    alpha = opt_attr_def(FloatAttr)
    beta = opt_attr_def(FloatAttr)
    bias = opt_attr_def(FloatAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1e-4, "beta": 0.75, "bias": 1.0}
    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_spatial(self) -> None:
        if self.value_of("size") < 1:
            raise VerifyException("'size' must be positive")


@irdl_op_definition
class BiasAddOp(GEOperation):
    """Adds a rank-1 `bias` on the channel axis of `x`."""

    name = "ge.bias_add"

    x = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = attr_def(StringAttr)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        data_format = _check_data_format(self)
        _check_rank(self.bias, 1, "bias")
        shape = shape_of(self.x.type)
        if len(shape) == 4:
            channels = shape[data_format.index("C")]
        elif shape:
            channels = (
                shape[-1] if data_format == "NHWC" else shape[min(1, len(shape) - 1)]
            )
        else:
            raise VerifyException("input must have rank >= 1")
        bias_size = shape_of(self.bias.type)[0]
        if -1 not in (channels, bias_size) and channels != bias_size:
            raise VerifyException(
                f"bias has {bias_size} entries for {channels} channels"
            )


def _check_contraction(
    op: GEOperation, lhs: tuple[str, str], rhs: tuple[str, str]
) -> None:
    """Both operands are matrices whose contracted dims agree.

    `lhs`/`rhs` name the operand and its transpose attribute.
    """
    a = shape_of(_check_rank(getattr(op, lhs[0]), 2, lhs[0]))
    b = shape_of(_check_rank(getattr(op, rhs[0]), 2, rhs[0]))
    k1 = a[0] if op.value_of(lhs[1]) else a[1]
    k2 = b[1] if op.value_of(rhs[1]) else b[0]
    if -1 not in (k1, k2) and k1 != k2:
        raise VerifyException(f"contraction sizes differ: {k1} vs {k2}")


@irdl_op_definition
class MatMulOp(GEOperation):
    """2-D matrix product with optional transposes and bias."""

    name = "ge.matmul"

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    transpose_x1 = opt_attr_def(IntegerAttr)
    transpose_x2 = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "transpose_x1": False,
        "transpose_x2": False,
    }
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _check_contraction(self, ("x1", "transpose_x1"), ("x2", "transpose_x2"))


@irdl_op_definition
class BatchMatMulOp(GEOperation):
    """Batched matrix product with NumPy broadcasting of batch dims."""

    name = "ge.batch_matmul"

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    adj_x1 = opt_attr_def(IntegerAttr)
    adj_x2 = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"adj_x1": False, "adj_x2": False}
    assembly_format = COMPUTE_FORMAT


@irdl_op_definition
class GemmOp(GEOperation):
    """ONNX Gemm: alpha * op(a) @ op(b) + beta * c."""

    name = "ge.gemm"

    a = operand_def(TensorType)
    b = operand_def(TensorType)
    c = opt_operand_def(TensorType)
    y = result_def(TensorType)
    alpha = opt_attr_def(FloatAttr)
    beta = opt_attr_def(FloatAttr)
    trans_a = opt_attr_def(IntegerAttr)
    trans_b = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {
        "alpha": 1.0,
        "beta": 1.0,
        "trans_a": False,
        "trans_b": False,
    }
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _check_contraction(self, ("a", "trans_a"), ("b", "trans_b"))


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


@irdl_op_definition
class ConcatOp(GEOperation):
    """Concatenate inputs along `axis`."""

    name = "ge.concat"

    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    axis = attr_def(IntegerAttr)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'ge.concat' needs at least one input")
        _check_same_element_type(self)
        rank = self.y.type.get_num_dims()
        axis = _check_axis(self.value_of("axis"), rank)
        for index, value in enumerate(self.inputs):
            shape = shape_of(value.type)
            if len(shape) != rank:
                raise VerifyException(
                    f"input #{index} has rank {len(shape)}, expected {rank}"
                )
            for dim, (a, b) in enumerate(
                zip(shape, shape_of(self.y.type), strict=True)
            ):
                if dim != axis and -1 not in (a, b) and a != b:
                    raise VerifyException(
                        f"input #{index} dim {dim} is {a}, result has {b}"
                    )


@irdl_op_definition
class SplitOp(GEOperation):
    """Split `x` along `axis` into pieces of `sizes`."""

    name = "ge.split"

    x = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    axis = attr_def(IntegerAttr)
    sizes = attr_def(DenseArrayBase)

    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        sizes = self.value_of("sizes")
        if len(sizes) != len(self.outputs):
            raise VerifyException(
                f"'sizes' has {len(sizes)} entries for {len(self.outputs)} results"
            )
        shape = shape_of(self.x.type)
        if not shape:
            raise VerifyException("cannot split a rank-0 tensor")
        axis = _check_axis(self.value_of("axis"), len(shape))
        if shape[axis] != -1 and sum(sizes) != shape[axis]:
            raise VerifyException(
                f"sizes {sizes} do not add up to dim {axis} of size {shape[axis]}"
            )


@irdl_op_definition
class SliceOp(ShapeOp):
    """ONNX Slice: `begins`/`ends`/`steps` on `axes` (clamped)."""

    name = "ge.slice"

    begins = attr_def(DenseArrayBase)
    ends = attr_def(DenseArrayBase)
    axes = opt_attr_def(DenseArrayBase)
    steps = opt_attr_def(DenseArrayBase)

    def verify_shape(self) -> None:
        count = len(self.value_of("begins"))
        rank = self.x.type.get_num_dims()
        axes = self.attributes.get("axes")
        axes_values = self.value_of("axes") if axes is not None else list(range(count))
        steps = self.attributes.get("steps")
        steps_values = self.value_of("steps") if steps is not None else [1] * count
        if (
            not len(self.value_of("ends"))
            == len(axes_values)
            == len(steps_values)
            == count
        ):
            raise VerifyException(
                "'begins', 'ends', 'axes' and 'steps' differ in length"
            )
        for axis in axes_values:
            _check_axis(axis, rank)
        if 0 in steps_values:
            raise VerifyException("'steps' cannot contain 0")


@irdl_op_definition
class GatherOp(GEOperation):
    """Gather slices of `x` along `axis` at `indices`."""

    name = "ge.gather"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    axis = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"axis": 0}
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        _check_axis(self.value_of("axis"), self.x.type.get_num_dims())


@irdl_op_definition
class TileOp(ShapeOp):
    """Repeat `x` `multiples[i]` times along axis i."""

    name = "ge.tile"

    multiples = attr_def(DenseArrayBase)

    def verify_shape(self) -> None:
        if len(self.value_of("multiples")) != self.x.type.get_num_dims():
            raise VerifyException("'multiples' needs one entry per input axis")


@irdl_op_definition
class PadOp(ShapeOp):
    """Pad with `paddings` in ONNX order [begin_0.., end_0..]; constant/reflect/edge."""

    name = "ge.pad"

    paddings = attr_def(DenseArrayBase)
    mode = opt_attr_def(StringAttr)
    value = opt_attr_def(FloatAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"mode": "constant", "value": 0.0}

    def verify_shape(self) -> None:
        if len(self.value_of("paddings")) != 2 * self.x.type.get_num_dims():
            raise VerifyException("'paddings' needs two entries per input axis")
        if self.value_of("mode") not in ("constant", "reflect", "edge"):
            raise VerifyException(
                f"mode must be constant, reflect or edge, got '{self.value_of('mode')}'"
            )


class AxisOp(GEOperation):
    """Base of ops with one input and an `axis` attribute."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"axis": -1}
    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        _check_same_element_type(self)
        _check_axis(self.value_of("axis"), self.x.type.get_num_dims())


@irdl_op_definition
class SoftmaxOp(AxisOp):
    """Softmax along `axis`."""

    name = "ge.softmax"


@irdl_op_definition
class LogSoftmaxOp(AxisOp):
    """Log-softmax along `axis`."""

    name = "ge.log_softmax"


class ReduceOp(GEOperation):
    """Base of reductions over `axes` (all axes when empty)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = opt_attr_def(DenseArrayBase)
    keep_dims = opt_attr_def(IntegerAttr)

    ATTR_DEFAULTS: ClassVar[dict[str, Any]] = {"axes": [], "keep_dims": True}
    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"

    def verify_(self) -> None:
        _check_same_element_type(self)
        rank = self.x.type.get_num_dims()
        for axis in self.value_of("axes"):
            _check_axis(axis, rank)


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    """Sum over `axes`."""

    name = "ge.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """Mean over `axes`."""

    name = "ge.reduce_mean"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """Max over `axes`."""

    name = "ge.reduce_max"


GE_OPS: list[type[IRDLOperation]] = [
    GraphOp,
    DataOp,
    ConstOp,
    VariableOp,
    NetOutputOp,
    IfOp,
    CaseOp,
    WhileOp,
    PartitionedCallOp,
    FusedOp,
    TransDataOp,
    CastOp,
    ReshapeOp,
    FlattenOp,
    SqueezeOp,
    UnsqueezeOp,
    ExpandDimsOp,
    TransposeOp,
    PermuteOp,
    ReluOp,
    SigmoidOp,
    TanhOp,
    SoftplusOp,
    NegOp,
    AbsOp,
    ExpOp,
    SqrtOp,
    LogOp,
    ReciprocalOp,
    IdentityOp,
    LeakyReluOp,
    EluOp,
    SeluOp,
    ClipOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    PowOp,
    MaximumOp,
    MinimumOp,
    PReluOp,
    AddNOp,
    Conv2DOp,
    Conv2DTransposeOp,
    MaxPoolOp,
    AvgPoolOp,
    GlobalAvgPoolOp,
    GlobalMaxPoolOp,
    BatchNormOp,
    InstanceNormOp,
    LRNOp,
    BiasAddOp,
    MatMulOp,
    BatchMatMulOp,
    GemmOp,
    ConcatOp,
    SplitOp,
    SliceOp,
    GatherOp,
    TileOp,
    PadOp,
    SoftmaxOp,
    LogSoftmaxOp,
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
]
"""Every op of the dialect, in the order the dialect registers them."""

TRANS_OPS = (
    TransDataOp,
    CastOp,
    TransposeOp,
    PermuteOp,
    ReshapeOp,
    SqueezeOp,
    UnsqueezeOp,
    ExpandDimsOp,
)
"""Ops that only move or reinterpret data (GE's trans ops)."""
