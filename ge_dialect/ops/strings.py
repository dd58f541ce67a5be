"""Ops over string tensors (`tensor<...x!ge.string>`): ONNX's StringConcat,
StringNormalizer, RegexFullMatch, StringSplit and ONNX-ML's LabelEncoder.

Strings are NumPy `StringDType` arrays in the kernels. String values live
outside the arena (an element has no fixed size), so an op that reads or
makes strings runs through the host kernel library, never in a sunk part
(`mark-fallback` marks it `aclnn_only`: `passes/mark_fallback.py`).

```mlir
%z = ge.string_concat %x, %y
    : (tensor<3x!ge.string>, tensor<1x!ge.string>) -> tensor<3x!ge.string>
%m = ge.regex_full_match %x {pattern = "a+b"} : (tensor<3x!ge.string>) -> tensor<3xi1>
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import re2
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, TensorType
from xdsl.irdl import (
    AnyAttr,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.attributes import StringType
from ge_dialect.format_rules import stop_rule
from ge_dialect.ops.base import (
    COMPUTE_FORMAT,
    GEOperation,
    boolean,
    element_type_of,
    string,
)
from ge_dialect.ops.trans import dst_dtype
from ge_dialect.shape_functions import (
    UNKNOWN,
    Result,
    Shape,
    ShapeError,
    broadcast_all,
    required,
)

STRINGS = np.dtypes.StringDType()
"""The NumPy dtype of string tensors."""


def strings(array: np.ndarray) -> np.ndarray:
    """`array` (unicode, object or `StringDType`) as a `StringDType` array."""
    return np.asarray(array).astype(STRINGS)


def require_strings(dtypes: Sequence[str], what: str = "x") -> None:
    """ShapeError unless every one of `dtypes` is `string`."""
    if any(dtype != "string" for dtype in dtypes):
        raise ShapeError(f"{what} must be strings, got {', '.join(dtypes)}")


def check_string_operands(op: GEOperation) -> None:
    """VerifyException unless every operand of `op` holds strings."""
    for operand in op.operands:
        if not isinstance(element_type_of(operand), StringType):
            raise VerifyException(f"operands must be strings, got {operand.type}")


def result_shapes(op: GEOperation, operands: Sequence[np.ndarray]) -> list[Shape]:
    """The shapes of `op`'s results on these operand values: what only its
    kernel tells (how many strings are kept, how many parts)."""
    from ge_dialect.adapters import run_numpy_kernel

    return [result.shape for result in run_numpy_kernel(op, operands)]


class StringOp(GEOperation):
    """Base of the string ops: pure, no layout meaning (formats stop here)."""

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        check_string_operands(self)


@irdl_op_definition
class StringConcatOp(StringOp):
    """x + y elementwise, NumPy broadcasting (ONNX StringConcat)."""

    name = "ge.string_concat"

    x = operand_def(TensorType)
    y = operand_def(TensorType)
    z = result_def(TensorType)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """The broadcast shape, strings."""
        require_strings(dtypes, "x and y")
        return [(broadcast_all(shapes), "string")]

    @staticmethod
    def numpy_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(np.strings.add(strings(x), strings(y)), STRINGS)


CASE_ACTIONS = ("NONE", "LOWER", "UPPER")
"""StringNormalizer's `case_change_action` values."""


@irdl_op_definition
class StringNormalizerOp(StringOp):
    """Drop the elements of x `[C]` or `[1, C]` that are `stopwords` (compared
    ignoring case unless `is_case_sensitive`), then change the case of the
    rest (`case_change_action`: NONE, LOWER or UPPER); when nothing is left,
    one empty string (ONNX StringNormalizer, as onnxruntime runs it: whole
    elements are compared, no accent is stripped, and the case changes map
    each character to one character, as C's `towupper`/`towlower` under a
    UTF-8 locale: `ß` stays). `locale` is not read. How many are kept is
    known only from x's values: the last dim is dynamic, `value_shapes`
    gives it."""

    name = "ge.string_normalizer"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    case_change_action = attr_def(StringAttr, default_value=string("NONE"))
    is_case_sensitive = attr_def(IntegerAttr, default_value=boolean(False))
    stopwords = attr_def(ArrayAttr, default_value=ArrayAttr([]))

    def verify_(self) -> None:
        super().verify_()
        if self.case_change_action.data not in CASE_ACTIONS:
            raise VerifyException(
                f"case_change_action must be one of {', '.join(CASE_ACTIONS)}, "
                f"got '{self.case_change_action.data}'"
            )
        if not all(isinstance(word, StringAttr) for word in self.stopwords.data):
            raise VerifyException("stopwords must be strings")

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x's shape with a dynamic last dim."""
        require_strings(dtypes)
        (x,) = shapes
        if len(x) not in (1, 2) or len(x) == 2 and x[0] not in (1, UNKNOWN):
            raise ShapeError(f"x must be [C] or [1, C], got {list(x)}")
        return [((*x[:-1], UNKNOWN), "string")]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shape from x's values (the kernel's)."""
        return result_shapes(self, operands)

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        case_change_action: str,
        is_case_sensitive: bool,
        stopwords: Sequence[str],
    ) -> np.ndarray:
        words = strings(x)
        if stopwords:
            if is_case_sensitive:
                stop = np.isin(words, strings(np.array(list(stopwords))))
            else:
                folded = change_case(strings(np.array(list(stopwords))), False)
                stop = np.isin(change_case(words, False), folded)
            words = words[~stop] if words.ndim == 1 else words[:, ~stop[0]]
        if case_change_action != "NONE":
            words = change_case(words, case_change_action == "UPPER")
        if words.shape[-1] == 0:
            words = np.zeros((*words.shape[:-1], 1), STRINGS)
        return words


def change_case(words: np.ndarray, upper: bool) -> np.ndarray:
    """Each string upper- or lower-cased one character at a time: a character
    whose case mapping is not one character (`ß` -> `SS`) stays."""

    def one(c: str) -> str:
        changed = c.upper() if upper else c.lower()
        return changed if len(changed) == 1 else c

    flat = ["".join(map(one, s)) for s in words.ravel().tolist()]
    return np.array(flat, STRINGS).reshape(words.shape)


@irdl_op_definition
class RegexFullMatchOp(StringOp):
    """Whether each element of x matches `pattern` whole (ONNX RegexFullMatch:
    RE2's syntax and meaning, run by RE2 itself, as onnxruntime does; `\\w`
    is ASCII, `(?i)` folds Unicode case)."""

    name = "ge.regex_full_match"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    pattern = attr_def(StringAttr)

    def verify_(self) -> None:
        super().verify_()
        try:
            re2.compile(self.pattern.data)
        except re2.error as error:
            raise VerifyException(f"invalid pattern: {error}") from None

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x's shape, bool."""
        require_strings(dtypes)
        try:
            re2.compile(required(attrs, "pattern"))
        except re2.error as error:
            raise ShapeError(f"invalid pattern: {error}") from None
        return [(shapes[0], "bool")]

    @staticmethod
    def numpy_kernel(x: np.ndarray, *, pattern: str) -> np.ndarray:
        regex = re2.compile(pattern)
        flat = [regex.fullmatch(s) is not None for s in strings(x).ravel().tolist()]
        return np.array(flat, np.bool_).reshape(x.shape)


@irdl_op_definition
class StringSplitOp(StringOp):
    """Split each element of x at `delimiter` (absent or empty: runs of
    whitespace, leading and trailing ones dropped), at most `maxsplit` times
    (absent: no limit): `y` `[..., M]` the parts, padded with empty strings
    to the most any element has (M), and `counts` (int64, x's shape) how
    many parts each has (ONNX StringSplit as onnxruntime runs it: an empty
    string has no parts). M is known only from x's values: `value_shapes`
    gives it."""

    name = "ge.string_split"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    counts = result_def(TensorType)
    delimiter = attr_def(StringAttr, default_value=string(""))
    maxsplit = opt_attr_def(IntegerAttr)

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """y: x's shape and a dynamic last dim; counts: x's shape."""
        require_strings(dtypes)
        (x,) = shapes
        if (maxsplit := attrs.get("maxsplit")) is not None and maxsplit < 0:
            raise ShapeError(f"maxsplit must be >= 0, got {maxsplit}")
        return [((*x, UNKNOWN), "string"), (x, "int64")]

    def value_shapes(self, operands: Sequence[np.ndarray]) -> list[Shape]:
        """The result shapes from x's values (the kernel's)."""
        return result_shapes(self, operands)

    @staticmethod
    def numpy_kernel(
        x: np.ndarray, *, delimiter: str, maxsplit: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        parts = _split(strings(x), delimiter, maxsplit)
        widest = max((len(p) for p in parts), default=0)
        y = np.zeros((len(parts), widest), STRINGS)
        for row, words in enumerate(parts):
            y[row, : len(words)] = words
        counts = np.array([len(p) for p in parts], np.int64)
        return y.reshape(*x.shape, widest), counts.reshape(x.shape)


def _split(x: np.ndarray, delimiter: str, maxsplit: int | None) -> list[list[str]]:
    """Each element of x split as onnxruntime does (flattened order): an
    empty string has no parts; at whitespace, the string is stripped first."""
    limit = -1 if maxsplit is None else maxsplit
    if delimiter:
        return [s.split(delimiter, limit) if s else [] for s in x.ravel().tolist()]
    return [s.strip().split(None, limit) if s else [] for s in x.ravel().tolist()]


@irdl_op_definition
class LabelEncoderOp(GEOperation):
    """Each element of x replaced by the value at its key's place in `keys`,
    `default` where it has none (ONNX-ML LabelEncoder): strings, integers or
    floats to any of these; the result dtype is `dst_type`. A float NaN key
    matches NaN."""

    name = "ge.label_encoder"

    x = operand_def(TensorType)
    y = result_def(TensorType)
    keys = attr_def(AnyAttr())
    values = attr_def(AnyAttr())
    default = attr_def(AnyAttr())
    dst_type = attr_def(AnyAttr())

    traits = traits_def(Pure())
    FORMAT_RULE = staticmethod(stop_rule)
    assembly_format = COMPUTE_FORMAT

    def verify_(self) -> None:
        keys, values = self.value_of("keys"), self.value_of("values")
        if len(keys) != len(values):
            raise VerifyException(
                f"{len(keys)} keys but {len(values)} values: one value per key"
            )
        if element_type_of(self.y) != self.dst_type:
            raise VerifyException(
                f"result dtype {element_type_of(self.y)} is not dst_type "
                f"{self.dst_type}"
            )

    @staticmethod
    def shape_function(
        shapes: Sequence[Shape], dtypes: Sequence[str], attrs: Mapping[str, Any]
    ) -> list[Result]:
        """x's shape, `dst_type`."""
        keys, values = required(attrs, "keys"), required(attrs, "values")
        if len(keys) != len(values):
            raise ShapeError(f"{len(keys)} keys but {len(values)} values")
        if any(isinstance(k, str) for k in keys) != (dtypes[0] == "string") and keys:
            raise ShapeError(f"keys do not have x's dtype {dtypes[0]}")
        dtype = "string" if required(attrs, "dst_type") == "string" else None
        return [(shapes[0], dtype or dst_dtype(attrs))]

    @staticmethod
    def numpy_kernel(
        x: np.ndarray,
        *,
        keys: Sequence[Any],
        values: Sequence[Any],
        default: Any,
        dst_type: str,
    ) -> np.ndarray:
        dtype = STRINGS if dst_type == "string" else np.dtype(dst_type)
        table = np.array(list(values) + [default]).astype(dtype)
        if x.dtype.kind in "OUT" or isinstance(x.dtype, np.dtypes.StringDType):
            found = np.array(list(keys), dtype=object).astype(STRINGS)
            source = strings(x)
        else:
            found = np.array(list(keys), dtype=x.dtype)
            source = x
        place = np.full(x.shape, len(found), np.int64)
        for index in range(len(found) - 1, -1, -1):  # the first of equal keys wins
            key = found[index]
            hit = np.isnan(source) if _is_nan(key) else source == key
            place[hit] = index
        return table[place]


def _is_nan(key: Any) -> bool:
    return isinstance(key, float | np.floating) and bool(np.isnan(key))
