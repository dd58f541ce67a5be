"""Constant and weight data in storage layouts.

A `ge.const` holds its value in the storage layout of its result type; weights
kept outside the IR (`#ge.external<"key">`) are arrays in the layout their
constant's type says. These helpers convert between dense attributes, NumPy
arrays and layouts, and derive the relaid-out weights that `insert-transdata`
names (`storage_of`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Operation

from ge_dialect.adapters import expected_dtype
from ge_dialect.attributes import ExternalDataAttr
from ge_dialect.dtype_names import numpy_dtype
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format
from ge_dialect.layout import (
    layout_attr,
    origin_layout,
    satisfies,
    shape_of,
    storage_shape_of,
)
from ge_dialect.locations import error_at
from ge_dialect.ops import ConstOp
from ge_dialect.relayout import from_storage, to_storage


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The array of a dense elements attribute (i1 becomes bool)."""
    tensor = attr.get_type()
    element = tensor.element_type
    dtype = expected_dtype(tensor)
    shape = tuple(tensor.get_shape())
    struct_format = getattr(element, "format", None)
    if struct_format is None:
        flat = np.asarray(attr.get_values())
    else:
        flat = np.frombuffer(attr.data.data, dtype=np.dtype(struct_format))
    flat = flat != 0 if dtype == np.bool_ else flat.astype(dtype)
    if flat.size == 1:
        return np.full(shape, flat[0], dtype)
    return flat.reshape(shape)


STORAGE_OF = "storage_of"
"""`ge.const` attribute: its external data is the named weight, relaid out."""


def dense_from_numpy(array: np.ndarray, tensor: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute of type `tensor` holding `array` (same shape)."""
    struct_format = getattr(tensor.element_type, "format", None)
    if struct_format is None:
        return DenseIntOrFPElementsAttr.from_list(tensor, array.reshape(-1).tolist())
    data = np.ascontiguousarray(array, dtype=np.dtype(struct_format)).tobytes()
    return DenseIntOrFPElementsAttr(tensor, BytesAttr(data))


def is_splat_array(array: np.ndarray) -> bool:
    """Whether every element of `array` has the same bits (so -0.0 is not 0.0)."""
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    size = array.dtype.itemsize
    return array.size > 0 and bool((flat.reshape(-1, size) == flat[:size]).all())


def splat_dense(array: np.ndarray, tensor: TensorType) -> DenseIntOrFPElementsAttr:
    """The dense attribute of type `tensor` whose every element is `array`'s
    (which is a splat); it holds the one element only."""
    return dense_from_numpy(array.reshape(-1)[:1], tensor)


def inline_stored_array(const: ConstOp, target: str | None) -> np.ndarray:
    """The storage-layout array of a constant with an inline value.

    The value is that array, or, for a splat written in the result's *origin*
    shape, the splat laid out in the storage format, whose padding is zero:
    a padded splat prints as `dense<0.5> : tensor<9x9x3x3xf16>` rather than
    its storage bytes.
    """
    assert isinstance(const.value, DenseIntOrFPElementsAttr)
    array = dense_to_numpy(const.value)
    tensor = const.output.type
    assert isinstance(tensor, TensorType)
    if array.shape == tuple(storage_shape_of(tensor, target)):
        return array
    return stored_array(array, tensor, target)  # a splat in the origin shape


def inline_stored_dense(const: ConstOp, target: str | None) -> DenseIntOrFPElementsAttr:
    """`inline_stored_array` as a dense attribute of the storage shape."""
    assert isinstance(const.value, DenseIntOrFPElementsAttr)
    stored = inline_stored_array(const, target)
    if stored.shape == tuple(const.value.get_type().get_shape()):
        return const.value
    tensor = const.output.type
    assert isinstance(tensor, TensorType)
    return dense_from_numpy(stored, TensorType(tensor.element_type, stored.shape))


def origin_array(
    stored: np.ndarray, tensor: TensorType, target: str | None
) -> np.ndarray:
    """The origin-layout array held by `stored` in the layout of `tensor`."""
    layout = layout_attr(tensor)
    if layout.storage_format in (layout.origin_format, Format.ND):
        return stored
    return from_storage(
        stored,
        layout.origin_format,
        layout.storage_format,
        shape_of(tensor),
        reshape_type=layout.explicit_reshape_type,
        target=target,
        dtype=dtype_name(tensor.element_type),
    )


def stored_array(
    origin: np.ndarray, tensor: TensorType, target: str | None
) -> np.ndarray:
    """`origin` cast to the dtype of `tensor` and laid out in its storage format."""
    dtype = dtype_name(tensor.element_type)
    origin = origin.astype(numpy_dtype(dtype), copy=False)
    layout = layout_attr(tensor)
    if layout.storage_format in (layout.origin_format, Format.ND):
        return origin
    return to_storage(
        origin,
        layout.origin_format,
        layout.storage_format,
        reshape_type=layout.explicit_reshape_type,
        target=target,
        dtype=dtype,
    )


def derived_weight_key(key: str, tensor: TensorType) -> str:
    """The weight key of external data `key` relaid out to the type `tensor`."""
    layout = layout_attr(tensor)
    suffix = layout.storage_format.value
    if (reshape_type := layout.explicit_reshape_type) is not None:
        suffix += f".{reshape_type}"
    return f"{key}@{suffix}:{dtype_name(tensor.element_type)}"


def relayout_constant(
    const: ConstOp, tensor: TensorType, target: str | None
) -> ConstOp | None:
    """A new constant holding `const`'s value as type `tensor`, or None if the
    data is external and not in origin layout (it cannot be derived here)."""
    old = const.output.type
    assert isinstance(old, TensorType)
    attributes = {k: v for k, v in const.attributes.items() if k != "value"}
    if isinstance(const.value, ExternalDataAttr):
        if const.attributes.get(STORAGE_OF) is not None or not satisfies(
            old, origin_layout(old)
        ):
            return None
        key = const.value.key.data
        attributes["value"] = ExternalDataAttr(derived_weight_key(key, tensor))
        attributes[STORAGE_OF] = StringAttr(key)
    else:
        origin = origin_array(inline_stored_array(const, target), old, target)
        stored = stored_array(origin, tensor, target)
        attributes["value"] = compact_dense(origin, stored, tensor)
    return ConstOp.create(attributes=attributes, result_types=[tensor])


def compact_dense(
    origin: np.ndarray, stored: np.ndarray, tensor: TensorType
) -> DenseIntOrFPElementsAttr:
    """The value of a constant of type `tensor` holding `stored` (laid out from
    `origin`): a splat stays one element, in the origin shape when the storage
    layout pads it (see `inline_stored_array`)."""
    element = tensor.element_type
    if is_splat_array(stored):
        return splat_dense(stored, TensorType(element, stored.shape))
    if is_splat_array(origin):
        return splat_dense(origin, TensorType(element, origin.shape))
    return dense_from_numpy(stored, TensorType(element, stored.shape))


class StorageWeights(Mapping[str, np.ndarray]):
    """`weights` plus the array of every `storage_of` constant of a module,
    each laid out when first read and then kept (`release` drops it again).

    Nothing is copied up front: a compile that writes each laid-out weight
    once and releases it never holds the whole model twice.
    """

    def __init__(
        self,
        module: Operation,
        weights: Mapping[str, np.ndarray],
        target: str | None = None,
    ):
        self.weights = weights
        self.target = target
        self.recipes: dict[str, tuple[TensorType, str]] = {}
        """Derived key -> (its constant's type, the origin-layout key)."""
        self.derived: dict[str, np.ndarray] = {}
        for op in module.walk():
            source = op.attributes.get(STORAGE_OF)
            if not isinstance(op, ConstOp) or not isinstance(source, StringAttr):
                continue
            assert isinstance(op.value, ExternalDataAttr)
            if source.data not in weights:
                raise error_at(op, f"weight '{source.data}' is not in the weights")
            tensor = op.output.type
            assert isinstance(tensor, TensorType)
            self.recipes[op.value.key.data] = (tensor, source.data)

    def __getitem__(self, key: str) -> np.ndarray:
        if key in self.derived:
            return self.derived[key]
        if key not in self.recipes:
            return self.weights[key]
        tensor, source = self.recipes[key]
        array = stored_array(np.asarray(self.weights[source]), tensor, self.target)
        self.derived[key] = array
        return array

    def __iter__(self) -> Iterator[str]:
        yield from self.weights
        yield from (key for key in self.recipes if key not in self.weights)

    def __len__(self) -> int:
        return len(self.weights) + sum(key not in self.weights for key in self.recipes)

    def __contains__(self, key: object) -> bool:
        return key in self.recipes or key in self.weights

    def release(self, key: str) -> None:
        """Forget the derived array of `key` (it is derived again if read)."""
        self.derived.pop(key, None)

    def array_type(self, key: str) -> tuple[tuple[int, ...], np.dtype]:
        """The shape and dtype of the array of `key`, without deriving it."""
        if key in self.recipes:
            tensor, _ = self.recipes[key]
            shape = tuple(storage_shape_of(tensor, self.target))
            return shape, expected_dtype(tensor)
        array = self.weights[key]
        return tuple(array.shape), array.dtype


def derive_storage_weights(
    module: Operation, weights: Mapping[str, np.ndarray], target: str | None = None
) -> StorageWeights:
    """`weights` plus the array of every `storage_of` constant in `module` (a
    module or a graph), laid out on first read (`StorageWeights`).

    Call it when loading weights for a module that went through this pass.
    """
    return StorageWeights(module, weights, target)
