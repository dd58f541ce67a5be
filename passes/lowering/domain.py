"""Iteration domains split into blocks, so that storage-layout accesses are affine.

A loop over an origin axis of size `C` that reads an NC1HWC0 tensor indexes
it with `c floordiv C0` and `c mod C0`. Splitting the axis into digits
`c = C0 * c1 + c0` (a full part `c1 < C // C0` and a tail `c1 = C // C0,
c0 < C % C0`) turns both into plain loop variables. Several layouts on one
axis (NC1HWC0 with C0 = 8 and FRACTAL_Z's N0 = 16) give a chain of blocks
8 | 16 and up to three pieces. `pieces` returns the rectangular pieces of a
whole domain; each becomes one loop nest.

Blocks from 0 do not help where an offset is not a multiple of C0: channel
`34 * g + i` of a grouped convolution (34 channels per group), a concat's
second input at channel 17. `refine` splits such a piece further (index
set splitting): a loop whose variable meets another in a wrapping index
is unrolled (`g`: each group its own piece, so `34 * g` is a constant); a
loop alone in one is cut where the index crosses a block, or, where its
lanes sit under a loop of blocks, the blocks are shifted to start where
the index's do (a head, whole blocks, a tail: whole vectors). Each piece's
indices are then affine; where that takes over `PIECE_LIMIT` pieces the
piece stays as it was (its accesses through `floordiv`/`mod`). Axes a
caller keeps whole (`fixed`: a grouped convolution's misaligned channels,
read through a gather instead) are never cut.

```text
(34 * g + 16 * i1 + i0) floordiv 16, g in 0..3, i1 in 0..1, i0 in 0..15
  -> g = 1: i in 0..13 (block 2), 14..29 (block 3), 30..31 (block 4)
```
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from passes.lowering.index import Ix, Var

PIECE_LIMIT = 64
"""The most pieces `refine` makes of one piece."""

UNROLL_LIMIT = 16
"""The longest loop `refine` unrolls into a piece per value."""

PROBE_BUDGET = 256
"""How many pieces `refine` probes before it stops comparing ways to split."""


class Digit(NamedTuple):
    """One loop of a piece: contributes `block * v` with `v` in `lo..lo+extent-1`
    (a named tuple: refining builds and compares thousands)."""

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
    terms: list[list[tuple[Var, int]]] = [[] for _ in range(axes)]
    consts = [0] * axes
    variables: dict[Digit, Var] = {}
    for digit in piece:
        if digit.extent == 1:
            consts[digit.axis] += digit.lo * digit.block
        else:
            var = Var(first_id + len(variables), digit.lo, digit.lo + digit.extent - 1)
            variables[digit] = var
            terms[digit.axis].append((var, digit.block))
    index = [Ix(tuple(t), c) for t, c in zip(terms, consts, strict=True)]
    return index, variables


def split_pieces(
    sizes: Sequence[int],
    chains: Sequence[Sequence[int]],
    first_id: int,
    indices: Callable[[list[Ix]], Iterable[Ix]] | None,
    limit: int = PIECE_LIMIT,
    fixed: frozenset[int] = frozenset(),
) -> list[Piece]:
    """`pieces(sizes, chains)`, each refined (`refine`, into at most `limit`
    parts, the axes `fixed` never cut) unless `indices` is None (a nest
    whose points must keep their order)."""
    if indices is None:
        return pieces(sizes, chains)
    return [
        part
        for piece in pieces(sizes, chains)
        for part in refine(piece, first_id, indices, limit, fixed)
    ]


def refine(
    piece: Piece,
    first_id: int,
    indices: Callable[[list[Ix]], Iterable[Ix]],
    limit: int = PIECE_LIMIT,
    fixed: frozenset[int] = frozenset(),
) -> list[Piece]:
    """`piece` split until no index of `indices(origin index)` wraps (see
    the module docstring); `piece` itself if that takes over `limit`
    parts or leaves a part whose index wraps in its own loops alone.

    Only the piece's own loops are split: a wrapping index that also uses
    an enclosing nest's variables (numbered below `first_id`) is left as it
    is; one that uses a nested nest's (numbered above the piece's) may get
    the piece's loops unrolled, for the nested nest to split its own. A
    wrapping index over a loop of an axis in `fixed` stays as it is.
    """
    budget = [PROBE_BUDGET]

    def split(current: Piece) -> list[Piece] | None:
        """The parts of `current`, None if some part still wraps in its own
        loops or there are over `limit`. Of shifted blocks and cuts,
        the shifted ones unless they take over one part more."""
        budget[0] -= 1
        index, variables = piece_index(current, first_id)
        digits = {var: digit for digit, var in variables.items()}
        wraps = [
            (argument, k)
            for argument, k in wrapping(indices(index))
            if not any(
                digits[v].axis in fixed for v in argument.variables() if v in digits
            )
        ]
        alternatives = _splits(current, first_id, digits, wraps)
        if not alternatives:
            if any(_only(argument, digits) for argument, _ in wraps):
                return None  # a wrap of its own loops no cut undoes
            return [current]
        tried = alternatives if budget[0] > 0 else alternatives[:1]
        results = [split_all(alternative) for alternative in tried]
        if len(results) == 2 and results[0] and results[1]:
            shifted, cut = results
            return shifted if len(shifted) <= len(cut) + 1 else cut
        return next((parts for parts in results if parts), None)

    def split_all(alternative: list[Piece]) -> list[Piece] | None:
        parts: list[Piece] = []
        for part in alternative:
            found = split(part)
            if found is None or len(parts) + len(found) > limit:
                return None
            parts += found
        return parts

    return split(piece) or [piece]


def coalesced(piece: Piece, indices: Callable[[list[Ix]], Iterable[Ix]]) -> Piece:
    """`piece` with its loops of one axis merged (blocks of 4 and their
    lanes into one loop of 16) wherever every index affine before stays
    affine, when some index still wraps (`refine` left it so): the blocks
    a wrapping index asked for (a channel shuffle's `c mod 4`) gain
    nothing then, and one loop over a C0 block's lanes vectorises (a
    native kernel's gather) where 4 loops of 4 did not.

    ```text
    c = 16 * c1 + 4 * c2 + c3 (a shuffle's source wraps anyway)
      -> c = 16 * c1 + l, l in 0..15 (the target's lanes still affine)
    ```
    """

    def affine(current: Piece) -> list[bool]:
        index, _ = piece_index(current, 0)
        return [not ix.quotients() for ix in indices(index)]

    before = affine(piece)
    if all(before):
        return piece
    current = piece
    merged = True
    while merged:
        merged = False
        for (i, outer), (j, inner) in itertools.permutations(enumerate(current), 2):
            if (
                outer.axis != inner.axis
                or outer.block != inner.block * inner.extent
                or outer.lo or inner.lo
                or outer.extent == 1 or inner.extent == 1
            ):  # fmt: skip
                continue
            whole = Digit(outer.axis, inner.block, 0, outer.extent * inner.extent)
            candidate = tuple(
                whole if k == i else digit for k, digit in enumerate(current) if k != j
            )
            after = affine(candidate)
            if all(now or not was for now, was in zip(after, before, strict=True)):
                current, merged = candidate, True
                break
    return current


def _only(argument: Ix, digits: dict[Var, Digit]) -> bool:
    """Whether `argument` is a combination of the piece's variables."""
    return all(atom in digits for atom, _ in argument.terms)


def _splits(
    piece: Piece,
    first_id: int,
    digits: dict[Var, Digit],
    wraps: Iterable[tuple[Ix, int]],
) -> list[list[Piece]]:
    """Ways to split `piece` at one of its digits so that a wrapping index
    gets closer to affine (blocks shifted first, for whole vectors); none
    if no wrapping index can be. Variables not of the piece numbered below
    `first_id` are enclosing loops' (the index cannot become affine here),
    the others nested loops' (split later)."""
    for argument, k in wraps:
        variables = [v for v, _ in argument.terms if isinstance(v, Var)]
        own = [v for v in variables if v in digits]
        if not own or len(variables) < len(argument.terms):
            continue
        if any(v not in digits and v.id < first_id for v in variables):
            continue  # an enclosing loop's variable: not affine in this nest
        if variables == own and len(own) == 1:
            var, coefficient = own[0], dict(argument.terms)[own[0]]
            shifted = _shifted_blocks(
                piece, digits[var], coefficient, argument.const, k
            )
            runs = _runs(var, coefficient, argument.const, k)
        else:
            shifted = None
            var = min(own, key=lambda v: v.hi - v.lo)
            if var.hi - var.lo + 1 > UNROLL_LIMIT:
                continue
            runs = [(value, value) for value in range(var.lo, var.hi + 1)]
        if len(runs) < 2:
            continue
        at = piece.index(digits[var])
        before, digit, after = piece[:at], piece[at], piece[at + 1 :]
        cut = [
            (*before, digit._replace(lo=lo, extent=hi - lo + 1), *after)
            for lo, hi in runs
        ]
        return [shifted, cut] if shifted else [cut]
    return []


def _shifted_blocks(
    piece: Piece, digit: Digit, coefficient: int, const: int, k: int
) -> list[Piece] | None:
    """The axis of `digit` (the lanes under a loop of blocks of `k`) cut
    into blocks starting where `const + lane` does: a head, whole blocks, a
    tail, rather than each block cut in two (lanes 14 + 16 + 4 of channel
    34 + i, not 14 + 2 twice and a tail of 4). None where the axis is not
    such a pair of loops."""
    others = [
        d for d in piece if d.axis == digit.axis and d is not digit and d.extent > 1
    ]
    if coefficient != 1 or len(others) != 1 or (digit.block, digit.lo) != (1, 0):
        return None
    (blocks,) = others
    if (blocks.block, digit.extent) != (k, k) or blocks.lo != 0:
        return None
    shift = -const % k
    if shift == 0:
        return None
    at = piece.index(blocks)
    lanes = piece.index(digit)

    def part(offset: int, count: int, lo: int, extent: int) -> Piece:
        """Blocks `0..count-1` after `offset` lanes, lanes `lo..lo+extent-1`."""
        changed = list(piece)
        changed[at] = Digit(digit.axis, k, 0, count)
        changed[lanes] = Digit(digit.axis, 1, lo, extent)
        return (*changed, Digit(digit.axis, 1, offset, 1))

    count = blocks.extent
    head = part(0, 1, 0, shift)
    middle = part(shift, count - 1, 0, k)
    tail = part(shift + (count - 1) * k, 1, 0, k - shift)
    return [head, middle, tail] if count > 1 else [head, tail]


def wrapping(indices: Iterable[Ix]) -> Iterator[tuple[Ix, int]]:
    """(argument, divisor) of each `floordiv`/`mod` left in `indices`,
    innermost first."""
    for ix in indices:
        for atom in reversed(ix.quotients()):
            yield atom.arg, atom.k


def _runs(var: Var, coefficient: int, const: int, k: int) -> list[tuple[int, int]]:
    """The maximal ranges of `var` over which `const + coefficient * var`
    stays in one block of `k` (none if there are over `PIECE_LIMIT`)."""
    runs: list[tuple[int, int]] = []
    for value in range(var.lo, var.hi + 1):
        block = (const + coefficient * value) // k
        if runs and (const + coefficient * runs[-1][1]) // k == block:
            runs[-1] = (runs[-1][0], value)
        else:
            runs.append((value, value))
        if len(runs) > PIECE_LIMIT:
            return []  # too many to split at
    return runs
