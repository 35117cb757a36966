#!/usr/bin/env python3
"""Lays tiles legally, then answers every ``herd`` request with a line that is no herd at all."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    if turn.request.phase == "herd":
        turn.out.write("herd here please\n")
        turn.out.flush()
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("garbles-herds", choose)
