"""Loop nests compiled by numba (`GE_XDSL_KERNELS=numba`).

`NumbaNest` writes the nests `jit_native` takes as Python loops for numba.
Kernels are shared by structure: every loop extent, index coefficient and
offset is a parameter (`P`), so the nests of all convolutions of one shape
of code reuse one function; each is a file under the code cache
(`jit_cache.cache_dir()/numba`) compiled with `cache=True`, so a later
process loads the machine code instead of compiling it.

```python
for t0 in range(P[0]):                  # generated for a ReLU nest
    for t1 in range(P[1]):
        x0 = a0[t0 * P[2] + P[3], t1]
        a1[t0, t1] = x0 if (x0 > c0 or x0 != x0) else c0
```

numba and LLVM add about 120 MB to a process and a second to its start,
which for a small model is more than the model; the C kernels
(`jit_c`) do the same without either.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from ge_runtime import jit_cache
from ge_runtime.jit_native import NativeNest

MINMAX = {
    "arith.maximumf": "({0} if ({0} > {1} or {0} != {0}) else {1})",
    "arith.minimumf": "({0} if ({0} < {1} or {0} != {0}) else {1})",
    "arith.maxnumf": "({0} if ({0} > {1} or {1} != {1}) else {1})",
    "arith.minnumf": "({0} if ({0} < {1} or {1} != {1}) else {1})",
    "arith.maxsi": "({0} if {0} > {1} else {1})",
    "arith.minsi": "({0} if {0} < {1} else {1})",
}
"""Max/min as Python expressions, NumPy's semantics (see `jit_native`)."""

UNARY = {
    "arith.negf": "(-{0})",
    "math.absf": "abs({0})",
    "math.sqrt": "np.sqrt({0})",
}

CMPF = {
    0: "False",
    1: "({0} == {1})",
    2: "({0} > {1})",
    3: "({0} >= {1})",
    4: "({0} < {1})",
    5: "({0} <= {1})",
    6: "({0} < {1} or {0} > {1})",
    7: "({0} == {0} and {1} == {1})",
    8: "(not ({0} < {1} or {0} > {1}))",
    9: "(not ({0} <= {1}))",
    10: "(not ({0} < {1}))",
    11: "(not ({0} >= {1}))",
    12: "(not ({0} > {1}))",
    13: "({0} != {1})",
    14: "({0} != {0} or {1} != {1})",
    15: "True",
}
"""arith.cmpf predicates (ordered ones are false on NaN, unordered true)."""


_LOCK = threading.Lock()


@cache
def installed() -> bool:
    """Whether numba can be imported."""
    return importlib.util.find_spec("numba") is not None


_KERNELS: dict[str, Callable[..., None]] = {}
_SOURCES: dict[int, str] = {}
"""id of a kernel -> its source (how the code cache saves kernels)."""


def reduce_kernel(obj: Any) -> tuple[Any, ...] | None:
    """How to pickle `obj` if it is a kernel: by its source (loading it
    again finds numba's machine-code cache); None for anything else."""
    source = _SOURCES.get(id(obj))
    return None if source is None else (kernel, (source,))


def kernel(source: str) -> Callable[..., None]:
    """The numba function of a kernel's source, compiled (or loaded) once."""
    with _LOCK:
        if source in _KERNELS:
            return _KERNELS[source]
        digest = hashlib.sha256(source.encode()).hexdigest()[:20]
        directory = jit_cache.kernel_folder("numba")
        path = directory / f"k{digest}.py"
        if not path.is_file() or path.read_text() != source:
            directory.mkdir(parents=True, exist_ok=True)
            handle, scratch = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(handle, "w") as stream:
                stream.write(source)
            os.replace(scratch, path)
        name = f"ge_xdsl_numba_k{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _KERNELS[source] = module.kernel
        _SOURCES[id(module.kernel)] = source
        return module.kernel


class NumbaNest(NativeNest):
    """A nest as a call of a numba kernel (Python loops, `P` the parameters)."""

    MINMAX = MINMAX
    UNARY = UNARY
    CMPF = CMPF
    SELECT = "({1} if {0} else {2})"
    EMPTY = "pass"

    def _call(
        self, indent: str, arguments: list[str], written: tuple[int, ...]
    ) -> list[str]:
        body = list(self.body)
        if self.params:
            names = "".join(f"p{i}, " for i in range(len(self.params)))
            body.insert(0, f"    ({names}) = P")
        source = "\n".join(
            [
                "import numpy as np",
                "from numba import njit",
                "",
                "",
                "@njit(cache=True, nogil=True, error_model='numpy')",
                f"def kernel(P, {', '.join(arguments)}):",
                *body,
                "",
            ]
        )
        name = self.env.add_global(kernel(source), "k")
        self.env.writes[name] = tuple(1 + i for i in written)
        params = self.env.add_global(tuple(self.params), "P")
        call = f"{indent}{name}({params}, {', '.join(self.args)})"
        return [*(indent + line for line in self.packing), call]

    def _param(self, value: int) -> str:
        self.params.append(int(value))
        return f"p{len(self.params) - 1}"

    def _floordiv(self, text: str, divisor: int) -> str:
        return f"(({text}) // {divisor})"

    def _modulo(self, text: str, divisor: int) -> str:
        return f"(({text}) % {divisor})"

    def _loop(self, indent: str, number: int, extent: str) -> str:
        return f"{indent}for t{number} in range({extent}):"

    def _end_loop(self, indent: str) -> list[str]:
        return []

    def _subscript(self, buffer: str, indices: list[str]) -> str:
        where = ", ".join(indices)
        return f"{buffer}[{where}]" if where else f"{buffer}[()]"

    def _define(self, indent: str, name: str, dtype: np.dtype, value: str) -> str:
        return f"{indent}{name} = {value}"

    def _assign(self, indent: str, target: str, value: str) -> str:
        return f"{indent}{target} = {value}"

    def _cast(self, dtype: np.dtype, value: str) -> str:
        return f"np.{dtype.name}({value})"

    def _bool_literal(self, value: bool) -> str:
        return "True" if value else "False"

    def _float_literal(self, value: float, dtype: np.dtype) -> str:
        text = repr(value)
        if math.isnan(value):
            text = "np.nan"
        elif math.isinf(value):
            text = "np.inf" if value > 0 else "-np.inf"
        return f"np.{dtype.name}({text})"

    def _int_literal(self, value: int, dtype: np.dtype) -> str:
        return f"np.{dtype.name}({value})"
