#!/usr/bin/env python3
"""Plays randomly, then exits with status 3 on its second ``move`` request, without answering."""

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
            sys.exit(3)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("dies-mid-game", choose)
