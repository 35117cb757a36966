#!/usr/bin/env python3
"""Plays randomly and correctly, but writes every answer in two pieces 50 ms apart
(``mo``, flush, pause, ``ve 1,2E1``) and ends lines with ``\\r\\n``.

Not a fault: the referee waits for the newline and accepts CRLF.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


class SplitWriter:
    """stdout, but each line goes out in two flushed pieces, with CRLF."""

    def write(self, text: str) -> int:
        text = text.replace("\n", "\r\n")
        sys.stdout.write(text[:2])
        sys.stdout.flush()
        time.sleep(0.05)
        sys.stdout.write(text[2:])
        return len(text)

    def flush(self) -> None:
        sys.stdout.flush()


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("split-lines", choose, stdout=SplitWriter())  # type: ignore[arg-type]
