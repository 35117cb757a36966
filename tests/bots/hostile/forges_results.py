#!/usr/bin/env python3
"""Attack: forge or destroy a league's results.

Argument: ``RESULTS``, the league's results folder.  Unless its environment says
``BSA_ATTACK=0`` it tries, at startup: to find ``results.sqlite`` among every
process's open files (``/proc/*/fd``) and write into it; to list RESULTS; to
write into, delete and replace the files in it; and to move RESULTS away.  It
reports each outcome, then plays randomly, exactly as it does with
``BSA_ATTACK=0``.
"""

import errno
import os
import sys

from _common import outcome, play, report

RESULTS = sys.argv[1]
ATTACK = os.environ.get("BSA_ATTACK", "1") != "0"
GARBAGE = b"forged by a bot\n" * 64


def scribble(path: str) -> None:
    with open(path, "r+b") as f:
        f.write(GARBAGE)


def forge(path: str) -> None:
    with open(path, "wb") as f:
        f.write(GARBAGE)


def listing() -> list[str] | str:
    try:
        return sorted(os.listdir(RESULTS))
    except OSError as e:
        return errno.errorcode.get(e.errno or 0, "OSError")


def attack() -> None:
    if not ATTACK:
        return
    via_fd = {}
    for pid in (e for e in os.listdir("/proc") if e.isdigit()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            link = f"/proc/{pid}/fd/{fd}"
            try:
                target = os.readlink(link)
            except OSError:
                continue
            if "sqlite" in target or RESULTS in target:
                via_fd[f"{link} -> {target}"] = outcome(lambda link=link: scribble(link))
    store = os.path.join(RESULTS, "results.sqlite")
    report(
        attack="results",
        via_fd=via_fd,
        listing=listing(),
        write=outcome(lambda: scribble(store)),
        delete={n: outcome(lambda n=n: os.remove(store + n)) for n in ("", "-wal", "-shm")},
        forge=outcome(lambda: forge(os.path.join(RESULTS, "forged.sqlite"))),
        replace=outcome(lambda: forge(store)),
        rename=outcome(lambda: os.rename(RESULTS, RESULTS + "-gone")),
    )


if __name__ == "__main__":
    play("forges-results", attack)
