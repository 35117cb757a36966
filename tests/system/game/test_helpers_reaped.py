"""A game, or a build, returns only after the helpers of its sandboxes are reaped.

A bot given ``network: true`` has a network of its own, connected by a ``slirp4netns``
helper that ends with the sandbox.  Its reaping was left to a daemon thread that ran
some time after the game had returned, so a check for unreaped children just after a
game raced it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.game.build import run_build
from arena.game.clock import TimeControl
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox import bwrap, network
from arena.rules import random_board
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    bwrap.unavailable_reason() is not None or network.unavailable_reason() is not None,
    reason=f"no sandbox networks here: {bwrap.unavailable_reason() or network.unavailable_reason()}",
)


def children() -> dict[int, tuple[str, str]]:
    """This process's children (any thread's), each with its state letter and program name."""
    found = {}
    for task in os.listdir("/proc/self/task"):
        try:
            kids = Path(f"/proc/self/task/{task}/children").read_text().split()
        except OSError:
            continue
        for kid in map(int, kids):
            try:
                stat = Path(f"/proc/{kid}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            found[kid] = (stat.rsplit(")", 1)[1].split()[0], name)
    return found


def helpers() -> dict[int, tuple[str, str]]:
    return {pid: facts for pid, facts in children().items() if facts[1] == "slirp4netns"}


def bot_folder(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)  # the bot's user reads its own folder
    shutil.copy(REPO / "sample_bots" / "random_bot.py", tmp_path / "random_bot.py")
    (tmp_path / "random_bot.py").chmod(0o644)
    return tmp_path


def test_a_game_returns_with_its_network_helpers_reaped(tmp_path: Path) -> None:
    assert helpers() == {}, "a helper of an earlier test is still this process's child"
    folder = bot_folder(tmp_path)
    networked = bwrap.SandboxPolicy(mode="bwrap", network=True)
    specs = [
        BotSpec(f"net{i}", (sys.executable, "random_bot.py"), cwd=folder, sandbox=networked) for i in range(2)
    ]
    setup = GameSetup(
        board=random_board(3, 8),
        time_control=TimeControl(move_ms=5000, startup_ms=30_000),
        end_grace_s=2.0,
        seed_secret=FIXED_SECRET,
    )
    record = play_game(setup, specs)
    left = helpers()  # at once: nothing may still be on its way to being reaped
    assert left == {}, f"slirp4netns left running or unreaped by the game: {left}"
    assert [s.fault for s in record.seats] == [None, None], record.seats
    assert all(s.isolation.get("network") is True for s in record.seats), record.seats


def test_a_build_with_the_network_returns_with_its_helper_reaped(tmp_path: Path) -> None:
    assert helpers() == {}, "a helper of an earlier test is still this process's child"
    tmp_path.chmod(0o755)
    result = run_build(["true"], tmp_path, bwrap.SandboxPolicy(mode="bwrap"), 120, network=True)
    left = helpers()
    assert left == {}, f"slirp4netns left running or unreaped by the build: {left}"
    assert result.ok, result.output


def test_the_sandboxes_resolv_conf_goes_with_the_arena_process(tmp_path: Path) -> None:
    """Each arena process writes one ``resolv.conf`` for its sandboxes' networks; a suite or a
    ladder starts thousands of processes, and each left a folder in /tmp for good."""
    script = "from arena.game.sandbox import network; print(network.resolv_conf())"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.strip())
    assert written.parent.parent == tmp_path, written  # it was written where the test looks
    assert not written.parent.exists(), sorted(tmp_path.iterdir())
