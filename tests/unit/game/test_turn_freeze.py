"""Only the bot on move runs: the referee pauses every other bot from the first turn request
to the end of the game (issue 30, item 18), and every bot runs again to hear ``end``."""

from __future__ import annotations

import pytest

from arena.botkit import Turn
from arena.game.record import BotFault, FaultKind
from arena.game.referee import GameSetup
from arena.rules import Move, Params, random_board
from tests.support.fakebot import ScriptedChannel, engine_bot
from tests.support.referee_helpers import run


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_bot_but_the_one_on_move_is_paused_at_each_request(players: int) -> None:
    bots: list[ScriptedChannel] = []
    seen: list[tuple[int, list[bool]]] = []

    def watching(i: int) -> ScriptedChannel:
        def choose(turn: Turn) -> Move:
            seen.append((i, [b.paused for b in bots]))
            return turn.rng.choice(turn.state.legal_moves())

        return engine_bot(f"b{i}", choose)

    bots.extend(watching(i) for i in range(players))
    setup = GameSetup(board=random_board(5, 4 * players), params=Params(players=players))
    record = run(bots, setup)
    assert seen and len(seen) == len(record.moves)
    for on_move, paused in seen:
        assert paused == [i != on_move for i in range(players)], (on_move, paused)
    assert all(b.goodbye is not None and not b.paused for b in bots)  # all ran again for "end"


def test_a_forfeited_bot_is_resumed_before_it_is_stopped_and_the_others_play_on() -> None:
    def broken(line: str) -> str | BotFault:
        if line.startswith("hello"):
            return "hello 1 broken"
        if line.startswith("game"):
            return "ready"
        return BotFault(FaultKind.CRASH, "gone")

    bad = ScriptedChannel(broken)
    good = [engine_bot("a"), engine_bot("b")]
    record = run([bad, *good], GameSetup(board=random_board(5, 12), params=Params(players=3)))
    assert record.seats[0].fault is not None and record.seats[0].fault.kind is FaultKind.CRASH
    assert [s.fault for s in record.seats[1:]] == [None, None]
    assert bad.stopped and not bad.paused
