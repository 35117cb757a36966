#!/usr/bin/env python3
"""Plays randomly and correctly, but does not exit after ``end`` (nor when its input
closes): it ignores SIGTERM and sleeps until it is killed."""

import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("ignores-end", choose)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(300)
