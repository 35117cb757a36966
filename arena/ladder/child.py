"""The service's child processes (a version's check, the league): started in a session of
their own, ended like Ctrl-C, then killed with their whole group, and ending the same way
when the service dies (a kill -9 too)."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import IO

# How long a child may take to end like Ctrl-C once the service is gone, before its whole
# group is killed (pool workers included): a busy machine must not keep it alive.
GONE_GRACE_S = 5.0
POLL_S = 0.5  # how often a child looks for its service where Linux has no pidfds


def start_child(module: str, args: list[str], out: IO[bytes]) -> subprocess.Popen[bytes]:
    """``python -m module args... SERVICE_PID``, its output to ``out``; the child learns the
    service's pid to die with it (see :func:`die_with_service`)."""
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


class ServiceWatch:
    """A thread of the child that waits for the service to end (or for SIGTERM), then ends
    the child's group like Ctrl-C, and kills the group ``GONE_GRACE_S`` later.

    It waits on the service's pidfd rather than on a parent-death signal: the signal's
    handler would run in the main thread, which may be deep in a wait or hold a lock that
    starting the kill deadline needs; this thread holds nothing and is always free to act.
    """

    def __init__(self, service: int, pidfd: int | None) -> None:
        self.service = service
        self._pidfd = pidfd
        self._wake_r, self._wake_w = os.pipe()
        self.gone = threading.Event()  # set once the group is being ended
        self._thread = threading.Thread(target=self._watch, name="service-watch", daemon=True)
        self._thread.start()

    def stop_asked(self, signum: int, frame: object) -> None:
        """SIGTERM's handler: end like the service's death does (a write wakes the thread)."""
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _watch(self) -> None:
        if self._pidfd is not None:
            select.select([self._pidfd, self._wake_r], [], [])  # the pidfd turns readable when it ends
        else:
            while os.getppid() == self.service and not select.select([self._wake_r], [], [], POLL_S)[0]:
                pass
        self.gone.set()
        group = os.getpgrp()
        os.killpg(group, signal.SIGINT)
        time.sleep(GONE_GRACE_S)
        os.killpg(group, signal.SIGKILL)

    def end_group_if_gone(self) -> None:
        """At the child's end: if the service is gone, end the rest of the group (SIGTERM: a
        pool worker then ends its game, its bots thawed and killed), and kill the whole group,
        this process too, once they are gone or ``GONE_GRACE_S`` has passed."""
        if not self.gone.is_set():
            return
        group = os.getpgrp()
        os.killpg(group, signal.SIGTERM)  # this process's own handler only wakes the thread
        deadline = time.monotonic() + GONE_GRACE_S
        while group_members(group) - {os.getpid()} and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(group, signal.SIGKILL)


def group_members(group: int) -> set[int]:
    """The pids of the live processes in process group ``group`` now (zombies are left out)."""
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != b"Z":
            found.add(int(entry.name))
    return found


def die_with_service(service: int) -> ServiceWatch | None:
    """Watch the service of pid ``service`` (this process's parent); None if it is gone already."""
    pidfd: int | None
    try:
        pidfd = os.pidfd_open(service)
    except ProcessLookupError:
        return None
    except (OSError, AttributeError):  # Linux before 5.3, or not Linux: look every POLL_S
        pidfd = None
    # Still our parent once held: the pidfd is the service's, not a stranger's given its pid.
    if os.getppid() != service:
        return None
    watch = ServiceWatch(service, pidfd)
    signal.signal(signal.SIGTERM, watch.stop_asked)
    return watch
