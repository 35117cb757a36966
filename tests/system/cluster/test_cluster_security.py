"""Clusters are closed: a local cluster listens on loopback with TLS; remote ones need TLS or a plain 'insecure'.

A Dask scheduler runs whatever a client sends: whoever reaches it without the
run's certificate must be turned away.

The cases that start processes; the others are in tests/unit/cluster/test_cluster_security.py.
"""

from __future__ import annotations

import contextlib
import ipaddress
from pathlib import Path

import psutil
import pytest

from arena.league.config import ExecutorConfig, ExecutorKind


def _listeners() -> list[tuple[str, int]]:
    """The TCP listening addresses of this process and its children."""
    me = psutil.Process()
    found = []
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            found += [
                (c.laddr.ip, c.laddr.port)
                for c in proc.net_connections(kind="tcp")
                if c.status == psutil.CONN_LISTEN
            ]
    return found


def test_a_local_cluster_listens_on_loopback_and_refuses_strangers() -> None:
    pytest.importorskip("distributed")
    pytest.importorskip("cryptography")
    from distributed import Client
    from distributed.security import Security

    from arena.cluster.pool import connect

    executor = ExecutorConfig(kind=ExecutorKind.DASK_LOCAL, workers=1, connect_timeout_ms=5000)
    with connect(executor, 1) as client:
        address = client.scheduler.address
        assert client.submit(int, "41").result(timeout=60) == 41  # the run's own client works
        listeners = _listeners()
        assert listeners, "no listener found"
        assert all(ipaddress.ip_address(ip).is_loopback for ip, _ in listeners), listeners
        assert address.startswith("tls://127.0.0.1:")
        plain = "tcp://" + address.removeprefix("tls://")
        for attempt in (
            lambda: Client(plain, timeout=3, set_as_default=False),  # no TLS at all
            lambda: Client(
                address, timeout=3, set_as_default=False, security=Security.temporary()
            ),  # not its CA
        ):
            stranger = None
            with pytest.raises(Exception):  # noqa: B017 (Dask raises OSError, TimeoutError or TypeError)
                stranger = attempt()
                stranger.submit(int, "1").result(timeout=5)
            if stranger is not None:
                stranger.close()


ZOMBIE_PROBE = r"""
import os, sys, time
from pathlib import Path
from arena.game.build import run_build
from arena.game.proctree import adopt_orphans
from arena.game.sandbox.bwrap import SandboxPolicy

assert adopt_orphans()  # as a cluster worker is
folder = Path(sys.argv[1])
for _ in range(3):
    result = run_build(["sh", "-c", "exit 3"], folder, SandboxPolicy(mode="bwrap"), 60)
    assert not result.ok, result
deadline = time.monotonic() + 5
zombies = []
while time.monotonic() < deadline:
    me = os.getpid()
    kids = Path(f"/proc/{me}/task/{me}/children").read_text().split()
    zombies = [k for k in kids if Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"]
    if not zombies:
        break
    time.sleep(0.05)
print("zombies", len(zombies))
"""


def test_failed_builds_leave_no_zombie_bwrap_in_a_subreaper(tmp_path: Path) -> None:
    """A worker adopts orphans; the inner bwrap of every failed build must be reaped."""
    import os
    import subprocess
    import sys

    from arena.game.sandbox import bwrap

    if bwrap.unavailable_reason() is not None:
        pytest.skip(f"no sandbox here: {bwrap.unavailable_reason()}")
    os.chmod(tmp_path, 0o755)
    done = subprocess.run(
        [sys.executable, "-c", ZOMBIE_PROBE, str(tmp_path)], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "zombies 0", done.stdout
