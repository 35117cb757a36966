"""Processes a test started: finding them by a marker in their command line, and
watching and interrupting a running ``arena run``."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from arena.game.proctree import command_line, signal_if


def leftovers(marker: str) -> list[str]:
    """``"PID: command line"`` of every live process whose command line holds ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def kill_leftovers(marker: str) -> list[str]:
    """SIGKILL every live process whose command line holds ``marker``; those found (as
    :func:`leftovers` gives them).

    Each is held by a pidfd first, then its command line read again, then signalled
    through the pidfd: a pid found in ``/proc`` may have gone to a stranger meanwhile
    (pids wrap every few minutes on a busy machine).
    """
    found = leftovers(marker)
    for line in found:
        pid = int(line.split(":")[0])
        signal_if(pid, signal.SIGKILL, lambda p: marker in " ".join(command_line(p)))
    return found


def wait_no_leftovers(marker: str, seconds: float = 15.0) -> list[str]:
    """The marked processes still there after up to ``seconds`` (a killed one takes a moment)."""
    deadline = time.monotonic() + seconds
    while (left := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def stored_games(store_file: Path) -> int:
    """How many games a (possibly running) arena has stored so far."""
    if not store_file.exists():
        return 0
    with sqlite3.connect(store_file) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
        except sqlite3.OperationalError:  # the arena has not created the table yet
            return 0


def wait_for_games(
    store_file: Path, count: int, proc: subprocess.Popen[bytes] | subprocess.Popen[str], seconds: float = 120
) -> None:
    """Wait until the running arena has stored ``count`` games (or has ended)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None and stored_games(store_file) < count:
        time.sleep(0.05)


def interrupt_when_stored(
    proc: subprocess.Popen[str], store_file: Path, count: int
) -> tuple[str, str]:
    """Ctrl-C a running arena once it has stored ``count`` games; its (stdout, stderr).
    It is killed if it does not end within a minute (the test then fails on its exit code)."""
    try:
        wait_for_games(store_file, count, proc)
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# ``python -m arena`` with Python's usual Ctrl-C handler: a suite started with SIGINT ignored
# (``pytest &`` in a script, nohup) passes that on to every child, and an arena that ignores
# SIGINT never sees the Ctrl-C a test sends.  Python keeps an inherited "ignore", so the
# handler is set in the child itself.
ARENA_WITH_SIGINT = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('arena', run_name='__main__', alter_sys=True)"
)


def start_run(path: Path, cwd: Path) -> subprocess.Popen[str]:
    """``arena run PATH`` in a process of its own, its output captured."""
    return subprocess.Popen(
        [sys.executable, "-c", ARENA_WITH_SIGINT, "run", str(path)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
