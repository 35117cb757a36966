"""The referee against scripted bots: every message exchange, no processes.

The cases that start processes; the others are in tests/unit/game/test_referee_fake.py.
"""

from __future__ import annotations

import time

from arena.game.clock import TimeControl
from arena.game.record import FaultKind
from arena.game.referee import GameSetup, Referee
from arena.rules import random_board
from tests.support.fakebot import ScriptedChannel, engine_bot
from tests.support.referee_helpers import FIXED_SECRET, run, specs


def test_startup_timeout_is_a_startup_failure() -> None:
    slow = ScriptedChannel(lambda line: ("hello 1 slow", 99.0))
    tc = TimeControl(startup_ms=200)
    record = run([slow, engine_bot()], GameSetup(board=random_board(5, 8), time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_FAILURE



def test_the_arenas_set_up_of_the_other_seats_is_not_charged_to_a_bots_startup() -> None:
    """As a plain user, the arena's own set-up of a seat (its sandbox, cgroups, a user
    namespace's bounds) took up to 10 s: counted from the game's start, it used up the
    allowance of the seats started after it, which forfeited for the arena's delay."""
    tc = TimeControl(startup_ms=300, margin_ms=50)
    game_began = time.monotonic() - 2.0  # the arena took 2 s to set the seats up
    bots = [engine_bot(), engine_bot()]
    for bot in bots:
        bot.seated_at = time.monotonic()  # each started just now, after that set-up
        answer = bot.answer
        bot.answer = lambda line, answer=answer: (answer(line), 0.1) if line.startswith("hello") else answer(line)
    setup = GameSetup(board=random_board(5, 8), time_control=tc, seed_secret=FIXED_SECRET)
    record = Referee(setup, specs(2), bots).run(game_began)
    assert [s.fault for s in record.seats] == [None, None]


# -- answers read before (the referee keeps each well-formed answer line it has read) ------------


