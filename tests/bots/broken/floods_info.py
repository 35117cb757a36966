#!/usr/bin/env python3
"""Sends hundreds of thousands of ``info`` lines (200000 by default) before answering
``hello``, then plays randomly and correctly.

Not a fault: ``info`` lines may come at any time.  The first argument is the count.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    batch = 10_000
    for start in range(0, COUNT, batch):
        lines = "".join(f"info flood {i}\n" for i in range(start, min(start + batch, COUNT)))
        os.write(1, lines.encode())
    run_bot("floods-info", choose)
