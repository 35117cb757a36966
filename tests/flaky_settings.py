"""Game settings that fail the first time each game is set up (for executor tests).

Lives in its own module so spawned worker processes can import it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.executor import GameSettings
from arena.referee import GameSetup
from arena.schedule import ScheduledGame


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
