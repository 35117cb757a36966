#!/usr/bin/env python3
"""Attack: read other processes' environments (the arena's secrets) through /proc.

At startup it lists every pid /proc shows and every pid that answers a signal,
reads each one's command line and environment (its parent's too), and reports
them all, with its own open descriptors and environment; then it plays randomly.
"""

import os

from _common import play, probe_pids, read, report, visible_pids


def open_fds() -> dict[str, str]:
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return fds


def attack() -> None:
    pids = visible_pids()
    ppid = os.getppid()
    report(
        attack="environments",
        me=os.getpid(),
        ppid=ppid,
        uid=os.getuid(),
        pids=pids,
        probed=probe_pids(),
        cmdlines={p: read(f"/proc/{p}/cmdline") for p in pids},
        environs={p: read(f"/proc/{p}/environ") for p in {*pids, ppid, 1}},
        own_env=dict(os.environ),
        fds=open_fds(),
        caps=[line for line in read("/proc/self/status").splitlines() if line.startswith("Cap")],
    )


if __name__ == "__main__":
    play("reads-environments", attack)
