"""Iteration domains split into blocks, so that storage-layout accesses are affine.

A loop over an origin axis of size `C` that reads an NC1HWC0 tensor indexes
it with `c floordiv C0` and `c mod C0`. Splitting the axis into digits
`c = C0 * c1 + c0` (a full part `c1 < C // C0` and a tail `c1 = C // C0,
c0 < C % C0`) turns both into plain loop variables. Several layouts on one
axis (NC1HWC0 with C0 = 8 and FRACTAL_Z's N0 = 16) give a chain of blocks
8 | 16 and up to three pieces. `pieces` returns the rectangular pieces of a
whole domain; each becomes one loop nest.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from passes.lowering.index import Ix, Var


@dataclass(frozen=True)
class Digit:
    """One loop of a piece: contributes `block * v` with `v` in `lo..lo+extent-1`."""

    axis: int
    block: int
    lo: int
    extent: int


Piece = tuple[Digit, ...]


def block_chain(size: int, blocks: Iterable[int]) -> list[int]:
    """The largest blocks (below `size`) that divide each other, ascending."""
    chain: list[int] = []
    for block in sorted(set(blocks), reverse=True):
        if 1 < block < size and (not chain or chain[-1] % block == 0):
            chain.append(block)
    return chain[::-1]


def _full_digits(axis: int, span: int, chain: Sequence[int]) -> list[Digit]:
    """Digits covering `0..span-1` exactly (every block of `chain` divides `span`)."""
    digits = []
    upper = span
    for block in reversed(chain):
        digits.append(Digit(axis, block, 0, upper // block))
        upper = block
    digits.append(Digit(axis, 1, 0, upper))
    return digits


def axis_pieces(axis: int, size: int, chain: Sequence[int]) -> list[list[Digit]]:
    """The pieces of `0..size-1` in mixed radix `chain`: full blocks, then tails."""
    if not chain:
        return [[Digit(axis, 1, 0, size)]] if size else []
    block, inner = chain[-1], chain[:-1]
    pieces = []
    if size // block:
        pieces.append(
            [Digit(axis, block, 0, size // block), *_full_digits(axis, block, inner)]
        )
    for tail in axis_pieces(axis, size % block, inner):
        pieces.append([Digit(axis, block, size // block, 1), *tail])
    return pieces


def pieces(sizes: Sequence[int], chains: Sequence[Sequence[int]]) -> list[Piece]:
    """Every piece of the domain `sizes` split by one block chain per axis."""
    per_axis = [
        axis_pieces(a, s, c) for a, (s, c) in enumerate(zip(sizes, chains, strict=True))
    ]
    return [tuple(itertools.chain(*combo)) for combo in itertools.product(*per_axis)]


def probe_variables(sizes: Sequence[int]) -> list[Ix]:
    """One unsplit variable per axis, used to find which blocks accesses need."""
    return [Ix.of(Var(axis, 0, size - 1)) for axis, size in enumerate(sizes)]


def piece_index(piece: Piece, first_id: int) -> tuple[list[Ix], dict[Digit, Var]]:
    """The origin index of each axis over a piece, and the variable of each loop.

    Digits of extent 1 are constants; the others get variables numbered from
    `first_id`.
    """
    axes = max((d.axis for d in piece), default=-1) + 1
    index = [Ix.of(0) for _ in range(axes)]
    variables: dict[Digit, Var] = {}
    for digit in piece:
        if digit.extent == 1:
            term = Ix.of(digit.lo)
        else:
            var = Var(first_id + len(variables), digit.lo, digit.lo + digit.extent - 1)
            variables[digit] = var
            term = Ix.of(var)
        index[digit.axis] = index[digit.axis] + term * digit.block
    return index, variables
