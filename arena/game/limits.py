"""A bot's resource limits and the scrubbed environment it starts with.

Shared by every way a process of a bot is started: a plain bot
(:mod:`arena.game.botproc`), a sandboxed one (:mod:`arena.game.sandbox.spawn`)
and a bot's build (:mod:`arena.game.build`).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """A bot's resource limits.

    ``memory_mb``, ``tasks`` (processes + threads) and ``cpus`` (CPU bandwidth,
    in cores) hold for the bot as a whole when it runs in a cgroup (sandboxed
    bots, where the machine allows it); otherwise memory is the address space
    of each process and tasks is the per-user process limit.  ``cpu_seconds``,
    ``file_size_mb`` and ``open_files`` are per process.  ``None`` leaves a
    limit as the arena found it.  Cores are never dumped.
    """

    memory_mb: int | None = 2048
    cpu_seconds: int | None = 600
    file_size_mb: int | None = 64
    open_files: int | None = 256
    tasks: int | None = 256
    cpus: float | None = 1.0

    def rlimits(self, whole_bot: bool, per_user_tasks: bool = True) -> dict[str, int]:
        """The rlimits to set, by ``prlimit`` name, never above the arena's own hard limits
        (raising one needs a capability).  Memory and tasks only when no cgroup holds them
        for the whole bot; tasks (a per-user limit) only when the bot has a user of its own."""
        mb = 1024 * 1024
        wanted: dict[str, int | None] = {
            "core": 0,
            "cpu": self.cpu_seconds,
            "fsize": None if self.file_size_mb is None else self.file_size_mb * mb,
            "nofile": self.open_files,
        }
        if not whole_bot:
            # RLIMIT_DATA, not RLIMIT_AS: under an address-space limit of a few GB no JVM
            # starts ("Could not allocate compressed class space"), though it would use little.
            wanted["data"] = None if self.memory_mb is None else self.memory_mb * mb
            if per_user_tasks:
                wanted["nproc"] = self.tasks
        out = {}
        for name, value in wanted.items():
            if value is None:
                continue
            _soft, hard = resource.getrlimit(_RLIMITS[name])
            out[name] = value if hard == resource.RLIM_INFINITY else min(value, hard)
        return out

    def prlimit_command(self, whole_bot: bool, per_user_tasks: bool = True) -> list[str]:
        """``prlimit --data=N:N ... --`` (util-linux), which sets the limits and execs what follows.

        Used instead of a Python ``preexec_fn``, which forces ``subprocess`` onto a
        slow fork path (several ms a start); the extra exec costs far less.
        """
        exe = shutil.which("prlimit")
        if exe is None:
            raise ConfigError("the 'prlimit' command (util-linux) is needed to limit the bots")
        limits = self.rlimits(whole_bot, per_user_tasks)
        return [exe, *(f"--{k}={v}:{_hard(k, v)}" for k, v in limits.items()), "--"]


def _hard(name: str, soft: int) -> int:
    """The hard limit to set with ``soft``: the same, but for CPU time one second more, so
    that a bot past its CPU time gets SIGXCPU (which names the limit in its record) before
    the kernel's SIGKILL (which names nothing)."""
    if name != "cpu":
        return soft
    _cur, hard = resource.getrlimit(resource.RLIMIT_CPU)
    return soft + 1 if hard == resource.RLIM_INFINITY or soft + 1 <= hard else soft


_RLIMITS = {
    "data": resource.RLIMIT_DATA,
    "cpu": resource.RLIMIT_CPU,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "nproc": resource.RLIMIT_NPROC,
    "core": resource.RLIMIT_CORE,
}


def _with_own_python(path: str) -> str:
    own = os.path.dirname(sys.executable)
    rest = [d for d in path.split(os.pathsep) if d and d != own]
    return os.pathsep.join([own, *rest]) if own else path


def bot_environment(cwd: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A scrubbed environment: PATH to find interpreters, a locale, HOME, and ``extra``."""
    env = {
        # The arena's own interpreter first, as inside the sandbox: ``python3`` is the same
        # Python (with the bot kit importable) with and without it.
        "PATH": _with_own_python(os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")),
        "LANG": "C.UTF-8",
        "HOME": str(cwd),
        "PYTHONUNBUFFERED": "1",  # a Python bot that forgets to flush still answers
    }
    env.update(extra or {})
    return env


def applied_limits_text(limits: ResourceLimits, cgroup_description: str | None) -> str:
    """What held a bot's memory, in words for its record and the start line: the cgroup's
    limit for the whole bot, or a per-process data limit (``RLIMIT_DATA``)."""
    if cgroup_description is not None:
        return cgroup_description
    if limits.memory_mb is None:
        return "rlimits (no memory limit)"
    return f"rlimits (memory: {limits.memory_mb} MB of data per process, RLIMIT_DATA)"
