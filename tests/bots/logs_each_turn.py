#!/usr/bin/env python3
"""Writes to stderr at every turn, then plays a random legal move: for the per-turn logs.

Before its hello it writes ``started``; at each turn, before answering, ``thinking at ply N``,
a line written in two pieces (``in two pieces at N``), and an ``info at N`` line on stdout.
At its first turn of each game it also writes a hostile line (markup, an escape sequence, a bidi override);
with the argument ``flood`` it writes 100 KiB more at its second turn of each game (past a turn's bound).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

FLOOD = "flood" in sys.argv[1:]
HOSTILE = "<b>bold</b><script>window.pwned=1</script> \x1b[2J\x1b]0;title\x07 \u202eevil\n"
turns = 0
game = None


def choose(turn: Turn) -> Move:
    global turns, game
    if turn.game is not game:  # a new game of a kept (multigame) process: count afresh
        game, turns = turn.game, 0
    turns += 1
    ply = turn.request.ply
    if turns == 1:
        os.write(2, HOSTILE.encode())
    os.write(2, f"thinking at ply {ply}\n".encode())
    os.write(2, b"in two ")
    os.write(2, f"pieces at {ply}\n".encode())
    if FLOOD and turns == 2:
        os.write(2, (b"F" * 1023 + b"\n") * 100)
    turn.log(f"info at {ply}")
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    os.write(2, b"started\n")
    run_bot("logs-each-turn", choose)
