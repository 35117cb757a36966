#!/usr/bin/env python3
"""Leaves processes behind: at startup it spawns ``sleep 300`` and a forked, orphaned
grandchild that sleeps too, then plays randomly and correctly.

Arguments: ``MODE MARKER``.  ``group`` (the default mode): the children stay in the
bot's process group.  ``setsid``: the grandchild calls ``setsid()`` and detaches like a
daemon.  ``envless``: only the ``sleep``, started with an empty environment.  The ``sleep`` runs with MARKER as its argv[0], so it can be found by name.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

MODE = sys.argv[1] if len(sys.argv) > 1 else "group"
MARKER = sys.argv[2] if len(sys.argv) > 2 else "leaves-children-sleep"


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


def spawn() -> None:
    sleep = shutil.which("sleep") or "/bin/sleep"
    if MODE == "envless":  # no ARENA_BOT_ID to find it by: only its process group gives it away
        subprocess.Popen([MARKER, "300"], executable=sleep, env={}, stdout=subprocess.DEVNULL)
        return
    subprocess.Popen([MARKER, "300"], executable=sleep)  # inherits the bot's pipes
    child = os.fork()
    if child == 0:  # the child forks the grandchild and exits: the grandchild is an orphan
        if os.fork() == 0:
            if MODE == "setsid":
                os.setsid()
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                time.sleep(60)  # a daemon: out of the bot's session and group
            else:
                time.sleep(300)  # keeps the bot's pipes and its command line (with the marker)
            os._exit(0)
        os._exit(0)
    os.waitpid(child, 0)


if __name__ == "__main__":
    spawn()
    run_bot("leaves-children", choose)
