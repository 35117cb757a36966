#!/usr/bin/env python3
"""Attack: a ``multigame`` bot whose child keeps computing while its bot is in no game.

At startup it starts a child that spins (burning CPU for ever: it would think ahead,
or mine, between games), then plays random legal moves game after game in one
process, as a kept bot does."""

import subprocess
import sys

from _common import MARKER

from arena.botkit import Turn, run_bot
from arena.rules import Move

child = subprocess.Popen([sys.executable, "-X", f"bsa_marker={MARKER}-spin", "-c", "while True: pass"])


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


run_bot("burns-between-games", choose, multigame=True)
