"""Games against scripted bots (tests/support/fakebot.py): the seats' specs and one game."""

from __future__ import annotations

from dataclasses import replace

from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.rules import Params, random_board

# The seats' private seeds (and so a random bot's moves) come from a game's seed secret:
# drawn afresh, a test would play a different game on every run and a failure would not
# come back.  Tests that play real games give this one.
FIXED_SECRET = "7e57" * 8


def specs(n: int) -> list[BotSpec]:
    return [BotSpec(name=f"bot{i}", command=("fake", str(i))) for i in range(n)]


def run(channels: list, setup: GameSetup | None = None) -> GameRecord:  # type: ignore[type-arg]
    setup = setup or GameSetup(board=random_board(5, 4 * len(channels)), params=Params(players=len(channels)))
    if setup.seed_secret is None:
        setup = replace(setup, seed_secret=FIXED_SECRET)
    return Referee(setup, specs(len(channels)), channels).run()
