#!/usr/bin/env python3
"""Attack: leave processes that outlive the game, by every trick that hides one.

At startup it starts three, each with its stdio on /dev/null (as a daemon does):

- ``dfork``: a double fork, ``setsid``, then ``exec sleep`` with an empty environment;
- ``pgid``: a fork that moves to a process group of its own (``setpgid``), then
  ``exec sleep`` with an empty environment;
- ``hopper``: a process that changes its pid every 50 ms (fork, the parent exits),
  after leaving the session; it gives up after a minute.  It writes each of its first
  pids to a pipe the bot reads, so the bot can say it hopped (a test's scans of /proc
  may miss a pid that lives 50 ms on a loaded machine).

Each sleep's argv[0] is the test's marker plus its name; the hopper keeps the
bot's command line (and the marker).  It reports their first pids and the hopper's
first pids, then plays.
"""

import os
import select
import shutil
import time

from _common import MARKER, play, report

SLEEP = shutil.which("sleep") or "/bin/sleep"
HOPS_TOLD = 3  # the hopper's first pids it writes to the bot
HOPS_WAIT_S = 20.0  # (the bot's startup allowance in the test is a minute)


def detach_stdio() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)


def sleeper(name: str) -> None:
    os.execve(SLEEP, [f"{MARKER}-{name}", "60"], {})


def start(name: str, hops: int) -> int:
    """Fork a child that runs the ``name`` trick; return its pid (a double fork's first).
    The hopper writes its pids to the pipe end ``hops``."""
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
            told = 0
            while time.monotonic() < end:
                if told < HOPS_TOLD:
                    os.write(hops, f"{os.getpid()}\n".encode())
                    told += 1
                    if told == HOPS_TOLD:
                        os.close(hops)
                time.sleep(0.05)
                if os.fork():
                    os._exit(0)
    finally:
        os._exit(0)


def hopper_pids(read_end: int) -> list[int]:
    """The pids the hopper wrote, until it has told them all (or a deadline)."""
    got = b""
    deadline = time.monotonic() + HOPS_WAIT_S
    while (left := deadline - time.monotonic()) > 0 and got.count(b"\n") < HOPS_TOLD:
        if not select.select([read_end], [], [], left)[0]:
            break
        chunk = os.read(read_end, 64)
        if not chunk:
            break
        got += chunk
    return [int(line) for line in got.split()]


def attack() -> None:
    read_end, write_end = os.pipe()
    pids = {name: start(name, write_end) for name in ("dfork", "pgid", "hopper")}
    os.close(write_end)
    os.waitpid(pids["dfork"], 0)  # the middle process of the double fork exits at once
    hops = hopper_pids(read_end)
    os.close(read_end)
    report(attack="escape", me=os.getpid(), pids=pids, hops=hops)


if __name__ == "__main__":
    play("escapes-cleanup", attack)
