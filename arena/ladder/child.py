"""The service's child processes (a version's check, the league): started in a session of
their own, and ended like Ctrl-C, then killed with their whole group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from typing import IO


def start_child(module: str, args: list[str], out: IO[bytes]) -> subprocess.Popen[bytes]:
    """``python -m module args... SERVICE_PID``, its output to ``out``; the child learns the
    service's pid to die with it (see :func:`arena.ladder.job.die_with_service`)."""
    return subprocess.Popen(
        [sys.executable, "-m", module, *args, str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=out,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )


def end_child(proc: subprocess.Popen[bytes], grace_s: float) -> int | None:
    """Interrupt the child's group like Ctrl-C (it ends its games), then SIGKILL it after
    ``grace_s``; its exit code (None if it could not be reaped)."""
    for sig, wait in ((signal.SIGINT, grace_s), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)  # by the group's id: its leader is not reaped before the wait
        try:
            return proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
    return None
