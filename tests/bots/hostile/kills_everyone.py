#!/usr/bin/env python3
"""Attack: ``kill(-1, SIGKILL)``, every process it may signal.

At its first turn it starts a child (a sleeper with the test's marker), reports,
sends SIGKILL to -1, reports again (if it is still alive) whether its child
died, and plays on.
"""

import os
import signal
import time

from _common import MARKER, outcome, play, report


def attack() -> None:
    child = os.fork()
    if child == 0:
        os.execv("/bin/sleep", [f"{MARKER}-victim", "30"])
    report(attack="kill-all", stage="before", me=os.getpid(), child=child)
    result = outcome(lambda: os.kill(-1, signal.SIGKILL))
    time.sleep(0.1)
    _, status = os.waitpid(child, os.WNOHANG)
    report(attack="kill-all", stage="after", result=result, child_status=status)


if __name__ == "__main__":
    play("kills-everyone", attack, at="turn")
