"""Game settings that fail or stall the first time each game is set up (for executor tests).

Lives in its own module so spawned worker processes can import it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from arena.game.referee import GameSetup
from arena.league.executor import GameSettings
from arena.league.schedule import ScheduledGame


@dataclass(frozen=True)
class FlakySettings(GameSettings):
    flag_dir: str = ""
    mode: str = "raise"  # "raise": an exception in the worker; "die": the worker process dies

    def setup(self, game: ScheduledGame) -> GameSetup:
        flag = Path(self.flag_dir) / game.game_id
        if not flag.exists():
            flag.touch()
            if self.mode == "raise":
                raise RuntimeError("injected arena failure")
            os._exit(3)
        return super().setup(game)


@dataclass(frozen=True)
class LingerOnceSettings(GameSettings):
    """The first time each game is played, the bots get ``linger_s`` instead of the usual
    grace to exit after the end: with a bot that ignores ``end``, that game stays in
    progress that long (a window to act on its worker), and a rerun is quick."""

    flag_dir: str = ""
    linger_s: float = 30.0

    def setup(self, game: ScheduledGame) -> GameSetup:
        setup = super().setup(game)
        flag = Path(self.flag_dir) / game.game_id
        if flag.exists():
            return setup
        flag.touch()
        return replace(setup, end_grace_s=self.linger_s)
