"""Index set splitting of loop domains (`passes.lowering.domain.refine`):
every point of a piece lands in exactly one of its parts, and the parts'
indices are affine."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from passes.lowering.domain import (
    PIECE_LIMIT,
    Digit,
    Piece,
    coalesced,
    piece_index,
    refine,
)
from passes.lowering.index import Div, Ix, Mod, Var


def points(piece: Piece) -> list[tuple[int, ...]]:
    """The origin indices of a piece, in loop order."""
    index, variables = piece_index(piece, 0)
    ranges = [range(v.lo, v.hi + 1) for v in variables.values()]
    found = []
    for values in itertools.product(*ranges):
        env = dict(zip(variables.values(), values, strict=True))
        found.append(tuple(int(ix.evaluate(env)) for ix in index))
    return found


def wraps(ix: Ix) -> bool:
    return any(isinstance(atom, Div | Mod) for atom in ix.atoms())


def grouped_channel(scale: int, k: int):
    """The block and lane of channel `scale * g + i` in blocks of `k`."""

    def indices(index: list[Ix]) -> list[Ix]:
        g, i = index
        channel = g * scale + i
        return [channel.floordiv(k), channel.mod(k)]

    return indices


def split_checked(piece: Piece, indices) -> list[Piece]:
    """`refine(piece)`, checked: its parts hold every point of the piece
    once and, unless the piece stayed whole, index it affinely."""
    parts = refine(piece, 0, indices)
    got = [p for part in parts for p in points(part)]
    assert sorted(got) == points(piece) and len(got) == len(set(got))
    if parts != [piece]:
        for part in parts:
            index, _ = piece_index(part, 0)
            assert not any(wraps(ix) for ix in indices(index))
    return parts


def test_groups_are_unrolled_and_channels_cut_at_block_ends():
    """Channel 34 g + i of 4 groups of 34 in blocks of 16: each group its
    own part, each cut where a block ends."""
    piece = (Digit(0, 1, 0, 4), Digit(1, 1, 0, 34))
    parts = split_checked(piece, grouped_channel(34, 16))
    group_1 = [part for part in parts if part[0] == Digit(0, 1, 1, 1)]
    assert [(d.lo, d.extent) for _, d in group_1] == [(0, 14), (14, 16), (30, 4)]


def test_blocks_of_lanes_start_where_the_channel_blocks_do():
    """Lanes under a loop of blocks (channel 34 g + 16 i1 + i0): the blocks
    are shifted to start where the channels' do — lanes 14, 16, 2 for group
    1 — rather than each block cut in two."""
    piece = (Digit(0, 1, 0, 4), Digit(1, 16, 0, 2), Digit(1, 1, 0, 16))
    parts = split_checked(piece, grouped_channel(34, 16))
    group_1 = [points(part) for part in parts if part[0] == Digit(0, 1, 1, 1)]
    assert [len(p) for p in group_1] == [14, 16, 2]
    assert [p for part in group_1 for p in part] == [(1, i) for i in range(32)]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 40),
    st.integers(1, 50),
    st.sampled_from([4, 8, 16]),
    st.booleans(),
)
def test_parts_cover_the_piece_once(groups, scale, size, k, blocked):
    """Any groups, channels per group and block; lanes alone or under a loop
    of blocks."""
    lanes = (
        (Digit(1, k, 0, -(-size // k)), Digit(1, 1, 0, k))
        if blocked
        else (Digit(1, 1, 0, size),)
    )
    split_checked((Digit(0, 1, 0, groups), *lanes), grouped_channel(scale, k))


def test_no_split_past_the_piece_limit():
    """More parts than `PIECE_LIMIT`: the piece stays whole (its index
    still wraps)."""
    groups = PIECE_LIMIT + 1
    piece = (Digit(0, 1, 0, groups), Digit(1, 1, 0, 3))
    assert refine(piece, 0, grouped_channel(3, 2)) == [piece]
    assert len(refine(piece, 0, grouped_channel(3, 16))) == 3 * 13  # i, then g


def test_fixed_axes_are_never_cut():
    """Axes a caller keeps whole (a grouped convolution's gathered loops):
    the groups of 34 channels stay one piece, read through `floordiv`; a
    fixed group axis alone still leaves no cut of the lanes' wrap (every
    wrap uses the groups)."""
    piece = (Digit(0, 1, 0, 4), Digit(1, 1, 0, 34))
    assert refine(piece, 0, grouped_channel(34, 16), fixed=frozenset({0, 1})) == [piece]
    assert refine(piece, 0, grouped_channel(34, 16), fixed=frozenset({0})) == [piece]
    assert len(refine(piece, 0, grouped_channel(34, 16))) > 4


def test_no_split_of_an_index_with_an_enclosing_loops_variable():
    """`(outer + i) floordiv 16` with `outer` a variable of an enclosing
    nest (numbered below the piece's): no cut of `i` makes it affine."""
    outer = Var(0, 0, 3)
    piece = (Digit(0, 1, 0, 20),)

    def indices(index: list[Ix]) -> list[Ix]:
        return [(index[0] + Ix.of(outer) * 5).floordiv(16)]

    assert refine(piece, 1, indices) == [piece]


def shuffle_indices(index: list[Ix]) -> list[Ix]:
    """A channel shuffle of 112 channels in 4 groups between blocks of 16:
    the source's block and lane (through `floordiv`/`mod`), the target's."""
    (c,) = index
    source = c.mod(4) * 28 + c.floordiv(4)
    return [source.floordiv(16), source.mod(16), c.floordiv(16), c.mod(16)]


SHUFFLE_PIECE = (Digit(0, 16, 0, 7), Digit(0, 4, 0, 4), Digit(0, 1, 0, 4))
"""Channels 0..111 in blocks of 16, of 4 (the `mod 4` asked for), lanes."""


def test_a_wrapping_piece_runs_its_lanes_as_one_loop():
    """The source wraps whatever the split: the blocks of 4 and their lanes
    merge into one loop of 16 lanes, the target's indices still affine,
    every channel visited once."""
    merged = coalesced(SHUFFLE_PIECE, shuffle_indices)
    assert merged == (Digit(0, 16, 0, 7), Digit(0, 1, 0, 16))
    assert sorted(points(merged)) == [(c,) for c in range(112)]
    index, _ = piece_index(merged, 0)
    assert [wraps(ix) for ix in shuffle_indices(index)] == [True, True, False, False]


def test_loops_stay_apart_where_merging_would_wrap_an_affine_index():
    """An index affine only with the blocks of 4 (`c mod 4` of the target)
    keeps them; a piece whose indices are all affine is left as it is."""

    def with_group(index: list[Ix]) -> list[Ix]:
        return [*shuffle_indices(index), index[0].mod(4)]

    assert coalesced(SHUFFLE_PIECE, with_group) == SHUFFLE_PIECE

    def affine(index: list[Ix]) -> list[Ix]:
        return [index[0].floordiv(16), index[0].mod(16)]

    assert coalesced(SHUFFLE_PIECE, affine) == SHUFFLE_PIECE
