"""Control groups: limits that hold for a bot as a whole, not per process.

A bot may start many processes and threads; resource limits (``setrlimit``)
bind each process alone, so ten children get ten times the memory.  A cgroup
holds the bot's whole process tree: its memory, its number of tasks
(processes + threads) and its CPU bandwidth are capped together, and the
kernel counts what the bot used.

Both layouts are handled: cgroup v1 (one hierarchy per controller, e.g.
``/sys/fs/cgroup/memory``) and v2 (one unified hierarchy).  Each bot gets a
cgroup below the arena's own, so the arena's own limits still hold over it.
When no cgroup can be made (no permission, no controllers delegated), the
caller falls back to rlimits and records that it did.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena.game.proctree import signal_if

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpu")
FREEZER = "freezer"  # v1's own hierarchy (v2 has cgroup.freeze in every cgroup): optional
FREEZE_WAIT_S = 2.0  # how long freezing may take before we say it did not
CPU_PERIOD_US = 100_000
PREFIX = "arena-bot-"
NAME_TRIES = 100  # names looked at for a new cgroup before giving up
_counter = itertools.count()


@dataclass(frozen=True)
class CgroupLimits:
    """What to cap: ``None`` leaves that resource as the arena's own cgroup has it."""

    memory_mb: int | None = None
    tasks: int | None = None
    cpus: float | None = None


def _own_path(controller: str) -> str | None:
    """This process's cgroup path for a v1 controller, or for v2 (``controller=""``)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _id, names, path = line.split(":", 2)
        if (controller and controller in names.split(",")) or (not controller and _id == "0" and not names):
            return path
    return None


class CgroupSupport:
    """Where bot cgroups can be made on this machine, found once per process."""

    def __init__(self, version: int, parents: dict[str, Path]) -> None:
        self.version = version
        self.parents = parents  # controller -> the folder new bot cgroups go in (v2: one for all)

    @property
    def description(self) -> str:
        """What holds a bot's limits, for its seat record: ``cgroup v1 (cpu, memory, pids)``."""
        names = sorted(c for c in self.parents if c in CONTROLLERS) if self.version == 1 else CONTROLLERS
        return f"cgroup v{self.version} ({', '.join(names)})"

    @property
    def can_freeze(self) -> bool:
        """Whether a bot's cgroup can be frozen (v2 always; v1 with the freezer mounted)."""
        return self.version == 2 or FREEZER in self.parents

    def create(self, limits: CgroupLimits) -> BotCgroup:
        """A new cgroup with these limits; raises OSError if it cannot be made.

        A name already taken is passed over: a cgroup another process left (an arena
        killed with SIGKILL, one whose bot took too long to die) keeps the name of its pid,
        which the kernel gives out again; that folder is another's, never used or removed.
        """
        for _ in range(NAME_TRIES):
            group = BotCgroup(self, f"{PREFIX}{os.getpid()}-{next(_counter)}")
            try:
                group.make(limits)
            except FileExistsError:
                group.remove()  # only the folders it made itself
                continue
            except OSError:
                group.remove()
                raise
            return group
        raise OSError(f"no free cgroup name after {NAME_TRIES} tries")


def _probe_v1() -> CgroupSupport | None:
    parents: dict[str, Path] = {}
    for controller in CONTROLLERS:
        mount = CGROUP_ROOT / controller
        own = _own_path(controller)
        if own is None or not (mount / "cgroup.procs").exists():
            return None
        parents[controller] = mount / own.lstrip("/")
    own = _own_path(FREEZER)
    if own is not None and (CGROUP_ROOT / FREEZER / "cgroup.procs").exists():
        parents[FREEZER] = CGROUP_ROOT / FREEZER / own.lstrip("/")
    return CgroupSupport(1, parents)


def _probe_v2() -> CgroupSupport | None:
    own = _own_path("")
    if own is None or not (CGROUP_ROOT / "cgroup.controllers").exists():
        return None
    parent = CGROUP_ROOT / own.lstrip("/")
    try:
        available = (parent / "cgroup.controllers").read_text().split()
        if not set(CONTROLLERS) <= set(available):
            return None
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        missing = [c for c in CONTROLLERS if c not in enabled]
        if missing:  # fails (EBUSY) while the arena's own cgroup holds processes: then no v2 here
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))
    except OSError:
        return None
    return CgroupSupport(2, {"": parent})


_support: CgroupSupport | bool | None = False  # False: not probed yet


def support() -> CgroupSupport | None:
    """The cgroup layout bots can be put in here, or None (then rlimits apply)."""
    global _support
    if _support is False:
        found = _probe_v1() or _probe_v2()
        if found is not None:
            try:  # a real trial: permissions are only known by trying
                found.create(CgroupLimits(memory_mb=64, tasks=8, cpus=1)).remove()
            except OSError:
                found = None
        if found is not None:
            sweep_orphans(found)
        _support = found
    return _support if isinstance(_support, CgroupSupport) else None


def sweep_orphans(found: CgroupSupport) -> list[str]:
    """Empty and remove the bot cgroups whose arena process is gone; their names.

    A process that kept bots (a league's worker) and was killed with SIGKILL left their
    cgroups behind, and a bot frozen in one (between its turns, or between games) stays there
    for good: a frozen process takes no signal, its sandbox's SIGKILL included, until thawed.
    Each arena process looks once, when it first needs cgroups.  A cgroup is named after the
    pid of the process that made it (see :meth:`CgroupSupport.create`): one whose pid is
    running may be another's that was given the pid again, and is left for a later look.
    """
    names: set[str] = set()
    for parent in found.parents.values():
        with contextlib.suppress(OSError):
            names.update(p.name for p in parent.iterdir() if p.name.startswith(PREFIX))
    swept = []
    for name in sorted(names):
        owner = name[len(PREFIX) :].split("-")[0]
        if not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
            continue
        group = BotCgroup(found, name)
        group.made = [d for d in group.dirs.values() if d.is_dir()]
        with contextlib.suppress(OSError):
            group.kill_all()
            group.remove()
            swept.append(name)
    return swept


class BotCgroup:
    """One bot's cgroup (one folder per controller under v1)."""

    def __init__(self, support: CgroupSupport, name: str) -> None:
        self.support = support
        self.name = name
        self.dirs = {c: parent / name for c, parent in support.parents.items()}
        self.made: list[Path] = []  # the folders :meth:`make` made: the only ones removed
        self._freezer_fd: int | None = None  # kept open: the referee freezes and thaws at every move

    def _file(self, controller: str, name: str) -> Path:
        return self.dirs[controller if self.support.version == 1 else ""] / name

    def make(self, limits: CgroupLimits) -> None:
        """Create the cgroup's folders and write its limits; raises OSError when it cannot."""
        for d in self.dirs.values():
            d.mkdir()
            self.made.append(d)
        v1 = self.support.version == 1
        if limits.memory_mb is not None:
            size = str(limits.memory_mb * 1024 * 1024)
            self._file("memory", "memory.limit_in_bytes" if v1 else "memory.max").write_text(size)
            if not v1:
                with contextlib.suppress(OSError):  # no swap to escape to
                    self._file("memory", "memory.swap.max").write_text("0")
        if limits.tasks is not None:
            self._file("pids", "pids.max").write_text(str(limits.tasks))
        if limits.cpus is not None:
            quota = max(1000, int(limits.cpus * CPU_PERIOD_US))
            if v1:
                self._file("cpu", "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                self._file("cpu", "cpu.cfs_quota_us").write_text(str(quota))
            else:
                self._file("cpu", "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")

    def attach(self, pid: int) -> None:
        """Move a process (and so everything it starts from now on) into the cgroup."""
        for d in self.dirs.values():
            (d / "cgroup.procs").write_text(str(pid))

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        d = next(iter(self.dirs.values()))
        try:
            return [int(x) for x in (d / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the bot for going over its memory."""
        try:
            if self.support.version == 1:
                text = self._file("memory", "memory.oom_control").read_text()
            else:
                text = self._file("memory", "memory.events").read_text()
        except OSError:
            return False
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip() not in ("", "0"):
                return True
        return False

    def _freezer_file(self) -> Path:
        if self.support.version == 1:
            return self.dirs[FREEZER] / "freezer.state"
        return self.dirs[""] / "cgroup.freeze"

    def freeze(self, wait: bool = True) -> bool:
        """Stop every process of the cgroup where it stands (none may run, nor be scheduled,
        until :meth:`thaw`); whether it is frozen within FREEZE_WAIT_S (``wait=False``:
        whether the freeze was asked for; the kernel completes it on its own)."""
        if not self.support.can_freeze:
            return False
        try:
            self._set_freezer(frozen=True)
            if not wait:
                return True
            deadline = time.monotonic() + FREEZE_WAIT_S
            while not self.frozen():
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.002)
        except OSError:
            return False
        return True

    def frozen(self) -> bool:
        """Whether the cgroup is frozen now (every process stopped)."""
        try:
            if self.support.version == 1:
                return self._freezer_file().read_text().strip() == "FROZEN"
            events = (self.dirs[""] / "cgroup.events").read_text().split()
        except OSError:
            return False
        return "frozen" in events and events[events.index("frozen") + 1] == "1"

    def thaw(self) -> None:
        """Let the cgroup's processes run again (nothing when it is not frozen)."""
        if self.support.can_freeze:
            with contextlib.suppress(OSError):
                self._set_freezer(frozen=False)

    def _set_freezer(self, frozen: bool) -> None:
        """Write the freezer's state, through a descriptor opened once (no open and close at
        each of the two writes a move costs)."""
        if self._freezer_fd is None:
            self._freezer_fd = os.open(self._freezer_file(), os.O_WRONLY | os.O_CLOEXEC)
        if self.support.version == 1:
            os.pwrite(self._freezer_fd, b"FROZEN" if frozen else b"THAWED", 0)
        else:
            os.pwrite(self._freezer_fd, b"1" if frozen else b"0", 0)

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup (new ones may appear while it is done)."""
        self.thaw()  # a frozen process takes its SIGKILL only once it runs again
        if self.support.version == 2:
            with contextlib.suppress(OSError):
                self._file("", "cgroup.kill").write_text("1")
                return
        for _ in range(20):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:  # each held, then found in the cgroup again: not a stranger given its pid
                signal_if(pid, signal.SIGKILL, lambda p: p in self.pids())
            time.sleep(0.005)

    def remove(self, wait_s: float = 1.0) -> None:
        """Remove the cgroup once its processes are gone (a dying process still holds it)."""
        if self._freezer_fd is not None:
            os.close(self._freezer_fd)
            self._freezer_fd = None
        deadline = time.monotonic() + wait_s
        for d in self.made:
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                    time.sleep(0.005)
