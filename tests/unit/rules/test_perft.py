"""Perft: leaf counts of the move tree, counted by hand on tiny positions and
pinned on bigger ones after cross-checking against a naive recursive count."""

from __future__ import annotations

import pytest

from arena.rules import (
    Board,
    GameState,
    Params,
    Phase,
    divide,
    parse_move,
    parse_position,
    perft,
    random_board,
)


def naive_perft(state: GameState, depth: int) -> int:
    """Perft through the public API only: legal_moves(), copy() and apply()."""
    if depth == 0:
        return 1
    total = 0
    for move in state.legal_moves():
        child = state.copy()
        child.apply(move)
        total += naive_perft(child, depth - 1)
    return total


# --- counted by hand ---------------------------------------------------------------

# The 2x2 rhombus (tile A at 0,0): hexes (0,0) (1,0) / (0,1) (1,1).
# a3 on (0,0), b2 on (1,1); (1,0) and (0,1) are empty.
#
# depth 1 -- a's stack on (0,0): E reaches (1,0) and stops at the edge (2,0);
#   SE reaches (0,1) and stops at the edge (0,2); NE, NW, W and SW leave the
#   pasture at once.  2 slides x counts {1, 2} = 4.
# depth 2 -- b's stack on (1,1) (2 sheep, count 1 only): its only pasture
#   neighbours are (1,0) (NW) and (0,1) (W).  Whichever of them a took, the
#   other is free and b slides there (one step, the edge is next): 1 move
#   after each of a's 4 moves = 4.
# depth 3 -- all four hexes are occupied, nobody can move, the game is over:
#   0 (a finished game has no children).
RHOMBUS = "a3./.b2 moves a players=2"

# A 5-hex strip (0,0)..(4,0): a4 on the west end, b3 on the east end.  Only E
# and W stay on the strip.
#
# depth 1 -- a: E from (0,0) slides over (1,0) (2,0) (3,0) and stops before
#   b on (4,0): counts 1, 2, 3.  = 3.
# After any of them a stack stands on (3,0), so b (W blocked right away, E off
# the pasture) is stuck for good: every later ply is a's.
# depth 2 --
#   k=1: (0,0)=3, (3,0)=1.  (0,0) E stops on (2,0): counts 1, 2.        2
#   k=2: (0,0)=2, (3,0)=2.  (0,0) E to (2,0), count 1;
#                           (3,0) W to (1,0), count 1 (E is b).          2
#   k=3: (0,0)=1, (3,0)=3.  (3,0) W to (1,0): counts 1, 2.               2
#   = 6.
# depth 3 --
#   k=1, then (0,0)->(2,0) with 1: (0,0)=2, (2,0)=1: (0,0) E to (1,0).   1
#   k=1, then (0,0)->(2,0) with 2: (0,0)=1, (2,0)=2: (2,0) W to (1,0).   1
#   k=2, then (0,0)->(2,0):  (0,0)=1 (2,0)=1 (3,0)=2 walled in: over.    0
#   k=2, then (3,0)->(1,0):  (0,0)=2 walled in by (1,0), (3,0)=1: over. 0
#   k=3, then (3,0)->(1,0) with 1: (3,0)=2: W to (2,0).                 1
#   k=3, then (3,0)->(1,0) with 2: (1,0)=2: E to (2,0).                 1
#   = 4.
# depth 4 -- each of those 4 moves fills the last free hex: over, 0.
STRIP = "a4...b3 moves a players=2"

# Herd placement on a 3-hex strip, 2 sheep each (so each herd moves once).
#
# depth 1 -- every hex is outer border: 3.
# depth 2 -- b takes one of the 2 others: 3 x 2 = 6.
# depth 3 -- the moving phase starts with a unless a is walled in:
#   a on 0, b on 1: a stuck (E is b), b moves E to 2.      1
#   a on 0, b on 2: a moves E to 1.                        1
#   a on 1, b on 0: a moves E to 2.                        1
#   a on 1, b on 2: a moves W to 0.                        1
#   a on 2, b on 0: a moves W to 1.                        1
#   a on 2, b on 1: a stuck (W is b), b moves W to 0.      1
#   = 6.
# depth 4 -- three stacks on three hexes: over, 0.
HERD_STRIP = "... herds a players=2 sheep=2"


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        (RHOMBUS, [1, 4, 4, 0]),
        (STRIP, [1, 3, 6, 4, 0]),
        (HERD_STRIP, [1, 3, 6, 6, 0]),
    ],
)
def test_perft_counted_by_hand(text: str, counts: list[int]) -> None:
    state = parse_position(text)
    for depth, expected in enumerate(counts):
        assert perft(state, depth) == expected, depth
        assert naive_perft(state, depth) == expected, depth


def test_divide_on_the_strip_matches_the_hand_count() -> None:
    state = parse_position(STRIP)
    assert [(str(m), n) for m, n in divide(state, 2)] == [("0,0E1", 2), ("0,0E2", 2), ("0,0E3", 2)]
    assert [(str(m), n) for m, n in divide(state, 3)] == [("0,0E1", 2), ("0,0E2", 0), ("0,0E3", 2)]
    with pytest.raises(ValueError):
        divide(state, 0)


def test_perft_does_not_change_the_position() -> None:
    state = parse_position(STRIP)
    before = (state.owner[:], state.height[:], state.to_move, state.phase)
    perft(state, 3)
    assert (state.owner, state.height, state.to_move, state.phase) == before


def test_perft_of_a_finished_game() -> None:
    state = parse_position("a1a1b2 over - players=2")
    assert perft(state, 0) == 1
    assert perft(state, 1) == 0
    assert perft(state, 2) == 0


# --- the building phase ------------------------------------------------------------

# Tile shapes as RULES.md gives them, kept here so the brute force below does
# not lean on the engine's own tables.
SHAPES = {
    "A": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "B": ((0, 0), (1, 0), (1, -1), (2, -1)),
    "C": ((0, 0), (1, -1), (1, 0), (0, 1)),
}
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def brute_force_second_tiles(first: str, contact: int) -> int:
    """Second tiles that fit next to ``first`` at 0,0, by trying every anchor nearby."""
    pasture = set(SHAPES[first])
    count = 0
    for q in range(-5, 6):
        for r in range(-5, 6):
            for cells in SHAPES.values():
                tile = {(q + dq, r + dr) for dq, dr in cells}
                if tile & pasture:
                    continue
                touching = sum(any((x + dx, y + dy) in pasture for dx, dy in NEIGHBOURS) for x, y in tile)
                if touching >= contact:
                    count += 1
    return count


def test_perft_building_phase() -> None:
    # depth 1: the first tile goes anywhere; up to translation, 3 orientations.
    state = GameState(Params())
    assert perft(state, 1) == 3
    # depth 2: 42 ways to lay a second tile next to each orientation (the
    # shapes are translations/rotations of one another, so each touches 42).
    by_hand = [brute_force_second_tiles(o, 1) for o in "ABC"]
    assert by_hand == [42, 42, 42]
    assert perft(state, 2) == sum(by_hand) == 126
    assert naive_perft(state, 2) == 126
    assert [n for _, n in divide(state, 2)] == by_hand


def test_perft_building_phase_contact_two() -> None:
    state = GameState(Params(contact=2))
    by_hand = [brute_force_second_tiles(o, 2) for o in "ABC"]
    assert perft(state, 2) == sum(by_hand)
    assert sum(by_hand) < 126
    assert perft(state, 3) == naive_perft(state, 3)


# --- bigger positions, pinned ----------------------------------------------------------
# Numbers taken from the engine once the hand counts above agreed, and
# cross-checked against naive_perft where that is quick enough.


def test_perft_random_board_two_players() -> None:
    # 'random:1:2': random_board(1, 8) (32 hexes, all on the outer border), herds next.
    state = GameState(Params(), random_board(1, 8))
    assert state.phase is Phase.HERDS
    assert [perft(state, d) for d in range(4)] == [1, 32, 32 * 31, 50400]
    assert naive_perft(state, 2) == 992


def test_perft_random_board_three_players() -> None:
    state = GameState(Params(players=3), random_board(1, 12))
    assert [perft(state, d) for d in (1, 2)] == [45, 45 * 44]


def test_perft_moving_phase_pinned_and_cross_checked() -> None:
    state = GameState(Params(), random_board(1, 8))
    state.apply(parse_move("7,1"))
    state.apply(parse_move("5,6"))
    assert state.phase is Phase.MOVES
    counts = [perft(state, d) for d in range(4)]
    assert counts == PINNED_MOVES_PHASE
    assert naive_perft(state, 3) == counts[3]


def test_perft_small_game_to_the_end() -> None:
    # A whole tiny game: two players, 3 sheep each, on one rhombus tile
    # (0,0) (1,0) / (0,1) (1,1), from herd placement.
    # depth 1 -- all 4 hexes are outer border: 4.  depth 2 -- 4 x 3 = 12.
    # depth 3 -- a's first move; a slide on this tile always stops after one
    #   step, so a has one slide per free neighbour, times counts {1, 2}.
    #   (0,0) and (1,1) have 2 neighbours, (1,0) and (0,1) have 3.
    #   a and b on the two ends of the long diagonal, (0,0)/(1,1): both of a's
    #     neighbours free: 2 slides x 2 = 4, for 2 orderings:             8
    #   a on (0,0) or (1,1), b next to it (2 x 2 placements): 1 free
    #     neighbour, 1 x 2 = 2 each:                                      8
    #   a on (1,0) or (0,1), b on any of its 3 neighbours (2 x 3): 2 free
    #     neighbours, 2 x 2 = 4 each:                                    24
    #   = 40.
    # The board has 4 hexes and each move fills one, so the two herds and two
    # moves fill it: depth 5 and deeper is 0.
    state = GameState(Params(sheep=3), Board([(0, 0), (1, 0), (0, 1), (1, 1)]))
    counts = [perft(state, d) for d in range(7)]
    assert counts[:4] == [1, 4, 12, 40]
    assert counts[5:] == [0, 0]
    assert counts == [naive_perft(state, d) for d in range(7)]


PINNED_MOVES_PHASE = [1, 45, 2025, 66150]
