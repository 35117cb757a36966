"""The operations a search uses: legal_moves(), apply(), undo() and copy().

A plain reference model written from RULES.md (dicts of stacks, no tables, no
memo) plays the same random games as the engine and must agree move for
move; undo() must give back the exact position, and a copy must share nothing
that changes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import RulesError
from arena.rules import (
    Board,
    Direction,
    GameState,
    Move,
    Params,
    Phase,
    SheepMove,
    format_position,
    parse_move,
    parse_position,
    random_board,
    random_playout,
)
from tests.support.rules_helpers import VECTORS, play

SETTINGS = settings(max_examples=25, deadline=None)
Hex = tuple[int, int]


@dataclass
class Reference:
    """The moving phase straight from the rule book, as slowly as it reads."""

    pasture: set[Hex]
    stacks: dict[Hex, tuple[int, int]]  # hex -> (player, sheep)
    players: int
    to_move: int
    stuck: set[int] = field(default_factory=set)
    over: bool = False

    def slide_end(self, q: int, r: int, name: str) -> Hex:
        dq, dr = VECTORS[name]
        while (q + dq, r + dr) in self.pasture and (q + dq, r + dr) not in self.stacks:
            q, r = q + dq, r + dr
        return q, r

    def moves_of(self, player: int) -> set[tuple[int, int, str, int]]:
        out = set()
        for (q, r), (owner, sheep) in self.stacks.items():
            if owner == player and sheep >= 2:
                for name in VECTORS:
                    if self.slide_end(q, r, name) != (q, r):
                        out.update((q, r, name, k) for k in range(1, sheep))
        return out

    def legal_moves(self) -> set[tuple[int, int, str, int]]:
        return set() if self.over else self.moves_of(self.to_move)

    def apply(self, q: int, r: int, name: str, k: int) -> None:
        assert (q, r, name, k) in self.legal_moves()
        owner, sheep = self.stacks[(q, r)]
        self.stacks[(q, r)] = (owner, sheep - k)
        self.stacks[self.slide_end(q, r, name)] = (owner, k)
        # Seat order; a player with no move is out for good; nobody left: over.
        for step in range(1, self.players + 1):
            seat = (self.to_move + step) % self.players
            if seat not in self.stuck and self.moves_of(seat):
                self.to_move = seat
                return
            self.stuck.add(seat)
        self.over = True


def key(move: Move) -> tuple[int, int, str, int]:
    assert isinstance(move, SheepMove)
    return (move.q, move.r, move.direction.name, move.count)


def snapshot(state: GameState) -> tuple[object, ...]:
    """Everything a position is made of, in comparable form (list order included)."""
    return (
        state.params,
        state.board,
        state.board.coords,
        state.phase,
        state.to_move,
        state.owner[:],
        state.height[:],
        [m[:] for m in state.movable],
        state.hexcount[:],
        state.forfeited[:],
        state.out[:],
        state.tiles_left[:],
        format_position(state),
    )


def start(seed: int, players: int, sheep: int) -> GameState:
    """A random board, herds placed at random: the moving phase starts."""
    rng = random.Random(seed)
    state = GameState(Params(players=players, sheep=sheep), random_board(seed % 32, 4 * players))
    while state.phase is Phase.HERDS:
        state.apply(rng.choice(state.legal_moves()))
    return state


@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 4),
    sheep=st.sampled_from([2, 3, 8, 16]),
)
def test_random_playout_through_the_api_agrees_with_the_reference_move_for_move(
    seed: int, players: int, sheep: int
) -> None:
    state = start(seed, players, sheep)
    rng = random.Random(seed)
    ref = Reference(set(state.board.coords), state.stacks(), players, state.to_move)
    ref.stuck = {p for p in range(players) if state.out[p]}
    ref.over = state.is_over
    plies = 0
    while not state.is_over:
        moves = state.legal_moves()
        assert {key(m) for m in moves} == ref.legal_moves()
        # The order is fixed (a seeded bot that picks by index replays): by
        # stack in the mover's list, then direction, then count.
        coords = state.board.coords
        assert moves == [
            SheepMove(*coords[src], Direction(d), k)
            for src, d, _ in state.slides(state.to_move)
            for k in range(1, state.height[src])
        ]
        assert len(moves) == len(set(moves)) == state.count_moves()
        move = moves[rng.randrange(len(moves))]
        state.apply(move)
        ref.apply(*key(move))
        plies += 1
        assert state.stacks() == ref.stacks
        assert state.is_over == ref.over
        if not state.is_over:
            assert state.to_move == ref.to_move
    assert ref.over and ref.legal_moves() == set() and state.legal_moves() == []
    assert plies <= players * (sheep - 1)


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), build=st.booleans())
def test_undo_restores_the_exact_position_after_every_kind_of_move(
    seed: int, players: int, build: bool
) -> None:
    rng = random.Random(seed)
    if build:
        state = GameState(Params(players=players, sheep=5, tiles=1 + seed % 2))
    else:
        state = GameState(Params(players=players, sheep=5), random_board(seed % 32, 4 * players))
    trail = [snapshot(state)]
    while not state.is_over:
        moves = state.legal_moves()
        # Every legal move here, applied and taken back, leaves no trace.
        for move in rng.sample(moves, min(6, len(moves))):
            state.apply(move)
            state.undo()
            assert snapshot(state) == trail[-1], move
        state.apply(rng.choice(moves))
        trail.append(snapshot(state))
    assert state.undoable == len(trail) - 1
    # Then all the way back to the start, one position at a time.
    while trail:
        assert snapshot(state) == trail.pop()
        if trail:
            state.undo()
    assert state.undoable == 0
    with pytest.raises(RulesError, match="nothing to undo"):
        state.undo()


def test_undo_takes_back_a_move_that_ends_the_game_and_marks_players_out() -> None:
    state = parse_position("a4...b3 moves a players=2")
    before = snapshot(state)
    play(state, "0,0E3")  # b is walled in: out; a moves on
    assert state.out[1] and not state.is_over
    state.undo()
    assert snapshot(state) == before and not state.out[1]
    for token in ("0,0E1", "0,0E1", "0,0E1"):
        play(state, token)
    assert state.is_over
    for _ in range(3):
        state.undo()
    assert snapshot(state) == before


def test_undo_takes_back_a_forfeit() -> None:
    state = parse_position("a4...b3 moves a players=2")
    before = snapshot(state)
    state.forfeit(0)
    assert state.to_move == 1 and state.forfeited[0]
    state.undo()
    assert snapshot(state) == before


def test_last_slide_names_the_two_hexes_a_sheep_move_changed() -> None:
    state = GameState(Params(), random_board(3, 8))
    assert state.last_slide() is None  # nothing applied yet
    rng = random.Random(3)
    while not state.is_over:
        before = (state.owner[:], state.height[:])
        move = rng.choice(state.legal_moves())
        state.apply(move)
        changed = {i for i, pair in enumerate(zip(state.owner, state.height, strict=True)) if pair != (before[0][i], before[1][i])}
        if isinstance(move, SheepMove):
            src, dest = state.last_slide()  # type: ignore[misc]
            assert changed == {src, dest} and state.board.coords[src] == move.source
        else:
            assert state.last_slide() is None  # a herd placement
    state.undo()  # the last is taken back: the one before it, a move after the two herds
    assert (state.last_slide() is not None) == (state.undoable > 2)
    state.forfeit(state.to_move)
    assert state.last_slide() is None


def test_a_position_from_parts_has_nothing_to_undo() -> None:
    state = parse_position("a4...b3 moves a players=2")
    assert state.undoable == 0
    with pytest.raises(RulesError, match="nothing to undo"):
        state.undo()


def test_an_illegal_move_changes_nothing_and_records_nothing() -> None:
    state = parse_position("a4...b3 moves a players=2")
    before = snapshot(state)
    for token in ("0,0E4", "0,0W1", "4,0W1", "1,0E1", "0,0E0", "0,0"):
        with pytest.raises(RulesError):
            play(state, token)
        assert snapshot(state) == before and state.undoable == 0


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_a_copy_is_independent_both_ways(seed: int, players: int) -> None:
    rng = random.Random(seed)
    state = start(seed, players, 6)
    for _ in range(rng.randrange(4)):
        if not state.is_over:
            state.apply(rng.choice(state.legal_moves()))
    original = snapshot(state)
    done = state.undoable
    twin = state.copy()
    assert snapshot(twin) == original and twin.undoable == done
    # Play the copy to the end, undo part of it: the original does not move.
    random_playout(twin, rng)
    assert snapshot(state) == original
    twin = state.copy()
    while not twin.is_over:
        twin.apply(rng.choice(twin.legal_moves()))
    while twin.undoable > done:
        twin.undo()
    assert snapshot(twin) == original and snapshot(state) == original
    # And the other way round: the original moves and undoes, the copy keeps still.
    if done:
        state.undo()
        assert snapshot(twin) == original
    if not state.is_over:
        state.apply(rng.choice(state.legal_moves()))
        assert snapshot(twin) == original


def test_random_playout_cannot_be_undone_in_part() -> None:
    state = parse_position("a4...b3 moves a players=2")
    play(state, "0,0E1")
    random_playout(state, random.Random(1))
    assert state.is_over and state.undoable == 0


def test_clear_history_keeps_the_position_and_forgets_the_moves() -> None:
    state = parse_position("a4...b3 moves a players=2")
    play(state, "0,0E1")
    before = format_position(state)
    state.clear_history()
    assert format_position(state) == before and state.undoable == 0 and state.last_slide() is None
    with pytest.raises(RulesError):
        state.undo()


def test_legal_moves_are_shared_values_equal_to_fresh_ones() -> None:
    board = random_board(3, 8)
    state = GameState(Params(), board)
    play(state, str(state.legal_moves()[0]))
    play(state, str(state.legal_moves()[-1]))
    first = state.legal_moves()
    again = state.legal_moves()
    assert first == again and all(a is b for a, b in zip(first, again, strict=True))
    assert first == [parse_move(str(m)) for m in first]
    # The same moves from a rebuilt board (and a fresh memo) are equal values.
    rebuilt = parse_position(format_position(state))
    assert rebuilt.board is not board and rebuilt.legal_moves() == first


def test_sheep_moves_memo_grows_when_a_taller_stack_asks() -> None:
    board = Board([(0, 0), (1, 0), (2, 0)])
    ray = 0 * 6 + Direction.E
    assert [m.count for m in board.sheep_moves(ray, 2)] == [1, 2]
    assert [m.count for m in board.sheep_moves(ray, 5)] == [1, 2, 3, 4, 5]
    assert [m.count for m in board.sheep_moves(ray, 3)] == [1, 2, 3]
    assert all(m.source == (0, 0) and m.direction is Direction.E for m in board.sheep_moves(ray, 5))
