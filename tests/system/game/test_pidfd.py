"""A pid the arena remembers is signalled through a pidfd: once its process has ended,
the signal reaches no one, not the stranger the number went to.

Pids wrap every few minutes on a busy machine (``pid_max`` 32768).  To give a number to
a new process at will, the script runs in a PID namespace of its own (as root), where
``ns_last_pid`` chooses the next pid.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.game.proctree import Held, command_line, signal_if

REPO = Path(__file__).resolve().parents[3]

REUSE = r"""
import json, os, signal, subprocess, sys
from arena.game.proctree import Held

def sleeper():
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

first = sleeper()
held = Held(first.pid)
first.kill()
first.wait()  # reaped: its number is free
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(first.pid - 1))
stranger = sleeper()
sent = held.signal(signal.SIGKILL)
held.close()
alive = stranger.poll() is None
stranger.kill()
stranger.wait()
print(json.dumps({"same_pid": stranger.pid == first.pid, "sent": sent, "stranger_alive": alive}))
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_a_held_process_that_ended_is_not_its_pids_next_owner() -> None:
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", REUSE],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = done.stdout.strip().splitlines()[-1]
    assert got == '{"same_pid": true, "sent": false, "stranger_alive": true}', got


def test_a_held_process_is_signalled_and_then_reached_no_more() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with Held(proc.pid) as held:
            assert held.signal(0)
            assert held.signal(9)
            assert proc.wait(timeout=30) == -9
            assert not held.signal(9)  # ended (and reaped): no one
        assert not held.signal(9)  # closed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_signal_if_looks_again_before_it_signals() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "the-one-meant"])
    try:
        deadline = time.monotonic() + 30
        while "the-one-meant" not in command_line(proc.pid):  # until it has started its program
            assert time.monotonic() < deadline, "the process never ran its program"
            time.sleep(0.01)
        assert not signal_if(proc.pid, 9, lambda p: "someone-else" in command_line(p))
        assert proc.poll() is None
        assert signal_if(proc.pid, 9, lambda p: "the-one-meant" in command_line(p))
        assert proc.wait(timeout=30) == -9
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
