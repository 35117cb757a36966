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
RETRY_S = 0.005  # between tries while the namespace's users are not mapped yet
_SYSCTL = "/proc/sys/user"


def bounds() -> dict[str, int]:
    """The per-namespace maxima set for each bot (those this kernel has)."""
    wanted = {"max_inotify_instances": BOT_INOTIFY_INSTANCES, "max_inotify_watches": BOT_INOTIFY_WATCHES}
    return {name: value for name, value in wanted.items() if os.path.exists(f"{_SYSCTL}/{name}")}


def bound_namespace(init_pid: int) -> None:
    """Set the per-user pools' maxima in the user namespace of the sandbox whose init is
    ``init_pid`` (before its command starts); where they cannot be set, says so in a
    warning and lets the bot start unbounded, as it would without this module: the
    arena's own failure is never charged to the bot as a failure to start.

    bubblewrap reports its init a moment before that init has mapped its users: until
    then nothing entering the namespace is root there.  So the namespace's uid map is
    watched (a cheap read) until it is written, and only then is ``nsenter`` started;
    its write is tried again (for up to NSENTER_S in all) should it still not take.
    Starting ``nsenter`` in a loop instead costs a process every few milliseconds, which
    on a loaded machine is what made the wait outlast its deadline."""
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
    argv = [nsenter, f"--user=/proc/{init_pid}/ns/user", "--preserve-credentials", "/bin/sh", "-c", script]
    deadline = time.monotonic() + NSENTER_S
    _wait_until_mapped(init_pid, deadline)
    while True:
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=max(0.1, deadline - time.monotonic()),
                env={"PATH": "/usr/bin:/bin"},
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise OSError(f"setting the bot's inotify bounds took more than {NSENTER_S:g} s") from None
        if done.returncode == 0:
            return
        if time.monotonic() > deadline or not os.path.exists(f"/proc/{init_pid}"):
            why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            raise OSError(f"cannot bound the bot's inotify use in its user namespace: {why[0]}")
        time.sleep(RETRY_S)


def _wait_until_mapped(init_pid: int, deadline: float) -> None:
    """Return once the user namespace of ``init_pid`` has its uid map (or the deadline
    passed: ``nsenter`` then says what is wrong)."""
    uid_map = f"/proc/{init_pid}/uid_map"
    while time.monotonic() < deadline:
        try:
            with open(uid_map) as f:
                if f.read().strip():
                    return
        except OSError:
            return  # the sandbox is gone: nsenter's error names it
        time.sleep(RETRY_S)
