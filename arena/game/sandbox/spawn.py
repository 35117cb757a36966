"""Starting a command in its sandbox: bubblewrap, the system-call filter and a cgroup.

:mod:`.bwrap` builds the command line; this module runs it, puts the
sandbox's init into a cgroup of its own (and, for a plain user's arena, bounds its
user namespace's share of the user's kernel pools: :mod:`.ucounts`) before it may
go on, and cleans up
whatever a failed start left.  Used for a bot (:mod:`arena.game.botproc`)
and for a bot's build (:mod:`arena.game.build`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from arena.errors import ConfigError
from arena.game.limits import ResourceLimits
from arena.game.proctree import Held, note_spawned
from arena.game.sandbox import bwrap as sandbox
from arena.game.sandbox import cgroups, network, seccomp, ucounts
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.signal_guard import signals_deferred
from arena.untrusted import printable

# What a bot makes is its group's to write too: under root each start of a bot is a user of
# its own (group nogroup), so a file a `writable` bot made in one game would be another
# user's, read-only to it, in its next game.  (A build keeps 022: what it makes in the
# author's own folder is not opened to the folder's group.)
BOT_UMASK = 0o002
SANDBOX_SETUP_S = 10.0  # how long bubblewrap may take to set a sandbox up before the bot starts


def _read_sandbox_info(fd: int, proc: subprocess.Popen[bytes]) -> int:
    """The sandbox init's pid, from bubblewrap's ``--info-fd`` JSON (with a deadline)."""
    deadline = time.monotonic() + SANDBOX_SETUP_S
    data = b""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise OSError(f"bubblewrap did not set the sandbox up within {SANDBOX_SETUP_S:.0f} s")
        if not poller.poll(math.ceil(left * 1000)):
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            proc.wait(timeout=SANDBOX_SETUP_S)
            raise OSError(f"bubblewrap exited while setting the sandbox up (exit {proc.returncode})")
        data += chunk
        if len(data) > 65536:
            raise OSError("bubblewrap's sandbox information is too long")
        try:
            pid = json.loads(data)["child-pid"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(pid, int) or pid <= 1:
            raise OSError(f"bubblewrap reported an odd sandbox pid {pid!r}")
        return pid


class Sandboxed(NamedTuple):
    """A started sandbox: bwrap's process, its init, its cgroup and its own network.

    The init (bwrap's child, not ours) is held by a pidfd taken while it waited for our
    go-ahead: signal it through that (``init.signal``), never by its pid, and close it
    at the end.  Whoever ends the sandbox calls ``net.ended()`` after killing it, so that
    the network's helper is reaped before the game or build returns.
    """

    proc: subprocess.Popen[bytes]
    init: Held
    group: cgroups.BotCgroup | None
    net: network.BotNetwork | None


def spawn_sandboxed(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    limits: ResourceLimits,
    policy: SandboxPolicy,
    owner: tuple[int, int] | None = None,
    stdin: int = subprocess.PIPE,
    stdout: int = subprocess.PIPE,
    stderr: int = subprocess.PIPE,
    umask: int = BOT_UMASK,
    prepare: Callable[[int], None] | None = None,
) -> Sandboxed:
    """Start ``argv`` under bubblewrap: bwrap's process, the sandbox's init, its cgroup
    and its network (:class:`Sandboxed`).

    bwrap sets the namespaces up, reports its init's pid and waits; the init is
    moved into a cgroup of its own (when the machine allows) and only then told
    to go on, so not one instruction of the command runs outside its limits.
    ``prepare`` is called with the init's pid once the sandbox is set up and before the
    command starts (a build's capped folder is filled then: :mod:`.capfolder`).
    Raises OSError (with bwrap's own complaint) when the sandbox cannot be made.
    """
    group = _new_cgroup(limits)
    pipes = _Pipes()
    proc: subprocess.Popen[bytes] | None = None
    net: network.BotNetwork | None = None
    init: Held | None = None
    try:
        user = owner or sandbox.bot_user()
        fds = pipes.sandbox_fds(user)
        command = limits.prlimit_command(whole_bot=group is not None)
        net = _own_network(policy)
        command += net.enter() if net is not None else []
        command += sandbox.bwrap_command(policy, argv, cwd, env, fds, user, own_network=net is not None)
        with signals_deferred():
            proc = _start_bwrap(command, fds, stdin, stdout, stderr, net, umask)
        note_spawned(proc.pid)
        pipes.given_to_bwrap()
        # Held at once: the init waits for our go-ahead, and its parent bwrap for it.
        init = Held(_read_sandbox_info(pipes.info_r, proc))
        if net is not None:
            net.started()
        if group is not None:
            group.attach(proc.pid)
            group.attach(init.pid)
        if not sandbox.runs_as_root():  # every bot is the arena's user: bound its share of the user's pools
            ucounts.bound_namespace(init.pid)
        if prepare is not None:
            prepare(init.pid)
        os.write(pipes.block_w, b"1")
    except BaseException as e:  # SIGTERM (SystemExit) mid-start too: no half-started sandbox is left
        message = str(e)
        if proc is not None:
            complaint = _kill_half_started(proc)
            message = message if complaint is None else complaint
        if group is not None:
            group.remove()
        if net is not None:
            net.close()
        if init is not None:
            init.close()
        if not isinstance(e, OSError | subprocess.SubprocessError | ValueError | ConfigError):
            raise
        raise OSError(message) from None
    finally:
        pipes.close()
    return Sandboxed(proc, init, group, net)


def _own_network(policy: SandboxPolicy) -> network.BotNetwork | None:
    """For a policy with the network, a namespace of its own and its user-mode stack."""
    if not policy.network:
        return None
    allow = []
    for text in policy.allow:
        try:
            allow.append(network.parse_endpoint(text))
        except ValueError as e:
            raise ConfigError(f"allow: {e}") from None
    return network.BotNetwork(allow)


def _new_cgroup(limits: ResourceLimits) -> cgroups.BotCgroup | None:
    """A cgroup of its own for the command, or None when the machine allows none (rlimits then)."""
    support = cgroups.support()
    if support is None:
        return None
    with contextlib.suppress(OSError):
        return support.create(cgroups.CgroupLimits(limits.memory_mb, limits.tasks, limits.cpus))
    return None


class _Pipes:
    """The descriptors of one start: bwrap's report (``info``) and go-ahead (``block``) pipes,
    and those only bwrap needs (the filter, the passwd file), closed here once it has them."""

    def __init__(self) -> None:
        self.info_r, self.info_w = os.pipe()
        self.block_r, self.block_w = os.pipe()
        self.handed: list[int] = []

    def sandbox_fds(self, user: tuple[int, int] | None) -> sandbox.SandboxFds:
        """The descriptors to hand to bwrap, the filter and (for a user of its own) passwd made."""
        filter_fd = seccomp.program_fd()
        self.handed.append(filter_fd)
        passwd = sandbox.passwd_fd(*user) if user is not None else None
        if passwd is not None:
            self.handed.append(passwd)
        return sandbox.SandboxFds(self.info_w, self.block_r, filter_fd, passwd)

    def given_to_bwrap(self) -> None:
        """Close bwrap's ends once it runs: its exit then shows as the end of ``info``."""
        os.close(self.info_w)
        os.close(self.block_r)
        self.info_w = self.block_r = -1
        for fd in self.handed:
            os.close(fd)
        self.handed.clear()

    def close(self) -> None:
        """Close every descriptor still open (the start is over, or failed)."""
        for fd in (self.info_r, self.info_w, self.block_r, self.block_w, *self.handed):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _start_bwrap(
    command: list[str],
    fds: sandbox.SandboxFds,
    stdin: int,
    stdout: int,
    stderr: int,
    net: network.BotNetwork | None = None,
    umask: int = 0o022,
) -> subprocess.Popen[bytes]:
    """bwrap's process, in a session of its own, with only the descriptors it is handed
    (and the lifeline of its own network, which it then holds until its last process ends)."""
    return subprocess.Popen(
        command,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        cwd="/",
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        start_new_session=True,
        close_fds=True,
        umask=umask,
        pass_fds=(*fds.all(), *((net.lifeline,) if net is not None else ())),
        bufsize=0,
    )


def _kill_half_started(proc: subprocess.Popen[bytes]) -> str | None:
    """Kill a sandbox whose start failed; the last line bwrap complained with, if any."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)  # bwrap, its group's leader, is unreaped until the wait
    proc.wait()
    err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return printable(err.splitlines()[-1][:500]) if err else None
