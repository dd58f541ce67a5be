"""Index expressions with known ranges, simplified as they are built.

The lowering computes every memref index as an `Ix`: a linear combination of
atoms plus a constant. An atom is a loop variable (`Var`, with its inclusive
range) or a `floordiv`/`mod` by a constant that could not be simplified away.
Because every variable's range is known, `(16 * c1 + c0) floordiv 16` with
`0 <= c0 < 16` becomes `c1` and `... mod 16` becomes `c0`: splitting a loop
into blocks (see `domain.py`) is what makes storage-layout accesses affine in
the loop variables.

```python
c1, c0 = Var(0, 0, 3), Var(1, 0, 15)
c = Ix.of(c1) * 16 + Ix.of(c0)
assert c.floordiv(16) == Ix.of(c1) and c.mod(16) == Ix.of(c0)
```
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Iterator, Mapping

import numpy as np
from xdsl.ir.affine import AffineExpr


class Atom:
    """A non-linear leaf of an index expression.

    Atoms and `Ix` are immutable values compared by their fields. They are
    plain classes with slots (`Var` a named tuple) rather than frozen
    dataclasses, their hashes computed once (the same values a frozen
    dataclass's hash gives): a lowering builds and hashes hundreds of
    thousands of them (a frozen dataclass's construction was a tenth of
    ShuffleNet's lowering).
    """

    __slots__ = ()

    def bounds(self) -> tuple[int, int]:
        """Inclusive (min, max) of the atom's value."""
        raise NotImplementedError


class Var(namedtuple("Var", ["id", "lo", "hi"]), Atom):
    """A loop variable ranging over `lo..hi` (inclusive): a named tuple,
    compared and hashed as one (by C code: probes compare hundreds of
    thousands of indices over the same variables)."""

    __slots__ = ()

    def bounds(self) -> tuple[int, int]:
        return self.lo, self.hi


class _Quotient(Atom):
    """`arg` by a constant `k` (`Div`, `Mod`)."""

    __slots__ = ("arg", "k", "_hash")
    __match_args__ = ("arg", "k")

    def __init__(self, arg: Ix, k: int) -> None:
        self.arg = arg
        self.k = k
        self._hash = hash((arg, k))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self is other or (self.k == other.k and self.arg == other.arg)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"{type(self).__name__}(arg={self.arg!r}, k={self.k!r})"


class Div(_Quotient):
    """`arg floordiv k` that does not simplify."""

    __slots__ = ()

    def bounds(self) -> tuple[int, int]:
        lo, hi = self.arg.bounds()
        return lo // self.k, hi // self.k


class Mod(_Quotient):
    """`arg mod k` that does not simplify (always in `0..k-1`)."""

    __slots__ = ()

    def bounds(self) -> tuple[int, int]:
        return 0, self.k - 1


class Ix:
    """`sum(coefficient * atom) + const`, with atoms in a canonical order,
    each once and with a coefficient other than 0 (an immutable value, as
    `Atom`)."""

    __slots__ = ("terms", "const", "_hash", "_variables", "_quotients")
    __match_args__ = ("terms", "const")

    def __init__(self, terms: tuple[tuple[Atom, int], ...] = (), const: int = 0):
        self.terms = terms
        self.const = const
        self._hash: int | None = None
        self._variables: tuple[Var, ...] | None = None
        self._quotients: tuple[Div | Mod, ...] | None = None

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Ix:
            return NotImplemented
        return self is other or (
            self.const == other.const and self.terms == other.terms  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.terms, self.const))
        return self._hash

    def __repr__(self) -> str:
        return f"Ix(terms={self.terms!r}, const={self.const!r})"

    @staticmethod
    def of(value: int | Atom | Ix) -> Ix:
        """An expression for an int, an atom or an expression."""
        if isinstance(value, Ix):
            return value
        if isinstance(value, int):
            return Ix((), value)
        return Ix(((value, 1),))

    @staticmethod
    def _make(coefficients: Mapping[Atom, int], const: int) -> Ix:
        terms = tuple((a, c) for a, c in coefficients.items() if c)
        return Ix(terms, const)

    def __add__(self, other: int | Atom | Ix) -> Ix:
        if isinstance(other, int):
            return Ix(self.terms, self.const + other)
        other = Ix.of(other)
        if not other.terms or not self.terms:  # the terms of one, in order
            return Ix(self.terms or other.terms, self.const + other.const)
        merged = dict(self.terms)
        for atom, coefficient in other.terms:
            merged[atom] = merged.get(atom, 0) + coefficient
        return Ix._make(merged, self.const + other.const)

    __radd__ = __add__

    def __sub__(self, other: int | Atom | Ix) -> Ix:
        return self + Ix.of(other) * -1

    def __mul__(self, factor: int) -> Ix:
        if not factor:
            return Ix((), 0)
        return Ix(tuple((a, c * factor) for a, c in self.terms), self.const * factor)

    __rmul__ = __mul__

    def bounds(self) -> tuple[int, int]:
        """Inclusive (min, max) over the ranges of the atoms."""
        lo = hi = self.const
        for atom, coefficient in self.terms:
            a, b = atom.bounds()
            lo += min(coefficient * a, coefficient * b)
            hi += max(coefficient * a, coefficient * b)
        return lo, hi

    @property
    def constant_value(self) -> int | None:
        """The value if the expression is a constant."""
        return None if self.terms else self.const

    def _split(self, k: int) -> tuple[Ix, Ix]:
        """(part whose coefficients and constant are multiples of k, rest)."""
        exact = {a: c for a, c in self.terms if c % k == 0}
        rest = {a: c for a, c in self.terms if c % k}
        base = self.const - self.const % k
        return Ix._make(exact, base), Ix._make(rest, self.const % k)

    def floordiv(self, k: int) -> Ix:
        """`self floordiv k` (k > 0), simplified using the atoms' ranges."""
        if k == 1:
            return self
        exact, rest = self._split(k)
        quotient = Ix._make({a: c // k for a, c in exact.terms}, exact.const // k)
        lo, hi = rest.bounds()
        if lo // k == hi // k:
            return quotient + lo // k
        return quotient + Div(rest, k)

    def mod(self, k: int) -> Ix:
        """`self mod k` (k > 0), simplified using the atoms' ranges."""
        if k == 1:
            return Ix.of(0)
        _, rest = self._split(k)
        lo, hi = rest.bounds()
        if lo // k == hi // k:
            return rest - (lo // k) * k
        return Ix.of(Mod(rest, k))

    def atoms(self) -> Iterator[Atom]:
        """Every atom, also inside `floordiv`/`mod` arguments."""
        for atom, _ in self.terms:
            yield atom
            if isinstance(atom, Div | Mod):
                yield from atom.arg.atoms()

    def quotients(self) -> tuple[Div | Mod, ...]:
        """The `floordiv`/`mod` atoms of `atoms`, in its order (found once
        per expression)."""
        if self._quotients is None:
            self._quotients = tuple(a for a in self.atoms() if isinstance(a, Div | Mod))
        return self._quotients

    def variables(self) -> list[Var]:
        """The loop variables the expression uses, in first-use order."""
        if self._variables is None:
            self._variables = tuple(
                dict.fromkeys(a for a in self.atoms() if isinstance(a, Var))
            )
        return list(self._variables)

    def to_affine(self, dims: Mapping[Var, int]) -> AffineExpr:
        """The affine expression with each variable as the dimension `dims[var]`."""
        expr = AffineExpr.constant(self.const)
        for atom, coefficient in self.terms:
            match atom:
                case Var():
                    leaf = AffineExpr.dimension(dims[atom])
                case Div():
                    leaf = atom.arg.to_affine(dims) // atom.k
                case Mod():
                    leaf = atom.arg.to_affine(dims) % atom.k
                case _:
                    raise TypeError(f"unknown atom {atom}")
            expr = expr + leaf * coefficient
        return expr

    def evaluate(self, env: Mapping[Var, np.ndarray | int]) -> np.ndarray | int:
        """The value for NumPy arrays (or ints) bound to the variables."""
        total: np.ndarray | int = self.const
        for atom, coefficient in self.terms:
            match atom:
                case Var():
                    value = env[atom]
                case Div():
                    value = atom.arg.evaluate(env) // atom.k
                case Mod():
                    value = atom.arg.evaluate(env) % atom.k
                case _:
                    raise TypeError(f"unknown atom {atom}")
            total = total + coefficient * value
        return total


def blocks_needed(index: Ix) -> Iterator[tuple[Var, int]]:
    """(variable, block) pairs whose splitting would linearise `index`.

    A variable with coefficient c under `floordiv k`/`mod k` becomes linear
    there once it is split into blocks of `k / gcd(k, c)`.
    """
    for atom in index.atoms():
        if isinstance(atom, Div | Mod):
            for var, coefficient in atom.arg.terms:
                if isinstance(var, Var):
                    block = atom.k // math.gcd(atom.k, abs(coefficient))
                    if block > 1:
                        yield var, block
