#!/usr/bin/env python3
"""Attack: compute while the other bots are on move, to slow their answers.

At startup it starts a child that spins for ever (it would think ahead on the others'
time; hostile, it just takes the machine's CPU), then plays random legal moves.  The
referee freezes every bot that is not on move, so the child runs only on this bot's
own time."""

import subprocess
import sys

from _common import MARKER, play


def attack() -> None:
    subprocess.Popen([sys.executable, "-X", f"bsa_marker={MARKER}-spin", "-c", "while True: pass"])


play("thinks-on-others-time", attack)
