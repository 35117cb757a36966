"""Bot cgroups left by an arena process killed with SIGKILL are emptied by the next one.

Seen in a full run: a ladder killed with kill -9 during its final tournament left the
league's bots alive for good.  Their worker was killed while they were frozen between their
turns, and a process frozen by its cgroup takes no signal (its sandbox's SIGKILL included)
until the cgroup is thawed, which no one did.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from arena.game.botproc import BotPool
from arena.game.limits import ResourceLimits
from arena.game.sandbox import cgroups
from arena.game.sandbox.bwrap import SandboxMode, SandboxPolicy
from tests.support.process_helpers import wait_no_leftovers

REPO = Path(__file__).resolve().parents[3]
found = cgroups.support()
pytestmark = pytest.mark.skipif(
    found is None or not found.can_freeze, reason="no cgroup with a freezer the arena may use here"
)

# The owner: puts a sleeper (marked) in a bot cgroup of its own, freezes it, says so, waits.
OWNER = textwrap.dedent(
    """
    import subprocess, sys, time
    from arena.game.sandbox import cgroups
    group = cgroups.support().create(cgroups.CgroupLimits(memory_mb=64, tasks=8, cpus=1))
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]])
    group.attach(sleeper.pid)
    assert group.freeze()
    print(group.name, flush=True)
    time.sleep(600)
    """
)


def test_the_frozen_bots_of_an_arena_process_killed_with_sigkill_are_ended_by_the_next(marker: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, marker], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    try:
        assert owner.stdout is not None
        name = owner.stdout.readline().strip()
        assert name.startswith(cgroups.PREFIX), name
        # Its whole group: the sleeper's SIGKILL waits while it is frozen, for good unless a
        # later arena process thaws it (any one may: another test's, under pytest -n 2).
        os.killpg(owner.pid, signal.SIGKILL)
        owner.wait(30)
        sweep = "from arena.game.sandbox import cgroups; cgroups.support()"
        swept = subprocess.run([sys.executable, "-c", sweep], env=env, capture_output=True, text=True, timeout=60)
        assert swept.returncode == 0, swept.stderr
        assert wait_no_leftovers(marker, 30.0) == []
        assert not any((parent / name).exists() for parent in found.parents.values())  # type: ignore[union-attr]
    finally:
        if owner.poll() is None:
            os.killpg(owner.pid, signal.SIGKILL)
            owner.wait(30)
        assert owner.stdout is not None
        owner.stdout.close()


def test_a_bot_frozen_by_its_cgroup_behind_the_freezers_back_is_still_ended_by_its_stop(
    tmp_path: Path, marker: str
) -> None:
    # Seen under load: a league worker's SIGTERM cut a freeze short (the cgroup frozen, the
    # freezer not told), and the worker's cleanup then waited for good on a bot that could not
    # take its SIGKILL.  The stop thaws whatever froze the bot, and never waits without end.
    with BotPool() as pool:
        bot = pool.start(
            "frozen", (sys.executable, "-c", "import time; time.sleep(600)", marker), tmp_path, dict(os.environ),
            ResourceLimits(), SandboxPolicy(mode=SandboxMode.BWRAP),
        )  # fmt: skip
        assert bot.cgroup is not None and bot.cgroup.freeze()
        stopped = threading.Event()
        stopper = threading.Thread(target=lambda: (pool.stop(bot, None, 0.0), stopped.set()), daemon=True)
        stopper.start()
        try:
            assert stopped.wait(60), "the stop waited for a bot its cgroup kept frozen"
        finally:
            bot.cgroup.thaw()  # lets a stop that hung end (a failed run leaves nothing behind)
            stopper.join(60)
    assert wait_no_leftovers(marker) == []
