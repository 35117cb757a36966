"""The ladder's child processes (a version's check, the league) end, with all their group,
when the service dies.

Seen under load: a check job outlived a service killed with kill -9 for good.  Its
parent-death signal's handler sent Ctrl-C to its own group, and that Ctrl-C interrupted
the handler itself before it set the deadline for the kill; the job then sat in its exit,
joining a pool worker that Ctrl-C had not ended.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.process_helpers import wait_no_leftovers

REPO = Path(__file__).resolve().parents[3]

# The service: it starts the child the way the ladder does, says the child's pid, and waits.
SERVICE = """
import sys, time
from arena.ladder.child import start_child
child = start_child("tests.support.service_child", [sys.argv[1]], sys.stdout.buffer)
time.sleep(600)
"""


def test_a_child_and_its_whole_group_end_when_the_service_is_killed(marker: str) -> None:
    service = subprocess.Popen(
        [sys.executable, "-c", SERVICE, marker], cwd=REPO, stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True,
    )  # fmt: skip
    try:
        assert service.stdout is not None
        ready, _, _ = select.select([service.stdout], [], [], 60)
        line = service.stdout.readline() if ready else b""
        assert line == b"ready\n", line
        assert len(wait_no_leftovers(marker, 0)) == 3  # the service, its child, the deaf worker
        os.killpg(service.pid, signal.SIGKILL)  # the service's group only: the child has its own
        service.wait(30)
        assert wait_no_leftovers(marker, 60) == []
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait(30)
        assert service.stdout is not None
        service.stdout.close()
