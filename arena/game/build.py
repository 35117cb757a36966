"""Bot builds: ``make``, ``cargo build``, ``javac``... run before a bot's first game.

A build is the bot author's code as much as the bot is, so it runs in the same
sandbox (the network only if the tournament allows), with a scrubbed
environment, no standard input, a deadline, and its output kept as a bounded
tail.  It runs as a user of its own (never root) and writes only the bot's
private copy of its folder (:mod:`arena.game.workspace`); what it makes is
stripped of set-id bits.  On a timeout, an error, Ctrl-C or SIGTERM its whole
process tree is killed.

What a sandboxed build leaves on the disk is bounded by ``build_mb``: it writes a tmpfs of
that size holding a copy of its folder, and what it left there is written out to the
folder only when it succeeded and all of it fits (:mod:`arena.game.sandbox.capfolder`).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType

from arena.game import workspace
from arena.game.limits import ResourceLimits, bot_environment
from arena.game.proctree import Held, forget_spawned, reap_adopted, wait_unreaped
from arena.game.sandbox.bwrap import SANDBOX_GID, SandboxPolicy, bot_user, resolve_mode
from arena.game.sandbox.capfolder import MB, CappedFolder, FolderFull
from arena.game.sandbox.spawn import SANDBOX_SETUP_S, spawn_sandboxed
from arena.untrusted import printable

OUTPUT_KEEP = 16 * 1024  # bytes of a build's output kept (its tail)
BUILD_LIMITS = ResourceLimits(
    memory_mb=4096, cpu_seconds=None, file_size_mb=1024, open_files=1024, tasks=1024, cpus=None
)
BUILD_TMP_MB = 1024
DEFAULT_BUILD_MB = 1024  # the most a build may leave in its folder (the tournament's build_mb)
NO_SPACE = b"No space left on device"  # strerror(ENOSPC), as C, Python and Java print it


@dataclass(frozen=True)
class BuildResult:
    """How a build went: ``ok``, why not (``exit 2``, ``timed out after 600 s``), its output's tail."""

    ok: bool
    why: str
    output: str
    sandboxed: bool
    warning: str | None = None

    def tail(self, lines: int = 15) -> list[str]:
        """The last lines of the output, safe to show (the bot's author chose every byte)."""
        return [printable(line) for line in self.output.strip().splitlines()[-lines:]]


class BuildInterrupted(BaseException):
    """SIGTERM arrived during a build (its processes were killed)."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into an exception while a build runs, so its processes die with us."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise BuildInterrupted()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _owner(folder: Path) -> tuple[int, int]:
    st = folder.stat()
    return st.st_uid, st.st_gid


def _reap_sandbox(init: int | None) -> None:
    """In a process that adopts orphans (a cluster worker, ``arena play``), collect the
    sandbox's init once it is gone, with what else was orphaned, so no ``bwrap`` zombie stays."""
    deadline = time.monotonic() + 5.0
    while True:
        reap_adopted()
        if init is None or not os.path.exists(f"/proc/{init}") or time.monotonic() > deadline:
            return
        try:
            with open(f"/proc/{init}/stat", "rb") as f:
                if f.read(4096).rsplit(b")", 1)[1].split()[1] != str(os.getpid()).encode():
                    return  # another process's child (we adopt nothing): not ours to reap
        except (OSError, IndexError):
            return
        time.sleep(0.01)


def run_build(
    command: Sequence[str],
    cwd: Path,
    sandbox: SandboxPolicy,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    network: bool = False,
    build_mb: int = DEFAULT_BUILD_MB,
) -> BuildResult:
    """Run one build to its end or its deadline; never raises for the build's own failure.

    The build's folder is ``sandbox.source`` (the bot's private copy, shown at ``cwd``), or
    else ``cwd`` itself.  Sandboxed, the build writes a tmpfs of ``build_mb`` MiB holding
    a copy of that folder (as the build user's, when the arena is root), and what it left
    there is written out to the folder when it succeeded and fits in ``build_mb`` (what it
    made to the folder's owner; a private copy to root and the bots' group, readable by
    every bot); a failed build leaves the folder as it was.  No set-id bit survives.
    """
    policy = replace(
        sandbox, network=network, writable=True, tmp_mb=max(sandbox.tmp_mb, BUILD_TMP_MB), folder_mb=build_mb
    )
    sandboxed, warning = resolve_mode(policy)
    full_env = bot_environment(cwd, env)
    folder = Path(policy.source) if policy.source is not None else cwd
    user = bot_user() if sandboxed else None  # a user of its own, never root
    init: Held | None = None
    back_to = (0, SANDBOX_GID) if policy.source is not None else _owner(folder)
    # Never copied into the build's folder: the hidden folders that lie in it, a checkout's history.
    inside = [h for h in (*policy.hidden, *policy.never_shown) if Path(h).is_relative_to(folder) and Path(h) != folder]
    skip = [*inside, *(str(folder / name) for name in workspace.SKIPPED)]
    capped = CappedFolder(build_mb * MB, skip) if sandboxed else None

    def fill(init_pid: int) -> None:
        assert capped is not None
        capped.open(init_pid, str(cwd), time.monotonic() + SANDBOX_SETUP_S)
        capped.fill(folder, user)

    try:
        if sandboxed:
            proc, init, group, net = spawn_sandboxed(
                command,
                cwd,
                full_env,
                BUILD_LIMITS,
                policy,
                owner=user,
                stdin=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                umask=0o022,
                prepare=fill,
            )
        else:
            group, net = None, None
            proc = subprocess.Popen(
                list(command),
                cwd=folder,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
    except (OSError, subprocess.SubprocessError) as e:
        if capped is not None:
            capped.close()
        _after_build(folder, sandbox)
        return BuildResult(False, f"could not start: {e}", "", sandboxed, warning)
    output = bytearray()
    why = ""
    ended = False  # the build ran to its end or deadline (no exception is on its way out)
    try:
        with _sigterm_raises():
            why = _collect(proc, output, time.monotonic() + timeout_s, timeout_s)
        ended = True
    finally:
        if init is not None:  # the sandbox's init, bwrap's child: through the pidfd held since its start
            init.signal(signal.SIGKILL)
            init.close()
        with contextlib.suppress(OSError):
            # The build's process group (unsandboxed builds), by its id: its leader is unreaped until the wait.
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        forget_spawned(proc.pid)
        if proc.stdout is not None:
            proc.stdout.close()
        if group is not None:
            group.kill_all()
            group.remove()
        if net is not None:  # its helper ends with the sandbox: reaped before the build returns
            net.ended()
        _reap_sandbox(None if init is None else init.pid)
        if capped is not None:  # every process of the build is dead: what it left changes no more
            try:
                if ended:
                    why = _carry_out(capped, folder, why, proc.returncode, output, back_to)
            finally:
                capped.close()
        stripped = _after_build(folder, sandbox)
    if stripped:
        output += f"\n(set-id bits removed from: {', '.join(stripped[:10])})\n".encode()
    text = output.decode("utf-8", "replace")
    if why:
        return BuildResult(False, why, text, sandboxed, warning)
    code = proc.returncode
    return BuildResult(code == 0, f"exited with {code}", text, sandboxed, warning)


def _carry_out(
    capped: CappedFolder, folder: Path, why: str, code: int | None, output: bytearray, owner: tuple[int, int]
) -> str:
    """Write what a finished build left in its capped folder out to ``folder`` when it
    succeeded; why it failed ("" when it did not), naming ``build_mb`` when that stopped it."""
    if why or code != 0:
        if capped.full() or NO_SPACE in output:
            cause = why or f"exited with {code}"
            return f"{cause}; its folder was full: a build may leave at most build_mb ({capped.mb}) there"
        return why
    try:
        capped.carry_out(folder, owner)
    except FolderFull as e:
        return str(e)
    except OSError as e:
        return f"could not write what it made out to {str(folder)!r}: {e}"
    return ""


def _after_build(folder: Path, bot: SandboxPolicy) -> list[str]:
    """Strip set-id bits (an unsandboxed build wrote the folder itself), seal a private copy
    (for the bot's own policy ``bot``); the paths stripped."""
    stripped = workspace.strip_set_id(folder)
    if bot.source is not None:
        workspace.seal(folder, bot.writable)
    return stripped


def _collect(proc: subprocess.Popen[bytes], output: bytearray, deadline: float, timeout_s: float) -> str:
    """Read the build's output (keeping its tail) until it ends; "" or why it was stopped."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return f"timed out after {timeout_s:g} s (build_timeout)"
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:  # every process holding the output has ended or closed it
            # Not reaped: the group is killed by its id, the build's pid, after this.
            if wait_unreaped(proc, max(0.0, min(deadline - time.monotonic(), 5.0))) is None:
                return f"timed out after {timeout_s:g} s (build_timeout)"
            return ""
        output += chunk
        if len(output) > OUTPUT_KEEP:
            del output[: len(output) - OUTPUT_KEEP]
