#!/usr/bin/env python3
"""Plays randomly and correctly, but after ``end`` it does not exit: it floods stdout
with short lines nobody asked for (``x\\n``, 64 KiB per write) until it is killed."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("floods-unasked-lines", choose)
    chunk = b"x\n" * 32768
    while True:
        os.write(1, chunk)
