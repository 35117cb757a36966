"""A network of its own for a sandbox given ``network: true`` (or a build with ``build_network``).

The bot never shares the host's network namespace.  Its sandbox gets a fresh
one, connected to the outside by **slirp4netns**, a user-mode network stack:
the bot's packets go to a tap device that slirp4netns reads, and slirp4netns
makes ordinary connections for it from the host.  Two things keep those
connections away from the machine itself:

- slirp4netns runs as a user of its own (a *helper uid*, one per sandbox) with
  ``--disable-host-loopback``, so its gateway address does not lead to the
  host's ``127.0.0.1``;
- an nftables table (``inet battle_sheep_arena``) refuses every connection a
  helper uid makes to an address of this machine (``fib daddr type local``:
  loopback, eth0's address, a veth's, any address it has now or gets later)
  and to link-local addresses (cloud metadata services), except the
  ``host:port`` pairs the tournament lists under ``allow``.

Why a firewall rule keyed on the helper's uid rather than options of the
helper alone: a user-mode stack connects from the host's namespace, so any of
the host's own addresses reaches what the host binds on 0.0.0.0; neither
slirp4netns nor pasta can refuse every local address, and a system-call
filter cannot look inside ``connect``'s address.  The kernel's own routing
decision (``fib``) knows every local address at the moment of the packet.

This needs root (the arena's own bwrap runs as root then too), ``slirp4netns``
and ``nft``; where any is missing, :func:`unavailable_reason` says which, and
the bot is refused rather than given the host's network.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import ipaddress
import itertools
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import typing
from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import ConfigError

HELPER = "slirp4netns"
HELPER_PACKAGE = "slirp4netns"
NFT_PACKAGE = "nftables"
TABLE = "battle_sheep_arena"
# Helper uids: below the bots' own (1500000000 and up), one per live network of an arena
# process (its pid x 64 + a counter), so that the firewall tells each sandbox's helper apart.
HELPER_UID_BASE = 1_200_000_000
HELPER_UIDS_PER_PROCESS = 64
HELPER_UID_MAX = HELPER_UID_BASE + (1 << 22) * HELPER_UIDS_PER_PROCESS  # pids are below 2^22
HELPER_GID = 65534
SETUP_S = 10.0  # how long the namespace and its helper may take to be ready
# slirp4netns's fixed plan: the bot is 10.0.2.100, its gateway 10.0.2.2 (the host's
# loopback when an allowed address is on it), its DNS forwarder 10.0.2.3.
HOST_LOOPBACK_ALIAS = "10.0.2.2"
DNS_FORWARDER = "10.0.2.3"

_uids = itertools.count()


@dataclass(frozen=True)
class Endpoint:
    """One ``host:port`` the tournament lets a networked sandbox reach on this machine."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
    port: int

    def __str__(self) -> str:
        host = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return f"{host}:{self.port}"


def parse_endpoint(text: str) -> Endpoint:
    """``127.0.0.1:8080`` or ``[::1]:8080``; ValueError saying what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{text!r} is not host:port (an IP address and a port, e.g. 127.0.0.1:8080)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{text!r}: {host!r} is not an IP address (names are not resolved)") from None
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: the port must be from 1 to 65535")
    return Endpoint(address, int(port))


def _tool(name: str) -> str | None:
    return shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)),
        None,
    )


@functools.cache
def unavailable_reason() -> str | None:
    """Why a sandbox cannot have a network of its own here, or None (tried once per process)."""
    if os.geteuid() != 0:
        return "a network of its own for a bot needs the arena to run as root (to fence off this machine)"
    for name, package in ((HELPER, HELPER_PACKAGE), ("nft", NFT_PACKAGE), ("nsenter", "util-linux")):
        if _tool(name) is None:
            return f"the {name!r} command is not installed (Debian/Ubuntu: apt-get install {package})"
    try:
        _install_table()
    except OSError as e:
        return f"cannot install the firewall table for bots' networks: {e}"
    return None


def require() -> None:
    """ConfigError (one line naming what is missing) unless networks of their own can be had."""
    reason = unavailable_reason()
    if reason is not None:
        raise ConfigError(f"network: true cannot be given safely here: {reason}")


def _nft(script: str) -> None:
    exe = _tool("nft") or "nft"
    done = subprocess.run(
        [exe, "-f", "-"], input=script.encode(), capture_output=True, timeout=SETUP_S, check=False
    )
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"nft: {err[-1] if err else f'exit {done.returncode}'}")


def _install_table() -> None:
    """The firewall table, (re)written whole in one transaction: identical for every arena.

    Only packets whose socket belongs to a helper uid go to the ``helpers`` chain.  The
    match must be positive: a packet the kernel sends with no process's socket (the reset
    that answers a connection to a closed port, the last ACK of a closing connection) has
    no uid, so ``meta skuid != HELPERS return`` did not return it, and the rules after
    refused it. Every program on this machine then waited out its timeout where it should
    have heard "connection refused"."""
    uids = f"{HELPER_UID_BASE}-{HELPER_UID_MAX}"
    ports = "meta l4proto { tcp, udp }"
    _nft(
        f"""add table inet {TABLE}
add set inet {TABLE} allow4 {{ typeof meta skuid . ip daddr . tcp dport; }}
add set inet {TABLE} allow6 {{ typeof meta skuid . ip6 daddr . tcp dport; }}
add chain inet {TABLE} output {{ type filter hook output priority filter; policy accept; }}
add chain inet {TABLE} helpers
flush chain inet {TABLE} output
flush chain inet {TABLE} helpers
add rule inet {TABLE} output meta skuid {uids} jump helpers
add rule inet {TABLE} helpers {ports} meta skuid . ip daddr . th dport @allow4 accept
add rule inet {TABLE} helpers {ports} meta skuid . ip6 daddr . th dport @allow6 accept
add rule inet {TABLE} helpers fib daddr type {{ local, broadcast, multicast }} reject with icmpx admin-prohibited
add rule inet {TABLE} helpers ip daddr 169.254.0.0/16 reject with icmpx admin-prohibited
add rule inet {TABLE} helpers ip6 daddr fe80::/10 reject with icmpx admin-prohibited
"""
    )


@functools.cache
def resolv_conf() -> str:
    """A ``resolv.conf`` naming slirp4netns's DNS forwarder (bound read-only into the sandbox)."""
    folder = tempfile.mkdtemp(prefix="arena-net-")
    # One per arena process, gone with it: a suite or a ladder starts thousands of them.
    atexit.register(shutil.rmtree, folder, True)
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "resolv.conf")
    with open(path, "w", encoding="ascii") as f:
        f.write(f"nameserver {DNS_FORWARDER}\n")
    os.chmod(path, 0o644)
    return path


def _helper_uid() -> int:
    return HELPER_UID_BASE + os.getpid() * HELPER_UIDS_PER_PROCESS + next(_uids) % HELPER_UIDS_PER_PROCESS


def _set_allowed(uid: int, allow: Sequence[Endpoint]) -> None:
    """Make ``allow`` the exact set of this machine's endpoints ``uid`` may reach
    (a uid is reused by its arena process: what an earlier sandbox was allowed goes)."""
    exe = _tool("nft") or "nft"
    lines = []
    for family in ("allow4", "allow6"):
        done = subprocess.run(
            [exe, "-j", "list", "set", "inet", TABLE, family],
            capture_output=True,
            timeout=SETUP_S,
            check=False,
        )
        if done.returncode != 0:
            raise OSError(f"nft cannot list the set {family}")
        for item in json.loads(done.stdout).get("nftables", []):
            for element in item.get("set", {}).get("elem", []):
                parts = element.get("concat", []) if isinstance(element, dict) else []
                if parts and parts[0] == uid:
                    lines.append(
                        f"delete element inet {TABLE} {family} {{ {parts[0]} . {parts[1]} . {parts[2]} }}"
                    )
    for e in allow:
        family = "allow4" if e.address.version == 4 else "allow6"
        lines.append(f"add element inet {TABLE} {family} {{ {uid} . {e.address} . {e.port} }}")
    if lines:
        _nft("\n".join(lines) + "\n")


def _as_helper(uid: int) -> list[str]:
    exe = _tool("setpriv") or "setpriv"
    return [exe, f"--reuid={uid}", f"--regid={HELPER_GID}", "--clear-groups", "--no-new-privs", "--"]


class BotNetwork:
    """One sandbox's own network namespace and the slirp4netns that connects it.

    Made before the sandbox starts; :meth:`enter` is the command prefix that
    starts bwrap inside it.  Once the sandbox runs, :meth:`started` lets the
    namespace's placeholder go: from then on the sandbox holds the namespace,
    and it holds :attr:`lifeline` (a pipe's write end) that keeps slirp4netns
    running, so the network ends exactly when the sandbox's last process does
    (or the arena, whichever first).  :meth:`close` ends it at once.
    """

    def __init__(self, allow: Sequence[Endpoint] = ()) -> None:
        require()
        self.uid = _helper_uid()
        self.allow = tuple(allow)
        _set_allowed(self.uid, self.allow)
        self.lifeline, life_r = os.pipe()
        hold_r, self._hold_w = os.pipe()
        ready_r, ready_w = os.pipe()
        self._holder: subprocess.Popen[bytes] | None = None
        self._helper: subprocess.Popen[bytes] | None = None
        self._log: typing.IO[bytes] | None = None
        try:
            self._holder = self._start_holder(hold_r)
            self._helper = self._start_helper(life_r, ready_w)
            os.close(ready_w)
            ready_w = -1
            self._wait_ready(ready_r)
        except BaseException:
            self.close()
            raise
        finally:
            for fd in (life_r, hold_r, ready_r, ready_w):
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)

    def _start_holder(self, hold_r: int) -> subprocess.Popen[bytes]:
        """A placeholder that makes the namespace (in a user namespace the helper uid owns,
        so that slirp4netns needs no privilege of the host) and waits until told to go."""
        proc = subprocess.Popen(
            [*_as_helper(self.uid), "unshare", "--user", "--map-root-user", "--net", "--", "cat"],
            stdin=hold_r,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        mine = os.readlink("/proc/self/ns/net")
        deadline = time.monotonic() + SETUP_S
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{proc.pid}/ns/net") != mine:
                    return proc
            if proc.poll() is not None:
                raise OSError(f"could not make a network namespace (exit {proc.returncode})")
            time.sleep(0.005)
        raise OSError(f"no network namespace within {SETUP_S:.0f} s")

    def _start_helper(self, life_r: int, ready_w: int) -> subprocess.Popen[bytes]:
        assert self._holder is not None
        pid = self._holder.pid
        loopback = any(e.address.is_loopback for e in self.allow)
        argv = [
            *_as_helper(self.uid),
            _tool(HELPER) or HELPER,
            "--configure",
            "--mtu=65520",
            *([] if loopback else ["--disable-host-loopback"]),
            "--enable-seccomp",
            f"--exit-fd={life_r}",
            f"--ready-fd={ready_w}",
            f"--userns-path=/proc/{pid}/ns/user",
            "--netns-type=path",
            f"/proc/{pid}/ns/net",
            "tap0",
        ]
        # Its complaints go to a file, not a pipe: it outlives this call, and a pipe nobody
        # reads would stop it (or, closed, kill it) once full.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in started() or close())
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            start_new_session=True,
            pass_fds=(life_r, ready_w),
        )

    def _wait_ready(self, ready_r: int) -> None:
        assert self._helper is not None
        poller = select.poll()
        poller.register(ready_r, select.POLLIN)
        if not poller.poll(int(SETUP_S * 1000)):
            raise OSError(f"{HELPER} did not set the network up within {SETUP_S:.0f} s")
        if os.read(ready_r, 16) == b"":
            self._helper.wait(timeout=SETUP_S)
            assert self._log is not None
            self._log.seek(0)
            err = self._log.read(65536).decode("utf-8", "replace")
            lines = [ln for ln in err.splitlines() if ln and not ln.startswith(("WARNING", "*"))]
            raise OSError(f"{HELPER} failed: {lines[-1] if lines else f'exit {self._helper.returncode}'}")

    def enter(self) -> list[str]:
        """The command prefix that runs a command in this namespace (as root: bwrap then)."""
        assert self._holder is not None
        return [_tool("nsenter") or "nsenter", f"--net=/proc/{self._holder.pid}/ns/net", "--"]

    def started(self) -> None:
        """The sandbox is in the namespace: the placeholder goes, and our end of the lifeline.

        The helper then ends with the sandbox; :meth:`ended` reaps it.
        """
        self._end_holder()
        with contextlib.suppress(OSError):
            os.close(self.lifeline)
        self.lifeline = -1
        self._close_log()

    def ended(self, timeout_s: float = SETUP_S) -> None:
        """The sandbox has ended: wait up to ``timeout_s`` for the helper to follow it (its
        lifeline's last holder is gone), kill it if it has not, reap it, and take back what
        it was allowed.

        Whoever ends the sandbox calls this before returning: a game or a build returns
        with no helper of its own still running or unreaped (not left to a thread that
        would reap it some time later).  Its pid is safe to signal until then: only this
        object reaps it.
        """
        if self._helper is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._helper.wait(timeout_s)
        self.close()

    def _forget(self) -> None:
        if self.allow:
            with contextlib.suppress(OSError, ValueError, subprocess.SubprocessError):
                _set_allowed(self.uid, ())
            self.allow = ()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _end_holder(self) -> None:
        if self._hold_w >= 0:
            with contextlib.suppress(OSError):
                os.close(self._hold_w)
            self._hold_w = -1
        if self._holder is not None:
            _stop(self._holder)

    def close(self) -> None:
        """End the network now (a sandbox that failed to start, or has ended: see :meth:`ended`)."""
        self._end_holder()
        if self.lifeline >= 0:
            with contextlib.suppress(OSError):
                os.close(self.lifeline)
            self.lifeline = -1
        if self._helper is not None:
            _stop(self._helper)
        self._close_log()
        self._forget()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` if it still runs and reap it (a deadline on the wait: SIGKILL cannot be refused)."""
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=SETUP_S)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
