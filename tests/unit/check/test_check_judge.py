"""The conformance verdict read from game records, with scripted bots (no processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.botkit import Turn
from arena.check import CheckOptions, judge_conformance, phase_at
from arena.check.plan import PlannedGame, Purpose
from arena.check.results import CheckStatus
from arena.game.clock import TimeControl
from arena.game.record import FaultKind
from arena.game.referee import BotSpec, Referee
from arena.rules import Move, Params, Phase, parse_move
from tests.support.fakebot import engine_bot


def whole_stack(turn: Turn) -> Move:
    """Random herds, then a sheep move of a whole stack of its own: well formed, illegal
    (as ``tests/bots/broken/illegal_move.py whole``)."""
    if turn.request.phase == "move":
        q, r, _, n = max((s for s in turn.request.stacks if s[2] == turn.seat), key=lambda s: s[3])
        return parse_move(f"{q},{r}E{n}")
    return turn.rng.choice(turn.state.legal_moves())


# (players, seed, seed secret): the 2-player game is one `arena check` played under
# pytest -n 2 (the suite's test of illegal_move.py whole failed on it): the opponent's
# first sheep move walls it in, so once the candidate forfeits nobody can move.
GAMES = [
    (2, 411297763545244879, "e635f7e7177b648e2d06c70ecfefa73f"),
    (2, 7, "0" * 32),
    (3, 7, "0" * 32),
    (4, 7, "0" * 32),
]


@pytest.mark.parametrize(("players", "seed", "secret"), GAMES, ids=["2p-walled-in", "2p", "3p", "4p"])
def test_an_illegal_first_sheep_move_fails_legal_moves(players: int, seed: int, secret: str) -> None:
    seat = players - 1  # the candidate; the others play random legal moves, as arena:random does
    specs = tuple(BotSpec(name=f"bot{i}", command=("fake", str(i))) for i in range(players))
    game = PlannedGame(
        Purpose.CONFORMANCE, players, seat, False, seed, specs, Params(players=players), secret
    )
    bots = [engine_bot(f"bot{i}", whole_stack if i == seat else None) for i in range(players)]
    record = Referee(game.setup(TimeControl(), 0.0), list(specs), bots).run()
    fault = record.seats[seat].fault
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_MOVE, fault
    assert phase_at(record, fault.ply, seat) is Phase.MOVES
    results, failure = judge_conformance([game], [record], CheckOptions(command=("x",), cwd=Path(".")))
    status = {r.name: r.status for r in results}
    assert status["legal-moves"] is CheckStatus.FAIL and status["legal-herds"] is CheckStatus.PASS, status
    assert failure is not None and failure.check == "legal-moves", failure


def test_the_walled_in_game_is_over_at_the_forfeit_in_the_records_own_positions() -> None:
    # What made legal-moves read the move as made in no phase: the record's position at the
    # forfeit's ply, forfeit applied, is over.  (Pins the game above to the case it is for.)
    players, seed, secret = GAMES[0]
    specs = tuple(BotSpec(name=f"bot{i}", command=("fake", str(i))) for i in range(players))
    game = PlannedGame(Purpose.CONFORMANCE, players, 1, False, seed, specs, Params(players=players), secret)
    record = Referee(
        game.setup(TimeControl(), 0.0), list(specs), [engine_bot("a"), engine_bot("b", whole_stack)]
    ).run()
    fault = record.seats[1].fault
    assert fault is not None and phase_at(record, fault.ply) is Phase.OVER
