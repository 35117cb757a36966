#!/usr/bin/env python3
"""Plays randomly, then answers its first ``move`` request with bytes that are not ASCII.

First argument ``latin`` (default): ``move \\xff\\xfe`` (not even UTF-8).
``utf8``: ``move 0,0E\\u00e9`` encoded as UTF-8.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

LINES = {"latin": b"move \xff\xfe\n", "utf8": "move 0,0E\u00e9\n".encode()}
RAW = LINES[sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in LINES else "latin"]


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        turn.out.flush()
        sys.stdout.buffer.write(RAW)
        sys.stdout.buffer.flush()
        time.sleep(300)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("non-ascii", choose)
