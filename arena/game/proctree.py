"""The one reader of ``/proc``: a bot's processes, found and killed, and orphans adopted.

Everything that looks at other processes goes through here, so only this
module knows the format of ``/proc/PID/stat`` (whose command name, between
parentheses, may itself hold spaces and parentheses).  It also keeps the
pids this arena process started itself (bots, builds), which it waits for
on its own and so must never reap as adopted orphans, and holds processes by
pidfds (:class:`Held`, :func:`signal_if`) so that a remembered pid is never
signalled once it may name someone else.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import subprocess
import time
from collections.abc import Callable

BOT_ID_VARIABLE = "ARENA_BOT_ID"  # marks every process a bot starts, to find them all at the end

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
_EXIT_POLL_S = 0.01  # how often wait_unreaped looks at the exit
_TREE_WALK_LIMIT = 64  # processes looked at when measuring one bot's CPU time

_adopting = False  # this process is a child subreaper: what a bot starts stays below it
_spawned: set[int] = set()  # processes this arena started (bots, builds) and will wait for


class Held:
    """A process held by a pidfd, taken while it is known to be the one meant: a signal
    sent through it reaches that process or, once it has ended, no one.

    A pid number is given to a new process soon after the one it named is reaped (every
    few minutes on a busy machine, ``pid_max`` 32768), so a pid remembered from a start
    or found in ``/proc`` can name a stranger by the time it is signalled.  Hold it first:
    at the start (a child of ours, or a sandbox's init blocked until we let it go), or,
    for a pid found in ``/proc``, just before :func:`signal_if` looks again that it is
    the process meant.  Where pidfds do not exist (Linux before 5.3) the pid is used
    itself, as before.

    There is no pidfd for a process group: ``killpg(pgid)`` is safe only while the group's
    leader is an unreaped child of ours, whose pid no one else can be given (see
    :func:`unreaped_exit_code`); every killpg in the arena keeps to that.
    """

    __slots__ = ("_fd", "pid")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd: int | None  # None: no pidfds here, the pid is used itself; -1: closed, or gone
        try:
            self._fd = os.pidfd_open(pid)
        except ProcessLookupError:
            self._fd = -1  # already gone: a signal reaches no one
        except OSError:
            self._fd = None

    def signal(self, sig: int) -> bool:
        """Send ``sig`` to the process held; False if it has ended (or was never found)."""
        try:
            if self._fd is None:
                os.kill(self.pid, sig)
            elif self._fd >= 0:
                signal.pidfd_send_signal(self._fd, sig)
            else:
                return False
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def close(self) -> None:
        """Let the process go (its pidfd closed); signals then reach no one."""
        if self._fd is not None and self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = -1

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Held({self.pid})"


def signal_if(pid: int, sig: int, still_meant: Callable[[int], bool]) -> bool:
    """Send ``sig`` to a process found in ``/proc``, if it is still the one meant.

    The pid is held first (:class:`Held`), then ``still_meant(pid)`` looks at ``/proc``
    again (its marker, its parent, its cgroup): if the number went to a stranger before
    the hold, the look sees the stranger and nothing is sent; if after, the pidfd still
    holds the process that was meant, which has ended, and the signal reaches no one.
    Returns whether it was sent.
    """
    with Held(pid) as held:
        return still_meant(pid) and held.signal(sig)


def _stat_fields(pid: int | str) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after ``pid (comm)``: state, ppid, pgrp, ..."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()


def _children(pid: int, tid: int | str) -> list[int]:
    """The children of one thread of ``pid``, from the kernel's ``children`` list."""
    with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
        return [int(x) for x in f.read().split()]


def start_ticks(pid: int) -> int:
    """When a process started (clock ticks since boot), or 0 if unknown."""
    try:
        return int(_stat_fields(pid)[19])
    except (OSError, IndexError, ValueError):
        return 0


def tree_cpu_seconds(root: int) -> float:
    """The most CPU time any one process of the tree below ``root`` has used, in seconds.

    Walks the main threads' ``children`` lists (a few ``/proc`` files), no scan.
    """
    most, todo, seen = 0, [root], 0
    while todo and seen < _TREE_WALK_LIMIT:
        pid = todo.pop()
        seen += 1
        try:
            most = max(most, sum(int(x) for x in _stat_fields(pid)[11:13]))  # utime stime
            todo.extend(_children(pid, pid))
        except (OSError, IndexError, ValueError):
            continue
    return most / _TICKS_PER_S


def scan_processes(token: str, pgid: int | None = None, since: int = 0) -> tuple[list[int], list[int]]:
    """Live processes carrying this bot's token, and (if ``pgid``) those in its group.

    One pass over ``/proc``: a child that cleared its environment is still in
    the group, and a daemon that left the group still carries the token.  Only
    processes started at ``since`` (clock ticks) or later can be the bot's, so
    only their environments are read.
    """
    needle = f"{BOT_ID_VARIABLE}={token}".encode() if token else None
    try:
        entries = [str(p) for p in descendants(os.getpid())] if _adopting else os.listdir("/proc")
    except OSError:  # no /proc: only the process group is killed
        return [], []
    marked: list[int] = []
    group: list[int] = []
    for entry in entries:
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            fields = _stat_fields(entry)
            if fields[0] == b"Z":  # a zombie no longer runs
                continue
            if pgid is not None and int(fields[2]) == pgid:
                group.append(pid)
            if needle is not None and int(fields[19]) >= since:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle in f.read():
                        marked.append(pid)
        except (OSError, IndexError, ValueError):
            continue
    return marked, group


def child_group_leaders(parent: int) -> list[int]:
    """The children of ``parent`` that lead a process group of their own (its bots, say).

    A scan of all of ``/proc`` (zombies included), for a parent that is not ours.
    """
    leaders = []
    with contextlib.suppress(OSError):  # no /proc: none found
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                fields = _stat_fields(entry)
                if int(fields[1]) == parent and int(fields[2]) == int(entry):
                    leaders.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
    return leaders


def note_spawned(pid: int) -> None:
    """Record a child this process started and will wait for itself (never reaped as an orphan)."""
    _spawned.add(pid)


def forget_spawned(pid: int) -> None:
    """Drop a child recorded by :func:`note_spawned` once it has been waited for."""
    _spawned.discard(pid)


def adopt_orphans() -> bool:
    """Make this process a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``).

    Whatever a bot starts then stays among this process's descendants even when
    its parent dies, so finding a bot's processes at the end of its game is a
    walk of this process's own small tree instead of a scan of all of ``/proc``
    (about 12 ms a bot on a busy machine).  Orphans adopted this way are reaped
    when a bot is stopped.  Only for a process whose children are its bots: a
    worker, or the command line.  Returns whether it took effect.
    """
    global _adopting
    if _adopting:
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):  # not Linux
        return False
    _adopting = ok and os.path.exists(f"/proc/self/task/{os.getpid()}/children")
    return _adopting


def children(pid: int) -> list[int]:
    """The children of ``pid``, whichever of its threads started them ([] once it is gone)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    for tid in tasks:
        with contextlib.suppress(OSError, ValueError):
            out.extend(_children(pid, tid))
    return out


def descendants(root: int) -> list[int]:
    """Every process below ``root``, from the kernel's per-thread ``children`` lists."""
    out: list[int] = []
    todo = [root]
    while todo:
        kids = children(todo.pop())
        out.extend(kids)
        todo.extend(kids)
    return out


def signal_descendants(root: int, sig: int) -> None:
    """Send ``sig`` to every process below ``root``, parents before their children; each
    is held, then found again under the parent it was listed under (:func:`signal_if`)."""
    todo = [root]
    while todo:
        parent = todo.pop()
        for kid in children(parent):
            signal_if(kid, sig, functools.partial(is_child_of, parent=parent))
            todo.append(kid)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU time of ``pid`` itself (utime + stime) and of the children it has waited for, with
    theirs (cutime + cstime), in seconds; (0, 0) once it is gone."""
    try:
        utime, stime, cutime, cstime = (int(x) for x in _stat_fields(pid)[11:15])
    except (OSError, IndexError, ValueError):
        return 0.0, 0.0
    return (utime + stime) / _TICKS_PER_S, (cutime + cstime) / _TICKS_PER_S


def tree_cpu_total(root: int) -> float:
    """All the CPU time the tree of ``root`` has used, in seconds: each live process's own,
    and that of the children each has waited for (so a finished child still counts)."""
    return sum(sum(cpu_seconds(pid)) for pid in (root, *descendants(root)))


def command_line(pid: int) -> list[str]:
    """The arguments ``pid`` was started with ([] once it is gone), undecodable bytes replaced."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return []
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0")[:-1]]


def reap_adopted() -> None:
    """Collect the exit of orphans this subreaper adopted (never of a child it started)."""
    if not _adopting:
        return
    me = os.getpid()
    for tid in os.listdir(f"/proc/{me}/task"):
        try:
            kids = _children(me, tid)
        except (OSError, ValueError):
            continue
        for pid in kids:
            if pid in _spawned:
                continue
            with contextlib.suppress(OSError, IndexError):
                if _stat_fields(pid)[0] == b"Z":
                    os.waitpid(pid, os.WNOHANG)


def carries(pid: int, token: str, since: int = 0) -> bool:
    """Whether ``pid`` is a live process started at ``since`` or later with this bot's token."""
    try:
        fields = _stat_fields(pid)
        if fields[0] == b"Z" or int(fields[19]) < since:
            return False
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f"{BOT_ID_VARIABLE}={token}".encode() in f.read()
    except (OSError, IndexError, ValueError):
        return False


def is_child_of(pid: int, parent: int) -> bool:
    """Whether ``pid`` is (still) a live child of ``parent``."""
    try:
        fields = _stat_fields(pid)
        return fields[0] != b"Z" and int(fields[1]) == parent
    except (OSError, IndexError, ValueError):
        return False


def marked_pids(token: str, since: int = 0) -> list[int]:
    """Every live process whose environment carries this bot's token."""
    return scan_processes(token, None, since)[0]


def kill_marked(token: str, since: int = 0) -> int:
    """SIGKILL every process whose environment carries this bot's token.

    Killing the process group catches what a bot starts, except a process that
    left the group (``setsid``, a daemon): those still inherit the bot's
    environment, so they are found in ``/proc``.  Returns how many were killed.
    """
    killed = 0
    for _ in range(5):  # a dying parent's children may appear a moment later
        pids = marked_pids(token, since)
        for pid in pids:
            signal_if(pid, signal.SIGKILL, lambda p: carries(p, token, since))
        killed += len(pids)
        if not pids:
            break
        time.sleep(0.01)
    return killed


def unreaped_exit_code(proc: subprocess.Popen[bytes]) -> int | None:
    """``proc``'s exit code as :class:`subprocess.Popen` gives it (-N: killed by signal N)
    once it has ended, else None; without reaping it.

    A child that leads a process group of its own is killed by the group's id, its pid.
    Reaped before that kill, its pid could go to a new process (another game's bot, which
    leads a group too) and the kill would reach that stranger; a zombie's pid is given to
    no one.  So the arena looks at such a child's exit with this, and reaps it
    (``proc.wait()``) only after it has killed the group.
    """
    if proc.returncode is not None:
        return proc.returncode
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped already, by someone else's wait
        return proc.wait()
    if info is None or info.si_pid == 0:
        return None
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status  # CLD_KILLED or CLD_DUMPED: the signal's number


def wait_unreaped(proc: subprocess.Popen[bytes], seconds: float) -> int | None:
    """:func:`unreaped_exit_code`, waiting up to ``seconds`` for ``proc`` to end."""
    deadline = time.monotonic() + seconds
    while (code := unreaped_exit_code(proc)) is None and time.monotonic() < deadline:
        time.sleep(min(_EXIT_POLL_S, max(0.0, deadline - time.monotonic())))
    return code
