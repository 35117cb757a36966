#!/usr/bin/env python3
"""Attack: make system calls through another ABI (32-bit ``int 0x80``, x32) to pass a
filter that looks only at the call's number.

Its argument is the path of ``other_abi`` (built from ``other_abi.c`` beside it), which
makes each call in a child of its own and prints ``name outcome`` lines; it reports them
(``ok``, the errno's name, or ``SIGSYS``), then plays randomly.
"""

import subprocess
import sys

from _common import play, report


def attack() -> None:
    try:
        done = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        report(attack="other-abi", error=repr(e))
        return
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    report(attack="other-abi", results=found, exit=done.returncode, stderr=done.stderr[-500:])


play("calls-other-abi", attack)
