#!/usr/bin/env python3
"""Writes hundreds of MB to stderr (300 MiB in 1 MiB chunks by default) before answering
``hello``, then plays randomly and correctly.

Not a fault: stderr is the bot's to use.  The first argument is the size in MiB.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 300


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    chunk = b"E" * 1023 + b"\n"
    chunk *= 1024
    for _ in range(MIB):
        os.write(2, chunk)
    os.write(2, b"stderr flood done\n")
    run_bot("floods-stderr", choose)
