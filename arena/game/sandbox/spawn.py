"""Starting a command in its sandbox: bubblewrap, the system-call filter and a cgroup.

:mod:`.bwrap` builds the command line; this module runs it, puts the
sandbox's init into a cgroup of its own before it may go on, and cleans up
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
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.errors import ConfigError
from arena.game.limits import ResourceLimits
from arena.game.proctree import note_spawned
from arena.game.sandbox import bwrap as sandbox
from arena.game.sandbox import cgroups, seccomp
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.signal_guard import signals_deferred
from arena.untrusted import printable

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
) -> tuple[subprocess.Popen[bytes], int, cgroups.BotCgroup | None]:
    """Start ``argv`` under bubblewrap: (bwrap's process, the sandbox's init pid, its cgroup).

    bwrap sets the namespaces up, reports its init's pid and waits; the init is
    moved into a cgroup of its own (when the machine allows) and only then told
    to go on, so not one instruction of the command runs outside its limits.
    Raises OSError (with bwrap's own complaint) when the sandbox cannot be made.
    """
    support = cgroups.support()
    group: cgroups.BotCgroup | None = None
    if support is not None:
        with contextlib.suppress(OSError):
            group = support.create(cgroups.CgroupLimits(limits.memory_mb, limits.tasks, limits.cpus))
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    proc: subprocess.Popen[bytes] | None = None
    handed: list[int] = []  # descriptors only bwrap needs: closed here once it has them
    try:
        user = owner or sandbox.bot_user()
        handed.append(seccomp.program_fd())
        passwd = sandbox.passwd_fd(*user) if user is not None else None
        if passwd is not None:
            handed.append(passwd)
        fds = sandbox.SandboxFds(info_w, block_r, handed[0], passwd)
        command = limits.prlimit_command(whole_bot=group is not None)
        command += sandbox.bwrap_command(policy, argv, cwd, env, fds, user)
        with signals_deferred():
            proc = subprocess.Popen(
                command,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                cwd="/",
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                start_new_session=True,
                close_fds=True,
                pass_fds=fds.all(),
                bufsize=0,
            )
        note_spawned(proc.pid)
        os.close(info_w)
        os.close(block_r)
        info_w = block_r = -1
        for fd in handed:
            os.close(fd)
        handed.clear()
        init = _read_sandbox_info(info_r, proc)
        if group is not None:
            group.attach(proc.pid)
            group.attach(init)
        os.write(block_w, b"1")
    except BaseException as e:  # SIGTERM (SystemExit) mid-start too: no half-started sandbox is left
        message = str(e)
        if proc is not None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            message = printable(err.splitlines()[-1][:500]) if err else message
        if group is not None:
            group.remove()
        if not isinstance(e, OSError | subprocess.SubprocessError | ValueError | ConfigError):
            raise
        raise OSError(message) from None
    finally:
        for fd in (info_r, info_w, block_r, block_w, *handed):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
    return proc, init, group
