#!/usr/bin/env python3
"""Attack: take every process it may, and keep taking them.

At its first turn it starts a thread that forks sleepers (each sleeps a minute)
whenever it can, retrying at once after each failure for the rest of the game
(a minute at most), so any process slot that frees up is taken at once.  It
waits until a fork fails (its limit; 20 s at most), reports how many it holds,
and plays on.
"""

import os
import threading
import time

from _common import play, report

SECONDS = 60.0


def attack() -> None:
    held: list[int] = []
    full = threading.Event()
    devnull = os.open(os.devnull, os.O_RDWR)

    def take() -> None:
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            try:
                pid = os.fork()
            except OSError:
                full.set()
                time.sleep(0)  # let the bot's main thread play
                continue
            if pid == 0:
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                time.sleep(SECONDS)
                os._exit(0)
            held.append(pid)

    threading.Thread(target=take, daemon=True).start()
    full.wait(timeout=20)  # (forks are slow on a loaded machine; the test's move time is 30 s)
    report(attack="hold", processes=len(held), full=full.is_set())


if __name__ == "__main__":
    play("holds-processes", attack, at="turn")
