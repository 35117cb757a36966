#!/usr/bin/env python3
"""Attack: read a league's live results through a ``readable:`` folder that holds them.

Argument: ``RESULTS``, the results folder.  At startup it lists RESULTS and reads the
first bytes of ``results.sqlite`` in it, reports both, then plays randomly."""

import errno
import os
import sys

from _common import play, read, report

RESULTS = sys.argv[1]


def attack() -> None:
    try:
        listing: object = sorted(os.listdir(RESULTS))
    except OSError as e:
        listing = errno.errorcode.get(e.errno or 0, "OSError")
    head = read(os.path.join(RESULTS, "results.sqlite"), 16)
    report(attack="results", listing=listing, sqlite=head[:15])


play("reads-results", attack)
