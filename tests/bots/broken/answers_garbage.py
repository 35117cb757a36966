#!/usr/bin/env python3
"""Plays randomly, then answers its first ``move`` request with garbage.

The garbage line is the first argument (default ``move banana``); then the bot
sleeps until it is killed.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

GARBAGE = sys.argv[1] if len(sys.argv) > 1 else "move banana"


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        turn.out.write(GARBAGE + "\n")
        turn.out.flush()
        time.sleep(300)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("answers-garbage", choose)
