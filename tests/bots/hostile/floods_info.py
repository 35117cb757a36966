#!/usr/bin/env python3
"""Attack: flood the referee with ``info`` lines, in and out of turn, to slow every bot.

At startup it starts a thread that writes info lines (whole lines, 4 KB a write) to
its stdout as fast as it can, for ever; it plays random legal moves meanwhile.  The
referee parses each line it reads, while the other bots wait for it."""

import os
import threading

from _common import play

LINE = b"info depth 1 score 0 nodes " + b"9" * 100 + b"\n"
CHUNK = LINE * (4096 // len(LINE))


def flood() -> None:
    while True:
        try:
            os.write(1, CHUNK)
        except OSError:
            return


def attack() -> None:
    threading.Thread(target=flood, daemon=True).start()


play("floods-info", attack)
