"""The one /proc reader: its stat parsing survives a command name made to mislead it."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.game.proctree import (
    child_group_leaders,
    children,
    command_line,
    cpu_seconds,
    start_ticks,
    tree_cpu_seconds,
    tree_cpu_total,
)


def test_children_leading_their_own_group_are_found_whatever_their_name(tmp_path: Path) -> None:
    tricky = tmp_path / "x) 1 2 (y"  # a comm field with spaces and parentheses
    tricky.symlink_to("/bin/sleep")
    leader = subprocess.Popen([str(tricky), "30"], start_new_session=True)
    member = subprocess.Popen(["/bin/sleep", "30"])  # stays in our group
    try:
        # (The new name is the kernel's once the exec is done, a moment after Popen returns.)
        deadline = time.monotonic() + 30
        while (name := Path(f"/proc/{leader.pid}/comm").read_text().strip()) != "x) 1 2 (y":
            assert time.monotonic() < deadline, f"the child's exec never named it (still {name!r})"
            time.sleep(0.01)
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


# Burns 0.5 s of CPU (not of wall time: a busy machine only makes it take longer), then ends.
BURN = "import time\nwhile time.process_time() < 0.5: pass"
# Waits for the burner, says so, then sleeps: the burner's time is in its cutime by then.
PARENT = f"import subprocess, sys, time\nsubprocess.run([sys.executable, '-c', {BURN!r}])\nprint('done', flush=True)\ntime.sleep(60)"


def test_a_trees_cpu_time_counts_its_live_processes_and_the_finished_ones_waited_for() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        ready, _, _ = select.select([parent.stdout], [], [], 120)
        assert ready and parent.stdout.readline() == "done\n", "the burner never ended"
        own, waited = cpu_seconds(parent.pid)
        assert waited >= 0.45  # the burner's time, counted at its parent that waited for it
        assert tree_cpu_total(parent.pid) == pytest.approx(own + waited, abs=0.05)  # no child left
        assert tree_cpu_total(os.getpid()) >= own + waited  # our own tree holds it
        assert command_line(parent.pid)[:2] == [sys.executable, "-c"] and children(parent.pid) == []
    finally:
        parent.kill()
        parent.wait()
        assert parent.stdout is not None
        parent.stdout.close()
    assert (
        cpu_seconds(parent.pid) == (0.0, 0.0)
        and command_line(parent.pid) == []
        and children(parent.pid) == []
    )


def test_a_live_childs_time_counts_in_its_parents_tree() -> None:
    burner = subprocess.Popen([sys.executable, "-c", BURN + "\nimport time; time.sleep(60)"])
    try:
        deadline = time.monotonic() + 120
        while sum(cpu_seconds(burner.pid)) < 0.45 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert burner.pid in children(os.getpid())
        assert tree_cpu_total(os.getpid()) >= sum(cpu_seconds(os.getpid())) + 0.45
    finally:
        burner.kill()
        burner.wait()
