"""The conformance verdict read from game records, with scripted bots (no processes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from arena.botkit import Turn
from arena.check import CheckOptions, conformance_plan, judge_conformance, phase_at
from arena.check.plan import PlannedGame, Purpose
from arena.check.results import CheckStatus
from arena.game.clock import TimeControl
from arena.game.record import FaultKind
from arena.game.referee import BotSpec, Referee
from arena.rules import Move, Params, Phase, parse_move
from tests.support.fakebot import Answer, ScriptedChannel, engine_bot


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


# -- the check's verdict on a broken candidate, every game of its plan played with fakes --------
# (The broken bots whose fault is what their process does, exiting, hanging, flooding, leaving
# children, run for real in tests/system/check/test_check.py; one of these, illegal_move.py,
# does too, with the reports a real check writes.)


def foreign_stack(turn: Turn) -> Move:
    """Random herds, then 1 sheep east off the opponent's stack (as ``illegal_move.py foreign``)."""
    if turn.request.phase == "move":
        q, r, _, _ = next(s for s in turn.request.stacks if s[2] != turn.seat)
        return parse_move(f"{q},{r}E1")
    return turn.rng.choice(turn.state.legal_moves())


def answering_first_move_with(raw: str) -> ScriptedChannel:
    """Random legal moves, then ``raw`` for its first sheep move (as ``answers_garbage.py``)."""
    kit = engine_bot("candidate").answer

    def answer(line: str) -> Answer:
        reply = kit(line)
        assert isinstance(reply, str)
        return raw if reply.startswith("move ") else reply

    return ScriptedChannel(answer)


def judged(candidate: Callable[[], ScriptedChannel]) -> tuple[dict[str, CheckStatus], str | None]:
    """Every status of a whole check whose candidate is ``candidate()``, and its first failure."""
    options = CheckOptions(command=("x",), cwd=Path("."), conformance_games=23)
    plan = conformance_plan(options)
    records = []
    for game in plan:
        seat_secret = replace(game, seed_secret="5" * 32)  # the same games on every run
        bots = [candidate() if i == game.seat else engine_bot(f"bot{i}") for i in range(game.players)]
        records.append(Referee(seat_secret.setup(TimeControl(), 0.0), list(game.specs), bots).run())
    results, failure = judge_conformance(plan, records, options)
    return {r.name: r.status for r in results}, failure.check if failure else None


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (lambda: answering_first_move_with("move banana"), "protocol"),  # answers_garbage.py
        (lambda: answering_first_move_with("tile 0,0A"), "protocol"),  # wrong_phase_word.py
        (lambda: engine_bot("candidate", foreign_stack), "legal-moves"),  # illegal_move.py foreign
        (lambda: engine_bot("candidate", whole_stack), "legal-moves"),  # illegal_move.py whole
    ],
    ids=["garbage", "wrong-phase-word", "illegal-foreign", "illegal-whole"],
)
def test_each_broken_answer_fails_the_right_check(candidate: Callable[[], ScriptedChannel], expected: str) -> None:
    status, first = judged(candidate)
    assert first == expected and status[expected] is CheckStatus.FAIL, status
    assert status["handshake"] is CheckStatus.PASS and status["legal-tiles"] is CheckStatus.PASS, status


def test_a_sound_candidate_fails_no_check_against_fakes() -> None:
    # (The pin of the test above: the same plan with a sound fake fails nothing.)
    status, first = judged(lambda: engine_bot("candidate"))
    assert first is None and CheckStatus.FAIL not in status.values(), status
