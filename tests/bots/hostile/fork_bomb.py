#!/usr/bin/env python3
"""Attack: a fork and thread bomb.

Arguments: ``[COUNT [turn]]``.  At startup (at its first turn with ``turn``),
for about 2 seconds, it tries to start up to COUNT processes (default 1000; each
sleeps a minute), then as many threads (each sleeps too), retrying after each
failure.  It reports how many of each it got and the first error of each kind,
then plays on with all of them still alive.
"""

import os
import sys
import threading
import time

from _common import play, report

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
AT = sys.argv[2] if len(sys.argv) > 2 else "start"
SECONDS = 2.0


def attack() -> None:
    end = time.monotonic() + SECONDS
    procs: list[int] = []
    threads = 0
    errors: dict[str, str] = {}
    devnull = os.open(os.devnull, os.O_RDWR)
    while len(procs) < COUNT // 2 and time.monotonic() < end:
        try:
            pid = os.fork()
        except OSError as e:
            errors.setdefault("fork", repr(e))
            time.sleep(0.01)
            continue
        if pid == 0:
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            time.sleep(60)
            os._exit(0)
        procs.append(pid)
    end = max(end, time.monotonic() + 0.5)  # threads get their turn even after a slow fork phase
    while threads < COUNT - len(procs) and time.monotonic() < end:
        try:
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            threads += 1
        except RuntimeError as e:
            errors.setdefault("thread", repr(e))
            time.sleep(0.01)
    report(attack="bomb", processes=len(procs), threads=threads, errors=errors)


if __name__ == "__main__":
    play("fork-bomb", attack, at=AT)
