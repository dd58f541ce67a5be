"""`ge.dynamic_attrs`: an op whose parameters are tensors known only at run time.

GE has two forms of ops such as ReduceSum, Slice or Pad: one taking its
axes, bounds or pads as constant attributes (ReduceSumD, SliceD, PadD: what
the compiler knows) and one taking them as input tensors. When those
inputs are constants the tensor form becomes the attribute form at
compile time; otherwise the op stays dynamic and, under host scheduling,
run-time shape inference reads the parameter tensors before the op runs.

`ge.dynamic_attrs` is the tensor form of every op that declares
`RUN_TIME_PARAMETERS` (the op's one home says which parameters and how
their values become its attributes: `bind_parameters`). It carries the
static op's name, its data operands, its run-time parameter operands
(named by `parameter_names`) and `static_attrs`: the op's options and the
parameters that are known. At run time the host scheduler reads the
parameter values, binds them (`specialise`), infers the static op's shape
and runs it on the JIT, compiled once per shape and parameter values.

```mlir
%y = ge.dynamic_attrs "ge.reduce_sum" (%x : tensor<3x4xf32>) [%axes : tensor<1xi64>]
    {parameter_names = ["axes"], static_attrs = {keep_dims = false}} -> tensor<?xf32>
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr, TensorType
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.adapters import call_kernel
from ge_dialect.attribute_values import attribute_to_python
from ge_dialect.format_rules import stop_rule
from ge_dialect.layout import shape_of
from ge_dialect.ops.base import GEOperation
from ge_dialect.ops.static_families import STATIC_OPS_BY_NAME
from ge_dialect.shape_functions import Result, Shape, ShapeError, Unbound, required


def static_op_class(name: str) -> type[GEOperation]:
    """The op class named `name` that takes run-time parameters."""
    if name == DynamicAttrsOp.name:  # it wraps a static op, not itself
        raise ShapeError(f"'{name}' takes no run-time parameters")
    op_class = STATIC_OPS_BY_NAME.get(name)
    if op_class is None or not issubclass(op_class, GEOperation):
        raise ShapeError(f"'{name}' is not a ge op")
    if not op_class.RUN_TIME_PARAMETERS:
        raise ShapeError(f"'{name}' takes no run-time parameters")
    return op_class


def bound_attributes(
    op_name: str,
    parameter_names: Sequence[str],
    static_attrs: Mapping[str, Any],
    shapes: Sequence[Shape],
    parameters: Sequence[np.ndarray],
) -> tuple[type[GEOperation], dict[str, Any]]:
    """The static op and its attributes for the parameter values `parameters`
    (named `parameter_names`) on data operands of `shapes`."""
    op_class = static_op_class(op_name)
    values = dict(static_attrs)
    values.update(zip(parameter_names, parameters, strict=True))
    return op_class.bind_parameters(shapes, values)


@irdl_op_definition
class DynamicAttrsOp(GEOperation):
    """`static_op` on `inputs`, with the parameters `parameter_names` given by
    the `parameters` tensors (known at run time) and the rest in
    `static_attrs`."""

    name = "ge.dynamic_attrs"

    inputs = var_operand_def(TensorType)
    parameters = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    static_op = attr_def(StringAttr)
    parameter_names = attr_def(ArrayAttr[StringAttr])
    static_attrs = attr_def(DictionaryAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)

    assembly_format = (
        "$static_op `(` $inputs `:` type($inputs) `)` "
        "`[` ($parameters^ `:` type($parameters))? `]` attr-dict `->` type($outputs)"
    )

    def verify_(self) -> None:
        try:
            op_class = static_op_class(self.static_op.data)
        except ShapeError as error:
            raise VerifyException(str(error)) from None
        names = [name.data for name in self.parameter_names.data]
        if len(names) != len(self.parameters):
            raise VerifyException(
                f"{len(self.parameters)} parameters but {len(names)} parameter names"
            )
        for name in names:
            if name not in op_class.RUN_TIME_PARAMETERS:
                raise VerifyException(
                    f"'{name}' is not a run-time parameter of {op_class.name} "
                    f"(it takes {', '.join(op_class.RUN_TIME_PARAMETERS)})"
                )
            if name in self.static_attrs.data:
                raise VerifyException(f"'{name}' is both an operand and static")
        for operand in self.parameters:
            if len(shape_of(operand.type)) > 1:
                raise VerifyException("parameters are scalars or 1-D tensors")
        if not self.inputs:
            raise VerifyException("the op needs a data operand")
        self._verify_result_types()

    def _verify_result_types(self) -> None:
        """Results as many and of the rank the static op's unbound shape
        function gives; its known dims as it says."""
        from ge_dialect.dtypes import dtype_name

        operands = [*self.inputs, *self.parameters]
        try:
            expected = self.shape_function(
                [shape_of(v.type) for v in operands],
                [dtype_name(v.type.element_type) for v in operands],
                {
                    "static_op": self.static_op.data,
                    "parameter_names": [n.data for n in self.parameter_names.data],
                    "static_attrs": self.static_attrs,
                },
            )
        except ShapeError as error:
            raise VerifyException(str(error)) from None
        if len(expected) != len(self.outputs):
            raise VerifyException(
                f"{self.static_op.data} gives {len(expected)} results here, "
                f"not {len(self.outputs)}"
            )
        for index, (result, (shape, _)) in enumerate(
            zip(self.outputs, expected, strict=True)
        ):
            declared = shape_of(result.type)
            if len(declared) != len(shape) or any(
                -1 not in (d, e) and d != e
                for d, e in zip(declared, shape, strict=True)
            ):
                raise VerifyException(
                    f"result #{index} has shape {list(declared)}, "
                    f"{self.static_op.data} gives {list(shape)} here"
                )

    @property
    def data_operand_count(self) -> int:
        """Operands the static op reads (the rest are run-time parameters)."""
        return len(self.inputs)

    def run_time_parameter_names(self) -> list[str]:
        """The names of the run-time parameter operands (for messages)."""
        return [name.data for name in self.parameter_names.data]

    def options(self) -> dict[str, Any]:
        """`static_attrs` as Python values."""
        return {k: attribute_to_python(v) for k, v in self.static_attrs.data.items()}

    def specialise(
        self, shapes: Sequence[Shape], parameters: Sequence[np.ndarray]
    ) -> tuple[type[GEOperation], dict[str, Any]]:
        """The static op and its attributes for these parameter values, on
        data operands of `shapes` (a `ShapeError` says why they are invalid)."""
        return bound_attributes(
            self.static_op.data,
            [name.data for name in self.parameter_names.data],
            self.options(),
            shapes,
            parameters,
        )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The static op's `unbound_shape_function`: the parameters are the
        last `len(parameter_names)` operands."""
        op_class = static_op_class(required(attrs, "static_op"))
        names = [
            name.data if isinstance(name, StringAttr) else name
            for name in required(attrs, "parameter_names")
        ]
        count = len(shapes) - len(names)
        return op_class.unbound_shape_function(
            Unbound(
                shapes[:count],
                dtypes[:count],
                dict(zip(names, shapes[count:], strict=True)),
                _python_dict(attrs.get("static_attrs") or {}),
            )
        )

    @staticmethod
    def numpy_kernel(
        inputs: Sequence[np.ndarray],
        parameters: Sequence[np.ndarray],
        *,
        static_op: str,
        parameter_names: Sequence[str],
        static_attrs: Any,
    ) -> Any:
        """The static op's kernel with the bound attributes."""
        op_class, attrs = bound_attributes(
            static_op,
            parameter_names,
            _python_dict(static_attrs),
            [x.shape for x in inputs],
            parameters,
        )
        return call_kernel(op_class, *inputs, **attrs)


def _python_dict(attrs: Any) -> dict[str, Any]:
    """A `static_attrs` value (a DictionaryAttr or a dict) as Python values."""
    if isinstance(attrs, DictionaryAttr):
        attrs = attrs.data
    return {k: attribute_to_python(v) for k, v in attrs.items()}
