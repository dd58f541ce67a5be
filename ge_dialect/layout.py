"""Reading and checking the `#ge.layout` encoding of tensor types.

Every question about a tensor's layout (its formats, its storage shape, whether
its rank fits its origin format) is answered here, through the format library.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from xdsl.dialects.builtin import DYNAMIC_INDEX, NoneAttr, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import LayoutAttr
from ge_dialect.dtypes import dtype_name
from ge_dialect.formats import Format, FormatError
from ge_dialect.limits import INT64_MAX, LimitError, checked_product
from ge_dialect.relayout import transfer_shape


def shape_of(tensor: TensorType) -> tuple[int, ...]:
    """The origin shape, with -1 (the format library's unknown dim) for each `?`."""
    return tuple(-1 if d == DYNAMIC_INDEX else d for d in tensor.get_shape())


def layout_of(tensor: TensorType) -> tuple[Format, Format]:
    """The (origin, storage) formats of a tensor type; ND/ND without encoding."""
    encoding = tensor.encoding
    if isinstance(encoding, LayoutAttr):
        return encoding.origin_format, encoding.storage_format
    return Format.ND, Format.ND


def with_layout(
    tensor: TensorType,
    origin: Format | str,
    storage: Format | str | None = None,
    *,
    reshape_type: str | None = None,
) -> TensorType:
    """`tensor` with a new layout; ND/ND drops the encoding."""
    origin = Format(origin)
    storage = origin if storage is None else Format(storage)
    if origin == storage == Format.ND and reshape_type is None:
        return TensorType(tensor.element_type, tensor.get_shape())
    layout = LayoutAttr(origin, storage, reshape_type=reshape_type)
    return TensorType(tensor.element_type, tensor.get_shape(), layout)


def reshape_type_of(tensor: TensorType) -> str | None:
    """The explicit reshape type of a tensor type, if any."""
    encoding = tensor.encoding
    return encoding.explicit_reshape_type if isinstance(encoding, LayoutAttr) else None


VALID_TYPES_KEPT = 1 << 14
"""The most tensor types `check_tensor_type` remembers as valid (a type is
a value: verifying a graph after each pass checks each of its types once,
not once per use per pass, a tenth of BERT-base's compile), and the most
answers `storage_shape_of` and `retyped` keep."""


@lru_cache(maxsize=VALID_TYPES_KEPT)
def storage_shape_of(tensor: TensorType, target: str | None = None) -> tuple[int, ...]:
    """The shape of the tensor's bytes in its storage format (found once per
    type and target: the passes ask for it of every tensor they look at)."""
    encoding = tensor.encoding
    if not isinstance(encoding, LayoutAttr):
        return shape_of(tensor)
    if (explicit := encoding.explicit_storage_shape) is not None:
        return explicit
    if encoding.storage_format == encoding.origin_format:
        return shape_of(tensor)
    return transfer_shape(
        shape_of(tensor),
        encoding.origin_format,
        encoding.storage_format,
        dtype_name(tensor.element_type),
        reshape_type=encoding.explicit_reshape_type,
        target=target,
    )


def check_dims(tensor: TensorType) -> None:
    """Raise VerifyException unless each dim is `?` or in int64 and the byte
    size fits int64 too (what every shape and size computation assumes)."""
    static = [d for d in tensor.get_shape() if d != DYNAMIC_INDEX]
    width = getattr(tensor.element_type, "bitwidth", 8)
    try:
        count = checked_product(static, "shape")
    except LimitError as error:
        raise VerifyException(str(error)) from None
    if count * max(width // 8, 1) > INT64_MAX:
        raise VerifyException(f"shape {static} has more than 2^63 bytes")


def check_tensor_type(tensor: TensorType) -> None:
    """Raise VerifyException if the tensor's dims or encoding are not valid."""
    if _VALID_OBJECTS.get(id(tensor)) is tensor:
        return
    if tensor not in _VALID:
        _check_tensor_type(tensor)
        _VALID[tensor] = None
        if len(_VALID) > VALID_TYPES_KEPT:
            del _VALID[next(iter(_VALID))]
    _VALID_OBJECTS[id(tensor)] = tensor
    if len(_VALID_OBJECTS) > VALID_TYPES_KEPT:
        del _VALID_OBJECTS[next(iter(_VALID_OBJECTS))]


_VALID: dict[TensorType, None] = {}
"""Types found valid, oldest first."""

_VALID_OBJECTS: dict[int, TensorType] = {}
"""Types found valid by their id, oldest first: a graph's values keep their
type objects from pass to pass, found without hashing their parameters
(kept here, so their ids are not reused)."""


def _check_tensor_type(tensor: TensorType) -> None:
    check_dims(tensor)
    encoding = tensor.encoding
    if isinstance(encoding, NoneAttr):
        return
    if not isinstance(encoding, LayoutAttr):
        raise VerifyException(f"tensor encoding must be #ge.layout, got {encoding}")
    try:
        check_rank_fits(tensor, encoding)
        derived = transfer_shape(
            shape_of(tensor),
            encoding.origin_format,
            encoding.storage_format,
            dtype_name(tensor.element_type),
            reshape_type=encoding.explicit_reshape_type,
        )
    except FormatError as error:
        raise VerifyException(str(error)) from None
    explicit = encoding.explicit_storage_shape
    if explicit is not None and derived != explicit and -1 not in derived:
        raise VerifyException(
            f"storage_shape {list(explicit)} does not match "
            f"the {encoding.storage_format.value} shape {list(derived)} derived "
            f"from {list(shape_of(tensor))}"
        )


def check_rank_fits(tensor: TensorType, layout: LayoutAttr) -> None:
    """The rank must equal the origin format's full rank, or expand to it."""
    from ge_dialect.formats import default_reshape_type, full_rank

    origin = layout.origin_format
    rank = tensor.get_num_dims()
    expected = full_rank(origin)
    if origin == Format.ND or expected is None or rank == expected:
        return
    if rank > expected:
        raise VerifyException(
            f"rank {rank} is too large for origin format {origin.value} "
            f"(rank {expected})"
        )
    reshape_type = layout.explicit_reshape_type
    if reshape_type is None:
        if default_reshape_type(origin, rank) is None:
            raise VerifyException(
                f"rank {rank} does not fit origin format {origin.value} and no "
                "reshape type says how to expand it"
            )
        return
    positions = [origin.value.find(letter) for letter in reshape_type]
    in_order = -1 not in positions and positions == sorted(set(positions))
    if len(reshape_type) != rank or not in_order:
        raise VerifyException(
            f'reshape_type "{reshape_type}" does not describe a rank-{rank} '
            f"{origin.value} tensor"
        )


@cache
def format_layout(origin: Format) -> LayoutAttr:
    """The layout of a tensor stored in its origin format `origin`, one
    attribute per format (attributes are values): the passes ask for it
    of every tensor, and building one verifies its four parameters
    (CRNN's `ge-atc`: 37,000 built, 0.6 s)."""
    return LayoutAttr(origin)


@lru_cache(maxsize=VALID_TYPES_KEPT)
def stored_layout(
    origin: Format, storage: Format, reshape_type: str | None = None
) -> LayoutAttr:
    """The layout of a tensor of `origin` format stored in `storage`, built
    once per triple like `format_layout` (CRNN's format selection asks for
    4,000 of a few dozen)."""
    return LayoutAttr(origin, storage, reshape_type=reshape_type)


def layout_attr(tensor: Attribute) -> LayoutAttr:
    """The `#ge.layout` of a tensor type (ND without an encoding)."""
    assert isinstance(tensor, TensorType)
    encoding = tensor.encoding
    return encoding if isinstance(encoding, LayoutAttr) else format_layout(Format.ND)


def origin_layout(tensor: Attribute) -> LayoutAttr:
    """The plain layout of a tensor: storage = its origin format."""
    return format_layout(layout_attr(tensor).origin_format)


@lru_cache(maxsize=VALID_TYPES_KEPT)
def retyped(tensor: Attribute, layout: LayoutAttr) -> TensorType:
    """`tensor` with `layout` as its encoding (ND/ND drops the encoding),
    built once per pair (types are values; building one verifies its
    parameters: CRNN's format selection asked for 10,000 of a few hundred)."""
    assert isinstance(tensor, TensorType)
    if layout == format_layout(Format.ND):
        return TensorType(tensor.element_type, tensor.get_shape())
    return TensorType(tensor.element_type, tensor.get_shape(), layout)


def is_scalar(tensor: Attribute) -> bool:
    """Whether a tensor has exactly one element (it broadcasts by value)."""
    assert isinstance(tensor, TensorType)
    return all(d == 1 for d in shape_of(tensor))


def satisfies(tensor: Attribute, required: LayoutAttr) -> bool:
    """Whether a value of type `tensor` already has the `required` layout."""
    have = layout_attr(tensor)
    if have.origin_format != required.origin_format:
        return False
    if have.storage_format != required.storage_format:
        return False
    if required.storage_format == required.origin_format:
        return True
    return (
        have.explicit_reshape_type == required.explicit_reshape_type
        and storage_shape_of(retyped(tensor, have))
        == storage_shape_of(retyped(tensor, required))
    )


def kept_layout(operand_types: Sequence[TensorType], rank: int) -> LayoutAttr | None:
    """The layout a result of rank `rank` keeps: that of the first operand of
    its rank with a `#ge.layout` (the `KeepsLayout` rule)."""
    for tensor in operand_types:
        layout = tensor.encoding
        if tensor.get_num_dims() == rank and isinstance(layout, LayoutAttr):
            return LayoutAttr(
                layout.origin_format,
                layout.storage_format,
                reshape_type=layout.explicit_reshape_type,
            )
    return None
