#!/usr/bin/env python3
"""Plays randomly, then never answers its first ``move`` request: it sleeps until it is killed."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        time.sleep(300)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("sleeps-on-move", choose)
