#!/usr/bin/env python3
"""Plays randomly, then answers its first ``move`` request with an endless line.

It writes ``x`` in 64 KiB chunks forever and never a newline.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        turn.out.flush()
        chunk = b"x" * 65536
        while True:
            os.write(1, chunk)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("endless-line", choose)
