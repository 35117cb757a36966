#!/usr/bin/env python3
"""Plays randomly, then kills itself with a signal on its second ``move`` request.

The signal's name is the first argument (default ``SIGSEGV``; ``SIGKILL`` works too).
"""

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

SIGNAL = signal.Signals[sys.argv[1] if len(sys.argv) > 1 else "SIGSEGV"]
move_requests = 0


def choose(turn: Turn) -> Move:
    global move_requests
    if turn.request.phase == "move":
        move_requests += 1
        if move_requests == 2:
            os.kill(os.getpid(), SIGNAL)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("killed-by-signal", choose)
