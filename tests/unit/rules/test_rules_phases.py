"""Turn order, the three phases and the transitions between them, and forfeits."""

from __future__ import annotations

import pytest

from arena.errors import IllegalMoveError, RulesError
from arena.rules import (
    Board,
    GameState,
    HerdPlacement,
    Params,
    Phase,
    TilePlacement,
    format_position,
    parse_move,
    parse_position,
    tile_hexes,
)
from tests.support.rules_helpers import play, reason

# The radius-2 hexagon around (2,2) with the centre missing: (2,2) is an
# enclosed hole.  Its 12 outer hexes touch the outside; the 6 inner ones
# touch only the hole.
RING = "_2.3/_.4/.2_.2/.4/.3"
INNER_RING = {(2, 1), (3, 1), (1, 2), (3, 2), (1, 3), (2, 3)}


# --- the moving phase: whose turn ----------------------------------------------


def test_stuck_player_is_skipped_and_keeps_their_hexes() -> None:
    # b2 on (0,0) is walled in: c on its east, the pasture's edge elsewhere.
    # c on (1,0) can still go south-east to (1,1); a can go east.
    state = parse_position("b2c2a3../_. moves a players=3")
    assert not state.in_play(1) and state.in_play(2)
    play(state, "2,0E1")
    assert state.to_move == 2  # b skipped
    assert state.out[1]
    play(state, "1,0SE1")
    assert state.to_move == 0  # b skipped again
    assert state.stacks()[(0, 0)] == (1, 2)
    assert state.standings()[1].hexes == 1


def test_player_who_is_stuck_in_two_player_game_lets_the_other_move_again() -> None:
    # After a moves east (stopping next to b's stack), b on (4,0) is walled in.
    state = parse_position("a4...b3 moves a players=2")
    play(state, "0,0E2")
    assert state.phase is Phase.MOVES
    assert state.to_move == 0
    assert state.out[1]


def test_game_ends_when_no_one_can_move() -> None:
    # a slides its last free sheep next to b; then neither a nor b has a move.
    state = parse_position("a2.b2 moves a players=2")
    play(state, "0,0E1")
    assert state.phase is Phase.OVER and state.is_over
    assert state.to_move == -1
    assert state.legal_moves() == []
    assert state.count_moves() == 0
    assert not state.in_play(0) and not state.in_play(1)
    assert reason(state, "1,0E1") == "the game is over"
    with pytest.raises(IllegalMoveError, match="over"):
        play(state, "2,0W1")
    assert format_position(state) == "a1a1b2 over - players=2"


def test_game_goes_on_while_someone_can_move() -> None:
    # a is stuck after its move but b still has one: the game is not over.
    state = parse_position("a2.b3. moves a players=2")
    play(state, "0,0E1")
    assert state.phase is Phase.MOVES and state.to_move == 1
    play(state, "2,0E1")
    assert state.phase is Phase.OVER


def test_three_player_turn_order() -> None:
    state = parse_position("a4.../b4.../c4... moves a players=3")
    seen = []
    for _ in range(6):
        seen.append(state.to_move)
        state.apply(state.legal_moves()[0])
    assert seen == [0, 1, 2, 0, 1, 2]


def test_four_player_turn_order() -> None:
    state = parse_position("a4.../b4.../c4.../d4... moves a players=4")
    seen = []
    for _ in range(8):
        seen.append(state.to_move)
        state.apply(state.legal_moves()[0])
    assert seen == [0, 1, 2, 3, 0, 1, 2, 3]


def test_turn_order_continues_from_the_player_to_move() -> None:
    state = parse_position("a4.../b4.../c4.../d4... moves c players=4")
    seen = []
    for _ in range(4):
        seen.append(state.to_move)
        state.apply(state.legal_moves()[0])
    assert seen == [2, 3, 0, 1]


# --- phase 1: building the pasture ------------------------------------------------


def test_first_tile_goes_anywhere() -> None:
    state = GameState(Params())
    assert state.phase is Phase.TILES
    assert state.why_illegal(TilePlacement(-7, 12, "B")) is None
    assert [str(m) for m in state.legal_moves()] == ["0,0A", "0,0B", "0,0C"]


def test_tiles_must_not_overlap() -> None:
    state = GameState(Params())
    play(state, "0,0A")  # (0,0) (1,0) (0,1) (1,1)
    why = reason(state, "1,0A")  # (1,0) (2,0) (1,1) (2,1)
    assert "overlap" in why and "1,0" in why
    assert "overlap" in reason(state, "0,0A")
    with pytest.raises(IllegalMoveError, match="overlap"):
        play(state, "0,0C")
    assert state.to_move == 1 and state.board.size == 4


def test_tile_must_touch_the_pasture() -> None:
    state = GameState(Params())
    play(state, "0,0A")
    why = reason(state, "5,5A")
    assert "touch" in why and "0" in why


def test_tile_contact_one_hex_by_default_two_as_option() -> None:
    # After 0,0A, the tile 2,-2A = (2,-2) (3,-2) (2,-1) (3,-1) touches the
    # pasture with one hex only: (2,-1), next to (1,0).  The tile 2,0A =
    # (2,0) (3,0) (2,1) (3,1) touches it with two: (2,0) and (2,1).
    one = GameState(Params())
    play(one, "0,0A")
    assert one.why_illegal(parse_move("2,-2A")) is None
    assert one.why_illegal(parse_move("2,0A")) is None
    assert TilePlacement(2, -2, "A") in one.legal_moves()

    two = GameState(Params(contact=2))
    play(two, "0,0A")
    why = reason(two, "2,-2A")
    assert "2 hexes" in why and "touches with 1" in why
    assert two.why_illegal(parse_move("2,0A")) is None
    assert TilePlacement(2, -2, "A") not in two.legal_moves()
    assert TilePlacement(2, 0, "A") in two.legal_moves()
    assert set(two.legal_moves()) < set(one.legal_moves())
    # Hexes are counted, not edges: 2,0B = (2,0) (3,0) (3,-1) (4,-1) touches
    # the pasture along two edges ((2,0) next to (1,0) and (1,1)) but with
    # one hex only.
    assert one.why_illegal(parse_move("2,0B")) is None
    assert "touches with 1" in reason(two, "2,0B")
    with pytest.raises(IllegalMoveError):
        play(two, "2,-2A")


def test_contact_must_be_one_or_two() -> None:
    with pytest.raises(RulesError, match="contact"):
        Params(contact=3)


def test_building_phase_turn_order_then_herds_then_moves() -> None:
    state = GameState(Params(players=3, tiles=2))
    order = []
    while state.phase is Phase.TILES:
        order.append(state.to_move)
        state.apply(state.legal_moves()[-1])
    assert order == [0, 1, 2, 0, 1, 2]
    assert state.board.size == 6 * 4  # six tiles, no overlap
    assert state.tiles_left == [0, 0, 0]
    assert state.phase is Phase.HERDS
    herd_order = []
    for pick in (0, -1, 2):  # spread out, so that every herd can move
        herd_order.append(state.to_move)
        state.apply(state.legal_moves()[pick])
    assert herd_order == [0, 1, 2]
    assert state.phase is Phase.MOVES
    assert state.to_move == 0
    assert [state.sheep_of(p) for p in range(3)] == [16, 16, 16]
    assert len(state.stacks()) == 3


def test_tiles_left_counts_down_per_player() -> None:
    state = GameState(Params(players=2, tiles=2))
    play(state, "0,0A")
    assert state.tiles_left == [1, 2] and state.to_move == 1
    play(state, "2,0A")
    assert state.tiles_left == [1, 1] and state.to_move == 0
    assert "tiles phase" in reason(state, "0,0")  # no herds yet


# --- phase 2: the herds --------------------------------------------------------


def test_herds_only_on_outer_border_hexes() -> None:
    # The full radius-2 hexagon: its centre (2,2) touches no outside hex.
    state = parse_position("_2.3/_.4/.5/.4/.3 herds a players=2")
    why = reason(state, "2,2")
    assert "border" in why and "2,2" in why
    assert HerdPlacement(2, 2) not in state.legal_moves()
    assert len(state.legal_moves()) == 12  # the outer ring
    assert "not on the pasture" in reason(state, "7,7")


def test_herds_only_on_unoccupied_hexes() -> None:
    state = parse_position("a16..../.... herds b players=2")
    why = reason(state, "0,0")
    assert "taken" in why
    assert HerdPlacement(0, 0) not in state.legal_moves()
    with pytest.raises(IllegalMoveError, match="taken"):
        play(state, "0,0")


def test_hole_edges_are_not_border_by_default() -> None:
    state = parse_position(RING + " herds a players=2")
    assert state.board.holes == frozenset({(2, 2)})
    for q, r in INNER_RING:
        why = reason(state, f"{q},{r}")
        assert "hole" in why
    assert len(state.legal_moves()) == 12
    assert not {(m.q, m.r) for m in state.legal_moves()} & INNER_RING


def test_hole_edges_allowed_with_hole_border_option() -> None:
    state = parse_position(RING + " herds a players=2 holeborder=1")
    assert state.params.hole_border
    for q, r in INNER_RING:
        assert state.why_illegal(parse_move(f"{q},{r}")) is None
    assert len(state.legal_moves()) == 18
    play(state, "2,1")
    assert state.stacks() == {(2, 1): (0, 16)}
    # Same through the constructor.
    board = parse_position(RING + " herds a players=2").board
    assert len(GameState(Params(hole_border=True), board).legal_moves()) == 18
    assert len(GameState(Params(), board).legal_moves()) == 12


def test_hexes_around_an_open_bay_are_outer_border() -> None:
    # The radius-2 hexagon with (2,2), (2,3) and (2,4) missing: a bay open to
    # the outside through (2,4), not a hole.  The inner hexes (2,1), (3,1),
    # (1,2), (3,2) and (1,3) touch only the bay and pasture, and they are
    # outer border: all 16 hexes take a herd, even without the option.
    state = parse_position("_2.3/_.4/.2_.2/.2_./.2 herds a players=2")
    assert state.board.holes == frozenset()
    assert len(state.legal_moves()) == 16
    assert state.why_illegal(parse_move("2,1")) is None


def test_herd_phase_turn_order_three_players() -> None:
    board = parse_position(".8 herds a players=3").board
    state = GameState(Params(players=3, sheep=4), board)
    assert state.phase is Phase.HERDS and state.to_move == 0
    play(state, "0,0")
    assert state.to_move == 1
    play(state, "7,0")
    assert state.to_move == 2
    assert "taken" in reason(state, "0,0")
    play(state, "3,0")
    assert state.phase is Phase.MOVES and state.to_move == 0
    assert state.stacks() == {(0, 0): (0, 4), (7, 0): (1, 4), (3, 0): (2, 4)}
    assert "moves phase" in reason(state, "4,0")
    assert "moves phase" in reason(state, "4,0A")


def test_herd_phase_skips_to_moves_when_first_player_cannot_move() -> None:
    # a's herd of 2 on a 3-hex strip end; b's herd next to it.  a is walled in,
    # so the moving phase starts with b.
    state = GameState(Params(sheep=2), Board([(0, 0), (1, 0), (2, 0)]))
    play(state, "0,0")
    play(state, "1,0")
    assert state.phase is Phase.MOVES
    assert state.to_move == 1
    assert state.out[0]


# --- forfeits ----------------------------------------------------------------------


def test_forfeited_player_makes_no_more_moves_and_turn_passes() -> None:
    state = parse_position("a4.../b4.../c4... moves b players=3")
    state.forfeit(1)
    assert state.forfeited[1]
    assert state.to_move == 2
    assert not state.in_play(1)
    seen = []
    while not state.is_over:
        seen.append(state.to_move)
        state.apply(state.legal_moves()[0])
    assert 1 not in seen
    assert seen[:4] == [2, 0, 2, 0]
    # b never moved: still one stack of 4.
    assert [h for h, (p, _) in state.stacks().items() if p == 1] == [(0, 1)]


def test_forfeit_of_a_player_not_to_move() -> None:
    state = parse_position("a4.../b4.../c4... moves a players=3")
    state.forfeit(1)
    assert state.to_move == 0
    state.apply(state.legal_moves()[0])
    assert state.to_move == 2
    assert "player b" in reason(state, "0,1E1")


def test_forfeit_ends_the_game_when_no_one_else_can_move() -> None:
    state = parse_position("a3..b1 moves a players=2")
    state.forfeit(0)
    assert state.is_over
    assert state.ranking() == [2, 1]


def test_forfeit_during_herds_skips_the_player() -> None:
    board = parse_position(".8 herds a players=3").board
    state = GameState(Params(players=3, sheep=4), board)
    state.forfeit(1)
    play(state, "0,0")
    assert state.to_move == 2
    play(state, "7,0")
    assert state.phase is Phase.MOVES
    assert state.sheep_of(1) == 0
    assert state.to_move == 0


def test_forfeit_during_building_skips_the_player() -> None:
    state = GameState(Params(players=2, tiles=2))
    play(state, "0,0A")
    state.forfeit(1)
    assert state.to_move == 0
    play(state, "2,0A")
    assert state.phase is Phase.HERDS  # b's tiles are never laid
    assert state.board.size == 8
    assert set(state.board.coords) == set(tile_hexes(0, 0, "A")) | set(tile_hexes(2, 0, "A"))
    play(state, "0,0")
    assert state.phase is Phase.MOVES and state.to_move == 0
