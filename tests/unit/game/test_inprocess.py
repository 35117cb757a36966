"""A built-in bot played in the referee's process: the moves its process would play, no process."""

from __future__ import annotations

import pytest

from arena import builtin_bots
from arena.errors import ConfigError
from arena.game.bothost import BotHost, BotSpec
from arena.game.inprocess import InProcessChannel
from arena.game.record import FaultKind
from arena.game.referee import GameSetup, Referee
from arena.rules import Params
from tests.support.fakebot import engine_bot

SETUP = GameSetup(game_id="g", seed=7, params=Params(players=2), seed_secret="0" * 32, keep_transcript=True)
SPECS = [
    BotSpec("random", builtin_bots.command_of("random"), in_process=True),
    BotSpec("other", ("fake",)),
]


def test_the_in_process_random_bot_plays_the_moves_of_its_kit_session() -> None:
    # engine_bot is the kit's session answering through a scripted channel, choosing as
    # arena:random does: the process `arena play arena:random` starts plays these moves too.
    inside = Referee(SETUP, SPECS, [InProcessChannel("random", True), engine_bot("other")]).run()
    kit = Referee(SETUP, SPECS, [engine_bot("builtin-random"), engine_bot("other")]).run()
    assert inside.moves and [m.move for m in inside.moves] == [m.move for m in kit.moves]
    seat = inside.seats[0]
    assert seat.ready and seat.fault is None and seat.reported_name == "builtin-random"
    assert seat.exited_cleanly and seat.transcript[0] == "ref> hello 1"


def test_the_in_process_forfeiter_is_forfeited_for_its_illegal_move() -> None:
    specs = [BotSpec("forfeit", builtin_bots.command_of("forfeit"), in_process=True), SPECS[1]]
    record = Referee(SETUP, specs, [InProcessChannel("forfeit"), engine_bot("other")]).run()
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_MOVE
    assert record.seats[1].fault is None


def test_the_host_seats_an_in_process_bot_without_starting_a_process() -> None:
    with BotHost() as host:
        channels = host.seat(SPECS[:1])
        assert isinstance(channels[0], InProcessChannel) and host.started == 0
        host.release()


def test_only_a_built_in_bot_may_play_in_the_referees_process() -> None:
    with pytest.raises(ConfigError, match="only a built-in bot plays in the referee's process"):
        BotSpec("mine", ("python3", "bot.py"), in_process=True)
