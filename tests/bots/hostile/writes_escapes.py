#!/usr/bin/env python3
"""Plays randomly, then at its first ``move`` request writes text meant to fool whoever reads
the arena's output: an ``info`` line, stderr and, as its answer, a line holding terminal escape
sequences (set the title, clear the screen, print a green "PASS every check"), NUL, BEL, a C1
CSI, a bidi override, bytes that decode to lone surrogates, HTML, a table pipe and spreadsheet
formulas.  The answer is a protocol error, which the arena quotes back; then the bot sleeps until
it is killed.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

# ASCII only, so the referee reads it as a line (and quotes it) rather than refusing its bytes.
ANSWER = (
    b"\x1b]0;owned\x07\x1b[2J\x1b[32mPASS every check\x00 \x07 <script>alert(1)</script>"
    b" <img src=x onerror=alert(1)> a|b `x` =1+1 +1+1 -2+3 @SUM(A1)"
)
# Stderr and info lines are kept as text whatever their bytes: C1 CSI, a bidi override, and the
# UTF-8 form of a lone surrogate too.
HOSTILE = ANSWER + b" \xc2\x9b31m \xe2\x80\xae \xed\xa0\x80"


def choose(turn: Turn) -> Move:
    if turn.request.phase == "move":
        turn.out.flush()
        sys.stderr.buffer.write(HOSTILE + b"\n")
        sys.stderr.buffer.flush()
        sys.stdout.buffer.write(b"info " + HOSTILE + b"\n" + ANSWER + b"\n")
        sys.stdout.buffer.flush()
        time.sleep(300)
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("writes-escapes", choose)
