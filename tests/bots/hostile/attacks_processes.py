#!/usr/bin/env python3
"""Attack: find the other processes (the opponent, the arena) and harm them.

At its first turn it lists every process /proc shows and every pid that answers
a signal, and for each one but itself: SIGSTOP, SIGKILL, writes a move into its
stdout through ``/proc/PID/fd/1`` and reads its stdin through ``/proc/PID/fd/0``.
It reports what it found and each outcome, then plays on.
"""

import os

from _common import outcome, play, probe_pids, read, report, visible_pids


def write_into(path: str) -> None:
    with open(path, "w") as f:
        f.write("move 0,0E1\n")


def read_from(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        os.read(fd, 4096)
    finally:
        os.close(fd)


def attack() -> None:
    me = os.getpid()
    pids = visible_pids()
    probed = probe_pids()
    targets = sorted({*pids, *probed} - {me})
    results = {}
    for p in targets:
        results[p] = {
            "cmdline": read(f"/proc/{p}/cmdline"),
            "stdout": outcome(lambda p=p: write_into(f"/proc/{p}/fd/1")),
            "stdin": outcome(lambda p=p: read_from(f"/proc/{p}/fd/0")),
            "sigstop": outcome(lambda p=p: os.kill(p, 19)),
            "sigkill": outcome(lambda p=p: os.kill(p, 9)),
        }
    report(attack="processes", me=me, pids=pids, probed=probed, results=results)


if __name__ == "__main__":
    play("attacks-processes", attack, at="turn")
