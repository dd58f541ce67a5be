"""`.npy` files that keep bfloat16, float8 and int4 (ml_dtypes' types).

NumPy's header names a dtype by its type character, and the ml_dtypes types
have none: `np.save` writes a bfloat16 array as raw two-byte voids (`<V2`),
float8/int4 arrays as `<V1` (float8_e5m2 as `<f1`, which `np.load` rejects).
This module writes such arrays with the dtype's *name* as the header's
`descr` (`'descr': 'bfloat16'`), which `np.load` reads back as the same
dtype wherever ml_dtypes is imported, and reads all of these headers; an
array that arrives as raw voids (a file `np.save` wrote) takes its real
dtype from the graph input it feeds (`typed_like`). String tensors (NumPy's
variable-width `StringDType`, which `.npy` cannot hold without pickling) are
written as fixed-width unicode (`<U`) and read back as strings where they
feed a string input (trailing NUL characters are not kept: `<U` pads with
them).

`.npz` archives (weights) hold such `.npy` members (`npz_bytes`, `read_npz`).

```python
blob = npy_bytes(np.ones(3, ml_dtypes.bfloat16))   # 'descr': 'bfloat16'
x = read_npy(io.BytesIO(blob))                      # dtype bfloat16 again
x = typed_like(np.load("x.npy"), np.dtype(ml_dtypes.bfloat16))  # from <V2
```
"""

from __future__ import annotations

import ast
import io
import os
import struct
import zipfile
from collections.abc import Mapping
from typing import BinaryIO

import numpy as np

from ge_dialect.diagnostics import GEError
from ge_dialect.input_files import check_input_file
from ge_dialect.limits import LimitError, checked_product, over_budget

NPY_MAGIC = b"\x93NUMPY"
HEADER_LENGTH = {1: "<H", 2: "<I", 3: "<I"}
"""Header-length field of each `.npy` format major version."""
RAW_FLOAT8_DESCR = ("<f1", "|f1")
"""What `np.save` writes for ml_dtypes' float8_e5m2 (its type character is f)."""


class NpyError(ValueError):
    """A `.npy` stream that cannot be read."""


def is_ml_dtype(dtype: np.dtype) -> bool:
    """Whether `dtype` is one of ml_dtypes' types (no NumPy type character)."""
    return dtype.type.__module__ == "ml_dtypes"  # not imported for them to exist


def write_npy(stream: BinaryIO, array: np.ndarray) -> None:
    """Write `array` as `.npy` (an ml_dtypes dtype by name, so it reads back;
    strings as NumPy's fixed-width unicode)."""
    array = np.asarray(array)
    if isinstance(array.dtype, np.dtypes.StringDType):
        array = fixed_width(array)
    if not is_ml_dtype(array.dtype):
        np.lib.format.write_array(stream, array, allow_pickle=False)
        return
    header = {
        "descr": array.dtype.name,
        "fortran_order": False,
        "shape": array.shape,
    }
    try:
        np.lib.format.write_array_header_1_0(stream, header)
    except ValueError:  # a header longer than 64 KiB
        np.lib.format.write_array_header_2_0(stream, header)
    stream.write(np.ascontiguousarray(array).tobytes())


def npy_bytes(array: np.ndarray) -> bytes:
    """The bytes of a `.npy` file holding `array` (see `write_npy`)."""
    buffer = io.BytesIO()
    write_npy(buffer, array)
    return buffer.getvalue()


def save_npy(path: str | os.PathLike[str], array: np.ndarray) -> None:
    """Write `array` to the `.npy` file `path` (see `write_npy`)."""
    with open(path, "wb") as stream:
        write_npy(stream, array)


def load_npy(path: str | os.PathLike[str]) -> np.ndarray:
    """The array of the `.npy` file `path` (see `read_npy`); only a regular
    file within the memory budget is read. Errors are one-line GEErrors
    naming the file."""
    size = check_input_file(path, "array file")
    with open(path, "rb") as stream:
        try:
            return read_npy(stream, size)
        except NpyError as error:
            raise GEError(
                f"{os.fspath(path)}: error: cannot read the array: {error}"
            ) from None


def read_npy(stream: BinaryIO, available: int | None = None) -> np.ndarray:
    """Read one `.npy` array (named ml_dtypes types, `<f1` as raw bytes).

    Object arrays are refused (nothing is unpickled). The header's claim is
    checked before the data is read: within the memory budget, and no more
    than the `available` bytes the stream holds (by default, what is left of
    a seekable stream). Errors are `NpyError`.
    """
    start = stream.tell() if available is not None else 0
    if stream.read(len(NPY_MAGIC)) != NPY_MAGIC:
        raise NpyError("not a .npy file")
    version = stream.read(2)
    if len(version) != 2 or version[0] not in HEADER_LENGTH:
        raise NpyError(f"unknown .npy format version {tuple(version)}")
    length_format = HEADER_LENGTH[version[0]]
    field = stream.read(struct.calcsize(length_format))
    if len(field) != struct.calcsize(length_format):
        raise NpyError("truncated header")
    (length,) = struct.unpack(length_format, field)
    text = stream.read(length)
    try:
        header = ast.literal_eval(text.decode("latin1"))
        descr, fortran, shape = (
            header["descr"],
            bool(header["fortran_order"]),
            tuple(int(d) for d in header["shape"]),
        )
    except (SyntaxError, ValueError, KeyError, TypeError) as error:
        raise NpyError(f"bad header ({error})") from None
    dtype = _descr_dtype(descr)
    try:
        count = checked_product(shape, "array shape")
    except LimitError as error:
        raise NpyError(str(error)) from None
    nbytes = count * dtype.itemsize
    if (reason := over_budget(nbytes, f"array {dtype}{list(shape)}")) is not None:
        raise NpyError(reason)
    left = _bytes_left(stream, available, start)
    if left is not None and left < nbytes:
        raise NpyError(f"truncated data ({left} bytes, {nbytes} expected)")
    data = stream.read(nbytes)
    if len(data) != nbytes:
        raise NpyError(f"truncated data ({len(data)} bytes, {nbytes} expected)")
    flat = np.frombuffer(data, dtype=dtype, count=count)
    return flat.reshape(shape, order="F" if fortran else "C").copy()


def _bytes_left(stream: BinaryIO, available: int | None, start: int) -> int | None:
    """How many bytes the stream holds after its position (None: unknown)."""
    if available is not None:
        return available - (stream.tell() - start)
    try:
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
    except (OSError, ValueError, AttributeError):
        return None
    return end - here


def _descr_dtype(descr: object) -> np.dtype:
    if descr in RAW_FLOAT8_DESCR:
        return np.dtype("V1")
    try:
        dtype = np.lib.format.descr_to_dtype(descr)
    except (TypeError, ValueError) as error:
        raise NpyError(f"unknown dtype {descr!r} ({error})") from None
    if dtype.hasobject:
        raise NpyError("object arrays are not allowed")
    if dtype.fields:
        raise NpyError(f"structured arrays ({descr!r}) are not allowed")
    return dtype


def dtype_label(dtype: np.dtype) -> str:
    """A dtype as messages name it ("float32"; `StringDType`: "string")."""
    return "string" if isinstance(dtype, np.dtypes.StringDType) else str(dtype)


def fixed_width(strings: np.ndarray) -> np.ndarray:
    """A `StringDType` array as fixed-width unicode (`<U`, as wide as its
    longest string: what `np.save` writes without pickling)."""
    width = max(1, int(np.strings.str_len(strings).max(initial=0)))
    return strings.astype(f"<U{width}")


def typed_like(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`array` as `dtype` if it holds raw bytes of that size (a `np.save`d
    bfloat16, float8 or int4 array) or fixed-width unicode for a string
    input (`StringDType`); otherwise unchanged."""
    if isinstance(dtype, np.dtypes.StringDType) and array.dtype.kind == "U":
        return array.astype(dtype)
    raw = array.dtype.kind == "V" and array.dtype.names is None
    if raw and is_ml_dtype(dtype) and array.dtype.itemsize == dtype.itemsize:
        return array.view(dtype)
    return array


def npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """An uncompressed `.npz` holding `arrays` by key (`write_npy` members; any
    key: `np.savez` would take keys such as "file" for its own arguments)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for key, array in arrays.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                write_npy(member, array)
    return buffer.getvalue()


def read_npz(source: BinaryIO | str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every array of an `.npz` (a path or a binary stream) by key.

    Errors (not a zip archive, a bad member) are `NpyError`.
    """
    if isinstance(source, str | os.PathLike):
        check_input_file(source, "weights file")
    try:
        with zipfile.ZipFile(source) as archive:
            arrays = {}
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    raise NpyError(f"member '{info.filename}' is not a .npy array")
                what = f"member '{info.filename}'"
                if (reason := over_budget(info.file_size, what)) is not None:
                    raise NpyError(reason)
                with archive.open(info) as member:
                    try:
                        array = read_npy(member, info.file_size)
                    except NpyError as error:
                        raise NpyError(f"{what}: {error}") from None
                arrays[info.filename.removesuffix(".npy")] = array
            return arrays
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise NpyError(f"not a .npz archive ({_one_line(error)})") from None


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
