"""Build `ge` graphs from Python without writing IR text (InfiniTensor's GraphHandler).

```python
b = GraphBuilder("main")
x = b.data([1, 3, 224, 224], "float32")
w = b.const(np.ones((64, 3, 7, 7), np.float32))
y = b.conv2d(x, w, strides=[1, 1, 2, 2], pads=[3, 3, 3, 3], data_format="NCHW")
b.output(b.relu(y))
module = b.build()          # verified
```

Every `ge` op is a method named like the op (`b.conv2d`, `b.max_pool`, ...):
operands are positional (a list for variadic operands, None for an absent
optional one), attributes are keyword arguments with Python values, and the
result types come from the op's shape function. `name=` sets the op's node
name (kept as the `name` attribute, used in diagnostics and dumps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OptOperandDef,
    VarOperandDef,
    VarResultDef,
)

from ge_dialect.attributes import ExternalDataAttr, FormatAttr, LayoutAttr
from ge_dialect.dtypes import dtype_name, element_type
from ge_dialect.formats import Format
from ge_dialect.ops import (
    OPS_BY_NAME,
    CaseOp,
    ConstOp,
    DataOp,
    GraphOp,
    IfOp,
    NetOutputOp,
    VariableOp,
    WhileOp,
)
from ge_dialect.shape_inference import infer_result_types
from ge_dialect.verification import verify_module

Subgraph = Callable[..., Sequence[SSAValue] | SSAValue]
"""A Python function that fills a subgraph: `fn(builder, *inputs) -> outputs`."""


def tensor_type(
    shape: Sequence[int],
    dtype: str = "float32",
    origin: Format | str | None = None,
    storage: Format | str | None = None,
) -> TensorType:
    """A tensor type with an optional `#ge.layout` (ND/ND means no encoding).

    A -1 in `shape` is an unknown dim (printed `?`).
    """
    elem = element_type(dtype)
    dims = [DYNAMIC_INDEX if d == -1 else d for d in shape]
    if origin is None or (Format(origin) == Format.ND and storage in (None, "ND")):
        return TensorType(elem, dims)
    return TensorType(elem, dims, LayoutAttr(origin, storage))


def python_to_attribute(value: Any, constraint_name: str = "") -> Attribute:
    """Convert a Python attribute value (`constraint_name`: "format", "type",
    or "dense": a dense array, of f32 when the values are not all ints)."""
    if isinstance(value, Attribute):
        return value
    if constraint_name == "format" or isinstance(value, Format):
        return FormatAttr(Format(value))
    if constraint_name == "type":
        return element_type(value if isinstance(value, str) else np.dtype(value).name)
    if value is True and constraint_name == "unit":
        return UnitAttr()
    if isinstance(value, bool | np.bool_):
        return IntegerAttr(int(value), IntegerType(1))
    if isinstance(value, int | np.integer):
        return IntegerAttr(int(value), i64)
    if isinstance(value, float | np.floating):
        return FloatAttr(float(value), f32)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, Mapping):
        return DictionaryAttr({k: python_to_attribute(v) for k, v in value.items()})
    if isinstance(value, Sequence | np.ndarray):
        items = list(value)
        if all(isinstance(v, int | np.integer) for v in items):
            return DenseArrayBase.from_list(i64, [int(v) for v in items])
        if constraint_name == "dense":
            return DenseArrayBase.from_list(f32, [float(v) for v in items])
        return ArrayAttr([python_to_attribute(v) for v in items])
    raise TypeError(f"cannot convert {value!r} to an attribute")


def op_attributes(
    op_class: type[IRDLOperation], values: Mapping[str, Any]
) -> dict[str, Attribute]:
    """Python attribute values as the attributes of an `op_class` op (None:
    absent)."""
    return {
        key: python_to_attribute(value, _constraint_kind(op_class, key))
        for key, value in values.items()
        if value is not None
    }


def _constraint_kind(op_class: type[IRDLOperation], name: str) -> str:
    attr_def = op_class.get_irdl_definition().attributes.get(name)
    if attr_def is None:
        return "unit"
    text = str(attr_def.constr)
    if "FormatAttr" in text:
        return "format"
    if name == "dst_type":
        return "type"
    if "DenseArrayBase" in text:
        return "dense"
    return ""


class GraphBuilder:
    """Builds one `ge.graph` (or a subgraph, when `parent_types` is given)."""

    def __init__(self, name: str = "main", *, parent_types: Sequence[Attribute] = ()):
        self.name = name
        self.block = Block()
        self._parent_types = list(parent_types)
        self._num_inputs = 0
        self._finished = False

    # -- graph inputs and constants ------------------------------------------

    def data(
        self,
        shape: Sequence[int],
        dtype: str = "float32",
        *,
        format: Format | str | None = None,
        storage_format: Format | str | None = None,
        storage_shape: Sequence[int] | None = None,
        name: str | None = None,
    ) -> SSAValue:
        """A graph input (`ge.data`) with the next index."""
        attributes: dict[str, Attribute] = {"index": IntegerAttr(self._num_inputs, i64)}
        self._num_inputs += 1
        if storage_format is not None:
            attributes["storage_format"] = FormatAttr(Format(storage_format))
        if storage_shape is not None:
            attributes["storage_shape"] = python_to_attribute(list(storage_shape))
        op = DataOp.build(
            attributes=attributes, result_types=[tensor_type(shape, dtype, format)]
        )
        return self._append(op, name)

    def parent_data(self, parent_index: int, name: str | None = None) -> SSAValue:
        """Inside a subgraph: the `ge.data` mirroring parent operand `parent_index`."""
        source = self._parent_types[parent_index]
        assert isinstance(source, TensorType)
        op = DataOp.build(
            attributes={"parent_index": IntegerAttr(parent_index, i64)},
            result_types=[source],
        )
        return self._append(op, name)

    def const(
        self,
        array: Any,
        dtype: str | None = None,
        *,
        format: Format | str | None = None,
        name: str | None = None,
    ) -> SSAValue:
        """A constant (`ge.const`) holding `array` inline."""
        values = np.asarray(array, dtype=dtype)
        result = tensor_type(values.shape, values.dtype.name, format)
        attr = DenseIntOrFPElementsAttr.from_list(
            TensorType(result.element_type, values.shape),
            values.reshape(-1).tolist(),
        )
        op = ConstOp.build(attributes={"value": attr}, result_types=[result])
        return self._append(op, name)

    def external_const(
        self,
        key: str,
        shape: Sequence[int],
        dtype: str,
        *,
        format: Format | str | None = None,
        name: str | None = None,
    ) -> SSAValue:
        """A constant whose data lives outside the IR (`#ge.external<key>`)."""
        op = ConstOp.build(
            attributes={"value": ExternalDataAttr(key)},
            result_types=[tensor_type(shape, dtype, format)],
        )
        return self._append(op, name)

    def variable(
        self, var_name: str, shape: Sequence[int], dtype: str = "float32"
    ) -> SSAValue:
        """A named graph variable."""
        op = VariableOp.build(
            attributes={"name": StringAttr(var_name)},
            result_types=[tensor_type(shape, dtype)],
        )
        return self._append(op, None)

    # -- computation ---------------------------------------------------------

    def op(
        self,
        op_name: str,
        *operands: Any,
        result_types: Sequence[Attribute] | None = None,
        name: str | None = None,
        **attributes: Any,
    ) -> Any:
        """Append `ge.<op_name>`; returns its result, or a list for several."""
        full_name = op_name if "." in op_name else f"ge.{op_name}"
        op_class = OPS_BY_NAME.get(full_name)
        if op_class is None:
            raise ValueError(f"unknown op '{full_name}'")
        operand_groups = self._group_operands(op_class, operands)
        attrs = op_attributes(op_class, attributes)
        if result_types is None:
            flat_types = [v.type for group in operand_groups for v in group]
            result_types = infer_result_types(op_class, flat_types, attributes)
        op = op_class.build(
            operands=operand_groups,
            result_types=self._group_results(op_class, list(result_types)),
            attributes=attrs,
        )
        self._append(op, name)
        return op.results[0] if len(op.results) == 1 else list(op.results)

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if f"ge.{method}" not in OPS_BY_NAME:
            raise AttributeError(f"GraphBuilder has no op '{method}'")
        return lambda *operands, **kwargs: self.op(method, *operands, **kwargs)

    @staticmethod
    def _group_operands(
        op_class: type[IRDLOperation], operands: Sequence[Any]
    ) -> list[list[SSAValue]]:
        defs = op_class.get_irdl_definition().operands
        if len(operands) > len(defs):
            raise ValueError(
                f"'{op_class.name}' takes {len(defs)} operands, got {len(operands)}"
            )
        groups: list[list[SSAValue]] = []
        for index, (_, operand_def) in enumerate(defs):
            given = operands[index] if index < len(operands) else None
            if isinstance(operand_def, VarOperandDef) and not isinstance(
                operand_def, OptOperandDef
            ):
                groups.append(list(given or []))
            elif isinstance(operand_def, OptOperandDef):
                groups.append([] if given is None else [given])
            else:
                if given is None:
                    raise ValueError(f"'{op_class.name}' is missing operand #{index}")
                groups.append([given])
        return groups

    @staticmethod
    def _group_results(
        op_class: type[IRDLOperation], types: list[Attribute]
    ) -> list[Any]:
        defs = op_class.get_irdl_definition().results
        if len(defs) == 1 and isinstance(defs[0][1], VarResultDef):
            return [types]
        return types

    # -- control flow --------------------------------------------------------

    def if_(
        self,
        cond: SSAValue,
        inputs: Sequence[SSAValue],
        then_branch: Subgraph,
        else_branch: Subgraph,
        name: str | None = None,
    ) -> list[SSAValue]:
        """`ge.if`: each branch is `fn(builder, *inputs) -> outputs`."""
        operands = [cond, *inputs]
        regions = [self._subgraph(fn, operands, 1) for fn in (then_branch, else_branch)]
        op = IfOp.build(
            operands=[cond, list(inputs)],
            result_types=[_output_types(regions[0])],
            regions=regions,
        )
        self._append(op, name)
        return list(op.results)

    def case(
        self,
        branch_index: SSAValue,
        inputs: Sequence[SSAValue],
        branches: Sequence[Subgraph],
        name: str | None = None,
    ) -> list[SSAValue]:
        """`ge.case`: runs `branches[branch_index]`."""
        operands = [branch_index, *inputs]
        regions = [self._subgraph(fn, operands, 1) for fn in branches]
        op = CaseOp.build(
            operands=[branch_index, list(inputs)],
            result_types=[_output_types(regions[0])],
            regions=[regions],
        )
        self._append(op, name)
        return list(op.results)

    def while_(
        self,
        inputs: Sequence[SSAValue],
        cond: Subgraph,
        body: Subgraph,
        name: str | None = None,
        variable_types: Sequence[Attribute] | None = None,
    ) -> list[SSAValue]:
        """`ge.while` over loop variables `inputs`, of `variable_types` (where
        a dim the loop changes is unknown; default: the inputs' types)."""
        types = [v.type for v in inputs] if variable_types is None else variable_types
        regions = [self._subgraph(fn, types, 0) for fn in (cond, body)]
        op = WhileOp.build(
            operands=[list(inputs)],
            result_types=[list(types)],
            regions=regions,
        )
        self._append(op, name)
        return list(op.results)

    def _subgraph(
        self, fn: Subgraph, operands: Sequence[SSAValue | Attribute], first_input: int
    ) -> Region:
        """A subgraph region whose `ge.data` mirror `operands` (their types)
        from `first_input` on."""
        types = [v.type if isinstance(v, SSAValue) else v for v in operands]
        sub = GraphBuilder(self.name, parent_types=types)
        data = [sub.parent_data(i) for i in range(first_input, len(operands))]
        outputs = fn(sub, *data)
        sub.output(*([outputs] if isinstance(outputs, SSAValue) else outputs))
        return Region(sub._take_block())

    # -- finishing -----------------------------------------------------------

    def output(
        self, *values: SSAValue, storage_formats: Sequence[str] | None = None
    ) -> None:
        """Terminate the graph with `ge.netoutput` of `values`."""
        op = NetOutputOp(list(values))
        if storage_formats is not None:
            op.attributes["storage_formats"] = ArrayAttr(
                [FormatAttr(Format(f)) for f in storage_formats]
            )
        self.block.add_op(op)
        self._finished = True

    def graph(self) -> GraphOp:
        """The `ge.graph` op (after `output`)."""
        return GraphOp(self.name, Region(self._take_block()))

    def build(self, verify: bool = True) -> ModuleOp:
        """A module holding the graph, verified unless `verify=False`."""
        module = ModuleOp([self.graph()])
        if verify:
            verify_module(module)
        return module

    def _take_block(self) -> Block:
        if not self._finished:
            raise ValueError(f"graph '{self.name}' has no output (call output())")
        block, self.block = self.block, Block()
        return block

    def _append(self, op: Operation, name: str | None) -> SSAValue:
        if name is not None:
            op.attributes["name"] = StringAttr(name)
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]


def _output_types(region: Region) -> list[Attribute]:
    terminator = region.block.last_op
    assert terminator is not None
    return [v.type for v in terminator.operands]


def dtype_of(value: SSAValue) -> str:
    """The dtype name of a tensor value."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return dtype_name(tensor.element_type)
