"""The referee's turn requests: TurnWriter writes what the codec writes, ply after ply."""

from __future__ import annotations

import random

import pytest

from arena.protocol import TurnRequest, TurnWriter, format_message, parse_referee_line
from arena.rules import Board, GameState, Params, Phase, random_board

_PHASES = {Phase.TILES: "tile", Phase.HERDS: "herd", Phase.MOVES: "move"}


def reference(st: GameState, moves: list[tuple[int, str]], seen: int, clocks: list[float | None]) -> str:
    """The request the plain way: a TurnRequest from the position, through format_message."""
    board = st.board
    return format_message(
        TurnRequest(
            phase=_PHASES[st.phase],
            time=1000,
            ply=len(moves),
            clocks=tuple(None if c is None else int(c) for c in clocks),  # whole ms, as told
            since=tuple(moves[seen:]),
            board=board.coords,
            stacks=tuple((*board.coords[i], o, st.height[i]) for i, o in enumerate(st.owner) if o >= 0),
            tiles=tuple(st.tiles_left),
            forfeited=tuple(i for i, f in enumerate(st.forfeited) if f),
            daisies=tuple((q, r, d) for (q, r), d in zip(board.coords, board.daisies, strict=True) if d),
        )
    )


@pytest.mark.parametrize(
    ("players", "laid", "seed"),
    [(2, True, 1), (2, False, 2), (3, True, 3), (4, False, 4), (4, True, 5), (3, False, 6)],
)
def test_every_request_of_a_random_game_is_the_codecs(players: int, laid: bool, seed: int) -> None:
    """Whole games, the tile phase (a board that grows) and forfeits included."""
    rng = random.Random(seed)
    params = Params(players=players)
    board = None
    if laid:  # with daisies on some hexes
        base = random_board(seed, 4 * players)
        board = Board({h: rng.choice([0, 0, 1, 3]) for h in base.coords})
    st = GameState(params, board)
    writer = TurnWriter()
    moves: list[tuple[int, str]] = []
    since: list[str] = []
    seen = [0] * players
    clocks: list[float | None] = [rng.choice([None, 5000.0]) for _ in range(players)]
    checked = 0
    while not st.is_over:
        p = st.to_move
        board = st.board
        # The hint as the referee gives it, none, or a wrong one: the line is the same.
        hint = [st.last_slide() or (), (), rng.sample(range(board.size), min(2, board.size))][checked % 3]
        line = writer.line(
            _PHASES[st.phase], 1000, len(moves), clocks, since[seen[p] :], board.coords, board.daisies,
            st.owner, st.height, st.tiles_left, st.forfeited, hint,
        )  # fmt: skip
        assert line == reference(st, moves, seen[p], clocks)
        assert isinstance(parse_referee_line(line), TurnRequest)
        checked += 1
        if rng.random() < 0.03 and st.phase is Phase.MOVES:
            st.forfeit(p)
            continue
        move = rng.choice(st.legal_moves())
        st.apply(move)
        moves.append((p, str(move)))
        since.append(TurnWriter.since_item(p, str(move)))
        seen[p] = len(moves)
        left = clocks[p]
        clocks[p] = None if left is None else left - rng.uniform(0, 100)  # a clock is charged in fractions
    assert checked > 10


def test_a_stack_that_changes_hands_alone_is_written_afresh() -> None:
    """Not a thing a game does, but the writer does not assume it never happens."""
    st = GameState(Params(), random_board(7, 8))
    st.apply(st.legal_moves()[0])
    st.apply(st.legal_moves()[0])
    writer = TurnWriter()
    args = ("move", 1000, 2, [None, None], [], st.board.coords, st.board.daisies)
    first = writer.line(*args, st.owner, st.height, [0, 0], [False, False])
    assert ",a,16" in first and ",b,16" in first
    owner = [1 - o if o >= 0 else o for o in st.owner]  # the same heights, owners swapped
    second = writer.line(*args, owner, st.height, [0, 0], [False, False])
    assert second == first.replace(",a,", ",x,").replace(",b,", ",a,").replace(",x,", ",b,")
