"""Phase 3, one rule per test: how far sheep slide and which splits are legal.

Every position is written by hand in the one-line notation.  A reminder of
the geometry (axial coordinates, see ``arena.rules.hexgrid``): a row of the
notation is one ``r``; ``E`` is ``(+1, 0)``, ``W`` ``(-1, 0)``, ``NE``
``(+1, -1)``, ``NW`` ``(0, -1)``, ``SW`` ``(-1, +1)``, ``SE`` ``(0, +1)``.
"""

from __future__ import annotations

import pytest

from arena.errors import IllegalMoveError
from arena.rules import Direction, GameState, Phase, SheepMove, format_position, parse_move, parse_position
from tests.support.rules_helpers import play, reason

# The hexagon of radius 2 around (2, 2): rows r=0..4.
HEXAGON_ROWS = ["_2.3", "_.4", ".5", ".4", ".3"]


def stacks_of(state: GameState) -> dict[tuple[int, int], tuple[int, int]]:
    return state.stacks()


# --- how far a slide goes ---------------------------------------------------


def test_slide_stops_at_the_edge_of_the_pasture() -> None:
    # Strip (0,0)..(3,0) with a's stack on the west end; b sits below, on (0,1).
    state = parse_position("a3.../b2 moves a players=2")
    assert state.why_illegal(parse_move("0,0E1")) is None
    play(state, "0,0E1")
    # The sheep went all the way to the last hex, not one step.
    assert stacks_of(state) == {(0, 0): (0, 2), (3, 0): (0, 1), (0, 1): (1, 2)}


def test_slide_stops_before_a_hole_and_never_jumps_it() -> None:
    # The radius-2 hexagon around (2,2) with its centre missing: (2,2) is an
    # enclosed hole.  a on (0,2) slides east: (1,2) is free, (2,2) is the hole,
    # and (3,2) beyond it is free pasture that must not be reached.
    state = parse_position("_2.3/_.4/a3._.b2/.4/.3 moves a players=2")
    assert (2, 2) in state.board.holes
    play(state, "0,2E2")
    assert stacks_of(state) == {(0, 2): (0, 1), (1, 2): (0, 2), (4, 2): (1, 2)}


def test_slide_goes_as_far_as_it_can_in_each_of_the_six_directions() -> None:
    rows = list(HEXAGON_ROWS)
    rows[2] = ".2a7.2"  # a's stack on the centre (2,2)
    expected = {
        Direction.E: (4, 2),
        Direction.NE: (4, 0),
        Direction.NW: (2, 0),
        Direction.W: (0, 2),
        Direction.SW: (0, 4),
        Direction.SE: (2, 4),
    }
    for direction, dest in expected.items():
        state = parse_position("/".join(rows) + " moves a players=2")
        state.apply(SheepMove(2, 2, direction, 3))
        assert stacks_of(state) == {(2, 2): (0, 4), dest: (0, 3)}, direction


def test_own_stack_blocks_the_slide() -> None:
    # a3 on (0,0), a2 on (2,0): moving east stops on (1,0), before a's own stack.
    state = parse_position("a3.a2.. moves a players=2")
    play(state, "0,0E1")
    assert stacks_of(state) == {(0, 0): (0, 2), (1, 0): (0, 1), (2, 0): (0, 2)}


def test_other_players_stack_blocks_the_slide() -> None:
    state = parse_position("a3.b2.. moves a players=2")
    play(state, "0,0E2")
    assert stacks_of(state) == {(0, 0): (0, 1), (1, 0): (0, 2), (2, 0): (1, 2)}


def test_direction_blocked_right_away_is_not_a_move() -> None:
    # a on (0,0): east is b's stack, west/NE/NW/SW are off the pasture; only SE is open.
    state = parse_position("a3b2./.. moves a players=2")
    assert {str(m) for m in state.legal_moves()} == {"0,0SE1", "0,0SE2"}
    assert "blocked" in reason(state, "0,0E1")  # by a stack
    assert "E" in reason(state, "0,0E1")
    assert "blocked" in reason(state, "0,0W1")  # by the edge
    before = format_position(state)
    with pytest.raises(IllegalMoveError) as err:
        play(state, "0,0NW1")
    assert "blocked" in err.value.reason
    assert format_position(state) == before  # nothing changed


# --- which splits are legal ---------------------------------------------------


def test_stack_of_one_sheep_cannot_move() -> None:
    state = parse_position("a1...a2 moves a players=2")
    assert "1 sheep" in reason(state, "0,0E1")
    assert all(m.source == (4, 0) for m in state.legal_moves() if isinstance(m, SheepMove))
    with pytest.raises(IllegalMoveError):
        play(state, "0,0E1")


def test_a_stack_of_one_made_by_a_move_cannot_move_again() -> None:
    state = parse_position("a3.../b2... moves a players=2")
    play(state, "0,0E1")  # leaves a1 on (3,0)
    play(state, "0,1E1")  # b moves; a to move again
    assert state.to_move == 0
    assert "1 sheep" in reason(state, "3,0W1")
    assert not any(m.source == (3, 0) for m in state.legal_moves() if isinstance(m, SheepMove))


def test_at_least_one_sheep_must_stay() -> None:
    state = parse_position("a3... moves a players=2")
    why = reason(state, "0,0E3")  # the whole stack
    assert "3" in why and "stay" in why
    assert "stay" in reason(state, "0,0E4")  # more than the stack
    assert state.why_illegal(parse_move("0,0E2")) is None  # height - 1 is fine
    with pytest.raises(IllegalMoveError) as err:
        play(state, "0,0E3")
    assert "stay" in err.value.reason
    assert stacks_of(state) == {(0, 0): (0, 3)}


def test_count_zero_is_illegal() -> None:
    state = parse_position("a3... moves a players=2")
    why = reason(state, "0,0E0")
    assert "0" in why and "between 1 and 2" in why


def test_moves_list_every_count_from_one_to_height_minus_one() -> None:
    state = parse_position("a5... moves a players=2")
    assert [str(m) for m in state.legal_moves()] == ["0,0E1", "0,0E2", "0,0E3", "0,0E4"]


def test_cannot_move_other_players_stack_or_an_empty_hex_or_off_the_pasture() -> None:
    state = parse_position("a3..b2 moves a players=2")
    assert "player b" in reason(state, "3,0W1")
    assert "no stack" in reason(state, "1,0E1")
    assert "not on the pasture" in reason(state, "9,9E1")


def test_sheep_cannot_move_outside_the_moving_phase() -> None:
    state = parse_position(".... herds a players=2")
    assert "herds phase" in reason(state, "0,0E1")
    state = parse_position("a1..b1 over - players=2")
    assert reason(state, "0,0E1") == "the game is over"


def test_move_adds_one_stack_and_passes_the_turn() -> None:
    state = parse_position("a4.../b4... moves a players=2")
    play(state, "0,0E3")
    assert state.to_move == 1
    assert state.hexcount == [2, 1]
    assert state.sheep_of(0) == 4
    assert stacks_of(state) == {(0, 0): (0, 1), (3, 0): (0, 3), (0, 1): (1, 4)}
    # The new stack of 3 can move on a's next turn; the stack of 1 left behind cannot.
    play(state, "0,1E1")
    assert {m.source for m in state.legal_moves() if isinstance(m, SheepMove)} == {(3, 0)}
    assert state.phase is Phase.MOVES
