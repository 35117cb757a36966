#!/usr/bin/env python3
"""Attack: more memory than the bot is given, spread over several processes.

Arguments: ``CHILDREN MB``.  At startup it forks CHILDREN processes; each fills
MB megabytes (every page touched), holds them a few seconds and exits 0.  The
bot waits up to 5 s for them, kills any still there, reports each child's exit
status, and plays on.
"""

import os
import sys
import time

from _common import play, report

CHILDREN = int(sys.argv[1]) if len(sys.argv) > 1 else 4
MB = int(sys.argv[2]) if len(sys.argv) > 2 else 600


def hog() -> None:
    try:
        data = b"\x01" * (MB * 1024 * 1024)  # filled, so every page is really there
        time.sleep(3)
        os._exit(0 if len(data) else 1)
    except MemoryError:
        os._exit(12)


def attack() -> None:
    kids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:
            hog()
        kids.append(pid)
    statuses: dict[int, str] = {}
    deadline = time.monotonic() + 5
    while len(statuses) < len(kids) and time.monotonic() < deadline:
        for pid in kids:
            if pid in statuses:
                continue
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                statuses[pid] = (
                    f"signal {os.WTERMSIG(status)}"
                    if os.WIFSIGNALED(status)
                    else f"exit {os.WEXITSTATUS(status)}"
                )
        time.sleep(0.02)
    for pid in kids:
        if pid not in statuses:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            statuses[pid] = "still running"
    report(attack="memory", children=[statuses[p] for p in kids])


if __name__ == "__main__":
    play("hogs-memory-tree", attack)
