#!/usr/bin/env python3
"""Attack: fill every disk it can write to.

Argument: ``TOKEN``, part of every file name it writes.  At startup it writes
files of 8 MB, 1 MB at a time, into each folder it might write to (its tmp,
HOME, its own folder, /dev/shm, /dev, /, /var/tmp, /run) until a write fails,
at most ``CAP_MB`` per folder (so a hole fills no real disk), and reports how
many MB each folder took and the error that stopped it; then it plays randomly.
"""

import errno
import os
import sys

from _common import play, report

TOKEN = sys.argv[1]
CAP_MB = 160
CHUNK = b"\xa5" * (1024 * 1024)
PLACES = (
    "/tmp",
    os.environ.get("HOME", "/tmp/home"),
    os.getcwd(),
    "/dev/shm",
    "/dev",
    "/",
    "/var/tmp",
    "/run",
)


def fill(folder: str) -> tuple[int, str]:
    """MB written into ``folder`` and what stopped it."""
    written = 0
    n = 0
    while written < CAP_MB:
        path = os.path.join(folder, f"bsa-fill-{TOKEN}-{n}")
        n += 1
        try:
            with open(path, "wb") as f:
                for _ in range(8):
                    f.write(CHUNK)
                    f.flush()
                    written += 1
                    if written >= CAP_MB:
                        break
        except OSError as e:
            return written, errno.errorcode.get(e.errno or 0, "OSError")
    return written, "cap"


def attack() -> None:
    results = {}
    for place in PLACES:
        if place not in results and os.path.isdir(place):
            mb, why = fill(place)
            results[place] = {"mb": mb, "stopped_by": why}
    report(attack="disk", results=results)


if __name__ == "__main__":
    play("fills-disk", attack)
