"""Consistency of the values an op carries, whatever made the op.

The parser, the ONNX, TensorFlow and PyTorch importers, the offline-model
loader and the Python API all end in `diagnostics.verify_module`, which asks
`check_values` about every op, so what is accepted does not depend on the
entry point. It checks what the attribute and type definitions alone cannot:

- a tensor or memref type has at most `MAX_RANK` dims;
- a dense constant holds exactly the bytes its type needs (or one element,
  a splat) (a hex literal
  `dense<"0x003C003C00"> : tensor<2xf16>` holds 5 for 4);
- nested array and dictionary attributes are checked the same way.

```
net.mlir:2:8: error: 'ge.const' op attribute 'value': dense data has 5 bytes,
tensor<2xf16> needs 4
```
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    ShapedType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.limits import MAX_RANK


def check_values(op: Operation) -> None:
    """VerifyException naming the first of `op`'s result types, block argument
    types or attributes (properties included) that is not consistent."""
    for result in op.results:
        _check_type(result.type, f"result #{result.index}")
    for region in op.regions:
        for block in region.blocks:
            for argument in block.args:
                _check_type(argument.type, f"block argument #{argument.index}")
    for name, attr in (*op.properties.items(), *op.attributes.items()):
        _check_attribute(attr, f"attribute '{name}'")


def check_rank(rank: int, what: str) -> None:
    """VerifyException if `rank` is over `MAX_RANK`."""
    if rank > MAX_RANK:
        raise VerifyException(f"{what} has rank {rank}, more than {MAX_RANK}")


def _check_type(type_: Attribute, what: str) -> None:
    if isinstance(type_, ShapedType):
        check_rank(type_.get_num_dims(), what)


def _check_attribute(attr: Attribute, what: str) -> None:
    if isinstance(attr, ArrayAttr):
        for item in attr.data:
            _check_attribute(item, what)
    elif isinstance(attr, DictionaryAttr):
        for item in attr.data.values():
            _check_attribute(item, what)
    elif isinstance(attr, DenseIntOrFPElementsAttr):
        _check_dense(attr, what)
    elif isinstance(attr, ShapedType):
        _check_type(attr, what)


def _check_dense(attr: DenseIntOrFPElementsAttr, what: str) -> None:
    tensor = attr.get_type()
    _check_type(tensor, what)
    size = attr.get_element_type().compile_time_size
    have = len(attr.data.data)
    need = tensor.element_count() * size
    if have not in (need, size):  # a splat may keep its one element
        raise VerifyException(
            f"{what}: dense data has {have} bytes, {tensor} needs {need}"
        )
