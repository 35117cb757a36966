"""The one /proc reader: its stat parsing survives a command name made to mislead it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from arena.game.proctree import child_group_leaders, start_ticks, tree_cpu_seconds


def test_children_leading_their_own_group_are_found_whatever_their_name(tmp_path: Path) -> None:
    tricky = tmp_path / "x) 1 2 (y"  # a comm field with spaces and parentheses
    tricky.symlink_to("/bin/sleep")
    leader = subprocess.Popen([str(tricky), "30"], start_new_session=True)
    member = subprocess.Popen(["/bin/sleep", "30"])  # stays in our group
    try:
        assert Path(f"/proc/{leader.pid}/comm").read_text().strip() == "x) 1 2 (y"
        found = child_group_leaders(os.getpid())
        assert leader.pid in found and member.pid not in found
        assert start_ticks(leader.pid) >= start_ticks(os.getpid()) > 0
        assert tree_cpu_seconds(leader.pid) >= 0.0
    finally:
        for proc in (leader, member):
            proc.kill()
            proc.wait()


def test_a_process_that_is_gone_reads_as_unknown() -> None:
    proc = subprocess.Popen(["/bin/true"])
    proc.wait()
    assert start_ticks(proc.pid) == 0
    assert proc.pid not in child_group_leaders(os.getpid())
