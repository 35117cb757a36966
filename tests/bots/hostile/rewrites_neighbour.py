#!/usr/bin/env python3
"""Attack, as a ``writable`` bot sharing its folder with another bot: rewrite the other
bot's program and plant code in the shared folder while the games run.

Argument: ``VICTIM``, the other bot's program in the same folder.  At its first turn
(the victim has started by then, and plays again in the next game) it overwrites
VICTIM with a program that exits at once, plants ``.git/hooks/post-merge`` and
``tests/conftest.py``, and writes a file of its own (in its next game it rewrites what
it made in the last); it reports each outcome (``ok`` or the errno), then plays randomly.
"""

import os
import sys

from _common import outcome, play, report

VICTIM = sys.argv[1]
PLANTED = "#!/bin/sh\necho planted by a bot\n"


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def attack() -> None:
    report(
        attack="neighbour",
        victim=outcome(lambda: write(VICTIM, "import sys\nsys.exit(3)\n")),
        hook=outcome(lambda: write(".git/hooks/post-merge", PLANTED)),
        conftest=outcome(lambda: write("tests/conftest.py", "raise SystemExit('planted')\n")),
        own=outcome(lambda: write("notes.txt", "what I learnt\n")),
        cwd=os.getcwd(),
    )


play("rewrites-neighbour", attack, at="turn")
