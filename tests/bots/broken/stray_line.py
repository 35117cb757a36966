#!/usr/bin/env python3
"""Plays randomly, but its first ``move`` answer comes with a second ``move ...`` line
that nobody asked for (both lines in one write)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move


class StrayWriter:
    """stdout, but the first ``move`` answer is followed by an unasked line."""

    def __init__(self) -> None:
        self.done = False

    def write(self, text: str) -> int:
        if text.startswith("move ") and not self.done:
            self.done = True
            text += text  # the same move again, unasked
        sys.stdout.write(text)
        return len(text)

    def flush(self) -> None:
        sys.stdout.flush()


def choose(turn: Turn) -> Move:
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("stray-line", choose, stdout=StrayWriter())  # type: ignore[arg-type]
