"""Properties that hold at every ply of random games.

Each example draws a seed and a player count, starts either on a random
board (herd placement next) or from an empty table (building phase), and
plays uniformly random legal moves with ``random.Random(seed)``.  The checks
lean on small independent re-implementations (slides, directions) written
from RULES.md rather than on the engine's own tables.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import (
    Board,
    Direction,
    GameState,
    HerdPlacement,
    Move,
    Params,
    Phase,
    SheepMove,
    TilePlacement,
    format_board_file,
    format_position,
    parse_move,
    parse_position,
    random_board,
    random_playout,
)
from tests.support.rules_helpers import VECTORS

SETTINGS = settings(max_examples=30, deadline=None)


seeds = st.integers(min_value=0, max_value=2**40)
player_counts = st.integers(min_value=2, max_value=4)
sheep_counts = st.sampled_from([2, 3, 5, 8, 16])


@functools.cache
def board_for(seed: int, players: int) -> Board:
    return random_board(seed, 4 * players)


def new_game(seed: int, players: int, sheep: int, build: bool) -> GameState:
    """A game from the building phase (small: 1-2 tiles each) or on a random board.

    Boards come from a pool of 64 seeds per player count (a full-size board
    takes a while to lay); the moves played on them still follow ``seed``.
    """
    if build:
        return GameState(Params(players=players, sheep=sheep, tiles=1 + seed % 2))
    return GameState(Params(players=players, sheep=sheep), board_for(seed % 64, players))


def plies(state: GameState, rng: random.Random) -> Iterator[Move]:
    """Play random legal moves on ``state`` to the end, yielding each move before it is played."""
    limit = 1000
    while not state.is_over:
        limit -= 1
        assert limit > 0, "game does not end"
        moves = state.legal_moves()
        assert moves, f"the player to move has no move in {format_position(state)}"
        move = rng.choice(moves)
        yield move
        state.apply(move)


def games(test: Callable[[GameState, random.Random], None]) -> Callable[..., None]:
    """Run ``test(state, rng)`` on a random game."""

    @SETTINGS
    @given(seed=seeds, players=player_counts, sheep=sheep_counts, build=st.booleans())
    def run(seed: int, players: int, sheep: int, build: bool) -> None:
        test(new_game(seed, players, sheep, build), random.Random(seed))

    run.__name__ = test.__name__
    run.__doc__ = test.__doc__
    return run


def naive_slide_end(state: GameState, q: int, r: int, direction: Direction) -> tuple[int, int]:
    pasture = set(state.board.coords)
    stacks = state.stacks()
    dq, dr = VECTORS[direction.name]
    x, y = q, r
    while (x + dq, y + dr) in pasture and (x + dq, y + dr) not in stacks:
        x, y = x + dq, y + dr
    return x, y


def naive_sheep_moves(state: GameState) -> set[Move]:
    """The moving phase's legal moves, straight from the rules."""
    out: set[Move] = set()
    for (q, r), (player, height) in state.stacks().items():
        if player != state.to_move or height < 2:
            continue
        for d in Direction:
            if naive_slide_end(state, q, r, d) != (q, r):
                out.update(SheepMove(q, r, d, k) for k in range(1, height))
    return out


def check_bookkeeping(state: GameState) -> None:
    """Owner, height, hex counts and movable lists tell the same story."""
    n = state.players
    size = state.board.size
    assert len(state.owner) == len(state.height) == size
    for i in range(size):
        assert (state.owner[i] >= 0) == (state.height[i] > 0)
        assert -1 <= state.owner[i] < n
    for p in range(n):
        mine = [i for i in range(size) if state.owner[i] == p]
        assert state.hexcount[p] == len(mine)
        assert len(set(state.movable[p])) == len(state.movable[p])
        assert sorted(state.movable[p]) == [i for i in mine if state.height[i] >= 2]
    # One stack per hex: the {hex: stack} view has as many entries as stacks.
    assert len(state.stacks()) == sum(state.hexcount)


# --- the properties -------------------------------------------------------------------


@games
def test_sheep_are_conserved_per_player(state: GameState, rng: random.Random) -> None:
    sheep = state.params.sheep
    herds: set[int] = set()
    for move in plies(state, rng):
        mover = state.to_move
        if isinstance(move, HerdPlacement):
            herds.add(mover)
        check_bookkeeping(state)
    check_bookkeeping(state)
    assert herds == set(range(state.players))
    for p in range(state.players):
        assert state.sheep_of(p) == sheep


@games
def test_each_sheep_move_adds_exactly_one_stack(state: GameState, rng: random.Random) -> None:
    sheep_moves = 0
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        if not isinstance(move, SheepMove):
            state.apply(move)
            continue
        before = state.stacks()
        dest = naive_slide_end(state, move.q, move.r, move.direction)
        state.apply(move)
        check_move_effect(before, state.stacks(), move, dest)
        sheep_moves += 1
    assert sheep_moves > 0 or state.params.sheep == 1
    check_bookkeeping(state)


def check_move_effect(
    before: dict[tuple[int, int], tuple[int, int]],
    after: dict[tuple[int, int], tuple[int, int]],
    move: SheepMove,
    dest: tuple[int, int],
) -> None:
    player, height = before[move.source]
    assert dest not in before  # the sheep land on an empty hex
    assert set(after) == set(before) | {dest}  # exactly one new stack
    assert after[dest] == (player, move.count)
    assert after[move.source] == (player, height - move.count)
    for h, stack in before.items():
        if h != move.source:
            assert after[h] == stack


@games
def test_game_ends_within_players_times_sheep_minus_one_moves(state: GameState, rng: random.Random) -> None:
    sheep_moves = 0
    for move in plies(state, rng):
        if isinstance(move, SheepMove):
            sheep_moves += 1
            assert sheep_moves <= state.players * (state.params.sheep - 1)
    assert state.is_over
    assert sum(state.hexcount) == state.players + sheep_moves


@games
def test_game_over_means_no_one_can_move(state: GameState, rng: random.Random) -> None:
    for _ in plies(state, rng):
        pass
    assert state.legal_moves() == [] and state.count_moves() == 0
    for p in range(state.players):
        assert not state.has_legal_move(p)
        assert not state.in_play(p)
    # By the rules: no stack of two or more has an empty neighbour.
    stacks = state.stacks()
    pasture = set(state.board.coords)
    for (q, r), (_, height) in stacks.items():
        if height >= 2:
            for dq, dr in VECTORS.values():
                assert (q + dq, r + dr) not in pasture or (q + dq, r + dr) in stacks


@games
def test_position_notation_round_trips_at_every_ply(state: GameState, rng: random.Random) -> None:
    def check() -> None:
        text = format_position(state)
        again = parse_position(text)
        assert format_position(again) == text
        assert again.phase is state.phase and again.to_move == state.to_move
        assert again.board == state.board
        assert again.stacks() == state.stacks()
        assert again.legal_moves() == state.legal_moves()
        assert again.ranking() == state.ranking()
        check_bookkeeping(again)

    for _ in plies(state, rng):
        check()
    check()


@games
def test_move_notation_round_trips_for_every_legal_move(state: GameState, rng: random.Random) -> None:
    for _ in plies(state, rng):
        for move in state.legal_moves():
            text = str(move)
            assert " " not in text
            assert parse_move(text) == move


@SETTINGS
@given(
    move=st.one_of(
        st.builds(
            TilePlacement,
            st.integers(-999, 999),
            st.integers(-999, 999),
            st.sampled_from(["A", "B", "C"]),
        ),
        st.builds(HerdPlacement, st.integers(-9999, 9999), st.integers(-9999, 9999)),
        st.builds(
            SheepMove,
            st.integers(-9999, 9999),
            st.integers(-9999, 9999),
            st.sampled_from(list(Direction)),
            st.integers(0, 999),
        ),
    )
)
def test_move_notation_round_trips_for_any_move(move: Move) -> None:
    assert parse_move(str(move)) == move


@SETTINGS
@given(seed=seeds, tiles=st.integers(min_value=1, max_value=16))
def test_same_seed_gives_the_same_board(seed: int, tiles: int) -> None:
    board = random_board(seed, tiles)
    again = random_board(seed, tiles)
    assert again == board and again.coords == board.coords
    assert format_board_file(again) == format_board_file(board)
    # Laid by the rules: tiles never overlap, the pasture is in one piece,
    # and the result is normalized.
    assert board.size == 4 * tiles
    assert min(q for q, _ in board.coords) == 0 and min(r for _, r in board.coords) == 0
    seen = {board.coords[0]}
    todo = [board.coords[0]]
    while todo:
        q, r = todo.pop()
        for dq, dr in VECTORS.values():
            h = (q + dq, r + dr)
            if h in board and h not in seen:
                seen.add(h)
                todo.append(h)
    assert len(seen) == board.size


@SETTINGS
@given(seed=seeds, players=player_counts, sheep=sheep_counts, build=st.booleans(), skip=st.integers(0, 40))
def test_random_playout_agrees_with_the_rules(
    seed: int, players: int, sheep: int, build: bool, skip: int
) -> None:
    state = new_game(seed, players, sheep, build)
    rng = random.Random(seed)
    for _, _move in zip(range(skip), plies(state, rng), strict=False):
        pass
    start_stacks = sum(state.hexcount)
    started_in_moves = state.phase is Phase.MOVES or state.is_over
    n = random_playout(state, random.Random(seed + 1))
    assert state.is_over and state.to_move == -1
    check_bookkeeping(state)
    assert state.legal_moves() == []
    for p in range(players):
        assert not state.has_legal_move(p)
        assert state.sheep_of(p) == sheep
    if started_in_moves:
        assert sum(state.hexcount) - start_stacks == n  # one new stack per ply
        assert n <= players * (sheep - 1)
    again = parse_position(format_position(state))
    assert again.is_over and again.stacks() == state.stacks()


@games
def test_legal_moves_agree_with_why_illegal(state: GameState, rng: random.Random) -> None:
    for _ in plies(state, rng):
        check_legal_moves(state, rng)
    assert state.why_illegal(SheepMove(0, 0, Direction.E, 1)) == "the game is over"


def check_legal_moves(state: GameState, rng: random.Random) -> None:
    legal = state.legal_moves()
    assert len(legal) == len(set(legal))
    assert state.count_moves() == len(legal)
    legal_set = set(legal)
    for move in legal:
        assert state.why_illegal(move) is None
    if state.phase is Phase.MOVES:
        assert legal_set == naive_sheep_moves(state)
        # Every direction and the edge counts from every own stack, and a
        # sample of moves from other hexes (empty, others' stacks, off the pasture).
        for (q, r), (p, height) in state.stacks().items():
            if p != state.to_move:
                continue
            for d in Direction:
                for k in {0, 1, height - 1, height, height + 1}:
                    move = SheepMove(q, r, d, k)
                    assert (state.why_illegal(move) is None) == (move in legal_set), move
        stacks = state.stacks()
        others = [h for h in state.board.coords if stacks.get(h, (-1, 0))[0] != state.to_move]
        off = (min(q for q, _ in state.board.coords) - 5, 0)
        for q, r in [*rng.sample(others, min(5, len(others))), off]:
            move = SheepMove(q, r, rng.choice(list(Direction)), 1)
            assert state.why_illegal(move) is not None
        assert all(state.why_illegal(HerdPlacement(*h)) is not None for h in state.board.coords[:3])
    elif state.phase is Phase.HERDS:
        candidates = [*state.board.coords, (-1, -1), (-1, 0)]
        for q, r in candidates:
            move = HerdPlacement(q, r)
            assert (state.why_illegal(move) is None) == (move in legal_set), move
        assert state.why_illegal(SheepMove(*state.board.coords[0], Direction.E, 1)) is not None
    elif state.phase is Phase.TILES and state.board.size:
        # Every anchor around the pasture, in all three orientations.
        qs = [q for q, _ in state.board.coords]
        rs = [r for _, r in state.board.coords]
        for q in range(min(qs) - 3, max(qs) + 3):
            for r in range(min(rs) - 3, max(rs) + 3):
                for o in "ABC":
                    move = TilePlacement(q, r, o)
                    assert (state.why_illegal(move) is None) == (move in legal_set), move
        assert state.why_illegal(HerdPlacement(*state.board.coords[0])) is not None


@SETTINGS
@given(seed=seeds, players=player_counts, tiles=st.integers(1, 3))
def test_building_phase_lays_every_tile_by_the_rules(seed: int, players: int, tiles: int) -> None:
    state = GameState(Params(players=players, tiles=tiles))
    rng = random.Random(seed)
    turn = 0
    while state.phase is Phase.TILES:
        assert state.to_move == turn % players
        before = set(state.board.coords)
        move = rng.choice(state.legal_moves())
        assert isinstance(move, TilePlacement)
        state.apply(move)
        added = set(state.board.coords) - before
        assert len(added) == 4 and before <= set(state.board.coords)
        if before:
            touching = {
                (q, r) for q, r in added if any((q + dq, r + dr) in before for dq, dr in VECTORS.values())
            }
            assert touching
        turn += 1
    assert turn == players * tiles
    assert state.phase is Phase.HERDS and state.to_move == 0
    assert state.board.size == 4 * players * tiles
