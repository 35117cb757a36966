#!/usr/bin/env python3
"""A seeded random bot: plays a uniformly random legal move in every phase.

The smallest useful bot, and the baseline every other bot should beat.  It
draws from ``turn.rng``, which the kit seeds from the game's seed and the
bot's seat, so replaying a game with the same seed replays its moves.

Run it from anywhere; it finds the arena package from its own location.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("random", choose)
