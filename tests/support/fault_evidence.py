"""What the unit and the system tests of the faults' evidence share."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.game.record import Fault, SeatRecord


def play(*args: str, cwd: Path | None = None) -> str:
    """``arena play ... -q`` from ``cwd``; its output (exit 0 whatever the bots did)."""
    old = Path.cwd()
    os.chdir(cwd or old)
    try:
        result = CliRunner().invoke(main, ["play", *args, "-q", "--seed", "3"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    return result.output


def seat(fault: Fault, stderr: str = "", head: tuple[str, ...] = ()) -> SeatRecord:
    return SeatRecord("bot", ("x",), fault=fault, stderr_tail=stderr, stderr_bytes=len(stderr), stdout_head=head)
