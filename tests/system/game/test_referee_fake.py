"""The referee against scripted bots: every message exchange, no processes.

The cases that start processes; the others are in tests/unit/game/test_referee_fake.py.
"""

from __future__ import annotations

from arena.game.clock import TimeControl
from arena.game.record import FaultKind
from arena.game.referee import GameSetup
from arena.rules import random_board
from tests.support.fakebot import ScriptedChannel, engine_bot
from tests.support.referee_helpers import run


def test_startup_timeout_is_a_startup_failure() -> None:
    slow = ScriptedChannel(lambda line: ("hello 1 slow", 99.0))
    tc = TimeControl(startup_ms=200)
    record = run([slow, engine_bot()], GameSetup(board=random_board(5, 8), time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_FAILURE


# -- answers read before (the referee keeps each well-formed answer line it has read) ------------


