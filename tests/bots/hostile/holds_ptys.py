#!/usr/bin/env python3
"""Attack: drain the machine's pseudo-terminals (one pool for every devpts instance).

Argument: ``COUNT``.  At startup it opens up to COUNT ptys (``/dev/ptmx`` and
``os.openpty``) and keeps them for the whole game, then reports how many it got and
what stopped it; it plays randomly meanwhile."""

import errno
import os
import sys

from _common import play, report

COUNT = int(sys.argv[1])
held: list[int] = []


def attack() -> None:
    stopped = None
    while len(held) < COUNT:
        try:
            held.extend(os.openpty())
        except OSError as e:
            stopped = errno.errorcode.get(e.errno or 0, "?")
            break
    try:
        os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
        ptmx = "ok"
    except OSError as e:
        ptmx = errno.errorcode.get(e.errno or 0, "?")
    report(attack="ptys", got=len(held) // 2, stopped=stopped, ptmx=ptmx)


play("holds-ptys", attack)
