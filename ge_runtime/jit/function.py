"""A compiled function as it runs: called, bound to its weights, saved to
and loaded from the code cache.

`compiler.FunctionCompiler` makes a `CompiledFunction` from a `func.func`;
a cache entry (`cache.entries`) keeps its bytecode and namespace, and
`loaded_function` makes it again from the entry alone. Nothing here reads
IR, so a process that only runs compiled code (`engines.served`) imports
neither xDSL nor the code generators: an argument is its shape and dtypes
(`Argument`), not its memref type.

```python
compiled = loaded_function(key)                  # None: not in the cache
bound = compiled.bind({1: w_storage})            # weights packed once
(y,) = bound(x_storage)
```
"""

from __future__ import annotations

import marshal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ge_runtime.jit.cache import entries as cache
from ge_runtime.jit.ops import JITError


@dataclass(frozen=True)
class Argument:
    """One argument of a compiled function: the shape and dtype of the
    arrays callers pass, and the dtype the function reads them as (its
    memref's: a `{ge.element_type = ui8}` argument's uint8 as its i8)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    held: np.dtype


ENTRY_FIELDS = (
    "name",
    "source",
    "code",
    "arguments",
    "arg_attrs",
    "result_dtypes",
    "vectorised",
    "native_nests",
    "scalar_nests",
    "python_loops",
    "reuses_workspace",
    "invariant_args",
    "workspace",
)
"""The fields of a `CompiledFunction` a cache entry keeps."""


@dataclass
class CompiledFunction:
    """A `func.func` compiled to Python; call it with storage-layout arrays.

    `bind` fixes the arguments every call passes the same (the weights) and
    runs `prepare` on them once: what depends only on them (weights packed
    for the GEMMs) is not computed again per call.
    """

    name: str
    function: Callable[..., tuple[np.ndarray, ...]]
    source: str
    code: bytes
    """The module's bytecode (`marshal`), what a cache entry runs."""
    arguments: list[Argument]
    arg_attrs: list[dict[str, Any]]
    result_dtypes: list[np.dtype | None] = field(default_factory=list)
    """Per result, the dtype callers get when it is not its memref's (the
    uint8 of a `{ge.element_type = ui8}` result held as i8), else None."""
    vectorised: int = 0
    """Top-level nests run as array calls (NumPy calls or native kernels)."""
    native_nests: int = 0
    """How many of those are native kernels (`emit.c`)."""
    scalar_nests: list[str] = field(default_factory=list)
    """Why each top-level nest that runs in the scalar path was not vectorised."""
    python_loops: list[str] = field(default_factory=list)
    """Why each loop whose iterations Python drives is not one C call
    (`schedule.c_regions`)."""
    reuses_workspace: bool = False
    """Whether results may be views of buffers the next call overwrites."""
    prepare: Callable[..., tuple[Any, ...]] = lambda: ()
    """What depends only on the arguments at `invariant_args`, computed once."""
    invariant_args: tuple[int, ...] = ()
    """Positions of the weight arguments (`ge.weight`), the ones `prepare` takes."""
    workspace: tuple[list[tuple[tuple[int, ...], np.dtype, int | None]], int, str] = (
        [],
        0,
        "",
    )
    """The workspace's buffers, scratch size and namespace name (`workspace_pool`)."""

    def slow_paths(self, reasons: bool = True) -> str:
        """What of the function Python runs element by element or iteration
        by iteration (a cliff: hundreds of times slower than its kernels),
        with why when `reasons`; empty if nothing.

        `2 nest(s) element by element: 'memref.store' is not vectorised;
        1 loop(s) iterated in Python: a nest of the loop runs as NumPy calls`
        """
        parts = []
        for found, what in (
            (self.scalar_nests, "nest(s) element by element"),
            (self.python_loops, "loop(s) iterated in Python"),
        ):
            if found:
                why = f": {'; '.join(sorted(set(found)))}" if reasons else ""
                parts.append(f"{len(found)} {what}{why}")
        return "; ".join(parts)

    def to_entry(self) -> dict[str, Any]:
        """What `cache.entries` saves: the source and its namespace's objects."""
        _, _, pool = self.workspace
        skipped = {"__builtins__", "np", "prepare", "views", "jitted", pool}
        namespace = {
            k: v for k, v in self.function.__globals__.items() if k not in skipped
        }
        fields = {f: getattr(self, f) for f in ENTRY_FIELDS}
        return {"namespace": namespace, **fields}

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> CompiledFunction:
        """The function `to_entry` saved, executed again."""
        namespace = {"np": np, **entry["namespace"]}
        specs, scratch, pool = entry["workspace"]
        if pool:
            namespace[pool] = workspace_pool(specs, scratch)
        exec(marshal.loads(entry["code"]), namespace)
        fields = {f: entry[f] for f in ENTRY_FIELDS}
        return cls(function=namespace["jitted"], prepare=namespace["prepare"], **fields)

    def __call__(self, *args: np.ndarray, copy: bool = True) -> tuple[np.ndarray, ...]:
        """Run on storage-layout arrays; with `copy=False` the results may be
        views of this thread's workspace, valid until its next call."""
        if len(args) != len(self.arguments):
            raise JITError(
                f"@{self.name} takes {len(self.arguments)} arguments, got {len(args)}"
            )
        arrays = [self._prepare(i, a) for i, a in enumerate(args)]
        invariant = [arrays[i] for i in self.invariant_args]
        hoisted = guarded(self.name, self.prepare, *invariant)
        return self._results(guarded(self.name, self.function, *arrays, *hoisted), copy)

    def bind(self, fixed: Mapping[int, Any]) -> BoundFunction:
        """The function with the arguments at the positions of `fixed` given
        once; its `prepare` runs now if `fixed` covers every weight."""
        arrays = {i: self._prepare(i, a) for i, a in fixed.items()}
        free = tuple(i for i in range(len(self.arguments)) if i not in arrays)
        hoisted = None
        if all(i in arrays for i in self.invariant_args):
            invariant = [arrays[i] for i in self.invariant_args]
            hoisted = guarded(self.name, self.prepare, *invariant)
        return BoundFunction(self, arrays, free, hoisted)

    def arg_dtype(self, position: int) -> np.dtype:
        """The dtype of the arrays a caller passes at `position`."""
        return self.arguments[position].dtype

    def _results(
        self, results: tuple[np.ndarray, ...], copy: bool
    ) -> tuple[np.ndarray, ...]:
        if copy and self.reuses_workspace:
            results = tuple(result.copy() for result in results)
        if not any(self.result_dtypes):
            return results
        return tuple(
            result if dtype is None else result.view(dtype)
            for result, dtype in zip(results, self.result_dtypes, strict=True)
        )

    def _prepare(self, position: int, array: Any) -> np.ndarray:
        argument = self.arguments[position]
        array = np.asarray(array)
        if array.dtype != argument.dtype or array.shape != argument.shape:
            raise JITError(
                f"argument #{position} of @{self.name} is "
                f"{array.dtype}{list(array.shape)}, "
                f"expected {argument.dtype}{list(argument.shape)}"
            )
        if not array.flags.c_contiguous:
            array = np.require(array, requirements="C")  # keeps 0-d arrays 0-d
        if argument.held == argument.dtype:
            return array
        return array.view(argument.held)  # uint8 as its i8 memref


def guarded(name: str, function: Callable[..., Any], *args: Any) -> Any:
    """`function(*args)` of the compiled function `name` with NumPy's
    floating-point warnings off (the IEEE results are what the code means),
    a data-dependent index out of range (a gather) a `JITError`. A plain
    `try` (not a context manager): every run of a model pays it."""
    with np.errstate(all="ignore"):
        try:
            return function(*args)
        except IndexError as error:
            raise JITError(f"@{name}: {error}") from None


@dataclass
class BoundFunction:
    """A compiled function with some arguments (the weights) fixed; call it
    with the others, in order."""

    compiled: CompiledFunction
    fixed: dict[int, np.ndarray]
    free: tuple[int, ...]
    hoisted: tuple[Any, ...] | None

    @cached_property
    def _arguments(self) -> list[np.ndarray | None]:
        """The arguments in order: the fixed ones, None where a call's go."""
        count = len(self.compiled.arguments)
        return [self.fixed.get(position) for position in range(count)]

    def __call__(self, *args: Any, copy: bool = True) -> tuple[np.ndarray, ...]:
        """Run on the free arguments (storage layout)."""
        compiled = self.compiled
        if len(args) != len(self.free):
            raise JITError(
                f"@{compiled.name} takes {len(self.free)} free arguments, "
                f"got {len(args)}"
            )
        ordered = list(self._arguments)
        for position, array in zip(self.free, args, strict=True):
            ordered[position] = compiled._prepare(position, array)
        hoisted = self.hoisted
        if hoisted is None:
            invariant = [ordered[i] for i in compiled.invariant_args]
            hoisted = guarded(compiled.name, compiled.prepare, *invariant)
        results = guarded(compiled.name, compiled.function, *ordered, *hoisted)
        return compiled._results(results, copy)


class Workspace(list):
    """A thread's buffers (`workspace_pool`), and the views of them the
    generated code reads (`hoist_views`), made on the thread's first call."""

    made: tuple[np.ndarray, ...] | None = None

    def views(
        self, make: Callable[..., tuple[np.ndarray, ...]], *given: Any
    ) -> tuple[np.ndarray, ...]:
        """`make(self, *given)`, computed once."""
        if self.made is None:
            self.made = make(self, *given)
        return self.made


def workspace_pool(
    specs: list[tuple[tuple[int, ...], np.dtype, int | None]], scratch_size: int
) -> Callable[[], Workspace]:
    """A function giving the calling thread its buffers (shape, dtype, and
    offset in one shared scratch allocation of `scratch_size` bytes or None),
    allocated on its first call and the same ones afterwards."""
    local = threading.local()

    def allocate() -> Workspace:
        scratch = np.empty(scratch_size, np.uint8)
        buffers = Workspace()
        for shape, dtype, offset in specs:
            if offset is None:
                buffers.append(np.empty(shape, dtype))
            else:
                size = int(np.prod(shape)) * dtype.itemsize
                view = scratch[offset : offset + size].view(dtype)
                buffers.append(view.reshape(shape))
        return buffers

    def buffers() -> Workspace:
        pool = getattr(local, "buffers", None)
        if pool is None:
            pool = local.buffers = allocate()
        return pool

    return buffers


def loaded_function(key: str) -> CompiledFunction | None:
    """The compiled function the code cache holds under `entry_key`'s `key`
    (None: none, or a damaged one)."""
    entry = cache.load(key)
    if entry is None:
        return None
    try:
        return CompiledFunction.from_entry(entry)
    except Exception:  # a damaged entry (any error): compiled again
        return None
