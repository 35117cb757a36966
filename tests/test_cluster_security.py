"""Clusters are closed: a local cluster listens on loopback with TLS; remote ones need TLS or a plain 'insecure'.

A Dask scheduler runs whatever a client sends: whoever reaches it without the
run's certificate must be turned away.
"""

from __future__ import annotations

import contextlib
import ipaddress
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.league.config import ExecutorConfig, ExecutorKind, parse_config

BASE = "bots:\n  - {name: a, command: python3 a.py}\n  - {name: b, command: python3 b.py}\n"


def _parse(tmp_path: Path, executor: str) -> ExecutorConfig:
    path = tmp_path / "t.yaml"
    path.write_text("name: t\n" + executor + BASE)
    return parse_config(path.read_text(), path).executor


@pytest.mark.parametrize(
    ("executor", "message"),
    [
        (
            "executor: {scheduler: 'tcp://10.0.0.5:8786'}\n",
            "t.yaml:2: 'executor.scheduler' 'tcp://10.0.0.5:8786' is plain tcp:// off loopback",
        ),
        (
            "executor: {scheduler: 'tls://10.0.0.5:8786'}\n",
            "t.yaml:2: 'executor.scheduler' 'tls://10.0.0.5:8786' is TLS: give 'security'",
        ),
        (
            "executor: {scheduler: '10.0.0.5:8786'}\n",
            "t.yaml:2: 'executor.scheduler' must be the scheduler's address",
        ),
        (
            "executor: {scheduler: 'tcp://host:port'}\n",
            "t.yaml:2: 'executor.scheduler' must be the scheduler's address",
        ),
        (
            "executor: {scheduler: 'udp://h:1'}\n",
            "t.yaml:2: 'executor.scheduler' must be the scheduler's address",
        ),
        (
            "executor: {kind: dask-local, insecure: true}\n",
            "t.yaml:2: 'executor.insecure' only applies to kind: dask",
        ),
        ("executor: {kind: dask, insecure: yes please}\n", "t.yaml:2: 'executor.insecure' must be"),
        (
            "executor:\n  scheduler: tls://10.0.0.5:8786\n  security: {ca: ca.pem, cert: c.pem, key: k.pem}\n",
            "t.yaml:4: 'executor.security.ca' names",
        ),
        (
            "executor:\n  scheduler: tls://10.0.0.5:8786\n  security: {ca: ca.pem, cert: c.pem}\n",
            "t.yaml:4: 'executor.security.key' is required",
        ),
        (
            "executor:\n  scheduler: tls://10.0.0.5:8786\n  security: {ca: ca.pem, cert: c.pem, key: k.pem, pw: x}\n",
            "unknown key 'executor.security.pw'",
        ),
    ],
    ids=[
        "tcp-off-loopback",
        "tls-without-files",
        "no-scheme",
        "bad-port",
        "bad-scheme",
        "insecure-local",
        "insecure-type",
        "missing-file",
        "missing-key",
        "unknown-key",
    ],
)
def test_executor_security_errors_name_file_line_and_key(tmp_path: Path, executor: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        _parse(tmp_path, executor)
    assert message in str(e.value), str(e.value)
    assert "\n" not in str(e.value)


def test_security_and_insecure_are_read(tmp_path: Path) -> None:
    for name in ("ca.pem", "c.pem", "k.pem"):
        (tmp_path / name).write_text("pem")
    e = _parse(
        tmp_path,
        "executor:\n  scheduler: tls://10.0.0.5:8786\n  security: {ca: ca.pem, cert: c.pem, key: k.pem}\n",
    )
    assert (
        e.security is not None
        and e.security.ca == tmp_path / "ca.pem"
        and e.security.key == tmp_path / "k.pem"
    )
    assert not e.insecure
    e = _parse(tmp_path, "executor: {scheduler: 'tcp://10.0.0.5:8786', insecure: true}\n")
    assert e.insecure and e.security is None
    assert (
        _parse(tmp_path, "executor: {scheduler: 'tcp://127.0.0.1:8786'}\n").scheduler
        == "tcp://127.0.0.1:8786"
    )


# 0.0.0.0 is off loopback for the check, yet names this machine: no test ever aims beyond it.
@pytest.mark.parametrize("address", ["not-an-address", "tcp://", "tcp://0.0.0.0:1", "tcp://[::1:8786"])
def test_a_bad_scheduler_option_is_one_line_and_exit_2(tmp_path: Path, address: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("name: t\n" + BASE)
    result = CliRunner().invoke(main, ["run", str(path), "--scheduler", address])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: --scheduler: "), result.output


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


@pytest.mark.slow
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


class _FakeClient:
    """What the Roster asks of a Dask client (its status, and two calls), answered from a
    table of workers."""

    status = "running"

    def __init__(self, facts: dict[str, dict[str, object]]) -> None:
        self.facts = facts

    def scheduler_info(self, n_workers: int = 0) -> dict[str, object]:
        return {"workers": {w: {} for w in self.facts}}

    def run(self, function: object, key: str, workers: list[str], on_error: str) -> dict[str, object]:
        return {w: self.facts[w] for w in workers}


def test_workers_on_cloned_machines_with_one_host_name_all_play() -> None:
    """Machines are told apart by their kernel's boot id, not by a host name clones share."""
    from arena.cluster.pool import Roster

    facts: dict[str, dict[str, object]] = {
        f"tls://10.9.0.{i}:4000": {
            "host": "worker-image",
            "machine": f"boot-{i}",
            "id": f"dask-worker-{i}",
            "cores": 1,
            "threads": 1,
            "ready": True,
            "problem": None,
        }
        for i in range(100)
    }
    said: list[str] = []
    roster = Roster(_FakeClient(facts), "k", said.append)  # type: ignore[arg-type]
    roster.poll()
    assert len(roster.fit) == 100, said[:3]
    # ... while two workers on one machine with one core still share it: one waits.
    one = {a: {**f, "machine": "same-boot"} for a, f in list(facts.items())[:2]}
    roster = Roster(_FakeClient(one), "k", said.append)  # type: ignore[arg-type]
    roster.poll()
    assert len(roster.fit) == 1 and any("waits" in s for s in said)


def test_a_worker_reports_its_machine_by_boot_id() -> None:
    from arena.cluster.worker import machine_id

    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert machine_id() == boot


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


@pytest.mark.slow
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
