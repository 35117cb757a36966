#!/usr/bin/env python3
"""Attack: find the opponent's process and read its command line and its source.

Arguments: ``SOURCE FOLDER NEEDLE``: the opponent's program (an absolute path),
its folder, and a word of its command line.  At startup it looks for NEEDLE in
every command line /proc shows (but its own sandbox's), tries to read, stat and
list the opponent's files, directly and through each process's ``cwd`` and
``root`` links, and reports what worked; then it plays randomly.
"""

import os
import sys

from _common import outcome, play, read, report, visible_pids

SOURCE, FOLDER, NEEDLE = sys.argv[1:4]


def attack() -> None:
    pids = visible_pids()
    me = os.path.basename(__file__)  # its own sandbox's processes carry NEEDLE among its arguments
    cmdlines = {p: read(f"/proc/{p}/cmdline") for p in pids}
    found = {p: cmd for p, cmd in cmdlines.items() if NEEDLE in cmd and me not in cmd}
    via_links = {}
    for p in pids:
        for link in ("cwd", "root"):
            path = f"/proc/{p}/{link}" + (SOURCE if link == "root" else "/" + os.path.basename(SOURCE))
            via_links[path] = read(path)
    report(
        attack="opponent",
        found=found,
        source=read(SOURCE),
        stat=outcome(lambda: os.stat(SOURCE)),
        listdir=outcome(lambda: os.listdir(FOLDER)),
        via_links=via_links,
    )


if __name__ == "__main__":
    play("reads-opponent", attack)
