#!/usr/bin/env python3
"""Attack: leave processes that outlive the game, by every trick that hides one.

At startup it starts three, each with its stdio on /dev/null (as a daemon does):

- ``dfork``: a double fork, ``setsid``, then ``exec sleep`` with an empty environment;
- ``pgid``: a fork that moves to a process group of its own (``setpgid``), then
  ``exec sleep`` with an empty environment;
- ``hopper``: a process that changes its pid every 50 ms (fork, the parent exits),
  after leaving the session; it gives up after a minute.

Each sleep's argv[0] is the test's marker plus its name; the hopper keeps the
bot's command line (and the marker).  It reports their first pids, then plays.
"""

import os
import shutil
import time

from _common import MARKER, play, report

SLEEP = shutil.which("sleep") or "/bin/sleep"


def detach_stdio() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)


def sleeper(name: str) -> None:
    os.execve(SLEEP, [f"{MARKER}-{name}", "60"], {})


def start(name: str) -> int:
    """Fork a child that runs the ``name`` trick; return its pid (a double fork's first)."""
    pid = os.fork()
    if pid:
        return pid
    try:
        detach_stdio()
        if name == "dfork":
            if os.fork():
                os._exit(0)
            os.setsid()
            sleeper(name)
        elif name == "pgid":
            os.setpgid(0, 0)
            sleeper(name)
        else:
            os.setsid()
            end = time.monotonic() + 60
            while time.monotonic() < end:
                time.sleep(0.05)  # (a hop the test's scans of /proc can see on a loaded machine)
                if os.fork():
                    os._exit(0)
    finally:
        os._exit(0)


def attack() -> None:
    pids = {name: start(name) for name in ("dfork", "pgid", "hopper")}
    os.waitpid(pids["dfork"], 0)  # the middle process of the double fork exits at once
    report(attack="escape", me=os.getpid(), pids=pids)


if __name__ == "__main__":
    play("escapes-cleanup", attack)
