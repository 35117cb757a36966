"""A bot that ends by itself: what the pool says of its exit, and why its pid stays taken.

The pool kills a bot's whole process group when it stops it, by the group's id, which is
the bot's pid.  Were the bot reaped as soon as it exited, the kernel could give that pid
to a new process before the kill (another game's bot, which leads a group of its own) and
the kill would reach it.  So the bot stays a zombie, seen as ended but not reaped, until
the stop has killed its group.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from arena.game.botproc import BotPool, BotProcess
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import SandboxPolicy

UNSANDBOXED = SandboxPolicy(mode="none")


def _state(pid: int) -> str | None:
    """The process's state letter in /proc (Z: a zombie), or None once it is reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _ended(bot: BotProcess, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not bot.exited() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert bot.exited(), "the bot did not end"


@pytest.mark.parametrize(
    ("code", "status"),
    [("raise SystemExit(3)", "exit 3"), ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "signal SIGSEGV")],
    ids=["exit", "signal"],
)
def test_a_bot_that_ended_stays_unreaped_until_the_stop_killed_its_group(
    tmp_path: Path, code: str, status: str
) -> None:
    with BotPool() as pool:
        bot = pool.start("quits", (sys.executable, "-c", code), tmp_path, dict(os.environ), ResourceLimits(), UNSANDBOXED)
        pid = bot.proc.pid
        _ended(bot)
        # Seen as ended, and said so, over and over, without being reaped: its pid is still taken.
        assert bot.exit_status() == status and bot.exit_status() == status
        assert _state(pid) == "Z" and bot.proc.returncode is None
        assert bot.exit_status(wait=0.5) == status

        assert pool.stop(bot, None, 0.0) is True  # it had exited by itself
        assert _state(pid) is None  # reaped by the stop, after the kill of its group
        assert bot.exit_note == status


def test_a_bot_still_running_is_not_ended_and_a_short_wait_for_it_gives_up(tmp_path: Path) -> None:
    with BotPool() as pool:
        bot = pool.start(
            "sleeps", (sys.executable, "-c", "import time; time.sleep(60)"), tmp_path, dict(os.environ),
            ResourceLimits(), UNSANDBOXED,
        )  # fmt: skip
        pid = bot.proc.pid
        assert not bot.exited() and bot.exit_status(wait=0.2) is None
        assert pool.stop(bot, None, 0.0) is False  # killed: it did not exit by itself
        assert _state(pid) is None and bot.exit_note == "killed"
