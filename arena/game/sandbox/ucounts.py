"""Per-bot bounds on the kernel's per-user pools when the arena is not root.

A plain user's arena cannot give each bot a user of its own, so every bot runs as
the arena's user, and what the kernel counts per user is one pool for all of them:
one bot holding every inotify instance the user may have (128 by default) would
leave none for the next bot, or for the arena's user's other programs.  The kernel
counts these per user *and per user namespace* (each level of nested namespaces
checks its own maximum), and bubblewrap gives each sandbox a user namespace of its
own: so before the bot may start, the arena (the namespace's owner, with every
capability there) sets that namespace's maximum (``/proc/sys/user/max_inotify_*``)
through ``nsenter`` (util-linux).  Everything the bot's processes make is then
charged against its own bound as well as the shared pool.

Under root each bot already has a user of its own, and these are not needed.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import time

# Enough for any program that watches a few folders (an editor, a build tool); with the
# kernel's default pool of 128 instances, 16 bots at once still leave room for the rest.
BOT_INOTIFY_INSTANCES = 8
BOT_INOTIFY_WATCHES = 8192
NSENTER_S = 10.0  # how long setting the bounds may take
RETRY_S = 0.005  # between looks at the namespace's uid map while it is not written yet
_NS_GET_PARENT = 0xB702  # ioctl (linux/nsfs.h): a descriptor of a namespace's parent
_SYSCTL = "/proc/sys/user"


def bounds() -> dict[str, int]:
    """The per-namespace maxima set for each bot (those this kernel has)."""
    wanted = {"max_inotify_instances": BOT_INOTIFY_INSTANCES, "max_inotify_watches": BOT_INOTIFY_WATCHES}
    return {name: value for name, value in wanted.items() if os.path.exists(f"{_SYSCTL}/{name}")}


def bound_namespace(init_pid: int) -> None:
    """Set the per-user pools' maxima in the user namespace bubblewrap made for the sandbox
    whose init is ``init_pid`` (before its command starts); where they cannot be set, says
    so in a warning and lets the bot start unbounded, as it would without this module: the
    arena's own failure is never charged to the bot as a failure to start.

    Which namespace: bubblewrap makes one (the arena's user is root there, so a command
    entering it keeps its capabilities), and with ``--disable-userns`` its init then moves
    on into a nested one, where the arena's user is a plain uid and the write is refused.
    That move happens while the sandbox is set up, concurrently with this function: the
    init's current namespace is the outer one or the nested one depending on how fast each
    side ran.  So the namespace entered is not "the init's" but the one on its chain just
    below the arena's own, held open here by descriptor: the same one whatever the init
    has done meanwhile.  The kernel checks every level's maximum, so a bound there holds
    for everything the bot makes in the nested one."""
    try:
        _bound(init_pid)
    except OSError as e:
        logging.getLogger(__name__).warning("the bot's inotify use is not bounded: %s", e)


def _bound(init_pid: int) -> None:
    limits = bounds()
    if not limits:
        return  # a kernel without per-namespace counts: nothing to set
    nsenter = shutil.which("nsenter", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if nsenter is None:
        raise OSError("the 'nsenter' command (util-linux) is needed to bound each bot's inotify use")
    script = " && ".join(f"echo {value} > {_SYSCTL}/{name}" for name, value in limits.items())
    deadline = time.monotonic() + NSENTER_S
    ns = _sandbox_namespace(init_pid)
    try:
        _wait_until_mapped(init_pid, deadline)
        argv = [nsenter, f"--user=/proc/self/fd/{ns}", "--preserve-credentials", "/bin/sh", "-c", script]
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=max(0.1, deadline - time.monotonic()),
                env={"PATH": "/usr/bin:/bin"},
                pass_fds=(ns,),
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise OSError(f"setting the bot's inotify bounds took more than {NSENTER_S:g} s") from None
    finally:
        os.close(ns)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise OSError(f"cannot bound the bot's inotify use in its user namespace: {why[0]}")


def _sandbox_namespace(init_pid: int) -> int:
    """A descriptor of the user namespace bubblewrap made for the sandbox of ``init_pid``:
    on the init's chain of namespaces, the one whose parent is the arena's own."""
    own = os.stat("/proc/self/ns/user")
    ns = os.open(f"/proc/{init_pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    try:
        while True:
            parent = fcntl.ioctl(ns, _NS_GET_PARENT)
            st = os.fstat(parent)
            if (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino):
                os.close(parent)
                return ns
            os.close(ns)
            ns = parent
    except OSError as e:  # EPERM: a chain that does not pass through the arena's own namespace
        os.close(ns)
        raise OSError(f"cannot find the sandbox's user namespace (pid {init_pid}): {e}") from None


def _wait_until_mapped(init_pid: int, deadline: float) -> None:
    """Return once the sandbox's users are mapped (or the deadline passed: ``nsenter``
    then says what is wrong).  Until bubblewrap has mapped the arena's user to root in its
    namespace, a command entering it loses its capabilities at its exec.  The map read is
    that of the init's current namespace: empty while bubblewrap's is not yet written, and
    a nested namespace exists only once it is."""
    uid_map = f"/proc/{init_pid}/uid_map"
    while time.monotonic() < deadline:
        try:
            with open(uid_map) as f:
                if f.read().strip():
                    return
        except OSError:
            return  # the sandbox is gone: nsenter's error names it
        time.sleep(RETRY_S)
