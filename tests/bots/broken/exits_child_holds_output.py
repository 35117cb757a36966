#!/usr/bin/env python3
"""Plays randomly, then on its second ``move`` request starts a child that keeps the
bot's output open (``sleep 30``) and exits with status 3 without answering.

The bot's output never reaches end-of-file: the referee must still see the exit
(a crash), not wait for the clock to run out (a timeout).
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

move_requests = 0


def choose(turn: Turn) -> Move:
    global move_requests
    if turn.request.phase == "move":
        move_requests += 1
        if move_requests == 2:
            subprocess.Popen(["sleep", "30"])  # inherits stdout and keeps it open
            sys.exit(3)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("exits-child-holds-output", choose)
