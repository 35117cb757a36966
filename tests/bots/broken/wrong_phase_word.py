#!/usr/bin/env python3
"""Plays randomly, then answers its first ``move`` request with ``tile 0,0A``: the wrong phase word."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        turn.out.write("tile 0,0A\n")
        turn.out.flush()
        time.sleep(300)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("wrong-phase-word", choose)
