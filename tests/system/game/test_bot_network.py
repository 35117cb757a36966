"""A bot with ``network: true`` gets the outside, never this machine.

The "outside" is a TCP server in a network namespace this test makes (a veth
pair, addresses in 198.18.0.0/15); the machine's own listeners are one on
127.0.0.1 and one on 0.0.0.0 reached through the host's end of the veth.
Nothing here reaches any address beyond this machine.
"""

from __future__ import annotations

import ipaddress
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.game.limits import ResourceLimits
from arena.game.sandbox import bwrap, network
from arena.game.sandbox.spawn import spawn_sandboxed
from arena.league.config import parse_config

# A /30 of 198.18.0.0/15 drawn per test, so that runs at once (two developers, two
# sessions) never share a subnet: .1 is the host's end of the veth (one of this machine's
# own addresses), .2 the test's "internet", a server in a namespace of its own.
NET_BASE = ipaddress.ip_address("198.18.0.0")
GREETING = b"outside-says-hi\n"

pytestmark = pytest.mark.skipif(
    bwrap.unavailable_reason() is not None or network.unavailable_reason() is not None,
    reason=f"no sandbox networks here: {bwrap.unavailable_reason() or network.unavailable_reason()}",
)

# Each target is host:port; one written +host:port should connect and gets a generous
# deadline (a loaded machine), the others 3 s: a leak to this machine answers at once.
PROBE = r"""
import json, socket, sys
out = {}
for target in sys.argv[1:]:
    wait = 30 if target.startswith("+") else 3
    target = target.lstrip("+")
    host, port = target.rsplit(":", 1)
    s = socket.socket()
    s.settimeout(wait)
    try:
        s.connect((host, int(port)))
        out[target] = "connected:" + s.recv(64).decode(errors="replace").strip()
    except OSError as e:
        out[target] = "refused:" + type(e).__name__
    finally:
        s.close()
print(json.dumps(out))
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def _greeter(bind: str) -> str:
    """A one-line server's Python source: it greets every connection until killed."""
    return (
        "import socket\n"
        f"s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(({bind!r}, 0))\n"
        "s.listen(16); print(s.getsockname()[1], flush=True)\n"
        "while True:\n"
        "    c, _ = s.accept(); c.sendall(%r); c.close()\n" % GREETING
    )


def _serve(argv: list[str]) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the server prints its port once it listens
    if not line.strip().isdigit():
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()
        raise AssertionError(f"test server did not start: {line!r}")
    return proc, int(line)


@pytest.fixture
def outside() -> Iterator[dict[str, Any]]:
    """A namespace with a server at 198.18.x.y+2, a veth to it, and host listeners; all undone."""
    if shutil.which("ip") is None:
        pytest.skip("no 'ip' command (iproute2)")
    subnet = NET_BASE + 4 * random.randrange(1, (1 << 17) // 4)
    host_end, far_end = str(subnet + 1), str(subnet + 2)
    ns = f"arena-t-{uuid.uuid4().hex[:8]}"
    host_if = f"vh{uuid.uuid4().hex[:8]}"
    servers: list[subprocess.Popen[str]] = []
    try:
        try:
            _ip("netns", "add", ns)
        except subprocess.CalledProcessError as e:
            pytest.skip(f"cannot make a network namespace here: {e.stderr.strip()}")
        _ip("link", "add", host_if, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _ip("addr", "add", f"{host_end}/30", "dev", host_if)
        _ip("link", "set", host_if, "up")
        _ip("-n", ns, "addr", "add", f"{far_end}/30", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        far, far_port = _serve(["ip", "netns", "exec", ns, sys.executable, "-c", _greeter(far_end)])
        servers.append(far)
        lo, lo_port = _serve([sys.executable, "-c", _greeter("127.0.0.1")])
        servers.append(lo)
        lo2, lo2_port = _serve([sys.executable, "-c", _greeter("127.0.0.1")])
        servers.append(lo2)
        anyaddr, any_port = _serve([sys.executable, "-c", _greeter("0.0.0.0")])
        servers.append(anyaddr)
        yield {
            "outside": f"{far_end}:{far_port}",
            "host_end": host_end,
            "loopback": lo_port,
            "loopback2": lo2_port,
            "any": any_port,
        }
    finally:
        for p in servers:
            p.kill()
            p.wait(timeout=10)
            if p.stdout is not None:
                p.stdout.close()
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "del", host_if], capture_output=True, timeout=20)


def _probe(tmp_path: Path, targets: list[str], allow: tuple[str, ...] = ()) -> dict[str, str]:
    """What a sandboxed bot with the network reaches of ``targets`` (host:port each)."""
    (tmp_path / "probe.py").write_text(PROBE)
    os.chmod(tmp_path, 0o755)
    os.chmod(tmp_path / "probe.py", 0o644)
    policy = bwrap.SandboxPolicy(mode="bwrap", network=True, allow=allow)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    proc, _, group, net = spawn_sandboxed(
        ["python3", "probe.py", *targets], tmp_path, env, ResourceLimits(), policy
    )
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if group is not None:
            group.remove()
        if net is not None:
            net.ended()
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    result: dict[str, str] = json.loads(out)
    return result


def _no_helpers_left(deadline_s: float = 20.0) -> bool:
    """Whether every slirp4netns this process started has ended (waited for with a deadline)."""
    deadline = time.monotonic() + deadline_s
    me = str(os.getpid())
    while time.monotonic() < deadline:
        mine = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if ppid == me and state != "Z" and b"slirp4netns" in cmd:
                mine.append(pid)
        if not mine:
            return True
        time.sleep(0.1)
    return False


def test_network_reaches_outside_but_not_this_machine(tmp_path: Path, outside: dict[str, Any]) -> None:
    targets = {
        "outside": outside["outside"],
        "loopback": f"127.0.0.1:{outside['loopback']}",
        "gateway-to-loopback": f"{network.HOST_LOOPBACK_ALIAS}:{outside['loopback']}",
        "host-end-of-veth": f"{outside['host_end']}:{outside['any']}",
    }
    got = _probe(tmp_path, ["+" + targets["outside"], *[t for k, t in targets.items() if k != "outside"]])
    assert got[targets["outside"]] == "connected:" + GREETING.decode().strip()
    for name in ("loopback", "gateway-to-loopback", "host-end-of-veth"):
        assert not got[targets[name]].startswith("connected"), (name, got)
    assert _no_helpers_left(), "slirp4netns outlived its sandbox"


@pytest.mark.slow
def test_host_addresses_are_all_fenced(tmp_path: Path, outside: dict[str, Any]) -> None:
    """Every address this machine has (eth0's too) is closed to the bot, not just the veth's."""
    addresses = subprocess.run(
        ["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=20, check=True
    ).stdout.split()
    mine = sorted({a.split("/")[0] for a, b in zip(addresses[1:], addresses, strict=False) if b == "inet"})
    targets = [f"{a}:{outside['any']}" for a in mine if not a.startswith("127.")]
    assert targets
    got = _probe(tmp_path, targets)
    assert all(not v.startswith("connected") for v in got.values()), got


@pytest.mark.slow
def test_allow_lets_exactly_that_endpoint_through(tmp_path: Path, outside: dict[str, Any]) -> None:
    allowed = f"127.0.0.1:{outside['loopback']}"
    via = f"{network.HOST_LOOPBACK_ALIAS}:{outside['loopback']}"
    other = f"{network.HOST_LOOPBACK_ALIAS}:{outside['loopback2']}"
    veth = f"{outside['host_end']}:{outside['any']}"
    got = _probe(tmp_path, ["+" + via, other, veth], allow=(allowed,))
    assert got[via] == "connected:" + GREETING.decode().strip()
    assert not got[other].startswith("connected"), got
    assert not got[veth].startswith("connected"), got


def test_a_sandbox_without_the_network_has_none(tmp_path: Path, outside: dict[str, Any]) -> None:
    (tmp_path / "probe.py").write_text(PROBE)
    os.chmod(tmp_path, 0o755)
    policy = bwrap.SandboxPolicy(mode="bwrap", network=False)
    proc, _, group, _ = spawn_sandboxed(
        ["python3", "probe.py", outside["outside"]],
        tmp_path,
        {"PATH": "/usr/bin:/bin"},
        ResourceLimits(),
        policy,
    )
    out, _ = proc.communicate(timeout=60)
    if group is not None:
        group.remove()
    assert json.loads(out)[outside["outside"]].startswith("refused")


def test_the_firewall_leaves_this_machine_s_own_traffic_alone() -> None:
    """The table fences the helpers' sockets only. The reset the kernel sends for a closed
    port belongs to no process; it must still reach the caller, who hears "connection
    refused" at once. While the table matched the helpers negatively it refused that reset,
    and every program on the machine waited out its timeout instead (a test's `arena submit`
    did, for 15 s)."""
    network.require()  # the table is installed
    with socket.socket() as held:  # bound and not listening: a closed port, and no one else's
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=30).close()


def test_bwrap_never_shares_the_host_network() -> None:
    fds = bwrap.SandboxFds(3, 4, 5)
    policy = bwrap.SandboxPolicy(mode="bwrap", network=True)
    with pytest.raises(ConfigError, match="network namespace of its own"):
        bwrap.bwrap_command(policy, ["true"], Path("/tmp"), {}, fds, None)


@pytest.mark.parametrize(
    "text, message",
    [
        ("localhost:80", "not an IP address"),
        ("127.0.0.1", "not host:port"),
        ("127.0.0.1:0", "port must be from 1 to 65535"),
        ("127.0.0.1:http", "port must be from 1 to 65535"),
    ],
)
def test_bad_endpoints(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        network.parse_endpoint(text)


def _config(tmp_path: Path, bot_extra: str) -> Path:
    p = tmp_path / "t.yaml"
    p.write_text(
        f"bots:\n  - name: a\n    command: python3 a.py\n{bot_extra}  - name: b\n    command: python3 b.py\n"
    )
    return p


@pytest.mark.parametrize(
    "extra, message",
    [
        ("    allow: [127.0.0.1:8080]\n", r"t.yaml:4: 'bots\[0\].allow' needs 'network: true'"),
        ("    network: true\n    allow: [localhost:8080]\n", r"t.yaml:5: 'bots\[0\].allow\[0\]':.*not an IP"),
        ("    network: true\n    allow: [8080]\n", r"t.yaml:5: 'bots\[0\].allow\[0\]' must be a string"),
        ("    network: true\n    allow: 127.0.0.1:80\n", r"t.yaml:5: .*allow.* must be a list"),
    ],
)
def test_allow_config_errors(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(_config(tmp_path, extra).read_text(), tmp_path / "t.yaml")


def test_allow_config_is_read(tmp_path: Path) -> None:
    p = _config(tmp_path, "    network: true\n    allow: ['[::1]:9000', 127.0.0.1:80]\n")
    cfg = parse_config(p.read_text(), p)
    assert cfg.bots[0].sandbox.allow == ("[::1]:9000", "127.0.0.1:80")
    assert cfg.bots[1].sandbox.allow == ()


def test_helper_uids_are_apart_from_bot_uids() -> None:
    """The firewall keys on helper uids: none may be a bot's own uid."""
    assert network.HELPER_UID_MAX < bwrap.BOT_UID_BASE


def test_network_without_its_tools_is_refused_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tournament import sandbox_warnings

    p = _config(tmp_path, "    network: true\n    sandbox: bwrap\n")
    cfg = parse_config(p.read_text(), p)
    reason = "the 'slirp4netns' command is not installed (Debian/Ubuntu: apt-get install slirp4netns)"
    monkeypatch.setattr(network, "unavailable_reason", lambda: reason)
    with pytest.raises(ConfigError) as e:
        sandbox_warnings(cfg)
    assert str(e.value) == f"{p}:2: bot 'a': network: true cannot be given safely here: {reason}"


def test_a_networked_sandbox_names_the_dns_forwarder(tmp_path: Path) -> None:
    policy = bwrap.SandboxPolicy(mode="bwrap", network=True)
    proc, _, group, net = spawn_sandboxed(
        ["cat", "/etc/resolv.conf"], tmp_path, {"PATH": "/usr/bin:/bin"}, ResourceLimits(), policy
    )
    out, _ = proc.communicate(timeout=60)
    if group is not None:
        group.remove()
    if net is not None:
        net.ended()
    assert out.decode().split() == ["nameserver", network.DNS_FORWARDER]


def test_a_build_with_the_network_is_fenced_the_same_way(tmp_path: Path, outside: dict[str, Any]) -> None:
    from arena.game.build import run_build

    (tmp_path / "probe.py").write_text(PROBE)
    os.chmod(tmp_path, 0o755)
    far = outside["outside"]
    near = f"{outside['host_end']}:{outside['any']}"
    lo = f"127.0.0.1:{outside['loopback']}"
    policy = bwrap.SandboxPolicy(mode="bwrap")
    result = run_build(["python3", "probe.py", "+" + far, near, lo], tmp_path, policy, 120, network=True)
    assert result.ok, result.output
    got = json.loads(result.output.strip().splitlines()[-1])
    assert got[far].startswith("connected")
    assert not got[near].startswith("connected") and not got[lo].startswith("connected"), got
