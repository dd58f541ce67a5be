"""Checking what a caller of the Python API hands over, before using it.

Each public function of `ge_xdsl` checks its arguments here and raises a
one-line `GEError` naming the function and the argument, so a wrong type
never surfaces as Python's own `AttributeError` or `TypeError` from deep
inside the compiler:

```
error: ge_xdsl.compile: argument 'input_shape' must be ATC's text
("x:1,3,224,224") or a mapping of input names to dims, got int 5
```

`file_errors` turns an `OSError` (a missing `.om`) into the tools' wording,
`ge_xdsl.load: cannot access 'PATH': No such file or directory`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ge_dialect.diagnostics import GEError


def _fail(function: str, argument: str, expected: str, value: object) -> GEError:
    got = type(value).__name__
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return GEError(
        f"error: ge_xdsl.{function}: argument '{argument}' must be {expected}, "
        f"got {got} {shown}"
    )


def check_kind(
    value: object, kinds: type | tuple[type, ...], function: str, argument: str
) -> None:
    """GEError unless `value` is an instance of `kinds`."""
    if not isinstance(value, kinds):
        names = kinds if isinstance(kinds, tuple) else (kinds,)
        expected = " or ".join(_kind_name(kind) for kind in names)
        raise _fail(function, argument, expected, value)


def _kind_name(kind: type) -> str:
    return {str: "a string", type(None): "None", int: "an integer"}.get(
        kind, f"a {kind.__name__}"
    )


def check_path(value: object, function: str, argument: str) -> str:
    """`value` as a path string; GEError unless it is `str` or `os.PathLike`."""
    if not isinstance(value, str | os.PathLike):
        raise _fail(function, argument, "a path (str or os.PathLike)", value)
    return os.fspath(value)


def check_input_shape(value: object, function: str) -> None:
    """None, ATC's `--input_shape` text or `{name: dims}` with integer dims."""
    expected = 'ATC\'s text ("x:1,3,224,224") or a mapping of input names to dims'
    if value is None or isinstance(value, str):
        return
    if not isinstance(value, Mapping):
        raise _fail(function, "input_shape", expected, value)
    for name, dims in value.items():
        if not isinstance(name, str) or not _is_dims(dims):
            raise _fail(function, f"input_shape[{name!r}]", "a list of ints", dims)


def _is_dims(dims: object) -> bool:
    return (
        isinstance(dims, Sequence)
        and not isinstance(dims, str)
        and all(isinstance(d, int) and not isinstance(d, bool) for d in dims)
    )


def check_arrays(
    value: object, function: str, argument: str, *, optional: bool = False
) -> dict[str, Any]:
    """`value` as `{name: array}`: a mapping from strings to array-likes
    (NumPy arrays, scalars, nested lists). GEError otherwise."""
    import numpy as np

    if optional and value is None:
        return {}
    expected = "a mapping of names to arrays ({'x': np.ndarray})"
    if not isinstance(value, Mapping):
        raise _fail(function, argument, expected, value)
    arrays: dict[str, Any] = {}
    for name, array in value.items():
        if not isinstance(name, str):
            raise _fail(function, f"{argument} key", "a string", name)
        if not isinstance(array, np.ndarray | np.generic | int | float | bool | list):
            raise _fail(function, f"{argument}[{name!r}]", "an array", array)
        arrays[name] = array
    return arrays


@contextmanager
def file_errors(function: str) -> Iterator[None]:
    """An `OSError` in the body as the tools word it, a one-line GEError."""
    try:
        yield
    except OSError as error:
        where = f"'{error.filename}'" if error.filename is not None else "a file"
        raise GEError(
            f"error: ge_xdsl.{function}: cannot access {where}: "
            f"{error.strerror or error}"
        ) from None
