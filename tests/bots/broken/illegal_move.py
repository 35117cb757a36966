#!/usr/bin/env python3
"""Plays randomly, then answers its first ``move`` request with a well-formed illegal move.

First argument ``foreign`` (default): move 1 sheep east off a stack of the
opponent.  ``whole``: move a whole stack of its own (count = the stack's height).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move, parse_move

MODE = sys.argv[1] if len(sys.argv) > 1 else "foreign"


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        stacks = turn.request.stacks  # (q, r, player, sheep), in board order
        if MODE == "whole":
            q, r, _, n = max((s for s in stacks if s[2] == turn.seat), key=lambda s: s[3])
        else:
            q, r, _, n = next(s for s in stacks if s[2] != turn.seat)
            n = 1
        return parse_move(f"{q},{r}E{n}")
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("illegal-move", choose)
