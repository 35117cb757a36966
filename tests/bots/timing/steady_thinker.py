#!/usr/bin/env python3
"""A bot whose every answer costs the same CPU work: a fixed count of loop steps (some
tens of milliseconds of one core), then a random legal move.

Its answer times show the CPU it got while on move: with the work fixed, an answer
that takes longer waited for a core that something else held."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

STEPS = 400_000


def choose(turn: Turn) -> Move:
    total = 0
    for i in range(STEPS):
        total += i * i
    return turn.rng.choice(turn.state.legal_moves())


run_bot("steady-thinker", choose, multigame=False)
