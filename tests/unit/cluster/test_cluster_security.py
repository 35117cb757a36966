"""Clusters are closed: a local cluster listens on loopback with TLS; remote ones need TLS or a plain 'insecure'.

A Dask scheduler runs whatever a client sends: whoever reaches it without the
run's certificate must be turned away.

The cases that need no process; the others are in tests/system/cluster/test_cluster_security.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.league.config import ExecutorConfig, parse_config
from arena.league.listener import Lines

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
    roster = Roster(_FakeClient(facts), "k", Lines(said.append))  # type: ignore[arg-type]
    roster.poll()
    assert len(roster.fit) == 100, said[:3]
    # ... while two workers on one machine with one core still share it: one waits.
    one = {a: {**f, "machine": "same-boot"} for a, f in list(facts.items())[:2]}
    roster = Roster(_FakeClient(one), "k", Lines(said.append))  # type: ignore[arg-type]
    roster.poll()
    assert len(roster.fit) == 1 and any("waits" in s for s in said)


def test_a_worker_reports_its_machine_by_boot_id() -> None:
    from arena.cluster.worker import machine_id

    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert machine_id() == boot


